/*
 * ctest shows history (issue 25): a perf test run through ctest is compared with its
 * own history and a minor regression shows as a MINOR line with the check's figures,
 * failing the test only under --fail-on minor (CULPRIT_FAIL_ON, culprit.json).
 *
 * The history is synthetic, so the verdicts do not depend on the machine's load: a
 * real run of the nap binary (tests/runner/nap_tests.c) gives the run's context
 * (machine, compiler, flags: a baseline must be comparable), and six earlier runs
 * are written from it at the six first-parent ancestors of HEAD with means of
 * 20 ms +-8% (a run-to-run spread wider than a loaded machine's late wake-ups). A
 * nap of 40 ms is then twice as slow and still "medium" (1 to 100 ms: no major); a
 * nap of 20 ms is unchanged. ctest runs a CTestTestfile.cmake written here, as
 * culprit_discover_tests would register the test.
 */
#include "support/test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "culprit/core.h"
#include "culprit/history.h"
#include "support/git_fixture.h"
#include "support/tmpdir.h"

static char dir[256], repo[300], hist[300], ctestdir[300];

/* Writes the earlier runs from the template run `path`: at sha[k] a run of mean
 * 20 ms x factor[k]. */
static void write_history(const char *path, char sha[7][41])
{
    static const double factor[6] = {0.92, 1.08, 0.94, 1.06, 0.96, 1.04};
    culprit_history *store = NULL;

    assert_int_equal(culprit_history_open(&store, hist, 1), 0);
    for (int k = 0; k < 6; k++) {
        culprit_run *run = NULL;
        char stamp[64];
        assert_int_equal(culprit_history_read_file(&run, path, 0), 0);
        assert_int_equal(run->ntests, 1);
        culprit_test_result *t = &run->tests[0];
        double m = 20e6 * factor[k], s = 0.01 * m;
        for (size_t i = 0; i < t->nseries; i++) {
            free(t->series[i].name);
            free(t->series[i].values);
        }
        free(t->series);
        t->series = NULL;
        t->nseries = 0;
        free(run->id);
        run->id = NULL;
        snprintf(stamp, sizeof(stamp), "2026-01-0%dT00:00:00.000000Z", 7 - k);
        assert_int_equal(culprit_str_set(&run->commit, sha[k + 1]), 0);
        assert_int_equal(culprit_str_set(&run->timestamp, stamp), 0);
        run->dirty = 0;
        t->summary = (culprit_summary){
            10, m, s, m, m - 2 * s, m + 2 * s, m - 2.6 * s / 3.16, m + 2.6 * s / 3.16, 0.99};
        t->judged = t->summary;
        assert_int_equal(culprit_history_store(store, run, NULL), 0);
        culprit_history_run_free(run);
    }
    culprit_history_free(store);
}

static int setup(void **state)
{
    char sha[7][41], tmpl[300], cmd[2048], *file;
    FILE *f;
    (void)state;

    if (test_tmpdir_make(dir, sizeof(dir), "ctest-minor") != 0)
        return -1;
    snprintf(repo, sizeof(repo), "%s/repo", dir);
    snprintf(hist, sizeof(hist), "%s/history", dir);
    snprintf(ctestdir, sizeof(ctestdir), "%s/build", dir);
    snprintf(tmpl, sizeof(tmpl), "%s/template", dir);
    run(GIT " init -q '%s' && mkdir -p '%s'", repo, ctestdir);
    for (int i = 0; i < 7; i++)
        run("cd '%s' && " GIT " commit -q --allow-empty -m 'commit %d'", repo, i);
    for (int k = 0; k < 7; k++)
        output_of(sha[k], sizeof(sha[k]), "cd '%s' && git rev-parse HEAD~%d", repo, k);
    /* The template: one real run, recorded elsewhere at the oldest commit. */
    run("cd '%s' && env -u CULPRIT_FAIL_ON -u CULPRIT_HISTORY_DIR CULPRIT_COMMIT=%s "
        "CULPRIT_TEST_NAP_MS=1 '%s' --quiet --history '%s' >/dev/null 2>&1",
        repo, sha[6], NAP_BIN, tmpl);
    file = all_output_of("ls '%s'/*.xml", tmpl);
    file[strcspn(file, "\n")] = '\0';
    write_history(file, sha);
    free(file);
    snprintf(cmd, sizeof(cmd), "%s/CTestTestfile.cmake", ctestdir);
    if (!(f = fopen(cmd, "w")))
        return -1;
    fprintf(f,
            "add_test([=[napper.nap]=] \"%s\" \"--ctest\" \"--filter\" \"nap\" \"--history\" "
            "\"%s\" \"--repository\" \"%s\")\n"
            "set_tests_properties([=[napper.nap]=] PROPERTIES WORKING_DIRECTORY \"%s\")\n",
            NAP_BIN, hist, repo, repo);
    fclose(f);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    if (!getenv("KEEP"))
        test_tmpdir_remove(dir);
    return 0;
}

/* ctest's exit status and output (stdout and stderr) with `env` ("NAME=value ..."). */
static int run_ctest(char **out, const char *env, const char *flags)
{
    char cmd[1024], log[300];
    culprit_buf text = CULPRIT_BUF_INIT;
    int status;

    snprintf(log, sizeof(log), "%s/ctest.log", dir);
    snprintf(cmd, sizeof(cmd),
             "env -u CULPRIT_FAIL_ON -u CULPRIT_CTEST_LABEL -u CULPRIT_HISTORY_DIR %s "
             "ctest --test-dir '%s' %s >'%s' 2>&1",
             env, ctestdir, flags, log);
    status = system(cmd);
    assert_int_equal(culprit_fs_read_file(&text, log), 0);
    *out = culprit_buf_detach(&text);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void twice_as_slow_shows_minor_and_fails_only_when_asked(void **state)
{
    char *out;
    (void)state;

    /* The default: shown in plain ctest output (the label summary), not failed. */
    assert_int_equal(run_ctest(&out, "CULPRIT_TEST_NAP_MS=40", ""), 0);
    if (!strstr(out, "MINOR napper.nap: minor regression: ") || !strstr(out, "% (99% CI +") ||
        !strstr(out, " ms at "))
        fail_msg("no MINOR line with the figures in ctest's output:\n%s", out);
    /* The label is short: ctest pads every label summary line to the longest label. */
    for (const char *l = out, *e; *l; l = *e ? e + 1 : e) {
        e = strchr(l, '\n');
        e = e ? e : l + strlen(l);
        if (e - l > 240)
            fail_msg("a line of ctest's output is %d characters wide:\n%s", (int)(e - l), out);
    }
    free(out);
    /* -V shows the verdict line as `culprit check` prints it. */
    assert_int_equal(run_ctest(&out, "CULPRIT_TEST_NAP_MS=40", "-V"), 0);
    if (!strstr(out, "MINOR       napper.nap: minor regression: ")) {
        fprintf(stderr, "%s", out);
        fail_msg("no verdict line under -V (above)");
    }
    free(out);
    /* CULPRIT_FAIL_ON=minor: the test fails, and --output-on-failure shows why. */
    assert_int_not_equal(
        run_ctest(&out, "CULPRIT_FAIL_ON=minor CULPRIT_TEST_NAP_MS=40", "--output-on-failure"), 0);
    if (!strstr(out, "MINOR       napper.nap: minor regression: ") || !strstr(out, "Failed"))
        fail_msg("CULPRIT_FAIL_ON=minor did not fail the 2x slower test:\n%s", out);
    free(out);
    /* CULPRIT_FAIL_ON=none (a bisection's runs): no comparison at all. */
    assert_int_equal(run_ctest(&out, "CULPRIT_FAIL_ON=none CULPRIT_TEST_NAP_MS=40", "-V"), 0);
    if (strstr(out, "MINOR"))
        fail_msg("CULPRIT_FAIL_ON=none compared with the history:\n%s", out);
    free(out);
}

static void unchanged_shows_no_minor(void **state)
{
    char *out;
    (void)state;

    assert_int_equal(run_ctest(&out, "CULPRIT_FAIL_ON=minor CULPRIT_TEST_NAP_MS=20", "-V"), 0);
    if (strstr(out, "MINOR"))
        fail_msg("an unchanged run printed MINOR:\n%s", out);
    free(out);
}

/* culprit.json's "fail_on" when neither the flag nor the environment says. */
static void project_file_fail_on_minor_fails(void **state)
{
    char *out;
    (void)state;

    write_file(repo, "culprit.json", "{\"fail_on\": \"minor\"}\n");
    assert_int_not_equal(run_ctest(&out, "CULPRIT_TEST_NAP_MS=40", ""), 0);
    free(out);
    /* the environment overrides it */
    assert_int_equal(run_ctest(&out, "CULPRIT_FAIL_ON=major CULPRIT_TEST_NAP_MS=40", ""), 0);
    free(out);
    run("rm '%s/culprit.json'", repo);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(twice_as_slow_shows_minor_and_fails_only_when_asked),
        cmocka_unit_test(unchanged_shows_no_minor),
        cmocka_unit_test(project_file_fail_on_minor_fails),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
