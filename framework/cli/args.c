/*
 * What the subcommands share around their option tables: the usage and error
 * printing, the setters of repeated and counter-detector options, and the judge
 * (the options check and compare share, whose rows are the CLI_OPT_* macros of
 * cli.h). Parsing itself is the table-driven parser of core (culprit_opt_next):
 * "--opt value" and "--opt=value", "--" ends the options, and every mistake names
 * the option and the value (and, for a mistyped option, the near matches); the
 * tool exits with 2, so a typo in a CI script fails loudly instead of checking
 * something else.
 */
#include "cli.h"

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

void cli_usage(FILE *out, const char *head, const culprit_opt *opts, size_t column,
               const char *tail)
{
    culprit_buf help = CULPRIT_BUF_INIT;

    culprit_opt_help(&help, opts, column);
    fprintf(out, "%s%s%s", head, culprit_buf_cstr(&help), tail);
    culprit_buf_dispose(&help);
}

int cli_opt_append(const culprit_opt *opt, const char *value)
{
    cli_strings *list = opt->target;
    const char **grown = realloc(list->items, (list->n + 1) * sizeof(*list->items));

    if (!grown)
        return CULPRIT_ERROR_NOMEM();
    list->items = grown;
    list->items[list->n++] = value;
    return 0;
}

/* ----------------------------------------------------------- shared by judges --- */

void cli_judge_init(cli_judge *judge)
{
    culprit_check_options defaults = CULPRIT_CHECK_OPTIONS_INIT;

    memset(judge, 0, sizeof(*judge));
    judge->check = defaults;
    judge->fail_on = CULPRIT_FAIL_ON_MAJOR;
}

void cli_judge_project_fail_on(cli_judge *judge, const culprit_project *project)
{
    const char *f = project ? culprit_detect_project_fail_on(project) : NULL;
    culprit_fail_on fail_on;

    if (!judge->fail_on_given && culprit_detect_fail_on_parse(f, &fail_on) == 0)
        judge->fail_on = fail_on;
}

int cli_set_detector(const culprit_opt *opt, const char *value)
{
    culprit_check_options *check = opt->target;

    /* The parser puts "--detector: " in front of the detector module's message. */
    return culprit_detect_detector_parse(&check->detectors, value);
}

int cli_set_cluster_threshold(const culprit_opt *opt, const char *value)
{
    culprit_check_options *check = opt->target;
    culprit_opt percent = *opt;
    int error;

    /* The row's range, scale and message, read as a number into the threshold. */
    percent.type = CULPRIT_OPT_DOUBLE;
    percent.target = &check->clusters.threshold;
    percent.given = NULL;
    if ((error = culprit_opt_apply(&percent, opt->name, value)) < 0)
        return error;
    /* An explicit threshold is the user's choice: no A/A calibration. */
    check->clusters.aa_margin = 0;
    check->clusters.aa_floor = check->clusters.threshold;
    return 0;
}

int cli_judge_exit_code(const culprit_check_result *result, culprit_fail_on fail_on)
{
    return culprit_detect_check_fails(result, fail_on) ? CLI_EXIT_REGRESSION : CLI_EXIT_OK;
}
