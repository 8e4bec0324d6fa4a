/*
 * The pooled look of a timed bisection step (docs/bisect.md, "Runs per side follow
 * the effect"). A step's own pairs tell its noise poorly when there are few: t on 1
 * or 3 degrees of freedom is 636 or 15 at the early looks' confidence, so a step on
 * its own pairs needs 4 of them even for a 20x slowdown. But every step of a session
 * runs the same command on the same machine, and the noise of a run is relative to
 * its length: the pairs' log ratios (candidate over good end) spread alike in every
 * step. So the session keeps the spread of its steps' log ratios around their own
 * step's mean (a pooled variance, as the one-way analysis of variance pools groups),
 * and a step is judged at POOLED_N pairs on that spread, with t on the pooled degrees
 * of freedom: a slowdown many times the machine's noise is decided there, one within
 * it goes on to the early and regular looks (comparison.c). The step's own spread
 * counts in the pool, and when it is wider than the pool's, it is taken instead: a
 * noisier candidate is not judged on a quieter session's spread.
 */
#include "bisect_internal.h"
#include "culprit/stats.h"

#include <math.h>

/* The log ratios' mean and squared deviations (a culprit_welford's m2); 0 when some
 * run was not positive (no log ratio: the step is judged on its own). */
static int log_ratios(const double *lx, size_t n, double *mean, double *ss)
{
    culprit_welford w = {0};

    for (size_t i = 0; i < n; i++) {
        if (!isfinite(lx[i]))
            return 0;
        culprit_stats_welford_add(&w, lx[i]);
    }
    *mean = w.mean;
    *ss = w.m2;
    return 1;
}

double culprit_bisect__log_ratio(double candidate, double good)
{
    return candidate > 0 && good > 0 ? log(candidate / good) : NAN;
}

void culprit_bisect__pool_add(culprit_bisect__session *s, const double *lx, size_t n)
{
    double mean, ss;

    if (n < 2 || !log_ratios(lx, n, &mean, &ss))
        return;
    s->pooled_ss += ss;
    s->pooled_df += n - 1;
}

int culprit_bisect__pooled_judge(const culprit_bisect__session *s, culprit_bisect_step *step,
                                 const double *lx, size_t n, double confidence, int *decided)
{
    double mean, ss, var, half, threshold = s->opts->measure.threshold;
    size_t df;

    if (n < 2 || s->pooled_df < CULPRIT_BISECT__POOLED_MIN_DF || !log_ratios(lx, n, &mean, &ss))
        return 0;
    df = s->pooled_df + n - 1;
    var = (s->pooled_ss + ss) / (double)df;
    if (ss / (double)(n - 1) > var) /* never narrower than the step's own spread */
        var = ss / (double)(n - 1);
    half = culprit_stats_t_critical(confidence, (double)df) * sqrt(var / (double)n);
    step->change = expm1(mean);
    step->change_low = expm1(mean - half);
    step->change_high = expm1(mean + half);
    step->paired = n;
    step->verdict = culprit_stats_slower_beyond(step->change_low, step->change, threshold)
                        ? CULPRIT_BISECT_BAD
                        : CULPRIT_BISECT_GOOD;
    *decided = step->verdict == CULPRIT_BISECT_BAD || step->change_high < threshold;
    return 1;
}
