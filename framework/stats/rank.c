/*
 * The Mann-Whitney U test (Wilcoxon rank-sum): does one sample tend to have larger
 * values than the other? It needs no normality, which timing data rarely has (a
 * long right tail from page faults, interrupts, frequency changes), and a single
 * wild outlier moves it by at most one rank.
 *
 * U of b against a counts the pairs (a_i, b_j) with b_j > a_i, a tie counting 1/2;
 * it equals R_b - n_b (n_b + 1) / 2 with R_b the rank sum of b in the pooled sample
 * (mid-ranks for ties). The two-sided p-value is min(1, 2 P(U >= max(U_a, U_b))),
 * the definition scipy.stats.mannwhitneyu uses, so the numbers can be checked there.
 *
 * Exact p: without ties, every arrangement of the pooled sample is equally likely
 * under H0, and the distribution of U follows Mann & Whitney's (1947) recursion on
 * the largest value: it comes from the first sample with probability m / (m + n)
 * and then beats all n values of the second, so
 *     P_{m,n}(U = u) = m/(m+n) P_{m-1,n}(U = u - n) + n/(m+n) P_{m,n-1}(U = u).
 * Recursing on probabilities instead of counts (the counts are binomial
 * coefficients, C(100, 50) ~ 1e29) keeps every number in [0, 1] and every step a
 * sum of non-negative terms: no overflow, no cancellation, and small tail
 * probabilities keep their relative precision.
 *
 * Asymptotic p: the normal approximation with the tie-corrected variance
 *     var U = m n / 12 ((N + 1) - sum(t^3 - t) / (N (N - 1)))
 * (Lehmann, Nonparametrics, 1975, eq. 1.47; t the size of each tie group) and a
 * continuity correction of 1/2 towards the mean.
 *
 * Choice (CULPRIT_STATS_P_AUTO): exact when there are no ties and both samples have
 * at most CULPRIT_STATS_MWU_EXACT_MAX_N = 50 values, as R's wilcox.test() does; the
 * table then has at most 51 x 2501 entries and about 1.6 million steps.
 *
 * References:
 *   H. B. Mann, D. R. Whitney, "On a test of whether one of two random variables is
 *   stochastically larger than the other", Ann. Math. Statist. 18(1), 1947.
 *   E. L. Lehmann, "Nonparametrics: Statistical Methods Based on Ranks", 1975, §1.4.
 */
#include "culprit/core.h"
#include "culprit/stats.h"
#include "stats_internal.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>

/* EXACT on request is refused above this n_a * n_b: the table has
 * (min(n_a, n_b) + 1) (n_a n_b + 1) entries and the recursion ~ (n_a n_b)^2 / 4
 * steps: 8 MB and 2.5e7 steps at 100 x 100. */
#define MWU_EXACT_LIMIT_NN 10000.0

/*
 * P(U >= u) for samples of sizes m and n without ties, by the recursion above.
 * tab[j * stride + v] holds P_{i,j}(U = v) for the current i; rows of j are
 * updated in place, v descending, so P_{i-1,j}(v - j) is still unread.
 */
static int mwu_exact_sf(double *out, size_t m, size_t n, double u)
{
    size_t small = m < n ? m : n, large = m < n ? n : m;
    size_t stride = small * large + 1, i, j, v;
    double *tab, sf = 0.0;

    tab = calloc((small + 1) * stride, sizeof(double));
    if (!tab)
        return culprit_error_set(CULPRIT_ERROR, "out of memory (exact Mann-Whitney table)");
    /* The distribution is the same with the roles of the samples swapped, so the
     * outer loop runs over the larger one and the table stays small. */
    for (j = 0; j <= small; j++)
        tab[j * stride] = 1.0; /* P_{0,j}(U = 0) = 1 */
    for (i = 1; i <= large; i++) {
        for (j = 1; j <= small; j++) {
            double *cur = tab + j * stride, *left = tab + (j - 1) * stride;
            double wi = (double)i / (double)(i + j), wj = (double)j / (double)(i + j);
            for (v = i * j + 1; v-- > 0;)
                cur[v] = wi * (v >= j ? cur[v - j] : 0.0) + wj * left[v];
        }
    }
    /* Sum the tail from its small end up, for its relative precision. */
    for (v = small * large + 1; v-- > 0 && (double)v >= u;)
        sf += tab[small * stride + v];
    free(tab);
    *out = sf;
    return 0;
}

int culprit_stats_mannwhitney(culprit_mannwhitney *out, const double *a, size_t n_a,
                              const double *b, size_t n_b, culprit_stats_pmethod method)
{
    double *sa = NULL, *sb = NULL, m, n, nn, ub = 0.0, umax, mu, tie_sum = 0.0, var, sf = 0.0;
    size_t i = 0, j = 0;
    int error;

    out->u = out->z = out->p = NAN;
    out->n_a = out->n_b = 0;
    out->ties = 0;
    out->method = CULPRIT_STATS_P_ASYMPTOTIC;
    if ((error = culprit_stats__sorted_pair(&sa, &out->n_a, &sb, &out->n_b, a, n_a, b, n_b, method,
                                            "Mann-Whitney")) < 0)
        goto cleanup;

    /* One merge over the sorted samples, tie group by tie group: each b in a group
     * beats every a before the group and ties with the group's a values. */
    while (i < out->n_a || j < out->n_b) {
        double x = j >= out->n_b || (i < out->n_a && sa[i] <= sb[j]) ? sa[i] : sb[j];
        size_t ca = 0, cb = 0;
        double t;
        while (i + ca < out->n_a && sa[i + ca] == x)
            ca++;
        while (j + cb < out->n_b && sb[j + cb] == x)
            cb++;
        ub += (double)cb * ((double)i + 0.5 * (double)ca);
        t = (double)(ca + cb);
        tie_sum += t * t * t - t;
        i += ca;
        j += cb;
    }
    out->ties = tie_sum > 0.0;
    out->u = ub;

    m = (double)out->n_a;
    n = (double)out->n_b;
    nn = m + n;
    mu = m * n / 2.0;
    umax = ub > m * n - ub ? ub : m * n - ub;

    if (method == CULPRIT_STATS_P_EXACT && (out->ties || m * n > MWU_EXACT_LIMIT_NN)) {
        error = culprit_error_set(CULPRIT_EINVALID,
                                  out->ties ? "exact Mann-Whitney p needs samples without ties"
                                            : "exact Mann-Whitney p is limited to n_a n_b <= "
                                              "10000 (have %.0f)",
                                  m * n);
        goto cleanup;
    }
    if (method == CULPRIT_STATS_P_EXACT ||
        (method == CULPRIT_STATS_P_AUTO && !out->ties &&
         out->n_a <= CULPRIT_STATS_MWU_EXACT_MAX_N && out->n_b <= CULPRIT_STATS_MWU_EXACT_MAX_N)) {
        if ((error = mwu_exact_sf(&sf, out->n_a, out->n_b, umax)) < 0)
            goto cleanup;
        out->method = CULPRIT_STATS_P_EXACT;
        out->p = fmin(1.0, 2.0 * sf);
        goto cleanup;
    }

    /* Lehmann 1975 eq. 1.47: the tie-corrected variance of U. */
    var = m * n / 12.0 * ((nn + 1.0) - tie_sum / (nn * (nn - 1.0)));
    if (!(var > 0.0)) {
        /* Every value tied (or a single value in all): nothing to rank. */
        out->z = 0.0;
        out->p = 1.0;
        goto cleanup;
    }
    /* Continuity correction: move |U - mu| half a step towards 0. */
    out->z = fmax(0.0, fabs(ub - mu) - 0.5) / sqrt(var);
    if (ub < mu)
        out->z = -out->z;
    out->p = fmin(1.0, 2.0 * gsl_cdf_ugaussian_Q(fabs(out->z)));

cleanup:
    free(sa);
    free(sb);
    return error;
}
