/*
 * The calling-context tree model: functions interned by identity (name and source
 * file, never address, so trees of two builds compare), nodes appended in creation
 * order with their children listed, and the invariant checker the readers and the
 * analyses assert. Everything that reads, writes or analyses trees builds on this.
 */
#include "calltree_internal.h"

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
    free(tree->child_slots);
    free(tree->nodes);
    free(tree->binary);
    free(tree->command);
    free(tree->unsampled);
    free(tree);
}

const char *culprit_calltree_unsampled(const culprit_calltree *a, const culprit_calltree *b)
{
    if (a && !a->sampled && a->unsampled)
        return a->unsampled;
    if (b && !b->sampled && b->unsampled)
        return b->unsampled;
    return "perf gave no profile";
}

static int same_file(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* FNV-1a over the identity: name, a separator no name holds, the file. */
static size_t identity_hash(const char *name, const char *file)
{
    uint64_t h = culprit_str_hash(CULPRIT_STR_HASH_INIT, name, strlen(name));

    h = culprit_str_hash(h, "\xff", 1);
    return (size_t)culprit_str_hash(h, file ? file : "", file ? strlen(file) : 0);
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

/* The slot of function i of the tree in its index (to rebuild it). */
static size_t function_slot(const culprit_calltree *tree, size_t i)
{
    return slot_of(tree, tree->functions[i].name, tree->functions[i].file);
}

/*
 * Keeps one of the tree's hash indexes (*slots, *nslots: open addressing, linear
 * probing) at most half full for `need` items: when it is not, a larger one is
 * made and items first..end-1 re-inserted at slot(tree, i).
 */
static int index_reserve(culprit_calltree *tree, size_t **slots, size_t *nslots, size_t need,
                         size_t first, size_t end,
                         size_t (*slot)(const culprit_calltree *tree, size_t i))
{
    size_t n = *nslots ? *nslots : 64, *fresh;

    if (*slots && 2 * need <= *nslots)
        return 0;
    while (2 * need > n)
        n *= 2;
    if (!(fresh = malloc(n * sizeof(*fresh))))
        return culprit_error_set(CULPRIT_ERROR, "out of memory indexing a call tree");
    for (size_t i = 0; i < n; i++)
        fresh[i] = CULPRIT_CALLTREE_NONE;
    free(*slots);
    *slots = fresh;
    *nslots = n;
    for (size_t i = first; i < end; i++)
        fresh[slot(tree, i)] = i;
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
    if (index_reserve(tree, &tree->fn_slots, &tree->fn_nslots, tree->nfunctions + 1, 0,
                      tree->nfunctions, function_slot) < 0)
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

/* The slot of node (parent, function) in the index of children: where it is, or the
 * empty one to take. */
static size_t child_slot(const culprit_calltree *tree, size_t parent, size_t function)
{
    size_t mask = tree->child_nslots - 1;
    size_t s = (size_t)(((uint64_t)parent * 0x9e3779b97f4a7c15ull) ^ function) * 2654435761u & mask;

    while (tree->child_slots[s] != CULPRIT_CALLTREE_NONE) {
        const culprit_calltree_node *n = &tree->nodes[tree->child_slots[s]];
        if (n->parent == parent && n->function == function)
            break;
        s = (s + 1) & mask;
    }
    return s;
}

/* The slot of node i in the index of children (to rebuild it). */
static size_t node_slot(const culprit_calltree *tree, size_t i)
{
    return child_slot(tree, tree->nodes[i].parent, tree->nodes[i].function);
}

size_t culprit_calltree__find_child(const culprit_calltree *tree, size_t parent, size_t function)
{
    const culprit_calltree_node *p = &tree->nodes[parent];
    size_t slot;

    if (tree->child_slots && tree->nnodes * 2 <= tree->child_nslots) {
        slot = child_slot(tree, parent, function);
        return tree->child_slots[slot];
    }
    for (size_t i = 0; i < p->nchildren; i++)
        if (tree->nodes[p->children[i]].function == function)
            return p->children[i];
    return CULPRIT_CALLTREE_NONE;
}

int culprit_calltree_child(size_t *out, culprit_calltree *tree, size_t parent, size_t function)
{
    culprit_calltree_node *p, *node;
    size_t idx, slot;

    /* A hash index, not a scan of the parent's children: a folded profile or a
     * recorded tree can give one node hundreds of thousands of children, and a scan
     * per added child made building such a tree quadratic (200,000 children of one
     * node took 30 s to fold). */
    if (index_reserve(tree, &tree->child_slots, &tree->child_nslots, tree->nnodes + 1, 1,
                      tree->nnodes, node_slot) < 0)
        return CULPRIT_ERROR;
    slot = child_slot(tree, parent, function);
    if (tree->child_slots[slot] != CULPRIT_CALLTREE_NONE) {
        *out = tree->child_slots[slot];
        return 0;
    }
    if (culprit_array_grow(&tree->nodes, &tree->anodes, tree->nnodes, sizeof(*tree->nodes), 16) < 0)
        return CULPRIT_ERROR;
    p = &tree->nodes[parent]; /* the array may have moved */
    if (culprit_array_grow(&p->children, &p->achildren, p->nchildren, sizeof(*p->children), 4) < 0)
        return CULPRIT_ERROR;
    idx = tree->nnodes++;
    p->children[p->nchildren++] = idx;
    node = &tree->nodes[idx];
    memset(node, 0, sizeof(*node));
    node->function = function;
    node->parent = parent;
    node->depth = p->depth + 1;
    tree->child_slots[slot] = idx;
    *out = idx;
    return 0;
}

int culprit_calltree_check(const culprit_calltree *tree)
{
    size_t counted = 0;

    if (!tree || tree->nnodes == 0 || tree->nodes[0].parent != CULPRIT_CALLTREE_NONE ||
        tree->nodes[0].depth != 0)
        return 0;
    /* Linear, for trees with hundreds of thousands of children on one node: a child
     * names its parent, children are listed in creation order (strictly increasing,
     * so none twice) and, with every node but the root counted once, each node is
     * listed exactly once; siblings call distinct functions when looking a child
     * up by its function finds that child. */
    for (size_t i = 0; i < tree->nnodes; i++) {
        const culprit_calltree_node *n = &tree->nodes[i];
        if (i > 0 && (n->parent >= i || n->function >= tree->nfunctions ||
                      n->depth != tree->nodes[n->parent].depth + 1))
            return 0;
        for (size_t a = 0; a < n->nchildren; a++) {
            size_t c = n->children[a];
            if (c <= i || c >= tree->nnodes || tree->nodes[c].parent != i ||
                (a > 0 && c <= n->children[a - 1]) || tree->nodes[c].function >= tree->nfunctions ||
                culprit_calltree__find_child(tree, i, tree->nodes[c].function) != c)
                return 0;
        }
        counted += n->nchildren;
    }
    return counted == tree->nnodes - 1;
}
