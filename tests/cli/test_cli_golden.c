/*
 * Golden tests of the JSON documents scripts rely on (docs/cli.md): `culprit check
 * --json` and `culprit history --json` on the scenario of cli_fixture.c, compared
 * with tests/cli/golden/ after replacing the commit ids with <c0>..<c3> and the
 * temporary directory with <TMP>. Numbers are compared to 1e-9 relative, so a
 * different libm in the last digits of a p-value does not fail the test; every key,
 * string and count must match. CULPRIT_UPDATE_GOLDEN=1 rewrites the files.
 */
#include "support/test.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/cli_fixture.h"
#include "culprit/stats.h"
#include "support/counters_synth.h"

static void check_golden(const repo_fixture *repo, const char *args, const char *golden_name,
                         int status)
{
    cli_result r = run_culprit(repo->dir, NULL, "%s", args);
    char *actual;

    assert_int_equal(r.status, status);
    actual = golden_normalize(r.out, repo);
    r.out = NULL;
    assert_json_golden(actual, golden_name, args);
    free(actual);
    cli_result_dispose(&r);
}

static void check_json_matches_golden(void **state)
{
    check_golden(*state, "check --json", "check.json", 1);
}

static void check_pool_json_matches_golden(void **state)
{
    /* The pooled baseline's minor rests on 2 earlier runs: unconfirmed, exit 0. */
    check_golden(*state, "check --json --pool 2 --fail-on minor --test perf.minor",
                 "check_pool.json", 0);
}

static void history_json_matches_golden(void **state)
{
    check_golden(*state, "history --json", "history.json", 0);
}

/* ---------------------------------------------------- counter detectors --- */

/*
 * One test, io.journal, with the counter series of tests/support/counters_synth.h
 * (40 observations per run, deterministic): c[1], c[2] twice (an A/A pair), and
 * c[3], where write_bytes is doubled and nothing else changes.
 */
static void store_counter_run(const repo_fixture *repo, int commit, const char *stamp,
                              uint64_t seed, double write_scale)
{
    const synthetic_test one[] = {{"journal", 1e6, 5e4, 40, "medium", CULPRIT_STATUS_PASS}};
    culprit_run *run = fixture_run("io", repo->sha[commit], stamp, NULL, one, 1);
    /* The time verdict reads the summary: it becomes the wall_ns series'. */
    assert_int_equal(synth_result(&run->tests[0], 40, seed, write_scale), 0);
    fixture_store(repo->history, run);
}

static int counters_setup(void **state)
{
    static repo_fixture repo;

    fixture_repo(&repo);
    store_counter_run(&repo, 1, "2024-03-02T12:00:00Z", 11, 1.0);
    store_counter_run(&repo, 2, "2024-03-03T12:00:00Z", 12, 1.0);
    store_counter_run(&repo, 2, "2024-03-03T12:30:00Z", 13, 1.0);
    store_counter_run(&repo, 3, "2024-03-04T12:00:00Z", 14, 2.0);
    *state = &repo;
    return 0;
}

static void check_counters_json_matches_golden(void **state)
{
    /* Flagged by the counter detectors only: a minor regression, exit 0 under the
     * default --fail-on major. */
    check_golden(*state, "check --json --detector=time,clusters,rules", "check_counters.json", 0);
}

static void check_counters_text_and_exit_status(void **state)
{
    const repo_fixture *repo = *state;
    cli_result r = run_culprit(repo->dir, NULL,
                               "check --detector=time,clusters,rules "
                               "--fail-on minor");
    char *line;

    assert_int_equal(r.status, 1);
    line = line_with(r.out, "  CLUSTERS ");
    assert_contains(line, "write_bytes");
    assert_contains(line, "from A/A runs");
    free(line);
    line = line_with(r.out, "  RULES ");
    assert_contains(line, "write_bytes");
    free(line);
    cli_result_dispose(&r);
    /* The time detector alone sees nothing to fail on. */
    r = run_culprit(repo->dir, NULL, "check --detector=time --fail-on minor");
    assert_int_equal(r.status, 0);
    assert_lacks(r.out, "CLUSTERS");
    assert_lacks(r.out, "clusters");
    cli_result_dispose(&r);
    /* A/A: at c[2] against c[1], nothing is flagged. */
    r = run_culprit(repo->dir, NULL,
                    "check --commit HEAD~1 --detector=clusters,rules "
                    "--fail-on minor");
    assert_int_equal(r.status, 0);
    assert_contains(r.out, "  clusters ");
    assert_contains(r.out, "  rules ");
    cli_result_dispose(&r);
}

static void check_counters_junit_and_bad_detector(void **state)
{
    const repo_fixture *repo = *state;
    char path[512], *xml;

    snprintf(path, sizeof(path), "%s/verdicts.xml", repo->dir);
    expect_culprit(repo->dir, 1, NULL,
                   "check --detector=time,clusters --fail-on minor --junit '%s'", path);
    assert_non_null(xml = read_text(path));
    assert_contains(xml, "<failure type=\"culprit.minor-regression\"");
    assert_contains(xml, "counter clusters regressed");
    free(xml);
    expect_culprit(repo->dir, 2, "unknown detector 'cluster'", "check --detector=time,cluster");
}

/* The report shows what the counter detectors say, in every format. */
static void report_shows_the_counter_detectors(void **state)
{
    const repo_fixture *repo = *state;
    cli_result r =
        run_culprit(repo->dir, NULL, "report --format markdown --detector=time,clusters,rules");
    char *line;

    assert_int_equal(r.status, 0);
    line = line_with(r.out, "- `io.journal` counters:");
    assert_contains(line, "clusters: 1 of 6 counter clusters regressed: ");
    assert_contains(line, "write\\_bytes"); /* Markdown-escaped */
    assert_contains(line, "rules: association rules violated: ");
    free(line);
    cli_result_dispose(&r);
    r = run_culprit(repo->dir, NULL, "report --format json --detector=clusters");
    assert_int_equal(r.status, 0);
    assert_contains(r.out, "\"counters_flagged\": true");
    assert_contains(r.out, "\"rules\": null");
    cli_result_dispose(&r);
    r = run_culprit(repo->dir, NULL, "report --format text --detector=clusters,rules");
    assert_contains(r.out, "  COUNTERS   io.journal: clusters: ");
    cli_result_dispose(&r);
    /* Without a counter detector nothing of the kind is said. */
    r = run_culprit(repo->dir, NULL, "report --format markdown");
    assert_lacks(r.out, "counters:");
    cli_result_dispose(&r);
    expect_culprit(repo->dir, 2, "unknown detector 'cluster'", "report --detector=cluster");
}

static int counters_teardown(void **state)
{
    fixture_remove(*state);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(check_json_matches_golden),
        cmocka_unit_test(check_pool_json_matches_golden),
        cmocka_unit_test(history_json_matches_golden),
    };
    const struct CMUnitTest counters[] = {
        cmocka_unit_test(check_counters_json_matches_golden),
        cmocka_unit_test(check_counters_text_and_exit_status),
        cmocka_unit_test(check_counters_junit_and_bad_detector),
        cmocka_unit_test(report_shows_the_counter_detectors),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown) |
           cmocka_run_group_tests_name("counters", counters, counters_setup, counters_teardown);
}
