/*
 * `culprit check` on counted and other series, end to end: the built binary on
 * synthetic history in a throw-away repository. A test counted under Valgrind
 * (counted-by set) is judged by the deterministic rule (+1% is a minor regression
 * with 3 repetitions and one run of history, --instructions-threshold moves the
 * line); `--metric instructions` judges the instruction series of natively timed
 * runs instead of their time.
 */
#include "support/test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/cli_fixture.h"

/* The runs at c[2] and c[3]: "counted" (instructions under Valgrind, +1% at c[3]) and
 * "timed" (wall time unchanged; its instruction series twice as large at c[3]). */
static void store_runs(const repo_fixture *repo)
{
    const synthetic_test tests[] = {{"counted", 1e6, 0, 3, "fast", CULPRIT_STATUS_PASS},
                                    {"timed", 1e5, 1e3, 30, "fast", CULPRIT_STATUS_PASS}};
    const char *stamps[2] = {"2024-03-03T12:00:00Z", "2024-03-04T12:00:00Z"};

    for (int k = 0; k < 2; k++) {
        culprit_run *run = fixture_run("perf", repo->sha[2 + k], stamps[k], NULL, tests, 2);
        culprit_test_result *c = &run->tests[0], *t = &run->tests[1];
        double count = k ? 1.01e6 : 1e6, ins[30];
        culprit_str_set(&c->metric, "instructions");
        culprit_str_set(&c->counted_by, "valgrind-3.19.0");
        c->summary.mean = c->summary.median = c->judged.mean = c->judged.median = count;
        for (int i = 0; i < 30; i++)
            ins[i] = (k ? 2e5 : 1e5) + i;
        assert_int_equal(culprit_history_test_result_add_series(t, "instructions", ins, 30, 0), 0);
        fixture_store(repo->history, run);
    }
}

static void check_judges_counts_and_other_series(void **state)
{
    repo_fixture repo;
    cli_result r;
    char *line;
    (void)state;

    fixture_repo(&repo);
    store_runs(&repo);
    r = run_culprit(repo.dir, NULL, "check --fail-on minor");
    assert_int_equal(r.status, 1);
    line = line_with(r.out, "perf.counted: ");
    assert_contains(line, "MINOR");
    assert_contains(line, "1010000 instructions now");
    assert_contains(line, "+1.00% (counted by valgrind-3.19.0; threshold 0.50%)");
    free(line);
    line = line_with(r.out, "perf.timed: ");
    assert_contains(line, "unchanged");
    free(line);
    cli_result_dispose(&r);

    r = run_culprit(repo.dir, NULL, "check --fail-on minor --instructions-threshold 2 --json");
    assert_int_equal(r.status, 0);
    cli_result_dispose(&r);

    /* The instruction series of the timed test, doubled: judged instead of its time. */
    r = run_culprit(repo.dir, NULL, "check --metric instructions --test perf.timed");
    line = line_with(r.out, "perf.timed: ");
    assert_contains(line, "MINOR");
    free(line);
    cli_result_dispose(&r);
    fixture_remove(&repo);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(check_judges_counts_and_other_series),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
