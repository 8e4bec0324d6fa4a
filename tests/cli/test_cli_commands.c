/*
 * `culprit compare`, `culprit history` and `culprit categories` end to end, on the
 * synthetic history of cli_fixture.c, and `culprit check --confirm` with a fake
 * test binary that records a new run when asked to re-run a test.
 */
#include "support/test.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "support/cli_fixture.h"
#include "support/git_fixture.h"

static void assert_starts_line(const char *out, const char *needle, const char *tag)
{
    char *line = line_with(out, needle);

    if (strncmp(line, tag, strlen(tag)) != 0)
        fail_msg("expected '%s' at the start of: %s", tag, line);
    free(line);
}

/* The line of `text` holding `which` also holds `needle`. */
static void assert_line_has(const char *text, const char *which, const char *needle)
{
    char *line = line_with(text, which);

    assert_contains(line, needle);
    free(line);
}

static void compare_two_files(void **state)
{
    repo_fixture *repo = *state;
    const synthetic_test before[] = {{"fib", 1e6 + 2e5, 1e4, 30, "medium", CULPRIT_STATUS_PASS},
                                     {"sort", 5e5, 5e3, 30, "fast", CULPRIT_STATUS_PASS}};
    const synthetic_test after[] = {{"fib", 1.5e6, 1e4, 30, "medium", CULPRIT_STATUS_PASS},
                                    {"sort", 1.5e6, 5e3, 30, "fast", CULPRIT_STATUS_PASS}};
    char a[512], b[512];
    culprit_run *run;
    cli_result r;
    json_t *doc;

    snprintf(a, sizeof(a), "%s/a.xml", repo->dir);
    snprintf(b, sizeof(b), "%s/b.xml", repo->dir);
    run = fixture_run("files", repo->sha[1], "2024-01-01T00:00:00Z", NULL, before, 2);
    assert_int_equal(culprit_history_write_file(run, a, 0), 0);
    culprit_history_run_free(run);
    run = fixture_run("files", repo->sha[2], "2024-01-02T00:00:00Z", NULL, after, 2);
    assert_int_equal(culprit_history_write_file(run, b, 0), 0);
    culprit_history_run_free(run);

    r = run_culprit(repo->dir, NULL, "compare a.xml b.xml");
    assert_int_equal(r.status, 1);
    assert_starts_line(r.out, "files.fib:", "MINOR");
    assert_starts_line(r.out, "files.sort:", "MAJOR");
    assert_contains(r.out, "culprit compare b.xml against a.xml: 2 tests: 1 major, 1 minor");
    cli_result_dispose(&r);

    r = run_culprit(repo->dir, NULL, "compare a.xml b.xml --test fib --json");
    assert_int_equal(r.status, 0);
    assert_non_null(doc = json_loads(r.out, 0, NULL));
    assert_string_equal(json_string_value(json_object_get(doc, "command")), "compare");
    assert_string_equal(json_string_value(json_object_get(doc, "commit")), repo->sha[2]);
    assert_string_equal(json_string_value(json_object_get(doc, "baseline")), repo->sha[1]);
    assert_int_equal(json_array_size(json_object_get(doc, "tests")), 1);
    json_decref(doc);
    cli_result_dispose(&r);

    r = run_culprit(repo->dir, NULL, "compare a.xml b.xml --test fbi");
    assert_int_equal(r.status, 2);
    assert_contains(r.err, "did you mean 'fib'");
    cli_result_dispose(&r);

    /* A file against a revision from the store. */
    r = run_culprit(repo->dir, NULL, "compare HEAD~1 HEAD --test perf.minor");
    assert_int_equal(r.status, 0);
    assert_starts_line(r.out, "perf.minor:", "MINOR");
    cli_result_dispose(&r);
}

static void compare_two_revisions(void **state)
{
    repo_fixture *repo = *state;
    cli_result r;

    r = run_culprit(repo->dir, NULL, "compare %.10s main", repo->sha[2]);
    assert_int_equal(r.status, 1);
    assert_starts_line(r.out, "perf.major:", "MAJOR");
    assert_starts_line(r.out, "perf.minor:", "MINOR");
    assert_starts_line(r.out, "perf.stable:", "unchanged");
    cli_result_dispose(&r);

    /* c1 against c3 directly: perf.minor is 2.4 ms at both. */
    r = run_culprit(repo->dir, NULL, "compare main~2 main --test perf.minor --fail-on minor");
    assert_int_equal(r.status, 0);
    assert_starts_line(r.out, "perf.minor:", "unchanged");
    cli_result_dispose(&r);

    r = run_culprit(repo->dir, NULL, "compare mian main");
    assert_int_equal(r.status, 2);
    assert_contains(r.err, "did you mean 'main'");
    cli_result_dispose(&r);

    r = run_culprit(repo->dir, NULL, "compare %s main", repo->sha[0]);
    assert_int_equal(r.status, 2);
    assert_contains(r.err, "no run in the history");
    cli_result_dispose(&r);

    r = run_culprit(repo->dir, NULL, "compare main");
    assert_int_equal(r.status, 2);
    assert_contains(r.err, "two arguments");
    cli_result_dispose(&r);
}

static void history_lists_points_newest_first_with_verdicts(void **state)
{
    repo_fixture *repo = *state;
    cli_result r = run_culprit(repo->dir, NULL, "history --test perf.minor");
    const char *p3, *p2, *p1;
    char s[16];

    assert_int_equal(r.status, 0);
    assert_contains(r.out, "perf.minor\n");
    snprintf(s, sizeof(s), "%.12s", repo->sha[3]);
    assert_non_null(p3 = strstr(r.out, s));
    snprintf(s, sizeof(s), "%.12s", repo->sha[2]);
    assert_non_null(p2 = strstr(r.out, s));
    snprintf(s, sizeof(s), "%.12s", repo->sha[1]);
    assert_non_null(p1 = strstr(r.out, s));
    assert_true(p3 < p2 && p2 < p1);
    assert_starts_line(p3, "commit 3", "");
    assert_line_has(p3, "commit 3", "MINOR");
    assert_line_has(p2, "commit 2", "FASTER");
    assert_line_has(p1, "commit 1", "no baseline");
    assert_line_has(p3, "commit 3", "2024-03-04");
    assert_lacks(r.out, "perf.major");
    cli_result_dispose(&r);

    /* --limit 2: c3 and c2 only, but c2 is still judged against c1. */
    r = run_culprit(repo->dir, NULL, "history --test perf.minor --limit 2");
    assert_line_has(r.out, "commit 2", "FASTER");
    assert_lacks(r.out, "commit 1");
    cli_result_dispose(&r);

    r = run_culprit(repo->dir, NULL, "history --test perf.mnior");
    assert_int_equal(r.status, 2);
    assert_contains(r.err, "did you mean 'perf.minor'");
    cli_result_dispose(&r);

    r = run_culprit(repo->dir, NULL, "history --limit none");
    assert_int_equal(r.status, 2);
    assert_contains(r.err, "--limit: 'none'");
    cli_result_dispose(&r);
}

static const char *assigned(const char *history, const char *key)
{
    static char value[64];
    char path[512];
    json_t *doc;
    const char *v;

    snprintf(path, sizeof(path), "%s/categories.json", history);
    if (!(doc = json_load_file(path, 0, NULL)))
        return NULL;
    v = json_string_value(json_object_get(json_object_get(doc, "assignments"), key));
    snprintf(value, sizeof(value), "%s", v ? v : "");
    json_decref(doc);
    return v ? value : NULL;
}

/* What a command prints must reach stdout: `check --json > /dev/full` and `history >
 * /dev/full` exited 0 with nothing written. And a --junit file is never replaced by
 * another kind of file: /dev/full stays a device and the check fails. */
static void write_errors_on_outputs_exit_2(void **state)
{
    repo_fixture *repo = *state;
    const char *const commands[] = {"history --test perf.minor", "check --json --fail-on none",
                                    "--version"};
    char cmd[1024];
    int status;

    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
        snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' %s >/dev/full 2>/dev/null", repo->dir,
                 CULPRIT_BIN, commands[i]);
        status = system(cmd);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 2);
    }
    expect_culprit(repo->dir, 2, "/dev/full", "check --fail-on none --junit /dev/full");
}

/* culprit junit: the fixture's history files (five runs) merged into one report,
 * one <testsuite> per run, valid against the schema; a bad input names itself,
 * exits 2 and writes nothing. */
static void junit_merges_runs_into_one_report(void **state)
{
    repo_fixture *repo = *state;
    char out[600], cmd[1400];
    culprit_buf text = CULPRIT_BUF_INIT;
    size_t suites = 0;
    cli_result r;

    snprintf(out, sizeof(out), "%s/merged.xml", repo->dir);
    r = run_culprit(repo->dir, NULL, "junit '%s' --output '%s'", repo->history, out);
    assert_int_equal(r.status, 0);
    cli_result_dispose(&r);
    assert_int_equal(culprit_fs_read_file(&text, out), 0);
    for (const char *p = text.ptr; (p = strstr(p, "<testsuite ")); p++)
        suites++;
    assert_int_equal(suites, 5);
    assert_contains(text.ptr, "<system-out>[  PERF  ] ");
    snprintf(cmd, sizeof(cmd), "xmllint --noout --schema '%s/docs/schemas/junit-10.xsd' '%s'",
             CULPRIT_SOURCE_DIR, out);
    assert_int_equal(system(cmd), 0);
    culprit_buf_dispose(&text);
    unlink(out);

    expect_culprit(repo->dir, 2, "nothere.xml", "junit '%s' nothere.xml --output '%s'",
                   repo->history, out);
    assert_int_not_equal(access(out, F_OK), 0);
    expect_culprit(repo->dir, 2, "needs a PATH", "junit");
}

static void categories_set_unset_accept_round_trip(void **state)
{
    repo_fixture *repo = *state;
    cli_result r;
    json_t *doc, *t;
    size_t i;

    r = run_culprit(repo->dir, NULL, "categories");
    assert_int_equal(r.status, 0);
    assert_contains(r.out, "perf.major");
    assert_starts_line(r.out, "perf.stable", "*"); /* medium: not the fastest */
    assert_starts_line(r.out, "perf.fresh", " ");
    assert_line_has(r.out, "perf.stable", "[1.00 ms, 100.00 ms)");
    cli_result_dispose(&r);

    r = run_culprit(repo->dir, NULL, "categories --set perf.stable=slow");
    assert_int_equal(r.status, 0);
    assert_string_equal(assigned(repo->history, "perf.stable"), "slow");
    assert_contains(r.out, "perf.stable: unassigned -> 'slow'");
    cli_result_dispose(&r);

    r = run_culprit(repo->dir, NULL, "categories --set perf.stable=quick");
    assert_int_equal(r.status, 2);
    assert_contains(r.err, "unknown category 'quick'; the categories are 'fast', 'medium', 'slow'");
    assert_string_equal(assigned(repo->history, "perf.stable"), "slow");
    cli_result_dispose(&r);

    r = run_culprit(repo->dir, NULL, "categories --unset perf.stable");
    assert_int_equal(r.status, 0);
    assert_null(assigned(repo->history, "perf.stable"));
    cli_result_dispose(&r);

    /* perf.major left 'fast' for 1.5 ms: accepting it assigns 'medium'. */
    r = run_culprit(repo->dir, NULL, "categories --accept perf.major --json");
    assert_int_equal(r.status, 0);
    assert_string_equal(assigned(repo->history, "perf.major"), "medium");
    assert_non_null(doc = json_loads(r.out, 0, NULL));
    assert_string_equal(json_string_value(json_object_get(doc, "command")), "categories");
    t = json_array_get(json_object_get(doc, "changes"), 0);
    assert_string_equal(json_string_value(json_object_get(t, "to")), "medium");
    json_array_foreach(json_object_get(doc, "tests"), i, t)
    {
        if (strcmp(json_string_value(json_object_get(t, "test")), "perf.major") != 0)
            continue;
        assert_string_equal(json_string_value(json_object_get(t, "category")), "fast");
        assert_string_equal(json_string_value(json_object_get(t, "source")), "auto");
        assert_string_equal(json_string_value(json_object_get(t, "assigned")), "medium");
        assert_true(json_real_value(json_object_get(t, "mean_ns")) == 1.5e6);
    }
    json_decref(doc);
    cli_result_dispose(&r);

    r = run_culprit(repo->dir, NULL, "categories --accept perf.majr");
    assert_int_equal(r.status, 2);
    assert_contains(r.err, "did you mean 'perf.major'");
    cli_result_dispose(&r);

    r = run_culprit(repo->dir, NULL, "categories --accept-all");
    assert_int_equal(r.status, 0);
    assert_string_equal(assigned(repo->history, "perf.fresh"), "fast");
    assert_string_equal(assigned(repo->history, "perf.faster"), "medium");
    cli_result_dispose(&r);
}

/* A newer run of perf.major at sha[3], recorded as measured by `binary`: check
 * --confirm keeps its major verdict, and stderr holds `why`. */
static void confirm_keeps_verdict(const repo_fixture *repo, const char *dir, const char *build_dir,
                                  const char *stamp, const char *binary, const char *why)
{
    const synthetic_test now[] = {{"major", 1.5e6, 1e4, 30, "fast", CULPRIT_STATUS_PASS}};
    culprit_run *run = fixture_run("perf", repo->sha[3], stamp, NULL, now, 1);
    cli_result r;

    culprit_str_set(&run->binary, binary);
    fixture_store(dir, run);
    r = run_culprit(repo->dir, NULL, "check --confirm --history '%s' --build-dir '%s'", dir,
                    build_dir);
    assert_int_equal(r.status, 1);
    assert_starts_line(r.out, "perf.major:", "MAJOR");
    assert_contains(r.err, why);
    assert_contains(r.err, "keeping the verdict");
    cli_result_dispose(&r);
}

/* --confirm: the fake binary records `perf.major` at CULPRIT_FAKE_MEAN_NS, dated
 * CULPRIT_FAKE_TIMESTAMP (each re-run the newest). */
static void check_confirm_reruns_flagged_tests(void **state)
{
    repo_fixture *repo = *state;
    const synthetic_test before[] = {{"major", 5e5, 5e3, 30, "fast", CULPRIT_STATUS_PASS}};
    const synthetic_test now[] = {{"major", 1.5e6, 1e4, 30, "fast", CULPRIT_STATUS_PASS}};
    char dir[512], build_dir[512], env[1024], script[600], marker[600], text[1400];
    culprit_run *run;
    cli_result r;

    snprintf(dir, sizeof(dir), "%s/confirm-history", repo->dir);
    /* The fake binary's directory: the build tree a re-run may use. */
    snprintf(build_dir, sizeof(build_dir), "%s", FAKE_BIN);
    *strrchr(build_dir, '/') = '\0';
    fixture_store(dir, fixture_run("perf", repo->sha[2], "2024-03-03T12:00:00Z", NULL, before, 1));
    run = fixture_run("perf", repo->sha[3], "2024-03-04T12:00:00Z", NULL, now, 1);
    culprit_str_set(&run->binary, FAKE_BIN);
    fixture_store(dir, run);

    /* The fake binary is in the build tree, outside the repository's work tree: not
     * trusted unless named, so not run (docs/security.md); the verdict is kept. */
    r = run_culprit(repo->dir, NULL, "check --confirm --history '%s'", dir);
    assert_int_equal(r.status, 1);
    assert_starts_line(r.out, "perf.major:", "MAJOR");
    assert_contains(r.err, "is outside the trusted build trees");
    assert_contains(r.err, FAKE_BIN);
    assert_contains(r.err, "keeping the verdict");
    cli_result_dispose(&r);

    /* Still slow on the re-run: confirmed. */
    r = run_culprit(repo->dir,
                    "CULPRIT_FAKE_MEAN_NS=1500000 CULPRIT_FAKE_TIMESTAMP=2031-01-01T00:00:00Z",
                    "check --confirm --history '%s' --build-dir '%s'", dir, build_dir);
    assert_int_equal(r.status, 1);
    assert_starts_line(r.out, "perf.major:", "MAJOR");
    assert_contains(r.err, "confirming perf.major");
    cli_result_dispose(&r);

    /* Fast again: the alarm was noise, not reported. The build tree named by
     * $CULPRIT_BUILD_DIR this time. */
    snprintf(env, sizeof(env),
             "CULPRIT_FAKE_MEAN_NS=500000 CULPRIT_FAKE_TIMESTAMP=2032-01-01T00:00:00Z "
             "CULPRIT_BUILD_DIR='%s'",
             build_dir);
    r = run_culprit(repo->dir, env, "check --confirm --history '%s'", dir);
    if (r.status != 0)
        fail_msg("exit %d:\n%s%s", r.status, r.out, r.err);
    assert_starts_line(r.out, "perf.major:", "unchanged");
    assert_contains(r.err, "not confirmed by the re-run");
    cli_result_dispose(&r);

    /* The binary is gone: said so, the verdict kept. */
    confirm_keeps_verdict(repo, dir, build_dir, "2033-01-01T00:00:00Z", "/nonexistent/perf_tests",
                          "'/nonexistent/perf_tests' is missing");

    /* A run (as pulled from a remote) naming a script in the work tree: never run. */
    snprintf(script, sizeof(script), "%s/evil.sh", repo->dir);
    snprintf(marker, sizeof(marker), "%s/marker", repo->dir);
    snprintf(text, sizeof(text), "#!/bin/sh\ntouch '%s'\necho major\n", marker);
    write_file(repo->dir, "evil.sh", text);
    chmod(script, 0755);
    confirm_keeps_verdict(repo, dir, build_dir, "2034-01-01T00:00:00Z", script,
                          "is not an ELF executable");
    assert_int_equal(access(marker, F_OK), -1);
    /* --build-dir only with --confirm. */
    r = run_culprit(repo->dir, NULL, "check --history '%s' --build-dir /tmp", dir);
    assert_int_equal(r.status, 2);
    assert_contains(r.err, "--build-dir goes with --confirm");
    cli_result_dispose(&r);
    /* --confirm-budget only with --confirm or --investigate, and a duration. */
    r = run_culprit(repo->dir, NULL, "check --history '%s' --confirm-budget 30", dir);
    assert_int_equal(r.status, 2);
    assert_contains(r.err, "--confirm-budget goes with --confirm or --investigate");
    cli_result_dispose(&r);
    r = run_culprit(repo->dir, NULL, "check --history '%s' --confirm --confirm-budget 3x", dir);
    assert_int_equal(r.status, 2);
    assert_contains(r.err, "'3x' is not a duration");
    cli_result_dispose(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(compare_two_files),
        cmocka_unit_test(compare_two_revisions),
        cmocka_unit_test(history_lists_points_newest_first_with_verdicts),
        cmocka_unit_test(categories_set_unset_accept_round_trip),
        cmocka_unit_test(junit_merges_runs_into_one_report),
        cmocka_unit_test(write_errors_on_outputs_exit_2),
        cmocka_unit_test(check_confirm_reruns_flagged_tests),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
