/*
 * The generator behind bench_history_scale.sh (issue 14's scale goal): a synthetic
 * history without running a test, and the bytes a test-run costs.
 *
 *   bench_history_scale gen DIR COMMITS TESTS SAMPLED REPS
 *       one run file per commit listed (oldest first, one sha per line) in the file
 *       COMMITS, each with TESTS tests; the newest SAMPLED commits keep REPS raw
 *       samples per series, older ones their summaries only (what `culprit history
 *       prune --keep-samples SAMPLED` leaves). test_000 is 30% slower at the newest
 *       commit, a minor regression check must find.
 *   bench_history_scale size TESTS REPS
 *       the bytes per test-run of one run file: samples as text (every file before
 *       packing), packed, and summaries only (pruned).
 *
 * Series are shaped like the runner's on this machine (a real run's, docs/
 * history-format.md): batch means of nanoseconds (k/2^s), user/sys times in 500 ns
 * steps, counters mostly constant, cycles and instructions absent.
 */
#include "culprit/history.h"
#include "culprit/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static double uniform(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

/* A standard normal (Box-Muller). */
static double normal(void)
{
    return sqrt(-2 * log(1 - uniform())) * cos(6.283185307179586 * uniform());
}

/* The summary a run of `reps` repetitions with 1% noise would have, and its 11 series
 * without values (what prune leaves), without drawing the samples. */
static void summary_only(culprit_test_result *r, const char *const *names, double mean, size_t reps)
{
    double m = mean * (1 + 0.002 * normal()), sd = mean * 0.01 * (1 + 0.05 * normal());
    double half = 2.6 * sd / sqrt((double)reps);

    r->summary = (culprit_summary){reps,       m,        sd,       m - 0.01 * sd, m - 3 * sd,
                                   m + 3 * sd, m - half, m + half, 0.99};
    r->judged = r->summary;
    r->outliers = (culprit_outliers){m - 0.67 * sd,
                                     m + 0.67 * sd,
                                     1.35 * sd,
                                     m - 4.7 * sd,
                                     m - 2.7 * sd,
                                     m + 2.7 * sd,
                                     m + 4.7 * sd,
                                     0,
                                     0,
                                     0,
                                     0};
    for (size_t k = 0; k < 11; k++)
        culprit_history_test_result_add_series(r, names[k], NULL, 0, 0);
    culprit_history_test_result_add_series(r, "cycles", NULL, 0, 1);
    culprit_history_test_result_add_series(r, "instructions", NULL, 0, 1);
}

static void add_test(culprit_run *run, size_t t, size_t reps, double slower, int keep)
{
    static const char *const names[] = {"wall_ns",    "cpu_ns",     "user_ns",    "sys_ns",
                                        "max_rss_kb", "minflt",     "majflt",     "nvcsw",
                                        "nivcsw",     "read_bytes", "write_bytes"};
    culprit_test_result *r;
    double *v[11], mean = 1000.0 * (double)(t % 50 + 1) * slower;
    unsigned int batch = 1u << (t % 3);
    char name[32];

    if (culprit_history_run_add_test(&r, run) < 0)
        abort();
    snprintf(name, sizeof(name), "test_%03zu", t);
    culprit_str_set(&r->name, name);
    culprit_str_set(&r->classname, run->suite);
    culprit_str_set(&r->verdict, "pass");
    culprit_str_set(&r->metric, "wall_ns");
    culprit_str_set(&r->stop, "precision");
    r->batch = batch;
    r->warmup = 3;
    r->timer_overhead_ns = 23.5;
    r->elapsed_s = 0.25;
    if (!keep) { /* summaries only: as prune leaves them, no samples drawn */
        summary_only(r, names, mean, reps);
        return;
    }
    for (size_t k = 0; k < 11; k++)
        if (!(v[k] = calloc(reps, sizeof(double))))
            abort();
    for (size_t i = 0; i < reps; i++) {
        /* 1% noise around the mean, in steps of 1/batch ns */
        v[0][i] = floor((mean + mean * 0.01 * normal()) * batch) / batch;
        v[1][i] = floor(v[0][i] * 0.98 * batch) / batch;
        v[2][i] = 500 * floor(v[1][i] / 500 + 0.5);
        v[4][i] = 3884 + (i > reps / 2 ? 1196 : 0);
        v[8][i] = uniform() < 0.02 ? 0.5 : 0;
    }
    culprit_stats_summarize(&r->summary, v[0], reps, 0.99);
    culprit_stats_outliers(&r->outliers, v[0], reps);
    r->judged = r->summary;
    for (size_t k = 0; k < 11; k++) {
        culprit_history_test_result_add_series(r, names[k], keep ? v[k] : NULL, keep ? reps : 0, 0);
        free(v[k]);
    }
    culprit_history_test_result_add_series(r, "cycles", NULL, 0, 1);
    culprit_history_test_result_add_series(r, "instructions", NULL, 0, 1);
}

static culprit_run *make_run(const char *commit, size_t i, size_t tests, size_t reps, int keep,
                             int newest)
{
    culprit_run *run;
    char stamp[64];

    if (culprit_history_run_new(&run) < 0)
        abort();
    snprintf(stamp, sizeof(stamp), "2026-01-%02zuT%02zu:%02zu:%02zu.000000Z", 1 + i / 86400,
             i / 3600 % 24, i / 60 % 60, i % 60);
    culprit_str_set(&run->suite, "bench_suite");
    culprit_str_set(&run->commit, commit);
    culprit_str_set(&run->branch, "main");
    culprit_str_set(&run->timestamp, stamp);
    culprit_str_set(&run->host, "ci-runner-7");
    culprit_str_set(&run->machine, "Intel Xeon; 2 cpus; Linux 6.1.0-25-amd64 x86_64");
    culprit_str_set(&run->machine_class, "ci-large");
    culprit_str_set(&run->compiler, "gcc 12.2.0");
    culprit_str_set(&run->flags, "-O2 -g");
    for (size_t t = 0; t < tests; t++)
        add_test(run, t, reps, newest && t == 0 ? 1.3 : 1.0, keep);
    return run;
}

static int write_run(const char *dir, culprit_run *run)
{
    culprit_buf doc = CULPRIT_BUF_INIT;
    char *id = NULL, path[4096];
    FILE *f;
    int error;

    if ((error = culprit_history_run_id(&id, run)) < 0 ||
        (error = culprit_str_set(&run->id, id)) < 0 ||
        (error = culprit_history_format(&doc, run)) < 0)
        goto cleanup;
    snprintf(path, sizeof(path), "%s/%s.xml", dir, id);
    if (!(f = fopen(path, "wb")) || fwrite(doc.ptr, 1, doc.size, f) != doc.size || fclose(f) != 0)
        error = culprit_error_set(CULPRIT_EIO, "cannot write %s", path);
cleanup:
    free(id);
    culprit_buf_dispose(&doc);
    return error;
}

static int generate(const char *dir, const char *list, size_t tests, size_t sampled, size_t reps)
{
    FILE *f = fopen(list, "r");
    char line[128], (*commits)[41] = NULL;
    size_t n = 0, cap = 0;
    culprit_history *h = NULL;

    if (!f || culprit_history_open(&h, dir, 1) < 0) {
        fprintf(stderr, "bench_history_scale: cannot open %s or %s\n", list, dir);
        return 1;
    }
    while (fgets(line, sizeof(line), f)) {
        if (n == cap && !(commits = realloc(commits, (cap = cap ? 2 * cap : 1024) * 41)))
            abort();
        snprintf(commits[n++], 41, "%.40s", line);
    }
    fclose(f);
    for (size_t i = 0; i < n; i++) {
        culprit_run *run = make_run(commits[i], i, tests, reps, i + sampled >= n, i + 1 == n);
        /* The store's name and document, without its fsync per file: a generator. */
        if (write_run(dir, run) < 0) {
            fprintf(stderr, "bench_history_scale: %s\n", culprit_error_last());
            return 1;
        }
        culprit_history_run_free(run);
    }
    printf("generated %zu run files x %zu tests (%zu test-runs), samples kept for the newest "
           "%zu\n",
           n, tests, n * tests, sampled);
    free(commits);
    culprit_history_free(h);
    return 0;
}

static size_t formatted(const culprit_run *run)
{
    culprit_buf doc = CULPRIT_BUF_INIT;
    size_t n;
    if (culprit_history_format(&doc, run) < 0)
        abort();
    n = doc.size;
    culprit_buf_dispose(&doc);
    return n;
}

static int sizes(size_t tests, size_t reps)
{
    culprit_run *full = make_run("0123456789abcdef0123456789abcdef01234567", 0, tests, reps, 1, 0);
    culprit_run *pruned =
        make_run("0123456789abcdef0123456789abcdef01234567", 0, tests, reps, 0, 0);
    size_t text, packed, summaries;

    setenv("CULPRIT_HISTORY_PACK", "0", 1);
    text = formatted(full);
    unsetenv("CULPRIT_HISTORY_PACK");
    packed = formatted(full);
    summaries = formatted(pruned);
    printf("bytes per test-run (%zu tests x %zu repetitions x 11 series): text %zu, packed %zu "
           "(%.1fx smaller), summaries only %zu\n",
           tests, reps, text / tests, packed / tests, (double)text / (double)packed,
           summaries / tests);
    culprit_history_run_free(full);
    culprit_history_run_free(pruned);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 7 && strcmp(argv[1], "gen") == 0)
        return generate(argv[2], argv[3], strtoul(argv[4], NULL, 10), strtoul(argv[5], NULL, 10),
                        strtoul(argv[6], NULL, 10));
    if (argc == 4 && strcmp(argv[1], "size") == 0)
        return sizes(strtoul(argv[2], NULL, 10), strtoul(argv[3], NULL, 10));
    fprintf(stderr, "usage: bench_history_scale gen DIR COMMITS TESTS SAMPLED REPS\n"
                    "       bench_history_scale size TESTS REPS\n");
    return 2;
}
