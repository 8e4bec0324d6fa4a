/*
 * Tests of `culprit bisect --auto`'s choice of the two ends
 * (culprit_bisect_auto_range_of) on synthetic histories: one run of the test per
 * commit of a first-parent line, at planted means far beyond the noise (30%
 * against a standard deviation of 1%), so every verdict is certain and only the
 * choice is under test. No repository, no measuring.
 */
#include "support/test.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "culprit/bisect.h"
#include "culprit/detect.h"

#define MAXC 8

/* A first-parent line of n commits, newest first as culprit_vcs_first_parents gives
 * it, and the runs at them: commit k (k = 0 the oldest) ran at means[k] ns, or not
 * at all when means[k] is NAN. */
typedef struct {
    char shas[MAXC][41];
    const char *line[MAXC];
    culprit_run *runs[MAXC];
    culprit_history_runs history;
    size_t n;
} fixture;

static const char *sha_of(fixture *f, size_t k)
{
    return f->shas[k];
}

static void fixture_init(fixture *f, const double *means, size_t n)
{
    memset(f, 0, sizeof(*f));
    f->n = n;
    f->history.runs = f->runs;
    for (size_t k = 0; k < n; k++) {
        char stamp[64];
        culprit_run *run = NULL;
        culprit_test_result *t = NULL;
        snprintf(f->shas[k], sizeof(f->shas[k]), "%040zx", k + 0xc0);
        f->line[n - 1 - k] = f->shas[k];
        if (isnan(means[k]))
            continue;
        snprintf(stamp, sizeof(stamp), "2026-01-0%zuT00:00:00.000000Z", k + 1);
        assert_int_equal(culprit_history_run_new(&run), 0);
        culprit_str_set(&run->suite, "s");
        culprit_str_set(&run->commit, f->shas[k]);
        culprit_str_set(&run->timestamp, stamp);
        culprit_str_set(&run->machine, "m");
        culprit_str_set(&run->compiler, "gcc 12");
        assert_int_equal(culprit_history_run_add_test(&t, run), 0);
        culprit_str_set(&t->name, "fib");
        culprit_str_set(&t->classname, "s");
        t->status = CULPRIT_STATUS_PASS;
        t->summary.n = 30;
        t->summary.mean = means[k];
        t->summary.sd = means[k] / 100;
        t->summary.min = means[k] * 0.97;
        t->summary.max = means[k] * 1.03;
        f->runs[f->history.nruns++] = run;
    }
}

static void fixture_dispose(fixture *f)
{
    for (size_t i = 0; i < f->history.nruns; i++)
        culprit_history_run_free(f->runs[i]);
}

static int choose(fixture *f, char good[41], char bad[41])
{
    return culprit_bisect_auto_range_of(good, bad, &f->history, "s.fib", f->line, f->n);
}

static void ends_are_the_last_fine_commit_and_the_first_flagged_one(void **state)
{
    const double means[] = {100e3, 100e3, 100e3, 100e3, 130e3};
    char good[41], bad[41];
    fixture f;
    (void)state;
    fixture_init(&f, means, 5);
    assert_int_equal(choose(&f, good, bad), 0);
    assert_string_equal(good, sha_of(&f, 3));
    assert_string_equal(bad, sha_of(&f, 4));
    fixture_dispose(&f);
}

static void a_regression_undone_later_gives_no_range(void **state)
{
    /* Slower at commit 2, back to the old time at 3: fine again, so commit 2's
     * regression is no longer the one to find and nothing is flagged after 3. */
    const double means[] = {100e3, 100e3, 130e3, 100e3};
    char good[41], bad[41];
    fixture f;
    (void)state;
    fixture_init(&f, means, 4);
    assert_int_equal(choose(&f, good, bad), CULPRIT_ENOTFOUND);
    fixture_dispose(&f);
}

static void a_later_regression_is_the_one_found(void **state)
{
    /* Two flagged commits after the last fine one: the first of them is bad. */
    const double means[] = {100e3, 100e3, 100e3, 130e3, 170e3};
    char good[41], bad[41];
    fixture f;
    (void)state;
    fixture_init(&f, means, 5);
    assert_int_equal(choose(&f, good, bad), 0);
    assert_string_equal(good, sha_of(&f, 2));
    assert_string_equal(bad, sha_of(&f, 3));
    fixture_dispose(&f);
}

static void commits_without_runs_of_the_test_are_passed_over(void **state)
{
    const double means[] = {100e3, 100e3, 100e3, NAN, NAN, 130e3};
    char good[41], bad[41];
    fixture f;
    (void)state;
    fixture_init(&f, means, 6);
    assert_int_equal(choose(&f, good, bad), 0);
    assert_string_equal(good, sha_of(&f, 2));
    assert_string_equal(bad, sha_of(&f, 5));
    fixture_dispose(&f);
}

static void a_history_without_a_flagged_commit_gives_no_range(void **state)
{
    const double means[] = {100e3, 100e3, 100e3, 100e3};
    char good[41], bad[41];
    fixture f;
    (void)state;
    fixture_init(&f, means, 4);
    assert_int_equal(choose(&f, good, bad), CULPRIT_ENOTFOUND);
    assert_non_null(strstr(culprit_error_last(), "no flagged commit"));
    assert_string_equal(bad, "");
    fixture_dispose(&f);
}

static void a_test_never_run_gives_no_range(void **state)
{
    const double means[] = {NAN, NAN, NAN};
    char good[41], bad[41];
    fixture f;
    (void)state;
    fixture_init(&f, means, 3);
    assert_int_equal(choose(&f, good, bad), CULPRIT_ENOTFOUND);
    assert_string_equal(good, "");
    fixture_dispose(&f);
}

static void an_empty_line_gives_no_range(void **state)
{
    char good[41], bad[41];
    culprit_history_runs none = {0, NULL, 0};
    (void)state;
    assert_int_equal(culprit_bisect_auto_range_of(good, bad, &none, "s.fib", NULL, 0),
                     CULPRIT_ENOTFOUND);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ends_are_the_last_fine_commit_and_the_first_flagged_one),
        cmocka_unit_test(a_regression_undone_later_gives_no_range),
        cmocka_unit_test(a_later_regression_is_the_one_found),
        cmocka_unit_test(commits_without_runs_of_the_test_are_passed_over),
        cmocka_unit_test(a_history_without_a_flagged_commit_gives_no_range),
        cmocka_unit_test(a_test_never_run_gives_no_range),
        cmocka_unit_test(an_empty_line_gives_no_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
