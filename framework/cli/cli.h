/*
 * What the subcommands of the `culprit` tool share: argument parsing, opening the
 * repository and the history, and the renderings of a check (text lines, JSON,
 * JUnit). Internal to the tool; everything it decides comes from include/culprit/.
 */
#ifndef CULPRIT_CLI_H
#define CULPRIT_CLI_H

#include "culprit/calltree.h"
#include "culprit/core.h"
#include "culprit/detect.h"
#include "culprit/history.h"
#include "culprit/report.h"
#include "culprit/runner.h"
#include "culprit/vcs.h"
#include "culprit/version.h"

#include <jansson.h>
#include <pthread.h>
#include <stdio.h>

/* Exit codes, documented in docs/cli.md. */
#define CLI_EXIT_OK         0
#define CLI_EXIT_REGRESSION 1
#define CLI_EXIT_ERROR      2

/* The version `culprit --version` prints and every JSON document's format number. */
#define CLI_VERSION     CULPRIT_VERSION /* culprit/version.h, from project(VERSION) */
#define CLI_JSON_FORMAT 1

/* ------------------------------------------------------------------ arguments --- */

/* One option a subcommand accepts: "--name" with or without a value. */
typedef struct {
    const char *name;
    int takes_value;
} cli_option;

/* An iterator over a subcommand's arguments, getopt_long-like. */
typedef struct {
    const char *command; /* "check", for messages */
    int argc;
    char **argv;
    int i;
    int only_positional; /* after "--" */
    const cli_option *options;
    const char *name;  /* the option just parsed ("--test"); NULL for a positional */
    const char *value; /* its value, or the positional argument */
} cli_args;

/* Parsing results of cli_args_next(). */
#define CLI_ARG_END        0
#define CLI_ARG_OPTION     1
#define CLI_ARG_POSITIONAL 2

void cli_args_init(cli_args *args, const char *command, int argc, char **argv,
                   const cli_option *options);
/*
 * The next argument: CLI_ARG_OPTION (args->name, args->value), CLI_ARG_POSITIONAL
 * (args->value) or CLI_ARG_END. A usage error (unknown option, with near matches;
 * missing value; a value given to a flag) is CULPRIT_EINVALID with the last error set.
 */
int cli_args_next(cli_args *args);
int cli_is(const cli_args *args, const char *name);

/* "'NAME' is not a PARENT command; did you mean ...", as a usage error (exit 2);
 * PARENT NULL is culprit itself. */
int cli_unknown_command(const char *parent, const char *name, const char *const *names, size_t n);

/* Numbers from option values; the message names the option and the value. */
int cli_parse_size(size_t *out, const char *option, const char *value, size_t min);
int cli_parse_double(double *out, const char *option, const char *value, double low, double high,
                     const char *what);

/* "culprit: error: ..." on stderr, from the last error when fmt is NULL. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A usage error: the message, then "see 'culprit CMD --help'". Returns CLI_EXIT_ERROR. */
int cli_usage_error(const char *command);

/* -------------------------------------------------------------------- judging --- */

typedef enum { CLI_FAIL_ON_MAJOR = 0, CLI_FAIL_ON_MINOR, CLI_FAIL_ON_NONE } cli_fail_on;

const char *cli_fail_on_name(cli_fail_on fail_on);

/* The options check and compare share. */
typedef struct {
    culprit_check_options check;
    cli_fail_on fail_on;
    int json;
    const char *junit;
    const char *history_dir;
    const char *project_file;
} cli_judge;

/* The option-table entries of the shared options, to put in a subcommand's table. */
#define CLI_JUDGE_OPTIONS                                                                          \
    {"--fail-on", 1}, {"--json", 0}, {"--junit", 1}, {"--test", 1}, {"--history", 1},              \
        {"--project", 1}, {"--allow-mixed", 0}, {"--threshold", 1}, {"--confidence", 1},           \
        {"--fdr", 1},                                                                              \
    {                                                                                              \
        "--noise-window", 1                                                                        \
    }

void cli_judge_init(cli_judge *judge);
/* 1 when `args`'s current option is one of the shared ones (applied), 0 when not,
 * negative for a bad value. */
int cli_judge_option(cli_judge *judge, const cli_args *args);

/**
 * The options of the counter detectors (--detector, --cluster-threshold, --rules-*):
 * 1 when `args` is one of them (parsed into `check`), 0 when not, negative on a bad
 * value. Shared by check and report.
 */
int cli_detector_option(culprit_check_options *check, const cli_args *args);

/** What a history load needs for these options: the raw series when a counter
 * detector runs, summaries otherwise. */
unsigned int cli_history_flags(const culprit_check_options *opts);
/* The help lines of the shared options. */
void cli_judge_help(FILE *out);

/* The exit code a check gives under `fail_on`: 1 for a regression, else 0. */
int cli_judge_exit_code(const culprit_check_result *result, cli_fail_on fail_on);

/* ------------------------------------------------------------ repository, store --- */

/* What a subcommand works on: the repository (NULL outside one), settings, project. */
typedef struct {
    culprit_vcs *repo;
    culprit_settings settings;
    culprit_project *project;
} cli_env;

/*
 * Opens the repository of the current directory (optional unless `need_repo`) and
 * resolves the project file and history directory as the test binaries do.
 */
int cli_env_open(cli_env *env, const char *project_file, const char *history_dir, int need_repo);
void cli_env_dispose(cli_env *env);

/* Loads every run of the history directory (summaries only). CULPRIT_ENOTFOUND when
 * the directory does not exist. */
int cli_load_history(culprit_history_runs *out, const char *dir);
/* The same with CULPRIT_HISTORY_LOAD_* flags (the counter detectors need samples). */
int cli_load_history_flags(culprit_history_runs *out, const char *dir, unsigned int flags);

/*
 * Checks that test `name` ("suite.test" or a bare test name) appears somewhere in
 * `runs`; CULPRIT_ENOTFOUND naming it with near matches otherwise. `where` names the
 * place searched, for the message.
 */
int cli_require_test(const culprit_history_runs *runs, const char *name, const char *where);

/* "suite.test" of a result of `run` (caller frees). */
char *cli_test_key(const culprit_run *run, const culprit_test_result *test);

/* Copies the summary-level fields of `src` (no series) into `dst`, replacing what it
 * held; the classname becomes src's or else `suite`. */
int cli_copy_test(culprit_test_result *dst, const culprit_test_result *src, const char *suite);

/* ----------------------------------------------------------------- rendering --- */

/* 1 when stdout is a terminal and NO_COLOR is unset or empty. */
int cli_use_color(void);

/* The tag a verdict line starts with: "MAJOR", "MINOR", "FASTER", "unchanged"... */
const char *cli_verdict_tag(culprit_verdict_kind kind);
/* Its ANSI colour, or "" when it has none. */
const char *cli_verdict_color(culprit_verdict_kind kind);
#define CLI_COLOR_RESET "\033[0m"

/* One line per verdict: tag and message; under it, one line per counter detector
 * that judged the test ("  clusters: ...", "  rules: ..."). */
void cli_print_verdicts(FILE *out, const culprit_check_result *result, int color);
/* "N tests: a major, b minor, c undecided, d unchanged[, ...]" */
void cli_put_counts(culprit_buf *out, const culprit_check_result *result);

/* A new document {"culprit_json": 1, "command": command}, or NULL when out of memory. */
json_t *cli_json_document(const char *command);
/* A number, or JSON null when not finite. */
json_t *cli_json_number(double x);
/* A string, or JSON null. */
json_t *cli_json_string(const char *s);
/* {"major": a, "minor": b, ...} for every verdict kind. */
json_t *cli_json_counts(const culprit_check_result *result);
/* The "tests" array of a check or compare document; each test also has "clusters" and
 * "rules" objects when those detectors judged. */
json_t *cli_json_verdicts(const culprit_check_result *result);
/* Adds "detectors", "fail_on", "exit_code", "counts" and "tests" to a check or compare
 * document. */
void cli_json_add_judged(json_t *doc, const culprit_check_result *result, cli_fail_on fail_on,
                         int exit_code);
/* Prints a document on stdout (indented, keys in insertion order) and frees it. */
int cli_json_print(json_t *doc);
/* Prints a document the library wrote (culprit_*_to_json) on stdout as it is. */
int cli_print_document(const culprit_buf *doc);

/*
 * Writes the JUnit document of a check to `path` through the history writer: one
 * testcase per judged test, a major regression (and a minor one under
 * --fail-on minor) as a failure whose message is the verdict's line.
 */
int cli_write_junit(const char *path, const culprit_check_result *result, const char *suite,
                    const char *commit, cli_fail_on fail_on);

/* ----------------------------------------------------------------- progress --- */

/* A live status line on stderr (progress.c); inert when not on a terminal or in CI. */
typedef struct {
    FILE *out; /* NULL: inert */
    pthread_t thread;
    pthread_mutex_t lock;
    int running, drawn;
    unsigned int tick;
    double start, fraction; /* fraction of the work done, NAN unknown (no bar) */
    char status[256];
} cli_progress;

void cli_progress_start(cli_progress *p, const char *status);
/* Changes the status text and the bar (fraction NAN: spinner only). */
void cli_progress_status(cli_progress *p, double fraction, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Prints a permanent line (with its newline) on stderr, above the status line. */
void cli_progress_print(cli_progress *p, const char *line);
/* Removes the status line and stops its thread. */
void cli_progress_stop(cli_progress *p);

/* ------------------------------------------------------------- subcommands --- */

int cli_check(int argc, char **argv);
int cli_compare(int argc, char **argv);
int cli_bisect(int argc, char **argv);
int cli_history(int argc, char **argv);
int cli_categories(int argc, char **argv);
int cli_report(int argc, char **argv);
int cli_calltree(int argc, char **argv);
/* The calltree subcommands of the trace side (cmd_calltree_record.c). */
int cli_calltree_record(int argc, char **argv);
int cli_calltree_show(int argc, char **argv);
int cli_calltree_diff(int argc, char **argv);
int cli_calltree_fold(int argc, char **argv);
int cli_overweight(int argc, char **argv);

/* ------------------------------------------------------------ call trees --- */

/* The suspects of a diff as text, one block per suspect. */
void cli_print_calltree_diff(FILE *out, const culprit_calltree_diff *diff);

#endif
