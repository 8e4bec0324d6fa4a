/*
 * `culprit check` end to end: the built binary on synthetic history in a
 * throw-away git repository, one test per verdict (cli_fixture.c), checking the
 * lines, the exit codes under --fail-on, --baseline and --pool, the JSON fields,
 * the JUnit file against the schema, and the errors (unknown revision, test,
 * option, subcommand; no history) with their near matches.
 */
#include "support/test.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "culprit/version.h"
#include "support/cli_fixture.h"
#include "support/git_fixture.h"

/* The line about `test` starts with `tag`. */
static void assert_verdict_line(const char *out, const char *test, const char *tag)
{
    char needle[128];
    char *line;

    snprintf(needle, sizeof(needle), " %s: ", test);
    line = line_with(out, needle);
    if (strncmp(line, tag, strlen(tag)) != 0 || line[strlen(tag)] != ' ')
        fail_msg("expected '%s' at the start of: %s", tag, line);
    free(line);
}

static void check_prints_one_line_per_verdict_and_a_summary(void **state)
{
    repo_fixture *repo = *state;
    cli_result r = run_culprit(repo->dir, NULL, "check");
    char summary[256];

    assert_int_equal(r.status, 1); /* a major regression, --fail-on major by default */
    assert_verdict_line(r.out, "perf.stable", "unchanged");
    assert_verdict_line(r.out, "perf.major", "MAJOR");
    assert_verdict_line(r.out, "perf.minor", "MINOR");
    assert_verdict_line(r.out, "perf.faster", "FASTER");
    assert_verdict_line(r.out, "perf.noisy", "UNDECIDED");
    assert_verdict_line(r.out, "perf.fresh", "no baseline");
    assert_verdict_line(r.out, "perf.broken", "not run");
    assert_verdict_line(r.out, "other.mixed", "MIXED");
    /* The major line names the category limit and both commits' times. */
    assert_contains(r.out, "above category 'fast'");
    snprintf(summary, sizeof(summary),
             "culprit check at %.12s against the previous commit with data: 8 tests: 1 major, "
             "1 minor, 1 faster, 1 undecided, 1 unchanged, 1 no baseline, 1 mixed, 1 not run\n",
             repo->sha[3]);
    assert_contains(r.out, summary);
    assert_lacks(r.out, "\033");
    assert_string_equal(r.err, "");
    cli_result_dispose(&r);
}

static void check_exit_code_follows_fail_on(void **state)
{
    repo_fixture *repo = *state;
    static const struct {
        const char *args;
        int status;
    } cases[] = {
        {"check --fail-on major", 1},
        {"check --fail-on minor", 1},
        {"check --fail-on none", 0},
        {"check --test perf.minor", 0}, /* a minor regression passes by default */
        /* The scenario's history is young (2 earlier runs): its minor is unconfirmed
         * and fails nothing (check_unconfirmed_minor_fails_once_history_vouches). */
        {"check --test perf.minor --fail-on=minor", 0},
        {"check --test perf.minor --fail-on none", 0},
        {"check --test perf.faster --fail-on minor", 0},
        {"check --test major --fail-on major", 1}, /* a bare test name works too */
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cli_result r = run_culprit(repo->dir, NULL, "%s", cases[i].args);
        if (r.status != cases[i].status)
            fail_msg("culprit %s: exit %d, expected %d\n%s%s", cases[i].args, r.status,
                     cases[i].status, r.out, r.err);
        cli_result_dispose(&r);
    }
}

/* culprit.json's "fail_on" is the default of --fail-on; the flag wins. */
static void check_fail_on_default_from_project_file(void **state)
{
    repo_fixture *repo = *state;
    char path[400];

    snprintf(path, sizeof(path), "%s/culprit.json", repo->dir);
    write_file(repo->dir, "culprit.json", "{\"fail_on\": \"none\"}\n");
    expect_culprit(repo->dir, 0, NULL, "check --test major");
    expect_culprit(repo->dir, 1, NULL, "check --test major --fail-on major");
    write_file(repo->dir, "culprit.json", "{\"fail_on\": \"sometimes\"}\n");
    expect_culprit(repo->dir, 2, "\"fail_on\" must be", "check --test major");
    unlink(path);
    expect_culprit(repo->dir, 1, NULL, "check --test major");
}

/* No alarm without evidence: a minor regression over 2 earlier runs is unconfirmed
 * (exit 0 with --fail-on minor, "evidence": "unconfirmed"); the same change over 5
 * earlier runs, enough for the run-to-run noise model, fails the job. */
static void check_unconfirmed_minor_fails_once_history_vouches(void **state)
{
    static repo_fixture young;
    const double base[] = {2.00e6, 2.01e6, 1.99e6, 2.00e6, 2.02e6};
    char stamp[32];
    cli_result r;
    json_t *doc;
    (void)state;

    fixture_repo(&young);
    for (int k = 0; k < 2; k++) {
        synthetic_test t[] = {{"x", base[k], 2e4, 30, "medium", CULPRIT_STATUS_PASS}};
        snprintf(stamp, sizeof(stamp), "2024-03-0%dT12:00:00Z", k + 1);
        fixture_store(young.history, fixture_run("perf", young.sha[2], stamp, NULL, t, 1));
    }
    synthetic_test now[] = {{"x", 2.4e6, 2e4, 30, "medium", CULPRIT_STATUS_PASS}};
    fixture_store(young.history,
                  fixture_run("perf", young.sha[3], "2024-03-09T12:00:00Z", NULL, now, 1));
    r = run_culprit(young.dir, NULL, "check --fail-on minor --json");
    assert_int_equal(r.status, 0);
    assert_non_null(doc = json_loads(r.out, 0, NULL));
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(json_object_get(doc, "tests"), 0), "evidence")),
                        "unconfirmed");
    json_decref(doc);
    cli_result_dispose(&r);

    for (int k = 2; k < 5; k++) {
        synthetic_test t[] = {{"x", base[k], 2e4, 30, "medium", CULPRIT_STATUS_PASS}};
        snprintf(stamp, sizeof(stamp), "2024-03-0%dT12:00:00Z", k + 1);
        fixture_store(young.history, fixture_run("perf", young.sha[2], stamp, NULL, t, 1));
    }
    r = run_culprit(young.dir, NULL, "check --fail-on minor --json");
    assert_int_equal(r.status, 1);
    assert_non_null(doc = json_loads(r.out, 0, NULL));
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(json_object_get(doc, "tests"), 0), "evidence")),
                        "history");
    json_decref(doc);
    cli_result_dispose(&r);
    fixture_remove(&young);
}

/* A commit made after the last measurement (a config file's): the error names the
 * newest measured first-parent ancestor and the --commit that checks it. */
static void check_unmeasured_head_names_the_newest_measured_commit(void **state)
{
    static repo_fixture fresh;
    synthetic_test t[] = {{"x", 2e6, 2e4, 30, "medium", CULPRIT_STATUS_PASS}};
    char says[160];
    cli_result r;
    (void)state;

    fixture_repo(&fresh);
    fixture_store(fresh.history,
                  fixture_run("perf", fresh.sha[1], "2024-03-01T12:00:00Z", NULL, t, 1));
    r = run_culprit(fresh.dir, NULL, "check");
    assert_int_equal(r.status, 2);
    snprintf(says, sizeof(says),
             "no run in the history at commit %.12s; the newest measured commit before it is "
             "%.12s, 2 commits back",
             fresh.sha[3], fresh.sha[1]);
    assert_contains(r.err, says);
    snprintf(says, sizeof(says), "--commit %.12s)", fresh.sha[1]);
    assert_contains(r.err, says);
    cli_result_dispose(&r);
    r = run_culprit(fresh.dir, NULL, "check --commit %s", fresh.sha[1]);
    assert_int_equal(r.status, 0);
    cli_result_dispose(&r);
    fixture_remove(&fresh);
}

static void check_json_has_every_field(void **state)
{
    repo_fixture *repo = *state;
    cli_result r = run_culprit(repo->dir, NULL, "check --json --fail-on minor");
    json_error_t jerr;
    json_t *doc, *tests, *t, *major = NULL, *fresh = NULL;
    size_t i;
    static const char *const fields[] = {
        "test",        "verdict",  "message",          "now_mean_ns",  "now_low_ns",
        "now_high_ns", "now_n",    "set_aside",        "base_mean_ns", "base_n",
        "baseline",    "change",   "change_low",       "change_high",  "p",
        "q",           "category", "category_high_ns", "more_samples", "mismatch"};

    assert_int_equal(r.status, 1);
    if (!(doc = json_loads(r.out, 0, &jerr)))
        fail_msg("not JSON (%s):\n%s", jerr.text, r.out);
    assert_int_equal(json_integer_value(json_object_get(doc, "culprit_json")), 1);
    assert_string_equal(json_string_value(json_object_get(doc, "command")), "check");
    assert_string_equal(json_string_value(json_object_get(doc, "commit")), repo->sha[3]);
    assert_string_equal(json_string_value(json_object_get(doc, "baseline")), "first-parent");
    assert_string_equal(json_string_value(json_object_get(doc, "fail_on")), "minor");
    assert_int_equal(json_integer_value(json_object_get(doc, "exit_code")), 1);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "counts"), "major")),
                     1);
    assert_int_equal(
        json_integer_value(json_object_get(json_object_get(doc, "counts"), "no-baseline")), 1);
    tests = json_object_get(doc, "tests");
    assert_int_equal(json_array_size(tests), 8);
    json_array_foreach(tests, i, t)
    {
        for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++)
            if (!json_object_get(t, fields[f]))
                fail_msg("test %zu has no \"%s\"", i, fields[f]);
        if (strcmp(json_string_value(json_object_get(t, "test")), "perf.major") == 0)
            major = t;
        if (strcmp(json_string_value(json_object_get(t, "test")), "perf.fresh") == 0)
            fresh = t;
    }
    assert_non_null(major);
    assert_string_equal(json_string_value(json_object_get(major, "verdict")), "major");
    assert_string_equal(json_string_value(json_object_get(major, "baseline")), repo->sha[2]);
    assert_int_equal(json_integer_value(json_object_get(major, "now_n")), 30);
    assert_true(json_real_value(json_object_get(major, "now_mean_ns")) == 1.5e6);
    assert_true(json_real_value(json_object_get(major, "base_mean_ns")) == 5e5);
    assert_true(json_real_value(json_object_get(major, "category_high_ns")) == 1e6);
    assert_string_equal(json_string_value(json_object_get(major, "category")), "fast");
    /* Without a baseline: the numbers that do not exist are null, not NaN. */
    assert_non_null(fresh);
    assert_true(json_is_null(json_object_get(fresh, "base_mean_ns")));
    assert_true(json_is_null(json_object_get(fresh, "change")));
    assert_true(json_is_null(json_object_get(fresh, "p")));
    assert_true(json_is_null(json_object_get(fresh, "baseline")));
    json_decref(doc);
    cli_result_dispose(&r);
}

static void check_junit_passes_the_schema(void **state)
{
    repo_fixture *repo = *state;
    const char *schema = CULPRIT_SOURCE_DIR "/docs/schemas/junit-10.xsd";
    char path[512], cmd[2048];
    cli_result r;
    char *xml;

    snprintf(path, sizeof(path), "%s/check.xml", repo->dir);
    r = run_culprit(repo->dir, NULL, "check --junit '%s'", path);
    assert_int_equal(r.status, 1);
    assert_non_null(xml = read_text(path));
    assert_contains(xml, "type=\"culprit.major-regression\"");
    assert_contains(xml, "message=\"perf.major: major regression: ");
    /* A minor regression passes by default, and is recorded with its message. */
    assert_lacks(xml, "culprit.minor-regression");
    assert_contains(xml, "verdict minor");
    assert_contains(xml, "verdict undecided");
    free(xml);
    cli_result_dispose(&r);

    /* An unconfirmed minor is not a failure even with --fail-on minor, as the exit
     * code; its message says why and how to confirm it. */
    r = run_culprit(repo->dir, NULL, "check --fail-on minor --junit '%s'", path);
    assert_int_equal(r.status, 1); /* the major */
    assert_non_null(xml = read_text(path));
    assert_lacks(xml, "type=\"culprit.minor-regression\"");
    assert_contains(xml, "unconfirmed: fewer than 4 earlier runs");
    free(xml);
    cli_result_dispose(&r);

    if (access(schema, R_OK) != 0 || system("xmllint --version >/dev/null 2>&1") != 0) {
        print_message("skipping the schema check: %s or xmllint missing\n", schema);
        return;
    }
    snprintf(cmd, sizeof(cmd), "xmllint --noout --schema '%s' '%s'", schema, path);
    assert_int_equal(system(cmd), 0);
}

static void check_baseline_and_pool_choose_what_is_compared(void **state)
{
    repo_fixture *repo = *state;
    cli_result r;
    json_t *doc, *t;
    char expect[128];

    /* perf.minor was 2.4 ms at c1 too: against c1 exactly it is unchanged. */
    r = run_culprit(repo->dir, NULL, "check --test perf.minor --baseline %.8s", repo->sha[1]);
    assert_int_equal(r.status, 0);
    assert_verdict_line(r.out, "perf.minor", "unchanged");
    snprintf(expect, sizeof(expect), "against %.12s:", repo->sha[1]);
    assert_contains(r.out, expect);
    cli_result_dispose(&r);

    r = run_culprit(repo->dir, NULL, "check --test perf.minor --baseline HEAD~1");
    assert_verdict_line(r.out, "perf.minor", "MINOR");
    cli_result_dispose(&r);

    /* Pooled c2 and c1: 60 samples, mean 2.2 ms. */
    r = run_culprit(repo->dir, NULL, "check --test perf.minor --pool 2 --json");
    assert_int_equal(r.status, 0);
    assert_non_null(doc = json_loads(r.out, 0, NULL));
    t = json_array_get(json_object_get(doc, "tests"), 0);
    assert_int_equal(json_integer_value(json_object_get(t, "base_n")), 60);
    assert_true(json_real_value(json_object_get(t, "base_mean_ns")) > 2.19e6 &&
                json_real_value(json_object_get(t, "base_mean_ns")) < 2.21e6);
    assert_contains(json_string_value(json_object_get(t, "baseline")), "and 1 earlier commits");
    assert_int_equal(json_integer_value(json_object_get(doc, "pool")), 2);
    json_decref(doc);
    cli_result_dispose(&r);

    r = run_culprit(repo->dir, NULL, "check --pool 0");
    assert_int_equal(r.status, 2);
    assert_contains(r.err, "--pool: '0'");
    cli_result_dispose(&r);
}

static void check_allow_mixed_compares_across_machines(void **state)
{
    repo_fixture *repo = *state;
    cli_result r = run_culprit(repo->dir, NULL, "check --test other.mixed");

    assert_verdict_line(r.out, "other.mixed", "MIXED");
    assert_contains(r.out, "machine differs");
    cli_result_dispose(&r);
    r = run_culprit(repo->dir, NULL, "check --test other.mixed --allow-mixed");
    assert_verdict_line(r.out, "other.mixed", "unchanged");
    cli_result_dispose(&r);
}

static void check_bad_input_exits_2_naming_it(void **state)
{
    repo_fixture *repo = *state;
    char root[64], nowhere[512];
    const struct {
        const char *args;
        const char *says;
    } cases[] = {
        {"check --commit mian", "unknown revision 'mian'"},
        {"check --commit mian", "did you mean 'main'"},
        {"check --baseline mian", "did you mean 'main'"},
        {"check --test perf.minr", "no test 'perf.minr'"},
        {"check --test perf.minr", "did you mean 'perf.minor'"},
        {root, "no run in the history"}, /* nothing at the root commit */
        {nowhere, "nowhere"},
        {"check --fial-on minor", "unknown option '--fial-on'; did you mean '--fail-on'?"},
        {"check --fail-on sometimes", "--fail-on: 'sometimes'"},
        {"check --threshold lots", "--threshold: 'lots'"},
        {"check --confidence 1.5", "--confidence: '1.5'"},
        {"check --commit", "'--commit' needs a value"},
        {"check --json=yes", "'--json' takes no value"},
        {"check extra", "unexpected argument 'extra'"},
    };
    cli_result r;

    snprintf(root, sizeof(root), "check --commit %s", repo->sha[0]);
    snprintf(nowhere, sizeof(nowhere), "check --history '%s/nowhere'", repo->dir);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        r = run_culprit(repo->dir, NULL, "%s", cases[i].args);
        if (r.status != 2 || !strstr(r.err, cases[i].says))
            fail_msg("culprit %s: exit %d, expected 2 and '%s' in:\n%s", cases[i].args, r.status,
                     cases[i].says, r.err);
        cli_result_dispose(&r);
    }
    /* Outside a git repository. */
    r = run_culprit("/tmp", NULL, "check");
    assert_int_equal(r.status, 2);
    assert_contains(r.err, "not in a git repository");
    cli_result_dispose(&r);
}

static void command_help_version_and_unknown_subcommand(void **state)
{
    repo_fixture *repo = *state;
    static const char *const commands[] = {"check", "compare", "history", "categories"};

    expect_culprit(repo->dir, 0, "culprit " CULPRIT_VERSION, "--version");
    expect_culprit(repo->dir, 0, "categories", "--help");
    for (size_t i = 0; i < 4; i++) {
        char usage[64];
        snprintf(usage, sizeof(usage), "usage: culprit %s", commands[i]);
        expect_culprit(repo->dir, 0, usage, "help %s", commands[i]);
        expect_culprit(repo->dir, 0, usage, "%s --help", commands[i]);
        expect_culprit(repo->dir, 0, usage, "%s -h", commands[i]);
    }
    expect_culprit(repo->dir, 2, "'chek' is not a culprit command; did you mean 'check'?", "chek");
    expect_culprit(repo->dir, 2, "did you mean 'history'?", "help histroy");
    expect_culprit(repo->dir, 2, "usage: culprit", "%s", "");
}

/* Colours only on a terminal (script(1) gives one) and never under NO_COLOR. */
static void colours_only_on_a_terminal_without_no_color(void **state)
{
    repo_fixture *repo = *state;
    char cmd[1024];
    cli_result r;

    if (system("script -qec true /dev/null >/dev/null 2>&1") != 0) {
        print_message("skipping the terminal case: no script(1)\n");
        return;
    }
    FILE *p;
    char buf[8192];
    size_t n;

    snprintf(cmd, sizeof(cmd), "cd '%s' && env -u NO_COLOR script -qec \"'%s' check\" /dev/null",
             repo->dir, CULPRIT_BIN);
    assert_non_null(p = popen(cmd, "r"));
    n = fread(buf, 1, sizeof(buf) - 1, p);
    buf[n] = '\0';
    pclose(p);
    assert_contains(buf, "\033[1;31mMAJOR");

    snprintf(cmd, sizeof(cmd), "cd '%s' && NO_COLOR=1 script -qec \"'%s' check\" /dev/null",
             repo->dir, CULPRIT_BIN);
    assert_non_null(p = popen(cmd, "r"));
    n = fread(buf, 1, sizeof(buf) - 1, p);
    buf[n] = '\0';
    pclose(p);
    assert_contains(buf, "MAJOR");
    assert_lacks(buf, "\033[");

    /* Not a terminal: no colours either. */
    r = run_culprit(repo->dir, NULL, "check");
    assert_lacks(r.out, "\033[");
    cli_result_dispose(&r);
}

/* --color=always|never and FORCE_COLOR/CLICOLOR_FORCE decide where a terminal cannot
 * (CI logs that render ANSI colours); the command line wins over the environment. */
static void colour_options_and_forcing_variables(void **state)
{
    repo_fixture *repo = *state;
    static const struct {
        const char *env, *args;
        int coloured;
    } cases[] = {
        {NULL, "check --color=always", 1},
        {NULL, "--color check", 1},
        {"FORCE_COLOR=1", "check", 1},
        {"CLICOLOR_FORCE=1", "check", 1},
        {"FORCE_COLOR=0", "check", 0},
        {"FORCE_COLOR=1", "check --color=never", 0},
        {"NO_COLOR=1", "check --color=always", 1},
        {NULL, "check --color=auto", 0},
    };
    cli_result r;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        r = run_culprit(repo->dir, cases[i].env, "%s", cases[i].args);
        assert_int_equal(r.status, 1);
        if (cases[i].coloured != (strstr(r.out, "\033[1;31mMAJOR") != NULL))
            fail_msg("%s culprit %s: coloured %d expected:\n%s", cases[i].env ? cases[i].env : "",
                     cases[i].args, cases[i].coloured, r.out);
        cli_result_dispose(&r);
    }
    r = run_culprit(repo->dir, NULL, "check --color=sometimes");
    assert_int_equal(r.status, 2);
    assert_contains(r.err, "'sometimes' is not auto, always or never");
    cli_result_dispose(&r);
}

/* --json: the document alone on stdout, the readable lines on stderr (as the test
 * binaries do), so `check --json > verdicts.json` still shows them in a CI log. */
static void json_on_stdout_text_on_stderr(void **state)
{
    repo_fixture *repo = *state;
    static const char *const commands[] = {"check --json", "compare HEAD~1 HEAD --json",
                                           "history --json", "categories --json"};
    json_error_t jerr;
    json_t *doc;
    cli_result r;

    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
        r = run_culprit(repo->dir, NULL, "%s", commands[i]);
        if (!(doc = json_loads(r.out, 0, &jerr)))
            fail_msg("culprit %s: stdout is not JSON (%s):\n%s", commands[i], jerr.text, r.out);
        json_decref(doc);
        if (!strstr(r.err, "perf."))
            fail_msg("culprit %s: no readable lines on stderr:\n%s", commands[i], r.err);
        cli_result_dispose(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(check_prints_one_line_per_verdict_and_a_summary),
        cmocka_unit_test(check_exit_code_follows_fail_on),
        cmocka_unit_test(check_fail_on_default_from_project_file),
        cmocka_unit_test(check_json_has_every_field),
        cmocka_unit_test(check_unconfirmed_minor_fails_once_history_vouches),
        cmocka_unit_test(check_unmeasured_head_names_the_newest_measured_commit),
        cmocka_unit_test(check_junit_passes_the_schema),
        cmocka_unit_test(check_baseline_and_pool_choose_what_is_compared),
        cmocka_unit_test(check_allow_mixed_compares_across_machines),
        cmocka_unit_test(check_bad_input_exits_2_naming_it),
        cmocka_unit_test(command_help_version_and_unknown_subcommand),
        cmocka_unit_test(colours_only_on_a_terminal_without_no_color),
        cmocka_unit_test(colour_options_and_forcing_variables),
        cmocka_unit_test(json_on_stdout_text_on_stderr),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
