/*
 * The calling-context tree model: functions interned by identity (name and source
 * file, never address, so trees of two builds compare), nodes appended in creation
 * order with their children listed, and the invariant checker the readers and the
 * analyses assert. Everything that reads, writes or analyses trees builds on this.
 */
#include "culprit/calltree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int culprit_calltree_new(culprit_calltree **out)
{
    culprit_calltree *tree;

    *out = NULL;
    if (!(tree = calloc(1, sizeof(*tree))) ||
        culprit_array_grow(&tree->nodes, &tree->anodes, 0, sizeof(*tree->nodes), 16) < 0) {
        free(tree);
        return culprit_error_set(CULPRIT_ERROR, "out of memory creating a call tree");
    }
    memset(&tree->nodes[0], 0, sizeof(tree->nodes[0]));
    tree->nodes[0].function = CULPRIT_CALLTREE_NONE;
    tree->nodes[0].parent = CULPRIT_CALLTREE_NONE;
    tree->nodes[0].inclusive_ns = tree->nodes[0].inclusive_sq_ns2 = tree->nodes[0].exclusive_ns =
        NAN;
    tree->nnodes = 1;
    *out = tree;
    return 0;
}

void culprit_calltree_free(culprit_calltree *tree)
{
    if (!tree)
        return;
    for (size_t i = 0; i < tree->nfunctions; i++) {
        free(tree->functions[i].name);
        free(tree->functions[i].file);
        free(tree->functions[i].object);
        free(tree->functions[i].build_id);
    }
    for (size_t i = 0; i < tree->nnodes; i++)
        free(tree->nodes[i].children);
    free(tree->functions);
    free(tree->fn_slots);
    free(tree->nodes);
    free(tree->binary);
    free(tree->command);
    free(tree);
}

static int same_file(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* FNV-1a over the identity: name, a separator no name holds, the file. */
static size_t identity_hash(const char *name, const char *file)
{
    uint64_t h = 14695981039346656037ull;

    for (const char *p = name; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    h = (h ^ 0xffu) * 1099511628211ull;
    for (const char *p = file ? file : ""; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    return (size_t)h;
}

/* The slot of the identity in the index: where it is, or the empty one to take. */
static size_t slot_of(const culprit_calltree *tree, const char *name, const char *file)
{
    size_t mask = tree->fn_nslots - 1, s = identity_hash(name, file) & mask;

    while (tree->fn_slots[s] != CULPRIT_CALLTREE_NONE) {
        const culprit_calltree_function *fn = &tree->functions[tree->fn_slots[s]];
        if (strcmp(fn->name, name) == 0 && same_file(fn->file, file))
            break;
        s = (s + 1) & mask;
    }
    return s;
}

/* Keeps the index at most half full (open addressing, linear probing). */
static int index_reserve(culprit_calltree *tree, size_t nfunctions)
{
    size_t n = tree->fn_nslots ? tree->fn_nslots : 64, *slots;

    if (tree->fn_slots && 2 * nfunctions <= tree->fn_nslots)
        return 0;
    while (2 * nfunctions > n)
        n *= 2;
    if (!(slots = malloc(n * sizeof(*slots))))
        return culprit_error_set(CULPRIT_ERROR, "out of memory indexing a call tree's functions");
    for (size_t i = 0; i < n; i++)
        slots[i] = CULPRIT_CALLTREE_NONE;
    free(tree->fn_slots);
    tree->fn_slots = slots;
    tree->fn_nslots = n;
    for (size_t i = 0; i < tree->nfunctions; i++)
        slots[slot_of(tree, tree->functions[i].name, tree->functions[i].file)] = i;
    return 0;
}

int culprit_calltree_function_intern(size_t *out, culprit_calltree *tree, const char *name,
                                     const char *file, unsigned int line_low,
                                     unsigned int line_high)
{
    culprit_calltree_function *fn;
    size_t slot;

    /* A hash index of the identities: a reader interns every function of a tree
     * once, and trees can hold tens of thousands. */
    if (index_reserve(tree, tree->nfunctions + 1) < 0)
        return CULPRIT_ERROR;
    slot = slot_of(tree, name, file);
    if (tree->fn_slots[slot] != CULPRIT_CALLTREE_NONE) {
        *out = tree->fn_slots[slot];
        return 0;
    }
    if (culprit_array_grow(&tree->functions, &tree->afunctions, tree->nfunctions,
                           sizeof(*tree->functions), 16) < 0)
        return CULPRIT_ERROR;
    fn = &tree->functions[tree->nfunctions];
    memset(fn, 0, sizeof(*fn));
    if (!(fn->name = strdup(name)) || (file && !(fn->file = strdup(file)))) {
        free(fn->name);
        return culprit_error_set(CULPRIT_ERROR, "out of memory adding function '%s'", name);
    }
    fn->line_low = line_low;
    fn->line_high = line_high;
    tree->fn_slots[slot] = tree->nfunctions;
    *out = tree->nfunctions++;
    return 0;
}

int culprit_calltree_child(size_t *out, culprit_calltree *tree, size_t parent, size_t function)
{
    culprit_calltree_node *p = &tree->nodes[parent], *node;
    size_t *children, idx;

    for (size_t i = 0; i < p->nchildren; i++) {
        if (tree->nodes[p->children[i]].function == function) {
            *out = p->children[i];
            return 0;
        }
    }
    if (culprit_array_grow(&tree->nodes, &tree->anodes, tree->nnodes, sizeof(*tree->nodes), 16) < 0)
        return CULPRIT_ERROR;
    p = &tree->nodes[parent]; /* the array may have moved */
    if (!(children = realloc(p->children, (p->nchildren + 1) * sizeof(*children))))
        return culprit_error_set(CULPRIT_ERROR, "out of memory growing a call tree");
    idx = tree->nnodes++;
    children[p->nchildren++] = idx;
    p->children = children;
    node = &tree->nodes[idx];
    memset(node, 0, sizeof(*node));
    node->function = function;
    node->parent = parent;
    node->depth = p->depth + 1;
    *out = idx;
    return 0;
}

int culprit_calltree_check(const culprit_calltree *tree)
{
    size_t counted = 0;

    if (!tree || tree->nnodes == 0 || tree->nodes[0].parent != CULPRIT_CALLTREE_NONE ||
        tree->nodes[0].depth != 0)
        return 0;
    for (size_t i = 0; i < tree->nnodes; i++) {
        const culprit_calltree_node *n = &tree->nodes[i];
        if (i > 0) {
            const culprit_calltree_node *p;
            int listed = 0;
            if (n->parent >= i || n->function >= tree->nfunctions)
                return 0;
            p = &tree->nodes[n->parent];
            if (n->depth != p->depth + 1)
                return 0;
            for (size_t c = 0; c < p->nchildren; c++)
                listed += p->children[c] == i;
            if (listed != 1)
                return 0;
        }
        for (size_t a = 0; a < n->nchildren; a++) {
            if (n->children[a] <= i || n->children[a] >= tree->nnodes)
                return 0;
            for (size_t b = a + 1; b < n->nchildren; b++)
                if (tree->nodes[n->children[a]].function == tree->nodes[n->children[b]].function)
                    return 0;
        }
        counted += n->nchildren;
    }
    return counted == tree->nnodes - 1;
}
