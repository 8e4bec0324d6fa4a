/*
 * The corrections culprit_calltree_record() (record.c) makes to the times of its
 * level runs, so that the merged tree's times match the uninstrumented program's
 * and form one consistent tree (docs/calltree.md, "Unbiased times"):
 *
 * - preemption: a level run's clock reads wall time, which on a loaded machine
 *   includes the time the program waited for a CPU; each run's times are scaled by
 *   the share of its wall time its thread ran (the runtime tells the wait, from
 *   the kernel's scheduler statistics);
 * - the descendants' hooks: a timed call carries the hooks of every call below it.
 *   The runtime subtracts a cost calibrated on a probe, which is not what a call
 *   costs inside real code (out-of-order execution hides the hooks behind some
 *   work and not other work: 0.5 to 11 ns in our measurements). The runtime's
 *   subtraction is undone here and the cost measured on the workload itself is
 *   subtracted instead: the CPU time each level run spent beyond an uninstrumented
 *   build's, fitted to its untimed and timed call counts;
 * - consistency: every depth comes from another run, so a node's children can add
 *   up to more than the node; such a node is raised to its children's total, so
 *   that totals along every path add up and exclusive times are never negative.
 *
 * Per-call durations x become a*x + b; the sums of durations and of their squares
 * the model keeps transform exactly, so the per-call statistics the diff tests
 * follow the times.
 */
#include "calltree_internal.h"

#include <math.h>
#include <stdlib.h>

double culprit_calltree__cpu_share(const culprit_calltree *run)
{
    double share;

    if (!(run->wall_ns > 0) || !(run->run_delay_ns >= 0))
        return 1.0;
    share = 1.0 - run->run_delay_ns / run->wall_ns;
    /* A wait longer than the run is not a measurement of this run: no scaling. */
    return share > 0 && share <= 1 ? share : 1.0;
}

int culprit_calltree__descendants(double **out, const culprit_calltree *tree)
{
    double *d = calloc(tree->nnodes ? tree->nnodes : 1, sizeof(*d));

    if (!(*out = d))
        return culprit_error_set(CULPRIT_ERROR, "out of memory correcting a call tree");
    /* Children have higher indices than their parent: one pass from the end. */
    for (size_t i = tree->nnodes; i-- > 1;) {
        const culprit_calltree_node *n = &tree->nodes[i];
        d[n->parent] += d[i] + (double)n->calls;
    }
    return 0;
}

void culprit_calltree__affine(culprit_calltree_node *node, double calls, double a, double b)
{
    double s = node->inclusive_ns, q = node->inclusive_sq_ns2;

    if (isnan(s) || !(calls > 0))
        return;
    node->inclusive_ns = a * s + calls * b;
    node->inclusive_sq_ns2 = a * a * q + 2 * a * b * s + calls * b * b;
    if (node->inclusive_ns <= 0) {
        node->inclusive_ns = node->inclusive_sq_ns2 = 0;
        return;
    }
    /* Rounding must not leave a negative variance. */
    if (node->inclusive_sq_ns2 < node->inclusive_ns * node->inclusive_ns / calls)
        node->inclusive_sq_ns2 = node->inclusive_ns * node->inclusive_ns / calls;
}

int culprit_calltree__level_raw(culprit_calltree *run, size_t depth)
{
    double share = culprit_calltree__cpu_share(run), *desc;
    int error;

    if ((error = culprit_calltree__descendants(&desc, run)) < 0)
        return error;
    for (size_t i = 1; i < run->nnodes; i++) {
        culprit_calltree_node *n = &run->nodes[i];
        if (n->depth == depth && n->calls > 0) {
            double k = desc[i] / (double)n->calls; /* descendant calls per call */
            culprit_calltree__affine(n, (double)n->calls, share, share * k * run->overhead_ns);
        }
    }
    free(desc);
    return 0;
}

int culprit_calltree__subtract_cost(culprit_calltree *tree, double cost_ns)
{
    double *desc;
    int error;

    if ((error = culprit_calltree__descendants(&desc, tree)) < 0)
        return error;
    for (size_t i = 1; i < tree->nnodes; i++) {
        culprit_calltree_node *n = &tree->nodes[i];
        if (n->calls > 0)
            culprit_calltree__affine(n, (double)n->calls, 1.0,
                                     -cost_ns * desc[i] / (double)n->calls);
    }
    free(desc);
    return 0;
}

int culprit_calltree__fit_resolves(double ncalls, double estimate_ns, double baseline_ns)
{
    return ncalls * estimate_ns > 0.02 * baseline_ns;
}

double culprit_calltree__total(const culprit_calltree *t)
{
    double total = 0;

    for (size_t i = 1; i < t->nnodes; i++)
        if (t->nodes[i].depth == 1 && !isnan(t->nodes[i].inclusive_ns))
            total += t->nodes[i].inclusive_ns;
    return total;
}

double culprit_calltree__baseline_excess(const culprit_calltree *t, double baseline_ns)
{
    double total;

    if (!(baseline_ns > 0) || !isfinite(baseline_ns))
        return 0;
    total = culprit_calltree__total(t);
    return total > 0 ? total / baseline_ns - 1 : 0;
}

int culprit_calltree__anchor_total(culprit_calltree *t, double measured_ns, double baseline_ns)
{
    double raised = culprit_calltree__total(t), f;

    if (!(baseline_ns > 0) || !isfinite(baseline_ns) || !(measured_ns > 0) ||
        !(raised > measured_ns) || fabs(measured_ns - baseline_ns) >= fabs(raised - baseline_ns))
        return 0;
    t->scaled = f = measured_ns / raised;
    for (size_t i = 1; i < t->nnodes; i++)
        culprit_calltree__affine(&t->nodes[i], (double)t->nodes[i].calls, f, 0);
    return 1;
}

int culprit_calltree_bias_note(culprit_buf *out, const culprit_calltree *tree)
{
    size_t most = 0;
    double *calls;

    if (!tree || !(fabs(tree->baseline_excess) > 0.10) || !tree->nfunctions)
        return 0;
    if (!(calls = calloc(tree->nfunctions, sizeof(*calls))))
        return CULPRIT_ERROR_NOMEM();
    for (size_t i = 1; i < tree->nnodes; i++)
        calls[tree->nodes[i].function] += (double)tree->nodes[i].calls;
    for (size_t f = 1; f < tree->nfunctions; f++)
        if (calls[f] > calls[most])
            most = f;
    /* Scaled to the measured total without a profile: the total holds, the callees'
     * times keep what made them add up to more. Else above: the instrumented build does
     * work beyond its hooks' cost; below: the per-call cost taken out was too large. */
    int error = culprit_buf_printf(
        out,
        tree->scaled > 0 && tree->baseline_excess > 0
            ? "the callees' times added up to %.0f%% above the plain build's CPU time and were "
              "scaled to the total measured: the instrumented build %s (functions the plain "
              "build inlines run as calls; the most called is %s, %.0f calls), so the shares "
              "below the callers may be off; count instructions (--metric instructions) for "
              "exact shares"
            : "the corrected times are %+.0f%% off the plain build's CPU time: the "
              "instrumented build %s (functions the plain build inlines run as calls; the "
              "most called is %s, %.0f calls); compare shares, not times, or count "
              "instructions (--metric instructions)",
        100 * tree->baseline_excess,
        tree->baseline_excess > 0 ? "does more than its hooks cost"
                                  : "costs less per call than was taken out",
        tree->functions[most].name ? tree->functions[most].name : "?", calls[most]);
    free(calls);
    return error;
}

/*
 * Least squares of extra[d] = (ncalls - ntimed[d]) * u + ntimed[d] * t over the
 * level runs: u is what an untimed call costs, t a timed one (its clock reads).
 * With one run, or runs that cannot tell the two apart, t is taken as u.
 */
double culprit_calltree__fit_cost(const double *extra_ns, const double *ntimed, size_t nruns,
                                  double ncalls)
{
    double aa = 0, ab = 0, bb = 0, ae = 0, be = 0, sum = 0, det, u;

    for (size_t d = 0; d < nruns; d++) {
        double a = ncalls - ntimed[d], b = ntimed[d];
        aa += a * a;
        ab += a * b;
        bb += b * b;
        ae += a * extra_ns[d];
        be += b * extra_ns[d];
        sum += extra_ns[d];
    }
    det = aa * bb - ab * ab;
    if (nruns >= 2 && det > 1e-9 * aa * bb)
        u = (ae * bb - be * ab) / det;
    else
        u = ncalls > 0 && nruns > 0 ? sum / ((double)nruns * ncalls) : 0;
    return u > 0 && isfinite(u) ? u : 0;
}

int culprit_calltree__reconcile(culprit_calltree *tree)
{
    double *below = calloc(tree->nnodes ? tree->nnodes : 1, sizeof(*below));

    if (!below)
        return culprit_error_set(CULPRIT_ERROR, "out of memory correcting a call tree");
    for (size_t i = tree->nnodes; i-- > 1;) {
        culprit_calltree_node *n = &tree->nodes[i];
        double cs = below[i];
        if (!isnan(n->inclusive_ns) && cs > n->inclusive_ns && n->calls > 0) {
            if (n->inclusive_ns > 0) {
                double f = cs / n->inclusive_ns;
                n->inclusive_sq_ns2 *= f * f;
            } else {
                n->inclusive_sq_ns2 = cs * cs / (double)n->calls; /* all calls alike */
            }
            n->inclusive_ns = cs;
        }
        if (!isnan(n->inclusive_ns))
            below[n->parent] += n->inclusive_ns;
    }
    free(below);
    return 0;
}
