/*
 * Command-line options of a culprit test binary, declared once in the table below:
 * the parser (framework/core/options.c) reads values, ranges and messages from it
 * and --help prints it. Both "--opt value" and "--opt=value" are accepted, as
 * getopt_long does; every mistake names the option and the value, and the caller
 * exits with 2.
 */
#include "runner_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* culprit_fail_on's first three names, in its order: "uncompared" is check's only (a test
 * binary's first run has no baseline and must not fail for it). */
static const char *const fail_on_choices[] = {"major", "minor", "none", NULL};

/* The rows of a test binary's options, their values going into `o`. */
#define RUNNER_NOPTS 29
static void options_table(culprit_opt table[RUNNER_NOPTS], culprit_runner_options *o)
{
    const culprit_opt rows[] = {
        CULPRIT_OPT("--list", 0, CULPRIT_OPT_FLAG, &o->list, NULL,
                    "print the test names, one per line, and exit"),
        CULPRIT_OPT("--filter", 0, CULPRIT_OPT_STRING, &o->filter, "GLOB",
                    "run only tests whose name matches GLOB (fnmatch; also\n"
                    "$CULPRIT_FILTER, where matching none runs none, exit 0)"),
        CULPRIT_OPT("--repetitions", 0, CULPRIT_OPT_UINT, &o->repetitions, "N",
                    "take exactly N samples per test (overrides the tests)", .min = 1, .max = 1e8),
        CULPRIT_OPT("--max-repetitions", 0, CULPRIT_OPT_UINT, &o->max_repetitions, "N",
                    "take at most N samples per test: an adaptive test stops\n"
                    "there, a larger fixed count takes N (also\n"
                    "$CULPRIT_MAX_REPETITIONS, which a paired confirmation sets)",
                    .min = 1, .max = 1e8),
        CULPRIT_OPT("--warmup", 0, CULPRIT_OPT_UINT, &o->warmup, "N",
                    "untimed repetitions before sampling", .max = 1e8, .given = &o->warmup_set),
        CULPRIT_OPT("--budget", 0, CULPRIT_OPT_DOUBLE, &o->budget_s, "SECONDS",
                    "time budget per test", .max = HUGE_VAL, .flags = CULPRIT_OPT_ABOVE_MIN,
                    .what = "a positive number of seconds"),
        CULPRIT_OPT("--min-time", 0, CULPRIT_OPT_DOUBLE, &o->min_time_s, "SECONDS",
                    "no precision stop before the samples span this long\n(default 0.5; 0: none)",
                    .max = HUGE_VAL, .given = &o->min_time_set, .what = "a number of seconds >= 0"),
        CULPRIT_OPT("--keep-preempted", 0, CULPRIT_OPT_FLAG, &o->keep_preempted, NULL,
                    "judge the samples during which the test was preempted too\n"
                    "(default: left out, docs/measure.md)"),
        CULPRIT_OPT("--timeout", 0, CULPRIT_OPT_DOUBLE, &o->timeout_s, "SECONDS",
                    "kill a test that runs longer, report it as an error", .max = HUGE_VAL,
                    .flags = CULPRIT_OPT_ABOVE_MIN, .what = "a positive number of seconds"),
        CULPRIT_OPT("--duration", 0, CULPRIT_OPT_DOUBLE, &o->duration_s, "SECONDS",
                    "run load tests (.duration_s) for this long instead", .max = HUGE_VAL,
                    .flags = CULPRIT_OPT_ABOVE_MIN, .what = "a positive number of seconds"),
        CULPRIT_OPT("--history", 0, CULPRIT_OPT_STRING, &o->history_dir, "DIR",
                    "history directory (default: $CULPRIT_HISTORY_DIR, the\n"
                    "project file's, or .culprit/history at the repository root)"),
        CULPRIT_OPT("--no-history", 0, CULPRIT_OPT_FLAG, &o->no_history, NULL,
                    "do not write a history file"),
        CULPRIT_OPT("--junit", 0, CULPRIT_OPT_STRING, &o->junit, "FILE",
                    "also write the results as a JUnit report to FILE, or to a\n"
                    "new file in FILE when it is a directory or ends in '/'\n"
                    "(also $CULPRIT_JUNIT; merge with culprit junit)"),
        CULPRIT_OPT("--json", 0, CULPRIT_OPT_FLAG, &o->json, NULL,
                    "print the results as JSON on stdout (text goes to stderr)"),
        CULPRIT_OPT("--commit", 0, CULPRIT_OPT_STRING, &o->commit, "SHA",
                    "record this commit instead of the detected one\n(also $CULPRIT_COMMIT; for CI "
                    "checkouts)"),
        CULPRIT_OPT("--branch", 0, CULPRIT_OPT_STRING, &o->branch, "NAME",
                    "record this branch (also $CULPRIT_BRANCH)"),
        CULPRIT_OPT("--repository", 0, CULPRIT_OPT_STRING, &o->repository, "DIR",
                    "the git repository of the code under test (default: the\n"
                    "one holding the current directory; culprit_discover_tests\n"
                    "passes the source directory, for builds outside it)"),
        CULPRIT_OPT("--machine", 0, CULPRIT_OPT_STRING, &o->machine, "NAME",
                    "record the run for this class of identical machines (a CI\n"
                    "runner label; also $CULPRIT_MACHINE): runs of one class are\n"
                    "compared whatever their host or kernel"),
        CULPRIT_OPT("--project", 0, CULPRIT_OPT_STRING, &o->project, "FILE",
                    "project file (default: culprit.json at the repository root)"),
        CULPRIT_OPT("--fail-on", 0, CULPRIT_OPT_ENUM, &o->fail_on, "major|minor|none",
                    "a test above its category fails (major, the default), a\n"
                    "minor regression against its history too (minor), or\n"
                    "nothing (none; also $CULPRIT_FAIL_ON, culprit.json's\n"
                    "\"fail_on\")",
                    .choices = fail_on_choices, .given = &o->fail_on_set,
                    .what = "major, minor or none"),
        CULPRIT_OPT("--metric", 0, CULPRIT_OPT_STRING, &o->metric, "NAME",
                    "judge this series of every test (also $CULPRIT_METRIC):\n"
                    "instructions counts them under Valgrind (docs/measure.md)"),
        CULPRIT_OPT("--no-fork", 0, CULPRIT_OPT_FLAG, &o->no_fork, NULL,
                    "run tests in this process (for debuggers; a crash ends all;\n"
                    "also $CULPRIT_NO_FORK=1, which a paired confirmation sets)"),
        CULPRIT_OPT("--ctest", 0, CULPRIT_OPT_FLAG, &o->ctest, NULL,
                    "print each result as CTest measurements for ctest and\n"
                    "CDash too (culprit_discover_tests passes it)"),
        CULPRIT_OPT("--debug", 0, CULPRIT_OPT_FLAG, &o->debug, NULL,
                    "for a debugger: each test once, in this process, no budget,\n"
                    "nothing recorded (automatic when a debugger is attached)"),
        CULPRIT_OPT("--verbose", 'v', CULPRIT_OPT_FLAG, &o->verbose, NULL,
                    "show each test's own output"),
        CULPRIT_OPT("--quiet", 'q', CULPRIT_OPT_FLAG, &o->quiet, NULL,
                    "print only failures and the summary line"),
        CULPRIT_OPT("--version", 0, CULPRIT_OPT_FLAG, &o->version, NULL, "print culprit's version"),
        CULPRIT_OPT("--help", 'h', CULPRIT_OPT_FLAG, &o->help, NULL, "print this help"),
        CULPRIT_OPT_END_ROW,
    };
    _Static_assert(sizeof(rows) / sizeof(rows[0]) <= RUNNER_NOPTS, "RUNNER_NOPTS too small");

    memset(table, 0, RUNNER_NOPTS * sizeof(*table));
    memcpy(table, rows, sizeof(rows));
    /* An empty value is a mistake in a script ("--filter $UNSET"), never a choice. */
    for (culprit_opt *row = table; row->name; row++)
        row->flags |= CULPRIT_OPT_NONEMPTY;
}

void culprit_runner__usage(FILE *out, const char *program)
{
    culprit_opt table[RUNNER_NOPTS];
    culprit_runner_options dummy;
    culprit_buf help = CULPRIT_BUF_INIT;

    options_table(table, &dummy);
    culprit_opt_help(&help, table, 23);
    fprintf(out,
            "usage: %s [options]\n"
            "Runs the performance-aware unit tests of this program, measures them and\n"
            "records the results in the culprit history (JUnit XML, one file per run).\n"
            "\n"
            "%s"
            "\n"
            "Exit status: 0 all tests passed, 1 a test failed or errored, 2 usage or I/O error.\n",
            program, culprit_buf_cstr(&help));
    culprit_buf_dispose(&help);
}

int culprit_runner__parse_options(culprit_runner_options *out, int argc, char **argv)
{
    const char *env_fail_on = getenv("CULPRIT_FAIL_ON"), *env_metric = getenv("CULPRIT_METRIC");
    const char *env_filter = getenv("CULPRIT_FILTER");
    const char *env_max = getenv("CULPRIT_MAX_REPETITIONS");
    const char *env_no_fork = getenv("CULPRIT_NO_FORK");
    culprit_opt table[RUNNER_NOPTS];
    culprit_opt_parser p;
    int kind;

    memset(out, 0, sizeof(*out));
    options_table(table, out);
    /* The environment first, so that the command line overrides it. */
    if (env_fail_on && *env_fail_on &&
        culprit_opt_apply(culprit_opt_find(table, "--fail-on"), "CULPRIT_FAIL_ON", env_fail_on) < 0)
        return CULPRIT_EINVALID;
    /* What culprit bisect --metric asks of the test binary it runs. */
    if (env_metric && *env_metric &&
        culprit_opt_apply(culprit_opt_find(table, "--metric"), "CULPRIT_METRIC", env_metric) < 0)
        return CULPRIT_EINVALID;
    /* The samples a paired confirmation's run needs (probe.c). */
    if (env_max && *env_max &&
        culprit_opt_apply(culprit_opt_find(table, "--max-repetitions"), "CULPRIT_MAX_REPETITIONS",
                          env_max) < 0)
        return CULPRIT_EINVALID;
    /* A paired confirmation's run measures one test, judged from the history it writes
     * (probe.c): a crash fails the run either way, and forking a child for it costs a
     * fork and a result handed back through a file (docs/runner.md). */
    if (env_no_fork && *env_no_fork && strcmp(env_no_fork, "0") != 0)
        out->no_fork = 1;
    /* The one test a bisection or a paired confirmation measures. */
    if (env_filter && *env_filter) {
        out->filter = env_filter;
        out->filter_from_env = 1;
    }
    culprit_opt_parser_init(&p, NULL, table, argc, argv);
    while ((kind = culprit_opt_next(&p)) != CULPRIT_OPT_END) {
        if (kind < 0)
            return kind;
        if (kind == CULPRIT_OPT_POSITIONAL)
            return culprit_error_set(CULPRIT_EINVALID, "unknown argument '%s'", p.value);
    }
    out->filter_from_env = out->filter_from_env && out->filter == env_filter;
    if (out->history_dir && out->no_history)
        return culprit_error_set(CULPRIT_EINVALID, "--history and --no-history contradict");
    return 0;
}
