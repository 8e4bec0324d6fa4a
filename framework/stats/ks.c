/*
 * The two-sample Kolmogorov-Smirnov test: the largest vertical distance D between
 * the empirical distribution functions of two samples. Unlike Welch and
 * Mann-Whitney it sees any change of shape -- a new slow mode in a bimodal timing,
 * a longer tail -- not only a shift. GSL has no KS distribution, so both the exact
 * and the asymptotic p-value are implemented here.
 *
 * The statistic is kept as an integer: with i values of a and j values of b at or
 * below x, |F_a(x) - F_b(x)| = |i n - j m| / (m n), so D = K / (m n) with
 * K = max |i n - j m| taken at the end of each tie group of the pooled sample. The
 * exact p-value below compares lattice points against the integer K, so no
 * floating-point tolerance decides whether a path touches the boundary.
 *
 * Exact p (Hodges 1958; Kim & Jennrich 1973, the algorithm behind R's psmirnov):
 * under H0 the pooled order is a uniformly random lattice path from (0, 0) to
 * (m, n), a step right for a value of a and up for a value of b, and D >= d iff
 * the path touches a point with |i n - j m| >= K. Let u(i, j) be the probability
 * that a uniformly random path to (i, j) has touched such a point. A random path
 * to (i, j) arrives from (i - 1, j) with probability i / (i + j), so
 *     u(i, j) = 1                                        if (i, j) is on/over the boundary
 *     u(i, j) = i/(i+j) u(i-1, j) + j/(i+j) u(i, j-1)    otherwise,
 * and p = P(D >= d) = u(m, n). Every u is a convex combination of numbers in [0, 1]:
 * nothing overflows (path counts would: C(2000, 1000) ~ 1e600), nothing cancels,
 * and the upper tail is computed directly instead of as 1 - P(D < d), so a tiny p
 * keeps its precision. O(m n) time, O(n) memory.
 *
 * Ties: the test is then conditional on the tie pattern (Schröer & Trenkler 1995,
 * as R >= 4.3 does with psmirnov(obs =)): the empirical distribution functions only
 * jump at the end of a tie group, so the boundary is only checked at lattice points
 * (i, j) where i + j ends a tie group of the pooled sample. Without ties every point
 * is checked and this is the classic distribution.
 *
 * Asymptotic p (Numerical Recipes, Press et al., 2nd ed. 1992 §14.3, 3rd ed. 2007
 * §14.3.3 and §6.14): Q_KS(lambda) with lambda = (sqrt(Ne) + 0.12 + 0.11 / sqrt(Ne)) D
 * and Ne = m n / (m + n), Stephens' (1970) correction of the limiting Kolmogorov
 * distribution for finite samples, and
 *     Q_KS(z) = 2 sum_{j>=1} (-1)^(j-1) exp(-2 j^2 z^2)                   (z >= 1.18)
 *     Q_KS(z) = 1 - sqrt(2 pi) / z sum_{j>=1} exp(-(2j-1)^2 pi^2 / (8 z^2)) (z < 1.18)
 * the two series of NR 3rd ed. §6.14 (KSdist), each converging in a few terms on
 * its side of 1.18. Marsaglia, Tsang & Wang (2003) was not chosen: it computes the
 * one-sample distribution for a given n, and applying it to two samples with
 * n = round(Ne), as scipy does, is a heuristic of its own and costs a matrix power.
 * Stephens' correction is what NR recommends for two samples, and AUTO only uses the
 * asymptotic p beyond n_a n_b = 10^6, where the correction hardly matters.
 *
 * References:
 *   J. L. Hodges, "The significance probability of the Smirnov two-sample test",
 *   Arkiv för Matematik 3(5), 1958.
 *   P. J. Kim, R. I. Jennrich, "Tables of the exact sampling distribution of the
 *   two-sample Kolmogorov-Smirnov criterion", Selected Tables in Math. Stat. 1, 1973.
 *   G. Schröer, D. Trenkler, "Exact and randomization distributions of
 *   Kolmogorov-Smirnov tests two or three samples", CSDA 20(2), 1995.
 *   M. A. Stephens, "Use of the Kolmogorov-Smirnov, Cramér-von Mises and related
 *   statistics without extensive tables", JRSS B 32(1), 1970.
 *   W. H. Press et al., "Numerical Recipes", 2nd ed. 1992 §14.3, 3rd ed. 2007 §6.14.
 */
#include "culprit/core.h"
#include "culprit/stats.h"
#include "stats_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* EXACT on request is refused above this n_a * n_b: ~1 s of arithmetic. */
#define KS_EXACT_LIMIT_NN 1e9

/* Q_KS(z) = P(K > z) for the limiting Kolmogorov distribution (NR 3rd ed. §6.14). */
static double kolmogorov_q(double z)
{
    double sum = 0.0, term;
    int j;

    if (!(z > 0.0))
        return 1.0;
    if (z < 1.18) {
        /* P_KS by its second series; below z = 0.2 every term is < 1e-26. */
        double y = exp(-M_PI * M_PI / (8.0 * z * z));
        if (z < 0.2)
            return 1.0;
        for (j = 1; j <= 10; j++) {
            term = pow(y, (double)((2 * j - 1) * (2 * j - 1)));
            sum += term;
            if (term < 1e-17 * sum)
                break;
        }
        return 1.0 - sqrt(2.0 * M_PI) / z * sum;
    }
    /* The alternating series, terms decreasing: for z >= 1.18 the first term is
     * <= 0.13 and the ratio of terms below 1e-3, so a few terms give full precision. */
    for (j = 1; j <= 100; j++) {
        term = exp(-2.0 * (double)j * (double)j * z * z);
        sum += (j % 2 ? term : -term);
        if (term <= 1e-17 * sum)
            break;
    }
    return fmin(1.0, fmax(0.0, 2.0 * sum));
}

/* Whether lattice point (i, j) is on or beyond the boundary |i n - j m| >= k. */
static int ks_beyond(uint64_t i, uint64_t j, uint64_t m, uint64_t n, uint64_t k)
{
    uint64_t in = i * n, jm = j * m;
    return (in > jm ? in - jm : jm - in) >= k;
}

/*
 * P(D >= K / (m n)) by the lattice-path recursion described at the top. `check[k]`
 * says whether pooled position k (1..m+n) ends a tie group; u has n + 1 entries.
 */
static double ks_exact_sf(uint64_t m, uint64_t n, uint64_t k, const unsigned char *check, double *u)
{
    uint64_t i, j;

    u[0] = 0.0; /* (0, 0): an empty path has D = 0 < K */
    for (j = 1; j <= n; j++)
        u[j] = check[j] && ks_beyond(0, j, m, n, k) ? 1.0 : u[j - 1];
    for (i = 1; i <= m; i++) {
        if (check[i] && ks_beyond(i, 0, m, n, k))
            u[0] = 1.0;
        for (j = 1; j <= n; j++) {
            double w = (double)i / (double)(i + j);
            if (check[i + j] && ks_beyond(i, j, m, n, k))
                u[j] = 1.0;
            else
                u[j] = w * u[j] + (1.0 - w) * u[j - 1];
        }
    }
    /* Convex combinations stay in [0, 1] up to rounding; clamp that away. */
    return fmin(1.0, fmax(0.0, u[n]));
}

int culprit_stats_ks(culprit_ks *out, const double *a, size_t n_a, const double *b, size_t n_b,
                     culprit_stats_pmethod method)
{
    double *sa = NULL, *sb = NULL, *u = NULL, en, lambda;
    unsigned char *check = NULL;
    uint64_t m, n, kmax = 0;
    size_t i = 0, j = 0;
    int error, exact;

    out->d = out->p = NAN;
    out->n_a = out->n_b = 0;
    out->method = CULPRIT_STATS_P_ASYMPTOTIC;
    if ((error = culprit_stats__sorted_pair(&sa, &out->n_a, &sb, &out->n_b, a, n_a, b, n_b, method,
                                            "Kolmogorov-Smirnov")) < 0)
        goto cleanup;
    /* i n and j m must fit in 64 bits. */
    if (out->n_a > UINT32_MAX || out->n_b > UINT32_MAX) {
        error = culprit_error_set(CULPRIT_EINVALID, "too many samples for Kolmogorov-Smirnov");
        goto cleanup;
    }
    m = out->n_a;
    n = out->n_b;
    exact =
        method == CULPRIT_STATS_P_EXACT ||
        (method == CULPRIT_STATS_P_AUTO && (double)m * (double)n <= CULPRIT_STATS_KS_EXACT_MAX_NN);
    if (method == CULPRIT_STATS_P_EXACT && (double)m * (double)n > KS_EXACT_LIMIT_NN) {
        error = culprit_error_set(CULPRIT_EINVALID,
                                  "exact Kolmogorov-Smirnov p is limited to n_a n_b <= 1e9 (have "
                                  "%.0f)",
                                  (double)m * (double)n);
        goto cleanup;
    }
    if (exact && !(check = calloc(m + n + 1, 1))) {
        error = culprit_error_set(CULPRIT_ERROR, "out of memory (Kolmogorov-Smirnov)");
        goto cleanup;
    }

    /* Merge tie group by tie group; F_a and F_b only jump at a group's end. */
    while (i < m || j < n) {
        double x = j >= n || (i < m && sa[i] <= sb[j]) ? sa[i] : sb[j];
        uint64_t in, jm;
        while (i < m && sa[i] == x)
            i++;
        while (j < n && sb[j] == x)
            j++;
        in = (uint64_t)i * n;
        jm = (uint64_t)j * m;
        if ((in > jm ? in - jm : jm - in) > kmax)
            kmax = in > jm ? in - jm : jm - in;
        if (check)
            check[i + j] = 1;
    }
    out->d = (double)kmax / ((double)m * (double)n);

    if (kmax == 0) {
        /* Identical empirical distributions: no evidence at all. */
        out->method = exact ? CULPRIT_STATS_P_EXACT : CULPRIT_STATS_P_ASYMPTOTIC;
        out->p = 1.0;
        goto cleanup;
    }
    if (exact) {
        if (!(u = malloc((n + 1) * sizeof(double)))) {
            error = culprit_error_set(CULPRIT_ERROR, "out of memory (Kolmogorov-Smirnov)");
            goto cleanup;
        }
        out->method = CULPRIT_STATS_P_EXACT;
        out->p = ks_exact_sf(m, n, kmax, check, u);
        goto cleanup;
    }
    /* NR §14.3: effective n and Stephens' finite-sample correction of lambda. */
    en = sqrt((double)m * (double)n / ((double)m + (double)n));
    lambda = (en + 0.12 + 0.11 / en) * out->d;
    out->p = kolmogorov_q(lambda);

cleanup:
    free(sa);
    free(sb);
    free(u);
    free(check);
    return error;
}
