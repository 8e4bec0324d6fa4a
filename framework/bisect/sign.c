/*
 * A confirmation's rule on a loaded machine (comparison.c and docs/detection.md,
 * "Paired confirmation"): the sign test's interval (culprit_stats_sign_interval) of
 * the median of paired differences. Beside two CPU hogs this project's VM has slow
 * phases in which a whole run, its fastest sample included, is 1.5 to 2.3 times
 * slower: a sixth of the pairs of runs differ by more than 15% whatever the commits,
 * while the other pairs' floors agree within about 2%. A t interval takes the slow
 * pairs' size at face value and cannot decide in 30 pairs; the sign test counts each
 * pair once, slower or not, so a slow phase costs one pair's vote, never more. Its
 * error under no change is exact for any distribution of the differences that is
 * symmetric around zero (which alternating the order within pairs gives the
 * machine's drift).
 */
#include "bisect_internal.h"
#include "culprit/core.h"
#include "culprit/stats.h"

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
