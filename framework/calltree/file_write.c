/*
 * The call-tree file (docs/calltree-format.md) written from the model, the other
 * half of file.c. Names and paths are %-escaped so a field never holds a space;
 * numbers are written with 17 significant digits, so a tree read back holds the
 * same doubles. A tree is written whole into a buffer, then to disk atomically.
 */
#include "culprit/calltree.h"
#include "calltree_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
        (error = culprit_buf_printf(out, "\nmode %s\noverhead-ns %.17g\n",
                                    culprit_calltree__mode_name(tree->mode), tree->overhead_ns)) <
            0 ||
        (error = tree->wall_ns > 0 ? culprit_buf_printf(out, "wall-ns %.17g\nrun-delay-ns %.17g\n",
                                                        tree->wall_ns, tree->run_delay_ns)
                                   : 0) < 0 ||
        (error = tree->instructions ? culprit_buf_puts(out, "cost instructions\n") : 0) < 0 ||
        (error = culprit_buf_printf(out, "objects %zu\n", nobjects)) < 0)
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
