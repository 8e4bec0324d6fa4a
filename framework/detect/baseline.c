/*
 * Choosing what a test is compared with. The default is the paper's: the previous
 * measurement, here the newest passing run of the test on the first-parent history
 * of the commit judged, so a merge is compared with the mainline it joins, not with
 * a side branch. Pooling the last K commits with data trades locality for a larger,
 * steadier baseline (what asv and Pinpoint call a "window").
 *
 * Detection does not talk to git: the caller passes the first-parent commits.
 */
#include "culprit/core.h"
#include "culprit/detect.h"

#include <stdlib.h>
#include <string.h>

/* The newest measured result of suite.test among the runs at `commit` (passed, or failed
 * only as a major regression), or NULL. */
static const culprit_test_result *newest_at(const culprit_run **run_out,
                                            const culprit_history_runs *runs, const char *suite,
                                            const char *test, const char *commit)
{
    const culprit_test_result *best = NULL;

    /* Runs are sorted by timestamp: the last match is the newest. */
    for (size_t i = 0; i < runs->nruns; i++) {
        const culprit_run *run = runs->runs[i];
        const culprit_test_result *t;
        if (!run->commit || strcmp(run->commit, commit) != 0 ||
            (suite && (!run->suite || strcmp(run->suite, suite) != 0)))
            continue;
        if (!(t = culprit_run_find_test(run, test)) || !culprit_test_result_measured(t))
            continue;
        best = t;
        *run_out = run;
    }
    return best;
}

int culprit_detect_baseline(culprit_baseline *out, const culprit_history_runs *runs,
                            const char *suite, const char *test, const char *const *commits,
                            size_t ncommits, size_t pool)
{
    const culprit_test_result **results = NULL;
    const culprit_run **from = NULL;
    size_t n = 0;

    memset(out, 0, sizeof(*out));
    if (pool == 0)
        pool = 1;
    if (!(results = calloc(pool, sizeof(*results))) || !(from = calloc(pool, sizeof(*from)))) {
        free(results);
        return culprit_error_set(CULPRIT_ERROR, "out of memory");
    }
    for (size_t c = 0; c < ncommits && n < pool; c++) {
        const culprit_run *run = NULL;
        const culprit_test_result *t = newest_at(&run, runs, suite, test, commits[c]);
        if (!t)
            continue;
        results[n] = t;
        from[n++] = run;
    }
    out->n = n;
    out->results = results;
    out->runs = from;
    if (n == 1) {
        out->label = culprit_strdup(from[0]->commit);
    } else if (n > 1) {
        culprit_buf label = CULPRIT_BUF_INIT;
        culprit_buf_printf(&label, "%.12s and %zu earlier commits", from[0]->commit, n - 1);
        out->label = culprit_buf_detach(&label);
    }
    if (n && !out->label) {
        culprit_baseline_dispose(out);
        return CULPRIT_ERROR;
    }
    return 0;
}

void culprit_baseline_dispose(culprit_baseline *baseline)
{
    if (!baseline)
        return;
    free((void *)baseline->results);
    free((void *)baseline->runs);
    free((void *)baseline->label);
    memset(baseline, 0, sizeof(*baseline));
}
