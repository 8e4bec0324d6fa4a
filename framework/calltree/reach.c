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
 * times, as sums of the subtree's exclusive times: see consistent_inclusive(); an
 * added node's D is its whole inclusive time, r of the unrooted root 1).
 * A node's own share is what its callees' D do not explain:
 *     own(k) = D(k) - sum over k's child pairs c of D(c)
 * which is its exclusive time against the base's scaled to its calls, plus the
 * base time of the extra calls of its callees (it calls them more often per call),
 * minus what its removed callees took. The owns of all pairs add up to the root's
 * D, the regression.
 */
#include "calltree_internal.h"

#include <math.h>
#include <stdlib.h>
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

/*
 * Each node's inclusive time as the sum of the exclusive times of its subtree, so
 * that the tree is consistent whatever the recording: in level mode each depth is
 * timed in a run of its own, and on a loaded machine a child can come out heavier
 * than its parent (a 46 ms callee under a 3.6 ms caller was seen); the sum keeps
 * such an error at the node measured wrong instead of handing it to its callers.
 * The whole trees' root is the sum of its entries. `out` has tree->nnodes entries.
 */
static int consistent_inclusive(double **out, const culprit_calltree *tree)
{
    double *t = malloc((tree->nnodes ? tree->nnodes : 1) * sizeof(*t));

    if (!(*out = t))
        return culprit_error_set(CULPRIT_ERROR, "out of memory diffing call trees");
    culprit_calltree__exclusive(t, tree);
    t[0] = 0;
    for (size_t i = 1; i < tree->nnodes; i++)
        if (!isfinite(t[i]))
            t[i] = 0;
    /* Children have higher indices than their parent: one pass from the end. */
    for (size_t i = tree->nnodes; i-- > 1;)
        t[tree->nodes[i].parent] += t[i];
    return 0;
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
static double delta(const culprit_calltree_diff *d, const double *tb, const double *tt, size_t k,
                    double r)
{
    const culprit_calltree_pair *p = &d->pairs[k];

    return p->base == CULPRIT_CALLTREE_NONE ? tt[p->test] : tt[p->test] - r * tb[p->base];
}

int culprit_calltree__attribute(culprit_calltree_diff *d)
{
    double positive = 0, *tb = NULL, *tt = NULL;
    int error;

    if ((error = consistent_inclusive(&tb, d->base)) < 0 ||
        (error = consistent_inclusive(&tt, d->test)) < 0) {
        free(tb);
        return error;
    }
    /* D(k) into own_ns first, and what k's calls add with its caller's scaling into
     * subtree_ns; then each pair takes its children's D off. */
    for (size_t k = 0; k < d->npairs; k++) {
        size_t up = d->pairs[k].parent;
        d->pairs[k].own_ns = delta(d, tb, tt, k, ratio(d, k));
        d->pairs[k].subtree_ns =
            k == 0 ? d->pairs[k].own_ns
                   : delta(d, tb, tt, k, up == 0 && !d->options.root ? 1 : ratio(d, up));
    }
    d->regression_ns = d->pairs[0].own_ns;
    for (size_t k = 0; k < d->npairs; k++) {
        culprit_calltree_pair *p = &d->pairs[k];
        for (size_t c = p->first; c < p->first + p->nchildren; c++)
            p->own_ns -= d->pairs[c].own_ns;
    }
    for (size_t k = d->options.root ? 0 : 1; k < d->npairs; k++)
        if (d->pairs[k].own_ns > 0)
            positive += d->pairs[k].own_ns;
    if (!(d->regression_ns > 0) && positive > 0)
        d->regression_ns = positive;
    for (size_t k = 0; k < d->npairs; k++)
        d->pairs[k].share = culprit_calltree__share(d, d->pairs[k].own_ns);
    free(tb);
    free(tt);
    return 0;
}

double culprit_calltree__share(const culprit_calltree_diff *d, double ns)
{
    double share = ns / d->regression_ns;

    if (!(d->regression_ns > 0) || !isfinite(share))
        return NAN;
    return share > 1 ? 1 : share < -1 ? -1 : share;
}

int culprit_calltree__not_slower(const culprit_calltree_pair *p)
{
    return p->base != CULPRIT_CALLTREE_NONE && !p->shape_changed &&
           (p->verdict == CULPRIT_CALLTREE_UNCHANGED || p->verdict == CULPRIT_CALLTREE_FASTER);
}

int culprit_calltree__cleared(const culprit_calltree_pair *p)
{
    /* Or an interval that holds 0: the test cannot tell it from no change (main at
     * -6,562% to +78,994% was listed). */
    return culprit_calltree__not_slower(p) ||
           (p->base != CULPRIT_CALLTREE_NONE && !p->shape_changed && p->tested &&
            !(p->change_low > 0));
}

int culprit_calltree__add_suspect(culprit_calltree_diff *d, size_t *asuspects, size_t k,
                                  culprit_calltree_suspect_kind kind)
{
    culprit_calltree_suspect *s;
    /* A rooted diff's paths start at the root (a perf test's body); the whole
     * trees' root is no function. */
    size_t top = d->options.root ? 1 : 0, depth = top;

    if (culprit_array_grow(&d->suspects, asuspects, d->nsuspects, sizeof(*d->suspects), 8) < 0)
        return culprit_error_set(CULPRIT_ERROR, "out of memory diffing call trees");
    for (size_t i = k; i != 0; i = d->pairs[i].parent)
        depth++;
    s = &d->suspects[d->nsuspects];
    memset(s, 0, sizeof(*s));
    if (!(s->path = malloc((depth ? depth : 1) * sizeof(*s->path))))
        return culprit_error_set(CULPRIT_ERROR, "out of memory diffing call trees");
    s->kind = kind;
    s->npath = depth;
    for (size_t i = k; i != 0; i = d->pairs[i].parent)
        s->path[--depth] = i;
    if (top)
        s->path[0] = 0;
    d->nsuspects++;
    return 0;
}

/* Each suspect's function_own_ns: its function's own_ns over the reached pairs. */
static int function_totals(culprit_calltree_diff *d)
{
    double *sum = calloc(d->test->nfunctions ? d->test->nfunctions : 1, sizeof(*sum));

    if (!sum)
        return culprit_error_set(CULPRIT_ERROR, "out of memory diffing call trees");
    for (size_t k = d->options.root ? 0 : 1; k < d->npairs; k++)
        if (d->pairs[k].reached && d->pairs[k].own_ns > 0)
            sum[d->test->nodes[d->pairs[k].test].function] += d->pairs[k].own_ns;
    for (size_t i = 0; i < d->nsuspects; i++) {
        const culprit_calltree_suspect *s = &d->suspects[i];
        d->suspects[i].function_own_ns =
            sum[d->test->nodes[d->pairs[s->path[s->npath - 1]].test].function];
    }
    free(sum);
    return 0;
}

/*
 * The search: from the root, into every child that is slower per call, new, or
 * whose calls add at least min_share of the regression (with its caller's calls
 * scaled as before), whatever the caller's shape. A node reached that adds at least
 * min_share itself is a suspect, unless its test cleared it (unchanged or faster
 * per call, or an interval that holds 0, same calls); one that adds less is
 * counted.
 */
int culprit_calltree__reach(culprit_calltree_diff *d, size_t *asuspects)
{
    double floor = d->options.min_share * d->regression_ns;
    /* The root did not get slower: nothing to explain (the paper starts only from
     * slower entry points too). */
    int regressed = d->pairs[0].subtree_ns > 0;
    int error;

    d->pairs[0].reached = 1;
    for (size_t k = 1; k < d->npairs; k++) {
        culprit_calltree_pair *p = &d->pairs[k];
        p->reached = d->pairs[p->parent].reached &&
                     (p->verdict == CULPRIT_CALLTREE_SLOWER ||
                      p->verdict == CULPRIT_CALLTREE_ADDED || p->subtree_ns >= floor);
    }
    for (size_t k = d->options.root ? 0 : 1; regressed && k < d->npairs; k++) {
        const culprit_calltree_pair *p = &d->pairs[k];
        /* (A millionth of the regression is rounding: the sums of two trees.) */
        if (!p->reached || !(p->own_ns > 1e-6 * d->regression_ns))
            continue;
        /* Cleared by its test: what it seems to add is the recording's noise (a
         * whole level run slower on a loaded machine). */
        if (culprit_calltree__cleared(p))
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
    return function_totals(d);
}
