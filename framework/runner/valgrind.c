/*
 * Instruction counts: the metric "instructions" (a test's .metric, the runner's
 * --metric, $CULPRIT_METRIC from culprit bisect --metric). Time on a shared machine
 * moves with the neighbours; the number of instructions a body executes does not,
 * so rustc's perf suite, SQLite and iai-callgrind judge those first. This machine
 * has no hardware counters, so they are counted the way iai-callgrind counts them:
 * under Valgrind's callgrind.
 *
 * The test binary runs again under `valgrind --tool=callgrind --collect-atstart=no`,
 * that test only, in its own process (no fork inside), with a few repetitions after
 * one warm-up (the count is deterministic: more would only cost time). In that
 * process the body of each repetition toggles collection on and off and dumps the
 * count (execute.c), so setup, fixtures, the sampling loop and CMocka are not
 * counted. The process hands its result back as a forked child does (a one-test
 * history document); here the dumps become the series "instructions" (per
 * repetition, the warm-up's dropped), the judged metric, and counted_by names
 * Valgrind's version, which detection compares like a build fingerprint.
 */
#include "runner_internal.h"

#include "culprit/calltree.h"
#include "culprit/core.h"
#include "culprit/history.h"
#include "culprit/stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Repetitions counted when the test does not fix its own, after one warm-up. */
#define COUNT_REPETITIONS 5
#define COUNT_WARMUP      1

/* "valgrind-3.19.0": what `valgrind --version` prints, or CULPRIT_ENOTFOUND. */
static int valgrind_version(char *out, size_t size)
{
    const char *argv[] = {"valgrind", "--version", NULL};
    culprit_process_options o = CULPRIT_PROCESS_OPTIONS_INIT;
    culprit_process_result r;
    int error;

    o.argv = argv;
    o.output = CULPRIT_PROCESS_CAPTURE;
    error = culprit_process_run(&r, &o);
    if (error == 0 && culprit_process_succeeded(&r) && r.output &&
        !strncmp(r.output, "valgrind-", 9))
        snprintf(out, size, "%.*s", (int)strcspn(r.output, " \r\n"), r.output);
    else
        error = culprit_error_set(CULPRIT_ENOTFOUND,
                                  "the metric 'instructions' is counted under Valgrind, and "
                                  "'valgrind' is not on PATH (Debian package: valgrind)");
    culprit_process_result_dispose(&r);
    return error;
}

/* The instructions of one callgrind dump: its "summary:" (or "totals:") line, read
 * by calltree's reader of callgrind's format (one reader in culprit). */
static int read_dump(double *out, const char *path)
{
    return culprit_calltree_read_callgrind(NULL, out, path);
}

/* Replaces the test's "instructions" series by the counts of dumps first.. of `out`
 * and judges it: metric, counted_by and the summaries. */
static int take_counts(culprit_test_result *r, const char *out, unsigned int first, unsigned int n,
                       const char *version, double confidence)
{
    culprit_buf dump = CULPRIT_BUF_INIT;
    culprit_series *s = NULL;
    double *x = calloc(n ? n : 1, sizeof(*x));
    int error = 0;

    for (size_t i = 0; i < r->nseries; i++)
        if (strcmp(r->series[i].name, "instructions") == 0)
            s = &r->series[i];

    if (!x || !s)
        error = culprit_error_set(CULPRIT_ERROR, "out of memory (or no instructions series)");
    for (unsigned int i = 0; error == 0 && i < n; i++) {
        culprit_buf_clear(&dump);
        if ((error = culprit_buf_printf(&dump, "%s.%u", out, first + i + 1)) == 0)
            error = read_dump(&x[i], dump.ptr);
    }
    if (error == 0) {
        free(s->values);
        s->values = x;
        s->n = n;
        s->absent = 0;
        x = NULL;
        if ((error = culprit_str_set(&r->metric, "instructions")) == 0 &&
            (error = culprit_str_set(&r->counted_by, version)) == 0 &&
            (error = culprit_stats_summarize(&r->summary, s->values, n, confidence)) == 0 &&
            (error = culprit_stats_outliers(&r->outliers, s->values, n)) == 0)
            error = culprit_stats_summarize_within(&r->judged, s->values, n, r->outliers.low_severe,
                                                   r->outliers.high_severe, confidence);
    }
    free(x);
    culprit_buf_dispose(&dump);
    return error;
}

/* The callgrind command line: the test binary again, this test only, in-process. */
static void counted_argv(const char *argv[20], char *out_opt, char *reps, char *warm,
                         const culprit_runner_job *job, const char *dir, unsigned int n,
                         const char *self)
{
    size_t k = 0;

    snprintf(out_opt, 4200, "--callgrind-out-file=%s/cg.out", dir);
    snprintf(reps, 16, "%u", n);
    snprintf(warm, 16, "%u", COUNT_WARMUP);
    argv[k++] = "valgrind";
    argv[k++] = "--tool=callgrind";
    argv[k++] = "--collect-atstart=no";
    argv[k++] = "-q";
    argv[k++] = out_opt;
    argv[k++] = self;
    argv[k++] = "--filter";
    argv[k++] = job->test->name;
    argv[k++] = "--repetitions";
    argv[k++] = reps;
    argv[k++] = "--warmup";
    argv[k++] = warm;
    argv[k++] = "--metric";
    argv[k++] = "instructions";
    argv[k++] = "--no-history";
    argv[k++] = "--quiet";
    /* The project file this process loaded (the counted one reads no repository to
     * find it: runner.c). */
    if (job->project_file) {
        argv[k++] = "--project";
        argv[k++] = job->project_file;
    }
    argv[k] = NULL;
}

int culprit_runner__run_counted(culprit_test_result *r, const culprit_runner_job *job)
{
    culprit_buf dir = CULPRIT_BUF_INIT, result = CULPRIT_BUF_INIT, env = CULPRIT_BUF_INIT;
    char version[64], out_opt[4200], reps[16], warm[16], out[4200], self[4096];
    const char *argv[20], *envp[2] = {NULL, NULL};
    culprit_process_options o = CULPRIT_PROCESS_OPTIONS_INIT;
    culprit_process_result pr;
    unsigned int n = job->test->repetitions ? job->test->repetitions : COUNT_REPETITIONS;
    int error;

    memset(&pr, 0, sizeof(pr));
    if ((error = valgrind_version(version, sizeof(version))) < 0 ||
        (error = culprit_fs_make_temp(&dir, NULL, "count", 1)) < 0 ||
        (error = culprit_buf_printf(&result, "%s/result.xml", dir.ptr)) < 0 ||
        (error = culprit_buf_printf(&env, "%s=%s", CULPRIT_RUNNER__COUNT_RESULT, result.ptr)) < 0)
        goto cleanup;
    if (job->measure.repetitions)
        n = job->measure.repetitions;
    /* This binary's own path: under valgrind, /proc/self/exe would be valgrind. */
    ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (len <= 0) {
        error = culprit_error_set_os("cannot find the test binary's own path");
        goto cleanup;
    }
    self[len] = '\0';
    counted_argv(argv, out_opt, reps, warm, job, dir.ptr, n, self);
    snprintf(out, sizeof(out), "%s/cg.out", dir.ptr);
    envp[0] = env.ptr;
    o.argv = argv;
    o.env = envp;
    o.output = CULPRIT_PROCESS_CAPTURE;
    o.tail = 4000;
    o.timeout_s = job->timeout_s;
    o.own_group = 1;
    if ((error = culprit_process_run(&pr, &o)) < 0)
        goto cleanup;
    if (culprit_runner__adopt(r, result.ptr) < 0) {
        culprit_buf why = CULPRIT_BUF_INIT;
        culprit_process_describe(&why, &pr, "the test under callgrind", job->timeout_s);
        r->status = CULPRIT_STATUS_ERROR;
        culprit_str_set(&r->message, culprit_buf_cstr(&why));
        culprit_buf_dispose(&why);
        goto cleanup;
    }
    if (r->status == CULPRIT_STATUS_PASS &&
        (error = take_counts(r, out, COUNT_WARMUP, n, version, job->measure.confidence)) < 0) {
        r->status = CULPRIT_STATUS_ERROR;
        culprit_str_set(&r->message, culprit_error_last());
        error = 0;
    }
cleanup:
    if (dir.ptr)
        culprit_fs_remove_tree(dir.ptr);
    culprit_process_result_dispose(&pr);
    culprit_buf_dispose(&dir);
    culprit_buf_dispose(&result);
    culprit_buf_dispose(&env);
    return error;
}
