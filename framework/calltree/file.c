/*
 * The call-tree file (docs/calltree-format.md): read into the model and written
 * from it. The trace runtime writes the same format without names (framework/
 * trace/dump.c, which cannot use this file: it links libc only); symbolize.c then
 * fills the names in. The reader is strict about structure, since an analysis of a
 * half-read tree would accuse the wrong function: every error names the file and
 * the line, a file that ends before its "end" line is reported as truncated, and
 * one that does not start with the magic line as not a call-tree file.
 */
#include "culprit/calltree.h"

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

void culprit_calltree_node_add(culprit_calltree_node *dst, const culprit_calltree_node *src)
{
    dst->calls += src->calls;
    dst->samples += src->samples;
    dst->inclusive_ns = add_time(dst->inclusive_ns, src->inclusive_ns);
    dst->inclusive_sq_ns2 = add_time(dst->inclusive_sq_ns2, src->inclusive_sq_ns2);
    dst->exclusive_ns = add_time(dst->exclusive_ns, src->exclusive_ns);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The name a function has until it is symbolized. */
static void address_name(culprit_buf *out, const culprit_calltree *tree, const char *object,
                         uint64_t address)
{
    culprit_buf_clear(out);
    if (object && !(tree->binary && strcmp(object, tree->binary) == 0))
        culprit_buf_printf(out, "%s+0x%" PRIx64, base_name(object), address);
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
        } else if (strcmp(key, "overhead-ns") == 0) {
            if (r->nfields != 2 || parse_time(r, &tree->overhead_ns, r->fields[1], "overhead") < 0)
                return fail(r, "expected 'overhead-ns NUMBER'");
            if (isnan(tree->overhead_ns))
                tree->overhead_ns = 0;
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

static int read_body(reader *r, culprit_calltree *tree, size_t nobjects)
{
    char **objects = NULL, **build_ids = NULL;
    size_t *fmap = NULL, *nmap = NULL, nfunctions = 0, nnodes = 0;
    culprit_buf name = CULPRIT_BUF_INIT;
    uint64_t n;
    int error = 0, more;

    if (nobjects > 1u << 20)
        return fail(r, "implausible object count %zu", nobjects);
    if (!(objects = calloc(nobjects + 1, sizeof(*objects))) ||
        !(build_ids = calloc(nobjects + 1, sizeof(*build_ids)))) {
        error = culprit_error_set(CULPRIT_ERROR, "out of memory reading '%s'", r->name);
        goto cleanup;
    }
    for (size_t i = 0; i < nobjects; i++) {
        uint64_t idx;
        if ((more = next_record(r)) <= 0) {
            error = more < 0 ? more : truncated(r, "objects", i, nobjects);
            goto cleanup;
        }
        if (r->nfields != 5 || strcmp(r->fields[0], "object") != 0) {
            error = fail(r, "expected 'object INDEX LOAD-ADDRESS BUILD-ID PATH' (%zu of %zu)",
                         i + 1, nobjects);
            goto cleanup;
        }
        if ((error = parse_u64(r, &idx, r->fields[1], "object index")) < 0)
            goto cleanup;
        if (idx != i) {
            error = fail(r, "object %" PRIu64 " out of order (expected %zu)", idx, i);
            goto cleanup;
        }
        char *path, *id;
        if ((error = decode(r, &path, r->fields[4])) < 0 ||
            (error = decode(r, &id, r->fields[3])) < 0)
            goto cleanup;
        if (id && (strspn(id, "0123456789abcdef") != strlen(id) || strlen(id) % 2)) {
            error = fail(r, "bad build-id '%s' (expected lower-case hex or '-')", id);
            goto cleanup;
        }
        if (id && !(build_ids[i] = culprit_strdup(id))) {
            error = CULPRIT_ERROR;
            goto cleanup;
        }
        if (!path) {
            error = fail(r, "object %zu has no path", i);
            goto cleanup;
        }
        if (!(objects[i] = culprit_strdup(path))) {
            error = CULPRIT_ERROR;
            goto cleanup;
        }
    }

    if ((more = next_record(r)) <= 0) {
        error = more < 0 ? more : fail(r, "truncated: no 'functions' line");
        goto cleanup;
    }
    if (r->nfields != 2 || strcmp(r->fields[0], "functions") != 0) {
        error = fail(r, "expected 'functions COUNT'");
        goto cleanup;
    }
    if ((error = parse_u64(r, &n, r->fields[1], "function count")) < 0)
        goto cleanup;
    nfunctions = (size_t)n;
    if (nfunctions > (size_t)(r->end - r->p)) { /* each takes more than a byte */
        error = truncated(r, "functions", 0, nfunctions);
        goto cleanup;
    }
    if (!(fmap = calloc(nfunctions + 1, sizeof(*fmap)))) {
        error = culprit_error_set(CULPRIT_ERROR, "out of memory reading '%s'", r->name);
        goto cleanup;
    }
    for (size_t i = 0; i < nfunctions; i++) {
        uint64_t idx, address, low, high;
        size_t obj;
        char *fname, *file;
        if ((more = next_record(r)) <= 0) {
            error = more < 0 ? more : truncated(r, "functions", i, nfunctions);
            goto cleanup;
        }
        if (r->nfields != 8 || strcmp(r->fields[0], "function") != 0) {
            error = fail(r,
                         "expected 'function INDEX OBJECT OFFSET NAME FILE LINE-LOW LINE-HIGH' "
                         "(%zu of %zu)",
                         i + 1, nfunctions);
            goto cleanup;
        }
        if ((error = parse_u64(r, &idx, r->fields[1], "function index")) < 0 ||
            (error = parse_index(r, &obj, r->fields[2], "object index")) < 0 ||
            (error = parse_u64(r, &address, r->fields[3], "address")) < 0 ||
            (error = decode(r, &fname, r->fields[4])) < 0 ||
            (error = decode(r, &file, r->fields[5])) < 0 ||
            (error = parse_u64(r, &low, r->fields[6], "line")) < 0 ||
            (error = parse_u64(r, &high, r->fields[7], "line")) < 0)
            goto cleanup;
        if (idx != i) {
            error = fail(r, "function %" PRIu64 " out of order (expected %zu)", idx, i);
            goto cleanup;
        }
        if (obj != CULPRIT_CALLTREE_NONE && obj >= nobjects) {
            error = fail(r, "function %zu names object %zu, but there are %zu", i, obj, nobjects);
            goto cleanup;
        }
        if (low > high || high > UINT32_MAX) {
            error = fail(r, "bad line range %" PRIu64 "-%" PRIu64, low, high);
            goto cleanup;
        }
        if (!fname) {
            address_name(&name, tree, obj == CULPRIT_CALLTREE_NONE ? NULL : objects[obj], address);
            fname = name.ptr;
        }
        if ((error = culprit_calltree_function_intern(&fmap[i], tree, fname, file,
                                                      (unsigned int)low, (unsigned int)high)) < 0)
            goto cleanup;
        culprit_calltree_function *fn = &tree->functions[fmap[i]];
        if (!fn->object && obj != CULPRIT_CALLTREE_NONE) {
            if (!(fn->object = culprit_strdup(objects[obj])) ||
                (build_ids[obj] && !(fn->build_id = culprit_strdup(build_ids[obj])))) {
                error = CULPRIT_ERROR;
                goto cleanup;
            }
            fn->address = address;
        }
    }

    if ((more = next_record(r)) <= 0) {
        error = more < 0 ? more : fail(r, "truncated: no 'nodes' line");
        goto cleanup;
    }
    if (r->nfields != 2 || strcmp(r->fields[0], "nodes") != 0) {
        error = fail(r, "expected 'nodes COUNT'");
        goto cleanup;
    }
    if ((error = parse_u64(r, &n, r->fields[1], "node count")) < 0)
        goto cleanup;
    nnodes = (size_t)n;
    if (nnodes == 0 || nnodes > (size_t)(r->end - r->p) + 1) {
        error = nnodes == 0 ? fail(r, "a tree has at least its root node")
                            : truncated(r, "nodes", 0, nnodes);
        goto cleanup;
    }
    if (!(nmap = calloc(nnodes, sizeof(*nmap)))) {
        error = culprit_error_set(CULPRIT_ERROR, "out of memory reading '%s'", r->name);
        goto cleanup;
    }
    for (size_t i = 0; i < nnodes; i++) {
        uint64_t idx, depth, calls;
        size_t parent, func;
        culprit_calltree_node stats;
        if ((more = next_record(r)) <= 0) {
            error = more < 0 ? more : truncated(r, "nodes", i, nnodes);
            goto cleanup;
        }
        if ((r->nfields != 9 && r->nfields != 10) || strcmp(r->fields[0], "node") != 0) {
            error = fail(r,
                         "expected 'node INDEX PARENT FUNCTION DEPTH CALLS INCLUSIVE SQUARES "
                         "EXCLUSIVE [SAMPLES]' (%zu of %zu)",
                         i + 1, nnodes);
            goto cleanup;
        }
        memset(&stats, 0, sizeof(stats));
        if ((error = parse_u64(r, &idx, r->fields[1], "node index")) < 0 ||
            (error = parse_index(r, &parent, r->fields[2], "parent")) < 0 ||
            (error = parse_index(r, &func, r->fields[3], "function index")) < 0 ||
            (error = parse_u64(r, &depth, r->fields[4], "depth")) < 0 ||
            (error = parse_u64(r, &calls, r->fields[5], "call count")) < 0 ||
            (error = parse_time(r, &stats.inclusive_ns, r->fields[6], "inclusive time")) < 0 ||
            (error = parse_time(r, &stats.inclusive_sq_ns2, r->fields[7], "sum of squares")) < 0 ||
            (error = parse_time(r, &stats.exclusive_ns, r->fields[8], "exclusive time")) < 0)
            goto cleanup;
        stats.calls = calls;
        stats.samples = isnan(stats.inclusive_ns) ? 0 : calls;
        if (r->nfields == 10 &&
            (error = parse_u64(r, &stats.samples, r->fields[9], "sample count")) < 0)
            goto cleanup;
        if (idx != i) {
            error = fail(r, "node %" PRIu64 " out of order (expected %zu)", idx, i);
            goto cleanup;
        }
        if (i == 0) {
            if (parent != CULPRIT_CALLTREE_NONE || func != CULPRIT_CALLTREE_NONE || depth != 0) {
                error = fail(r, "node 0 must be the root ('node 0 - - 0 ...')");
                goto cleanup;
            }
            tree->nodes[0].calls = calls;
            nmap[0] = 0;
            continue;
        }
        if (parent == CULPRIT_CALLTREE_NONE || parent >= i) {
            error = fail(r, "node %zu: its parent must be an earlier node", i);
            goto cleanup;
        }
        if (func == CULPRIT_CALLTREE_NONE || func >= nfunctions) {
            error = fail(r, "node %zu names function %s, but there are %zu", i, r->fields[3],
                         nfunctions);
            goto cleanup;
        }
        if (depth != tree->nodes[nmap[parent]].depth + 1) {
            error = fail(r, "node %zu: depth %" PRIu64 " is not its parent's plus one", i, depth);
            goto cleanup;
        }
        size_t before = tree->nnodes;
        if ((error = culprit_calltree_child(&nmap[i], tree, nmap[parent], fmap[func])) < 0)
            goto cleanup;
        if (tree->nnodes > before) { /* new: untimed stays NaN, not 0 */
            culprit_calltree_node *node = &tree->nodes[nmap[i]];
            node->calls = stats.calls;
            node->inclusive_ns = stats.inclusive_ns;
            node->inclusive_sq_ns2 = stats.inclusive_sq_ns2;
            node->exclusive_ns = stats.exclusive_ns;
            node->samples = stats.samples;
        } else { /* a path identical to an earlier one (two copies of a function) */
            culprit_calltree_node_add(&tree->nodes[nmap[i]], &stats);
        }
    }
    if ((more = next_record(r)) <= 0 || r->nfields != 1 || strcmp(r->fields[0], "end") != 0) {
        error = more < 0    ? more
                : more == 0 ? fail(r, "truncated: the file ends without its 'end' line")
                            : fail(r, "expected 'end' after %zu nodes", nnodes);
        goto cleanup;
    }
cleanup:
    for (size_t i = 0; objects && i < nobjects; i++)
        free(objects[i]);
    for (size_t i = 0; build_ids && i < nobjects; i++)
        free(build_ids[i]);
    free(objects);
    free(build_ids);
    free(fmap);
    free(nmap);
    culprit_buf_dispose(&name);
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

/* ---------------------------------------------------------------- writing --- */

static int put_string(culprit_buf *out, const char *s)
{
    int error = 0;
    if (!s || !*s)
        return culprit_buf_puts(out, "-");
    if (strcmp(s, "-") == 0)
        return culprit_buf_puts(out, "%2D");
    for (; *s && error == 0; s++) {
        unsigned char c = (unsigned char)*s;
        error = c <= 0x20 || c >= 0x7f || c == '%' ? culprit_buf_printf(out, "%%%02X", c)
                                                   : culprit_buf_put(out, s, 1);
    }
    return error;
}

static int put_time(culprit_buf *out, double x)
{
    return isnan(x) ? culprit_buf_puts(out, " -") : culprit_buf_printf(out, " %.17g", x);
}

static const char *mode_name(culprit_calltree_mode mode)
{
    return (size_t)mode < NMODES ? mode_names[mode] : "full";
}

/* 1 when functions a and b live in the same object (path and build-id). */
static int same_object(const culprit_calltree_function *a, const culprit_calltree_function *b)
{
    return strcmp(a->object, b->object) == 0 &&
           ((!a->build_id && !b->build_id) ||
            (a->build_id && b->build_id && strcmp(a->build_id, b->build_id) == 0));
}

/* The object index of function f: its position among the distinct objects in order
 * of first mention (`first[k]` is the first function of object k). */
static size_t object_of(const culprit_calltree *tree, const size_t *first, size_t nobjects,
                        size_t f)
{
    size_t k = 0;
    while (k < nobjects && !same_object(&tree->functions[first[k]], &tree->functions[f]))
        k++;
    return k;
}

int culprit_calltree_write_buf(culprit_buf *out, const culprit_calltree *tree)
{
    size_t *first = NULL;
    size_t nobjects = 0;
    int error = 0;

    /* The objects are those the functions name, in order of first mention; their
     * load addresses belong to the run and are not kept in the model ("-"). */
    if (tree->nfunctions && !(first = calloc(tree->nfunctions, sizeof(*first))))
        return culprit_error_set(CULPRIT_ERROR, "out of memory writing a call tree");
    for (size_t i = 0; i < tree->nfunctions; i++)
        if (tree->functions[i].object && object_of(tree, first, nobjects, i) == nobjects)
            first[nobjects++] = i;
    if ((error = culprit_buf_printf(out, "culprit-calltree %d\nbinary ", CULPRIT_CALLTREE_FORMAT)) <
            0 ||
        (error = put_string(out, tree->binary)) < 0 ||
        (error = culprit_buf_puts(out, "\ncommand ")) < 0 ||
        (error = put_string(out, tree->command)) < 0 ||
        (error = culprit_buf_printf(out, "\nmode %s\noverhead-ns %.17g\nobjects %zu\n",
                                    mode_name(tree->mode), tree->overhead_ns, nobjects)) < 0)
        goto cleanup;
    for (size_t i = 0; i < nobjects; i++) {
        const culprit_calltree_function *fn = &tree->functions[first[i]];
        if ((error = culprit_buf_printf(out, "object %zu - %s ", i,
                                        fn->build_id ? fn->build_id : "-")) < 0 ||
            (error = put_string(out, fn->object)) < 0 || (error = culprit_buf_puts(out, "\n")) < 0)
            goto cleanup;
    }
    if ((error = culprit_buf_printf(out, "functions %zu\n", tree->nfunctions)) < 0)
        goto cleanup;
    for (size_t i = 0; i < tree->nfunctions; i++) {
        const culprit_calltree_function *fn = &tree->functions[i];
        size_t k = fn->object ? object_of(tree, first, nobjects, i) : 0;
        if ((error = culprit_buf_printf(out, "function %zu ", i)) < 0 ||
            (error = fn->object ? culprit_buf_printf(out, "%zu", k) : culprit_buf_puts(out, "-")) <
                0 ||
            (error = culprit_buf_printf(out, " 0x%" PRIx64 " ", fn->address)) < 0 ||
            (error = put_string(out, fn->name)) < 0 || (error = culprit_buf_puts(out, " ")) < 0 ||
            (error = put_string(out, fn->file)) < 0 ||
            (error = culprit_buf_printf(out, " %u %u\n", fn->line_low, fn->line_high)) < 0)
            goto cleanup;
    }
    if ((error = culprit_buf_printf(out, "nodes %zu\nnode 0 - - 0 %" PRIu64 " - - -\n",
                                    tree->nnodes, tree->nodes[0].calls)) < 0)
        goto cleanup;
    for (size_t i = 1; i < tree->nnodes; i++) {
        const culprit_calltree_node *n = &tree->nodes[i];
        if ((error = culprit_buf_printf(out, "node %zu %zu %zu %zu %" PRIu64, i, n->parent,
                                        n->function, n->depth, n->calls)) < 0 ||
            (error = put_time(out, n->inclusive_ns)) < 0 ||
            (error = put_time(out, n->inclusive_sq_ns2)) < 0 ||
            (error = put_time(out, n->exclusive_ns)) < 0 ||
            /* SAMPLES only when it is not what a single run implies. */
            (n->samples != (isnan(n->inclusive_ns) ? 0 : n->calls) &&
             (error = culprit_buf_printf(out, " %" PRIu64, n->samples)) < 0) ||
            (error = culprit_buf_puts(out, "\n")) < 0)
            goto cleanup;
    }
    error = culprit_buf_puts(out, "end\n");
cleanup:
    free(first);
    return error;
}

int culprit_calltree_write_file(const culprit_calltree *tree, const char *path)
{
    culprit_buf data = CULPRIT_BUF_INIT;
    int error;

    if ((error = culprit_calltree_write_buf(&data, tree)) == 0)
        error = culprit_fs_write_atomic(path, data.ptr, data.size, 0);
    culprit_buf_dispose(&data);
    return error;
}
