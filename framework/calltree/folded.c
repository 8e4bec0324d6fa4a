/*
 * Folded stacks, the collapsed text format of flamegraph.pl's stackcollapse
 * scripts ("main;f;k 10": frames root first, then a weight), read into the
 * call-tree model and written from it. Reading them lets the analyses compare
 * profiles from perf or any other profiler; writing them feeds our trees to
 * flame-graph tools. A weight is the cost of the stack's last frame itself, so it
 * lands in the node's exclusive cost, and inclusive costs are the sums below.
 */
#include "calltree_internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Frame names are looked up once per frame of every line: a perf profile has
 * hundreds of thousands of lines, so a name -> function table avoids a scan of
 * the tree's functions per frame. */
typedef struct {
    char **names; /* borrowed from the tree */
    size_t *index;
    size_t nslots, used;
} name_table;

static int table_grow(name_table *t, const culprit_calltree *tree)
{
    size_t n = t->nslots ? t->nslots * 2 : 256;
    char **names = calloc(n, sizeof(*names));
    size_t *index = malloc(n * sizeof(*index));

    if (!names || !index) {
        free(names);
        free(index);
        return culprit_error_set(CULPRIT_ERROR, "out of memory reading folded stacks");
    }
    for (size_t f = 0; f < tree->nfunctions; f++) {
        const char *nm = tree->functions[f].name;
        size_t s = (size_t)culprit_str_hash(CULPRIT_STR_HASH_INIT, nm, strlen(nm)) & (n - 1);
        while (names[s])
            s = (s + 1) & (n - 1);
        names[s] = tree->functions[f].name;
        index[s] = f;
    }
    free(t->names);
    free(t->index);
    t->names = names;
    t->index = index;
    t->nslots = n;
    return 0;
}

/* The function named by the `len` bytes at `name`, interned when new. */
static int frame_function(size_t *out, name_table *t, culprit_calltree *tree, const char *name,
                          size_t len)
{
    size_t s;
    char *copy;
    int error;

    if (2 * (tree->nfunctions + 1) > t->nslots && (error = table_grow(t, tree)) < 0)
        return error;
    for (s = (size_t)culprit_str_hash(CULPRIT_STR_HASH_INIT, name, len) & (t->nslots - 1);
         t->names[s]; s = (s + 1) & (t->nslots - 1)) {
        if (strncmp(t->names[s], name, len) == 0 && t->names[s][len] == '\0') {
            *out = t->index[s];
            return 0;
        }
    }
    if (!(copy = strndup(name, len)))
        return culprit_error_set(CULPRIT_ERROR, "out of memory reading folded stacks");
    error = culprit_calltree_function_intern(out, tree, copy, NULL, 0, 0);
    free(copy);
    if (error < 0)
        return error;
    t->names[s] = tree->functions[*out].name;
    t->index[s] = *out;
    return 0;
}

/* 1 when the `n` bytes at `p` are blanks (the input need not end in a NUL). */
static int all_blank(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != ' ' && p[i] != '\t')
            return 0;
    return 1;
}

/* Splits "stack weight" at the last run of blanks; 0 or a message. */
static const char *split_line(const char *line, size_t len, size_t *stack_len, double *weight)
{
    size_t end = len, start;
    char buf[64], *stop;

    while (end > 0 && (line[end - 1] == ' ' || line[end - 1] == '\t'))
        end--;
    start = end;
    while (start > 0 && line[start - 1] != ' ' && line[start - 1] != '\t')
        start--;
    if (start == 0)
        return "no weight after the stack (expected 'frame;frame;... WEIGHT')";
    if (end - start >= sizeof(buf))
        return "the weight is not a number";
    memcpy(buf, line + start, end - start);
    buf[end - start] = '\0';
    errno = 0;
    if (!isdigit((unsigned char)buf[0]))
        return buf[0] == '-' ? "the weight is negative" : "the weight is not a number";
    *weight = strtod(buf, &stop);
    if (*stop != '\0' || errno == ERANGE || !isfinite(*weight))
        return "the weight is not a number";
    *stack_len = start;
    while (*stack_len > 0 && (line[*stack_len - 1] == ' ' || line[*stack_len - 1] == '\t'))
        (*stack_len)--;
    if (*stack_len == 0)
        return "the stack is empty";
    return NULL;
}

static int add_line(culprit_calltree *tree, name_table *names, const char *stack, size_t len,
                    double weight, const char **why)
{
    size_t node = 0, fn, child;
    const char *p = stack, *end = stack + len;
    int error;

    while (p <= end) {
        const char *semi = memchr(p, ';', (size_t)(end - p));
        const char *stop = semi ? semi : end;
        if (stop == p) {
            *why = "an empty frame (two ';' in a row, or one at an end)";
            return CULPRIT_EINVALID;
        }
        if ((error = frame_function(&fn, names, tree, p, (size_t)(stop - p))) < 0 ||
            (error = culprit_calltree_child(&child, tree, node, fn)) < 0)
            return error;
        node = child;
        p = stop + 1;
        if (!semi)
            break;
    }
    tree->nodes[node].exclusive_ns += weight;
    return 0;
}

int culprit_calltree_parse_folded(culprit_calltree **out, const char *text, size_t len,
                                  const char *name)
{
    culprit_calltree *tree = NULL;
    name_table names = {NULL, NULL, 0, 0};
    const char *p = text, *end = text + len;
    size_t lineno = 0;
    int error;

    *out = NULL;
    if ((error = culprit_calltree_new(&tree)) < 0)
        return error;
    tree->mode = CULPRIT_CALLTREE_WEIGHTS;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)), *why = NULL;
        size_t n = (size_t)((nl ? nl : end) - p), stack_len;
        double weight;
        lineno++;
        if (n > 0 && p[n - 1] == '\r')
            n--;
        if (memchr(p, '\0', n)) {
            error = culprit_error_set(CULPRIT_EINVALID, "%s:%zu: a NUL byte: not a text file", name,
                                      lineno);
            goto cleanup;
        }
        if (!all_blank(p, n)) {
            if (!(why = split_line(p, n, &stack_len, &weight)) &&
                (error = add_line(tree, &names, p, stack_len, weight, &why)) < 0 && !why)
                goto cleanup;
            if (why) {
                error =
                    culprit_error_set(CULPRIT_EINVALID, "%s:%zu: not a folded stack: %s: '%.*s'",
                                      name, lineno, why, (int)(n > 80 ? 80 : n), p);
                goto cleanup;
            }
        }
        p = nl ? nl + 1 : end;
    }
    /* An empty profile is a mistake (a profiler that recorded nothing, a wrong file),
     * not a program that ran in no time: compared, it read as -100%. */
    if (tree->nnodes <= 1) {
        error = culprit_error_set(CULPRIT_EINVALID, "%s: no stack in it (an empty profile)", name);
        goto cleanup;
    }
    /* Inclusive costs: children have higher indices than their parents. */
    for (size_t i = tree->nnodes; i-- > 1;)
        tree->nodes[i].inclusive_ns += tree->nodes[i].exclusive_ns;
    for (size_t i = tree->nnodes; i-- > 1;) {
        tree->nodes[i].inclusive_sq_ns2 = NAN;
        if (tree->nodes[i].parent > 0)
            tree->nodes[tree->nodes[i].parent].inclusive_ns += tree->nodes[i].inclusive_ns;
    }
    *out = tree;
    tree = NULL;
cleanup:
    free(names.names);
    free(names.index);
    culprit_calltree_free(tree);
    return error;
}

int culprit_calltree_read_folded(culprit_calltree **out, const char *path)
{
    culprit_buf text = CULPRIT_BUF_INIT;
    int error;

    *out = NULL;
    if ((error = culprit_fs_read_file(&text, path)) < 0)
        return error;
    error = culprit_calltree_parse_folded(out, text.ptr ? text.ptr : "", text.size, path);
    culprit_buf_dispose(&text);
    return error;
}

#define CALLTREE_MAGIC "culprit-calltree "

int culprit_calltree_is_folded(const char *text, size_t len)
{
    const char *p = text, *end = text + len;

    if (len >= strlen(CALLTREE_MAGIC) && memcmp(text, CALLTREE_MAGIC, strlen(CALLTREE_MAGIC)) == 0)
        return 0;

    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((nl ? nl : end) - p), stack_len;
        double weight;
        if (n > 0 && p[n - 1] == '\r')
            n--;
        if (!all_blank(p, n))
            return !memchr(p, '\0', n) && !split_line(p, n, &stack_len, &weight);
        p = nl ? nl + 1 : end;
    }
    return 0;
}

int culprit_calltree_load(culprit_calltree **out, const char *path)
{
    culprit_buf text = CULPRIT_BUF_INIT;
    const char *data;
    int error;

    *out = NULL;
    if ((error = culprit_fs_read_file(&text, path)) < 0)
        return error;
    data = text.ptr ? text.ptr : "";
    if (text.size >= strlen(CALLTREE_MAGIC) &&
        memcmp(data, CALLTREE_MAGIC, strlen(CALLTREE_MAGIC)) == 0)
        error = culprit_calltree_read_buffer(out, data, text.size, path);
    else if ((error = culprit_calltree_parse_folded(out, data, text.size, path)) < 0 &&
             !culprit_calltree_is_folded(data, text.size)) {
        /* Not even the first line is a folded stack: say what was expected. */
        culprit_error_prefix("%s: neither a call-tree file (first line 'culprit-calltree "
                             "N') nor folded stacks ('main;f;k 10' per line): ",
                             path);
        error = culprit_error_recode(CULPRIT_EINVALID);
    }
    culprit_buf_dispose(&text);
    return error;
}

/* The weight a node contributes: its own cost, or its calls in a structure tree. */
static double own_weight(const culprit_calltree *tree, const culprit_calltree_node *n)
{
    if (tree->mode == CULPRIT_CALLTREE_STRUCTURE || !isfinite(n->exclusive_ns))
        return (double)n->calls;
    return n->exclusive_ns;
}

/* Integers stay integers (samples, ns); other values in the fewest digits that
 * read back to the same number, so reading the output gives the same weights. */
static int put_weight(culprit_buf *out, double w)
{
    char text[64];

    if (w == floor(w) && w < 1e15)
        return culprit_buf_printf(out, " %.0f\n", w);
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(text, sizeof(text), "%.*g", digits, w);
        if (strtod(text, NULL) == w)
            break;
    }
    return culprit_buf_printf(out, " %s\n", text);
}

/* The length of the character at `p` that a folded frame keeps as it is, else 0:
 * not ';', not a control character (C0, DEL, C1) and valid UTF-8. */
static size_t frame_char(const char *p)
{
    unsigned char c = (unsigned char)*p;
    size_t len;

    if (c < 0x80)
        return c >= 0x20 && c != 0x7f && c != ';';
    len = culprit_utf8_char_len(p);
    return len == 2 && c == 0xc2 && (unsigned char)p[1] < 0xa0 ? 0 : len;
}

/* A frame as folded text: a name is data (from a binary, a file, another machine),
 * so the two characters that structure a line cannot come from it. A ';' would
 * split the frame and a line break would start a fake stack line: ';' becomes ','
 * and control characters and bytes that are not UTF-8 (which flame-graph tools
 * refuse or mangle) '?', one a byte (those tools have no escapes to read back). */
static int put_frame(culprit_buf *out, const char *name)
{
    const char *p = name;

    while (*p) {
        size_t safe = 0, len;
        while ((len = frame_char(p + safe)) > 0)
            safe += len;
        if (culprit_buf_put(out, p, safe) < 0)
            return CULPRIT_ERROR;
        p += safe;
        if (*p && culprit_buf_puts(out, *p == ';' ? "," : "?") < 0)
            return CULPRIT_ERROR;
        p += *p != 0;
    }
    return 0;
}

/* The frames from main down to `node`, ';'-separated. Walked up into `path` (the
 * caller's scratch array) rather than by recursion: a chain 500,000 calls deep
 * overflowed the stack. */
static int put_path(culprit_buf *out, const culprit_calltree *tree, size_t node, size_t **path,
                    size_t *apath)
{
    size_t n = 0;

    for (size_t i = node; i > 0; i = tree->nodes[i].parent) {
        if (culprit_array_grow(path, apath, n, sizeof(**path), 64) < 0)
            return CULPRIT_ERROR;
        (*path)[n++] = i;
    }
    while (n-- > 0) {
        if (put_frame(out, tree->functions[tree->nodes[(*path)[n]].function].name) < 0 ||
            (n > 0 && culprit_buf_puts(out, ";") < 0))
            return CULPRIT_ERROR;
    }
    return 0;
}

int culprit_calltree_write_folded(culprit_buf *out, const culprit_calltree *tree)
{
    size_t *stack = NULL, top = 0, *path = NULL, apath = 0;
    int error = 0;

    if (tree->nnodes <= 1)
        return 0;
    if (!(stack = malloc(tree->nnodes * sizeof(*stack))))
        return culprit_error_set(CULPRIT_ERROR, "out of memory writing folded stacks");
    /* Depth-first, children in their order, as the tree was recorded. */
    for (size_t c = tree->nodes[0].nchildren; c-- > 0;)
        stack[top++] = tree->nodes[0].children[c];
    while (top > 0) {
        size_t i = stack[--top];
        const culprit_calltree_node *n = &tree->nodes[i];
        double w = own_weight(tree, n);
        if (w < 0) /* calibrated overhead subtracted past zero: folded weights are >= 0 */
            w = 0;
        if (w != 0 || n->nchildren == 0) {
            if ((error = put_path(out, tree, i, &path, &apath)) < 0)
                goto cleanup;
            if ((error = put_weight(out, w)) < 0)
                goto cleanup;
        }
        for (size_t c = n->nchildren; c-- > 0;)
            stack[top++] = n->children[c];
    }
cleanup:
    free(stack);
    free(path);
    return error;
}
