/*
 * Tests of the deterministic rule (framework/detect/counted.c) and of
 * `check --metric` (metric.c) with synthetic results: counts of unchanged code
 * within 0.01% are unchanged, +1% is a minor regression resting on the count,
 * -1% an improvement, another tool version or a natively measured baseline is
 * mixed, a noisy A/A history widens the threshold, and a series other than the
 * measured one is judged from its own values.
 */
#include "support/test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "culprit/detect.h"
#include "culprit/history.h"

#define BASE_SHA "abcdef1234567890abcdef1234567890abcdef12"
#define VALGRIND "valgrind-3.19.0"

static culprit_run *new_run(const char *commit, const char *stamp)
{
    culprit_run *run = NULL;
    assert_int_equal(culprit_history_run_new(&run), 0);
    culprit_str_set(&run->suite, "s");
    culprit_str_set(&run->commit, commit);
    culprit_str_set(&run->timestamp, stamp);
    culprit_str_set(&run->machine, "m");
    culprit_str_set(&run->compiler, "gcc 12");
    return run;
}

/* A passing result counted by `tool` (NULL: wall time measured natively) whose
 * repetitions counted `count` each, 3 of them (a deterministic series). */
static culprit_test_result *add(culprit_run *run, const char *name, double count, const char *tool)
{
    culprit_test_result *t = NULL;
    double x[3] = {count, count, count};
    assert_int_equal(culprit_history_run_add_test(&t, run), 0);
    culprit_str_set(&t->name, name);
    culprit_str_set(&t->classname, "s");
    culprit_str_set(&t->metric, tool ? "instructions" : "wall_ns");
    culprit_str_set(&t->counted_by, tool);
    t->status = CULPRIT_STATUS_PASS;
    assert_int_equal(culprit_stats_summarize(&t->summary, x, 3, 0.99), 0);
    t->judged = t->summary;
    /* A category in ns must not turn a count into a major regression. */
    culprit_str_set(&t->category, "fast");
    t->category_high_ns = 1e6;
    return t;
}

static culprit_verdict judge(const culprit_run *run, const culprit_test_result *now,
                             const culprit_run *brun, const culprit_test_result *base,
                             double spread)
{
    culprit_verdict v;
    const culprit_test_result *results[1] = {base};
    const culprit_run *runs[1] = {brun};
    culprit_baseline b = {1, results, runs, BASE_SHA, 0, 0, spread, NULL, NULL};
    assert_int_equal(culprit_detect_judge(&v, run, now, &b, NULL), 0);
    return v;
}

/* Judges and checks the kind and that the verdict rests on the count. */
static culprit_verdict expect(culprit_verdict_kind kind, const culprit_run *run,
                              const culprit_test_result *now, const culprit_run *brun,
                              const culprit_test_result *base)
{
    culprit_verdict v = judge(run, now, brun, base, 0);
    assert_int_equal(v.kind, kind);
    assert_int_equal(v.evidence, CULPRIT_EVIDENCE_DETERMINISTIC);
    return v;
}

static void counts_within_the_threshold_are_unchanged(void **state)
{
    culprit_run *now = new_run("c2", "t2"), *before = new_run(BASE_SHA, "t1");
    /* 0.007% apart, as three cachegrind runs of the fib example were. */
    culprit_test_result *t = add(now, "fib", 101522512, VALGRIND);
    culprit_test_result *b = add(before, "fib", 101515708, VALGRIND);
    culprit_verdict v;
    (void)state;

    v = expect(CULPRIT_VERDICT_UNCHANGED, now, t, before, b);
    assert_true(fabs(v.change) < 1e-4);
    assert_true(isnan(v.p)); /* no test: the false discovery control leaves it alone */
    assert_non_null(strstr(v.message, "101522512 instructions now"));
    assert_non_null(strstr(v.message, "unchanged (counted by valgrind-3.19.0; threshold 0.50%)"));
    culprit_detect_verdict_dispose(&v);
    /* A/A: identical counts. */
    v = judge(now, t, now, t, 0);
    assert_int_equal(v.kind, CULPRIT_VERDICT_UNCHANGED);
    assert_true(v.change == 0);
    culprit_detect_verdict_dispose(&v);
    culprit_history_run_free(now);
    culprit_history_run_free(before);
}

static void one_percent_more_is_a_minor_regression_one_less_an_improvement(void **state)
{
    culprit_run *now = new_run("c2", "t2"), *before = new_run(BASE_SHA, "t1");
    culprit_test_result *slower = add(now, "slower", 1010000, VALGRIND);
    culprit_test_result *faster = add(now, "faster", 990000, VALGRIND);
    culprit_test_result *b = add(before, "slower", 1000000, VALGRIND);
    culprit_verdict v;
    (void)state;

    v = expect(CULPRIT_VERDICT_MINOR, now, slower, before, b);
    assert_true(fabs(v.change - 0.01) < 1e-12);
    assert_true(v.now_mean == 1010000 && v.base_mean == 1000000);
    assert_string_equal(v.message, "s.slower: minor regression: 1010000 instructions now, 1000000 "
                                   "at abcdef123456: +1.00% (counted by valgrind-3.19.0; "
                                   "threshold 0.50%)");
    culprit_detect_verdict_dispose(&v);
    v = expect(CULPRIT_VERDICT_IMPROVEMENT, now, faster, before, b);
    culprit_detect_verdict_dispose(&v);
    /* The check's false discovery control does not demote a counted verdict. */
    {
        culprit_verdict vs[2];
        vs[0] = judge(now, slower, before, b, 0);
        vs[1] = judge(now, faster, before, b, 0);
        assert_int_equal(culprit_detect_adjust(vs, 2, NULL), 0);
        assert_int_equal(vs[0].kind, CULPRIT_VERDICT_MINOR);
        assert_int_equal(vs[1].kind, CULPRIT_VERDICT_IMPROVEMENT);
        culprit_detect_verdict_dispose(&vs[0]);
        culprit_detect_verdict_dispose(&vs[1]);
    }
    culprit_history_run_free(now);
    culprit_history_run_free(before);
}

static void another_tool_version_or_a_native_baseline_is_mixed(void **state)
{
    culprit_run *now = new_run("c2", "t2"), *before = new_run(BASE_SHA, "t1");
    culprit_test_result *t = add(now, "fib", 1010000, VALGRIND);
    culprit_test_result *other = add(before, "fib", 1000000, "valgrind-3.22.0");
    culprit_test_result *native = add(before, "fib2", 1000000, NULL);
    culprit_detect_options o = CULPRIT_DETECT_OPTIONS_INIT;
    const culprit_test_result *results[1] = {other};
    const culprit_run *runs[1] = {before};
    culprit_baseline b = {1, results, runs, BASE_SHA, 0, 0, 0, NULL, NULL};
    culprit_verdict v;
    (void)state;

    v = judge(now, t, before, other, 0);
    assert_int_equal(v.kind, CULPRIT_VERDICT_MIXED);
    assert_string_equal(v.mismatch, "counted by valgrind-3.19.0 now, by valgrind-3.22.0 in the "
                                    "baseline");
    assert_non_null(strstr(v.message, "nothing compared: counted by valgrind-3.19.0 now"));
    culprit_detect_verdict_dispose(&v);
    v = judge(now, t, before, native, 0);
    assert_int_equal(v.kind, CULPRIT_VERDICT_MIXED);
    assert_string_equal(v.mismatch,
                        "counted by valgrind-3.19.0 now, measured natively (wall_ns) in the "
                        "baseline");
    culprit_detect_verdict_dispose(&v);
    /* The other way round: a natively measured result against a counted baseline. */
    v = judge(before, native, now, t, 0);
    assert_int_equal(v.kind, CULPRIT_VERDICT_MIXED);
    assert_string_equal(v.mismatch, "measured natively (wall_ns) now, counted by valgrind-3.19.0 "
                                    "in the baseline");
    culprit_detect_verdict_dispose(&v);
    /* --allow-mixed compares anyway. */
    o.allow_mixed = 1;
    assert_int_equal(culprit_detect_judge(&v, now, t, &b, &o), 0);
    assert_int_equal(v.kind, CULPRIT_VERDICT_MINOR);
    culprit_detect_verdict_dispose(&v);
    culprit_history_run_free(now);
    culprit_history_run_free(before);
}

static void no_minimum_of_samples_and_no_major_on_a_count(void **state)
{
    culprit_run *now = new_run("c2", "t2"), *before = new_run(BASE_SHA, "t1");
    culprit_test_result *t = add(now, "fib", 3e6, VALGRIND), *b;
    culprit_verdict v;
    (void)state;

    /* One repetition each side: still judged. */
    b = add(before, "fib", 2e6, VALGRIND);
    t->summary.n = b->summary.n = 1;
    v = judge(now, t, before, b, 0);
    assert_int_equal(v.kind, CULPRIT_VERDICT_MINOR); /* 3e6 "ns" is above 'fast': not major */
    assert_int_equal(v.now_n, 1);
    culprit_detect_verdict_dispose(&v);
    assert_int_equal(culprit_detect_judge(&v, now, t, NULL, NULL), 0);
    assert_int_equal(v.kind, CULPRIT_VERDICT_NO_BASELINE);
    assert_int_equal(v.evidence, CULPRIT_EVIDENCE_DETERMINISTIC);
    culprit_detect_verdict_dispose(&v);
    culprit_history_run_free(now);
    culprit_history_run_free(before);
}

static void a_noisy_aa_history_widens_the_threshold(void **state)
{
    /* Two runs at c1 differ by 0.4%; the threshold becomes 5 x 0.4% = 2%. */
    culprit_run *r[4] = {new_run("c0", "2026-01-01"), new_run("c1", "2026-01-02"),
                         new_run("c1", "2026-01-03"), new_run("c2", "2026-01-04")};
    culprit_history_runs all = {4, r, 0};
    const char *commits[] = {"c1", "c0"};
    culprit_check_options o = CULPRIT_CHECK_OPTIONS_INIT;
    culprit_check_result res;
    double spread, threshold;
    (void)state;

    add(r[0], "x", 1000000, VALGRIND);
    add(r[1], "x", 1000000, VALGRIND);
    add(r[2], "x", 1004000, VALGRIND);
    add(r[3], "x", 1015000, VALGRIND); /* +1.1% against c1: beyond 0.5%, within 2% */
    assert_int_equal(culprit_detect_count_spread(&spread, &all, r[3], &r[3]->tests[0], 10), 0);
    assert_true(fabs(spread - 0.004) < 1e-9);
    assert_int_equal(culprit_detect_count_threshold(&threshold, NULL, spread), 0);
    assert_true(fabs(threshold - 0.02) < 1e-9);
    assert_int_equal(culprit_detect_count_threshold(&threshold, NULL, 0.0001), 0);
    assert_true(fabs(threshold - 0.005) < 1e-12);
    assert_int_equal(culprit_detect_check(&res, &all, "c2", commits, 2, &o), 0);
    assert_int_equal(res.n, 1);
    assert_int_equal(res.verdicts[0].kind, CULPRIT_VERDICT_UNCHANGED);
    assert_non_null(strstr(res.verdicts[0].message, "threshold 2.00%"));
    culprit_detect_check_result_dispose(&res);
    /* Without the second run at c1 nothing widens it: +1.5% against c1 is minor. */
    r[2]->commit[1] = '9';
    assert_int_equal(culprit_detect_check(&res, &all, "c2", commits, 2, &o), 0);
    assert_int_equal(res.verdicts[0].kind, CULPRIT_VERDICT_MINOR);
    culprit_detect_check_result_dispose(&res);
    for (int i = 0; i < 4; i++)
        culprit_history_run_free(r[i]);
}

/* check --metric: the instructions series of natively timed runs, judged instead. */
static void check_metric_judges_another_series(void **state)
{
    culprit_run *r[2] = {new_run("c1", "2026-01-01"), new_run("c2", "2026-01-02")};
    culprit_history_runs all = {2, r, 0};
    const char *commits[] = {"c1"};
    culprit_check_result res;
    (void)state;

    for (int i = 0; i < 2; i++) {
        culprit_test_result *t = add(r[i], "x", 1e6, NULL); /* wall time: unchanged */
        double ins[6];
        for (int k = 0; k < 6; k++)
            ins[k] = (i ? 2e6 : 1e6) + k; /* instructions: doubled at c2 */
        assert_int_equal(culprit_history_test_result_add_series(t, "instructions", ins, 6, 0), 0);
    }
    assert_int_equal(culprit_detect_check(&res, &all, "c2", commits, 1, NULL), 0);
    assert_int_equal(res.verdicts[0].kind, CULPRIT_VERDICT_UNDECIDED); /* 3 samples < 5 */
    culprit_detect_check_result_dispose(&res);
    for (int i = 0; i < 2; i++)
        assert_int_equal(culprit_detect_select_metric(r[i], "instructions", 0.99), 0);
    assert_string_equal(r[1]->tests[0].metric, "instructions");
    assert_int_equal(r[1]->tests[0].summary.n, 6);
    assert_true(r[1]->tests[0].summary.mean == 2e6 + 2.5);
    assert_int_equal(r[1]->tests[0].judged.n, 6);
    assert_int_equal(culprit_detect_check(&res, &all, "c2", commits, 1, NULL), 0);
    assert_int_equal(res.verdicts[0].kind, CULPRIT_VERDICT_MINOR);
    /* Judged statistically (not counted), on one earlier run: unconfirmed. */
    assert_int_equal(res.verdicts[0].evidence, CULPRIT_EVIDENCE_UNCONFIRMED);
    culprit_detect_check_result_dispose(&res);
    /* A counted result judged on its wall time loses its tool; a missing series
     * leaves nothing to judge. */
    culprit_test_result *c = add(r[0], "y", 1e6, VALGRIND);
    assert_int_equal(culprit_detect_select_metric(r[0], "wall_ns", 0.99), 0);
    assert_null(c->counted_by);
    assert_int_equal(c->summary.n, 0);
    assert_false(culprit_history_test_result_measured(c));
    /* Samples not loaded: an error that says so. */
    culprit_test_result *d = add(r[1], "z", 1e6, NULL);
    double cpu[3] = {1, 2, 3};
    assert_int_equal(culprit_history_test_result_add_series(d, "cpu_ns", cpu, 3, 0), 0);
    free(d->series[d->nseries - 1].values); /* as a summary-only load leaves it */
    d->series[d->nseries - 1].values = NULL;
    assert_int_equal(culprit_detect_select_metric(r[1], "cpu_ns", 0.99), CULPRIT_EINVALID);
    assert_non_null(strstr(culprit_error_last(), "not loaded"));
    for (int i = 0; i < 2; i++)
        culprit_history_run_free(r[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counts_within_the_threshold_are_unchanged),
        cmocka_unit_test(one_percent_more_is_a_minor_regression_one_less_an_improvement),
        cmocka_unit_test(another_tool_version_or_a_native_baseline_is_mixed),
        cmocka_unit_test(no_minimum_of_samples_and_no_major_on_a_count),
        cmocka_unit_test(a_noisy_aa_history_widens_the_threshold),
        cmocka_unit_test(check_metric_judges_another_series),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
