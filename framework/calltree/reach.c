/*
 * The reach rule of the call-tree diff (docs/calltree.md, "The search"): where the
 * paper's breadth-first search stops at the first slower node whose calls changed
 * shape, this one keeps descending on the new side, compares a node only in the
 * new tree against nothing, and splits each node's added time between its own
 * code and its callees, so that the function that adds the time ranks first
 * whatever happened to the call counts above it.
 *
 * Attribution. For a pair k, r_k = test calls / base calls, and
 *     D(k) = T_test(k) - r_k * T_base(k)
 * is what k's calls take beyond what the same calls took before (inclusive
 * times; an added node's D is its whole inclusive time, r of the unrooted root 1).
 * A node's own share is what its callees' D do not explain:
 *     own(k) = D(k) - sum over k's child pairs c of D(c)
 * which is its exclusive time against the base's scaled to its calls, plus the
 * base time of the extra calls of its callees (it calls them more often per call),
 * minus what its removed callees took. The owns of all pairs add up to the root's
 * D, the regression.
 */
#include "calltree_internal.h"

#include <math.h>
#include <string.h>

int culprit_calltree__find_root(size_t *out, const culprit_calltree *tree, const char *name,
                                const char *which)
{
    /* Nodes are in creation order, a parent before its children, but not
     * breadth-first: the shallowest node wins, the first of those. */
    size_t best = CULPRIT_CALLTREE_NONE;

    for (size_t i = 1; i < tree->nnodes; i++) {
        const culprit_calltree_node *n = &tree->nodes[i];
        if (n->function < tree->nfunctions &&
            strcmp(tree->functions[n->function].name, name) == 0 &&
            (best == CULPRIT_CALLTREE_NONE || n->depth < tree->nodes[best].depth))
            best = i;
    }
    if (best == CULPRIT_CALLTREE_NONE)
        return culprit_error_set(CULPRIT_ENOTFOUND, "no function '%s' in the %s call tree", name,
                                 which);
    *out = best;
    return 0;
}

/* The inclusive time of a node; the whole trees' root is the sum of its entries. */
static double inclusive(const culprit_calltree *tree, size_t node)
{
    const culprit_calltree_node *n = &tree->nodes[node];
    double sum = 0;

    if (node != 0)
        return n->inclusive_ns;
    for (size_t c = 0; c < n->nchildren; c++)
        sum += tree->nodes[n->children[c]].inclusive_ns;
    return sum;
}

/* r_k: the test's calls per call of the base; 1 where there are none (the root). */
static double ratio(const culprit_calltree_diff *d, size_t k)
{
    const culprit_calltree_pair *p = &d->pairs[k];
    uint64_t nb, nt;

    if (p->base == CULPRIT_CALLTREE_NONE)
        return NAN;
    nb = d->base->nodes[p->base].calls;
    nt = d->test->nodes[p->test].calls;
    return nb > 0 && nt > 0 ? (double)nt / (double)nb : 1;
}

/* T_test(k) - r * T_base(k): k's added time with its base calls scaled by r. */
static double delta(const culprit_calltree_diff *d, size_t k, double r)
{
    const culprit_calltree_pair *p = &d->pairs[k];
    double t = inclusive(d->test, p->test);

    return p->base == CULPRIT_CALLTREE_NONE ? t : t - r * inclusive(d->base, p->base);
}

void culprit_calltree__attribute(culprit_calltree_diff *d)
{
    double positive = 0;

    /* D(k) into own_ns first; then each pair takes its children's D off. */
    for (size_t k = 0; k < d->npairs; k++)
        d->pairs[k].own_ns = delta(d, k, ratio(d, k));
    d->regression_ns = d->pairs[0].own_ns;
    for (size_t k = 0; k < d->npairs; k++) {
        culprit_calltree_pair *p = &d->pairs[k];
        for (size_t c = p->first; c < p->first + p->nchildren; c++)
            if (isfinite(d->pairs[c].own_ns))
                p->own_ns -= d->pairs[c].own_ns;
    }
    for (size_t k = d->options.root ? 0 : 1; k < d->npairs; k++)
        if (d->pairs[k].own_ns > 0)
            positive += d->pairs[k].own_ns;
    if (!(d->regression_ns > 0) && positive > 0)
        d->regression_ns = positive;
    for (size_t k = 0; k < d->npairs; k++)
        d->pairs[k].share = d->regression_ns > 0 ? d->pairs[k].own_ns / d->regression_ns : NAN;
}

/*
 * The search: from the root, into every child that is slower per call, new, or
 * whose calls add at least min_share of the regression (with its caller's calls
 * scaled as before), whatever the caller's shape. A node reached that adds at least
 * min_share itself is a suspect; one that adds less is counted.
 */
int culprit_calltree__reach(culprit_calltree_diff *d, size_t *asuspects)
{
    double floor = d->options.min_share * d->regression_ns;
    /* The root did not get slower: nothing to explain (the paper starts only from
     * slower entry points too). */
    int regressed = delta(d, 0, ratio(d, 0)) > 0;
    int error;

    d->pairs[0].reached = 1;
    for (size_t k = 1; k < d->npairs; k++) {
        culprit_calltree_pair *p = &d->pairs[k];
        size_t up = p->parent;
        double sub = delta(d, k, up == 0 && !d->options.root ? 1 : ratio(d, up));
        p->reached = d->pairs[up].reached && (p->verdict == CULPRIT_CALLTREE_SLOWER ||
                                              p->verdict == CULPRIT_CALLTREE_ADDED || sub >= floor);
    }
    for (size_t k = d->options.root ? 0 : 1; regressed && k < d->npairs; k++) {
        const culprit_calltree_pair *p = &d->pairs[k];
        if (!p->reached || !(p->own_ns > 0))
            continue;
        if (p->own_ns < floor) {
            d->nsmaller++;
            d->smaller_ns += p->own_ns;
            continue;
        }
        if ((error = culprit_calltree__add_suspect(
                 d, asuspects, k,
                 p->base == CULPRIT_CALLTREE_NONE ? CULPRIT_CALLTREE_NEW : CULPRIT_CALLTREE_OWN)) <
            0)
            return error;
    }
    return 0;
}
