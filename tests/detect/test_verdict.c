/*
 * Tests of verdicts and baselines (framework/detect) with synthetic summaries:
 * every verdict, the practical threshold, undecided with its estimate, mixed
 * fingerprints, pooling, and the false-discovery control on seeded simulations.
 */
#include "support/test.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "culprit/detect.h"
#include "culprit/history.h"

#define BASE_SHA "abcdef1234567890abcdef1234567890abcdef12"

static culprit_run *new_run(const char *commit, const char *stamp, const char *machine)
{
    culprit_run *run = NULL;
    assert_int_equal(culprit_history_run_new(&run), 0);
    culprit_str_set(&run->suite, "s");
    culprit_str_set(&run->commit, commit);
    culprit_str_set(&run->timestamp, stamp);
    culprit_str_set(&run->machine, machine);
    culprit_str_set(&run->compiler, "gcc 12");
    return run;
}

/* Adds a passing result with the given summary (n, mean, sd in ns). */
static culprit_test_result *add(culprit_run *run, const char *name, size_t n, double mean,
                                double sd)
{
    culprit_test_result *t = NULL;
    assert_int_equal(culprit_history_run_add_test(&t, run), 0);
    culprit_str_set(&t->name, name);
    culprit_str_set(&t->classname, "s");
    t->status = CULPRIT_STATUS_PASS;
    t->summary.n = n;
    t->summary.mean = mean;
    t->summary.sd = sd;
    t->summary.min = mean - 3 * sd;
    t->summary.max = mean + 3 * sd;
    return t;
}

static void set_category(culprit_test_result *t, const char *name, double high)
{
    culprit_str_set(&t->category, name);
    t->category_low_ns = 0;
    t->category_high_ns = high;
}

static culprit_verdict judge(const culprit_run *run, const culprit_test_result *now,
                             const culprit_run *brun, const culprit_test_result *base,
                             const culprit_detect_options *opts)
{
    culprit_verdict v;
    const culprit_test_result *results[1] = {base};
    const culprit_run *runs[1] = {brun};
    culprit_baseline b = {1, results, runs, BASE_SHA, 0, 0, 0, NULL, NULL};
    assert_int_equal(culprit_detect_judge(&v, run, now, base ? &b : NULL, opts), 0);
    return v;
}

static void major_needs_lower_bound_above_the_category_limit(void **state)
{
    culprit_run *now = new_run("c2", "t2", "m"), *before = new_run(BASE_SHA, "t1", "m");
    culprit_test_result *t = add(now, "fib", 50, 1.2e6, 2e4);
    culprit_test_result *b = add(before, "fib", 50, 0.9e6, 2e4);
    (void)state;
    set_category(t, "fast", 1e6);
    culprit_verdict v = judge(now, t, before, b, NULL);
    assert_int_equal(v.kind, CULPRIT_VERDICT_MAJOR);
    assert_string_equal(culprit_detect_verdict_name(v.kind), "major");
    /* the message says test, now, limit, change and baseline without statistics */
    assert_non_null(strstr(v.message, "s.fib: major regression: 1.20 ms now"));
    assert_non_null(strstr(v.message, "above category 'fast' (< 1.00 ms)"));
    assert_non_null(strstr(v.message, "900.0 us at abcdef123456"));
    assert_non_null(strstr(v.message, "+33.3%"));
    assert_true(fabs(v.change - 1.0 / 3) < 1e-9);
    culprit_detect_verdict_dispose(&v);

    /* Hovering at the limit with noise: the mean is above, the lower bound is not. */
    t->summary.mean = 1.005e6;
    t->summary.sd = 1e5;
    t->summary.n = 20;
    v = judge(now, t, NULL, NULL, NULL);
    assert_int_not_equal(v.kind, CULPRIT_VERDICT_MAJOR);
    assert_int_equal(v.kind, CULPRIT_VERDICT_NO_BASELINE);
    culprit_detect_verdict_dispose(&v);

    /* No history is needed for a major verdict. */
    t->summary.mean = 1.5e6;
    t->summary.sd = 1e4;
    v = judge(now, t, NULL, NULL, NULL);
    assert_int_equal(v.kind, CULPRIT_VERDICT_MAJOR);
    assert_null(strstr(v.message, " at "));
    culprit_detect_verdict_dispose(&v);
    culprit_history_run_free(now);
    culprit_history_run_free(before);
}

/* One preempted repetition (100x) widens the interval of the mean below zero; the
 * summary inside the severe fences, which the runner records, still decides. */
static void extreme_samples_do_not_hide_a_major_regression(void **state)
{
    culprit_run *now = new_run("c2", "t2", "m");
    culprit_test_result *t = add(now, "x", 30, 55e3, 180e3);
    culprit_verdict v;
    (void)state;
    set_category(t, "instant", 1);
    v = judge(now, t, NULL, NULL, NULL);
    assert_int_not_equal(v.kind, CULPRIT_VERDICT_MAJOR); /* no judged summary: undecidable */
    culprit_detect_verdict_dispose(&v);
    t->judged = (culprit_summary){29, 30e3, 1e3, 30e3, 28e3, 33e3, 29.5e3, 30.5e3, 0.99};
    v = judge(now, t, NULL, NULL, NULL);
    assert_int_equal(v.kind, CULPRIT_VERDICT_MAJOR);
    assert_int_equal(v.now_n, 29);
    assert_int_equal(v.set_aside, 1);
    assert_non_null(strstr(v.message, "1 extreme sample of 30 set aside"));
    culprit_detect_verdict_dispose(&v);
    culprit_history_run_free(now);
}

static void minor_improvement_and_threshold(void **state)
{
    culprit_run *now = new_run("c2", "t2", "m"), *before = new_run(BASE_SHA, "t1", "m");
    culprit_test_result *b = add(before, "x", 50, 500e3, 5e3);
    culprit_test_result *t = add(now, "x", 50, 600e3, 5e3);
    culprit_verdict v;
    (void)state;
    set_category(t, "fast", 1e6);

    v = judge(now, t, before, b, NULL);
    assert_int_equal(v.kind, CULPRIT_VERDICT_MINOR);
    assert_true(v.change_low > 0.18 && v.change_high < 0.22);
    assert_true(v.p < 1e-6);
    assert_non_null(strstr(v.message, "minor regression"));
    assert_non_null(strstr(v.message, "still in category 'fast'"));
    culprit_detect_verdict_dispose(&v);

    t->summary.mean = 400e3; /* the mirror */
    v = judge(now, t, before, b, NULL);
    assert_int_equal(v.kind, CULPRIT_VERDICT_IMPROVEMENT);
    culprit_detect_verdict_dispose(&v);

    /* 1% slower, measured so precisely that it is significant: below the 2%
     * practical threshold, it does not alarm. */
    b->summary.n = t->summary.n = 5000;
    b->summary.sd = t->summary.sd = 1e3;
    t->summary.mean = 505e3;
    v = judge(now, t, before, b, NULL);
    assert_true(v.change_low > 0); /* significant */
    assert_int_equal(v.kind, CULPRIT_VERDICT_UNCHANGED);
    culprit_detect_verdict_dispose(&v);

    /* the threshold is configurable: at 0.5% the same data is a minor regression */
    culprit_detect_options o = CULPRIT_DETECT_OPTIONS_INIT;
    o.threshold = 0.005;
    v = judge(now, t, before, b, &o);
    assert_int_equal(v.kind, CULPRIT_VERDICT_MINOR);
    culprit_detect_verdict_dispose(&v);
    culprit_history_run_free(now);
    culprit_history_run_free(before);
}

static void undecided_says_how_many_more_repetitions(void **state)
{
    culprit_run *now = new_run("c2", "t2", "m"), *before = new_run(BASE_SHA, "t1", "m");
    culprit_test_result *b = add(before, "x", 10, 500e3, 100e3);
    culprit_test_result *t = add(now, "x", 10, 520e3, 100e3);
    culprit_verdict v;
    (void)state;

    v = judge(now, t, before, b, NULL);
    assert_int_equal(v.kind, CULPRIT_VERDICT_UNDECIDED);
    assert_true(v.more_samples > 10);
    assert_non_null(strstr(v.message, "more repetitions would decide"));
    /* with that many more samples on both sides, the interval is narrow enough */
    size_t more = v.more_samples;
    culprit_detect_verdict_dispose(&v);
    b->summary.n = t->summary.n = 10 + more;
    v = judge(now, t, before, b, NULL);
    assert_int_not_equal(v.kind, CULPRIT_VERDICT_UNDECIDED);
    culprit_detect_verdict_dispose(&v);

    /* too few samples: undecided whatever the means */
    t->summary.n = 3;
    t->summary.mean = 900e3;
    v = judge(now, t, before, b, NULL);
    assert_int_equal(v.kind, CULPRIT_VERDICT_UNDECIDED);
    culprit_detect_verdict_dispose(&v);

    /* a tight A/A comparison is unchanged: the interval lies inside the threshold */
    b->summary.n = t->summary.n = 200;
    b->summary.sd = t->summary.sd = 5e3;
    b->summary.mean = 500e3;
    t->summary.mean = 500.5e3;
    v = judge(now, t, before, b, NULL);
    assert_int_equal(v.kind, CULPRIT_VERDICT_UNCHANGED);
    assert_non_null(strstr(v.message, "unchanged"));
    culprit_detect_verdict_dispose(&v);
    culprit_history_run_free(now);
    culprit_history_run_free(before);
}

static void mixed_fingerprints_are_not_compared_silently(void **state)
{
    culprit_run *now = new_run("c2", "t2", "box-a"), *before = new_run(BASE_SHA, "t1", "box-b");
    culprit_test_result *b = add(before, "x", 50, 500e3, 5e3);
    culprit_test_result *t = add(now, "x", 50, 600e3, 5e3);
    culprit_verdict v;
    (void)state;

    v = judge(now, t, before, b, NULL);
    assert_int_equal(v.kind, CULPRIT_VERDICT_MIXED);
    assert_non_null(strstr(v.mismatch, "machine differs"));
    assert_non_null(strstr(v.message, "box-a"));
    assert_non_null(strstr(v.message, "--allow-mixed"));
    culprit_detect_verdict_dispose(&v);

    culprit_detect_options o = CULPRIT_DETECT_OPTIONS_INIT;
    o.allow_mixed = 1;
    v = judge(now, t, before, b, &o);
    assert_int_equal(v.kind, CULPRIT_VERDICT_MINOR);
    culprit_detect_verdict_dispose(&v);

    /* build flags count too */
    culprit_str_set(&before->machine, "box-a");
    culprit_str_set(&before->flags, "-O0");
    v = judge(now, t, before, b, NULL);
    assert_int_equal(v.kind, CULPRIT_VERDICT_MIXED);
    assert_non_null(strstr(v.mismatch, "build flags"));
    culprit_detect_verdict_dispose(&v);
    culprit_history_run_free(now);
    culprit_history_run_free(before);
}

static void failed_tests_and_missing_baselines(void **state)
{
    culprit_run *now = new_run("c2", "t2", "m");
    culprit_test_result *t = add(now, "x", 50, 500e3, 5e3);
    culprit_verdict v;
    (void)state;

    v = judge(now, t, NULL, NULL, NULL);
    assert_int_equal(v.kind, CULPRIT_VERDICT_NO_BASELINE);
    assert_non_null(strstr(v.message, "no earlier run"));
    culprit_detect_verdict_dispose(&v);
    t->status = CULPRIT_STATUS_FAILURE;
    v = judge(now, t, NULL, NULL, NULL);
    assert_int_equal(v.kind, CULPRIT_VERDICT_NOT_RUN);
    culprit_detect_verdict_dispose(&v);
    culprit_history_run_free(now);
}

static void baseline_is_newest_passing_run_on_first_parent_history(void **state)
{
    /* history: c1 <- c2 <- c3 (first parents), plus c9 on a side branch */
    culprit_run *r1 = new_run("c1", "2026-01-01T00:00:01Z", "m");
    culprit_run *r2a = new_run("c2", "2026-01-02T00:00:01Z", "m");
    culprit_run *r2b = new_run("c2", "2026-01-02T00:00:02Z", "m");
    culprit_run *r9 = new_run("c9", "2026-01-03T00:00:01Z", "m");
    culprit_run *r2c = new_run("c2", "2026-01-02T00:00:03Z", "m");
    culprit_run *all[] = {r1, r2a, r2b, r9, r2c};
    culprit_history_runs runs = {5, all, 0};
    const char *fp[] = {"c2", "c1"};
    culprit_baseline b;
    (void)state;

    add(r1, "x", 10, 100, 1);
    add(r2a, "x", 10, 200, 1);
    add(r2b, "x", 10, 210, 1);
    add(r9, "x", 10, 999, 1);
    add(r2c, "x", 10, 220, 1)->status = CULPRIT_STATUS_FAILURE; /* newest, but failed */
    add(r2c, "y", 10, 5, 1);

    assert_int_equal(culprit_detect_baseline(&b, &runs, "s", "x", fp, 2, 1), 0);
    assert_int_equal(b.n, 1);
    assert_true(b.results[0]->summary.mean == 210); /* newest passing at c2; c9 ignored */
    assert_string_equal(b.label, "c2");
    culprit_detect_baseline_dispose(&b);

    /* pooled over the last 2 commits with data */
    assert_int_equal(culprit_detect_baseline(&b, &runs, "s", "x", fp, 2, 2), 0);
    assert_int_equal(b.n, 2);
    assert_true(b.results[1]->summary.mean == 100);
    assert_non_null(strstr(b.label, "1 earlier"));
    culprit_verdict v;
    assert_int_equal(
        culprit_detect_judge(&v, r2c, culprit_history_run_find_test(r2c, "y"), &b, NULL), 0);
    culprit_detect_verdict_dispose(&v);
    culprit_detect_baseline_dispose(&b);

    /* a test never run before, or another suite: no baseline (n == 0), no error */
    assert_int_equal(culprit_detect_baseline(&b, &runs, "s", "y", fp + 1, 1, 1), 0);
    assert_int_equal(b.n, 0);
    culprit_detect_baseline_dispose(&b);
    assert_int_equal(culprit_detect_baseline(&b, &runs, "other", "x", fp, 2, 1), 0);
    assert_int_equal(b.n, 0);
    culprit_detect_baseline_dispose(&b);
    for (size_t i = 0; i < 5; i++)
        culprit_history_run_free(all[i]);
}

static void pooled_baseline_merges_summaries_exactly(void **state)
{
    culprit_run *now = new_run("c3", "t", "m"), *b1 = new_run("c2", "t", "m"),
                *b2 = new_run("c1", "t", "m");
    culprit_test_result *t = add(now, "x", 40, 100, 2);
    const culprit_test_result *results[] = {add(b1, "x", 10, 100, 1), add(b2, "x", 30, 104, 1)};
    const culprit_run *runs[] = {b1, b2};
    culprit_baseline b = {2, results, runs, "c2 and 1 earlier commits", 0, 0, 0, NULL, NULL};
    culprit_verdict v;
    (void)state;
    assert_int_equal(culprit_detect_judge(&v, now, t, &b, NULL), 0);
    assert_int_equal(v.base_n, 40);
    assert_true(fabs(v.base_mean - 103) < 1e-9);                       /* (10*100 + 30*104) / 40 */
    assert_non_null(strstr(v.message, "at c2 and 1 earlier commits")); /* not cut to 12 */
    culprit_detect_verdict_dispose(&v);
    culprit_history_run_free(now);
    culprit_history_run_free(b1);
    culprit_history_run_free(b2);
}

/*
 * Seeded simulations of a suite of 500 tests (sd 3% of the mean, 30 samples):
 * A/A, where no test changed, must raise (almost) no alarm after the FDR control;
 * with 25 tests slowed by 10%, those must be found.
 */
static size_t simulate(gsl_rng *rng, size_t ntests, size_t nslow, double slowdown,
                       size_t *found_slow, int adjust)
{
    culprit_run *now = new_run("c2", "t2", "m"), *before = new_run("c1", "t1", "m");
    culprit_verdict *v = calloc(ntests, sizeof(*v));
    size_t alarms = 0, n = 30;
    char name[32];

    *found_slow = 0;
    for (size_t i = 0; i < ntests; i++) {
        culprit_welford wa, wb;
        double mean = 1e6 * (1 + (double)i / ntests);
        culprit_stats_welford_init(&wa);
        culprit_stats_welford_init(&wb);
        for (size_t k = 0; k < n; k++) {
            culprit_stats_welford_add(&wa, mean + gsl_ran_gaussian(rng, 0.03 * mean));
            culprit_stats_welford_add(&wb, mean * (i < nslow ? 1 + slowdown : 1) +
                                               gsl_ran_gaussian(rng, 0.03 * mean));
        }
        snprintf(name, sizeof(name), "t%zu", i);
        culprit_test_result *a = add(before, name, n, wa.mean, culprit_stats_welford_sd(&wa));
        culprit_test_result *b = add(now, name, n, wb.mean, culprit_stats_welford_sd(&wb));
        v[i] = judge(now, b, before, a, NULL);
    }
    if (adjust)
        assert_int_equal(culprit_detect_adjust(v, ntests, NULL), 0);
    for (size_t i = 0; i < ntests; i++) {
        int flagged = v[i].kind == CULPRIT_VERDICT_MINOR || v[i].kind == CULPRIT_VERDICT_MAJOR;
        if (i < nslow)
            *found_slow += flagged;
        else
            alarms += flagged;
        if (adjust)
            assert_true(isfinite(v[i].q) && v[i].q >= v[i].p);
        culprit_detect_verdict_dispose(&v[i]);
    }
    free(v);
    culprit_history_run_free(now);
    culprit_history_run_free(before);
    return alarms;
}

static void fdr_control_keeps_false_alarms_rare_and_finds_real_slowdowns(void **state)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    size_t found, alarms_plain = 0, alarms = 0;
    (void)state;
    gsl_rng_set(rng, 20261122);
    for (int round = 0; round < 4; round++) {
        alarms_plain += simulate(rng, 500, 0, 0, &found, 0);
        alarms += simulate(rng, 500, 0, 0, &found, 1);
    }
    /* 2,000 A/A comparisons: the threshold alone already keeps alarms rare; with
     * the FDR control on top there are none. */
    print_message("A/A: %zu alarms without FDR, %zu with, in 2000 tests\n", alarms_plain, alarms);
    assert_true(alarms <= 1);
    alarms = simulate(rng, 500, 25, 0.10, &found, 1);
    print_message("10%% slowdown: found %zu of 25, %zu false alarms\n", found, alarms);
    assert_true(found >= 24);
    assert_true(alarms <= 1);
    gsl_rng_free(rng);
}

static void adjust_demotes_what_fdr_does_not_support(void **state)
{
    culprit_verdict v[100];
    (void)state;
    memset(v, 0, sizeof(v));
    for (size_t i = 0; i < 100; i++) {
        v[i].kind = CULPRIT_VERDICT_UNCHANGED;
        v[i].p = 0.2 + 0.008 * (double)i;
        v[i].test = strdup("s.t");
        v[i].now_n = 30;
        v[i].change = 0.01;
        v[i].change_low = -0.01;
        v[i].change_high = 0.03;
    }
    v[0].kind = CULPRIT_VERDICT_MINOR; /* significant at 99% alone: p = 0.008 */
    v[0].p = 0.008;
    v[0].change = 0.05;
    v[0].change_low = 0.01;
    v[0].change_high = 0.09;
    v[1].kind = CULPRIT_VERDICT_MINOR; /* strong: survives */
    v[1].p = 1e-7;
    assert_int_equal(culprit_detect_adjust(v, 100, NULL), 0);
    assert_int_equal(v[0].kind, CULPRIT_VERDICT_UNDECIDED);
    assert_true(v[0].q > 0.05);
    assert_non_null(strstr(v[0].message, "undecided"));
    assert_int_equal(v[1].kind, CULPRIT_VERDICT_MINOR);
    assert_true(v[1].q <= 100 * 1e-7 + 1e-12);
    for (size_t i = 0; i < 100; i++)
        culprit_detect_verdict_dispose(&v[i]);
}

/* A history of runs c1..c5 at the given means (n 30, sd 1000 ns), then c6 at `now`;
 * checks c6 against its first-parent history with the run-to-run noise model. */
static culprit_verdict_kind check_after_history(const double *means, size_t k, double now,
                                                const char *other_machine_at, char **message)
{
    culprit_run *runs[8];
    culprit_history_runs all = {0, runs, 0};
    const char *commits[] = {"c6", "c5", "c4", "c3", "c2", "c1"};
    culprit_check_result r;
    culprit_check_options o = CULPRIT_CHECK_OPTIONS_INIT;
    char commit[8], stamp[32];
    culprit_verdict_kind kind;

    for (size_t i = 0; i <= k; i++) {
        snprintf(commit, sizeof(commit), "c%zu", i + 1);
        snprintf(stamp, sizeof(stamp), "2026-01-0%zuT00:00:00.000000Z", i + 1);
        runs[i] = new_run(commit, stamp,
                          other_machine_at && !strcmp(other_machine_at, commit) ? "other" : "m");
        add(runs[i], "x", 30, i < k ? means[i] : now, 1000);
        all.nruns++;
    }
    assert_int_equal(culprit_detect_check(&r, &all, "c6", commits + 1, k, &o), 0);
    assert_int_equal(r.n, 1);
    kind = r.verdicts[0].kind;
    *message = strdup(r.verdicts[0].message);
    culprit_detect_check_result_dispose(&r);
    for (size_t i = 0; i <= k; i++)
        culprit_history_run_free(runs[i]);
    return kind;
}

static void runs_that_vary_from_run_to_run_do_not_alarm(void **state)
{
    /* Unchanged code whose runs land 10% apart: +11% now is within what runs do. */
    const double drifting[] = {100e3, 110e3, 100e3, 110e3, 100e3};
    const double quiet[] = {100e3, 100.2e3, 99.9e3, 100.1e3, 100e3};
    double var, df;
    char *message;
    (void)state;

    assert_int_equal(check_after_history(drifting, 5, 111e3, NULL, &message),
                     CULPRIT_VERDICT_UNDECIDED);
    assert_non_null(strstr(message, "more runs would decide"));
    free(message);
    /* a quiet history: the same +11% is a minor regression */
    assert_int_equal(check_after_history(quiet, 5, 111e3, NULL, &message), CULPRIT_VERDICT_MINOR);
    free(message);
    /* a far-off run from another machine (c3) does not count as this machine's noise:
     * counted, its 30% jumps would make +21% undecidable */
    const double one_far_off[] = {100e3, 100.1e3, 130e3, 100.2e3, 100e3};
    assert_int_equal(check_after_history(one_far_off, 5, 121e3, "c3", &message),
                     CULPRIT_VERDICT_MINOR);
    free(message);
    assert_int_equal(check_after_history(one_far_off, 5, 121e3, NULL, &message),
                     CULPRIT_VERDICT_UNDECIDED);
    free(message);

    /* the estimate itself: successive differences of 10000 ns, within parts tiny:
     * var = (1e8 / 0.454936 - 2 * 1e6 / 30) / 2, with 3 degrees of freedom */
    culprit_run *runs[4], *now = new_run("c5", "2026-01-05T00:00:00.000000Z", "m");
    culprit_history_runs all = {4, runs, 0};
    for (int i = 0; i < 4; i++) {
        char stamp[32];
        snprintf(stamp, sizeof(stamp), "2026-01-0%dT00:00:00.000000Z", i + 1);
        runs[i] = new_run("c", stamp, "m");
        add(runs[i], "x", 30, i % 2 ? 110e3 : 100e3, 1000);
    }
    culprit_test_result *t = add(now, "x", 30, 100e3, 1000);
    assert_int_equal(culprit_detect_run_noise(&var, &df, &all, now, t, 10), 0);
    assert_true(fabs(var - (1e8 / 0.454936423119572 - 2e6 / 30) / 2) < 1e-3);
    assert_true(df == 3);
    assert_int_equal(culprit_detect_run_noise(&var, &df, &all, now, t, 3), 0);
    assert_true(var == 0 && df == 0); /* three runs are too few to tell */
    for (int i = 0; i < 4; i++)
        culprit_history_run_free(runs[i]);
    culprit_history_run_free(now);
}

/* check --confirm --build --run: which verdicts are paired, and what pairs make of
 * them (culprit_detect_wants_pairs, culprit_detect_apply_paired). */
static void pairs_decide_what_one_run_per_commit_cannot(void **state)
{
    culprit_run *now = new_run("c2", "t2", "m"), *before = new_run(BASE_SHA, "t1", "m");
    culprit_test_result *b = add(before, "x", 50, 500e3, 5e3);
    culprit_test_result *t = add(now, "x", 50, 470e3, 5e3);
    culprit_paired_confirmation slower = {20, 0.05, 0.01, 0.09, 1, 0, 0, 0, 0, 0, 0, 0};
    culprit_paired_confirmation same = {20, 0.002, -0.01, 0.014, 0, 0, 0, 0, 0, 0, 0, 0};
    culprit_paired_confirmation faster = {20, -0.05, -0.08, -0.02, 0, 0, 0, 0, 0, 0, 0, 0};
    culprit_paired_confirmation unknown = {30, 0.03, -0.01, 0.07, -1, 0, 0, 0, 0, 0, 0, 0};
    /* 5 pairs in the budget, still unknown: the next look and its budget are said. */
    culprit_paired_confirmation out_of_time = {5, 0.03, -0.01, 0.07, -1, 1, 10, 1, 0, 0, 10, 120};
    culprit_verdict v;
    culprit_baseline mature = {1, NULL, NULL, BASE_SHA, 1e6, 5, 0, NULL, NULL};
    const culprit_test_result *results[1] = {b};
    const culprit_run *runs[1] = {before};
    (void)state;
    set_category(t, "fast", 1e6);

    /* A young history (no noise model): one run judged 6% faster. It is paired, and
     * pairs that say slower make it a confirmed minor regression. */
    v = judge(now, t, before, b, NULL);
    assert_int_equal(v.kind, CULPRIT_VERDICT_IMPROVEMENT);
    assert_true(isnan(v.between_sd));
    assert_true(culprit_detect_wants_pairs(&v, 0));
    /* The young-history rule of a minor, mirrored: 6% faster is within the spread. */
    assert_int_equal(v.evidence, CULPRIT_EVIDENCE_UNCONFIRMED);
    assert_non_null(strstr(v.message, "faster: "));
    assert_non_null(strstr(v.message, "; unconfirmed: fewer than"));
    assert_true(v.spread_limit < 0);
    assert_int_equal(culprit_detect_apply_paired(&v, &slower, 0.99), 0);
    assert_int_equal(v.kind, CULPRIT_VERDICT_MINOR);
    assert_int_equal(v.evidence, CULPRIT_EVIDENCE_PAIRED);
    assert_non_null(strstr(v.message, "20 paired runs"));
    culprit_detect_verdict_dispose(&v);
    /* Pairs that also say faster keep it faster; pairs that see no change make it
     * unchanged; pairs that cannot tell keep it as it was. */
    v = judge(now, t, before, b, NULL);
    assert_int_equal(culprit_detect_apply_paired(&v, &faster, 0.99), 0);
    assert_int_equal(v.kind, CULPRIT_VERDICT_IMPROVEMENT);
    culprit_detect_verdict_dispose(&v);
    v = judge(now, t, before, b, NULL);
    assert_int_equal(culprit_detect_apply_paired(&v, &same, 0.99), 0);
    assert_int_equal(v.kind, CULPRIT_VERDICT_UNCHANGED);
    culprit_detect_verdict_dispose(&v);
    v = judge(now, t, before, b, NULL);
    assert_int_equal(culprit_detect_apply_paired(&v, &unknown, 0.99), 0);
    assert_int_equal(v.kind, CULPRIT_VERDICT_IMPROVEMENT);
    assert_int_equal(v.paired.slower, -1);
    culprit_detect_verdict_dispose(&v);
    v = judge(now, t, before, b, NULL);
    assert_int_equal(culprit_detect_apply_paired(&v, &out_of_time, 0.99), 0);
    assert_non_null(strstr(v.message, "still unknown after 5 paired runs"));
    assert_non_null(strstr(v.message, "stopped by the time budget (the next look that could decide "
                                      "is at 10 pairs: about 120 s)"));
    culprit_detect_verdict_dispose(&v);

    /* Far faster (-96%: 25x), beyond the default spread's mirrored limit (one earlier
     * run: -91.6%): confirmed by the pooled rule. */
    t->summary.mean = 20e3;
    v = judge(now, t, before, b, NULL);
    assert_int_equal(v.kind, CULPRIT_VERDICT_IMPROVEMENT);
    assert_int_equal(v.evidence, CULPRIT_EVIDENCE_POOLED);
    assert_non_null(strstr(v.message, "confirmed by the pooled run-to-run spread"));
    culprit_detect_verdict_dispose(&v);
    t->summary.mean = 470e3;

    /* With the noise model (enough earlier runs), an unchanged or faster verdict has
     * its evidence and is not paired; a flagged or undecided one always is. */
    mature.results = results;
    mature.runs = runs;
    assert_int_equal(culprit_detect_judge(&v, now, t, &mature, NULL), 0);
    assert_false(isnan(v.between_sd));
    assert_true(v.kind == CULPRIT_VERDICT_UNCHANGED || v.kind == CULPRIT_VERDICT_IMPROVEMENT ||
                v.kind == CULPRIT_VERDICT_UNDECIDED);
    assert_int_equal(culprit_detect_wants_pairs(&v, 0), v.kind == CULPRIT_VERDICT_UNDECIDED);
    assert_true(culprit_detect_wants_pairs(&v, 1));
    /* A deterministic count never is. */
    v.evidence = CULPRIT_EVIDENCE_DETERMINISTIC;
    assert_false(culprit_detect_wants_pairs(&v, 1));
    culprit_detect_verdict_dispose(&v);

    /* A minor the pairs refute becomes unchanged; an undecided one becomes what they
     * decide. */
    t->summary.mean = 600e3;
    v = judge(now, t, before, b, NULL);
    assert_int_equal(v.kind, CULPRIT_VERDICT_MINOR);
    assert_int_equal(culprit_detect_apply_paired(&v, &same, 0.99), 0);
    assert_int_equal(v.kind, CULPRIT_VERDICT_UNCHANGED);
    culprit_detect_verdict_dispose(&v);
    culprit_history_run_free(now);
    culprit_history_run_free(before);
}

/* Every verdict of a comparison, as text: what the tool prints of it. */
static void describe(culprit_buf *out, const culprit_check_result *r)
{
    culprit_buf_printf(out, "%zu verdicts\n", r->n);
    for (size_t i = 0; i < r->n; i++) {
        const culprit_verdict *v = &r->verdicts[i];
        culprit_buf_printf(out, "%s %s %s %.17g %.17g %.17g %zu %s\n", r->now[i]->name,
                           culprit_detect_verdict_name(v->kind), v->test ? v->test : "-", v->change,
                           v->p, v->q, v->more_samples, v->message ? v->message : "-");
    }
}

/* compare_runs judges its tests on several threads: the same verdicts, in B's order,
 * as one by one; --test still picks one; a bad CULPRIT_THREADS is refused. */
static void compare_runs_on_several_threads_judges_as_one_by_one(void **state)
{
    culprit_run *a = new_run(BASE_SHA, "t1", "m"), *b = new_run("c2", "t2", "m");
    culprit_check_options o = CULPRIT_CHECK_OPTIONS_INIT;
    culprit_check_result r;
    culprit_buf one = CULPRIT_BUF_INIT, four = CULPRIT_BUF_INIT;
    (void)state;

    for (int i = 0; i < 3000; i++) {
        char name[32];
        double mean = 1e5 * (1 + i % 17), change = i % 5 == 0 ? 1.3 : i % 7 == 0 ? 0.8 : 1.0;
        culprit_test_result *t;
        snprintf(name, sizeof(name), "t%04d", i);
        if (i % 11) /* some tests are new in B */
            add(a, name, 20 + (size_t)(i % 13), mean, mean * 0.01 * (1 + i % 3));
        t = add(b, name, 20 + (size_t)(i % 9), mean * change, mean * 0.01 * (1 + i % 4));
        if (i % 23 == 0)
            t->status = CULPRIT_STATUS_FAILURE;
        if (i % 29 == 0)
            set_category(t, "fast", mean * 1.1);
    }
    setenv("CULPRIT_THREADS", "1", 1);
    assert_int_equal(culprit_detect_compare_runs(&r, a, b, &o), 0);
    describe(&one, &r);
    culprit_detect_check_result_dispose(&r);
    setenv("CULPRIT_THREADS", "4", 1);
    assert_int_equal(culprit_detect_compare_runs(&r, a, b, &o), 0);
    describe(&four, &r);
    culprit_detect_check_result_dispose(&r);
    assert_non_null(strstr(culprit_buf_cstr(&one), "3000 verdicts\nt0000 "));
    assert_string_equal(culprit_buf_cstr(&four), culprit_buf_cstr(&one));

    o.test = "t0042";
    assert_int_equal(culprit_detect_compare_runs(&r, a, b, &o), 0);
    assert_int_equal(r.n, 1);
    assert_string_equal(r.now[0]->name, "t0042");
    culprit_detect_check_result_dispose(&r);
    o.test = NULL;
    setenv("CULPRIT_THREADS", "0", 1);
    assert_int_equal(culprit_detect_compare_runs(&r, a, b, &o), CULPRIT_EINVALID);
    assert_non_null(strstr(culprit_error_last(), "CULPRIT_THREADS"));
    assert_int_equal(r.n, 0);
    unsetenv("CULPRIT_THREADS");

    culprit_buf_dispose(&one);
    culprit_buf_dispose(&four);
    culprit_history_run_free(a);
    culprit_history_run_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(major_needs_lower_bound_above_the_category_limit),
        cmocka_unit_test(extreme_samples_do_not_hide_a_major_regression),
        cmocka_unit_test(minor_improvement_and_threshold),
        cmocka_unit_test(undecided_says_how_many_more_repetitions),
        cmocka_unit_test(mixed_fingerprints_are_not_compared_silently),
        cmocka_unit_test(failed_tests_and_missing_baselines),
        cmocka_unit_test(baseline_is_newest_passing_run_on_first_parent_history),
        cmocka_unit_test(pooled_baseline_merges_summaries_exactly),
        cmocka_unit_test(fdr_control_keeps_false_alarms_rare_and_finds_real_slowdowns),
        cmocka_unit_test(adjust_demotes_what_fdr_does_not_support),
        cmocka_unit_test(runs_that_vary_from_run_to_run_do_not_alarm),
        cmocka_unit_test(pairs_decide_what_one_run_per_commit_cannot),
        cmocka_unit_test(compare_runs_on_several_threads_judges_as_one_by_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
