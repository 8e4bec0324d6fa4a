/*
 * The BFS diff of two call trees (Heger et al. 2013, section 4.2) and the choice
 * of suspects among the slower nodes (Vogel 2017, section 3.5).
 *
 * Nodes are matched by their path of function identities, so two builds compare.
 * Each matched pair is judged on its per-call durations (mean and variance from
 * the node's call count, inclusive sum and sum of squares) with Welch's test and
 * detection's rule for a minor regression: the interval of the relative change
 * above zero and the change beyond a practical threshold. The paper used an ANOVA
 * on two groups, which is the pooled-variance t test; Welch's test is its
 * unequal-variance form, the one detection uses (Vogel 2017, section 3.3).
 *
 * Every matched pair is judged (linear time); the breadth-first search then only
 * descends into slower nodes whose shape did not change, as the paper does. A
 * slower node with no slower callee is the lowest of its chain and the likeliest
 * cause (Vogel); below it, a slower node reached through callers that did not
 * regress is a candidate too ("both ends").
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* qsort_r */
#endif
#include "calltree_internal.h"

#include "culprit/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const verdict_names[] = {"unchanged", "slower", "faster", "undecided", "added"};
static const char *const kind_names[] = {"lowest-regressed", "shape-changed", "below-unregressed",
                                         "own-time", "new-call"};

const char *culprit_calltree_verdict_name(culprit_calltree_verdict verdict)
{
    return (unsigned)verdict < 5 ? verdict_names[verdict] : "unknown";
}

const char *culprit_calltree_suspect_kind_name(culprit_calltree_suspect_kind kind)
{
    return (unsigned)kind < 5 ? kind_names[kind] : "unknown";
}

int culprit_calltree_diff_options_init(culprit_calltree_diff_options *opts, unsigned int version)
{
    static const culprit_calltree_diff_options defaults = CULPRIT_CALLTREE_DIFF_OPTIONS_INIT;

    return culprit_options_init_from(opts, &defaults, sizeof(defaults), version,
                                     CULPRIT_CALLTREE_DIFF_OPTIONS_VERSION, "calltree diff");
}

/* Construction state: the pairs and the suspects allocated. */
typedef struct {
    culprit_calltree_diff *d;
    size_t apairs;
    size_t asuspects;
    unsigned char *matched; /* per test node: it has a counterpart in the base tree */
} builder;

static int add_pair(builder *b, size_t base, size_t test, size_t parent)
{
    culprit_calltree_diff *d = b->d;

    if (culprit_array_grow(&d->pairs, &b->apairs, d->npairs, sizeof(*d->pairs), 64) < 0)
        return culprit_error_set(CULPRIT_ERROR, "out of memory diffing call trees");
    memset(&d->pairs[d->npairs], 0, sizeof(d->pairs[0]));
    d->pairs[d->npairs].base = base;
    d->pairs[d->npairs].test = test;
    d->pairs[d->npairs].parent = parent;
    d->npairs++;
    return 0;
}

/* A call count relative to the caller's: a * pb == b * pa, in 128 bits. */
static int same_rate(uint64_t child_b, uint64_t parent_b, uint64_t child_t, uint64_t parent_t)
{
    if (parent_b == 0 || parent_t == 0) /* the roots: no calls of their own */
        return child_b == child_t;
    return (unsigned __int128)child_b * parent_t == (unsigned __int128)child_t * parent_b;
}

/* Appends the test-side children of pair k that have no counterpart (all of them
 * below an added pair), as added pairs. */
static int add_new_children(builder *b, size_t k)
{
    culprit_calltree_diff *d = b->d;
    const culprit_calltree_node *nt = &d->test->nodes[d->pairs[k].test];
    int error;

    for (size_t i = 0; i < nt->nchildren; i++) {
        size_t ct = nt->children[i];
        if (b->matched[ct])
            continue;
        if ((error = add_pair(b, CULPRIT_CALLTREE_NONE, ct, k)) < 0)
            return error;
        d->pairs[k].nchildren++;
    }
    return 0;
}

/* Matches the children of pair k, appending their pairs (the matched ones, then
 * those only in the test tree), and records its shape. */
static int match_children(builder *b, const size_t *map, size_t k)
{
    culprit_calltree_diff *d = b->d;
    const culprit_calltree_node *nb, *nt = &d->test->nodes[d->pairs[k].test];
    size_t matched = 0, changed = 0;
    int error;

    d->pairs[k].first = d->npairs;
    if (d->pairs[k].base == CULPRIT_CALLTREE_NONE)
        return add_new_children(b, k);
    nb = &d->base->nodes[d->pairs[k].base];
    for (size_t i = 0; i < nb->nchildren; i++) {
        size_t cb = nb->children[i], want = map[d->base->nodes[cb].function];
        if (want == CULPRIT_CALLTREE_NONE)
            continue;
        /* Through the tree's index: a scan of the other side's children per child
         * made a node with 200,000 children quadratic. */
        size_t ct = culprit_calltree__find_child(d->test, d->pairs[k].test, want);
        if (ct == CULPRIT_CALLTREE_NONE)
            continue;
        if ((error = add_pair(b, cb, ct, k)) < 0)
            return error;
        b->matched[ct] = 1;
        matched++;
        changed +=
            !same_rate(d->base->nodes[cb].calls, nb->calls, d->test->nodes[ct].calls, nt->calls);
    }
    d->pairs[k].nchildren = matched;
    d->pairs[k].added = nt->nchildren - matched;
    d->pairs[k].removed = nb->nchildren - matched;
    d->pairs[k].calls_changed = changed;
    d->pairs[k].shape_changed = matched != nt->nchildren || matched != nb->nchildren || changed;
    return d->pairs[k].added ? add_new_children(b, k) : 0;
}

/*
 * The per-call durations of a node as a Welford state; 0 when it has none. The
 * sums stand for `calls` calls; the timed calls behind them are `samples` (more
 * when the recorder repeated the level), which is the n of the statistics: the
 * mean and the mean square per call stay, m2 scales with n.
 */
static int per_call(culprit_welford *w, const culprit_calltree_node *n)
{
    double mean, m2;
    uint64_t samples = n->samples ? n->samples : n->calls;

    culprit_stats_welford_init(w);
    if (n->calls == 0 || !isfinite(n->inclusive_ns))
        return 0;
    mean = n->inclusive_ns / (double)n->calls;
    w->n = samples;
    w->mean = w->min = w->max = mean;
    /* m2 = sum x^2 - n mean^2; rounding can take it a hair below zero. */
    m2 = isfinite(n->inclusive_sq_ns2) ? n->inclusive_sq_ns2 - n->inclusive_ns * mean : NAN;
    w->m2 = m2 < 0 ? 0 : m2 * (double)samples / (double)n->calls;
    return 1;
}

/* The stats rule's answer, as a call-tree verdict. */
static const culprit_calltree_verdict verdict_of[] = {
    [CULPRIT_STATS_CHANGE_UNDECIDED] = CULPRIT_CALLTREE_UNDECIDED,
    [CULPRIT_STATS_CHANGE_SLOWER] = CULPRIT_CALLTREE_SLOWER,
    [CULPRIT_STATS_CHANGE_FASTER] = CULPRIT_CALLTREE_FASTER,
    [CULPRIT_STATS_CHANGE_UNCHANGED] = CULPRIT_CALLTREE_UNCHANGED,
};

static void judge(culprit_calltree_pair *p, const culprit_calltree_node *nb,
                  const culprit_calltree_node *nt, const culprit_calltree_diff_options *o)
{
    culprit_welford wb, wt;
    culprit_welch welch;
    double thr = o->threshold;

    p->base_calls = nb ? nb->calls : 0;
    p->test_calls = nt->calls;
    p->base_mean = p->test_mean = p->diff = p->diff_low = p->diff_high = NAN;
    p->change = p->change_low = p->change_high = p->p = NAN;
    if (!nb) { /* only in the test tree: compared against nothing */
        p->verdict = CULPRIT_CALLTREE_ADDED;
        p->total_delta = nt->inclusive_ns;
        if (nt->calls > 0)
            p->test_mean = nt->inclusive_ns / (double)nt->calls;
        return;
    }
    p->total_delta = nt->inclusive_ns - nb->inclusive_ns;
    p->verdict = CULPRIT_CALLTREE_UNDECIDED;
    if (!per_call(&wb, nb) || !per_call(&wt, nt))
        return; /* untimed, or never called on one side */
    p->base_mean = wb.mean;
    p->test_mean = wt.mean;
    p->diff = wt.mean - wb.mean;
    if (!(wb.mean > 0))
        return;
    p->change = p->diff / wb.mean;
    if (wb.n < 2 || wt.n < 2 || !isfinite(wb.m2) || !isfinite(wt.m2)) {
        /* One call has no variance to test: the threshold alone judges, as a
         * developer reading the two numbers would. */
        p->verdict = p->change > thr    ? CULPRIT_CALLTREE_SLOWER
                     : p->change < -thr ? CULPRIT_CALLTREE_FASTER
                                        : CULPRIT_CALLTREE_UNCHANGED;
        return;
    }
    if (culprit_stats_welch(&welch, &wb, &wt, o->confidence) < 0) {
        culprit_error_clear();
        return;
    }
    p->tested = 1;
    p->diff_low = welch.low;
    p->diff_high = welch.high;
    p->p = welch.p;
    p->change_low = welch.low / wb.mean;
    p->change_high = welch.high / wb.mean;
    /* Detection's rule (stats): significant AND beyond the practical threshold;
     * a significant change inside it does not count. */
    p->verdict =
        verdict_of[culprit_stats_judge_change(p->change, p->change_low, p->change_high, thr)];
}

static int add_suspect(builder *b, size_t k, culprit_calltree_suspect_kind kind)
{
    return culprit_calltree__add_suspect(b->d, &b->asuspects, k, kind);
}

/*
 * The paper's search, from one slower pair k: a changed shape stops there;
 * otherwise it descends into the slower callees, and a slower pair with no slower
 * callee is the lowest of its chain (`kind`). Callees that did not regress are
 * searched for slower nodes further down: those are the lower ends of chains with
 * an unregressed middle (Vogel 2017, section 3.5; kind BELOW). Callees only in the
 * test tree are not compared (the paper matches nodes of both trees only).
 *
 * Depth-first with an explicit stack, not recursion: trees come from files, and a
 * chain 150,000 calls deep overflowed the thread's stack. A frame is a pair being
 * explored (below == 0: counting its slower callees) or one searched below an
 * unregressed caller (below == 1); the order is the recursive one's.
 */
typedef struct {
    size_t k, next, slower;
    culprit_calltree_suspect_kind kind;
    int below;
} search_frame;

static int push_frame(builder *b, search_frame **stack, size_t *astack, size_t *top, size_t k,
                      culprit_calltree_suspect_kind kind, int below)
{
    if (b->d->pairs[k].base == CULPRIT_CALLTREE_NONE)
        return 0;
    if (!below && b->d->pairs[k].shape_changed)
        return add_suspect(b, k, CULPRIT_CALLTREE_SHAPE);
    if (culprit_array_grow(stack, astack, *top, sizeof(**stack), 64) < 0)
        return CULPRIT_ERROR;
    (*stack)[(*top)++] = (search_frame){k, b->d->pairs[k].first, 0, kind, below};
    return 0;
}

static int explore(builder *b, size_t k, culprit_calltree_suspect_kind lowest_kind)
{
    culprit_calltree_diff *d = b->d;
    search_frame *stack = NULL;
    size_t astack = 0, top = 0;
    int error = push_frame(b, &stack, &astack, &top, k, lowest_kind, 0);

    while (error == 0 && top > 0) {
        search_frame *f = &stack[top - 1];
        if (f->next < d->pairs[f->k].first + d->pairs[f->k].nchildren) {
            size_t j = f->next++;
            int slower = d->pairs[j].verdict == CULPRIT_CALLTREE_SLOWER;
            culprit_calltree_suspect_kind kind = f->below ? CULPRIT_CALLTREE_BELOW : f->kind;
            f->slower += slower;
            error = push_frame(b, &stack, &astack, &top, j, kind, !slower);
        } else {
            top--;
            if (!f->below && f->slower == 0)
                error = add_suspect(b, f->k, f->kind);
        }
    }
    free(stack);
    return error;
}

/* The paper's rule: the search from the entry points (main, thread starts; the
 * root's children): an entry point that is not slower has nothing to explain. */
static int paper_search(builder *b)
{
    culprit_calltree_diff *d = b->d;
    int error = 0;

    for (size_t k = 1; k < d->npairs; k++) {
        const culprit_calltree_pair *up = &d->pairs[d->pairs[k].parent];
        d->pairs[k].reached =
            d->pairs[k].parent == 0 ||
            (up->reached && up->verdict == CULPRIT_CALLTREE_SLOWER && !up->shape_changed);
    }
    for (size_t j = d->pairs[0].first; j < d->pairs[0].first + d->pairs[0].nchildren; j++)
        if (d->pairs[j].verdict == CULPRIT_CALLTREE_SLOWER &&
            (error = explore(b, j, CULPRIT_CALLTREE_LOWEST)) < 0)
            break;
    return error;
}

static size_t last_of(const culprit_calltree_suspect *s)
{
    return s->path[s->npath - 1];
}

/* Ranking: changed first (after correlation); then, by the paper's rule, its
 * search's suspects before the lower ends, then the time the suspect added in
 * total; by the reach rule, the time its function adds itself at every call path,
 * then the time the node adds itself; then the path's order. */
static int compare_suspects(const void *x, const void *y, void *payload)
{
    const culprit_calltree_suspect *a = x, *b = y;
    const culprit_calltree_diff *d = payload;
    const culprit_calltree_pair *pa = &d->pairs[last_of(a)], *pb = &d->pairs[last_of(b)];
    double da = pa->total_delta, db = pb->total_delta;

    if (a->changed != b->changed)
        return b->changed - a->changed;
    if (d->options.rule == CULPRIT_CALLTREE_RULE_REACH && a->function_own_ns != b->function_own_ns)
        return a->function_own_ns < b->function_own_ns ? 1 : -1;
    if (d->options.rule == CULPRIT_CALLTREE_RULE_REACH) {
        da = pa->own_ns;
        db = pb->own_ns;
    } else if (pa->reached != pb->reached) {
        /* The search's own suspects (reached through slower callers only) before the
         * lower ends found below an unregressed caller, whatever their kind. */
        return pa->reached ? -1 : 1;
    }
    if (da != db)
        return da < db ? 1 : -1;
    return last_of(a) < last_of(b) ? -1 : 1;
}

void culprit_calltree__rank_suspects(culprit_calltree_diff *d)
{
    if (d->nsuspects < 2) /* also: qsort_r must not see the NULL of an empty array */
        return;
    qsort_r(d->suspects, d->nsuspects, sizeof(*d->suspects), compare_suspects, d);
}

static int check_timed(const culprit_calltree *tree, const char *which)
{
    if (tree->mode == CULPRIT_CALLTREE_STRUCTURE)
        return culprit_error_set(
            CULPRIT_EINVALID, "the %s call tree has no times (recorded in structure mode)", which);
    if (tree->mode == CULPRIT_CALLTREE_WEIGHTS)
        return culprit_error_set(CULPRIT_EINVALID,
                                 "the %s call tree holds folded-stack weights, not per-call times: "
                                 "the statistical diff needs call-tree files (culprit overweight "
                                 "compares folded stacks)",
                                 which);
    return 0;
}

static int check_options(const culprit_calltree_diff_options *opts)
{
    if (opts->version != CULPRIT_CALLTREE_DIFF_OPTIONS_VERSION)
        return culprit_options_check_version(opts->version, CULPRIT_CALLTREE_DIFF_OPTIONS_VERSION,
                                             "calltree diff");
    if (!(opts->confidence > 0 && opts->confidence < 1))
        return culprit_error_set(CULPRIT_EINVALID, "confidence %g is not in (0, 1)",
                                 opts->confidence);
    if (!(opts->threshold >= 0 && isfinite(opts->threshold)))
        return culprit_error_set(CULPRIT_EINVALID, "threshold %g is not a non-negative number",
                                 opts->threshold);
    if (!(opts->min_share >= 0 && opts->min_share <= 1))
        return culprit_error_set(CULPRIT_EINVALID, "minimum share %g is not in [0, 1]",
                                 opts->min_share);
    if (opts->rule != CULPRIT_CALLTREE_RULE_REACH && opts->rule != CULPRIT_CALLTREE_RULE_PAPER)
        return culprit_error_set(CULPRIT_EINVALID, "calltree diff rule %d is not reach or paper",
                                 (int)opts->rule);
    if (opts->root && !*opts->root)
        return culprit_error_set(CULPRIT_EINVALID, "the root function's name is empty");
    return 0;
}

int culprit_calltree_diff_trees(culprit_calltree_diff *out, const culprit_calltree *base,
                                const culprit_calltree *test,
                                const culprit_calltree_diff_options *opts)
{
    culprit_calltree_diff_options defaults = CULPRIT_CALLTREE_DIFF_OPTIONS_INIT;
    builder b = {out, 0, 0, NULL};
    size_t *map = NULL, root_base = 0, root_test = 0;
    int error;

    memset(out, 0, sizeof(*out));
    if (!opts)
        opts = &defaults;
    if ((error = check_options(opts)) < 0 || (error = check_timed(base, "base")) < 0 ||
        (error = check_timed(test, "test")) < 0)
        return error;
    if (base->instructions != test->instructions)
        return culprit_error_set(CULPRIT_EINVALID,
                                 "the %s tree counts instructions and the %s "
                                 "one times calls: record both with the same --metric",
                                 base->instructions ? "base" : "test",
                                 base->instructions ? "test" : "base");
    out->base = base;
    out->test = test;
    out->options = *opts;
    if (opts->root &&
        ((error = culprit_calltree__find_root(&root_base, base, opts->root, "base")) < 0 ||
         (error = culprit_calltree__find_root(&root_test, test, opts->root, "test")) < 0))
        return error;
    if (!(b.matched = calloc(test->nnodes ? test->nnodes : 1, 1)))
        return culprit_error_set(CULPRIT_ERROR, "out of memory diffing call trees");
    if ((error = culprit_calltree__function_map(&map, base, test, 0)) < 0 ||
        (error = add_pair(&b, root_base, root_test, CULPRIT_CALLTREE_NONE)) < 0)
        goto cleanup;
    /* Pairs grow in breadth-first order: parents before children, siblings together. */
    for (size_t k = 0; k < out->npairs; k++) {
        culprit_calltree_pair *p = &out->pairs[k];
        if ((error = match_children(&b, map, k)) < 0)
            goto cleanup;
        p = &out->pairs[k]; /* the pairs may have moved */
        if (k > 0 || opts->root)
            judge(p, p->base == CULPRIT_CALLTREE_NONE ? NULL : &base->nodes[p->base],
                  &test->nodes[p->test], opts);
    }
    out->pairs[0].verdict = opts->root ? out->pairs[0].verdict : CULPRIT_CALLTREE_UNCHANGED;
    out->pairs[0].reached = 1;
    out->root_calls = opts->root ? test->nodes[root_test].calls : 0;
    culprit_calltree__attribute(out);
    error = opts->rule == CULPRIT_CALLTREE_RULE_PAPER ? paper_search(&b)
                                                      : culprit_calltree__reach(out, &b.asuspects);
    if (error == 0)
        culprit_calltree__rank_suspects(out);
cleanup:
    free(map);
    free(b.matched);
    if (error < 0)
        culprit_calltree_diff_dispose(out);
    return error;
}

void culprit_calltree_diff_dispose(culprit_calltree_diff *diff)
{
    if (!diff)
        return;
    for (size_t i = 0; i < diff->nsuspects; i++) {
        culprit_calltree_suspect *s = &diff->suspects[i];
        for (size_t k = 0; s->marks && k < s->npath; k++)
            free(s->marks[k].lines);
        free(s->marks);
        free(s->path);
    }
    free(diff->suspects);
    free(diff->pairs);
    free(diff->changes);
    memset(diff, 0, sizeof(*diff));
}

const culprit_calltree_function *culprit_calltree_diff_function(const culprit_calltree_diff *diff,
                                                                size_t pair)
{
    size_t node;

    if ((pair == 0 && !diff->options.root) || pair >= diff->npairs)
        return NULL;
    node = diff->pairs[pair].test;
    return &diff->test->functions[diff->test->nodes[node].function];
}

size_t culprit_calltree_diff_callees(const culprit_calltree_diff *diff, size_t pair,
                                     culprit_calltree_callees which, const char **names, size_t max)
{
    const culprit_calltree_pair *p;
    const culprit_calltree_node *nb;
    unsigned char *matched;
    size_t n = 0;

    if (pair >= diff->npairs)
        return 0;
    p = &diff->pairs[pair];
    for (size_t c = p->first;
         which != CULPRIT_CALLTREE_CALLEES_REMOVED && c < p->first + p->nchildren; c++) {
        const culprit_calltree_pair *q = &diff->pairs[c];
        int added = q->base == CULPRIT_CALLTREE_NONE;
        if (which == CULPRIT_CALLTREE_CALLEES_ADDED
                ? !added
                : added || p->base == CULPRIT_CALLTREE_NONE ||
                      same_rate(q->base_calls, diff->base->nodes[p->base].calls, q->test_calls,
                                diff->test->nodes[p->test].calls))
            continue;
        if (n < max)
            names[n] = culprit_calltree_diff_function(diff, c)->name;
        n++;
    }
    if (which != CULPRIT_CALLTREE_CALLEES_REMOVED || p->base == CULPRIT_CALLTREE_NONE)
        return n;
    /* Base children without a pair: marked through the matched pairs' base nodes. */
    if (!(matched = calloc(diff->base->nnodes, 1)))
        return 0;
    for (size_t c = p->first; c < p->first + p->nchildren; c++)
        if (diff->pairs[c].base != CULPRIT_CALLTREE_NONE)
            matched[diff->pairs[c].base] = 1;
    nb = &diff->base->nodes[p->base];
    for (size_t i = 0; i < nb->nchildren; i++) {
        if (matched[nb->children[i]])
            continue;
        if (n < max)
            names[n] = diff->base->functions[diff->base->nodes[nb->children[i]].function].name;
        n++;
    }
    free(matched);
    return n;
}
