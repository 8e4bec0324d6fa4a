/*
 * The call-tree file (docs/calltree-format.md) read into the model; file_write.c
 * writes it from the model. The trace runtime writes the same format without names (framework/
 * trace/dump.c, which cannot use this file: it links libc only); symbolize.c then
 * fills the names in. The reader is strict about structure, since an analysis of a
 * half-read tree would accuse the wrong function: every error names the file and
 * the line, a file that ends before its "end" line is reported as truncated, and
 * one that does not start with the magic line as not a call-tree file.
 */
#include "culprit/calltree.h"
#include "calltree_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The `mode` header's words, indexed by culprit_calltree_mode. */
static const char *const mode_names[] = {"structure", "level", "full", "weights"};
#define NMODES (sizeof(mode_names) / sizeof(mode_names[0]))

#define MAX_FIELDS 12

typedef struct {
    const char *name; /* the file, for messages */
    const char *p, *end;
    size_t line;
    char *fields[MAX_FIELDS];
    size_t nfields;
    culprit_buf text; /* the current line, split in place */
} reader;

const char *culprit_calltree__mode_name(culprit_calltree_mode mode)
{
    return (size_t)mode < NMODES ? mode_names[mode] : "full";
}

static int fail(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(reader *r, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return culprit_error_set(CULPRIT_EINVALID, "%s:%zu: %s", r->name, r->line, msg);
}

/* Reads the next line into fields; 0 at the end of the input, 1 with a line. */
static int next_line(reader *r)
{
    const char *nl;
    char *s;

    if (r->p >= r->end)
        return 0;
    nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
    culprit_buf_clear(&r->text);
    if (culprit_buf_put(&r->text, r->p, nl ? (size_t)(nl - r->p) : (size_t)(r->end - r->p)) < 0)
        return CULPRIT_ERROR;
    r->p = nl ? nl + 1 : r->end;
    r->line++;
    r->nfields = 0;
    s = r->text.ptr ? r->text.ptr : (char *)"";
    while (*s && r->nfields < MAX_FIELDS) {
        while (*s == ' ' || *s == '\t' || *s == '\r')
            *s++ = '\0';
        if (!*s)
            break;
        r->fields[r->nfields++] = s;
        while (*s && *s != ' ' && *s != '\t' && *s != '\r')
            s++;
    }
    return 1;
}

/* Lines that say nothing (blank, comments) are skipped. 0: end of input. */
static int next_record(reader *r)
{
    int more;
    while ((more = next_line(r)) > 0 && (r->nfields == 0 || r->fields[0][0] == '#'))
        ;
    return more;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* Decodes a percent-encoded field in place; "-" is NULL. */
static int decode(reader *r, char **out, char *field)
{
    char *w = field;

    *out = NULL;
    if (strcmp(field, "-") == 0)
        return 0;
    for (char *s = field; *s; s++) {
        if (*s == '%') {
            int hi = hexval(s[1]), lo = hi < 0 ? -1 : hexval(s[2]);
            if (lo < 0)
                return fail(r, "bad escape in '%s' (expected %%XX)", field);
            if (hi == 0 && lo == 0) /* it would end the name there, silently */
                return fail(r, "'%s' holds %%00 (a NUL byte)", field);
            *w++ = (char)(hi * 16 + lo);
            s += 2;
        } else {
            *w++ = *s;
        }
    }
    *w = '\0';
    *out = field;
    return 0;
}

static int parse_u64(reader *r, uint64_t *out, const char *field, const char *what)
{
    char *end;
    errno = 0;
    *out = strtoull(field, &end, 0);
    if (errno || end == field || *end || field[0] == '-')
        return fail(r, "bad %s '%s' (expected a non-negative integer)", what, field);
    return 0;
}

static int parse_index(reader *r, size_t *out, const char *field, const char *what)
{
    uint64_t v;
    int error;
    if (strcmp(field, "-") == 0) {
        *out = CULPRIT_CALLTREE_NONE;
        return 0;
    }
    if ((error = parse_u64(r, &v, field, what)) < 0)
        return error;
    *out = (size_t)v;
    return 0;
}

static int parse_time(reader *r, double *out, const char *field, const char *what)
{
    char *end;
    if (strcmp(field, "-") == 0) {
        *out = NAN;
        return 0;
    }
    errno = 0;
    *out = strtod(field, &end);
    if (errno || end == field || *end || !isfinite(*out) || *out < 0)
        return fail(r, "bad %s '%s' (expected a non-negative number of ns or '-')", what, field);
    return 0;
}

static double add_time(double a, double b)
{
    return isnan(a) ? b : isnan(b) ? a : a + b;
}

void culprit_calltree__node_add(culprit_calltree_node *dst, const culprit_calltree_node *src)
{
    dst->calls += src->calls;
    dst->samples += src->samples;
    dst->inclusive_ns = add_time(dst->inclusive_ns, src->inclusive_ns);
    dst->inclusive_sq_ns2 = add_time(dst->inclusive_sq_ns2, src->inclusive_sq_ns2);
    dst->exclusive_ns = add_time(dst->exclusive_ns, src->exclusive_ns);
}

/* The name a function has until it is symbolized. */
static void address_name(culprit_buf *out, const culprit_calltree *tree, const char *object,
                         uint64_t address)
{
    culprit_buf_clear(out);
    if (object && !(tree->binary && strcmp(object, tree->binary) == 0))
        culprit_buf_printf(out, "%s+0x%" PRIx64, culprit_fs_base_name(object), address);
    else
        culprit_buf_printf(out, "0x%" PRIx64, address);
}

int culprit_calltree_function_is_raw(const culprit_calltree *tree, size_t f)
{
    const culprit_calltree_function *fn = &tree->functions[f];
    culprit_buf name = CULPRIT_BUF_INIT;
    int raw;

    if (fn->file)
        return 0;
    address_name(&name, tree, fn->object, fn->address);
    raw = strcmp(culprit_buf_cstr(&name), fn->name) == 0;
    culprit_buf_dispose(&name);
    return raw;
}

/* "key value..." lines before the objects; unknown keys are skipped, so a later
 * writer of format 1 may add some. */
static int read_header(reader *r, culprit_calltree *tree, size_t *nobjects)
{
    int more;

    while ((more = next_record(r)) > 0) {
        const char *key = r->fields[0];
        if (strcmp(key, "objects") == 0) {
            uint64_t n;
            if (r->nfields != 2)
                return fail(r, "expected 'objects COUNT'");
            if (parse_u64(r, &n, r->fields[1], "object count") < 0)
                return CULPRIT_EINVALID;
            *nobjects = (size_t)n;
            return 0;
        }
        if (strcmp(key, "binary") == 0 || strcmp(key, "command") == 0) {
            culprit_buf value = CULPRIT_BUF_INIT;
            char **dst = key[0] == 'b' ? &tree->binary : &tree->command;
            for (size_t i = 1; i < r->nfields; i++) {
                char *s;
                if (decode(r, &s, r->fields[i]) < 0) {
                    culprit_buf_dispose(&value);
                    return CULPRIT_EINVALID;
                }
                if ((i > 1 && culprit_buf_puts(&value, " ") < 0) ||
                    (s && culprit_buf_puts(&value, s) < 0)) {
                    culprit_buf_dispose(&value);
                    return CULPRIT_ERROR;
                }
            }
            free(*dst);
            *dst = value.size ? culprit_buf_detach(&value) : NULL;
            culprit_buf_dispose(&value);
        } else if (strcmp(key, "mode") == 0) {
            const char *m = r->nfields > 1 ? r->fields[1] : "";
            size_t k = 0;
            while (k < NMODES && strcmp(m, mode_names[k]) != 0)
                k++;
            if (k == NMODES)
                return fail(r, "unknown mode '%s' (expected structure, level, full or weights)", m);
            tree->mode = (culprit_calltree_mode)k;
        } else if (strcmp(key, "cost") == 0) { /* what the "ns" fields count */
            const char *c = r->nfields > 1 ? r->fields[1] : "";
            if (strcmp(c, "instructions") != 0 && strcmp(c, "ns") != 0)
                return fail(r, "unknown cost '%s' (expected ns or instructions)", c);
            tree->instructions = c[0] == 'i';
        } else if (strcmp(key, "overhead-ns") == 0) {
            if (r->nfields != 2 || parse_time(r, &tree->overhead_ns, r->fields[1], "overhead") < 0)
                return fail(r, "expected 'overhead-ns NUMBER'");
            if (isnan(tree->overhead_ns))
                tree->overhead_ns = 0;
        } else if (strcmp(key, "wall-ns") == 0 || strcmp(key, "run-delay-ns") == 0 ||
                   strcmp(key, "runtime-cpu-ns") == 0) {
            double *dst = key[0] == 'w'                        ? &tree->wall_ns
                          : strcmp(key, "runtime-cpu-ns") == 0 ? &tree->runtime_cpu_ns
                                                               : &tree->run_delay_ns;
            if (r->nfields != 2 || parse_time(r, dst, r->fields[1], key) < 0 || isnan(*dst) ||
                *dst < 0)
                return fail(r, "expected '%s NUMBER' (ns, not negative)", key);
        }
    }
    if (more < 0)
        return more;
    return fail(r, "truncated: the file ends in its header (no 'objects' line)");
}

static int truncated(reader *r, const char *what, size_t found, size_t expected)
{
    return fail(r, "truncated: %zu of %zu %s, then the file ends", found, expected, what);
}

/* What the sections of the body share: the objects, and the maps from the file's
 * function and node indices to the model's (which merges duplicates). */
typedef struct {
    size_t nobjects, nfunctions, nnodes;
    char **objects, **build_ids;
    size_t *fmap, *nmap;
    culprit_buf name; /* the name of an unsymbolized function */
} body;

static void body_dispose(body *b)
{
    for (size_t i = 0; b->objects && i < b->nobjects; i++)
        free(b->objects[i]);
    for (size_t i = 0; b->build_ids && i < b->nobjects; i++)
        free(b->build_ids[i]);
    free(b->objects);
    free(b->build_ids);
    free(b->fmap);
    free(b->nmap);
    culprit_buf_dispose(&b->name);
}

static int out_of_memory(reader *r)
{
    return culprit_error_set(CULPRIT_ERROR, "out of memory reading '%s'", r->name);
}

/* The next record, which must exist: `what` names the section for "truncated". */
static int next_of(reader *r, const char *what, size_t i, size_t n)
{
    int more = next_record(r);
    return more < 0 ? more : more == 0 ? truncated(r, what, i, n) : 0;
}

/* A "KEY COUNT" line opening a section ("functions 12"). */
static int read_count(reader *r, const char *key, const char *what, size_t *out)
{
    uint64_t n;
    int more, error;

    if ((more = next_record(r)) <= 0)
        return more < 0 ? more : fail(r, "truncated: no '%s' line", key);
    if (r->nfields != 2 || strcmp(r->fields[0], key) != 0)
        return fail(r, "expected '%s COUNT'", key);
    if ((error = parse_u64(r, &n, r->fields[1], what)) < 0)
        return error;
    *out = (size_t)n;
    return 0;
}

static int read_objects(reader *r, body *b)
{
    int error;

    if (b->nobjects > 1u << 20)
        return fail(r, "implausible object count %zu", b->nobjects);
    if (!(b->objects = calloc(b->nobjects + 1, sizeof(*b->objects))) ||
        !(b->build_ids = calloc(b->nobjects + 1, sizeof(*b->build_ids))))
        return out_of_memory(r);
    for (size_t i = 0; i < b->nobjects; i++) {
        uint64_t idx;
        char *path, *id;
        if ((error = next_of(r, "objects", i, b->nobjects)) < 0)
            return error;
        if (r->nfields != 5 || strcmp(r->fields[0], "object") != 0)
            return fail(r, "expected 'object INDEX LOAD-ADDRESS BUILD-ID PATH' (%zu of %zu)", i + 1,
                        b->nobjects);
        if ((error = parse_u64(r, &idx, r->fields[1], "object index")) < 0)
            return error;
        if (idx != i)
            return fail(r, "object %" PRIu64 " out of order (expected %zu)", idx, i);
        if ((error = decode(r, &path, r->fields[4])) < 0 ||
            (error = decode(r, &id, r->fields[3])) < 0)
            return error;
        if (id && (strspn(id, "0123456789abcdef") != strlen(id) || strlen(id) % 2))
            return fail(r, "bad build-id '%s' (expected lower-case hex or '-')", id);
        if (id && !(b->build_ids[i] = culprit_strdup(id)))
            return CULPRIT_ERROR;
        if (!path)
            return fail(r, "object %zu has no path", i);
        if (!(b->objects[i] = culprit_strdup(path)))
            return CULPRIT_ERROR;
    }
    return 0;
}

/* Function record i: interned into the model, b->fmap[i] its index there. */
static int read_function(reader *r, culprit_calltree *tree, body *b, size_t i)
{
    uint64_t idx, address, low, high;
    size_t obj;
    char *fname, *file;
    int error;

    if ((error = next_of(r, "functions", i, b->nfunctions)) < 0)
        return error;
    if (r->nfields != 8 || strcmp(r->fields[0], "function") != 0)
        return fail(r,
                    "expected 'function INDEX OBJECT OFFSET NAME FILE LINE-LOW LINE-HIGH' "
                    "(%zu of %zu)",
                    i + 1, b->nfunctions);
    if ((error = parse_u64(r, &idx, r->fields[1], "function index")) < 0 ||
        (error = parse_index(r, &obj, r->fields[2], "object index")) < 0 ||
        (error = parse_u64(r, &address, r->fields[3], "address")) < 0 ||
        (error = decode(r, &fname, r->fields[4])) < 0 ||
        (error = decode(r, &file, r->fields[5])) < 0 ||
        (error = parse_u64(r, &low, r->fields[6], "line")) < 0 ||
        (error = parse_u64(r, &high, r->fields[7], "line")) < 0)
        return error;
    if (idx != i)
        return fail(r, "function %" PRIu64 " out of order (expected %zu)", idx, i);
    if (obj != CULPRIT_CALLTREE_NONE && obj >= b->nobjects)
        return fail(r, "function %zu names object %zu, but there are %zu", i, obj, b->nobjects);
    if (low > high || high > UINT32_MAX)
        return fail(r, "bad line range %" PRIu64 "-%" PRIu64, low, high);
    if (!fname) {
        address_name(&b->name, tree, obj == CULPRIT_CALLTREE_NONE ? NULL : b->objects[obj],
                     address);
        fname = b->name.ptr;
    }
    if ((error = culprit_calltree_function_intern(&b->fmap[i], tree, fname, file, (unsigned int)low,
                                                  (unsigned int)high)) < 0)
        return error;
    culprit_calltree_function *fn = &tree->functions[b->fmap[i]];
    if (!fn->object && obj != CULPRIT_CALLTREE_NONE) {
        if (!(fn->object = culprit_strdup(b->objects[obj])) ||
            (b->build_ids[obj] && !(fn->build_id = culprit_strdup(b->build_ids[obj]))))
            return CULPRIT_ERROR;
        fn->address = address;
    }
    return 0;
}

/* Node record i: its fields, checked against the tree read so far. */
static int read_node_fields(reader *r, const culprit_calltree *tree, const body *b, size_t i,
                            size_t *parent, size_t *func, culprit_calltree_node *stats)
{
    uint64_t idx, depth;
    int error;

    if ((r->nfields != 9 && r->nfields != 10) || strcmp(r->fields[0], "node") != 0)
        return fail(r,
                    "expected 'node INDEX PARENT FUNCTION DEPTH CALLS INCLUSIVE SQUARES "
                    "EXCLUSIVE [SAMPLES]' (%zu of %zu)",
                    i + 1, b->nnodes);
    memset(stats, 0, sizeof(*stats));
    if ((error = parse_u64(r, &idx, r->fields[1], "node index")) < 0 ||
        (error = parse_index(r, parent, r->fields[2], "parent")) < 0 ||
        (error = parse_index(r, func, r->fields[3], "function index")) < 0 ||
        (error = parse_u64(r, &depth, r->fields[4], "depth")) < 0 ||
        (error = parse_u64(r, &stats->calls, r->fields[5], "call count")) < 0 ||
        (error = parse_time(r, &stats->inclusive_ns, r->fields[6], "inclusive time")) < 0 ||
        (error = parse_time(r, &stats->inclusive_sq_ns2, r->fields[7], "sum of squares")) < 0 ||
        (error = parse_time(r, &stats->exclusive_ns, r->fields[8], "exclusive time")) < 0)
        return error;
    stats->samples = isnan(stats->inclusive_ns) ? 0 : stats->calls;
    if (r->nfields == 10 &&
        (error = parse_u64(r, &stats->samples, r->fields[9], "sample count")) < 0)
        return error;
    if (idx != i)
        return fail(r, "node %" PRIu64 " out of order (expected %zu)", idx, i);
    if (i == 0) {
        if (*parent != CULPRIT_CALLTREE_NONE || *func != CULPRIT_CALLTREE_NONE || depth != 0)
            return fail(r, "node 0 must be the root ('node 0 - - 0 ...')");
        return 0;
    }
    if (*parent == CULPRIT_CALLTREE_NONE || *parent >= i)
        return fail(r, "node %zu: its parent must be an earlier node", i);
    if (*func == CULPRIT_CALLTREE_NONE || *func >= b->nfunctions)
        return fail(r, "node %zu names function %s, but there are %zu", i, r->fields[3],
                    b->nfunctions);
    if (depth != tree->nodes[b->nmap[*parent]].depth + 1)
        return fail(r, "node %zu: depth %" PRIu64 " is not its parent's plus one", i, depth);
    return 0;
}

/* Node record i: added to the model, b->nmap[i] its index there. */
static int read_node(reader *r, culprit_calltree *tree, body *b, size_t i)
{
    culprit_calltree_node stats;
    size_t parent = 0, func = 0;
    int error;

    if ((error = next_of(r, "nodes", i, b->nnodes)) < 0)
        return error;
    if ((error = read_node_fields(r, tree, b, i, &parent, &func, &stats)) < 0)
        return error;
    if (i == 0) {
        tree->nodes[0].calls = stats.calls;
        b->nmap[0] = 0;
        return 0;
    }
    size_t before = tree->nnodes;
    if ((error = culprit_calltree_child(&b->nmap[i], tree, b->nmap[parent], b->fmap[func])) < 0)
        return error;
    if (tree->nnodes > before) { /* new: untimed stays NaN, not 0 */
        culprit_calltree_node *node = &tree->nodes[b->nmap[i]];
        node->calls = stats.calls;
        node->inclusive_ns = stats.inclusive_ns;
        node->inclusive_sq_ns2 = stats.inclusive_sq_ns2;
        node->exclusive_ns = stats.exclusive_ns;
        node->samples = stats.samples;
    } else { /* a path identical to an earlier one (two copies of a function) */
        culprit_calltree__node_add(&tree->nodes[b->nmap[i]], &stats);
    }
    return 0;
}

static int read_body(reader *r, culprit_calltree *tree, size_t nobjects)
{
    body b = {nobjects, 0, 0, NULL, NULL, NULL, NULL, CULPRIT_BUF_INIT};
    int error, more;

    if ((error = read_objects(r, &b)) < 0 ||
        (error = read_count(r, "functions", "function count", &b.nfunctions)) < 0)
        goto cleanup;
    if (b.nfunctions > (size_t)(r->end - r->p)) { /* each takes more than a byte */
        error = truncated(r, "functions", 0, b.nfunctions);
        goto cleanup;
    }
    if (!(b.fmap = calloc(b.nfunctions + 1, sizeof(*b.fmap)))) {
        error = out_of_memory(r);
        goto cleanup;
    }
    for (size_t i = 0; i < b.nfunctions; i++)
        if ((error = read_function(r, tree, &b, i)) < 0)
            goto cleanup;
    if ((error = read_count(r, "nodes", "node count", &b.nnodes)) < 0)
        goto cleanup;
    if (b.nnodes == 0 || b.nnodes > (size_t)(r->end - r->p) + 1) {
        error = b.nnodes == 0 ? fail(r, "a tree has at least its root node")
                              : truncated(r, "nodes", 0, b.nnodes);
        goto cleanup;
    }
    if (!(b.nmap = calloc(b.nnodes, sizeof(*b.nmap)))) {
        error = out_of_memory(r);
        goto cleanup;
    }
    for (size_t i = 0; i < b.nnodes; i++)
        if ((error = read_node(r, tree, &b, i)) < 0)
            goto cleanup;
    if ((more = next_record(r)) <= 0 || r->nfields != 1 || strcmp(r->fields[0], "end") != 0) {
        error = more < 0    ? more
                : more == 0 ? fail(r, "truncated: the file ends without its 'end' line")
                            : fail(r, "expected 'end' after %zu nodes", b.nnodes);
        goto cleanup;
    }
    /* Nothing but blank lines after it: records there were silently ignored. */
    if ((more = next_record(r)) != 0)
        error = more < 0 ? more : fail(r, "a record after the 'end' line");
cleanup:
    body_dispose(&b);
    return error;
}

int culprit_calltree_read_buffer(culprit_calltree **out, const char *data, size_t len,
                                 const char *name)
{
    reader r = {name, data, data + len, 0, {0}, 0, CULPRIT_BUF_INIT};
    culprit_calltree *tree = NULL;
    size_t nobjects = 0;
    uint64_t version;
    int error, more;

    *out = NULL;
    if ((error = culprit_calltree_new(&tree)) < 0)
        goto cleanup;
    if ((more = next_line(&r)) <= 0) {
        r.line = 1;
        error = more < 0 ? more : fail(&r, "empty file, not a culprit call tree");
        goto cleanup;
    }
    if (r.nfields < 2 || strcmp(r.fields[0], "culprit-calltree") != 0) {
        error = fail(&r,
                     "not a culprit call-tree file (its first line should be "
                     "'culprit-calltree %d')",
                     CULPRIT_CALLTREE_FORMAT);
        goto cleanup;
    }
    if (parse_u64(&r, &version, r.fields[1], "format version") < 0) {
        error = CULPRIT_EINVALID;
        goto cleanup;
    }
    if (version != CULPRIT_CALLTREE_FORMAT) {
        error = fail(&r, "format %" PRIu64 " is not supported (this culprit reads format %d)",
                     version, CULPRIT_CALLTREE_FORMAT);
        goto cleanup;
    }
    if ((error = read_header(&r, tree, &nobjects)) < 0 ||
        (error = read_body(&r, tree, nobjects)) < 0)
        goto cleanup;
    *out = tree;
    tree = NULL;
cleanup:
    culprit_calltree_free(tree);
    culprit_buf_dispose(&r.text);
    return error;
}

int culprit_calltree_read_file(culprit_calltree **out, const char *path)
{
    culprit_buf data = CULPRIT_BUF_INIT;
    int error;

    *out = NULL;
    if ((error = culprit_fs_read_file(&data, path)) == 0)
        error = culprit_calltree_read_buffer(out, data.ptr ? data.ptr : "", data.size, path);
    culprit_buf_dispose(&data);
    return error;
}
