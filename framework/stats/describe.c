/*
 * Descriptive statistics of one series of samples: the summary a report prints
 * (n, mean, sd, median, range, confidence interval of the mean), quantiles, and
 * Tukey's fences for outliers.
 *
 * Outliers are counted, never dropped: in timing data the slow tail is often the
 * very regression a developer wants to see (a page fault, a lock, a reallocation),
 * so culprit reports how many samples lie beyond the fences and lets the detectors
 * decide what to make of them.
 *
 * Quantiles use GSL's definition (linear interpolation between order statistics,
 * R's type 7 and numpy's default), so the numbers match what a user recomputes
 * in R or Python from the raw samples stored in the history.
 */
#include "culprit/core.h"
#include "culprit/stats.h"
#include "stats_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort_double.h>
#include <gsl/gsl_statistics_double.h>

void culprit_stats_sort(double *x, size_t n)
{
    if (n > 1)
        gsl_sort(x, 1, n);
}

int culprit_stats_sorted_copy(double **out, size_t *out_n, const double *x, size_t n)
{
    double *copy;
    size_t i, m = 0;

    *out = NULL;
    *out_n = 0;
    /* One spare element so that n == 0 still yields a pointer the caller frees. */
    if (n > SIZE_MAX / sizeof(double) - 1)
        return culprit_error_set(CULPRIT_ERROR, "too many samples (%zu)", n);
    copy = malloc((n + 1) * sizeof(double));
    if (!copy)
        return culprit_error_set(CULPRIT_ERROR, "out of memory (%zu samples)", n);
    for (i = 0; i < n; i++)
        if (!isnan(x[i]))
            copy[m++] = x[i];
    culprit_stats_sort(copy, m);
    *out = copy;
    *out_n = m;
    return 0;
}

int culprit_stats__sorted_pair(double **sa, size_t *na, double **sb, size_t *nb, const double *a,
                               size_t n_a, const double *b, size_t n_b,
                               culprit_stats_pmethod method, const char *test)
{
    int error;

    *sa = *sb = NULL;
    *na = *nb = 0;
    if (method != CULPRIT_STATS_P_AUTO && method != CULPRIT_STATS_P_EXACT &&
        method != CULPRIT_STATS_P_ASYMPTOTIC)
        return culprit_error_set(CULPRIT_EINVALID, "unknown p-value method %d", (int)method);
    if ((error = culprit_stats_sorted_copy(sa, na, a, n_a)) < 0 ||
        (error = culprit_stats_sorted_copy(sb, nb, b, n_b)) < 0)
        return error;
    if (*na == 0 || *nb == 0)
        return culprit_error_set(CULPRIT_EUNDECIDED,
                                 "%s needs a value per sample (have %zu and %zu)", test, *na, *nb);
    return 0;
}

double culprit_stats_quantile_sorted(const double *sorted, size_t n, double p)
{
    if (n == 0 || !(p >= 0.0 && p <= 1.0))
        return NAN;
    return gsl_stats_quantile_from_sorted_data(sorted, 1, n, p);
}

int culprit_stats_summarize(culprit_summary *out, const double *x, size_t n, double confidence)
{
    return culprit_stats_summarize_within(out, x, n, -INFINITY, INFINITY, confidence);
}

int culprit_stats_summarize_within(culprit_summary *out, const double *x, size_t n, double low,
                                   double high, double confidence)
{
    culprit_welford w;
    double *all = NULL, *sorted, half;
    size_t m, i;
    int error;

    if (!(confidence > 0.0 && confidence < 1.0))
        return culprit_error_set(CULPRIT_EINVALID, "confidence %g is not in (0, 1)", confidence);
    if ((error = culprit_stats_sorted_copy(&all, &m, x, n)) < 0)
        goto cleanup;
    /* The sorted copy restricted to [low, high]: a window of it. */
    sorted = all;
    while (m > 0 && sorted[0] < low) {
        sorted++;
        m--;
    }
    while (m > 0 && sorted[m - 1] > high)
        m--;

    out->n = m;
    out->confidence = confidence;
    if (m == 0) {
        out->mean = out->sd = out->median = out->min = out->max = NAN;
        out->ci_low = out->ci_high = NAN;
        goto cleanup;
    }

    /* Welford over the sorted copy: the mean and sd stay exact for large, tightly
     * clustered values (see welford.c), which a two-pass sum would also manage but
     * this keeps one implementation of the arithmetic. */
    culprit_stats_welford_init(&w);
    for (i = 0; i < m; i++)
        culprit_stats_welford_add(&w, sorted[i]);
    out->mean = w.mean;
    out->sd = culprit_stats_welford_sd(&w);
    out->median = culprit_stats_quantile_sorted(sorted, m, 0.5);
    out->min = sorted[0];
    out->max = sorted[m - 1];
    half = culprit_stats_welford_ci_halfwidth(&w, confidence);
    out->ci_low = out->mean - half;
    out->ci_high = out->mean + half;

cleanup:
    free(all);
    return error;
}

int culprit_stats_outliers(culprit_outliers *out, const double *x, size_t n)
{
    double *sorted = NULL;
    size_t m, i;
    int error;

    memset(out, 0, sizeof(*out));
    if ((error = culprit_stats_sorted_copy(&sorted, &m, x, n)) < 0)
        goto cleanup;
    if (m == 0) {
        out->q1 = out->q3 = out->iqr = NAN;
        out->low_severe = out->low_mild = out->high_mild = out->high_severe = NAN;
        goto cleanup;
    }

    /* Tukey, Exploratory Data Analysis (1977): inner fences at 1.5 IQR, outer at 3. */
    out->q1 = culprit_stats_quantile_sorted(sorted, m, 0.25);
    out->q3 = culprit_stats_quantile_sorted(sorted, m, 0.75);
    out->iqr = out->q3 - out->q1;
    out->low_severe = out->q1 - 3.0 * out->iqr;
    out->low_mild = out->q1 - 1.5 * out->iqr;
    out->high_mild = out->q3 + 1.5 * out->iqr;
    out->high_severe = out->q3 + 3.0 * out->iqr;
    for (i = 0; i < m; i++) {
        if (sorted[i] < out->low_severe)
            out->n_low_severe++;
        else if (sorted[i] < out->low_mild)
            out->n_low_mild++;
        else if (sorted[i] > out->high_severe)
            out->n_high_severe++;
        else if (sorted[i] > out->high_mild)
            out->n_high_mild++;
    }

cleanup:
    free(sorted);
    return error;
}
