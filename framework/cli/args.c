/*
 * Argument parsing for the subcommands: "--opt value" and "--opt=value" as
 * getopt_long accepts them, "--" ends the options. Every mistake names the option
 * and the value (and, for a mistyped option, the near matches), and the tool exits
 * with 2, so a typo in a CI script fails loudly instead of checking something else.
 * Also the options check and compare share (--fail-on, --threshold, ...).
 */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void cli_error(const char *fmt, ...)
{
    va_list ap;

    fputs("culprit: error: ", stderr);
    if (fmt) {
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
    } else {
        fputs(*culprit_error_last() ? culprit_error_last() : "unknown error", stderr);
    }
    fputc('\n', stderr);
}

int cli_usage_error(const char *command)
{
    cli_error(NULL);
    if (command)
        fprintf(stderr, "see 'culprit %s --help'\n", command);
    else
        fprintf(stderr, "see 'culprit --help'\n");
    return CLI_EXIT_ERROR;
}

int cli_unknown_command(const char *parent, const char *name, const char *const *names, size_t n)
{
    const char **near = NULL;
    culprit_buf msg = CULPRIT_BUF_INIT;
    size_t nnear = 0;

    culprit_suggest(&near, &nnear, name, names, n, 3);
    culprit_buf_printf(&msg, "'%s' is not a %s command", name, parent ? parent : "culprit");
    culprit_suggest_format(&msg, near, nnear);
    culprit_error_set(CULPRIT_EINVALID, "%s", culprit_buf_cstr(&msg));
    free(near);
    culprit_buf_dispose(&msg);
    return cli_usage_error(parent);
}

void cli_args_init(cli_args *args, const char *command, int argc, char **argv,
                   const cli_option *options)
{
    memset(args, 0, sizeof(*args));
    args->command = command;
    args->argc = argc;
    args->argv = argv;
    args->options = options;
}

int cli_is(const cli_args *args, const char *name)
{
    return args->name && strcmp(args->name, name) == 0;
}

static int unknown_option(const cli_args *args, const char *arg, size_t len)
{
    culprit_buf msg = CULPRIT_BUF_INIT, typed = CULPRIT_BUF_INIT;
    const char **names = NULL, **near = NULL;
    size_t n = 0, nnear = 0;
    int error;

    culprit_buf_put(&typed, arg, len);
    while (args->options[n].name)
        n++;
    if ((names = calloc(n + 1, sizeof(*names)))) {
        for (size_t i = 0; i < n; i++)
            names[i] = args->options[i].name;
        culprit_suggest(&near, &nnear, culprit_buf_cstr(&typed), names, n, 3);
    }
    culprit_buf_printf(&msg, "%s: unknown option '%s'", args->command, culprit_buf_cstr(&typed));
    culprit_suggest_format(&msg, near, nnear);
    error = culprit_error_set(CULPRIT_EINVALID, "%s", culprit_buf_cstr(&msg));
    free(near);
    free(names);
    culprit_buf_dispose(&msg);
    culprit_buf_dispose(&typed);
    return error;
}

int cli_args_next(cli_args *args)
{
    const char *arg, *eq;
    size_t len;

    args->name = args->value = NULL;
    if (++args->i >= args->argc)
        return CLI_ARG_END;
    arg = args->argv[args->i];
    if (args->only_positional || arg[0] != '-' || strcmp(arg, "-") == 0) {
        args->value = arg;
        return CLI_ARG_POSITIONAL;
    }
    if (strcmp(arg, "--") == 0) {
        args->only_positional = 1;
        return cli_args_next(args);
    }
    if (strcmp(arg, "-h") == 0)
        arg = "--help";
    eq = strncmp(arg, "--", 2) == 0 ? strchr(arg, '=') : NULL;
    len = eq ? (size_t)(eq - arg) : strlen(arg);
    for (const cli_option *o = args->options; o->name; o++) {
        if (strlen(o->name) != len || strncmp(o->name, arg, len) != 0)
            continue;
        args->name = o->name;
        if (!o->takes_value) {
            if (eq)
                return culprit_error_set(CULPRIT_EINVALID, "%s: option '%s' takes no value",
                                         args->command, o->name);
            return CLI_ARG_OPTION;
        }
        if (eq) {
            args->value = eq + 1;
        } else if (args->i + 1 < args->argc) {
            args->value = args->argv[++args->i];
        } else {
            return culprit_error_set(CULPRIT_EINVALID, "%s: option '%s' needs a value",
                                     args->command, o->name);
        }
        return CLI_ARG_OPTION;
    }
    return unknown_option(args, arg, len);
}

int cli_parse_size(size_t *out, const char *option, const char *value, size_t min)
{
    unsigned long long v;
    char *end;

    errno = 0;
    v = strtoull(value, &end, 10);
    if (!*value || *end || errno || value[0] == '-' || value[0] == '+' || v < min ||
        v > 1000000000ull)
        return culprit_error_set(CULPRIT_EINVALID, "%s: '%s' is not an integer of at least %zu",
                                 option, value, min);
    *out = (size_t)v;
    return 0;
}

int cli_parse_double(double *out, const char *option, const char *value, double low, double high,
                     const char *what)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(value, &end);
    if (!*value || *end || errno || !isfinite(v) || v < low || v > high)
        return culprit_error_set(CULPRIT_EINVALID, "%s: '%s' is not %s", option, value, what);
    *out = v;
    return 0;
}

/* ----------------------------------------------------------- shared by judges --- */

static const char *const fail_on_names[] = {"major", "minor", "none"};

const char *cli_fail_on_name(cli_fail_on fail_on)
{
    return fail_on_names[fail_on];
}

void cli_judge_init(cli_judge *judge)
{
    culprit_check_options defaults = CULPRIT_CHECK_OPTIONS_INIT;

    memset(judge, 0, sizeof(*judge));
    judge->check = defaults;
    judge->fail_on = CLI_FAIL_ON_MAJOR;
}

int cli_judge_option(cli_judge *judge, const cli_args *args)
{
    culprit_detect_options *d = &judge->check.detect;
    double v;
    int error;

    if (cli_is(args, "--fail-on")) {
        for (size_t i = 0; i < sizeof(fail_on_names) / sizeof(fail_on_names[0]); i++)
            if (strcmp(args->value, fail_on_names[i]) == 0) {
                judge->fail_on = (cli_fail_on)i;
                return 1;
            }
        return culprit_error_set(CULPRIT_EINVALID,
                                 "--fail-on: '%s' is not one of major, minor, none", args->value);
    }
    if (cli_is(args, "--json")) {
        judge->json = 1;
    } else if (cli_is(args, "--junit")) {
        judge->junit = args->value;
    } else if (cli_is(args, "--test")) {
        judge->check.test = args->value;
    } else if (cli_is(args, "--history")) {
        judge->history_dir = args->value;
    } else if (cli_is(args, "--project")) {
        judge->project_file = args->value;
    } else if (cli_is(args, "--allow-mixed")) {
        d->allow_mixed = 1;
    } else if (cli_is(args, "--threshold")) {
        if ((error = cli_parse_double(&v, "--threshold", args->value, 0, 1000,
                                      "a percentage (0 to 1000)")) < 0)
            return error;
        d->threshold = v / 100;
    } else if (cli_is(args, "--confidence")) {
        if ((error = cli_parse_double(&v, "--confidence", args->value, 0, 1,
                                      "a confidence level between 0 and 1 (such as 0.99)")) < 0)
            return error;
        if (!(v > 0 && v < 1))
            return culprit_error_set(CULPRIT_EINVALID,
                                     "--confidence: '%s' is not strictly between 0 and 1",
                                     args->value);
        d->confidence = v;
    } else if (cli_is(args, "--fdr")) {
        if ((error = cli_parse_double(&v, "--fdr", args->value, 0, 1,
                                      "a false discovery rate in (0, 1] (such as 0.05)")) < 0)
            return error;
        if (!(v > 0))
            return culprit_error_set(CULPRIT_EINVALID, "--fdr: '%s' is not above 0", args->value);
        d->fdr = v;
    } else if (cli_is(args, "--noise-window")) {
        if ((error = cli_parse_size(&judge->check.noise_window, "--noise-window", args->value, 0)) <
            0)
            return error;
    } else {
        return 0;
    }
    return 1;
}

/* The options of the counter detectors; 0 when `args` is none of them. */
int cli_detector_option(culprit_check_options *check, const cli_args *args)
{
    double percent;
    int error;

    if (cli_is(args, "--detector")) {
        if ((error = culprit_detector_parse(&check->detectors, args->value)) < 0) {
            /* The message is formatted from a copy: the last error is rewritten. */
            char why[256];
            snprintf(why, sizeof(why), "%s", culprit_error_last());
            return culprit_error_set(CULPRIT_EINVALID, "--detector: %s", why);
        }
        return 1;
    }
    if (cli_is(args, "--cluster-threshold")) {
        if ((error = cli_parse_double(&percent, "--cluster-threshold", args->value, 1e-9, 1e6,
                                      "a percentage above 0")) < 0)
            return error;
        check->clusters.threshold = percent / 100;
        /* An explicit threshold is the user's choice: no A/A calibration. */
        check->clusters.aa_margin = 0;
        check->clusters.aa_floor = check->clusters.threshold;
        return 1;
    }
    if (cli_is(args, "--rules-support"))
        return cli_parse_double(&check->rules.min_support, "--rules-support", args->value, 1e-9, 1,
                                "a fraction in (0, 1]") < 0
                   ? -1
                   : 1;
    if (cli_is(args, "--rules-confidence"))
        return cli_parse_double(&check->rules.min_confidence, "--rules-confidence", args->value,
                                1e-9, 1, "a fraction in (0, 1]") < 0
                   ? -1
                   : 1;
    if (cli_is(args, "--rules-change"))
        return cli_parse_double(&check->rules.threshold, "--rules-change", args->value, 0, 1,
                                "a fraction in [0, 1]") < 0
                   ? -1
                   : 1;
    if (cli_is(args, "--rules-window"))
        return cli_parse_size(&check->rules.window, "--rules-window", args->value, 1) < 0 ? -1 : 1;
    if (cli_is(args, "--rules-history"))
        return cli_parse_size(&check->rules.history, "--rules-history", args->value, 1) < 0 ? -1
                                                                                            : 1;
    return 0;
}

/* The counter detectors read the raw series; the time verdicts only summaries. */
unsigned int cli_history_flags(const culprit_check_options *opts)
{
    return opts->detectors & (CULPRIT_DETECTOR_CLUSTERS | CULPRIT_DETECTOR_RULES)
               ? CULPRIT_HISTORY_LOAD_SAMPLES
               : 0;
}

void cli_judge_help(FILE *out)
{
    fputs("  --fail-on major|minor|none\n"
          "                        what exits 1: a major regression (default), a major or\n"
          "                        minor one, or nothing\n"
          "  --json                print a JSON document on stdout (docs/cli.md)\n"
          "  --junit FILE          also write the verdicts as a JUnit XML file\n"
          "  --test NAME           judge only this test (SUITE.TEST or TEST)\n"
          "  --history DIR         history directory (default: as the test binaries find it)\n"
          "  --project FILE        project file (default: culprit.json at the repository root)\n"
          "  --allow-mixed         compare runs of different machines or build flags\n"
          "  --threshold PERCENT   smallest change that matters (default 2)\n"
          "  --confidence C        confidence of intervals and tests (default 0.99)\n"
          "  --fdr Q               false discovery rate across the tests (default 0.05)\n"
          "  --noise-window N      earlier runs of a test that estimate how much its runs\n"
          "                        differ from each other (default 10; 0: none)\n",
          out);
}

int cli_judge_exit_code(const culprit_check_result *result, cli_fail_on fail_on)
{
    culprit_verdict_kind worst = culprit_check_worst(result);

    if (fail_on == CLI_FAIL_ON_NONE)
        return CLI_EXIT_OK;
    if (worst == CULPRIT_VERDICT_MAJOR)
        return CLI_EXIT_REGRESSION;
    if (worst == CULPRIT_VERDICT_MINOR && fail_on == CLI_FAIL_ON_MINOR)
        return CLI_EXIT_REGRESSION;
    return CLI_EXIT_OK;
}
