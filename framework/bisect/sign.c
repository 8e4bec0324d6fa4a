/*
 * The sign test's interval of the median of paired differences (a confirmation's
 * rule on a loaded machine, comparison.c and docs/detection.md, "Paired
 * confirmation"). Beside two CPU hogs this project's VM has slow phases in which a
 * whole run, its fastest sample included, is 1.5 to 2.3 times slower: a sixth of
 * the pairs of runs differ by more than 15% whatever the commits, while the other
 * pairs' floors agree within about 2%. A t interval takes the slow pairs' size at
 * face value and cannot decide in 30 pairs; the sign test counts each pair once,
 * slower or not, so a slow phase costs one pair's vote, never more. Its error under
 * no change is exact for any distribution of the differences that is symmetric
 * around zero (which alternating the order within pairs gives the machine's drift).
 */
#include "bisect_internal.h"
#include "culprit/core.h"
#include "culprit/stats.h"

#include <math.h>
#include <stdlib.h>

/* The largest k with P(Binomial(n, 1/2) <= k) <= tail, or -1 when even P(0) is
 * larger (too few pairs for the level). */
static long sign_order(size_t n, double tail)
{
    double p = ldexp(1.0, -(int)n), cdf = 0; /* P(X = 0) */
    long k = -1;

    for (size_t j = 0; j <= n; j++) {
        cdf += p;
        if (cdf > tail)
            break;
        k = (long)j;
        p = p * (double)(n - j) / (double)(j + 1);
    }
    return k;
}

int culprit_bisect__sign_interval(double *median, double *low, double *high, const double *d,
                                  size_t n, double tail)
{
    double *sorted = NULL;
    size_t m;
    long k;
    int error;

    *median = *low = *high = NAN;
    if (n == 0)
        return 0;
    if ((error = culprit_stats_sorted_copy(&sorted, &m, d, n)) < 0)
        return error;
    *median = culprit_stats_quantile_sorted(sorted, m, 0.5);
    k = sign_order(m, tail);
    /* [d(k+1), d(m-k)] (1-based) holds the median with probability >= 1 - 2 tail;
     * with k < 0 no order statistic bounds it at this level. */
    *low = k < 0 ? -INFINITY : sorted[k];
    *high = k < 0 ? INFINITY : sorted[m - 1 - (size_t)k];
    free(sorted);
    return 0;
}

int culprit_bisect__judge_floors(culprit_bisect_step *step, size_t looks, const double *good,
                                 size_t ng, const double *cand, size_t nc, const double *d,
                                 size_t np, double confidence)
{
    double tail = (1 - confidence) / (double)(looks ? looks : 1), g, c, lo, hi, m;
    int error;

    if ((error = culprit_bisect__sign_interval(&g, &lo, &hi, good, ng, 0.5)) < 0 ||
        (error = culprit_bisect__sign_interval(&c, &lo, &hi, cand, nc, 0.5)) < 0 ||
        (error = culprit_bisect__sign_interval(&m, &lo, &hi, d, np, tail)) < 0)
        return error;
    step->good_mean_ns = g;
    step->mean_ns = c;
    step->change = m / g;
    step->change_low = lo / g;
    step->change_high = hi / g;
    step->paired = np;
    return 0;
}
