/*
 * The sign test's interval of a median (Hollander, Wolfe & Chicken, Nonparametric
 * Statistical Methods, 3rd ed., §3.6): with x_(1) <= ... <= x_(n) sorted and k the
 * largest count with P(Binomial(n, 1/2) <= k) <= tail, the median lies below
 * x_(k+1) with probability at most `tail`, and above x_(n-k) likewise. The bound
 * needs nothing of the distribution but a median, so a few wild values move it by
 * one order statistic at most. The binomial tail is GSL's gsl_cdf_binomial_P.
 */
#include "culprit/core.h"
#include "culprit/stats.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>

/* The largest k with P(Binomial(n, 1/2) <= k) <= tail, or -1 when even P(0) is
 * larger (too few values for the level). The tail grows with k: stop at the first
 * k beyond it. */
static long sign_order(size_t n, double tail)
{
    long k = -1;

    while ((size_t)(k + 1) <= n && gsl_cdf_binomial_P((unsigned)(k + 1), 0.5, (unsigned)n) <= tail)
        k++;
    return k;
}

int culprit_stats_sign_interval(double *median, double *low, double *high, const double *x,
                                size_t n, double tail)
{
    double *sorted = NULL;
    size_t m;
    long k;
    int error;

    *median = *low = *high = NAN;
    if ((error = culprit_stats_sorted_copy(&sorted, &m, x, n)) < 0)
        return error;
    if (m == 0) {
        free(sorted);
        return 0;
    }
    *median = culprit_stats_quantile_sorted(sorted, m, 0.5);
    k = sign_order(m, tail);
    /* [x(k+1), x(m-k)] (1-based) */
    *low = k < 0 ? -INFINITY : sorted[k];
    *high = k < 0 ? INFINITY : sorted[m - 1 - (size_t)k];
    free(sorted);
    return 0;
}
