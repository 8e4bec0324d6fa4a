/*
 * A confirmation's rule on a loaded machine (comparison.c and docs/detection.md,
 * "Paired confirmation"): the sign test's interval (culprit_stats_sign_interval) of
 * the median of paired differences. Beside two CPU hogs this project's VM has slow phases in which
 * a whole run, its fastest sample included, is 1.5 to 2.3 times slower: a sixth of the pairs of
 * runs differ by more than 15% whatever the commits, while the other pairs' floors agree within
 * about 2%. A t interval takes the slow pairs' size at face value and cannot decide in 30 pairs;
 * the sign test counts each pair once, slower or not, so a slow phase costs one pair's vote, never
 * more. Its error under no change is exact for any distribution of the differences that is
 * symmetric around zero (which alternating the order within pairs gives the machine's drift).
 *
 * Also the rule a step judges times by (culprit_bisect__judge_runs): the mean of
 * runs, or of pairs' differences, inside Tukey's severe fences.
 */
#include "bisect_internal.h"
#include "culprit/core.h"
#include "culprit/stats.h"

#include <math.h>
#include <stdlib.h>

/*
 * Runs (or differences of pairs of runs) as a step judges them: inside Tukey's severe
 * fences, as verdicts judge samples (docs/detection.md), so that a stall of the
 * machine that makes a few runs several times longer does not decide a step; but
 * only from CULPRIT_BISECT__FENCE_MIN_N values on. With fewer, the quartiles come from a handful of
 * values, the fences set aside values that only look extreme, and the interval of
 * the rest is too narrow: replayed on this machine's runs, unchanged commits were
 * judged slower 1.1% of the time with fences on 5 to 10 pairs, 0.1% without
 * (docs/bisect.md).
 */
static int judged_runs(culprit_summary *out, const double *x, size_t n, double confidence)
{
    culprit_outliers f;
    int error;

    if (n < CULPRIT_BISECT__FENCE_MIN_N)
        return culprit_stats_summarize(out, x, n, confidence);
    if ((error = culprit_stats_outliers(&f, x, n)) < 0)
        return error;
    return culprit_stats_summarize_within(out, x, n, f.low_severe, f.high_severe, confidence);
}

/*
 * The step's change and its interval from the runs of the two sides. Runs made in
 * pairs (good end, then candidate, back to back) are compared pair by pair: the
 * machine's speed drifts slowly on a shared VM (successive runs are correlated), and
 * each pair's difference cancels what the two runs shared, so the interval of the
 * mean difference is far narrower than Welch's over the two sides as independent
 * samples (measured in docs/bisect.md). Differences are judged as single runs are
 * (judged_runs). Samples reused from history were not made in pairs:
 * with any of them, Welch's interval over the two sides is used.
 */
int culprit_bisect__judge_runs(culprit_bisect_step *step, const double *xg, size_t ng,
                               const double *xc, size_t nc, const double *dx, size_t np,
                               double confidence)
{
    culprit_summary g, c;
    culprit_welford wg, wc;
    culprit_welch w;
    int error;

    if ((error = judged_runs(&g, xg, ng, confidence)) < 0 ||
        (error = judged_runs(&c, xc, nc, confidence)) < 0)
        return error;
    culprit_stats_welford_from_summary(&wg, &g);
    culprit_stats_welford_from_summary(&wc, &c);
    step->good_mean_ns = wg.mean;
    step->mean_ns = wc.mean;
    if (dx && np >= 2) {
        culprit_summary d;
        if ((error = judged_runs(&d, dx, np, confidence)) < 0)
            return error;
        step->change = d.mean / wg.mean;
        step->change_low = d.ci_low / wg.mean;
        step->change_high = d.ci_high / wg.mean;
        step->paired = d.n;
        return 0;
    }
    if ((error = culprit_stats_welch(&w, &wg, &wc, confidence)) < 0)
        return error;
    step->change = w.diff / wg.mean;
    step->change_low = w.low / wg.mean;
    step->change_high = w.high / wg.mean;
    step->paired = 0;
    return 0;
}

int culprit_bisect__judge_floors(culprit_bisect_step *step, size_t looks, const double *good,
                                 size_t ng, const double *cand, size_t nc, const double *d,
                                 size_t np, double confidence)
{
    double tail = (1 - confidence) / (double)(looks ? looks : 1), g, c, lo, hi, m;
    int error;

    if ((error = culprit_stats_sign_interval(&g, &lo, &hi, good, ng, 0.5)) < 0 ||
        (error = culprit_stats_sign_interval(&c, &lo, &hi, cand, nc, 0.5)) < 0 ||
        (error = culprit_stats_sign_interval(&m, &lo, &hi, d, np, tail)) < 0)
        return error;
    step->good_mean_ns = g;
    step->mean_ns = c;
    step->change = m / g;
    step->change_low = lo / g;
    step->change_high = hi / g;
    step->paired = np;
    return 0;
}
