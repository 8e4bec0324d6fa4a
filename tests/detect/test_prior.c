/*
 * Tests of borrowing strength across tests (framework/detect/prior.c): the pooled
 * run-to-run spread of a machine, and the rule that judges a young test's minor
 * regression with it, on synthetic summaries (deterministic).
 */
#include "support/test.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "culprit/detect.h"
#include "culprit/history.h"

#define MAX_RUNS 32

typedef struct {
    culprit_run *runs[MAX_RUNS];
    culprit_history_runs all;
    char commits[MAX_RUNS][8];
} history;

static culprit_run *new_run(history *h, const char *machine)
{
    culprit_run *run = NULL;
    size_t i = h->all.nruns;
    char stamp[40], id[16];

    assert_true(i < MAX_RUNS);
    snprintf(h->commits[i], sizeof(h->commits[i]), "c%02zu", i);
    snprintf(stamp, sizeof(stamp), "2026-01-01T00:%02zu:00.000000Z", i);
    snprintf(id, sizeof(id), "run%02zu", i);
    assert_int_equal(culprit_history_run_new(&run), 0);
    culprit_str_set(&run->suite, "s");
    culprit_str_set(&run->commit, h->commits[i]);
    culprit_str_set(&run->timestamp, stamp);
    culprit_str_set(&run->id, id);
    culprit_str_set(&run->machine, machine);
    culprit_str_set(&run->compiler, "gcc 12");
    h->runs[i] = run;
    h->all.runs = h->runs;
    h->all.nruns++;
    return run;
}

/* Adds a passing result: 30 samples at `mean`, sd 0.1% of it (tight within a run). */
static culprit_test_result *add(culprit_run *run, const char *name, double mean)
{
    culprit_test_result *t = NULL;
    assert_int_equal(culprit_history_run_add_test(&t, run), 0);
    culprit_str_set(&t->name, name);
    culprit_str_set(&t->classname, "s");
    t->status = CULPRIT_STATUS_PASS;
    t->summary.n = 30;
    t->summary.mean = mean;
    t->summary.sd = mean * 1e-3;
    t->summary.min = mean * 0.997;
    t->summary.max = mean * 1.003;
    return t;
}

static void history_dispose(history *h)
{
    for (size_t i = 0; i < h->all.nruns; i++)
        culprit_history_run_free(h->runs[i]);
}

/*
 * `nother` tests with `k` runs each whose means alternate by a factor exp(+-step)
 * (one run per commit, every test in each), then a young test "young" in the last
 * two of them: `before` at the first, `before * factor` at the last (the commit
 * judged). Checks the last commit against the one before it.
 */
static void check_young(culprit_check_result *r, history *h, size_t nother, size_t k, double step,
                        double before, double factor)
{
    culprit_check_options o = CULPRIT_CHECK_OPTIONS_INIT;
    const char *bases[MAX_RUNS];
    char name[32];

    memset(h, 0, sizeof(*h));
    for (size_t i = 0; i < k + 1; i++) {
        culprit_run *run = new_run(h, "m");
        for (size_t t = 0; t < nother && i < k; t++) {
            snprintf(name, sizeof(name), "other%zu", t);
            add(run, name, 1e6 * (t + 1) * exp(i % 2 ? step : -step));
        }
        if (i + 2 == k + 1)
            add(run, "young", before);
        if (i == k)
            add(run, "young", before * factor);
    }
    for (size_t i = 0; i < k; i++)
        bases[i] = h->commits[k - 1 - i];
    assert_int_equal(culprit_detect_check(r, &h->all, h->commits[k], bases, k, &o), 0);
}

static const culprit_verdict *find(const culprit_check_result *r, const char *test)
{
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp(r->verdicts[i].test, test))
            return &r->verdicts[i];
    fail_msg("no verdict of %s", test);
    return NULL;
}

/* The estimate itself: 3 tests x 6 runs whose log means alternate by +-0.02, so
 * every successive difference is 0.04: var = 0.04^2 / 2, m = 15 differences, df =
 * 2 * 15^2 / (3 * (3 * 5 - 1)) = 450 / 42. */
static void pooled_spread_is_the_halved_mean_square_of_successive_differences(void **state)
{
    culprit_check_result r;
    history h;
    culprit_run_spread s;
    double df = 450.0 / 42.0, var = 0.04 * 0.04 / 2;
    (void)state;

    check_young(&r, &h, 3, 6, 0.02, 1e6, 1.0);
    culprit_detect_check_result_dispose(&r);
    culprit_run *now = h.runs[h.all.nruns - 1];
    assert_int_equal(culprit_detect_run_spread(&s, &h.all, now, &now->tests[0], 10, 0.99), 0);
    assert_int_equal(s.tests, 3);
    assert_int_equal(s.runs, 18);
    assert_true(fabs(s.df - df) < 1e-12);
    assert_true(fabs(s.sd - sqrt(var)) < 1e-12);
    assert_true(fabs(s.upper - sqrt(df * var / gsl_cdf_chisq_Pinv(0.01, df))) < 1e-12);
    assert_true(s.upper > s.sd);
    /* a window of 3 runs per test: no test has enough, the default decides */
    assert_int_equal(culprit_detect_run_spread(&s, &h.all, now, &now->tests[0], 3, 0.99), 0);
    assert_int_equal(s.tests, 0);
    assert_true(s.upper == CULPRIT_DETECT_SPREAD_DEFAULT && s.df == 0);
    /* runs of another machine, dirty runs and later runs do not count */
    for (size_t i = 0; i < 3; i++)
        culprit_str_set(&h.runs[i]->machine, "other");
    h.runs[3]->dirty = 1;
    assert_int_equal(
        culprit_detect_run_spread(&s, &h.all, h.runs[5], &h.runs[5]->tests[0], 10, 0.99), 0);
    assert_int_equal(s.tests, 0); /* only run 4 is left before run 5 */
    assert_int_equal(culprit_detect_run_spread(&s, &h.all, now, &now->tests[0], 10, 2),
                     CULPRIT_EINVALID);
    history_dispose(&h);
}

/* A step change in one test's past moves one successive difference, not all. */
static void a_past_step_moves_one_difference(void **state)
{
    history h;
    culprit_run_spread s;
    (void)state;

    memset(&h, 0, sizeof(h));
    for (size_t i = 0; i < 9; i++)
        add(new_run(&h, "m"), "x", i < 4 ? 1e6 : 2e6);
    culprit_run *now = new_run(&h, "m");
    culprit_test_result *t = add(now, "x", 2e6);
    assert_int_equal(culprit_detect_run_spread(&s, &h.all, now, t, 10, 0.99), 0);
    assert_int_equal(s.tests, 1);
    assert_true(fabs(s.sd - log(2) / sqrt(2 * 8)) < 1e-12);
    history_dispose(&h);
}

/* The case: one earlier run, a 16x slowdown, quiet tests beside it. */
static void one_earlier_run_and_16x_is_a_confirmed_minor(void **state)
{
    culprit_check_result r;
    history h;
    (void)state;

    check_young(&r, &h, 3, 8, 0.01, 1e6, 16.0);
    const culprit_verdict *v = find(&r, "s.young");
    assert_int_equal(v->kind, CULPRIT_VERDICT_MINOR);
    assert_int_equal(v->evidence, CULPRIT_EVIDENCE_POOLED);
    assert_string_equal(culprit_detect_evidence_name(v->evidence), "pooled");
    assert_true(culprit_detect_verdict_confirmed(v));
    assert_int_equal(v->spread.tests, 3);
    assert_int_equal(v->spread.runs, 24);
    assert_true(v->change_low > v->spread_limit);
    assert_non_null(strstr(v->message, "confirmed by the pooled run-to-run spread"));
    assert_non_null(strstr(v->message, "pooled from 3 tests, 24 runs"));
    /* what --fail-on minor compares with */
    assert_int_equal(culprit_detect_check_worst(&r), CULPRIT_VERDICT_MINOR);
    /* the run compared with, named */
    assert_int_equal(v->nbase_runs, 1);
    assert_string_equal(v->base_runs[0].commit, h.commits[7]);
    assert_string_equal(v->base_runs[0].id, "run07");
    assert_string_equal(v->base_runs[0].timestamp, "2026-01-01T00:07:00.000000Z");
    assert_non_null(v->base_runs[0].machine);
    assert_true(v->base_runs[0].mean == 1e6 && v->base_runs[0].n == 30);
    assert_non_null(strstr(v->message, "(run run07)"));
    culprit_detect_check_result_dispose(&r);
    history_dispose(&h);
}

/* A change within what the machine's runs do stays unconfirmed; the same change on
 * a quiet machine does not. */
static void a_change_within_the_pooled_spread_stays_unconfirmed(void **state)
{
    culprit_check_result r;
    history h;
    (void)state;

    /* runs 20% apart (log +-0.1): +50% is within 7x the spread */
    check_young(&r, &h, 3, 8, 0.1, 1e6, 1.5);
    const culprit_verdict *v = find(&r, "s.young");
    assert_int_equal(v->kind, CULPRIT_VERDICT_MINOR);
    assert_int_equal(v->evidence, CULPRIT_EVIDENCE_UNCONFIRMED);
    assert_false(culprit_detect_verdict_confirmed(v));
    assert_true(v->change_low < v->spread_limit);
    assert_non_null(strstr(v->message, "unconfirmed"));
    assert_non_null(strstr(v->message, "within 7 x the spread"));
    assert_int_equal(culprit_detect_check_worst(&r), CULPRIT_VERDICT_UNCHANGED);
    culprit_detect_check_result_dispose(&r);
    history_dispose(&h);
    /* runs 0.2% apart: the same +50% is still within the least spread assumed (9%,
     * limit +144%), a 3x change is beyond */
    check_young(&r, &h, 3, 8, 0.001, 1e6, 1.5);
    v = find(&r, "s.young");
    assert_int_equal(v->evidence, CULPRIT_EVIDENCE_UNCONFIRMED);
    assert_true(fabs(v->spread_limit - expm1(7 * 0.09 * sqrt(2))) < 1e-12);
    culprit_detect_check_result_dispose(&r);
    history_dispose(&h);
    check_young(&r, &h, 3, 8, 0.001, 1e6, 3.0);
    v = find(&r, "s.young");
    assert_int_equal(v->evidence, CULPRIT_EVIDENCE_POOLED);
    assert_int_equal(culprit_detect_check_worst(&r), CULPRIT_VERDICT_MINOR);
    culprit_detect_check_result_dispose(&r);
    history_dispose(&h);
}

/* No test with enough runs: the default (25%) decides, beyond exp(7 x 0.25 x sqrt 2)
 * = x11.9. */
static void without_other_tests_the_default_decides(void **state)
{
    culprit_check_result r;
    history h;
    (void)state;

    check_young(&r, &h, 0, 1, 0, 1e6, 16.0);
    const culprit_verdict *v = find(&r, "s.young");
    assert_int_equal(v->evidence, CULPRIT_EVIDENCE_POOLED);
    assert_int_equal(v->spread.tests, 0);
    assert_true(v->spread.upper == CULPRIT_DETECT_SPREAD_DEFAULT);
    assert_true(fabs(v->spread_limit - expm1(7 * 0.25 * sqrt(2))) < 1e-12);
    assert_non_null(strstr(v->message, "the default"));
    culprit_detect_check_result_dispose(&r);
    history_dispose(&h);
    check_young(&r, &h, 0, 1, 0, 1e6, 5.0);
    v = find(&r, "s.young");
    assert_int_equal(v->kind, CULPRIT_VERDICT_MINOR);
    assert_int_equal(v->evidence, CULPRIT_EVIDENCE_UNCONFIRMED);
    assert_non_null(strstr(v->message, "the default"));
    culprit_detect_check_result_dispose(&r);
    history_dispose(&h);
}

/*
 * 3 other tests x 8 runs whose means alternate by exp(+-mean_step) while their floors
 * (fastest samples, 90% of the mean at rest) alternate by exp(+-floor_step), as on a
 * loaded machine where a run's mean moves with the load and its floor does not; then
 * "young" once before (mean 1 ms, floor 0.9 ms) and now, its mean and floor by the
 * factors given. Checks the last commit against the one before it.
 */
static void check_floors(culprit_check_result *r, history *h, double mean_step, double floor_step,
                         double mean_factor, double floor_factor)
{
    culprit_check_options o = CULPRIT_CHECK_OPTIONS_INIT;
    const char *bases[MAX_RUNS];
    char name[32];
    size_t k = 8;

    memset(h, 0, sizeof(*h));
    for (size_t i = 0; i < k + 1; i++) {
        culprit_run *run = new_run(h, "m");
        for (size_t t = 0; t < 3 && i < k; t++) {
            snprintf(name, sizeof(name), "other%zu", t);
            add(run, name, 1e6 * (t + 1) * exp(i % 2 ? mean_step : -mean_step))->summary.min =
                0.9e6 * (t + 1) * exp(i % 2 ? floor_step : -floor_step);
        }
        if (i + 2 == k + 1)
            add(run, "young", 1e6)->summary.min = 0.9e6;
        if (i == k)
            add(run, "young", 1e6 * mean_factor)->summary.min = 0.9e6 * floor_factor;
    }
    for (size_t i = 0; i < k; i++)
        bases[i] = h->commits[k - 1 - i];
    assert_int_equal(culprit_detect_check(r, &h->all, h->commits[k], bases, k, &o), 0);
}

/* The rule judges floors: runs whose means wander +-35% (as beside two CPU hogs)
 * while their floors stay within 1% confirm a 3x slowdown of the floor; judged on the
 * means' spread, 7 x its upper bound would ask for more than x20. */
static void a_3x_floor_is_confirmed_where_means_wander(void **state)
{
    culprit_check_result r;
    history h;
    (void)state;

    check_floors(&r, &h, 0.3, 0.005, 3.0, 3.0);
    const culprit_verdict *v = find(&r, "s.young");
    assert_int_equal(v->kind, CULPRIT_VERDICT_MINOR);
    assert_int_equal(v->evidence, CULPRIT_EVIDENCE_POOLED);
    assert_true(fabs(v->floor_change - 2.0) < 1e-9);
    assert_true(v->spread.sd < 0.01);
    assert_true(v->floor_change > v->spread_limit);
    assert_non_null(strstr(v->message, "the floor (fastest sample) moved +200.0%, beyond 7 x"));
    culprit_detect_check_result_dispose(&r);
    history_dispose(&h);
}

/* A mean 3x higher whose floor did not move (the run was slowed, not the code) stays
 * unconfirmed, however quiet the machine's other tests are. */
static void a_mean_up_with_its_floor_unchanged_stays_unconfirmed(void **state)
{
    culprit_check_result r;
    history h;
    (void)state;

    check_floors(&r, &h, 0.005, 0.005, 3.0, 1.0);
    const culprit_verdict *v = find(&r, "s.young");
    assert_int_equal(v->kind, CULPRIT_VERDICT_MINOR);
    assert_int_equal(v->evidence, CULPRIT_EVIDENCE_UNCONFIRMED);
    assert_true(fabs(v->floor_change) < 1e-9);
    assert_non_null(strstr(v->message, "the floor (fastest sample) moved "));
    assert_non_null(strstr(v->message, "%, within 7 x the spread"));
    assert_int_equal(culprit_detect_check_worst(&r), CULPRIT_VERDICT_UNCHANGED);
    culprit_detect_check_result_dispose(&r);
    history_dispose(&h);
}

/* A run from a dirty tree is never the baseline unless asked (allow_dirty), in a
 * check and in a comparison of two runs; the verdict names the run it used. */
static void a_dirty_run_is_no_baseline_unless_asked(void **state)
{
    culprit_check_options o = CULPRIT_CHECK_OPTIONS_INIT;
    culprit_check_result r;
    history h;
    (void)state;

    memset(&h, 0, sizeof(h));
    add(new_run(&h, "m"), "x", 1e6); /* c00: clean */
    add(new_run(&h, "m"), "x", 2e6); /* c01: dirty, slow */
    add(new_run(&h, "m"), "x", 1e6); /* c02: judged */
    h.runs[1]->dirty = 1;
    culprit_str_set(&h.runs[1]->commit, "c00"); /* "c00 plus changes" */
    const char *bases[] = {"c00"};
    assert_int_equal(culprit_detect_check(&r, &h.all, "c02", bases, 1, &o), 0);
    assert_int_equal(r.verdicts[0].kind, CULPRIT_VERDICT_UNCHANGED);
    assert_string_equal(r.verdicts[0].base_runs[0].id, "run00");
    assert_false(r.verdicts[0].base_runs[0].dirty);
    culprit_detect_check_result_dispose(&r);
    o.detect.allow_dirty = 1;
    assert_int_equal(culprit_detect_check(&r, &h.all, "c02", bases, 1, &o), 0);
    assert_int_equal(r.verdicts[0].kind, CULPRIT_VERDICT_IMPROVEMENT);
    assert_string_equal(r.verdicts[0].base_runs[0].id, "run01");
    assert_true(r.verdicts[0].base_runs[0].dirty);
    assert_non_null(strstr(r.verdicts[0].message, "(run run01, dirty tree)"));
    culprit_detect_check_result_dispose(&r);
    /* two runs compared: the dirty one is no baseline either */
    o.detect.allow_dirty = 0;
    assert_int_equal(culprit_detect_compare_runs(&r, h.runs[1], h.runs[2], &o), 0);
    assert_int_equal(r.verdicts[0].kind, CULPRIT_VERDICT_MIXED);
    assert_non_null(strstr(r.verdicts[0].message, "--allow-dirty"));
    culprit_detect_check_result_dispose(&r);
    o.detect.allow_dirty = 1;
    assert_int_equal(culprit_detect_compare_runs(&r, h.runs[1], h.runs[2], &o), 0);
    assert_int_equal(r.verdicts[0].kind, CULPRIT_VERDICT_IMPROVEMENT);
    culprit_detect_check_result_dispose(&r);
    history_dispose(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pooled_spread_is_the_halved_mean_square_of_successive_differences),
        cmocka_unit_test(a_past_step_moves_one_difference),
        cmocka_unit_test(one_earlier_run_and_16x_is_a_confirmed_minor),
        cmocka_unit_test(a_change_within_the_pooled_spread_stays_unconfirmed),
        cmocka_unit_test(without_other_tests_the_default_decides),
        cmocka_unit_test(a_3x_floor_is_confirmed_where_means_wander),
        cmocka_unit_test(a_mean_up_with_its_floor_unchanged_stays_unconfirmed),
        cmocka_unit_test(a_dirty_run_is_no_baseline_unless_asked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
