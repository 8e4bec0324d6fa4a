/*
 * A bootstrap confidence interval of the ratio of medians, median(b) / median(a):
 * "b takes 1.07x the time of a, between 1.03x and 1.12x", the figure a report shows.
 *
 * The median and a ratio because timings are skewed and multiplicative: a slowdown
 * scales a time, and the median ignores the slow tail that the mean chases. No
 * closed form gives the sampling distribution of a ratio of medians, so it is
 * bootstrapped: resample each sample with replacement, take the ratio of the
 * resampled medians, repeat, and read the interval off the percentiles of those
 * ratios (the percentile interval, Efron & Tibshirani 1993, §13.3).
 *
 * Determinism: the generator is GSL's MT19937 (gsl_rng_mt19937), seeded with the
 * caller's seed and owned by the call, so equal inputs and seed give equal bounds
 * on every machine and thread. Per resample the draws are n_a indices into a, then
 * n_b indices into b, each gsl_rng_uniform_int(). Medians of resamples use
 * gsl_stats_median (selection, O(n)), the same definition as the quantile of
 * describe.c at p = 0.5.
 *
 * References:
 *   B. Efron, R. J. Tibshirani, "An Introduction to the Bootstrap", Chapman & Hall,
 *   1993, ch. 13 (percentile intervals).
 *   M. Matsumoto, T. Nishimura, "Mersenne Twister", ACM TOMACS 8(1), 1998.
 */
#include "culprit/core.h"
#include "culprit/stats.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_rng.h>
#include <gsl/gsl_statistics_double.h>

static double resampled_median(gsl_rng *rng, const double *x, size_t n, double *buf)
{
    size_t i;

    for (i = 0; i < n; i++)
        buf[i] = x[gsl_rng_uniform_int(rng, n)];
    return gsl_stats_median(buf, 1, n);
}

int culprit_stats_bootstrap_median_ratio(culprit_ratio_ci *out, const double *a, size_t n_a,
                                         const double *b, size_t n_b, double confidence,
                                         size_t resamples, unsigned long seed)
{
    double *sa = NULL, *sb = NULL, *buf = NULL, *ratios = NULL;
    size_t ma = 0, mb = 0, i;
    gsl_rng *rng = NULL;
    int error;

    out->ratio = out->low = out->high = NAN;
    out->confidence = confidence;
    out->resamples = resamples;
    if (!(confidence > 0.0 && confidence < 1.0))
        return culprit_error_set(CULPRIT_EINVALID, "confidence %g is not in (0, 1)", confidence);
    if (resamples == 0)
        return culprit_error_set(CULPRIT_EINVALID, "the bootstrap needs at least one resample");
    if ((error = culprit_stats_sorted_copy(&sa, &ma, a, n_a)) < 0 ||
        (error = culprit_stats_sorted_copy(&sb, &mb, b, n_b)) < 0)
        goto cleanup;
    if ((ma > 0 && !(sa[0] > 0.0 && isfinite(sa[ma - 1]))) ||
        (mb > 0 && !(isfinite(sb[0]) && isfinite(sb[mb - 1])))) {
        error = culprit_error_set(CULPRIT_EINVALID, "a ratio of medians needs finite values and "
                                                    "positive ones in the denominator sample");
        goto cleanup;
    }
    /* gsl_rng_uniform_int() draws below the generator's range, 2^32 for MT19937. */
    if (ma > 0xffffffffUL || mb > 0xffffffffUL) {
        error = culprit_error_set(CULPRIT_EINVALID, "too many samples for the bootstrap");
        goto cleanup;
    }
    if (ma > 0 && mb > 0)
        out->ratio =
            culprit_stats_quantile_sorted(sb, mb, 0.5) / culprit_stats_quantile_sorted(sa, ma, 0.5);
    if (ma < 2 || mb < 2) {
        error =
            culprit_error_set(CULPRIT_EUNDECIDED,
                              "the bootstrap needs 2 values per sample (have %zu and %zu)", ma, mb);
        goto cleanup;
    }

    buf = malloc((ma > mb ? ma : mb) * sizeof(double));
    ratios = resamples <= SIZE_MAX / sizeof(double) ? malloc(resamples * sizeof(double)) : NULL;
    rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!buf || !ratios || !rng) {
        error =
            culprit_error_set(CULPRIT_ERROR, "out of memory (%zu bootstrap resamples)", resamples);
        goto cleanup;
    }
    gsl_rng_set(rng, seed);
    for (i = 0; i < resamples; i++) {
        double ma_med = resampled_median(rng, sa, ma, buf);
        double mb_med = resampled_median(rng, sb, mb, buf);
        ratios[i] = mb_med / ma_med;
    }
    /* Efron & Tibshirani 1993 §13.3: the percentile interval is
     * [q_{(1-c)/2}, q_{(1+c)/2}] of the bootstrap replications. */
    culprit_stats_sort(ratios, resamples);
    out->low = culprit_stats_quantile_sorted(ratios, resamples, (1.0 - confidence) / 2.0);
    out->high = culprit_stats_quantile_sorted(ratios, resamples, (1.0 + confidence) / 2.0);

cleanup:
    gsl_rng_free(rng);
    free(sa);
    free(sb);
    free(buf);
    free(ratios);
    return error;
}
