/*
 * culprit stats: streaming summaries (Welford), confidence intervals of the mean,
 * quantiles and Tukey-fence outliers; the comparisons of two or more alternatives
 * that regression detection builds on (Welch, ANOVA, Mann-Whitney U, two-sample
 * Kolmogorov-Smirnov), multiple-testing corrections (Benjamini-Hochberg, Holm) and a
 * bootstrap interval of the ratio of medians. Distribution functions come from GSL;
 * docs/stats.md lists every formula and its source.
 *
 * Conventions of the comparisons: every function fills a caller-provided struct (no
 * allocation is handed to the caller) and returns 0, CULPRIT_EUNDECIDED when the
 * samples are too few for the statistic (the struct then holds NaN p-values and
 * bounds), CULPRIT_EINVALID for a bad argument, or CULPRIT_ERROR when out of memory;
 * the message is in culprit_error_last(). Raw-sample functions ignore NaN values, as
 * culprit_stats_summarize() does. All are thread-safe: no global state (the
 * bootstrap owns its own random number generator).
 */
#ifndef CULPRIT_STATS_H
#define CULPRIT_STATS_H

#include <stddef.h>
#include <stdint.h>
#include "culprit/deprecated.h" /* the old names, until 0.2 */

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Streaming mean and variance (Welford 1962), exact for millions of samples: no
 * sum of squares is ever formed, so there is no catastrophic cancellation.
 * Zero-initialize or call culprit_stats_welford_init().
 */
typedef struct {
    uint64_t n;
    double mean;
    double m2; /**< sum of squared deviations from the running mean */
    double min;
    double max;
} culprit_welford;

void culprit_stats_welford_init(culprit_welford *w);
void culprit_stats_welford_add(culprit_welford *w, double x);
/** Combines two accumulators (Chan, Golub, LeVeque 1979 pairwise update). */
void culprit_stats_welford_merge(culprit_welford *into, const culprit_welford *from);
/** Sample variance (divisor n-1); 0 when n < 2. */
double culprit_stats_welford_variance(const culprit_welford *w);
double culprit_stats_welford_sd(const culprit_welford *w);
/**
 * Half-width of the two-sided confidence interval of the mean at `confidence`
 * (e.g. 0.99): t_{1-(1-c)/2, n-1} * sd / sqrt(n), Student t from GSL.
 * Returns INFINITY when n < 2.
 */
double culprit_stats_welford_ci_halfwidth(const culprit_welford *w, double confidence);

/**
 * The upper one-sided confidence bound of a variance estimated as `var` with `df`
 * degrees of freedom (df * var / var_true ~ chi-square(df)): df * var / q, q the
 * (1 - confidence) quantile of the chi-square distribution (GSL); df may be
 * fractional (a Satterthwaite approximation). INFINITY when df <= 0 or var is not
 * finite, NaN for a confidence outside (0, 1). Thread-safe.
 */
double culprit_stats_var_upper(double var, double df, double confidence);

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
 * The exact Welford state a summary came from (n, mean, m2 = sd^2 (n - 1), min, max):
 * the history keeps summaries, and comparisons need no raw samples. An empty or
 * non-finite summary gives an empty accumulator.
 */
void culprit_stats_welford_from_summary(culprit_welford *w, const culprit_summary *s);

/**
 * Summarizes `n` samples at `confidence`. NaN values are ignored (out->n counts the
 * others). With no value left every
 * field is NaN except n; with n == 1 the interval is [-inf, +inf].
 * Returns 0, CULPRIT_EINVALID when confidence is not in (0, 1), or CULPRIT_ERROR
 * when out of memory. Thread-safe.
 */
int culprit_stats_summarize(culprit_summary *out, const double *x, size_t n, double confidence);

/**
 * culprit_stats_summarize() of only the values in [low, high], e.g. inside Tukey's
 * severe fences: the summary verdicts judge, so that a few extreme samples (a
 * preempted repetition on a shared machine) do not decide them. out->n says how
 * many values were kept. Same errors; thread-safe.
 */
int culprit_stats_summarize_within(culprit_summary *out, const double *x, size_t n, double low,
                                   double high, double confidence);

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

/* --- comparing alternatives --------------------------------------------------------------- */

/** Both samples need at least this many values for Welch's interval to use z, not t. */
#define CULPRIT_STATS_WELCH_Z_MIN_N 30

/** The reference distribution a statistic was judged against. */
typedef enum {
    CULPRIT_STATS_DIST_T = 0, /**< Student t (Welch-Satterthwaite df) */
    CULPRIT_STATS_DIST_Z = 1  /**< standard normal */
} culprit_stats_dist;

/**
 * Welch's confidence interval of the difference of two means, b - a, and the
 * two-sided p-value of H0: mean(a) == mean(b).
 */
typedef struct {
    double diff;             /**< mean(b) - mean(a) */
    double low;              /**< lower bound of the interval of diff */
    double high;             /**< upper bound */
    double se;               /**< sqrt(s_a^2 / n_a + s_b^2 / n_b) */
    double df;               /**< Welch-Satterthwaite degrees of freedom; INFINITY for z */
    double p;                /**< two-sided p-value of equal means */
    double confidence;       /**< the level of the interval, e.g. 0.99 */
    culprit_stats_dist dist; /**< z when both n >= CULPRIT_STATS_WELCH_Z_MIN_N, else t */
} culprit_welch;

/**
 * Compares the means of `a` (e.g. the baseline) and `b` (e.g. the new commit):
 * diff +- q * se with se = sqrt(s_a^2/n_a + s_b^2/n_b) (Vogel 2017 §3.3, after
 * Georges et al. 2007), q the normal quantile when both n >= 30, else the Student t
 * quantile at the Welch-Satterthwaite df. With se == 0 (both samples constant) the
 * interval is [diff, diff], df is NaN under t, and p is 1 when diff == 0, else 0.
 *
 * Returns 0; CULPRIT_EUNDECIDED when a or b has fewer than 2 values (out->diff is
 * set when both have one, every other number is NaN); CULPRIT_EINVALID when
 * confidence is not in (0, 1) or a mean or variance is not finite. Thread-safe.
 */
int culprit_stats_welch(culprit_welch *out, const culprit_welford *a, const culprit_welford *b,
                        double confidence);

/**
 * culprit_stats_welch() with a third variance component: se^2 = s_a^2/n_a + s_b^2/n_b
 * + extra_var, where extra_var, estimated with extra_df degrees of freedom, is the
 * between-run variance of the difference (Kalibera & Jones 2013, "Rigorous
 * benchmarking in reasonable time": the mean of one run carries a random offset of
 * that run, invisible to the spread within it). The Student t is used whenever
 * extra_var > 0, with Welch-Satterthwaite degrees of freedom over the three
 * components. extra_var == 0 is culprit_stats_welch(). CULPRIT_EINVALID when
 * extra_var is negative or not finite, or extra_df <= 0 with extra_var > 0.
 */
int culprit_stats_welch_between(culprit_welch *out, const culprit_welford *a,
                                const culprit_welford *b, double extra_var, double extra_df,
                                double confidence);

/** What a relative change and its confidence interval say against a threshold. */
typedef enum {
    CULPRIT_STATS_CHANGE_UNDECIDED = 0, /**< the interval holds 0 and reaches past the threshold */
    CULPRIT_STATS_CHANGE_SLOWER,        /**< significant, and beyond +threshold */
    CULPRIT_STATS_CHANGE_FASTER,        /**< significant, and beyond -threshold */
    CULPRIT_STATS_CHANGE_UNCHANGED /**< inside the threshold, or significant but not beyond it */
} culprit_stats_change;

/**
 * The rule every judge of a slowdown uses (Vogel 2017 §3.3 and a practical
 * threshold): 1 when the change is significant (`change_low`, the interval's
 * lower bound, above 0) AND its estimate `change` beyond `threshold`; a
 * significant change inside the threshold does not count. Changes are relative
 * (0.02: 2% slower). 0 for NaN. Thread-safe.
 */
int culprit_stats_slower_beyond(double change_low, double change, double threshold);

/** The mirror rule for speed-ups: `change_high` below 0 and `change` below -threshold. */
int culprit_stats_faster_beyond(double change_high, double change, double threshold);

/**
 * Judges a relative change with its interval [change_low, change_high]: SLOWER or
 * FASTER by the rules above; UNCHANGED when the whole interval is inside
 * (-threshold, threshold), or when the change is significant but its estimate is
 * inside the threshold; UNDECIDED otherwise (and for NaN). Thread-safe.
 */
culprit_stats_change culprit_stats_judge_change(double change, double change_low,
                                                double change_high, double threshold);

/** One-way analysis of variance of k groups. */
typedef struct {
    double f;   /**< between-group mean square / within-group mean square */
    double df1; /**< k - 1 */
    double df2; /**< N - k */
    double p;   /**< P(F(df1, df2) >= f) */
} culprit_anova;

/**
 * One-way ANOVA F-test of H0: all `k` groups have the same mean (Heger et al. 2013
 * §3 use it at 99% to compare two revisions). `groups` is an array of k
 * accumulators. When every group is constant: f is INFINITY and p 0 if the means
 * differ, f is NaN and p 1 if they are all equal.
 *
 * Returns 0; CULPRIT_EINVALID when k < 2; CULPRIT_EUNDECIDED when a group is empty
 * or N <= k (no within-group degrees of freedom), with f and p NaN; CULPRIT_EINVALID
 * too when a mean or variance is not finite. Thread-safe.
 */
int culprit_stats_anova(culprit_anova *out, const culprit_welford *groups, size_t k);

/** How a p-value is computed. */
typedef enum {
    CULPRIT_STATS_P_AUTO = 0,  /**< exact when cheap and valid, else asymptotic */
    CULPRIT_STATS_P_EXACT,     /**< the exact permutation distribution */
    CULPRIT_STATS_P_ASYMPTOTIC /**< the large-sample approximation */
} culprit_stats_pmethod;

/** Mann-Whitney U with AUTO: exact when there are no ties and both n <= this. */
#define CULPRIT_STATS_MWU_EXACT_MAX_N 50

/** Mann-Whitney U test (Wilcoxon rank-sum), two-sided. */
typedef struct {
    double u;   /**< U of b: #(b_j > a_i) + #(b_j == a_i) / 2 over all pairs */
    double z;   /**< (U - mn/2) moved 1/2 towards 0, over its tie-corrected sd: > 0 when b tends
                   to be larger; NaN when p is exact */
    double p;   /**< two-sided p-value */
    size_t n_a; /**< values of a used (NaN dropped) */
    size_t n_b; /**< values of b used */
    int ties;   /**< whether the pooled sample has ties */
    culprit_stats_pmethod method; /**< EXACT or ASYMPTOTIC: what computed p */
} culprit_mannwhitney;

/**
 * Mann-Whitney U test of `b` against `a`, two-sided: p = min(1, 2 P(U >= max(U_a,
 * U_b))). Exact p from the recursive count of the U distribution (Mann & Whitney
 * 1947) when `method` allows it and there are no ties; otherwise the normal
 * approximation with the tie correction of the variance and a 0.5 continuity
 * correction. AUTO is exact without ties when both n <= CULPRIT_STATS_MWU_EXACT_MAX_N.
 * When every value is tied p is 1.
 *
 * Returns 0; CULPRIT_EUNDECIDED when a or b has no value (p NaN); CULPRIT_EINVALID
 * when EXACT is asked with ties or with n_a * n_b > 10^4 (the table and the time
 * grow as (n_a n_b)^2); CULPRIT_ERROR when out of memory. Thread-safe.
 */
int culprit_stats_mannwhitney(culprit_mannwhitney *out, const double *a, size_t n_a,
                              const double *b, size_t n_b, culprit_stats_pmethod method);

/**
 * The sign test's interval of the median of x (NaN dropped): *median is the sample
 * median, *low and *high the order statistics x_(k+1) and x_(n-k), with k the
 * largest count for which P(Binomial(n, 1/2) <= k) <= `tail`; each misses the
 * median with probability at most `tail` (one-sided) for any distribution with a
 * unique median. With too few values for the tail, *low is -INFINITY and *high
 * INFINITY; with none, all three are NaN.
 *
 * Returns 0, or CULPRIT_ERROR when out of memory. Thread-safe.
 */
int culprit_stats_sign_interval(double *median, double *low, double *high, const double *x,
                                size_t n, double tail);

/** Kolmogorov-Smirnov with AUTO: exact when n_a * n_b <= this. */
#define CULPRIT_STATS_KS_EXACT_MAX_NN 1000000

/** Two-sample Kolmogorov-Smirnov test, two-sided. */
typedef struct {
    double d;   /**< sup |F_a(x) - F_b(x)| of the empirical distribution functions */
    double p;   /**< two-sided p-value P(D >= d) */
    size_t n_a; /**< values of a used (NaN dropped) */
    size_t n_b; /**< values of b used */
    culprit_stats_pmethod method; /**< EXACT or ASYMPTOTIC: what computed p */
} culprit_ks;

/**
 * Two-sample Kolmogorov-Smirnov test of H0: a and b come from the same continuous
 * distribution. Exact p by counting lattice paths (Hodges 1958, Kim & Jennrich
 * 1973), conditional on the ties when there are any (Schröer & Trenkler 1995);
 * asymptotic p from the Kolmogorov distribution with Stephens' effective-n
 * correction (Numerical Recipes §14.3). AUTO is exact when n_a * n_b <=
 * CULPRIT_STATS_KS_EXACT_MAX_NN, O(n_a n_b) time and O(n_a + n_b) memory.
 *
 * Returns 0; CULPRIT_EUNDECIDED when a or b has no value; CULPRIT_EINVALID when
 * EXACT is asked with n_a * n_b > 10^9 (time); CULPRIT_ERROR when out of memory.
 * Thread-safe.
 */
int culprit_stats_ks(culprit_ks *out, const double *a, size_t n_a, const double *b, size_t n_b,
                     culprit_stats_pmethod method);

/* --- correlation, least squares, clustering (Shang et al. 2015) ---------------------- */

/**
 * Pearson's product-moment correlation of `x` and `y` (`n` pairs), computed from
 * centred sums (two passes, no cancellation). NaN when n < 2 or either series is
 * constant (the correlation is undefined). Thread-safe.
 */
double culprit_stats_pearson(const double *x, const double *y, size_t n);

/**
 * The Pearson distance of Shang et al. 2015, eq. 1: 1 - rho for rho >= 0 and |rho|
 * for rho < 0, in [0, 1]. Strongly correlated counters are close, uncorrelated ones
 * far (1), and a strong inverse relation counts as far too. NaN for a NaN rho.
 */
double culprit_stats_pearson_distance(double rho);

/**
 * The k x k matrix (row-major, caller-allocated `out`) of Pearson distances between
 * `k` series of `n` values each (`cols[c][i]`). A constant series has distance 1
 * (no relation) to every other, 0 to itself. Thread-safe.
 */
void culprit_stats_pearson_distances(double *out, const double *const *cols, size_t k, size_t n);

/** An ordinary least-squares fit y = intercept + sum_j coef[j] x_j. */
typedef struct {
    size_t p;         /**< regressors (the intercept not counted) */
    size_t n;         /**< observations fitted */
    double intercept; /**< b_0 */
    double *coef;     /**< p coefficients (owned); 0 for a regressor constant in the fit */
    double r2;        /**< coefficient of determination 1 - RSS / TSS on the fitted data; 1
                           when y is constant and fitted exactly */
} culprit_ols;

/**
 * Least squares of y on the `p` columns `x[j][i]` plus an intercept, over `n`
 * observations: the columns are centred and scaled by their standard deviation
 * (counters differ by orders of magnitude), solved by GSL's SVD least squares
 * (gsl_multifit_linear, which tolerates collinear columns with the minimum-norm
 * solution), and transformed back. A regressor constant over the fit gets
 * coefficient 0 (the intercept absorbs it). Dispose with culprit_stats_ols_dispose().
 *
 * Returns 0; CULPRIT_EUNDECIDED when n < p + 2 (no residual degree of freedom:
 * R^2 would be 1 whatever the data); CULPRIT_EINVALID for a non-finite value;
 * CULPRIT_ERROR when out of memory. Thread-safe.
 */
int culprit_stats_ols(culprit_ols *out, const double *const *x, size_t p, const double *y,
                      size_t n);
/** The prediction of observation `i` of the columns `x` (same order as the fit). */
double culprit_stats_ols_predict(const culprit_ols *fit, const double *const *x, size_t i);
void culprit_stats_ols_dispose(culprit_ols *fit);

/**
 * A dendrogram of agglomerative clustering, in the layout of scipy's linkage matrix:
 * items are 0..n-1, merge i joins clusters a[i] and b[i] (a < b) into cluster n + i
 * at height[i], the distance between them; heights never decrease under average
 * linkage.
 */
typedef struct {
    size_t n;  /**< items clustered */
    size_t *a; /**< n - 1 merges */
    size_t *b;
    double *height;
    size_t *size; /**< items in the merged cluster */
} culprit_dendrogram;

/**
 * Average-linkage (UPGMA, Sokal & Michener 1958) hierarchical clustering of `n`
 * items from their n x n row-major distance matrix: start with one cluster per item,
 * merge the closest pair, and set the distance of the merged cluster to any other
 * as the mean distance over all pairs of their items (Shang et al. 2015 §4.2.2).
 * Ties merge the pair with the smallest ids first. n >= 1. Dispose with
 * culprit_stats_dendrogram_dispose(). Returns 0, CULPRIT_EINVALID (n == 0, a negative or
 * NaN distance) or CULPRIT_ERROR (out of memory). Thread-safe.
 */
int culprit_stats_cluster_average(culprit_dendrogram *out, const double *dist, size_t n);
void culprit_stats_dendrogram_dispose(culprit_dendrogram *d);

/**
 * Cuts the dendrogram into `k` clusters (1 <= k <= n) by undoing its last k - 1
 * merges: labels[i] in 0..k-1, numbered in order of the first item of each cluster
 * (item 0 is in cluster 0). CULPRIT_EINVALID for k out of range.
 */
int culprit_stats_cluster_cut(size_t *labels, const culprit_dendrogram *d, size_t k);

/**
 * The Calinski-Harabasz index (Calinski & Harabasz 1974) of a partition of `n`
 * items into `k` clusters, from their distance matrix: CH = (B / (k - 1)) /
 * (W / (n - k)), with W = sum over clusters c of (1 / 2|c|) sum_{i,j in c} d_ij^2
 * and B = T - W, T = (1 / 2n) sum_{i,j} d_ij^2 -- the within and between sums of
 * squares written with distances, equal to the centroid form for Euclidean ones.
 * NaN when k < 2 or k >= n; INFINITY when W == 0 < B.
 */
double culprit_stats_calinski_harabasz(const double *dist, size_t n, const size_t *labels,
                                       size_t k);

/**
 * Cuts the dendrogram where the Calinski-Harabasz index is largest over k = 2..n-1
 * (the stopping rule Shang et al. 2015 §4.2.3 use; the smallest such k on ties).
 * With n <= 2 the index is undefined and every item is its own cluster; when every
 * index is undefined (all distances 0: nothing separates the items) there is one
 * cluster. Sets labels (n entries) and *k. Returns 0 or CULPRIT_ERROR when out of
 * memory.
 */
int culprit_stats_cluster_ch_cut(size_t *labels, size_t *k, const culprit_dendrogram *d,
                                 const double *dist);

/* --- steady state ------------------------------------------------------------------- */

/**
 * The truncation point of the Marginal Standard Error Rule (MSER, White 1997; MSER-5
 * of White, Cobb & Spratt 2000 applies it to means of batches of 5): the number d of
 * leading observations to discard as warm-up, the d in [0, n/2] minimizing
 * sum_{i >= d} (x_i - mean_d)^2 / (n - d)^2, mean_d the mean of x_d..x_{n-1} (the
 * squared standard error of the mean of what is kept, up to a constant). The
 * smallest d on ties; 0 when n < 2. O(n): the suffix sums are Welford updates from
 * the end. Thread-safe.
 */
size_t culprit_stats_mser(const double *x, size_t n);

/* --- multiple testing ------------------------------------------------------------------- */

/**
 * Benjamini-Hochberg adjusted p-values (q-values) of `n` p-values in any order:
 * q_(i) = min_{j >= i} min(1, m p_(j) / j) over the ascending p_(j), written to
 * `out` in the input order (out may be p itself). Rejecting q <= alpha controls
 * the false discovery rate at alpha. NaN p-values stay NaN and are not counted in
 * m, as R's p.adjust() does.
 *
 * Returns 0, CULPRIT_EINVALID when a p-value is outside [0, 1], or CULPRIT_ERROR
 * when out of memory (out is then untouched). Thread-safe.
 */
int culprit_stats_adjust_bh(double *out, const double *p, size_t n);

/**
 * Holm's step-down adjusted p-values: a_(i) = max_{j <= i} min(1, (m - j + 1) p_(j)),
 * in the input order; controls the family-wise error rate. NaN handling, aliasing
 * and errors as culprit_stats_adjust_bh(). Thread-safe.
 */
int culprit_stats_adjust_holm(double *out, const double *p, size_t n);

/* --- bootstrap -------------------------------------------------------------------------- */

/** A bootstrap confidence interval of median(b) / median(a). */
typedef struct {
    double ratio;      /**< median(b) / median(a) of the samples themselves */
    double low;        /**< lower percentile bound */
    double high;       /**< upper percentile bound */
    double confidence; /**< e.g. 0.99 */
    size_t resamples;  /**< bootstrap resamples drawn */
} culprit_ratio_ci;

/**
 * Percentile bootstrap interval (Efron & Tibshirani 1993, ch. 13) of the ratio of
 * medians median(b) / median(a): `resamples` times, resample a and b with
 * replacement and take the ratio of their medians; the bounds are the (1-c)/2 and
 * (1+c)/2 quantiles (culprit_stats_quantile_sorted) of those ratios. Deterministic
 * for a `seed`: GSL's gsl_rng_mt19937 seeded with gsl_rng_set(seed) (GSL maps seed
 * 0 to its default 4357), drawing n_a indices of a, then n_b of b, per resample.
 * The values of a must be positive (times): the ratio is undefined otherwise.
 *
 * Returns 0; CULPRIT_EUNDECIDED when a or b has fewer than 2 values (out->ratio is
 * set when both have one, the bounds are NaN); CULPRIT_EINVALID when confidence is
 * not in (0, 1), resamples is 0 or a value of a is <= 0 or infinite; CULPRIT_ERROR
 * when out of memory. Thread-safe.
 */
int culprit_stats_bootstrap_median_ratio(culprit_ratio_ci *out, const double *a, size_t n_a,
                                         const double *b, size_t n_b, double confidence,
                                         size_t resamples, unsigned long seed);

#ifdef __cplusplus
}
#endif

#endif
