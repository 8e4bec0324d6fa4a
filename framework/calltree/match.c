/*
 * Function identity across two trees (calltree_internal.h): a hash table over one tree's
 * function names, probed with the other's, so that diff and overweight analysis
 * match thousands of functions in linear time rather than comparing every pair.
 */
#include "calltree_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* FNV-1a: short identifiers, no adversary; a good spread is all that is needed. */
static uint64_t hash_name(const char *s)
{
    return culprit_str_hash(CULPRIT_STR_HASH_INIT, s, strlen(s));
}

static int same_file(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* How many trailing path components `a` and `b` share ("/x/src/f.c" and
 * "/y/src/f.c": 2); 0 when even the file names differ. */
static size_t common_components(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), n = 0;

    while (la > 0 && lb > 0 && a[la - 1] == b[lb - 1]) {
        la--, lb--;
        if (a[la] == '/')
            n++;
    }
    /* A whole component matched when both reached a '/' or their start. */
    if ((la == 0 || a[la - 1] == '/') && (lb == 0 || b[lb - 1] == '/'))
        n++;
    return n;
}

int culprit_calltree__function_map(size_t **out, const culprit_calltree *from,
                                   const culprit_calltree *to, int loose)
{
    size_t nslots = 16, *slots = NULL, *map = NULL;
    int error = 0;

    *out = NULL;
    while (nslots < 2 * to->nfunctions + 2)
        nslots *= 2;
    slots = malloc(nslots * sizeof(*slots));
    map = malloc((from->nfunctions ? from->nfunctions : 1) * sizeof(*map));
    if (!slots || !map) {
        error = culprit_error_set(CULPRIT_ERROR, "out of memory matching functions");
        goto cleanup;
    }
    for (size_t i = 0; i < nslots; i++)
        slots[i] = CULPRIT_CALLTREE_NONE;
    for (size_t j = 0; j < to->nfunctions; j++) {
        size_t s = (size_t)hash_name(to->functions[j].name) & (nslots - 1);
        while (slots[s] != CULPRIT_CALLTREE_NONE)
            s = (s + 1) & (nslots - 1);
        slots[s] = j;
    }
    for (size_t i = 0; i < from->nfunctions; i++) {
        const culprit_calltree_function *f = &from->functions[i];
        size_t s = (size_t)hash_name(f->name) & (nslots - 1), found = CULPRIT_CALLTREE_NONE;
        size_t best = 0;
        for (; slots[s] != CULPRIT_CALLTREE_NONE; s = (s + 1) & (nslots - 1)) {
            const culprit_calltree_function *g = &to->functions[slots[s]];
            size_t shared;
            if (strcmp(f->name, g->name) != 0)
                continue;
            if (same_file(f->file, g->file)) {
                found = slots[s];
                break;
            }
            /* Two builds in two directories (a bisection's checkouts) record the
             * same source under different absolute paths: the same file name, and
             * as much of the path as they share, identify it. */
            if (f->file && g->file && (shared = common_components(f->file, g->file)) > best) {
                best = shared;
                found = slots[s];
            }
            if (loose && (!f->file || !g->file) && found == CULPRIT_CALLTREE_NONE)
                found = slots[s];
        }
        map[i] = found;
    }
    *out = map;
    map = NULL;
cleanup:
    free(slots);
    free(map);
    return error;
}

size_t culprit_calltree__exclusive(double *out, const culprit_calltree *tree)
{
    size_t finite = 0;

    for (size_t i = 0; i < tree->nnodes; i++) {
        const culprit_calltree_node *n = &tree->nodes[i];
        double x = n->exclusive_ns;
        if (!isfinite(x) && isfinite(n->inclusive_ns)) {
            /* Level mode may leave the exclusive time to the reader: the node's
             * inclusive time less its callees', each timed in its own runs. */
            x = n->inclusive_ns;
            for (size_t c = 0; c < n->nchildren && isfinite(x); c++)
                x -= tree->nodes[n->children[c]].inclusive_ns;
            if (isfinite(x) && x < 0)
                x = 0;
        }
        out[i] = x;
        finite += i > 0 && isfinite(x);
    }
    return finite;
}
