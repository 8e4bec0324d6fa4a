/*
 * Command-line options of a culprit test binary. Both "--opt value" and
 * "--opt=value" are accepted, as getopt_long does; every mistake names the option
 * and the value, and the caller exits with 2.
 */
#include "runner.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void culprit_runner__usage(FILE *out, const char *program)
{
    fprintf(out,
            "usage: %s [options]\n"
            "Runs the performance-aware unit tests of this program, measures them and\n"
            "records the results in the culprit history (JUnit XML, one file per run).\n"
            "\n"
            "  --list               print the test names, one per line, and exit\n"
            "  --filter GLOB        run only tests whose name matches GLOB (fnmatch)\n"
            "  --repetitions N      take exactly N samples per test (overrides the tests)\n"
            "  --warmup N           untimed repetitions before sampling\n"
            "  --budget SECONDS     time budget per test\n"
            "  --timeout SECONDS    kill a test that runs longer, report it as an error\n"
            "  --duration SECONDS   run load tests (.duration_s) for this long instead\n"
            "  --history DIR        history directory (default: $CULPRIT_HISTORY_DIR, the\n"
            "                       project file's, or .culprit/history at the repository root)\n"
            "  --no-history         do not write a history file\n"
            "  --junit FILE         also write the results as JUnit XML to FILE\n"
            "  --json               print the results as JSON on stdout (text goes to stderr)\n"
            "  --commit SHA         record this commit instead of the detected one\n"
            "                       (also $CULPRIT_COMMIT; for CI checkouts)\n"
            "  --branch NAME        record this branch (also $CULPRIT_BRANCH)\n"
            "  --project FILE       project file (default: culprit.json at the repository root)\n"
            "  --fail-on major|none a test above its category fails (major, the default) or is\n"
            "                       only recorded (none; also $CULPRIT_FAIL_ON)\n"
            "  --no-fork            run tests in this process (for debuggers; a crash ends all)\n"
            "  -v, --verbose        show each test's own output\n"
            "  -q, --quiet          print only failures and the summary line\n"
            "  --version            print culprit's version\n"
            "  -h, --help           print this help\n"
            "\n"
            "Exit status: 0 all tests passed, 1 a test failed or errored, 2 usage or I/O error.\n",
            program);
}

static int parse_uint(unsigned int *out, const char *opt, const char *value, int allow_zero)
{
    char *end;
    unsigned long v;

    errno = 0;
    v = strtoul(value, &end, 10);
    if (!*value || *end || errno || value[0] == '-' || v > 100000000ul || (!allow_zero && v == 0))
        return culprit_error_set(CULPRIT_EINVALID, "%s: '%s' is not a %s integer", opt, value,
                                 allow_zero ? "non-negative" : "positive");
    *out = (unsigned int)v;
    return 0;
}

static int parse_seconds(double *out, const char *opt, const char *value)
{
    char *end;
    double v = strtod(value, &end);

    if (!*value || *end || !isfinite(v) || v <= 0)
        return culprit_error_set(CULPRIT_EINVALID, "%s: '%s' is not a positive number of seconds",
                                 opt, value);
    *out = v;
    return 0;
}

/* --fail-on, or $CULPRIT_FAIL_ON: `source` names which, for the message. */
static int parse_fail_on(culprit_runner_options *out, const char *source, const char *value)
{
    if (strcmp(value, "major") && strcmp(value, "none"))
        return culprit_error_set(CULPRIT_EINVALID,
                                 "%s: '%s' is not major or none (a test binary judges categories "
                                 "only; see culprit check)",
                                 source, value);
    out->fail_on_none = !strcmp(value, "none");
    return 0;
}

int culprit_runner__parse_options(culprit_runner_options *out, int argc, char **argv)
{
    const char *env_fail_on = getenv("CULPRIT_FAIL_ON");
    static const struct {
        const char *name;
        int takes_value;
    } known[] = {{"--list", 0},     {"--filter", 1},  {"--repetitions", 1},
                 {"--warmup", 1},   {"--budget", 1},  {"--timeout", 1},
                 {"--duration", 1}, {"--history", 1}, {"--no-history", 0},
                 {"--junit", 1},    {"--json", 0},    {"--commit", 1},
                 {"--branch", 1},   {"--project", 1}, {"--fail-on", 1},
                 {"--no-fork", 0},  {"--verbose", 0}, {"-v", 0},
                 {"--quiet", 0},    {"-q", 0},        {"--version", 0},
                 {"--help", 0},     {"-h", 0}};

    memset(out, 0, sizeof(*out));
    /* The environment first, so that the command line overrides it. */
    if (env_fail_on && *env_fail_on && parse_fail_on(out, "CULPRIT_FAIL_ON", env_fail_on) < 0)
        return CULPRIT_EINVALID;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value = NULL, *eq = NULL;
        size_t len = strlen(arg);
        int k, found = -1, error = 0;
        char name[64];

        if (strncmp(arg, "--", 2) == 0 && (eq = strchr(arg, '=')))
            len = (size_t)(eq - arg);
        if (len >= sizeof(name))
            return culprit_error_set(CULPRIT_EINVALID, "unknown option '%s' (see --help)", arg);
        memcpy(name, arg, len);
        name[len] = '\0';
        for (k = 0; k < (int)(sizeof(known) / sizeof(known[0])); k++)
            if (strcmp(name, known[k].name) == 0)
                found = k;
        if (found < 0)
            return culprit_error_set(CULPRIT_EINVALID, "unknown %s '%s' (see --help)",
                                     arg[0] == '-' ? "option" : "argument", arg);
        if (known[found].takes_value) {
            if (eq)
                value = eq + 1;
            else if (i + 1 < argc)
                value = argv[++i];
            else
                return culprit_error_set(CULPRIT_EINVALID, "%s needs a value (see --help)", name);
            if (!*value)
                return culprit_error_set(CULPRIT_EINVALID, "%s: empty value", name);
        } else if (eq) {
            return culprit_error_set(CULPRIT_EINVALID, "%s takes no value", name);
        }

        if (!strcmp(name, "--list"))
            out->list = 1;
        else if (!strcmp(name, "--filter"))
            out->filter = value;
        else if (!strcmp(name, "--repetitions"))
            error = parse_uint(&out->repetitions, name, value, 0);
        else if (!strcmp(name, "--warmup"))
            error = parse_uint(&out->warmup, name, value, 1), out->warmup_set = 1;
        else if (!strcmp(name, "--budget"))
            error = parse_seconds(&out->budget_s, name, value);
        else if (!strcmp(name, "--timeout"))
            error = parse_seconds(&out->timeout_s, name, value);
        else if (!strcmp(name, "--duration"))
            error = parse_seconds(&out->duration_s, name, value);
        else if (!strcmp(name, "--history"))
            out->history_dir = value;
        else if (!strcmp(name, "--no-history"))
            out->no_history = 1;
        else if (!strcmp(name, "--junit"))
            out->junit = value;
        else if (!strcmp(name, "--json"))
            out->json = 1;
        else if (!strcmp(name, "--commit"))
            out->commit = value;
        else if (!strcmp(name, "--branch"))
            out->branch = value;
        else if (!strcmp(name, "--project"))
            out->project = value;
        else if (!strcmp(name, "--fail-on"))
            error = parse_fail_on(out, name, value);
        else if (!strcmp(name, "--no-fork"))
            out->no_fork = 1;
        else if (!strcmp(name, "--verbose") || !strcmp(name, "-v"))
            out->verbose = 1;
        else if (!strcmp(name, "--quiet") || !strcmp(name, "-q"))
            out->quiet = 1;
        else if (!strcmp(name, "--version"))
            out->version = 1;
        else
            out->help = 1;
        if (error < 0)
            return error;
    }
    if (out->history_dir && out->no_history)
        return culprit_error_set(CULPRIT_EINVALID, "--history and --no-history contradict");
    return 0;
}
