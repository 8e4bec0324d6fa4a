/*
 * culprit stats: streaming summaries (Welford), confidence intervals of the mean,
 * quantiles and Tukey-fence outliers. Distribution functions come from GSL.
 * Later issues add Welch, ANOVA, Mann-Whitney, KS and multiple-testing corrections.
 */
#ifndef CULPRIT_STATS_H
#define CULPRIT_STATS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Streaming mean and variance (Welford 1962), exact for millions of samples: no
 * sum of squares is ever formed, so there is no catastrophic cancellation.
 * Zero-initialize or call culprit_welford_init().
 */
typedef struct {
    uint64_t n;
    double mean;
    double m2; /**< sum of squared deviations from the running mean */
    double min;
    double max;
} culprit_welford;

void culprit_welford_init(culprit_welford *w);
void culprit_welford_add(culprit_welford *w, double x);
/** Combines two accumulators (Chan, Golub, LeVeque 1979 pairwise update). */
void culprit_welford_merge(culprit_welford *into, const culprit_welford *from);
/** Sample variance (divisor n-1); 0 when n < 2. */
double culprit_welford_variance(const culprit_welford *w);
double culprit_welford_sd(const culprit_welford *w);
/**
 * Half-width of the two-sided confidence interval of the mean at `confidence`
 * (e.g. 0.99): t_{1-(1-c)/2, n-1} * sd / sqrt(n), Student t from GSL.
 * Returns INFINITY when n < 2.
 */
double culprit_welford_ci_halfwidth(const culprit_welford *w, double confidence);

/** Two-sided Student t quantile: the t with P(|T| <= t) = confidence at `df` degrees. */
double culprit_stats_t_critical(double confidence, double df);

/** Descriptive summary of one series of samples. */
typedef struct {
    size_t n;
    double mean;
    double sd;
    double median;
    double min;
    double max;
    double ci_low;     /**< lower bound of the confidence interval of the mean */
    double ci_high;    /**< upper bound */
    double confidence; /**< the level the interval was computed at, e.g. 0.99 */
} culprit_summary;

/**
 * Summarizes `n` samples at `confidence`. NaN values are ignored (out->n counts the
 * others). With no value left every
 * field is NaN except n; with n == 1 the interval is [-inf, +inf].
 * Returns 0, CULPRIT_EINVALID when confidence is not in (0, 1), or CULPRIT_ERROR
 * when out of memory. Thread-safe.
 */
int culprit_stats_summarize(culprit_summary *out, const double *x, size_t n, double confidence);

/**
 * Quantile p in [0,1] of sorted data (linear interpolation, GSL's definition, R's
 * type 7). NaN when n == 0 or p is outside [0, 1].
 */
double culprit_stats_quantile_sorted(const double *sorted, size_t n, double p);

/** Sorts `n` values ascending in place (GSL's heapsort). The values must not be NaN. */
void culprit_stats_sort(double *x, size_t n);

/**
 * Copies the non-NaN values of `x` into a new ascending array `*out` of `*out_n`
 * values (never NULL on success, even when empty); the caller frees it with free().
 * Returns 0 or CULPRIT_ERROR when out of memory. Thread-safe.
 */
int culprit_stats_sorted_copy(double **out, size_t *out_n, const double *x, size_t n);

/**
 * Tukey's fences (Tukey 1977): mild outliers lie beyond Q1 - 1.5 IQR or Q3 + 1.5 IQR,
 * severe ones beyond 3 IQR. They are counted and reported, never dropped.
 */
typedef struct {
    double q1, q3, iqr;
    double low_severe, low_mild, high_mild, high_severe; /**< the four fences */
    size_t n_low_severe;                                 /**< x < low_severe */
    size_t n_low_mild;                                   /**< low_severe <= x < low_mild */
    size_t n_high_mild;                                  /**< high_mild < x <= high_severe */
    size_t n_high_severe;                                /**< x > high_severe */
} culprit_outliers;

/**
 * Computes the quartiles (culprit_stats_quantile_sorted), the fences and the counts
 * of `x`, ignoring NaN. With no value the quartiles and fences are NaN and every
 * count is 0. Returns 0 or CULPRIT_ERROR when out of memory. Thread-safe.
 */
int culprit_stats_outliers(culprit_outliers *out, const double *x, size_t n);

#ifdef __cplusplus
}
#endif

#endif
