/*
 * What the subcommands of the `culprit` tool share: argument parsing, opening the
 * repository and the history, and the renderings of a check (text lines, JSON,
 * JUnit). Internal to the tool; everything it decides comes from include/culprit/.
 */
#ifndef CULPRIT_CLI_H
#define CULPRIT_CLI_H

#include "culprit/bisect.h"
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

/*
 * Each subcommand declares its options once, as a table of culprit_opt rows
 * (culprit/core.h), and parses with culprit_opt_next(); its --help lists the same
 * rows (cli_usage). The CLI_OPT_* macros below are the rows several subcommands
 * share, so an option shared by check, compare, history, report, bisect and
 * calltree diff has one range, one message and one meaning.
 */

/* --help and -h: every subcommand has it; not listed in the help itself. */
#define CLI_OPT_HELP(target) CULPRIT_OPT("--help", 'h', CULPRIT_OPT_FLAG, (target), NULL, NULL)

/* "usage: ..." and the description (`head`), the option rows from `column` on, then
 * `tail` (the exit status), on `out`. */
void cli_usage(FILE *out, const char *head, const culprit_opt *opts, size_t column,
               const char *tail);

/* "'NAME' is not a PARENT command; did you mean ...", as a usage error (exit 2);
 * PARENT NULL is culprit itself. */
int cli_unknown_command(const char *parent, const char *name, const char *const *names, size_t n);

/* A repeated option's values, in order (--paths P --paths Q). */
typedef struct {
    const char **items;
    size_t n;
} cli_strings;

/* The setter of a repeated option: appends the value to the cli_strings `target`. */
int cli_opt_append(const culprit_opt *opt, const char *value);

/* "culprit: error: ..." on stderr, from the last error when fmt is NULL. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A usage error: the message, then "see 'culprit CMD --help'". Returns CLI_EXIT_ERROR. */
int cli_usage_error(const char *command);

/* -------------------------------------------------------------------- judging --- */

/* The options check and compare share. */
typedef struct {
    culprit_check_options check;
    int fail_on;       /* a culprit_fail_on */
    int fail_on_given; /* --fail-on was given (else culprit.json's "fail_on" applies) */
    int json;
    const char *junit;
    const char *history_dir;
    const char *project_file;
} cli_judge;

void cli_judge_init(cli_judge *judge);
/* culprit.json's "fail_on" as the default of a --fail-on not given. */
void cli_judge_project_fail_on(cli_judge *judge, const culprit_project *project);

/* The rows of the shared options, each declared once. --threshold and --confidence
 * take the target and the help line of the command (a check's change, a bisection
 * step's slowdown); their parsing and messages are the same everywhere. */
/* The rows `culprit bisect` and `culprit check --confirm` share: how a checkout is
 * built, how many runs a comparison takes and how long a build or run may take,
 * into a culprit_bisect_options `o`. */
#define CLI_OPT_BUILD(o)                                                                           \
    CULPRIT_OPT("--build", 0, CULPRIT_OPT_STRING, &(o)->measure.build, "CMD",                      \
                "builds a checkout (a failing build skips the commit)")
#define CLI_OPT_RUNS(o)                                                                            \
    CULPRIT_OPT("--min-runs", 0, CULPRIT_OPT_UINT, &(o)->measure.min_runs, "N",                    \
                "runs of each commit per comparison, in pairs (default 10)", .min = 2),            \
        CULPRIT_OPT("--max-runs", 0, CULPRIT_OPT_UINT, &(o)->measure.max_runs, "N",                \
                    "more runs, up to N, when a comparison cannot tell (default 30)", .min = 2)
#define CLI_OPT_TIMEOUT(o)                                                                         \
    CULPRIT_OPT("--timeout", 0, CULPRIT_OPT_DOUBLE, &(o)->measure.timeout_s, "SECONDS",            \
                "kill a run after this long (default 600)", .max = 1e7,                            \
                .flags = CULPRIT_OPT_ABOVE_MIN,                                                    \
                .what = "a number of seconds above 0 (up to 1e7)"),                                \
        CULPRIT_OPT("--build-timeout", 0, CULPRIT_OPT_DOUBLE, &(o)->measure.build_timeout_s,       \
                    "SECONDS", "kill a build after this long (default 3600)", .max = 1e7,          \
                    .flags = CULPRIT_OPT_ABOVE_MIN,                                                \
                    .what = "a number of seconds above 0 (up to 1e7)")

#define CLI_OPT_THRESHOLD(target, help_)                                                           \
    CULPRIT_OPT("--threshold", 0, CULPRIT_OPT_DOUBLE, (target), "PERCENT", help_, .max = 1000,     \
                .scale = 0.01, .what = "a percentage (0 to 1000)")
#define CLI_OPT_COUNT_THRESHOLD(target)                                                            \
    CULPRIT_OPT("--instructions-threshold", 0, CULPRIT_OPT_DOUBLE, (target), "PERCENT",            \
                "smallest change of a counted metric (instructions under\n"                        \
                "Valgrind) that matters (default 0.5, raised to 5x the\n"                          \
                "A/A spread in history)",                                                          \
                .max = 1000, .scale = 0.01, .what = "a percentage (0 to 1000)")
#define CLI_OPT_CONFIDENCE(target, help_)                                                          \
    CULPRIT_OPT("--confidence", 0, CULPRIT_OPT_DOUBLE, (target), "C", help_, .max = 1,             \
                .flags = CULPRIT_OPT_ABOVE_MIN | CULPRIT_OPT_BELOW_MAX,                            \
                .what = "a confidence level strictly between 0 and 1 (such as 0.99)")
#define CLI_OPT_JSON(target)                                                                       \
    CULPRIT_OPT("--json", 0, CULPRIT_OPT_FLAG, (target), NULL,                                     \
                "print a JSON document on stdout (docs/cli.md)")
#define CLI_OPT_TEST(target)                                                                       \
    CULPRIT_OPT("--test", 0, CULPRIT_OPT_STRING, (target), "NAME",                                 \
                "judge only this test (SUITE.TEST or TEST)")
#define CLI_OPT_HISTORY(target)                                                                    \
    CULPRIT_OPT("--history", 0, CULPRIT_OPT_STRING, (target), "DIR",                               \
                "history directory (default: as the test binaries find it)")
#define CLI_OPT_PROJECT(target)                                                                    \
    CULPRIT_OPT("--project", 0, CULPRIT_OPT_STRING, (target), "FILE",                              \
                "project file (default: culprit.json at the repository root)")

/* What judges the runs of a history: the tests, where they are, and how they are
 * compared (culprit history, culprit report). */
#define CLI_JUDGE_STATS_OPTIONS(judge)                                                             \
    CLI_OPT_TEST(&(judge)->check.test), CLI_OPT_HISTORY(&(judge)->history_dir),                    \
        CLI_OPT_PROJECT(&(judge)->project_file),                                                   \
        CULPRIT_OPT("--allow-mixed", 0, CULPRIT_OPT_FLAG, &(judge)->check.detect.allow_mixed,      \
                    NULL, "compare runs of different machines or build flags"),                    \
        CULPRIT_OPT("--allow-dirty", 0, CULPRIT_OPT_FLAG, &(judge)->check.detect.allow_dirty,      \
                    NULL, "a run from a dirty tree may be a baseline"),                            \
        CLI_OPT_THRESHOLD(&(judge)->check.detect.threshold,                                        \
                          "smallest change that matters (default 2)"),                             \
        CLI_OPT_COUNT_THRESHOLD(&(judge)->check.detect.count_threshold),                           \
        CLI_OPT_CONFIDENCE(&(judge)->check.detect.confidence,                                      \
                           "confidence of intervals and tests (default 0.99)"),                    \
        CULPRIT_OPT("--fdr", 0, CULPRIT_OPT_DOUBLE, &(judge)->check.detect.fdr, "Q",               \
                    "false discovery rate across the tests (default 0.05)", .max = 1,              \
                    .flags = CULPRIT_OPT_ABOVE_MIN,                                                \
                    .what = "a false discovery rate in (0, 1] (such as 0.05)")
#define CLI_OPT_NOISE_WINDOW(judge)                                                                \
    CULPRIT_OPT("--noise-window", 0, CULPRIT_OPT_SIZE, &(judge)->check.noise_window, "N",          \
                "earlier runs of a test that estimate how much its runs\n"                         \
                "differ from each other (default 10; 0: none)")

/* The options check and compare share: what fails, where the output goes, and
 * CLI_JUDGE_STATS_OPTIONS. */
#define CLI_JUDGE_OPTIONS(judge)                                                                   \
    CULPRIT_OPT("--fail-on", 0, CULPRIT_OPT_ENUM, &(judge)->fail_on,                               \
                "major|minor|none|uncompared",                                                     \
                "what exits 1: a major regression (default), a major or\n"                         \
                "minor one, nothing, or a regression or no test compared\n"                        \
                "with a comparable baseline (uncompared); default:\n"                              \
                "culprit.json's \"fail_on\", else major",                                          \
                .choices = culprit_detect_fail_on_names(), .given = &(judge)->fail_on_given),      \
        CLI_OPT_JSON(&(judge)->json),                                                              \
        CULPRIT_OPT("--junit", 0, CULPRIT_OPT_STRING, &(judge)->junit, "FILE",                     \
                    "also write the verdicts as a JUnit XML file"),                                \
        CLI_JUDGE_STATS_OPTIONS(judge), CLI_OPT_NOISE_WINDOW(judge)

/* Setters of the counter detectors' options (their target: culprit_check_options). */
int cli_set_detector(const culprit_opt *opt, const char *value);
int cli_set_cluster_threshold(const culprit_opt *opt, const char *value);

/**
 * The options of the counter detectors (--detector, --cluster-threshold, --rules-*),
 * parsed into the culprit_check_options `check`. Shared by check and report.
 */
#define CLI_DETECTOR_OPTIONS(check)                                                                \
    CULPRIT_OPT("--detector", 0, CULPRIT_OPT_CALLBACK, (check), "LIST",                            \
                "time, clusters, rules, comma-separated (default time):\n"                         \
                "clusters models the counters (Shang et al. 2015), rules\n"                        \
                "mines their habits from history (Foo et al. 2010); a\n"                           \
                "counter detector's flag is a minor regression",                                   \
                .set = cli_set_detector),                                                          \
        CULPRIT_OPT("--cluster-threshold", 0, CULPRIT_OPT_CALLBACK, (check), "PERCENT",            \
                    "prediction error of a counter cluster that is a\n"                            \
                    "regression (default 30, or calibrated on A/A runs)",                          \
                    .set = cli_set_cluster_threshold, .min = 1e-9, .max = 1e6, .scale = 0.01,      \
                    .what = "a percentage above 0"),                                               \
        CULPRIT_OPT("--rules-support", 0, CULPRIT_OPT_DOUBLE, &(check)->rules.min_support, "S",    \
                    "minimum support of a frequent itemset (default 0.2)", .min = 1e-9, .max = 1,  \
                    .what = "a fraction in (0, 1]"),                                               \
        CULPRIT_OPT("--rules-confidence", 0, CULPRIT_OPT_DOUBLE, &(check)->rules.min_confidence,   \
                    "C", "minimum confidence of a rule (default 0.8)", .min = 1e-9, .max = 1,      \
                    .what = "a fraction in (0, 1]"),                                               \
        CULPRIT_OPT("--rules-change", 0, CULPRIT_OPT_DOUBLE, &(check)->rules.threshold, "X",       \
                    "confidence change that flags a rule (default 0.2)", .max = 1,                 \
                    .what = "a fraction in [0, 1]"),                                               \
        CULPRIT_OPT("--rules-window", 0, CULPRIT_OPT_SIZE, &(check)->rules.window, "N",            \
                    "observations per window (default 1)", .min = 1),                              \
        CULPRIT_OPT("--rules-history", 0, CULPRIT_OPT_SIZE, &(check)->rules.history, "K",          \
                    "earlier runs the rules are mined from (default 10)", .min = 1)

/* The exit code a check gives under `fail_on`: 1 for a regression (or, under
 * uncompared, for a check of tests none of which was compared), else 0. */
int cli_judge_exit_code(const culprit_check_result *result, culprit_fail_on fail_on);

/* ------------------------------------------------------------ repository, store --- */

/* What a subcommand works on: the repository (NULL outside one), settings, project,
 * and the history every reader loads (the directory and the repository's shared ref). */
typedef struct {
    culprit_vcs *repo;
    culprit_settings settings;
    culprit_project *project;
    culprit_history_source *history;
} cli_env;

/*
 * Opens the repository of the current directory (optional unless `need_repo`) and
 * resolves the project file and history directory as the test binaries do.
 */
int cli_env_open(cli_env *env, const char *project_file, const char *history_dir, int need_repo);
void cli_env_dispose(cli_env *env);

/* SIGINT, SIGTERM and SIGHUP end the build or run in progress (SIGTERM, SIGKILL
 * after the grace period; a second signal kills at once) and remove the temporary
 * checkouts and the process's temporary directory before the command dies of the
 * signal (bisect, check --confirm and --investigate build in temporary checkouts).
 * main() installs it for every command. */
void cli_clean_up_on_signals(void);

/*
 * culprit bisect: --build and --run (when neither --run nor --command was given)
 * from the project file's "build" and "run", copied into `owned` (the caller
 * frees both). An invalid project file is an error.
 */
int cli_project_commands(culprit_bisect_options *o, char *owned[2]);

/*
 * On a shallow clone whose boundary cuts the first-parent history of `rev`, says on
 * stderr that runs at commits the clone does not have were not used, and what to
 * fetch. Silent on a full clone, or when no run lies beyond the boundary.
 */
void cli_note_shallow(culprit_vcs *repo, const char *rev, const culprit_history_runs *runs);

/* The runs a pull from `since` (the ref's commit before it; "" for none) added to
 * the shared history into `runs`; the other files it added (not named as runs, over
 * the size limit, not run documents) are named on stderr, the first 20 of them, and
 * counted in `skipped`. */
int cli_shared_count_pulled(size_t *runs, size_t *skipped, culprit_vcs *repo, const char *since);

/* Loads every run of the environment's history (summaries only): the directory and
 * the shared ref (culprit_history_source_load()). CULPRIT_ENOTFOUND when neither
 * exists. */
int cli_load_history(culprit_history_runs *out, const cli_env *env);
/* The same with CULPRIT_HISTORY_LOAD_* flags (the counter detectors need samples). */
int cli_load_history_flags(culprit_history_runs *out, const cli_env *env, unsigned int flags);

/*
 * The history window of `culprit history` and `culprit report` (`limit` commits from
 * `rev`), loaded from env->history with CULPRIT_HISTORY_LOAD_* `flags` into `runs`
 * (the caller disposes of them): only the runs the window needs
 * (culprit_report_add_history_read() over culprit_history_source_load() with the
 * window's commits), or on a shallow clone the whole history, with
 * cli_note_shallow()'s note. With `test`, culprit_history_require_test() first on what was
 * read, then on the whole history.
 */
int cli_load_history_window(culprit_report *report, culprit_history_runs *runs, const cli_env *env,
                            const char *rev, size_t limit, const culprit_check_options *opts,
                            unsigned int flags);

/* "suite.test" of a result of `run` (caller frees). */
char *cli_test_key(const culprit_run *run, const culprit_test_result *test);

/* Copies the summary-level fields of `src` (no series) into `dst`, replacing what it
 * held; the classname becomes src's or else `suite`. */
int cli_copy_test(culprit_test_result *dst, const culprit_test_result *src, const char *suite);

/* ----------------------------------------------------------------- rendering --- */

/* 1 when stdout is a terminal and NO_COLOR is unset or empty. */
int cli_use_color(void);
/* Whether text written to `out` (stdout, or stderr under --json) is coloured. */
int cli_color_for(FILE *out);
/* Takes --color[=auto|always|never] out of argv (any position before "--") and
 * applies it (culprit_color_set); CULPRIT_EINVALID for another value. */
int cli_color_option(int *argc, char **argv);

/* The tag a verdict line starts with: "MAJOR", "MINOR", "FASTER", "unchanged"... */
const char *cli_verdict_tag(culprit_verdict_kind kind);
/* `s` (a name or message from data: history, git, call trees) ready for a terminal or
 * a log, control characters as \xNN (culprit_buf_put_text); held in `scratch`,
 * valid until its next use. */
const char *cli_text(culprit_buf *scratch, const char *s);
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
/* A string (a byte that is not UTF-8 as \xNN, culprit_text_utf8()), or JSON null. */
json_t *cli_json_string(const char *s);
/* {"major": a, "minor": b, ...} for every verdict kind. */
json_t *cli_json_counts(const culprit_check_result *result);
/* The "tests" array of a check or compare document; each test also has "clusters" and
 * "rules" objects when those detectors judged. */
json_t *cli_json_verdicts(const culprit_check_result *result);
/* Adds "detectors", "fail_on", "exit_code", "counts" and "tests" to a check or compare
 * document. */
void cli_json_add_judged(json_t *doc, const culprit_check_result *result, culprit_fail_on fail_on,
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
                    const char *commit, culprit_fail_on fail_on);

/* ---------------------------------------------------- check --investigate --- */

/* What `culprit check --investigate` takes besides the paired options' build/run. */
typedef struct {
    int enabled;                /* --investigate */
    double budget_s;            /* --investigate-budget (1800; 0 none) */
    const char *results_dir;    /* --results DIR (default .culprit/results) */
    const char *calltree_build; /* --calltree-build, else culprit.json "calltree_build" */
    int build_given, run_given; /* --build / --run came from the command line */
} cli_investigate;

/* The setter of --investigate-budget: seconds, or with s, m or h ("30m"); 0 none. */
int cli_set_budget(const culprit_opt *opt, const char *value);

/* Completes `pair` (the paired options of check) from the project file where the
 * command line left --build or --run out; with --investigate, a run command is
 * required and the store is reused (recorded into when the settings say so, as bisect). */
int cli_investigate_prepare(cli_investigate *inv, culprit_bisect_options *pair, const cli_env *env);

/* culprit_bisect_investigate() with the command's options; says on stderr what it does. */
int cli_investigate_run(culprit_investigation **out, size_t *n, const cli_investigate *inv,
                        const culprit_bisect_options *pair, const culprit_check_result *result,
                        const culprit_history_runs *runs, const char *const *bases, size_t nbases);

/* Writes bisect.json, calltree.json and bisect-N.json into the results directory. */
int cli_investigate_write_results(const char *dir, const culprit_investigation *invs, size_t n);

/* "SHA "subject" — function() file:line", or why there is none. */
void cli_investigation_answer(culprit_buf *out, const culprit_investigation *one);
/* The command that continues an investigation that did not finish. */
void cli_investigate_continue(culprit_buf *out, const cli_investigate *inv,
                              const culprit_bisect_options *pair, const cli_judge *judge,
                              const culprit_investigation *one);
/* One line per test investigated ("INVESTIGATED test — commit — function"). */
void cli_print_investigations(FILE *out, const culprit_investigation *invs, size_t n,
                              const cli_investigate *inv, const culprit_bisect_options *pair,
                              const cli_judge *judge);
/* The "investigations" array of check --json. */
json_t *cli_json_investigations(const culprit_investigation *invs, size_t n,
                                const cli_investigate *inv, const culprit_bisect_options *pair,
                                const cli_judge *judge);

/* cli_write_junit() with a line per test appended to a failure's message (`notes`:
 * result->n entries, NULL ones and a NULL array adding nothing). */
int cli_write_junit_notes(const char *path, const culprit_check_result *result, const char *suite,
                          const char *commit, culprit_fail_on fail_on, const char *const *notes);

/* ----------------------------------------------------------------- progress --- */

/* A live status line on stderr (progress.c). Not on a terminal (a CI log), a
 * heartbeat instead: when no line was printed for CLI_HEARTBEAT_S seconds
 * ($CULPRIT_HEARTBEAT_S overrides it), one line saying what is still going on. */
#define CLI_HEARTBEAT_S 30
typedef struct {
    FILE *out; /* NULL: inert */
    pthread_t thread;
    pthread_mutex_t lock;
    int running, drawn;
    int heartbeat; /* not a terminal: lines every `interval` seconds of silence */
    unsigned int tick;
    double start, fraction; /* fraction of the work done, NAN unknown (no bar) */
    double last, interval;  /* heartbeat: when the last line was printed */
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

/* The progress of a bisection (cmd_bisect.c), shared with check --investigate: a
 * line per step (culprit_bisect_options.progress) and per phase (.phase), the live
 * status line or the heartbeat between them. */
typedef struct {
    double confidence;
    const char *series; /* a time judged other than the wall time (cpu_ns), or NULL */
    cli_progress bar;
} cli_bisect_progress;
void cli_bisect_step_line(const culprit_bisect_step *step, size_t index, size_t candidates,
                          void *payload);
void cli_bisect_phase_line(const char *what, void *payload);

/* culprit bisect fanned out (cmd_bisect_fanout.c): --plan K, --probe COMMIT, --jobs K
 * and --remote, a struct of their own beside the bisection's options. */
typedef struct {
    unsigned int plan, jobs, rounds;
    const char *probe, *remote;
} cli_bisect_fanout_args;

#define CLI_OPT_BISECT_FANOUT(f)                                                                   \
    CULPRIT_OPT("--plan", 0, CULPRIT_OPT_UINT, &(f)->plan, "K",                                    \
                "fan out: print the next round of K commits to probe at once\n"                    \
                "(as JSON a CI matrix reads with --json), or the result\n"                         \
                "once the probes recorded in history decide it",                                   \
                .min = 1, .max = 1000),                                                            \
        CULPRIT_OPT("--probe", 0, CULPRIT_OPT_STRING, &(f)->probe, "COMMIT",                       \
                    "fan out: measure COMMIT against the good end on this\n"                       \
                    "runner (paired) and record the verdict in history"),                          \
        CULPRIT_OPT("--jobs", 0, CULPRIT_OPT_UINT, &(f)->jobs, "K",                                \
                    "fan out locally: rounds of K probe processes at once,\n"                      \
                    "each in checkouts of its own, until the result",                              \
                    .min = 1, .max = 1000),                                                        \
        CULPRIT_OPT("--rounds", 0, CULPRIT_OPT_UINT, &(f)->rounds, "N",                            \
                    "with --jobs: stop after N rounds (0, the default: none)"),                    \
        CULPRIT_OPT("--remote", 0, CULPRIT_OPT_STRING, &(f)->remote, "REMOTE",                     \
                    "fan out through the shared history of REMOTE: pull it\n"                      \
                    "before planning, push each probe's record to it")

/* A bisection's progress lines (cli_bisect_step_line, cli_bisect_phase_line) into `p`. */
void cli_bisect_progress_attach(culprit_bisect_options *o, cli_bisect_progress *p);
/* 1 when the command line asks for a fanned-out bisection. */
int cli_bisect_fanout_wanted(const cli_bisect_fanout_args *f);
/* The fanned-out bisection with the session's options `o` (checked), the history
 * directory given (may be NULL) and --json; `print_result` prints a result as culprit
 * bisect does; argc/argv: bisect's own, for the probe processes of --jobs. */
int cli_bisect_fanout(culprit_bisect_options *o, const cli_bisect_fanout_args *f,
                      const char *history_dir, int json,
                      int (*print_result)(const culprit_bisect_result *r,
                                          const culprit_bisect_options *o, int json),
                      int argc, char **argv);

/* ------------------------------------------------------------- subcommands --- */

int cli_check(int argc, char **argv);
int cli_compare(int argc, char **argv);
int cli_bisect(int argc, char **argv);
/* `culprit history compact` and `culprit history prune` (cmd_history_compact.c);
 * argv[0] is "compact" or "prune". */
int cli_history_compact(int argc, char **argv);
int cli_history(int argc, char **argv);
/* `culprit history push|pull` (cmd_history_sync.c); argv[0] is "push" or "pull". */
int cli_history_sync(int argc, char **argv);
int cli_categories(int argc, char **argv);
int cli_report(int argc, char **argv);
/* culprit junit: runs merged into one JUnit report (cmd_junit.c). */
int cli_junit(int argc, char **argv);
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
/* "answer: ..." (culprit_calltree_answer_text()), the line every text output starts
 * its call-tree part with; nothing when there is nothing to explain. */
void cli_print_calltree_answer(FILE *out, const culprit_calltree_diff *diff);

#endif
