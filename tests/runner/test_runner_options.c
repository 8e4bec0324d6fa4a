/* Tests of the runner's option parsing: every mistake names the option. */
#include "support/test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/runner_internal.h"

#define ARGV(...)     ((char *[]){"prog", __VA_ARGS__, NULL})
#define ARGC(...)     ((int)(sizeof((char *[]){"prog", __VA_ARGS__}) / sizeof(char *)))
#define PARSE(o, ...) culprit_runner__parse_options((o), ARGC(__VA_ARGS__), ARGV(__VA_ARGS__))

static void accepts_both_value_spellings(void **state)
{
    culprit_runner_options o;
    (void)state;
    assert_int_equal(PARSE(&o, "--filter", "fib*", "--repetitions=7", "--history", "/h",
                           "--junit=j.xml", "--json", "--timeout", "2.5", "--warmup", "0"),
                     0);
    assert_string_equal(o.filter, "fib*");
    assert_int_equal(o.repetitions, 7);
    assert_string_equal(o.history_dir, "/h");
    assert_string_equal(o.junit, "j.xml");
    assert_true(o.json);
    assert_true(o.timeout_s == 2.5);
    assert_true(o.warmup_set);
    assert_int_equal(o.warmup, 0);
    assert_false(o.min_time_set);
    /* --min-time 0 is a choice (no minimum), told apart from not given. */
    assert_int_equal(PARSE(&o, "--min-time", "0"), 0);
    assert_true(o.min_time_set);
    assert_true(o.min_time_s == 0.0);
    assert_int_equal(PARSE(&o, "--min-time=1.5"), 0);
    assert_true(o.min_time_s == 1.5);
}

static void rejects_unknown_option_by_name(void **state)
{
    culprit_runner_options o;
    (void)state;
    assert_int_equal(PARSE(&o, "--frobnicate"), CULPRIT_EINVALID);
    assert_non_null(strstr(culprit_error_last(), "--frobnicate"));
    assert_int_equal(PARSE(&o, "stray"), CULPRIT_EINVALID);
    assert_non_null(strstr(culprit_error_last(), "stray"));
}

static void rejects_bad_values_naming_option_and_value(void **state)
{
    culprit_runner_options o;
    (void)state;
    assert_int_equal(PARSE(&o, "--repetitions", "abc"), CULPRIT_EINVALID);
    assert_non_null(strstr(culprit_error_last(), "--repetitions"));
    assert_non_null(strstr(culprit_error_last(), "abc"));
    assert_int_equal(PARSE(&o, "--repetitions", "0"), CULPRIT_EINVALID);
    assert_int_equal(PARSE(&o, "--repetitions", "-3"), CULPRIT_EINVALID);
    assert_int_equal(PARSE(&o, "--budget", "soon"), CULPRIT_EINVALID);
    assert_non_null(strstr(culprit_error_last(), "--budget"));
    assert_int_equal(PARSE(&o, "--min-time", "-1"), CULPRIT_EINVALID);
    assert_non_null(strstr(culprit_error_last(), "--min-time"));
    assert_int_equal(PARSE(&o, "--history"), CULPRIT_EINVALID);
    assert_non_null(strstr(culprit_error_last(), "needs a value"));
    assert_int_equal(PARSE(&o, "--json=yes"), CULPRIT_EINVALID);
    assert_int_equal(PARSE(&o, "--history", "x", "--no-history"), CULPRIT_EINVALID);
}

static void fail_on_from_environment_then_command_line(void **state)
{
    culprit_runner_options o;
    (void)state;
    unsetenv("CULPRIT_FAIL_ON"); /* the sanitized suite's ctest sets it */
    assert_int_equal(PARSE(&o, "-q"), 0);
    assert_int_equal(o.fail_on, CULPRIT_FAIL_ON_MAJOR);
    assert_false(o.fail_on_set); /* culprit.json's "fail_on" may then decide */
    setenv("CULPRIT_FAIL_ON", "none", 1);
    assert_int_equal(PARSE(&o, "-q"), 0);
    assert_int_equal(o.fail_on, CULPRIT_FAIL_ON_NONE);
    assert_true(o.fail_on_set);
    assert_true(o.quiet);
    assert_int_equal(PARSE(&o, "--fail-on=major"), 0);
    assert_int_equal(o.fail_on, CULPRIT_FAIL_ON_MAJOR);
    setenv("CULPRIT_FAIL_ON", "minor", 1);
    assert_int_equal(PARSE(&o, "-v"), 0);
    assert_int_equal(o.fail_on, CULPRIT_FAIL_ON_MINOR);
    setenv("CULPRIT_FAIL_ON", "minors", 1);
    assert_int_equal(PARSE(&o, "-v"), CULPRIT_EINVALID);
    assert_non_null(strstr(culprit_error_last(), "CULPRIT_FAIL_ON: 'minors'"));
    unsetenv("CULPRIT_FAIL_ON");
    assert_int_equal(PARSE(&o, "--fail-on", "minor"), 0);
    assert_int_equal(o.fail_on, CULPRIT_FAIL_ON_MINOR);
    assert_int_equal(PARSE(&o, "--fail-on", "uncompared"), CULPRIT_EINVALID);
    assert_non_null(strstr(culprit_error_last(), "major, minor or none"));
}

/* $CULPRIT_FILTER (what a bisection or a paired confirmation sets) is a filter that
 * may match nothing; --filter on the command line wins and is strict again. */
static void filter_from_environment_then_command_line(void **state)
{
    culprit_runner_options o;
    (void)state;
    setenv("CULPRIT_FILTER", "fib_\\*", 1);
    assert_int_equal(PARSE(&o, "-q"), 0);
    assert_string_equal(o.filter, "fib_\\*");
    assert_true(o.filter_from_env);
    assert_int_equal(PARSE(&o, "--filter", "other"), 0);
    assert_string_equal(o.filter, "other");
    assert_false(o.filter_from_env);
    unsetenv("CULPRIT_FILTER");
    assert_int_equal(PARSE(&o, "-q"), 0);
    assert_null(o.filter);
    assert_false(o.filter_from_env);
}

/* --help lists the rows the parser reads: every option parsed is in the help. */
static void help_lists_every_option(void **state)
{
    static const char *const names[] = {
        "--list",       "--filter",   "--repetitions", "--max-repetitions", "--warmup",
        "--budget",     "--min-time", "--timeout",     "--duration",        "--history",
        "--no-history", "--junit",    "--json",        "--commit",          "--branch",
        "--project",    "--fail-on",  "--no-fork",     "-v, --verbose",     "-q, --quiet",
        "--version",    "-h, --help"};
    char text[8192] = "";
    FILE *f = fmemopen(text, sizeof(text) - 1, "w");
    (void)state;
    assert_non_null(f);
    culprit_runner__usage(f, "prog");
    fclose(f);
    assert_non_null(strstr(text, "usage: prog [options]"));
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (!strstr(text, names[i]))
            fail_msg("'%s' is not in the help:\n%s", names[i], text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(accepts_both_value_spellings),
        cmocka_unit_test(rejects_unknown_option_by_name),
        cmocka_unit_test(rejects_bad_values_naming_option_and_value),
        cmocka_unit_test(fail_on_from_environment_then_command_line),
        cmocka_unit_test(filter_from_environment_then_command_line),
        cmocka_unit_test(help_lists_every_option),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
