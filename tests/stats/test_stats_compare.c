/*
 * Tests of the comparisons in framework/stats: Welch's interval of the difference
 * of means, ANOVA, Mann-Whitney U, two-sample Kolmogorov-Smirnov, Benjamini-Hochberg
 * and Holm, and the bootstrap interval of the ratio of medians.
 *
 * Every reference number was computed independently of GSL and of this code with
 * SciPy 1.10.1 / NumPy 1.24.2 (Debian 12 python3-scipy) by
 * tests/stats/reference_values.py; the comment next to each number names the call
 * that printed it. The data sets are the literal arrays of that script.
 */
#include "support/test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "culprit/core.h"
#include "culprit/stats.h"
#include "support/near.h"

/* Relative comparison, for p-values that span many orders of magnitude. */
#define assert_rel(a, b, rel) assert_near((a), (b), fabs(b) * (rel))

#define N_OF(x) (sizeof(x) / sizeof((x)[0]))

/* --- data (reference_values.py: A, B, LA, LB, G3, TA, TB, HA, HB) ---------------------- */

static const double A[] = {98.944, 97.411,  100.748, 91.051, 101.422, 98.392,
                           96.37,  100.493, 90.243,  99.208, 96.344,  102.048};
static const double B[] = {109.54,  98.577, 98.535,  94.24,  99.698,  108.555, 112.858, 107.83,
                           106.278, 99.06,  107.566, 99.474, 107.917, 104.379, 112.848};
static const double LA[] = {
    51.0227, 57.3347, 48.0,    53.9263, 51.1386, 59.2448, 41.0922, 54.5681, 45.135,  45.8401,
    49.9083, 42.99,   44.3701, 47.5351, 48.4133, 41.3327, 45.8172, 49.2757, 49.3447, 46.7957,
    49.9796, 47.4979, 56.2256, 46.1137, 50.2964, 47.611,  54.4607, 45.3708, 54.5809, 44.3669,
    43.6116, 47.3315, 50.4628, 42.945,  47.5415, 49.9802, 49.8225, 54.5752, 54.0792, 51.6922,
    54.7823, 54.9265, 44.7507, 62.2121, 49.756,  47.0603, 53.0926, 47.6158, 53.2362, 44.3398,
    53.7616, 44.0637, 51.9144, 48.9452, 47.5544, 50.7713, 47.2046, 46.2855, 52.014,  60.6515};
static const double LB[] = {
    47.0621, 58.3676, 57.9395, 46.4899, 52.9987, 54.7977, 47.4729, 57.926,  56.7715, 61.6262,
    54.0672, 57.1596, 62.3308, 53.0663, 49.4628, 44.977,  53.5111, 45.8109, 58.0331, 52.7709,
    56.3932, 52.853,  58.855,  49.6803, 52.261,  59.8149, 45.8517, 53.0108, 57.3269, 46.7536,
    48.4858, 45.8902, 58.5171, 51.0245, 50.3868, 45.15,   46.7524, 57.0482, 51.0241, 49.9566,
    56.2853, 47.4965, 61.1043, 50.1201, 49.3995, 50.6393, 52.1945, 55.7769, 48.4901, 47.8869,
    52.1988, 53.7927, 56.7678, 49.5791, 57.2796, 46.958,  59.7292, 46.6203, 51.5534, 53.0255,
    57.5446, 60.1752, 52.2566, 62.8536, 47.9084, 53.729,  50.7826, 55.0635, 47.2786, 46.5935};
static const double G3[] = {110.699, 109.384, 106.367, 98.787, 106.552,
                            105.683, 110.401, 104.397, 93.313, 101.702};
static const double TA[] = {1, 2, 2, 3, 3, 3, 4, 5};
static const double TB[] = {2, 3, 4, 4, 5, 5, 6, 7, 7};

/* HA = 1..20, HB = 1001..1020: every value of b above every value of a. */
static void fill_huge(double *ha, double *hb)
{
    for (int i = 0; i < 20; i++) {
        ha[i] = i + 1;
        hb[i] = i + 1001;
    }
}

static culprit_welford welford_of(const double *x, size_t n)
{
    culprit_welford w;
    culprit_stats_welford_init(&w);
    for (size_t i = 0; i < n; i++)
        culprit_stats_welford_add(&w, x[i]);
    return w;
}

/* A summary with the given n, mean and sample sd, as the switch test needs. */
static culprit_welford welford_from(uint64_t n, double mean, double sd)
{
    culprit_welford w = {n, mean, (double)(n - 1) * sd * sd, mean, mean};
    return w;
}

/* --- Welch -------------------------------------------------------------------------- */

static void welch_t_matches_scipy(void **state)
{
    culprit_welford a = welford_of(A, N_OF(A)), b = welford_of(B, N_OF(B));
    culprit_welch w;
    (void)state;
    assert_int_equal(culprit_stats_welch(&w, &a, &b, 0.99), 0);
    assert_int_equal(w.dist, CULPRIT_STATS_DIST_T);
    /* reference_values.py "A,B t": NumPy moments, Welch-Satterthwaite df by hand,
     * bounds diff -+ scipy.stats.t.ppf(0.995, df) * se. */
    assert_near(w.diff, 6.7675, 1e-10);
    assert_near(w.se, 1.85341657987, 1e-10);
    assert_near(w.df, 24.1641173277, 1e-9);
    assert_near(w.low, 1.58660434822, 1e-9);
    assert_near(w.high, 11.9483956518, 1e-9);
    assert_near(w.confidence, 0.99, 0.0);
    /* scipy.stats.ttest_ind(B, A, equal_var=False).pvalue */
    assert_rel(w.p, 0.0012547745716240896, 1e-9);
}

static void welch_z_matches_scipy_normal(void **state)
{
    culprit_welford a = welford_of(LA, N_OF(LA)), b = welford_of(LB, N_OF(LB));
    culprit_welch w;
    (void)state;
    assert_int_equal(culprit_stats_welch(&w, &a, &b, 0.99), 0);
    assert_int_equal(w.dist, CULPRIT_STATS_DIST_Z);
    assert_true(isinf(w.df));
    /* reference_values.py "LA,LB z": bounds diff -+ scipy.stats.norm.ppf(0.995) * se,
     * p = 2 * scipy.stats.norm.sf(|diff| / se). (ttest_ind would give the t p-value
     * 0.000289, which a z test must not reproduce.) */
    assert_near(w.diff, 3.11567809524, 1e-10);
    assert_near(w.se, 0.835580196643, 1e-11);
    assert_near(w.low, 0.963366139261, 1e-9);
    assert_near(w.high, 5.26799005122, 1e-9);
    assert_rel(w.p, 0.000192424232357, 1e-9);
}

static void welch_switches_from_t_to_z_at_n_30(void **state)
{
    culprit_welford a29 = welford_from(29, 10.0, 1.0), b29 = welford_from(29, 10.5, 1.2);
    culprit_welford a30 = welford_from(30, 10.0, 1.0), b30 = welford_from(30, 10.5, 1.2);
    culprit_welford b40 = welford_from(40, 10.5, 1.2);
    culprit_welch w;
    (void)state;

    /* n = 29: t. scipy.stats.ttest_ind_from_stats(10.5, 1.2, 29, 10, 1, 29,
     * equal_var=False).pvalue; half-width t.ppf(0.975, df) * se. */
    assert_int_equal(culprit_stats_welch(&w, &a29, &b29, 0.95), 0);
    assert_int_equal(w.dist, CULPRIT_STATS_DIST_T);
    assert_rel(w.p, 0.0904497635242, 1e-9);
    assert_near(w.se, 0.290065390963, 1e-11);
    assert_near(w.high - w.diff, 2.00467922544 * 0.290065390963, 1e-9);

    /* n = 30: z. 2 * scipy.stats.norm.sf(0.5 / se); half-width norm.ppf(0.975) * se.
     * (The t p-value at n = 30 would be 0.0850202620263.) */
    assert_int_equal(culprit_stats_welch(&w, &a30, &b30, 0.95), 0);
    assert_int_equal(w.dist, CULPRIT_STATS_DIST_Z);
    assert_true(isinf(w.df));
    assert_rel(w.p, 0.0795647345932, 1e-9);
    assert_near(w.high - w.diff, 1.95996398454 * 0.285189995149, 1e-9);

    /* Both samples must reach 30: 29 and 40 is still t. */
    assert_int_equal(culprit_stats_welch(&w, &a29, &b40, 0.95), 0);
    assert_int_equal(w.dist, CULPRIT_STATS_DIST_T);
    assert_int_equal(culprit_stats_welch(&w, &b40, &a29, 0.95), 0);
    assert_int_equal(w.dist, CULPRIT_STATS_DIST_T);
}

/* A third variance component (between-run offsets). Reference by hand and scipy
 * 1.10.1: va = vb = 4/10, extra = 1.2 with 4 df: se = sqrt(2),
 * df = 4 / (0.16/9 + 0.16/9 + 1.44/4) = 10.112359550561798,
 * scipy.stats.t.ppf(0.995, df) for the interval, 2 * scipy.stats.t.sf(3 / sqrt(2), df). */
static void welch_between_adds_a_run_variance_component(void **state)
{
    culprit_welford a = welford_from(10, 100, 2), b = welford_from(10, 103, 2);
    culprit_welch plain, w;
    (void)state;
    assert_int_equal(culprit_stats_welch_between(&w, &a, &b, 1.2, 4, 0.99), 0);
    assert_near(w.se, 1.4142135623730951, 1e-12);
    assert_near(w.df, 10.112359550561798, 1e-9);
    assert_near(w.low, -1.4708939247532369, 1e-7); /* GSL and scipy t quantiles: ~1e-9 rel. */
    assert_near(w.high, 7.470893924753237, 1e-7);
    assert_near(w.p, 0.05958999802947277, 1e-9);
    assert_int_equal(w.dist, CULPRIT_STATS_DIST_T);
    /* no extra component: exactly culprit_stats_welch */
    assert_int_equal(culprit_stats_welch(&plain, &a, &b, 0.99), 0);
    assert_int_equal(culprit_stats_welch_between(&w, &a, &b, 0, 0, 0.99), 0);
    assert_near(w.low, plain.low, 0);
    assert_near(w.p, plain.p, 0);
    /* with n >= 30 the extra component keeps the t (its df are few) */
    a = welford_from(40, 100, 2);
    b = welford_from(40, 103, 2);
    assert_int_equal(culprit_stats_welch_between(&w, &a, &b, 1.0, 3, 0.99), 0);
    assert_int_equal(w.dist, CULPRIT_STATS_DIST_T);
    assert_int_equal(culprit_stats_welch_between(&w, &a, &b, -1, 3, 0.99), CULPRIT_EINVALID);
    assert_int_equal(culprit_stats_welch_between(&w, &a, &b, 1, 0, 0.99), CULPRIT_EINVALID);
}

static void welch_edge_cases(void **state)
{
    const double one[] = {5.0}, two[] = {5.0, 7.0};
    double ha[20], hb[20];
    culprit_welford a, b, c1 = welford_of(one, 1), c2 = welford_of(two, 2);
    culprit_welch w;
    (void)state;

    /* n = 1: undecided, the difference alone is known. */
    assert_int_equal(culprit_stats_welch(&w, &c1, &c2, 0.99), CULPRIT_EUNDECIDED);
    assert_near(w.diff, 1.0, 0.0);
    assert_true(isnan(w.p) && isnan(w.low) && isnan(w.high));
    a = welford_of(NULL, 0);
    assert_int_equal(culprit_stats_welch(&w, &a, &c2, 0.99), CULPRIT_EUNDECIDED);
    assert_true(isnan(w.diff));
    assert_int_equal(culprit_stats_welch(&w, &c2, &c2, 1.0), CULPRIT_EINVALID);

    /* n = 2 against itself: defined, diff 0, p 1. */
    assert_int_equal(culprit_stats_welch(&w, &c2, &c2, 0.99), 0);
    assert_near(w.diff, 0.0, 0.0);
    assert_near(w.p, 1.0, 1e-15);
    assert_true(w.low < 0.0 && w.high > 0.0);

    /* Identical samples: p = 1. */
    a = welford_of(A, N_OF(A));
    assert_int_equal(culprit_stats_welch(&w, &a, &a, 0.99), 0);
    assert_near(w.p, 1.0, 1e-15);

    /* Constant samples: the interval degenerates. */
    a = welford_from(5, 3.0, 0.0);
    b = welford_from(5, 4.0, 0.0);
    assert_int_equal(culprit_stats_welch(&w, &a, &b, 0.99), 0);
    assert_near(w.low, 1.0, 0.0);
    assert_near(w.high, 1.0, 0.0);
    assert_near(w.p, 0.0, 0.0);
    assert_int_equal(culprit_stats_welch(&w, &a, &a, 0.99), 0);
    assert_near(w.p, 1.0, 0.0);

    /* Huge difference: tiny, positive, not NaN. scipy.stats.ttest_ind(HB, HA,
     * equal_var=False).pvalue = 2.8926948072699453e-75. */
    fill_huge(ha, hb);
    a = welford_of(ha, 20);
    b = welford_of(hb, 20);
    assert_int_equal(culprit_stats_welch(&w, &a, &b, 0.99), 0);
    assert_true(w.p > 0.0);
    assert_rel(w.p, 2.8926948072699453e-75, 1e-6);
}

/* --- ANOVA -------------------------------------------------------------------------- */

static void anova_matches_scipy(void **state)
{
    culprit_welford g[3] = {welford_of(A, N_OF(A)), welford_of(B, N_OF(B)),
                            welford_of(G3, N_OF(G3))};
    double ha[20], hb[20];
    culprit_anova r;
    (void)state;

    /* scipy.stats.f_oneway(A, B, G3) */
    assert_int_equal(culprit_stats_anova(&r, g, 3), 0);
    assert_near(r.df1, 2.0, 0.0);
    assert_near(r.df2, 34.0, 0.0);
    assert_rel(r.f, 7.223356725714296, 1e-10);
    assert_rel(r.p, 0.002430234269197943, 1e-9);

    /* scipy.stats.f_oneway(A, B) */
    assert_int_equal(culprit_stats_anova(&r, g, 2), 0);
    assert_rel(r.f, 12.150390492441241, 1e-10);
    assert_rel(r.p, 0.0018297415375366532, 1e-9);

    /* scipy.stats.f_oneway(HA, HB): huge, p tiny but positive. */
    fill_huge(ha, hb);
    g[0] = welford_of(ha, 20);
    g[1] = welford_of(hb, 20);
    assert_int_equal(culprit_stats_anova(&r, g, 2), 0);
    assert_rel(r.f, 285714.28571428574, 1e-9);
    assert_true(r.p > 0.0);
    assert_rel(r.p, 2.8926948072700047e-75, 1e-6);
}

static void anova_edge_cases(void **state)
{
    culprit_welford g[3] = {welford_of(A, N_OF(A)), welford_of(A, N_OF(A)), welford_of(NULL, 0)};
    const double one[] = {1.0}, other[] = {2.0};
    culprit_anova r;
    (void)state;

    /* Identical groups: F = 0, p = 1. */
    assert_int_equal(culprit_stats_anova(&r, g, 2), 0);
    assert_near(r.f, 0.0, 1e-12);
    assert_near(r.p, 1.0, 1e-12);

    assert_int_equal(culprit_stats_anova(&r, g, 1), CULPRIT_EINVALID);
    assert_int_equal(culprit_stats_anova(&r, g, 3), CULPRIT_EUNDECIDED);
    assert_true(isnan(r.p));

    /* One value per group: no within-group degrees of freedom. */
    g[0] = welford_of(one, 1);
    g[1] = welford_of(other, 1);
    assert_int_equal(culprit_stats_anova(&r, g, 2), CULPRIT_EUNDECIDED);
    assert_true(isnan(r.f) && isnan(r.p));

    /* Constant groups: certain difference, or none. */
    g[0] = welford_from(4, 1.0, 0.0);
    g[1] = welford_from(4, 2.0, 0.0);
    assert_int_equal(culprit_stats_anova(&r, g, 2), 0);
    assert_true(isinf(r.f));
    assert_near(r.p, 0.0, 0.0);
    g[1] = g[0];
    assert_int_equal(culprit_stats_anova(&r, g, 2), 0);
    assert_true(isnan(r.f));
    assert_near(r.p, 1.0, 0.0);
}

/* --- Mann-Whitney U ----------------------------------------------------------------- */

static void mannwhitney_exact_matches_scipy(void **state)
{
    culprit_mannwhitney r;
    (void)state;

    /* scipy.stats.mannwhitneyu(B, A, method='exact'): U = 145 (U of the first
     * argument, our b), p = 0.0062691485090192855. AUTO picks exact: no ties, n <= 50. */
    assert_int_equal(culprit_stats_mannwhitney(&r, A, N_OF(A), B, N_OF(B), CULPRIT_STATS_P_AUTO),
                     0);
    assert_int_equal(r.method, CULPRIT_STATS_P_EXACT);
    assert_false(r.ties);
    assert_near(r.u, 145.0, 0.0);
    assert_rel(r.p, 0.0062691485090192855, 1e-10);
    assert_true(isnan(r.z));

    /* The roles swapped: U of A is 12 * 15 - 145 = 35, same two-sided p. */
    assert_int_equal(culprit_stats_mannwhitney(&r, B, N_OF(B), A, N_OF(A), CULPRIT_STATS_P_AUTO),
                     0);
    assert_near(r.u, 35.0, 0.0);
    assert_rel(r.p, 0.0062691485090192855, 1e-10);

    /* scipy.stats.mannwhitneyu(LB, LA, method='exact'): 60 x 70, exact on request. */
    assert_int_equal(
        culprit_stats_mannwhitney(&r, LA, N_OF(LA), LB, N_OF(LB), CULPRIT_STATS_P_EXACT), 0);
    assert_int_equal(r.method, CULPRIT_STATS_P_EXACT);
    assert_near(r.u, 2822.0, 0.0);
    assert_rel(r.p, 0.0006638501298148468, 1e-9);

    /* n = 1 is allowed: scipy.stats.mannwhitneyu([3.5], [1, 2, 5, 6],
     * method='exact') gives U = 2, p = 1. */
    {
        const double a[] = {1, 2, 5, 6}, b[] = {3.5};
        assert_int_equal(culprit_stats_mannwhitney(&r, a, 4, b, 1, CULPRIT_STATS_P_AUTO), 0);
        assert_near(r.u, 2.0, 0.0);
        assert_near(r.p, 1.0, 1e-15);
    }
}

static void mannwhitney_asymptotic_matches_scipy(void **state)
{
    culprit_mannwhitney r;
    double lb100[N_OF(LB)];
    (void)state;

    /* scipy.stats.mannwhitneyu(B, A, method='asymptotic', use_continuity=True) */
    assert_int_equal(
        culprit_stats_mannwhitney(&r, A, N_OF(A), B, N_OF(B), CULPRIT_STATS_P_ASYMPTOTIC), 0);
    assert_int_equal(r.method, CULPRIT_STATS_P_ASYMPTOTIC);
    assert_rel(r.p, 0.007829676673447085, 1e-9);
    assert_true(r.z > 0.0);

    /* scipy.stats.mannwhitneyu(LB, LA, method='asymptotic', use_continuity=True):
     * AUTO is asymptotic beyond 50 values. */
    assert_int_equal(
        culprit_stats_mannwhitney(&r, LA, N_OF(LA), LB, N_OF(LB), CULPRIT_STATS_P_AUTO), 0);
    assert_int_equal(r.method, CULPRIT_STATS_P_ASYMPTOTIC);
    assert_near(r.u, 2822.0, 0.0);
    assert_rel(r.p, 0.0007530213722032421, 1e-9);

    /* Huge difference: scipy.stats.mannwhitneyu(LB + 100, LA, method='asymptotic',
     * use_continuity=True) gives U = 4200, p = 1.071802910453994e-22. */
    for (size_t i = 0; i < N_OF(LB); i++)
        lb100[i] = LB[i] + 100.0;
    assert_int_equal(
        culprit_stats_mannwhitney(&r, LA, N_OF(LA), lb100, N_OF(LB), CULPRIT_STATS_P_AUTO), 0);
    assert_near(r.u, 4200.0, 0.0);
    assert_true(r.p > 0.0);
    assert_rel(r.p, 1.071802910453994e-22, 1e-6);
}

static void mannwhitney_ties_use_corrected_normal(void **state)
{
    culprit_mannwhitney r;
    (void)state;

    /* scipy.stats.mannwhitneyu(TB, TA, method='asymptotic', use_continuity=True):
     * U = 58.5, p = 0.03175895714806371 (tie-corrected variance). AUTO must not use
     * the exact distribution, which assumes no ties. */
    assert_int_equal(
        culprit_stats_mannwhitney(&r, TA, N_OF(TA), TB, N_OF(TB), CULPRIT_STATS_P_AUTO), 0);
    assert_true(r.ties);
    assert_int_equal(r.method, CULPRIT_STATS_P_ASYMPTOTIC);
    assert_near(r.u, 58.5, 0.0);
    assert_rel(r.p, 0.03175895714806371, 1e-9);
    assert_int_equal(
        culprit_stats_mannwhitney(&r, TA, N_OF(TA), TB, N_OF(TB), CULPRIT_STATS_P_EXACT),
        CULPRIT_EINVALID);
}

static void mannwhitney_edge_cases(void **state)
{
    const double same[] = {4, 4, 4}, nan_only[] = {NAN};
    double ha[20], hb[20], big[200];
    culprit_mannwhitney r;
    (void)state;

    /* Identical samples: p = 1, exact and asymptotic. */
    assert_int_equal(culprit_stats_mannwhitney(&r, A, N_OF(A), A, N_OF(A), CULPRIT_STATS_P_AUTO),
                     0);
    assert_near(r.p, 1.0, 1e-12);
    assert_int_equal(
        culprit_stats_mannwhitney(&r, B, N_OF(B), B, N_OF(B), CULPRIT_STATS_P_ASYMPTOTIC), 0);
    assert_near(r.p, 1.0, 1e-12);
    /* Every value tied: nothing to rank. */
    assert_int_equal(culprit_stats_mannwhitney(&r, same, 3, same, 2, CULPRIT_STATS_P_AUTO), 0);
    assert_near(r.p, 1.0, 0.0);

    /* Huge difference, exact: scipy.stats.mannwhitneyu(HB, HA, method='exact') p =
     * 1.4508889103849684e-11 = 2 / C(40, 20). */
    fill_huge(ha, hb);
    assert_int_equal(culprit_stats_mannwhitney(&r, ha, 20, hb, 20, CULPRIT_STATS_P_AUTO), 0);
    assert_near(r.u, 400.0, 0.0);
    assert_rel(r.p, 1.4508889103849684e-11, 1e-9);

    /* No value: undecided. NaN are dropped first. */
    assert_int_equal(culprit_stats_mannwhitney(&r, nan_only, 1, A, N_OF(A), CULPRIT_STATS_P_AUTO),
                     CULPRIT_EUNDECIDED);
    assert_true(isnan(r.p));
    assert_int_equal(culprit_stats_mannwhitney(&r, A, N_OF(A), NULL, 0, CULPRIT_STATS_P_AUTO),
                     CULPRIT_EUNDECIDED);
    /* Exact on request is bounded: 200 x 70 > 10^4. */
    for (size_t i = 0; i < 200; i++)
        big[i] = (double)i + 0.25;
    assert_int_equal(culprit_stats_mannwhitney(&r, big, 200, LB, N_OF(LB), CULPRIT_STATS_P_EXACT),
                     CULPRIT_EINVALID);
    assert_int_equal(
        culprit_stats_mannwhitney(&r, A, N_OF(A), B, N_OF(B), (culprit_stats_pmethod)42),
        CULPRIT_EINVALID);
}

/* --- Kolmogorov-Smirnov ------------------------------------------------------------- */

static void ks_matches_scipy(void **state)
{
    culprit_ks r;
    (void)state;

    /* scipy.stats.ks_2samp(A, B, method='exact'): D = 0.6, p = 0.009550928274848049 */
    assert_int_equal(culprit_stats_ks(&r, A, N_OF(A), B, N_OF(B), CULPRIT_STATS_P_AUTO), 0);
    assert_int_equal(r.method, CULPRIT_STATS_P_EXACT);
    assert_near(r.d, 0.6, 1e-15);
    assert_rel(r.p, 0.009550928274848049, 1e-10);
    /* The same with ASYMPTOTIC: Stephens' lambda = (sqrt(Ne) + 0.12 + 0.11 / sqrt(Ne))
     * * 0.6, Ne = 12 * 15 / 27, scipy.stats.kstwobign.sf(lambda) = 0.00882243690973382. */
    assert_int_equal(culprit_stats_ks(&r, A, N_OF(A), B, N_OF(B), CULPRIT_STATS_P_ASYMPTOTIC), 0);
    assert_int_equal(r.method, CULPRIT_STATS_P_ASYMPTOTIC);
    assert_rel(r.p, 0.00882243690973382, 1e-9);

    /* scipy.stats.ks_2samp(LA, LB, method='exact'): D = 0.2904761904761905,
     * p = 0.006658068799008666 */
    assert_int_equal(culprit_stats_ks(&r, LA, N_OF(LA), LB, N_OF(LB), CULPRIT_STATS_P_AUTO), 0);
    assert_near(r.d, 0.2904761904761905, 1e-15);
    assert_rel(r.p, 0.006658068799008666, 1e-9);
    /* Symmetric in the samples. */
    assert_int_equal(culprit_stats_ks(&r, LB, N_OF(LB), LA, N_OF(LA), CULPRIT_STATS_P_AUTO), 0);
    assert_rel(r.p, 0.006658068799008666, 1e-9);

    /* n = 1: scipy.stats.ks_2samp([3.5], [1, 2, 5, 6], method='exact'): D = 0.5, p = 1 */
    {
        const double a[] = {3.5}, b[] = {1, 2, 5, 6};
        assert_int_equal(culprit_stats_ks(&r, a, 1, b, 4, CULPRIT_STATS_P_AUTO), 0);
        assert_near(r.d, 0.5, 0.0);
        assert_near(r.p, 1.0, 1e-15);
    }
}

static void ks_large_samples(void **state)
{
    double *ga = malloc(1001 * sizeof(double)), *gb = malloc(1000 * sizeof(double));
    culprit_ks r;
    (void)state;
    assert_non_null(ga);
    assert_non_null(gb);
    /* reference_values.py GA, GB: the same expressions. */
    for (int i = 0; i < 1001; i++)
        ga[i] = (i + 0.5) / 1001;
    for (int j = 0; j < 1000; j++)
        gb[j] = pow((j + 0.5) / 1000, 1.2);

    /* 1001 x 1000 > 10^6: AUTO is asymptotic. Reference: Stephens' corrected lambda
     * fed to scipy.stats.kstwobign.sf (scipy's own Kolmogorov distribution),
     * 0.020227807697255795; D from scipy.stats.ks_2samp(GA, GB). (scipy's
     * ks_2samp(method='asymp') uses kstwo.sf(D, round(Ne)) instead: 0.02034.) */
    assert_int_equal(culprit_stats_ks(&r, ga, 1001, gb, 1000, CULPRIT_STATS_P_AUTO), 0);
    assert_int_equal(r.method, CULPRIT_STATS_P_ASYMPTOTIC);
    assert_near(r.d, 0.06738461538461539, 1e-14);
    assert_rel(r.p, 0.020227807697255795, 1e-9);

    /* Exact on request: scipy.stats.ks_2samp(GA, GB, method='exact') p =
     * 0.02021096326273648. */
    assert_int_equal(culprit_stats_ks(&r, ga, 1001, gb, 1000, CULPRIT_STATS_P_EXACT), 0);
    assert_int_equal(r.method, CULPRIT_STATS_P_EXACT);
    assert_rel(r.p, 0.02021096326273648, 1e-8);

    /* 500 x 500 <= 10^6: AUTO is exact. scipy.stats.ks_2samp(GA5, GB5,
     * method='exact'): D = 0.068, p = 0.19804212658711798. */
    for (int i = 0; i < 500; i++) {
        ga[i] = (i + 0.5) / 500;
        gb[i] = pow((i + 0.5) / 500, 1.2);
    }
    assert_int_equal(culprit_stats_ks(&r, ga, 500, gb, 500, CULPRIT_STATS_P_AUTO), 0);
    assert_int_equal(r.method, CULPRIT_STATS_P_EXACT);
    assert_near(r.d, 0.068, 1e-15);
    assert_rel(r.p, 0.19804212658711798, 1e-8);
    free(ga);
    free(gb);
}

static void ks_ties_are_exact_conditional(void **state)
{
    culprit_ks r;
    (void)state;
    /* TA, TB with ties: D = 0.527777777778 = 19/36; the permutation p-value by
     * enumerating all C(17, 8) = 24310 splits of the pooled sample in
     * reference_values.py: 1462/24310. (scipy's exact ks_2samp ignores ties and
     * says 0.1423.) */
    assert_int_equal(culprit_stats_ks(&r, TA, N_OF(TA), TB, N_OF(TB), CULPRIT_STATS_P_AUTO), 0);
    assert_near(r.d, 19.0 / 36.0, 1e-15);
    assert_int_equal(r.method, CULPRIT_STATS_P_EXACT);
    assert_rel(r.p, 1462.0 / 24310.0, 1e-12);
}

static void ks_edge_cases(void **state)
{
    double ha[20], hb[20];
    culprit_ks r;
    (void)state;

    /* Identical samples: D = 0, p = 1, exact and asymptotic. */
    assert_int_equal(culprit_stats_ks(&r, A, N_OF(A), A, N_OF(A), CULPRIT_STATS_P_AUTO), 0);
    assert_near(r.d, 0.0, 0.0);
    assert_near(r.p, 1.0, 0.0);
    assert_int_equal(culprit_stats_ks(&r, A, N_OF(A), A, N_OF(A), CULPRIT_STATS_P_ASYMPTOTIC), 0);
    assert_near(r.p, 1.0, 0.0);

    /* Huge difference: scipy.stats.ks_2samp(HA, HB, method='exact') p =
     * 1.4508889103849681e-11 = 2 / C(40, 20). Asymptotic: tiny, not negative. */
    fill_huge(ha, hb);
    assert_int_equal(culprit_stats_ks(&r, ha, 20, hb, 20, CULPRIT_STATS_P_AUTO), 0);
    assert_near(r.d, 1.0, 0.0);
    assert_rel(r.p, 1.4508889103849681e-11, 1e-9);
    assert_int_equal(culprit_stats_ks(&r, ha, 20, hb, 20, CULPRIT_STATS_P_ASYMPTOTIC), 0);
    assert_true(r.p >= 0.0 && r.p < 1e-8);

    assert_int_equal(culprit_stats_ks(&r, NULL, 0, hb, 20, CULPRIT_STATS_P_AUTO),
                     CULPRIT_EUNDECIDED);
    assert_true(isnan(r.p));
}

/* --- Benjamini-Hochberg and Holm ---------------------------------------------------- */

static const double P10[] = {0.01, 0.04, 0.03, 0.005, 0.5, 0.2, 0.04, 0.0001, 0.9, 0.03};

static void bh_matches_r_p_adjust(void **state)
{
    /* reference_values.py "BH": R's p.adjust(method = "BH") algorithm in NumPy. */
    const double want[] = {0.0333333333333, 0.0571428571429, 0.0571428571429,
                           0.025,           0.555555555556,  0.25,
                           0.0571428571429, 0.001,           0.9,
                           0.0571428571429};
    double q[10];
    (void)state;
    assert_int_equal(culprit_stats_adjust_bh(q, P10, 10), 0);
    for (size_t i = 0; i < 10; i++)
        assert_near(q[i], want[i], 1e-12);
}

static void holm_matches_r_p_adjust(void **state)
{
    /* reference_values.py "Holm": R's p.adjust(method = "holm") algorithm in NumPy. */
    const double want[] = {0.08, 0.21, 0.21, 0.045, 1, 0.6, 0.21, 0.001, 1, 0.21};
    double q[10];
    (void)state;
    assert_int_equal(culprit_stats_adjust_holm(q, P10, 10), 0);
    for (size_t i = 0; i < 10; i++)
        assert_near(q[i], want[i], 1e-12);
}

static void bh_is_monotone_capped_and_in_place(void **state)
{
    double p[300], q[300];
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    (void)state;
    gsl_rng_set(rng, 7);
    for (size_t i = 0; i < 300; i++)
        p[i] = i % 3 ? gsl_rng_uniform(rng) : gsl_rng_uniform(rng) * 0.001;
    p[17] = 1.0;
    p[18] = 0.0;
    assert_int_equal(culprit_stats_adjust_bh(q, p, 300), 0);
    for (size_t i = 0; i < 300; i++) {
        assert_true(q[i] >= p[i] && q[i] <= 1.0);
        for (size_t j = 0; j < 300; j++)
            if (p[i] <= p[j])
                assert_true(q[i] <= q[j]); /* monotone in p */
    }
    /* In place gives the same. */
    assert_int_equal(culprit_stats_adjust_bh(p, p, 300), 0);
    assert_memory_equal(p, q, sizeof(p));
    gsl_rng_free(rng);
}

static void adjust_edge_cases(void **state)
{
    const double with_nan[] = {0.02, NAN, 0.01}, bad[] = {0.5, 1.5};
    double q[3] = {7, 7, 7};
    (void)state;
    /* NaN stays NaN and is not counted: m = 2, as R's p.adjust(). */
    assert_int_equal(culprit_stats_adjust_bh(q, with_nan, 3), 0);
    assert_near(q[0], 0.02, 1e-15);
    assert_true(isnan(q[1]));
    assert_near(q[2], 0.02, 1e-15);
    assert_int_equal(culprit_stats_adjust_holm(q, with_nan, 3), 0);
    assert_near(q[0], 0.02, 1e-15);
    assert_near(q[2], 0.02, 1e-15);
    /* One p-value is its own adjustment; none is fine. */
    assert_int_equal(culprit_stats_adjust_holm(q, with_nan, 1), 0);
    assert_near(q[0], 0.02, 0.0);
    assert_int_equal(culprit_stats_adjust_bh(q, with_nan, 0), 0);
    q[0] = 7;
    assert_int_equal(culprit_stats_adjust_bh(q, bad, 2), CULPRIT_EINVALID);
    assert_near(q[0], 7.0, 0.0); /* untouched on error */
}

/* --- bootstrap ---------------------------------------------------------------------- */

static void bootstrap_deterministic_for_a_seed(void **state)
{
    culprit_ratio_ci r1, r2, r3;
    (void)state;
    assert_int_equal(
        culprit_stats_bootstrap_median_ratio(&r1, A, N_OF(A), B, N_OF(B), 0.95, 2000, 42), 0);
    assert_int_equal(
        culprit_stats_bootstrap_median_ratio(&r2, A, N_OF(A), B, N_OF(B), 0.95, 2000, 42), 0);
    assert_int_equal(
        culprit_stats_bootstrap_median_ratio(&r3, A, N_OF(A), B, N_OF(B), 0.95, 2000, 43), 0);
    assert_memory_equal(&r1, &r2, sizeof(r1));
    assert_true(r1.low != r3.low || r1.high != r3.high);
    /* The point estimate is the ratio of the sample medians: 106.278 / 98.668
     * (medians of B and A by hand: 8th of 15 sorted, mean of 6th and 7th of 12). */
    assert_near(r1.ratio, 106.278 / ((98.392 + 98.944) / 2), 1e-12);
    assert_true(r1.low <= r1.ratio && r1.ratio <= r1.high);
    /* Every resampled median lies within the sample's range, so every ratio lies
     * in [min B / max A, max B / min A]. (B is bimodal, ~99 and ~108, so the lower
     * bound sits near 1 although the tests above find B slower.) */
    assert_true(r1.low >= 94.24 / 102.048 && r1.high <= 112.858 / 90.243);
    assert_true(r1.high > 1.05);
    assert_int_equal(r1.resamples, 2000);
}

static void bootstrap_covers_one_for_the_same_distribution(void **state)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    double a[40], b[40];
    culprit_ratio_ci r;
    int covered = 0;
    (void)state;
    /* 100 pairs of samples from one lognormal distribution (a timing-like shape):
     * a 95% interval of the ratio of medians should contain 1 about 95 times. The
     * percentile bootstrap of a median is a little liberal at n = 40, so ask for
     * 85, far above what a broken interval would reach. */
    gsl_rng_set(rng, 2024);
    for (int k = 0; k < 100; k++) {
        for (int i = 0; i < 40; i++) {
            a[i] = gsl_ran_lognormal(rng, log(1000.0), 0.2);
            b[i] = gsl_ran_lognormal(rng, log(1000.0), 0.2);
        }
        assert_int_equal(culprit_stats_bootstrap_median_ratio(&r, a, 40, b, 40, 0.95, 500, k), 0);
        covered += r.low <= 1.0 && 1.0 <= r.high;
    }
    assert_true(covered >= 85);
    /* b = 2 a: the ratio is exactly 2 and inside. */
    for (int i = 0; i < 40; i++)
        b[i] = 2.0 * a[i];
    assert_int_equal(culprit_stats_bootstrap_median_ratio(&r, a, 40, b, 40, 0.95, 500, 1), 0);
    assert_near(r.ratio, 2.0, 1e-15);
    assert_true(r.low <= 2.0 && 2.0 <= r.high && r.low > 1.0);
    /* A huge difference: HB / HA, medians 1010.5 / 10.5; 1 far outside. */
    {
        double ha[20], hb[20];
        fill_huge(ha, hb);
        assert_int_equal(culprit_stats_bootstrap_median_ratio(&r, ha, 20, hb, 20, 0.99, 500, 1), 0);
        assert_near(r.ratio, 1010.5 / 10.5, 1e-12);
        assert_true(r.low > 50.0 && r.high < 1020.0);
    }
    gsl_rng_free(rng);
}

static void bootstrap_edge_cases(void **state)
{
    const double one[] = {3.0}, zero[] = {0.0, 1.0, 2.0}, with_nan[] = {1.0, NAN, 3.0};
    culprit_ratio_ci r;
    (void)state;
    assert_int_equal(culprit_stats_bootstrap_median_ratio(&r, one, 1, one, 1, 0.95, 100, 1),
                     CULPRIT_EUNDECIDED);
    assert_near(r.ratio, 1.0, 0.0);
    assert_true(isnan(r.low) && isnan(r.high));
    assert_int_equal(culprit_stats_bootstrap_median_ratio(&r, zero, 3, one, 1, 0.95, 100, 1),
                     CULPRIT_EINVALID);
    assert_int_equal(culprit_stats_bootstrap_median_ratio(&r, A, 12, B, 15, 1.5, 100, 1),
                     CULPRIT_EINVALID);
    assert_int_equal(culprit_stats_bootstrap_median_ratio(&r, A, 12, B, 15, 0.95, 0, 1),
                     CULPRIT_EINVALID);
    /* NaN dropped: medians 2 and 2. Identical samples: ratio 1 inside. */
    assert_int_equal(
        culprit_stats_bootstrap_median_ratio(&r, with_nan, 3, with_nan, 3, 0.95, 100, 1), 0);
    assert_near(r.ratio, 1.0, 0.0);
    assert_true(r.low <= 1.0 && 1.0 <= r.high);
}

/* Significant AND beyond the threshold: the rule detect, calltree and bisect share. */
static void judge_change_needs_significance_and_the_threshold(void **state)
{
    (void)state;
    assert_true(culprit_stats_slower_beyond(0.01, 0.05, 0.02));
    assert_false(culprit_stats_slower_beyond(-0.01, 0.05, 0.02)); /* not significant */
    assert_false(culprit_stats_slower_beyond(0.005, 0.01, 0.02)); /* inside the threshold */
    assert_false(culprit_stats_slower_beyond(NAN, NAN, 0.02));
    assert_true(culprit_stats_faster_beyond(-0.01, -0.05, 0.02));
    assert_false(culprit_stats_faster_beyond(0.01, -0.05, 0.02));
    assert_int_equal(culprit_stats_judge_change(0.05, 0.01, 0.09, 0.02),
                     CULPRIT_STATS_CHANGE_SLOWER);
    assert_int_equal(culprit_stats_judge_change(-0.05, -0.09, -0.01, 0.02),
                     CULPRIT_STATS_CHANGE_FASTER);
    /* The whole interval inside the threshold. */
    assert_int_equal(culprit_stats_judge_change(0.0, -0.01, 0.01, 0.02),
                     CULPRIT_STATS_CHANGE_UNCHANGED);
    /* Significant, but the estimate inside the threshold: does not alarm. */
    assert_int_equal(culprit_stats_judge_change(0.015, 0.005, 0.025, 0.02),
                     CULPRIT_STATS_CHANGE_UNCHANGED);
    /* Holds 0 and reaches past the threshold. */
    assert_int_equal(culprit_stats_judge_change(0.01, -0.03, 0.05, 0.02),
                     CULPRIT_STATS_CHANGE_UNDECIDED);
    assert_int_equal(culprit_stats_judge_change(NAN, NAN, NAN, 0.02),
                     CULPRIT_STATS_CHANGE_UNDECIDED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(welch_t_matches_scipy),
        cmocka_unit_test(welch_z_matches_scipy_normal),
        cmocka_unit_test(welch_switches_from_t_to_z_at_n_30),
        cmocka_unit_test(welch_between_adds_a_run_variance_component),
        cmocka_unit_test(welch_edge_cases),
        cmocka_unit_test(judge_change_needs_significance_and_the_threshold),
        cmocka_unit_test(anova_matches_scipy),
        cmocka_unit_test(anova_edge_cases),
        cmocka_unit_test(mannwhitney_exact_matches_scipy),
        cmocka_unit_test(mannwhitney_asymptotic_matches_scipy),
        cmocka_unit_test(mannwhitney_ties_use_corrected_normal),
        cmocka_unit_test(mannwhitney_edge_cases),
        cmocka_unit_test(ks_matches_scipy),
        cmocka_unit_test(ks_large_samples),
        cmocka_unit_test(ks_ties_are_exact_conditional),
        cmocka_unit_test(ks_edge_cases),
        cmocka_unit_test(bh_matches_r_p_adjust),
        cmocka_unit_test(holm_matches_r_p_adjust),
        cmocka_unit_test(bh_is_monotone_capped_and_in_place),
        cmocka_unit_test(adjust_edge_cases),
        cmocka_unit_test(bootstrap_deterministic_for_a_seed),
        cmocka_unit_test(bootstrap_covers_one_for_the_same_distribution),
        cmocka_unit_test(bootstrap_edge_cases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
