/*
 * Tests of framework/stats: Welford's accumulator, Student t critical values,
 * summaries, quantiles and Tukey's fences. Every reference value below was
 * computed independently of GSL; the comment next to it says how.
 */
#include "support/test.h"

#include <math.h>
#include <stdlib.h>

#include "culprit/core.h"
#include "culprit/stats.h"
#include "support/near.h"

static void t_critical_matches_textbook_tables(void **state)
{
    (void)state;
    /* Student t tables (e.g. NIST/SEMATECH e-Handbook, table 1.3.6.7.2), which R's
     * qt() reproduces: qt(0.995, 9), qt(0.975, 7), qt(0.975, 1), qt(0.975, 30). */
    assert_near(culprit_stats_t_critical(0.99, 9), 3.249836, 1e-6);
    assert_near(culprit_stats_t_critical(0.95, 7), 2.364624, 1e-6);
    assert_near(culprit_stats_t_critical(0.95, 1), 12.706205, 1e-6);
    assert_near(culprit_stats_t_critical(0.95, 30), 2.042272, 1e-6);
    /* With huge df t tends to the normal quantile z_{0.995} = 2.5758293 (Python's
     * statistics.NormalDist().inv_cdf(0.995)). */
    assert_near(culprit_stats_t_critical(0.99, 1e9), 2.5758293, 1e-6);
    assert_true(isnan(culprit_stats_t_critical(1.0, 9)));
    assert_true(isnan(culprit_stats_t_critical(0.99, 0)));
}

static void welford_matches_textbook_example(void **state)
{
    culprit_welford w;
    const double x[] = {2, 4, 4, 4, 5, 5, 7, 9};
    (void)state;

    culprit_stats_welford_init(&w);
    assert_near(culprit_stats_welford_variance(&w), 0.0, 0.0);
    assert_true(isinf(culprit_stats_welford_ci_halfwidth(&w, 0.99)));
    for (size_t i = 0; i < 8; i++)
        culprit_stats_welford_add(&w, x[i]);
    /* The classic example (population sd 2): sum of squared deviations 32, so the
     * sample variance is 32/7 = 4.571428..., sd 2.138089935 (by hand). */
    assert_int_equal(w.n, 8);
    assert_near(w.mean, 5.0, 1e-15);
    assert_near(w.m2, 32.0, 1e-12);
    assert_near(culprit_stats_welford_variance(&w), 32.0 / 7.0, 1e-12);
    assert_near(culprit_stats_welford_sd(&w), 2.138089935, 1e-9);
    assert_near(w.min, 2.0, 0.0);
    assert_near(w.max, 9.0, 0.0);
    /* 95% half-width: t_{0.975,7} * sd / sqrt(8) = 2.364624 * 2.138089935 / 2.828427
     * = 1.787488 (computed by hand from the table value). */
    assert_near(culprit_stats_welford_ci_halfwidth(&w, 0.95), 1.787488, 1e-6);
}

static void welford_zero_initialized_works(void **state)
{
    culprit_welford w = {0};
    (void)state;
    culprit_stats_welford_add(&w, -3.0);
    culprit_stats_welford_add(&w, 5.0);
    assert_near(w.min, -3.0, 0.0);
    assert_near(w.max, 5.0, 0.0);
    assert_near(w.mean, 1.0, 0.0);
    assert_near(culprit_stats_welford_variance(&w), 32.0, 1e-12);
}

static void welford_merge_equals_single_pass(void **state)
{
    culprit_welford all, a, b, empty;
    (void)state;
    culprit_stats_welford_init(&all);
    culprit_stats_welford_init(&a);
    culprit_stats_welford_init(&b);
    culprit_stats_welford_init(&empty);
    for (int i = 0; i < 1000; i++) {
        double x = 1000.0 + (double)((i * 7919) % 101) * 0.25;
        culprit_stats_welford_add(&all, x);
        culprit_stats_welford_add(i < 137 ? &a : &b, x);
    }
    culprit_stats_welford_merge(&a, &empty);
    culprit_stats_welford_merge(&a, &b);
    assert_int_equal(a.n, all.n);
    assert_near(a.mean, all.mean, 1e-10);
    assert_near(a.m2 / all.m2, 1.0, 1e-12);
    assert_near(a.min, all.min, 0.0);
    assert_near(a.max, all.max, 0.0);
    /* Merging into an empty accumulator copies. */
    culprit_stats_welford_merge(&empty, &all);
    assert_int_equal(empty.n, all.n);
    assert_near(empty.m2, all.m2, 0.0);
}

/*
 * 10 million samples around 1e9 with a standard deviation of about 0.002:
 * x_i = 1e9 + k_i / 1024 with small integers k_i, all exactly representable
 * (ulp(1e9) = 2^-23). The reference variance comes from exact integer sums of k_i
 * and k_i^2, independent of any floating-point accumulation. The naive formula
 * (sum x^2 - (sum x)^2 / n) / (n - 1) works on sums near 1e25, whose ulp is
 * about 2e9, and returns garbage.
 */
static void welford_exact_for_ten_million_samples_near_1e9(void **state)
{
    const uint64_t n = 10000000;
    culprit_welford w;
    int64_t sk = 0, skk = 0;
    double sum = 0.0, sumsq = 0.0, exact, naive;
    uint32_t rng = 12345;
    (void)state;

    culprit_stats_welford_init(&w);
    for (uint64_t i = 0; i < n; i++) {
        /* Numerical Recipes' LCG; k uniform in [-3, 3] without structure. */
        rng = rng * 1664525u + 1013904223u;
        int64_t k = (int64_t)(rng >> 16) % 7 - 3;
        double x = 1e9 + (double)k / 1024.0;
        sk += k;
        skk += k * k;
        culprit_stats_welford_add(&w, x);
        sum += x;
        sumsq += x * x;
    }
    /* Exact: var = (S2 - S1^2 / n) / (n - 1) in units of 1/1024^2. S1^2 fits in
     * int64 and in a double exactly while |S1| < 3e6, checked here. */
    assert_true(llabs(sk) < 3000000);
    exact =
        ((double)skk - (double)sk * (double)sk / (double)n) / (double)(n - 1) / (1024.0 * 1024.0);
    naive = (sumsq - sum * sum / (double)n) / (double)(n - 1);

    assert_int_equal(w.n, n);
    /* The running mean drifts by rounding (ulp(1e9) = 1.2e-7; observed 1e-5 after
     * 1e7 updates, 1e-14 relative), and that drift is what limits the variance:
     * observed 3e-5 relative, asserted 1e-4. The naive formula is not even in
     * the right order of magnitude. */
    assert_near(w.mean, 1e9 + (double)sk / (double)n / 1024.0, 1e-4);
    assert_near(culprit_stats_welford_variance(&w) / exact, 1.0, 1e-4);
    assert_true(fabs(naive - exact) > exact);
}

static void quantile_matches_r_type_7(void **state)
{
    const double y[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    (void)state;
    /* R quantile(1:10, c(.25, .5, .75, .9)) and Python's statistics.quantiles(
     * method="inclusive"): 3.25, 5.5, 7.75, 9.1. */
    assert_near(culprit_stats_quantile_sorted(y, 10, 0.25), 3.25, 1e-12);
    assert_near(culprit_stats_quantile_sorted(y, 10, 0.5), 5.5, 1e-12);
    assert_near(culprit_stats_quantile_sorted(y, 10, 0.75), 7.75, 1e-12);
    assert_near(culprit_stats_quantile_sorted(y, 10, 0.9), 9.1, 1e-12);
    assert_near(culprit_stats_quantile_sorted(y, 10, 0.0), 1.0, 0.0);
    assert_near(culprit_stats_quantile_sorted(y, 10, 1.0), 10.0, 0.0);
    assert_true(isnan(culprit_stats_quantile_sorted(y, 0, 0.5)));
    assert_true(isnan(culprit_stats_quantile_sorted(y, 10, 1.5)));
}

static void summarize_ignores_nan_and_reports_ci(void **state)
{
    const double x[] = {9, NAN, 2, 4, 4, 5, 4, 5, NAN, 7};
    culprit_summary s;
    (void)state;
    assert_int_equal(culprit_stats_summarize(&s, x, 10, 0.95), 0);
    /* Same data as welford_matches_textbook_example, shuffled, with two NaN. */
    assert_int_equal(s.n, 8);
    assert_near(s.mean, 5.0, 1e-12);
    assert_near(s.sd, 2.138089935, 1e-9);
    assert_near(s.median, 4.5, 0.0);
    assert_near(s.min, 2.0, 0.0);
    assert_near(s.max, 9.0, 0.0);
    assert_near(s.ci_low, 5.0 - 1.787488, 1e-6);
    assert_near(s.ci_high, 5.0 + 1.787488, 1e-6);
    assert_near(s.confidence, 0.95, 0.0);
}

static void summarize_edge_cases(void **state)
{
    const double one = 3.0, nan = NAN;
    culprit_summary s;
    (void)state;
    assert_int_equal(culprit_stats_summarize(&s, &nan, 1, 0.99), 0);
    assert_int_equal(s.n, 0);
    assert_true(isnan(s.mean) && isnan(s.median) && isnan(s.ci_low) && isnan(s.ci_high));
    assert_int_equal(culprit_stats_summarize(&s, &one, 1, 0.99), 0);
    assert_int_equal(s.n, 1);
    assert_near(s.mean, 3.0, 0.0);
    assert_true(isinf(s.ci_low) && s.ci_low < 0);
    assert_true(isinf(s.ci_high) && s.ci_high > 0);
    assert_int_equal(culprit_stats_summarize(&s, &one, 1, 1.0), CULPRIT_EINVALID);
    assert_int_equal(culprit_stats_summarize(&s, &one, 1, 0.0), CULPRIT_EINVALID);
}

static void outliers_counted_by_tukey_fences(void **state)
{
    const double z[] = {5, 40, 1, 2, 3, 4, -9, 6, 7, 8, 9, 25, 10, 11, 12, -30};
    culprit_outliers o;
    (void)state;
    assert_int_equal(culprit_stats_outliers(&o, z, 16), 0);
    /* Python statistics.quantiles(z, n=4, method="inclusive") gives Q1 = 2.75 and
     * Q3 = 10.25, so IQR = 7.5; the fences by hand: mild -8.5 / 21.5, severe
     * -19.75 / 32.75. Then -30 is low severe, -9 low mild, 25 high mild and 40
     * high severe. */
    assert_near(o.q1, 2.75, 1e-12);
    assert_near(o.q3, 10.25, 1e-12);
    assert_near(o.iqr, 7.5, 1e-12);
    assert_near(o.low_severe, -19.75, 1e-12);
    assert_near(o.low_mild, -8.5, 1e-12);
    assert_near(o.high_mild, 21.5, 1e-12);
    assert_near(o.high_severe, 32.75, 1e-12);
    assert_int_equal(o.n_low_severe, 1);
    assert_int_equal(o.n_low_mild, 1);
    assert_int_equal(o.n_high_mild, 1);
    assert_int_equal(o.n_high_severe, 1);

    assert_int_equal(culprit_stats_outliers(&o, z, 0), 0);
    assert_true(isnan(o.q1) && isnan(o.high_severe));
    assert_int_equal(o.n_low_severe + o.n_low_mild + o.n_high_mild + o.n_high_severe, 0);
}

static void summarize_within_keeps_only_the_range(void **state)
{
    /* 1..10 plus one extreme 1000: inside [0, 20] the summary is that of 1..10. */
    const double x[] = {5, 1000, 1, 2, 3, 4, 6, 7, 8, 9, 10};
    culprit_summary all, within;
    (void)state;
    assert_int_equal(culprit_stats_summarize(&all, x, 11, 0.99), 0);
    assert_int_equal(culprit_stats_summarize_within(&within, x, 11, 0, 20, 0.99), 0);
    assert_int_equal(all.n, 11);
    assert_int_equal(within.n, 10);
    assert_true(within.mean == 5.5);
    assert_true(within.max == 10 && within.min == 1 && within.median == 5.5);
    /* sd of 1..10 = sqrt(55/6) (sample variance 9.1667) */
    assert_true(fabs(within.sd - sqrt(55.0 / 6.0)) < 1e-12);
    assert_true(all.ci_low < 0 && within.ci_low > 0); /* the extreme value widens it */
    /* NaN fences (too few values for quartiles) keep everything */
    assert_int_equal(culprit_stats_summarize_within(&within, x, 11, NAN, NAN, 0.99), 0);
    assert_int_equal(within.n, 11);
}

/* A summary turned back into its Welford state judges exactly like the samples. */
static void welford_from_summary_round_trips(void **state)
{
    const double x[] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3};
    culprit_summary s, empty = {0, NAN, NAN, NAN, NAN, NAN, NAN, NAN, 0.99};
    culprit_welford direct, back;
    (void)state;
    culprit_stats_welford_init(&direct);
    for (size_t i = 0; i < 10; i++)
        culprit_stats_welford_add(&direct, x[i]);
    assert_int_equal(culprit_stats_summarize(&s, x, 10, 0.99), 0);
    culprit_stats_welford_from_summary(&back, &s);
    assert_int_equal(back.n, 10);
    assert_near(back.mean, direct.mean, 1e-12);
    assert_near(back.m2, direct.m2, 1e-9);
    assert_near(culprit_stats_welford_variance(&back), culprit_stats_welford_variance(&direct),
                1e-12);
    assert_true(back.min == 1 && back.max == 9);
    culprit_stats_welford_from_summary(&back, &empty);
    assert_int_equal(back.n, 0);
}

static void sorted_copy_drops_nan(void **state)
{
    const double x[] = {3, NAN, 1, 2};
    double *s = NULL;
    size_t n = 0;
    (void)state;
    assert_int_equal(culprit_stats_sorted_copy(&s, &n, x, 4), 0);
    assert_int_equal(n, 3);
    assert_near(s[0], 1.0, 0.0);
    assert_near(s[2], 3.0, 0.0);
    free(s);
    assert_int_equal(culprit_stats_sorted_copy(&s, &n, x, 0), 0);
    assert_non_null(s);
    assert_int_equal(n, 0);
    free(s);
}

/* The sign test's interval: order statistics by the exact binomial tail. */
static void sign_interval_by_the_binomial_tail(void **state)
{
    double d[20], m, lo, hi;
    (void)state;

    for (int i = 0; i < 20; i++)
        d[i] = 20 - i; /* 1..20, unsorted */
    /* n = 20: P(X <= 3) = 0.0013, P(X <= 4) = 0.0059 */
    assert_int_equal(culprit_stats_sign_interval(&m, &lo, &hi, d, 20, 0.005), 0);
    assert_true(m == 10.5 && lo == 4 && hi == 17);
    assert_int_equal(culprit_stats_sign_interval(&m, &lo, &hi, d, 20, 0.006), 0);
    assert_true(lo == 5 && hi == 16);
    /* n = 10: P(X = 0) = 1/1024; a smaller tail cannot be reached */
    assert_int_equal(culprit_stats_sign_interval(&m, &lo, &hi, d, 10, 0.001), 0);
    assert_true(lo == 11 && hi == 20);
    assert_int_equal(culprit_stats_sign_interval(&m, &lo, &hi, d, 10, 0.0009), 0);
    assert_true(isinf(lo) && lo < 0 && isinf(hi) && hi > 0);
    /* NaN dropped; none left: all NaN */
    d[0] = NAN;
    assert_int_equal(culprit_stats_sign_interval(&m, &lo, &hi, d, 1, 0.5), 0);
    assert_true(isnan(m) && isnan(lo) && isnan(hi));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_critical_matches_textbook_tables),
        cmocka_unit_test(welford_matches_textbook_example),
        cmocka_unit_test(welford_zero_initialized_works),
        cmocka_unit_test(welford_merge_equals_single_pass),
        cmocka_unit_test(welford_exact_for_ten_million_samples_near_1e9),
        cmocka_unit_test(quantile_matches_r_type_7),
        cmocka_unit_test(summarize_ignores_nan_and_reports_ci),
        cmocka_unit_test(summarize_edge_cases),
        cmocka_unit_test(outliers_counted_by_tukey_fences),
        cmocka_unit_test(sorted_copy_drops_nan),
        cmocka_unit_test(summarize_within_keeps_only_the_range),
        cmocka_unit_test(welford_from_summary_round_trips),
        cmocka_unit_test(sign_interval_by_the_binomial_tail),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
