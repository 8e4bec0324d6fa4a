/*
 * Bounded storage (docs/history-format.md, "Compaction"): `culprit history compact`
 * writes every run file of the store again in the packed sample form (pack.c),
 * losslessly; with keep_samples K it also drops the raw samples of all but the
 * newest K runs of each test, while every summary (what check, history, report and
 * bisect's history reuse judge) stays forever.
 *
 * A file is replaced only when its new text is smaller, atomically (a temporary
 * file renamed over it, culprit_fs_write_atomic): a reader sees the old file or the
 * new one, never a mix, and a compaction killed half way leaves every file whole;
 * the temporary file it was writing is removed by the next compaction or store.
 * A file that cannot be read is reported and left as it is.
 */
#include "history_internal.h"

#include <stdlib.h>
#include <string.h>

int culprit_history_compact_options_init(culprit_history_compact_options *opts,
                                         unsigned int version)
{
    static const culprit_history_compact_options defaults = CULPRIT_HISTORY_COMPACT_OPTIONS_INIT;

    return culprit_options_init_from(opts, &defaults, sizeof(defaults), version,
                                     CULPRIT_HISTORY_COMPACT_OPTIONS_VERSION, "compact");
}

/* One test result of one run: pruned when more than K newer runs of its test exist. */
typedef struct {
    const char *suite, *test, *path;
    size_t order; /* the run's place in time (loaded runs are sorted by time) */
} mark;

static int by_test_newest_first(const void *a, const void *b)
{
    const mark *x = a, *y = b;
    int c = strcmp(x->suite, y->suite);

    if (!c)
        c = strcmp(x->test, y->test);
    return c ? c : (x->order < y->order) - (x->order > y->order);
}

static int by_path_test(const void *a, const void *b)
{
    const mark *x = a, *y = b;
    int c = strcmp(x->path, y->path);
    return c ? c : strcmp(x->test, y->test);
}

/* The (path, test) pairs whose samples go, sorted by path then test, in *out. */
static int plan_prune(mark **out, size_t *nout, const culprit_history_runs *runs, size_t keep)
{
    mark *m = NULL;
    size_t n = 0, cap = 0, kept = 0, k = 0;

    for (size_t r = 0; r < runs->nruns; r++)
        for (size_t t = 0; t < runs->runs[r]->ntests; t++) {
            const culprit_run *run = runs->runs[r];
            if (culprit_array_grow(&m, &cap, n, sizeof(*m), 1024) < 0) {
                free(m);
                return CULPRIT_ERROR;
            }
            m[n++] = (mark){run->suite ? run->suite : "", run->tests[t].name, run->path, r};
        }
    if (n)
        qsort(m, n, sizeof(*m), by_test_newest_first);
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || strcmp(m[i].suite, m[i - 1].suite) || strcmp(m[i].test, m[i - 1].test))
            kept = 0;
        if (kept++ >= keep)
            m[k++] = m[i]; /* beyond the newest `keep`: its samples go */
    }
    if (k)
        qsort(m, k, sizeof(*m), by_path_test);
    *out = m;
    *nout = k;
    return 0;
}

static int pruned_here(const mark *m, size_t n, const char *path, const char *test)
{
    mark key = {"", test, path, 0};
    return n && bsearch(&key, m, n, sizeof(*m), by_path_test) != NULL;
}

/* Drops the values of the series of the tests of `run` the plan names. */
static size_t prune_run(culprit_run *run, const char *path, const mark *m, size_t n)
{
    size_t pruned = 0;

    for (size_t t = 0; t < run->ntests; t++) {
        culprit_test_result *test = &run->tests[t];
        int had = 0;
        if (!pruned_here(m, n, path, test->name))
            continue;
        for (size_t s = 0; s < test->nseries; s++) {
            had |= test->series[s].n > 0;
            free(test->series[s].values);
            test->series[s].values = NULL;
            test->series[s].n = 0;
        }
        pruned += had;
    }
    return pruned;
}

/* Writes one file again, packed and pruned, when that makes it smaller. */
static int compact_file(culprit_history_compact_stats *st, const char *path, const mark *m,
                        size_t nm, const culprit_history_compact_options *opts)
{
    culprit_buf old = CULPRIT_BUF_INIT, text = CULPRIT_BUF_INIT;
    culprit_run *run = NULL;
    int error;

    if ((error = culprit_fs_read_file(&old, path)) < 0 ||
        (error = culprit_history_read_memory(&run, old.ptr, old.size, path,
                                             CULPRIT_HISTORY_LOAD_SAMPLES)) < 0)
        goto cleanup;
    st->files++;
    st->test_runs += run->ntests;
    st->pruned += prune_run(run, path, m, nm);
    st->bytes_before += old.size;
    if ((error = culprit_history_format(&text, run)) < 0)
        goto cleanup;
    if (text.size >= old.size) {
        st->bytes_after += old.size;
        goto cleanup;
    }
    st->bytes_after += text.size;
    st->rewritten++;
    if (!opts->dry_run)
        error = culprit_fs_write_atomic(path, text.ptr, text.size, 0);
cleanup:
    culprit_history_run_free(run);
    culprit_buf_dispose(&old);
    culprit_buf_dispose(&text);
    return error;
}

int culprit_history_compact(culprit_history_compact_stats *out, culprit_history *history,
                            const culprit_history_compact_options *opts,
                            culprit_history_warn_fn warn, void *payload)
{
    culprit_history_compact_options defaults = CULPRIT_HISTORY_COMPACT_OPTIONS_INIT;
    culprit_history_runs runs = {0, NULL, 0};
    char **names = NULL;
    size_t nnames = 0, nm = 0;
    mark *m = NULL;
    int error;

    memset(out, 0, sizeof(*out));
    if (!opts)
        opts = &defaults;
    if (opts->version != CULPRIT_HISTORY_COMPACT_OPTIONS_VERSION)
        return culprit_options_check_version(opts->version, CULPRIT_HISTORY_COMPACT_OPTIONS_VERSION,
                                             "compact");
    /* The temporary files of writers killed before their rename (a compaction or a
     * store killed half way: <run>.xml.tmp.<host>-<pid>.<start>-XXXXXX) go first;
     * a live writer's stay. They were never history: the listing skips them. */
    if (!opts->dry_run)
        culprit_fs_remove_stale(culprit_history_dir(history), ".tmp.");
    /* Which runs are the newest of their tests: the summaries say, cheaply. */
    if (opts->keep_samples &&
        ((error = culprit_history_load(&runs, history, NULL, warn, payload)) < 0 ||
         (error = plan_prune(&m, &nm, &runs, opts->keep_samples)) < 0))
        goto cleanup;
    if ((error = culprit_history__list_files(&names, &nnames, culprit_history_dir(history))) < 0)
        goto cleanup;
    for (size_t i = 0; i < nnames; i++) {
        char *path = culprit_fs_join(culprit_history_dir(history), names[i]);
        if (!path) {
            error = CULPRIT_ERROR_NOMEM();
            goto cleanup;
        }
        error = compact_file(out, path, m, nm, opts);
        if (error == CULPRIT_EINVALID || error == CULPRIT_ENOTFOUND) {
            /* Corrupt, foreign, or gone since the listing: left as it is. */
            culprit_history__warn_skipped(warn, payload, path);
            out->skipped++;
            error = 0;
        }
        free(path);
        if (error < 0)
            goto cleanup;
    }
cleanup:
    for (size_t i = 0; i < nnames; i++)
        free(names[i]);
    free(names);
    free(m);
    culprit_history_runs_dispose(&runs);
    return error;
}
