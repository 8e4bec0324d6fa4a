/*
 * Streaming mean and variance, and the confidence interval of the mean.
 *
 * The sampling loop (framework/measure) feeds every sample here as it arrives and
 * asks after each one whether the mean is already precise enough, so the update
 * must be O(1) and numerically safe: timings are large numbers (1e9 ns) that vary
 * in their last digits, exactly where the textbook sum-of-squares formula cancels
 * catastrophically. Welford's update never forms a sum of squares.
 *
 * References:
 *   B. P. Welford, "Note on a method for calculating corrected sums of squares
 *   and products", Technometrics 4(3), 1962.
 *   T. F. Chan, G. H. Golub, R. J. LeVeque, "Updating formulae and a pairwise
 *   algorithm for computing sample variances", Stanford CS report 79-773, 1979.
 */
#include "culprit/stats.h"

#include <math.h>

#include <gsl/gsl_cdf.h>

void culprit_stats_welford_init(culprit_welford *w)
{
    w->n = 0;
    w->mean = 0.0;
    w->m2 = 0.0;
    w->min = INFINITY;
    w->max = -INFINITY;
}

void culprit_stats_welford_add(culprit_welford *w, double x)
{
    double delta;

    /* A zero-initialized accumulator is valid too: min/max start from the first x. */
    if (w->n == 0 || x < w->min)
        w->min = x;
    if (w->n == 0 || x > w->max)
        w->max = x;
    w->n++;
    delta = x - w->mean;
    w->mean += delta / (double)w->n;
    /* delta * (x - new mean): Welford's update of the sum of squared deviations. */
    w->m2 += delta * (x - w->mean);
}

void culprit_stats_welford_merge(culprit_welford *into, const culprit_welford *from)
{
    double na, nb, n, delta;

    if (from->n == 0)
        return;
    if (into->n == 0) {
        *into = *from;
        return;
    }
    na = (double)into->n;
    nb = (double)from->n;
    n = na + nb;
    delta = from->mean - into->mean;
    /* Chan et al. 1979: mean = mean_a + delta * nb / n and
     * M2 = M2a + M2b + delta^2 * na * nb / n (their pairwise update). */
    into->mean += delta * nb / n;
    into->m2 += from->m2 + delta * delta * na * nb / n;
    into->n += from->n;
    if (from->min < into->min)
        into->min = from->min;
    if (from->max > into->max)
        into->max = from->max;
}

double culprit_stats_welford_variance(const culprit_welford *w)
{
    if (w->n < 2)
        return 0.0;
    return w->m2 / (double)(w->n - 1);
}

double culprit_stats_welford_sd(const culprit_welford *w)
{
    return sqrt(culprit_stats_welford_variance(w));
}

double culprit_stats_t_critical(double confidence, double df)
{
    /* GSL's error handler aborts on domain errors; refuse them here instead. */
    if (!(confidence > 0.0 && confidence < 1.0) || !(df > 0.0))
        return NAN;
    /* The last few answers, per thread: a check or compare of many tests asks for the
     * same (confidence, df) over and over (tests of as many samples), and the inverse
     * CDF costs about a microsecond. Same arguments, same value: exact. */
    static __thread struct {
        double confidence, df, t;
    } memo[4];
    static __thread unsigned int next;
    for (unsigned int i = 0; i < 4; i++)
        if (memo[i].confidence == confidence && memo[i].df == df)
            return memo[i].t;
    /* Two-sided: P(|T| <= t) = c  <=>  P(T <= t) = 1 - (1 - c) / 2. */
    memo[next].t = gsl_cdf_tdist_Pinv(1.0 - (1.0 - confidence) / 2.0, df);
    memo[next].confidence = confidence;
    memo[next].df = df;
    next = (next + 1) % 4;
    return memo[(next + 3) % 4].t;
}

double culprit_stats_welford_ci_halfwidth(const culprit_welford *w, double confidence)
{
    if (w->n < 2)
        return INFINITY;
    return culprit_stats_t_critical(confidence, (double)(w->n - 1)) * culprit_stats_welford_sd(w) /
           sqrt((double)w->n);
}

double culprit_stats_var_upper(double var, double df, double confidence)
{
    if (!(confidence > 0 && confidence < 1))
        return NAN;
    if (!(df > 0) || !isfinite(var) || var < 0)
        return INFINITY;
    return df * var / gsl_cdf_chisq_Pinv(1 - confidence, df);
}

void culprit_stats_welford_from_summary(culprit_welford *w, const culprit_summary *s)
{
    culprit_stats_welford_init(w);
    if (s->n == 0 || !isfinite(s->mean))
        return;
    w->n = s->n;
    w->mean = s->mean;
    w->m2 = s->n > 1 && isfinite(s->sd) ? s->sd * s->sd * (double)(s->n - 1) : 0;
    w->min = s->min;
    w->max = s->max;
}
