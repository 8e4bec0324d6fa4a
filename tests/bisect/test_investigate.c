/*
 * Tests of culprit_bisect_investigate() (framework/bisect/investigate.c): which
 * tests of a check are investigated, how they are grouped by range and ordered, a
 * range of one commit going straight to the call trees, a failure kept as the
 * investigation's status, and the budget. A four-commit repository made with git
 * and a check result written by hand; the build command fails at once, so nothing
 * is built or run and every path ends in milliseconds (the whole loop with real
 * builds is tests/e2e/check_investigate.sh).
 */
#include "support/test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "culprit/bisect.h"
#include "culprit/core.h"
#include "support/git_fixture.h"
#include "support/tmpdir.h"

static char repo[4096];
static char sha[4][41];

static int setup(void **state)
{
    (void)state;
    if (test_tmpdir_make(repo, sizeof(repo), "investigate") < 0)
        return -1;
    run("cd '%s' && " GIT " init -q", repo);
    for (int i = 0; i < 4; i++) {
        char name[16];
        snprintf(name, sizeof(name), "f%d", i);
        write_file(repo, name, "x\n");
        run("cd '%s' && " GIT " add -A && " GIT " commit -qm c%d", repo, i);
        output_of(sha[i], sizeof(sha[i]), "cd '%s' && git rev-parse HEAD", repo);
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_tmpdir_remove(repo);
    return 0;
}

/* A run at commit `c` with the measured tests `names` (NULL-terminated). */
static culprit_run *run_at(int c, const char *const *names)
{
    culprit_run *r;
    assert_int_equal(culprit_history_run_new(&r), 0);
    assert_int_equal(culprit_str_set(&r->commit, sha[c]), 0);
    assert_int_equal(culprit_str_set(&r->suite, "s"), 0);
    for (; *names; names++) {
        culprit_test_result *t;
        assert_int_equal(culprit_history_run_add_test(&t, r), 0);
        assert_int_equal(culprit_str_set(&t->name, *names), 0);
        t->status = CULPRIT_STATUS_PASS;
        t->summary.n = 10;
        t->summary.mean = 1e6;
    }
    return r;
}

/*
 * The history: s.a, s.b, s.c measured at c0 and c3, s.d at c2 and c3. The check of
 * c3: a and b major (b's change smaller), c an unconfirmed minor, d a confirmed
 * minor, e unchanged.
 */
typedef struct {
    culprit_history_runs runs;
    culprit_check_result check;
    const char *bases[3];
} scenario;

static void scenario_make(scenario *s)
{
    static const char *const old_abc[] = {"a", "b", "c", "e", NULL}, *const old_d[] = {"d", NULL};
    static const char *const now[] = {"a", "b", "c", "d", "e", NULL};
    static const struct {
        const char *key;
        culprit_verdict_kind kind;
        double change;
        culprit_evidence evidence;
    } v[5] = {{"s.a", CULPRIT_VERDICT_MAJOR, 4.0, CULPRIT_EVIDENCE_HISTORY},
              {"s.b", CULPRIT_VERDICT_MAJOR, 1.0, CULPRIT_EVIDENCE_HISTORY},
              {"s.c", CULPRIT_VERDICT_MINOR, 9.0, CULPRIT_EVIDENCE_UNCONFIRMED},
              {"s.d", CULPRIT_VERDICT_MINOR, 0.5, CULPRIT_EVIDENCE_HISTORY},
              {"s.e", CULPRIT_VERDICT_UNCHANGED, 0.0, CULPRIT_EVIDENCE_HISTORY}};

    memset(s, 0, sizeof(*s));
    s->runs.nruns = 3;
    s->runs.runs = calloc(3, sizeof(*s->runs.runs));
    assert_non_null(s->runs.runs);
    s->runs.runs[0] = run_at(0, old_abc);
    s->runs.runs[1] = run_at(2, old_d);
    s->runs.runs[2] = run_at(3, now);
    s->check.n = 5;
    s->check.verdicts = calloc(5, sizeof(*s->check.verdicts));
    s->check.now = calloc(5, sizeof(*s->check.now));
    s->check.now_runs = calloc(5, sizeof(*s->check.now_runs));
    assert_true(s->check.verdicts && s->check.now && s->check.now_runs);
    for (size_t i = 0; i < 5; i++) {
        s->check.verdicts[i].kind = v[i].kind;
        s->check.verdicts[i].test = culprit_strdup(v[i].key);
        s->check.verdicts[i].change = v[i].change;
        s->check.verdicts[i].evidence = v[i].evidence;
        s->check.now[i] = &s->runs.runs[2]->tests[i];
        s->check.now_runs[i] = s->runs.runs[2];
    }
    s->check.detectors = CULPRIT_DETECTOR_TIME;
    /* c3's first-parent ancestors, newest first */
    for (int i = 0; i < 3; i++)
        s->bases[i] = sha[2 - i];
}

static void scenario_dispose(scenario *s)
{
    culprit_detect_check_result_dispose(&s->check);
    culprit_history_runs_dispose(&s->runs);
}

static culprit_investigate_options options(double budget_s)
{
    culprit_investigate_options o;
    assert_int_equal(
        culprit_bisect_investigate_options_init(&o, CULPRIT_INVESTIGATE_OPTIONS_VERSION), 0);
    o.bisect.measure.repository = repo;
    o.bisect.measure.build = "exit 3";
    o.bisect.perf.run = "true";
    o.budget_s = budget_s;
    return o;
}

/* Majors first and grouped by range; an unconfirmed minor and an unchanged test
 * left alone; a range of one commit not bisected; failures kept as statuses. */
static void regressions_grouped_by_range_and_failures_kept(void **state)
{
    culprit_investigate_options o = options(0);
    culprit_investigation *inv = NULL;
    scenario s;
    size_t n = 0;
    (void)state;

    scenario_make(&s);
    assert_int_equal(culprit_bisect_investigate(&inv, &n, &s.check, &s.runs, s.bases, 3, &o), 0);
    assert_int_equal(n, 2);
    /* a and b regressed over c0..c3: one bisection, a (the larger change) first */
    assert_int_equal(inv[0].ntests, 2);
    assert_string_equal(inv[0].tests[0], "s.a");
    assert_string_equal(inv[0].tests[1], "s.b");
    assert_string_equal(inv[0].good, sha[0]);
    assert_string_equal(inv[0].bad, sha[3]);
    assert_int_equal(inv[0].ncommits, 3);
    assert_int_equal(inv[0].bisected, 1);
    /* a step must be slower by half the change seen, at most 100% */
    assert_true(inv[0].threshold == 1.0);
    assert_int_equal(inv[0].status, CULPRIT_INVESTIGATION_FAILED);
    assert_non_null(strstr(inv[0].error, "does not build"));
    assert_null(inv[0].function);
    /* d: one commit, straight to the call trees, whose failed build is reported
     * beside the commit named */
    assert_int_equal(inv[1].ntests, 1);
    assert_string_equal(inv[1].tests[0], "s.d");
    assert_int_equal(inv[1].ncommits, 1);
    assert_int_equal(inv[1].bisected, 0);
    assert_true(inv[1].threshold == 0.25);
    assert_int_equal(inv[1].status, CULPRIT_INVESTIGATION_FOUND);
    assert_string_equal(inv[1].result.culprit, sha[3]);
    assert_string_equal(inv[1].result.parent, sha[2]);
    assert_true(inv[1].result.change == 0.5);
    assert_non_null(inv[1].result.calltree_error);
    assert_non_null(strstr(inv[1].result.calltree_error, "building for the call trees"));
    assert_true(culprit_bisect_investigation_of(inv, n, "s.b") == &inv[0]);
    assert_null(culprit_bisect_investigation_of(inv, n, "s.c"));
    assert_null(culprit_bisect_investigation_of(inv, n, "s.e"));
    culprit_bisect_investigations_free(inv, n);
    scenario_dispose(&s);
}

/* A budget spent before anything starts: every range reported, none run. */
static void budget_spent_reports_every_range_not_investigated(void **state)
{
    culprit_investigate_options o = options(1e-9);
    culprit_investigation *inv = NULL;
    scenario s;
    size_t n = 0;
    (void)state;

    scenario_make(&s);
    usleep(1000);
    assert_int_equal(culprit_bisect_investigate(&inv, &n, &s.check, &s.runs, s.bases, 3, &o), 0);
    assert_int_equal(n, 2);
    for (size_t k = 0; k < n; k++) {
        assert_int_equal(inv[k].status, CULPRIT_INVESTIGATION_NOT_INVESTIGATED);
        assert_non_null(strstr(inv[k].error, "budget"));
        assert_int_equal(inv[k].result.builds, 0);
    }
    assert_string_equal(culprit_bisect_investigation_status_name(inv[0].status),
                        "not-investigated");
    culprit_bisect_investigations_free(inv, n);
    scenario_dispose(&s);
}

static void options_are_checked(void **state)
{
    culprit_investigate_options o = options(-1);
    culprit_investigation *inv = (void *)1;
    culprit_bisect_options b = CULPRIT_BISECT_OPTIONS_INIT;
    culprit_bisect_result r;
    scenario s;
    size_t n = 7;
    (void)state;

    scenario_make(&s);
    assert_int_equal(culprit_bisect_investigate(&inv, &n, &s.check, &s.runs, s.bases, 3, &o),
                     CULPRIT_EINVALID);
    assert_null(inv);
    assert_int_equal(n, 0);
    assert_int_equal(culprit_bisect_investigate_options_init(&o, 99), CULPRIT_EINVALID);
    /* the bisection's template, by the one validator, before anything runs: one run is
     * no minimum; a command is not a perf test */
    o = options(0);
    o.bisect.measure.min_runs = 1;
    assert_int_equal(culprit_bisect_investigate(&inv, &n, &s.check, &s.runs, s.bases, 3, &o),
                     CULPRIT_EINVALID);
    assert_non_null(strstr(culprit_error_last(), "min_runs"));
    o = options(0);
    o.bisect.perf.run = NULL;
    o.bisect.command.line = "true";
    assert_int_equal(culprit_bisect_investigate(&inv, &n, &s.check, &s.runs, s.bases, 3, &o),
                     CULPRIT_EINVALID);
    assert_null(inv);
    /* the call-tree session needs the commit and a run command with its test */
    b.measure.repository = repo;
    assert_int_equal(culprit_bisect_calltree_session(&r, &b), CULPRIT_EINVALID);
    assert_null(culprit_bisect_investigation_status_name((culprit_investigation_status)9));
    scenario_dispose(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(regressions_grouped_by_range_and_failures_kept),
        cmocka_unit_test(budget_spent_reports_every_range_not_investigated),
        cmocka_unit_test(options_are_checked),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
