/*
 * The history reader: a SAX2 parse (libxml2) of a history file into a culprit_run.
 *
 * History files may come from anywhere (a shared directory, a CI artifact), so
 * the parser is run with no network, no entity substitution and no DTD loading,
 * and any DOCTYPE is refused outright: that closes XXE and entity expansion bombs.
 * Anything that is not a culprit history of a version this build reads is
 * CULPRIT_EINVALID with a message naming the file and the problem.
 *
 * Speed matters when a detector loads a long history summaries-only: the sample
 * lines are 99% of a file. Their byte length is announced in each culprit block
 * (block.c), so culprit_history__skip_samples() (skip.c) finds the rest of the
 * mapped file (mapped.c) and only that rest goes through the XML parser, in pieces
 * gathered into one small buffer. A file that does not have exactly the shape the
 * writer produces is parsed whole instead.
 *
 * The header lines of a block are most of what is left, and libxml2 only hands them
 * over as text: a block whose text the parser would hand over unchanged (skip.c) is
 * cut out as well, a token standing in its place, and parsed straight from the file
 * when the token comes back as the text of its <system-out>. The token holds a random
 * nonce of the read, so no document can spell one; a token that comes back anywhere
 * else, or not at all (a block inside a comment), and any error, have the document
 * read again without the cut: what is read, and every message, stays what the whole
 * parse gives.
 */
#include "history_internal.h"

#include <limits.h>
#include <libxml/parser.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum {
    EL_TESTSUITES,
    EL_TESTSUITE,
    EL_PROPERTIES,
    EL_PROPERTY,
    EL_TESTCASE,
    EL_RESULT, /* <failure>, <error>, <skipped> */
    EL_SYSTEM_OUT,
    EL_SYSTEM_ERR,
    EL_OTHER
} element;

#define MAX_DEPTH 64

typedef struct {
    xmlParserCtxtPtr ctxt;
    const char *name;
    const culprit_history_query *query;
    culprit_run *run;
    int error;    /* culprit error code once something is wrong */
    int filtered; /* the run does not match the query: stop, no error */
    element stack[MAX_DEPTH];
    size_t depth;
    size_t nsuites;
    int have_format;
    culprit_test_result *test; /* the current testcase; NULL when filtered out */
    int have_block;
    culprit_buf text;                   /* the text of the current <system-out> / <system-err> */
    const char *data;                   /* the document the blocks of `cut` were cut from */
    const culprit_history__ranges *cut; /* NULL: nothing cut */
    size_t next_block;                  /* the cut block the next token stands for */
} reader;

static void fail(reader *r, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Records the first error with the file's name in front, and stops the parser. */
static void fail(reader *r, int code, const char *fmt, ...)
{
    char what[512];
    va_list ap;

    if (r->error)
        return;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    r->error = culprit_error_set(code, "%s: %s", r->name, what);
    if (r->ctxt)
        xmlStopParser(r->ctxt);
}

/* Passes on an error already set (by block.c or the model), naming the file. */
static void fail_last(reader *r, int code)
{
    if (r->error)
        return;
    culprit_error_prefix("%s: ", r->name);
    r->error = culprit_error_recode(code == CULPRIT_ERROR ? CULPRIT_ERROR : CULPRIT_EINVALID);
    if (r->ctxt)
        xmlStopParser(r->ctxt);
}

/* ------------------------------------------------------------ attributes --- */

/* SAX2 attributes: (localname, prefix, URI, value, end) quintuples. */
static const xmlChar **find_attr(const xmlChar **attrs, int nb, const char *name)
{
    for (int i = 0; i < nb; i++)
        if (!strcmp((const char *)attrs[i * 5], name))
            return &attrs[i * 5];
    return NULL;
}

/*
 * A copy of an attribute's value. Without entity substitution, libxml2 hands
 * SAX2 an '&' of the document as "&#38;" (xmlSAX2AttributeNs decodes it the same
 * way); every other reference has been resolved or rejected by then.
 */
static char *attr_dup(const xmlChar **attrs, int nb, const char *name)
{
    const xmlChar **a = find_attr(attrs, nb, name);
    const char *p, *end;
    char *copy, *q;

    if (!a)
        return NULL;
    p = (const char *)a[3];
    end = (const char *)a[4];
    if (!(copy = malloc((size_t)(end - p) + 1)))
        return NULL;
    for (q = copy; p < end;) {
        if (*p == '&' && end - p >= 5 && !memcmp(p, "&#38;", 5)) {
            *q++ = '&';
            p += 5;
        } else {
            *q++ = *p++;
        }
    }
    *q = '\0';
    return copy;
}

/* Replaces *field by the attribute's value when present. */
static int take_attr(reader *r, char **field, const xmlChar **attrs, int nb, const char *name)
{
    char *value;

    if (!find_attr(attrs, nb, name))
        return 0;
    if (!(value = attr_dup(attrs, nb, name))) {
        fail(r, CULPRIT_ERROR, "out of memory");
        return -1;
    }
    free(*field);
    *field = value;
    return 0;
}

/* ------------------------------------------------------------ properties --- */

static void on_property(reader *r, const xmlChar **attrs, int nb)
{
    char *name = attr_dup(attrs, nb, "name"), *value = attr_dup(attrs, nb, "value");

    if (!name || !value)
        fail(r, CULPRIT_EINVALID, "<property> without a name or a value");
    else if (culprit_history__run_property(r->run, name, &value, &r->have_format) < 0)
        fail_last(r, CULPRIT_EINVALID);
    free(name);
    free(value);
}

/* At </properties>: the run's identity is known, so a query can reject it now. */
static void check_run(reader *r)
{
    const culprit_history_query *q = r->query;

    if (!r->have_format) {
        fail(r, CULPRIT_EINVALID,
             "not a culprit history file (no culprit.format property in the testsuite)");
        return;
    }
    if (q && ((q->commit &&
               (!r->run->commit || strncmp(r->run->commit, q->commit, strlen(q->commit)) != 0)) ||
              (q->ncommits && !culprit_history__commit_wanted(q, r->run->commit, 0)))) {
        r->filtered = 1;
        xmlStopParser(r->ctxt);
    }
}

/* ------------------------------------------------------------- elements --- */

static void on_testsuite(reader *r, const xmlChar **attrs, int nb)
{
    const culprit_history_query *q = r->query;

    if (++r->nsuites > 1) {
        fail(r, CULPRIT_EINVALID, "more than one <testsuite> (a culprit history file has one)");
        return;
    }
    if (take_attr(r, &r->run->suite, attrs, nb, "name") < 0 ||
        take_attr(r, &r->run->id, attrs, nb, "id") < 0 ||
        take_attr(r, &r->run->timestamp, attrs, nb, "timestamp") < 0 ||
        take_attr(r, &r->run->host, attrs, nb, "hostname") < 0)
        return;
    if (q && q->suite && (!r->run->suite || strcmp(r->run->suite, q->suite) != 0)) {
        r->filtered = 1;
        xmlStopParser(r->ctxt);
    }
}

static void on_testcase(reader *r, const xmlChar **attrs, int nb)
{
    const xmlChar **name = find_attr(attrs, nb, "name");
    const culprit_history_query *q = r->query;

    r->test = NULL;
    r->have_block = 0;
    if (!r->have_format) {
        fail(r, CULPRIT_EINVALID,
             "not a culprit history file (no culprit.format property "
             "before the first testcase)");
        return;
    }
    if (!name) {
        fail(r, CULPRIT_EINVALID, "<testcase> without a name");
        return;
    }
    if (q && q->test) {
        char *test_name = attr_dup(attrs, nb, "name");
        int match = test_name && !strcmp(test_name, q->test);
        if (!test_name) {
            fail(r, CULPRIT_ERROR, "out of memory");
            return;
        }
        free(test_name);
        if (!match) {
            r->have_block = 1; /* not kept: nothing to check */
            return;
        }
    }
    if (culprit_history_run_add_test(&r->test, r->run) < 0) {
        fail_last(r, CULPRIT_ERROR);
        return;
    }
    if (take_attr(r, &r->test->name, attrs, nb, "name") < 0 ||
        take_attr(r, &r->test->classname, attrs, nb, "classname") < 0)
        return;
}

static void on_result(reader *r, const xmlChar *localname, const xmlChar **attrs, int nb)
{
    const char *name = (const char *)localname;

    if (!r->test)
        return;
    if (!strcmp(name, "failure"))
        r->test->status = CULPRIT_STATUS_FAILURE;
    else if (!strcmp(name, "error"))
        r->test->status = CULPRIT_STATUS_ERROR;
    else
        r->test->status = CULPRIT_STATUS_SKIPPED;
    take_attr(r, &r->test->message, attrs, nb, "message");
}

static element classify(reader *r, const char *name)
{
    element parent = r->depth ? r->stack[r->depth - 1] : EL_OTHER;

    if (r->depth == 0) {
        if (!strcmp(name, "testsuites"))
            return EL_TESTSUITES;
        if (!strcmp(name, "testsuite"))
            return EL_TESTSUITE;
        fail(r, CULPRIT_EINVALID, "not a JUnit file: the root element is <%s>", name);
        return EL_OTHER;
    }
    switch (parent) {
    case EL_TESTSUITES:
        return !strcmp(name, "testsuite") ? EL_TESTSUITE : EL_OTHER;
    case EL_TESTSUITE:
        if (!strcmp(name, "properties"))
            return EL_PROPERTIES;
        if (!strcmp(name, "testcase"))
            return EL_TESTCASE;
        if (!strcmp(name, "testsuite"))
            fail(r, CULPRIT_EINVALID, "nested <testsuite> (not written by culprit)");
        return EL_OTHER;
    case EL_PROPERTIES:
        return !strcmp(name, "property") ? EL_PROPERTY : EL_OTHER;
    case EL_TESTCASE:
        if (!strcmp(name, "failure") || !strcmp(name, "error") || !strcmp(name, "skipped"))
            return EL_RESULT;
        if (!strcmp(name, "system-out"))
            return EL_SYSTEM_OUT;
        if (!strcmp(name, "system-err"))
            return EL_SYSTEM_ERR;
        return EL_OTHER;
    default:
        return EL_OTHER;
    }
}

static void on_start(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri,
                     int nb_namespaces, const xmlChar **namespaces, int nb_attributes,
                     int nb_defaulted, const xmlChar **attrs)
{
    reader *r = ctx;
    element el;

    (void)prefix, (void)uri, (void)nb_namespaces, (void)namespaces, (void)nb_defaulted;
    if (r->error || r->filtered)
        return;
    if (r->depth == MAX_DEPTH) {
        fail(r, CULPRIT_EINVALID, "elements nested deeper than %d", MAX_DEPTH);
        return;
    }
    el = classify(r, (const char *)localname);
    r->stack[r->depth++] = el;
    switch (el) {
    case EL_TESTSUITE:
        on_testsuite(r, attrs, nb_attributes);
        break;
    case EL_PROPERTY:
        on_property(r, attrs, nb_attributes);
        break;
    case EL_TESTCASE:
        on_testcase(r, attrs, nb_attributes);
        break;
    case EL_RESULT:
        on_result(r, localname, attrs, nb_attributes);
        break;
    case EL_SYSTEM_OUT:
    case EL_SYSTEM_ERR:
        culprit_buf_clear(&r->text);
        break;
    default:
        break;
    }
}

static void on_end(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri)
{
    reader *r = ctx;
    element el;

    (void)localname, (void)prefix, (void)uri;
    if (r->error || r->filtered || r->depth == 0)
        return;
    el = r->stack[--r->depth];
    switch (el) {
    case EL_PROPERTIES:
        check_run(r);
        break;
    case EL_SYSTEM_OUT: {
        const char *text = culprit_buf_cstr(&r->text);
        size_t len = r->text.size;
        /* The token of a cut block: that block. One out of place: read again, uncut. */
        if (r->cut && culprit_history__take_block(r->cut, &r->next_block, r->data, &text, &len) < 0)
            fail(r, CULPRIT_EINVALID, "a culprit block out of place");
        if (r->error || !r->test)
            break;
        if (r->have_block) {
            fail(r, CULPRIT_EINVALID, "test '%s' has more than one <system-out>", r->test->name);
            break;
        }
        r->have_block = 1;
        if (culprit_history__block_parse(r->test, text, len, r->query ? r->query->flags : 0) < 0)
            fail_last(r, culprit_error_last_code());
        break;
    }
    case EL_SYSTEM_ERR:
        if (r->test && culprit_str_set(&r->test->output, culprit_buf_cstr(&r->text)) < 0)
            fail_last(r, CULPRIT_ERROR);
        break;
    case EL_TESTCASE:
        if (r->test && !r->have_block)
            fail(r, CULPRIT_EINVALID, "test '%s' has no culprit block (<system-out>)",
                 r->test->name);
        r->test = NULL;
        break;
    default:
        break;
    }
}

static void on_text(void *ctx, const xmlChar *ch, int len)
{
    reader *r = ctx;
    element top;

    if (r->error || r->filtered || r->depth == 0)
        return;
    top = r->stack[r->depth - 1];
    if (top != EL_SYSTEM_OUT && top != EL_SYSTEM_ERR)
        return;
    /* A token is counted in a test the query leaves out too. */
    if (!r->test && !(r->cut && top == EL_SYSTEM_OUT))
        return;
    if (culprit_buf_put(&r->text, (const char *)ch, (size_t)len) < 0)
        fail_last(r, CULPRIT_ERROR);
}

static void on_doctype(void *ctx, const xmlChar *name, const xmlChar *external_id,
                       const xmlChar *system_id)
{
    (void)name, (void)external_id, (void)system_id;
    fail(ctx, CULPRIT_EINVALID,
         "a DOCTYPE is not allowed in a history file (no DTD, no "
         "entities)");
}

static void on_entity(void *ctx, const xmlChar *name, int type, const xmlChar *public_id,
                      const xmlChar *system_id, xmlChar *content)
{
    (void)type, (void)public_id, (void)system_id, (void)content;
    fail(ctx, CULPRIT_EINVALID, "entity declaration '%s' is not allowed", (const char *)name);
}

static void on_xml_error(void *ctx, xmlErrorPtr e)
{
    reader *r = ctx;
    size_t len;

    if (!e || e->level < XML_ERR_ERROR)
        return;
    len = e->message ? strlen(e->message) : 0;
    fail(r, CULPRIT_EINVALID, "malformed XML at line %d: %.*s", e->line,
         (int)(len && e->message[len - 1] == '\n' ? len - 1 : len),
         e->message ? e->message : "unknown error");
}

/* --------------------------------------------------------- skip samples --- */

/* ------------------------------------------------------------- entry points --- */

void culprit_history__parser_init(void)
{
    xmlInitParser();
}

#define PUSH_PIECE ((size_t)1 << 16)

static void push(reader *r, const char *p, size_t len)
{
    while (len && !r->error && !r->filtered) {
        size_t piece = len < PUSH_PIECE ? len : PUSH_PIECE;
        xmlParseChunk(r->ctxt, p, (int)piece, 0);
        p += piece;
        len -= piece;
    }
}

/* Pushes the ranges of `data` to the parser in pieces of up to PUSH_PIECE bytes: a
 * range that long straight from `data`, shorter ones gathered into `stage` first
 * (one small buffer reused, not a copy of the document), each followed by the token
 * of the next cut block when it is marked so. */
static void push_ranges(reader *r, const char *data, const culprit_history__ranges *rs,
                        culprit_buf *stage)
{
    char tok[CULPRIT_HISTORY__TOKEN_MAX];
    size_t block = 0;

    for (size_t i = 0; i < rs->n && !r->error && !r->filtered; i++) {
        const char *p = data + rs->items[i].start;
        size_t len = rs->items[i].len;
        if (len >= PUSH_PIECE || stage->size >= PUSH_PIECE) {
            push(r, stage->ptr, stage->size);
            culprit_buf_clear(stage);
        }
        if (len >= PUSH_PIECE)
            push(r, p, len);
        else if (culprit_buf_put(stage, p, len) < 0)
            fail_last(r, CULPRIT_ERROR);
        if (rs->items[i].token &&
            culprit_buf_put(stage, tok, culprit_history__token(tok, rs, block++)) < 0)
            fail_last(r, CULPRIT_ERROR);
    }
    push(r, stage->ptr, stage->size);
}

static int parse(reader *r, const char *data, size_t len, const culprit_history__ranges *rs)
{
    xmlSAXHandler sax;
    culprit_history__range whole = {0, len, 0};
    culprit_history__ranges all = {&whole, 1, 1, NULL, 0, 0, ""};
    culprit_buf stage = CULPRIT_BUF_INIT;

    if (len > INT_MAX) {
        fail(r, CULPRIT_EINVALID, "too large (%zu bytes) for a history file", len);
        return r->error;
    }
    memset(&sax, 0, sizeof(sax));
    sax.initialized = XML_SAX2_MAGIC;
    sax.startElementNs = on_start;
    sax.endElementNs = on_end;
    sax.characters = on_text;
    sax.cdataBlock = on_text;
    sax.internalSubset = on_doctype;
    sax.entityDecl = on_entity;
    sax.serror = on_xml_error;
    culprit_history__parser_init();
    if (!(r->ctxt = xmlCreatePushParserCtxt(&sax, r, NULL, 0, r->name)))
        return CULPRIT_ERROR_NOMEM();
    /* No XML_PARSE_NOENT, no XML_PARSE_DTDLOAD: entities are never expanded or fetched.
     * No XML_PARSE_HUGE either: libxml2's limits on names, depth and entities stay. */
    xmlCtxtUseOptions(r->ctxt, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    /* In pieces: given the whole document as one chunk, libxml2 refused any file over
     * 10 MB ("Huge input lookup"), so a run with many samples or many tests was
     * written and then skipped by every reader. Pushed in pieces, the text of a block
     * reaches on_text() in pieces too, and a file of any size is read. */
    push_ranges(r, data, rs ? rs : &all, &stage);
    culprit_buf_dispose(&stage);
    if (!r->error && !r->filtered)
        xmlParseChunk(r->ctxt, NULL, 0, 1);
    if (!r->error && !r->filtered && !r->ctxt->wellFormed)
        fail(r, CULPRIT_EINVALID, "malformed XML");
    if (!r->error && !r->filtered && r->depth != 0)
        fail(r, CULPRIT_EINVALID, "truncated XML");
    if (!r->error && !r->filtered && r->nsuites == 0)
        fail(r, CULPRIT_EINVALID, "not a culprit history file (no <testsuite>)");
    if (!r->error && !r->filtered && !r->have_format)
        fail(r, CULPRIT_EINVALID, "not a culprit history file (no culprit.format property)");
    if (!r->error && !r->filtered && r->cut && r->next_block != r->cut->nblocks)
        fail(r, CULPRIT_EINVALID, "a culprit block out of place");
    xmlFreeParserCtxt(r->ctxt);
    r->ctxt = NULL;
    return r->error;
}

/* One reading of the document: with `cut`, blocks cut out where they can be
 * (*cut_any: some were). */
static int read_once(culprit_run **out, const char *data, size_t len, const char *name,
                     const culprit_history_query *query, int cut, int *cut_any)
{
    reader r;
    culprit_history__ranges kept;
    int error, skipped = 0;

    *out = NULL;
    memset(&r, 0, sizeof(r));
    memset(&kept, 0, sizeof(kept));
    r.name = name ? name : "(memory)";
    r.query = query;
    if (len == 0)
        return culprit_error_set(CULPRIT_EINVALID, "%s: empty file", r.name);
    if ((error = culprit_history_run_new(&r.run)) < 0)
        goto cleanup;
    if (!(query && (query->flags & CULPRIT_HISTORY_LOAD_SAMPLES)) &&
        (skipped = culprit_history__skip_samples(&kept, data, len, cut)) < 0) {
        error = CULPRIT_ERROR;
        goto cleanup;
    }
    if (skipped) /* a block per test */
        culprit_history__tests_reserve(r.run, kept.n - 1);
    if (skipped && kept.nblocks) {
        r.data = data;
        r.cut = &kept;
        *cut_any = 1;
    }
    error = parse(&r, data, len, skipped ? &kept : NULL);
    if (error < 0)
        goto cleanup;
    if (!r.filtered && query && query->test && r.run->ntests == 0)
        r.filtered = 1;
    if (!r.filtered) {
        *out = r.run;
        r.run = NULL;
    }
cleanup:
    culprit_history_run_free(r.run);
    culprit_buf_dispose(&r.text);
    free(kept.items);
    free(kept.blocks);
    return error;
}

int culprit_history__read(culprit_run **out, const char *data, size_t len, const char *name,
                          const culprit_history_query *query)
{
    int cut_any = 0, error = read_once(out, data, len, name, query, 1, &cut_any);

    /* Refused with blocks cut out: read as the whole parse reads it, for its run
     * (a block where the cut could not see it) or its error and message. */
    if (error == CULPRIT_EINVALID && cut_any) {
        culprit_error_clear();
        error = read_once(out, data, len, name, query, 0, &cut_any);
    }
    return error;
}

int culprit_history_read_memory(culprit_run **out, const char *data, size_t len, const char *name,
                                unsigned int flags)
{
    culprit_history_query query = {.flags = flags};

    return culprit_history__read(out, data, len, name, &query);
}
