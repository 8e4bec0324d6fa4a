/*
 * Internals of the runner shared by its files: the parsed options and the
 * execution of one perf test (in a child process or in-process).
 */
#ifndef CULPRIT_RUNNER_INTERNAL_H
#define CULPRIT_RUNNER_INTERNAL_H

#include "culprit/culprit.h"
#include "culprit/detect.h"
#include "culprit/history.h"

#include <stdbool.h>
#include <stdio.h>

/** Exit codes of a test binary (docs/runner.md). */
enum { RUNNER_EXIT_OK = 0, RUNNER_EXIT_FAILED = 1, RUNNER_EXIT_USAGE = 2 };

/** What fails a test (--fail-on), in the order of the option's choices: a test above
 * its category (major), nothing (none), or also a minor regression against its
 * history (minor). */

typedef struct {
    int help, version, list, json, no_fork, no_history, verbose, quiet;
    int ctest; /* --ctest: measurements for ctest and CDash (ctest.c) */
    int debug; /* --debug, CULPRIT_DEBUG=1 or a tracer attached: see debugger.c */
    const char *filter;
    int filter_from_env;      /* the filter is $CULPRIT_FILTER's: matching nothing is no error */
    unsigned int repetitions; /* 0: as declared */
    /* --max-repetitions / $CULPRIT_MAX_REPETITIONS: at most this many samples per test
     * (what a paired confirmation asks, docs/measure.md); 0: as declared */
    unsigned int max_repetitions;
    unsigned int warmup; /* 0: as declared */
    int warmup_set;
    double budget_s;   /* 0: as declared */
    double min_time_s; /* with min_time_set: the samples' minimum span before a precision stop */
    int min_time_set;
    int keep_preempted; /* --keep-preempted: judge preempted samples too */
    double timeout_s;   /* 0: as declared */
    double duration_s;  /* load tests: 0 as declared */
    const char *history_dir;
    const char *junit;
    const char *commit;
    const char *branch;
    const char *machine; /* --machine: the class of identical runners this one counts for */
    const char *project;
    const char *repository; /* --repository: the git working tree of the code under test */
    int fail_on;            /* --fail-on / $CULPRIT_FAIL_ON: a culprit_fail_on */
    int fail_on_set;        /* given there (else culprit.json's "fail_on", else major) */
    const char *metric;     /* --metric / $CULPRIT_METRIC: judge this series of every test */
} culprit_runner_options;

/**
 * Parses argv. Returns 0, or CULPRIT_EINVALID with a message naming the option and
 * what is wrong.
 */
int culprit_runner__parse_options(culprit_runner_options *out, int argc, char **argv);
void culprit_runner__usage(FILE *out, const char *program);

/* The pid of the process tracing this one (a debugger), 0 when none. */
long culprit_runner__tracer_pid(void);

/* Turns on the debugger-friendly mode when asked for or a tracer is attached
 * (in-process, one repetition, nothing recorded) and says so on stderr. */
void culprit_runner__debug_mode(culprit_runner_options *o, const char *program);

/* The CTest measurements, details and label of a measured test (ctest.c). */
void culprit_runner__ctest_report(FILE *out, const culprit_test_result *t);

/** Everything one test needs to run. */
typedef struct {
    const char *suite;
    const culprit_perf_test *test;
    culprit_measure_options measure;
    double timeout_s;
    int no_fork;
    int verbose;
    FILE *progress;     /* where the spinner is drawn while the test runs; NULL: none */
    const char *metric; /* the judged series from --metric / $CULPRIT_METRIC; NULL: the test's */
    const char *project_file; /* the project file the run loaded; NULL: the defaults */
} culprit_runner_job;

/* The series a job judges: --metric, else the test's .metric, else "wall_ns". */
const char *culprit_runner__metric(const culprit_runner_job *job);

/* Moves the one-test result written at `path` (a child's) into `r`, keeping r's name
 * and classname. */
int culprit_runner__adopt(culprit_test_result *r, const char *path);

/* The environment variable naming where a counted process hands its result back. */
#define CULPRIT_RUNNER__COUNT_RESULT "CULPRIT_COUNT_RESULT"

/*
 * Runs a test whose metric is "instructions" under Valgrind's callgrind (valgrind.c):
 * the test binary again, that test only, in-process, counting the body of each
 * repetition; the counts become the series "instructions", the judged metric, and
 * counted_by names Valgrind's version. Without valgrind on PATH: CULPRIT_ENOTFOUND
 * naming the package.
 */
int culprit_runner__run_counted(culprit_test_result *r, const culprit_runner_job *job);

/**
 * Runs one perf test and fills `result` (a zeroed entry of the run): status, message,
 * captured output, the series and the summary of the metric. Never fails for a test
 * that fails or crashes (that is the result's status); negative only for culprit's
 * own errors (cannot fork, bad metric name, ...).
 */
int culprit_runner__run_job(culprit_test_result *result, const culprit_runner_job *job);

/** Builds the JSON document of --json (jansson). Returns a malloc'd string. */
char *culprit_runner__run_json(const culprit_run *run, const char *history_file);

/* Names (names.c). Sets `*dst` to `name` as the history records it: what XML cannot
 * carry as \xNN (culprit_text_utf8()). */
int culprit_runner__set_name(char **dst, const char *name);
/* Prints `prefix`, `text` escaped for the terminal (culprit_buf_put_text()) and a
 * line break. */
void culprit_runner__text_line(FILE *out, const char *prefix, const char *text);
/* 1 when --filter `filter` (NULL: all) selects `t`: a glob on its declared name, or
 * exactly its name as recorded or as the terminal shows it. */
int culprit_runner__selected(const char *filter, const culprit_perf_test *t);
/* How a recorded run is compared with its history (own_history.c). */
typedef struct {
    FILE *text;              /* where the MINOR lines go */
    const char *history_dir; /* the store the run was recorded in */
    const char *repository;  /* the git working tree (NULL: none, nothing compared) */
    culprit_fail_on fail_on; /* what fails (never NONE here: nothing is judged then) */
    int ctest;               /* --ctest: a CTest label too */
} culprit_runner_history_check;

/* Judges each passed test of `run`, recorded already, against its history with
 * culprit_detect_check_commit() (as `culprit check --test`); prints a MINOR line for a minor
 * regression and fails a test that fails under fail_on
 * (culprit_detect_check_test_fails(): a minor that counts, under MINOR)
 * (`*nfailed` of them). A history that cannot be read is a warning. Negative only
 * for culprit's own errors (out of memory). */
int culprit_runner__judge_history(culprit_run *run, const culprit_runner_history_check *hc,
                                  size_t *nfailed);

/* Writes the JUnit report of --junit `option` (NULL: $CULPRIT_JUNIT, else none). */
int culprit_runner__write_junit(const culprit_run *run, const char *option, bool ctest);

#endif
