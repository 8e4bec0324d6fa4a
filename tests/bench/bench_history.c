/*
 * Benchmark of the history files (framework/history), for the issue notes:
 *
 *   1. write: one run of TESTS tests x SAMPLES samples, each test with the series
 *      the runner records (wall_ns, cpu_ns and 9 counters, 2 of them absent),
 *      formatted and stored (target: <= 200 ms at 100 x 1000);
 *   2. load: FILES such files read back summaries-only with culprit_history_load
 *      (target: <= 2 s and <= 300 MB peak RSS at 1000 files, 100,000 results).
 *
 *     bench_history                      small sizes, seconds, for ctest
 *     bench_history 100 1000 1000        the full sizes (writes ~10 GB to $TMPDIR)
 *
 * Figures are printed either way; at full size it exits non-zero only when a time
 * target is missed by a wide margin (3x), so a loaded machine does not turn it red.
 */
#include "culprit/history.h"
#include "culprit/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define WRITE_TARGET_S 0.2
#define LOAD_TARGET_S  2.0
#define RSS_TARGET_MB  300.0
#define FAIL_FACTOR    3.0

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double peak_rss_mb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0; /* kilobytes on Linux */
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_random(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

/* A run shaped like the runner's: batch totals / batch for time, integer counters. */
static culprit_run *make_run(size_t ntests, size_t nsamples)
{
    static const char *const counters[] = {"user_ns", "sys_ns", "max_rss_kb",
                                           "minflt",  "majflt", "nvcsw",
                                           "nivcsw",  "cycles", "instructions"};
    double *wall = malloc(nsamples * sizeof(double)), *cpu = malloc(nsamples * sizeof(double));
    double *counter = malloc(nsamples * sizeof(double));
    culprit_run *run;
    char name[64];

    if (!wall || !cpu || !counter || culprit_history_run_new(&run) < 0)
        abort();
    culprit_str_set(&run->suite, "bench_suite");
    culprit_str_set(&run->commit, "0123456789abcdef0123456789abcdef01234567");
    culprit_str_set(&run->branch, "main");
    culprit_str_set(&run->timestamp, "2026-11-22T13:05:00Z");
    culprit_str_set(&run->host, "bench-host");
    culprit_str_set(&run->machine, "x86_64, 2 cores, Linux");
    culprit_str_set(&run->compiler, "gcc 12.2.0");
    culprit_str_set(&run->flags, "-O2 -g");
    for (size_t t = 0; t < ntests; t++) {
        culprit_test_result *r;
        unsigned int batch = 1u << (t % 5);
        double base = 1000.0 * (double)(t + 1);

        if (culprit_history_run_add_test(&r, run) < 0)
            abort();
        snprintf(name, sizeof(name), "test_%03zu", t);
        culprit_str_set(&r->name, name);
        culprit_str_set(&r->classname, "bench_suite");
        culprit_str_set(&r->category, "fast");
        culprit_str_set(&r->category_source, "auto");
        culprit_str_set(&r->verdict, "pass");
        culprit_str_set(&r->metric, "wall_ns");
        culprit_str_set(&r->stop, "precision");
        r->category_low_ns = 0;
        r->category_high_ns = 1e6;
        r->batch = batch;
        r->warmup = 3;
        r->timer_overhead_ns = 23.5;
        r->elapsed_s = 0.25;
        for (size_t i = 0; i < nsamples; i++) {
            wall[i] = floor(base * batch + (double)(next_random() % 5000)) / batch;
            cpu[i] = floor(wall[i] * 0.97);
        }
        culprit_stats_summarize(&r->summary, wall, nsamples, 0.99);
        culprit_stats_outliers(&r->outliers, wall, nsamples);
        culprit_history_test_result_add_series(r, "wall_ns", wall, nsamples, 0);
        culprit_history_test_result_add_series(r, "cpu_ns", cpu, nsamples, 0);
        for (size_t c = 0; c < sizeof(counters) / sizeof(counters[0]); c++) {
            int absent = c >= 7; /* cycles, instructions: no perf_event here */
            for (size_t i = 0; i < nsamples; i++)
                counter[i] = (double)(next_random() % (c < 2 ? 100000 : 100));
            culprit_history_test_result_add_series(r, counters[c], absent ? NULL : counter,
                                                   absent ? 0 : nsamples, absent);
        }
    }
    free(wall);
    free(cpu);
    free(counter);
    return run;
}

static int copy_file(const char *from, const char *to)
{
    char chunk[1 << 16];
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    size_t n;
    int ok = in && out;

    while (ok && (n = fread(chunk, 1, sizeof(chunk), in)) > 0)
        ok = fwrite(chunk, 1, n, out) == n;
    if (in)
        fclose(in);
    if (out && fclose(out) != 0)
        ok = 0;
    return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
    size_t ntests = argc > 1 ? strtoul(argv[1], NULL, 10) : 20;
    size_t nsamples = argc > 2 ? strtoul(argv[2], NULL, 10) : 200;
    size_t nfiles = argc > 3 ? strtoul(argv[3], NULL, 10) : 50;
    int full = ntests >= 100 && nsamples >= 1000 && nfiles >= 1000;
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char dir[4096], cmd[4200];
    culprit_history *history = NULL;
    culprit_history_runs runs;
    culprit_buf doc = CULPRIT_BUF_INIT;
    char *first = NULL;
    double t0, format_s, store_s, load_s, rss;
    size_t results = 0;
    int failed = 0;

    if (!ntests || !nsamples || !nfiles) {
        fprintf(stderr, "usage: bench_history [TESTS [SAMPLES [FILES]]]\n");
        return 2;
    }
    snprintf(dir, sizeof(dir), "%s/culprit-bench-history-XXXXXX", tmp);
    if (!mkdtemp(dir) || culprit_history_open(&history, dir, 1) < 0) {
        fprintf(stderr, "bench_history: cannot create %s: %s\n", dir, culprit_error_last());
        return 1;
    }
    culprit_run *run = make_run(ntests, nsamples);

    /* 1. write */
    t0 = now_s();
    if (culprit_history_format(&doc, run) < 0)
        goto fail;
    format_s = now_s() - t0;
    t0 = now_s();
    if (culprit_history_store(history, run, &first) < 0)
        goto fail;
    store_s = now_s() - t0;
    printf("write: %zu tests x %zu samples x 11 series: %.1f MB, format %.1f ms, "
           "format + store (fsync'd) %.1f ms (target <= %.0f ms at 100 x 1000)\n",
           ntests, nsamples, (double)doc.size / 1e6, format_s * 1e3, store_s * 1e3,
           WRITE_TARGET_S * 1e3);

    /* 2. load: the same bytes under FILES names (the reader does not care) */
    for (size_t i = 1; i < nfiles; i++) {
        char name[64], *path;
        snprintf(name, sizeof(name), "copy-%06zu.xml", i);
        if (!(path = culprit_fs_join(dir, name)) || copy_file(first, path) < 0) {
            fprintf(stderr, "bench_history: cannot write %s\n", name);
            free(path);
            goto fail;
        }
        free(path);
    }
    culprit_history_run_free(run);
    run = NULL;
    culprit_buf_dispose(&doc);
    t0 = now_s();
    if (culprit_history_load(&runs, history, NULL, NULL, NULL) < 0)
        goto fail;
    load_s = now_s() - t0;
    for (size_t i = 0; i < runs.nruns; i++)
        results += runs.runs[i]->ntests;
    rss = peak_rss_mb();
    printf("load:  %zu files, %zu test results, summaries only: %.3f s (target <= %.1f s at "
           "1000 files), peak RSS (ru_maxrss) %.1f MB (target <= %.0f MB)\n",
           runs.nruns, results, load_s, LOAD_TARGET_S, rss, RSS_TARGET_MB);
    if (runs.nruns != nfiles || results != nfiles * ntests || runs.nskipped) {
        fprintf(stderr, "bench_history: loaded %zu runs / %zu results, expected %zu / %zu\n",
                runs.nruns, results, nfiles, nfiles * ntests);
        failed = 1;
    }
    culprit_history_runs_dispose(&runs);
    if (full && (store_s > FAIL_FACTOR * WRITE_TARGET_S || load_s > FAIL_FACTOR * LOAD_TARGET_S ||
                 rss > RSS_TARGET_MB)) {
        fprintf(stderr, "bench_history: a target is missed by a wide margin\n");
        failed = 1;
    }
    goto cleanup;
fail:
    fprintf(stderr, "bench_history: %s\n", culprit_error_last());
    failed = 1;
cleanup:
    culprit_history_run_free(run);
    culprit_buf_dispose(&doc);
    free(first);
    culprit_history_free(history);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench_history: could not remove %s\n", dir);
    return failed;
}
