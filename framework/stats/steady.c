/*
 * Where a long run's warm-up ends. A load test calls its workload for a minute;
 * its first intervals pay for cold caches, page faults on fresh memory, lazy
 * binding and the CPU's frequency ramp, and would bias the mean and inflate the
 * variance of everything after them. The Marginal Standard Error Rule (White 1997)
 * cuts where the standard error of the mean of what remains is smallest: dropping a
 * warm-up transient shrinks the spread faster than it shrinks n, dropping steady
 * observations does not. Searching only the first half is the rule's usual guard
 * against truncating most of a run whose end happens to be calm.
 *
 *   K. P. White Jr., "An effective truncation heuristic for bias reduction in
 *   simulation output", Simulation 69(6), 1997.
 *   K. P. White Jr., M. J. Cobb, S. C. Spratt, "A comparison of five steady-state
 *   truncation heuristics for simulation", WSC 2000 (MSER-5).
 */
#include "culprit/stats.h"

size_t culprit_stats_mser(const double *x, size_t n)
{
    culprit_welford suffix;
    size_t best_d = 0;
    double best = 0;

    if (n < 2)
        return 0;
    culprit_stats_welford_init(&suffix);
    /* Suffixes from the end: x_d..x_{n-1} for d = n-1 down to 0. */
    for (size_t d = n; d-- > 0;) {
        culprit_stats_welford_add(&suffix, x[d]);
        if (d > n / 2)
            continue;
        double kept = (double)(n - d);
        double stat = suffix.m2 / (kept * kept);
        if (d == n / 2 || stat <= best) { /* <=: walking down, the smaller d wins ties */
            best = stat;
            best_d = d;
        }
    }
    return best_d;
}
