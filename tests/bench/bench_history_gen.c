/*
 * Synthetic run files for bench_history_sync.sh, generated without running tests:
 * run K is at a commit id derived from K, with TESTS tests of SAMPLES samples each
 * (wall_ns and cpu_ns, the series every run has), in the history format of
 * framework/history (culprit_history_format), named as the store names them.
 *
 *   bench_history_gen stream FIRST COUNT TESTS SAMPLES [PARENT]
 *       a `git fast-import` stream on stdout: the runs FIRST..FIRST+COUNT-1 as
 *       files runs/<commit[0:2]>/<id>.xml of refs/culprit/history, one commit of
 *       the store per 100 runs, the first on top of PARENT (a commit id) if given.
 *   bench_history_gen dir FIRST COUNT TESTS SAMPLES DIR
 *       the same runs as files in the history directory DIR.
 */
#include "culprit/history.h"
#include "culprit/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t mix(uint64_t x)
{
    /* splitmix64: a commit id per run that spreads over the shards. */
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static culprit_run *make_run(size_t k, size_t ntests, size_t nsamples, const char *tag)
{
    double *wall = malloc(nsamples * sizeof(double)), *cpu = malloc(nsamples * sizeof(double));
    char commit[41], id[128], stamp[32], name[32];
    culprit_run *run;
    uint64_t r = mix(k);

    if (!wall || !cpu || culprit_history_run_new(&run) < 0)
        abort();
    snprintf(commit, sizeof(commit), "%016llx%016llx%08llx", (unsigned long long)mix(k),
             (unsigned long long)mix(k + 1000000007ull), (unsigned long long)(mix(k) >> 32));
    /* One run a minute from 2026-01-01: the store's names sort like their times. */
    snprintf(stamp, sizeof(stamp), "2026-%02zu-%02zuT%02zu:%02zu:00Z", 1 + k / 40320 % 12,
             1 + k / 1440 % 28, k / 60 % 24, k % 60);
    snprintf(id, sizeof(id), "%.4s%.2s%.2sT%.2s%.2s00Z_%.12s_%s_%zu_%016llx", stamp, stamp + 5,
             stamp + 8, stamp + 11, stamp + 14, commit, tag, k, (unsigned long long)r);
    culprit_str_set(&run->id, id);
    culprit_str_set(&run->suite, "bench_suite");
    culprit_str_set(&run->commit, commit);
    culprit_str_set(&run->branch, "main");
    culprit_str_set(&run->timestamp, stamp);
    culprit_str_set(&run->host, tag);
    culprit_str_set(&run->machine, "x86_64, 2 cores, Linux");
    culprit_str_set(&run->compiler, "gcc 12.2.0");
    culprit_str_set(&run->flags, "-O2 -g");
    for (size_t t = 0; t < ntests; t++) {
        culprit_test_result *res;
        if (culprit_history_run_add_test(&res, run) < 0)
            abort();
        snprintf(name, sizeof(name), "test_%03zu", t);
        culprit_str_set(&res->name, name);
        culprit_str_set(&res->classname, "bench_suite");
        culprit_str_set(&res->category, "fast");
        culprit_str_set(&res->category_source, "auto");
        culprit_str_set(&res->verdict, "pass");
        culprit_str_set(&res->metric, "wall_ns");
        culprit_str_set(&res->stop, "precision");
        res->category_high_ns = 1e6;
        res->batch = 1;
        res->elapsed_s = 0.25;
        for (size_t i = 0; i < nsamples; i++) {
            r = mix(r);
            wall[i] = 1000.0 * (double)(t + 1) + (double)(r % 5000);
            cpu[i] = floor(wall[i] * 0.97);
        }
        culprit_stats_summarize(&res->summary, wall, nsamples, 0.99);
        culprit_history_test_result_add_series(res, "wall_ns", wall, nsamples, 0);
        culprit_history_test_result_add_series(res, "cpu_ns", cpu, nsamples, 0);
    }
    free(wall);
    free(cpu);
    return run;
}

int main(int argc, char **argv)
{
    size_t first, count, ntests, nsamples, batch_first = 0;
    const char *parent;
    char **paths;
    culprit_history *dir = NULL;
    int stream;

    if (argc < 6 || (strcmp(argv[1], "stream") && strcmp(argv[1], "dir")) ||
        (!strcmp(argv[1], "dir") && argc < 7)) {
        fprintf(stderr, "usage: bench_history_gen stream|dir FIRST COUNT TESTS SAMPLES "
                        "[PARENT|DIR]\n");
        return 2;
    }
    stream = !strcmp(argv[1], "stream");
    first = strtoul(argv[2], NULL, 10), count = strtoul(argv[3], NULL, 10);
    ntests = strtoul(argv[4], NULL, 10), nsamples = strtoul(argv[5], NULL, 10);
    parent = argc > 6 && stream ? argv[6] : NULL;
    if (!stream && culprit_history_open(&dir, argv[6], 1) < 0) {
        fprintf(stderr, "bench_history_gen: %s\n", culprit_error_last());
        return 2;
    }
    if (!(paths = calloc(count ? count : 1, sizeof(*paths))))
        return 2;
    for (size_t k = 0; k < count; k++) {
        culprit_run *run = make_run(first + k, ntests, nsamples, stream ? "gen" : "job");
        culprit_buf doc = CULPRIT_BUF_INIT;
        if (!stream) {
            if (culprit_history_store(dir, run, NULL) < 0) {
                fprintf(stderr, "bench_history_gen: %s\n", culprit_error_last());
                return 2;
            }
            culprit_history_run_free(run);
            continue;
        }
        if (culprit_history_format(&doc, run) < 0)
            return 2;
        printf("blob\nmark :%zu\ndata %zu\n", k + 1, doc.size);
        fwrite(doc.ptr, 1, doc.size, stdout);
        printf("\n");
        if (!(paths[k] = malloc(strlen(run->id) + 16)))
            return 2;
        sprintf(paths[k], "runs/%.2s/%s.xml", run->commit, run->id);
        culprit_buf_dispose(&doc);
        culprit_history_run_free(run);
        if ((k + 1) % 100 == 0 || k + 1 == count) {
            char msg[64];
            int len = snprintf(msg, sizeof(msg), "culprit: add runs %zu..%zu\n",
                               first + batch_first, first + k);
            printf("commit refs/culprit/history\ncommitter culprit <culprit@localhost> "
                   "1767225600 +0000\ndata %d\n%s",
                   len, msg);
            if (parent && batch_first == 0)
                printf("from %s\n", parent);
            for (size_t i = batch_first; i <= k; i++)
                printf("M 100644 :%zu %s\n", i + 1, paths[i]);
            printf("\n");
            batch_first = k + 1;
        }
    }
    for (size_t k = 0; k < count; k++)
        free(paths[k]);
    free(paths);
    culprit_history_free(dir);
    return fflush(stdout) == 0 ? 0 : 2;
}
