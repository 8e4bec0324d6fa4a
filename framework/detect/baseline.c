/*
 * Choosing what a test is compared with. The default is the paper's: the previous
 * measurement, here the newest passing run of the test on the first-parent history
 * of the commit judged, so a merge is compared with the mainline it joins, not with
 * a side branch. Pooling the last K commits with data trades locality for a larger,
 * steadier baseline (what asv and Pinpoint call a "window").
 *
 * Only comparable runs are candidates (comparable.c): the newest run at a commit
 * that is not comparable does not hide an older one that is.
 *
 * Detection does not talk to git: the caller passes the first-parent commits.
 */
#include "culprit/core.h"
#include "culprit/detect.h"
#include "detect_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * The newest measured result of suite.test among the runs at `commit` (passed, or
 * failed only as a major regression) that `now_run` may be compared with, or NULL.
 * Without `now_run` (or with allow_mixed) any run is taken. The first incomparable
 * run passed over is described in *why (when still NULL).
 */
static const culprit_test_result *newest_at(const culprit_run **run_out, char **why,
                                            const culprit_detect__index *index, const char *suite,
                                            const char *test, const culprit_run *now_run,
                                            const culprit_test_result *now, const char *commit,
                                            int allow)
{
    size_t end, begin = culprit_detect__index_find(index, commit, &end);
    unsigned int flags = allow & CULPRIT_DETECT__ALLOW_DIRTY ? CULPRIT_COMPARABLE_ANY_TREE : 0;

    /* Runs of one commit are in time order: walk them newest first. */
    for (size_t i = end; i-- > begin;) {
        const culprit_run *run = index->runs[i];
        const culprit_test_result *t;
        char *reason = NULL;
        if ((suite && (!run->suite || strcmp(run->suite, suite) != 0)) || run == now_run)
            continue;
        if (!(t = culprit_history_run_find_test(run, test)) ||
            !culprit_history_test_result_measured(t))
            continue;
        if (now_run && !(allow & CULPRIT_DETECT__ALLOW_MIXED) &&
            culprit_detect_comparable(why && !*why ? &reason : NULL, now_run, now, run, t, flags) !=
                1) {
            if (reason) {
                culprit_buf msg = CULPRIT_BUF_INIT;
                culprit_buf_printf(&msg, "no comparable earlier run (the newest, at %.12s: %s)",
                                   commit, reason);
                *why = culprit_buf_detach(&msg);
                free(reason);
            }
            continue;
        }
        *run_out = run;
        return t;
    }
    return NULL;
}

int culprit_detect__baseline_indexed(culprit_baseline *out, const culprit_detect__index *index,
                                     const char *suite, const culprit_run *now_run,
                                     const culprit_test_result *now, const char *test,
                                     const char *const *commits, size_t ncommits, size_t pool,
                                     int allow)
{
    const culprit_test_result **results = NULL;
    const culprit_run **from = NULL;
    char *why = NULL;
    size_t n = 0;

    memset(out, 0, sizeof(*out));
    if (pool == 0)
        pool = 1;
    if (!(results = calloc(pool, sizeof(*results))) || !(from = calloc(pool, sizeof(*from)))) {
        free(results);
        return CULPRIT_ERROR_NOMEM();
    }
    for (size_t c = 0; c < ncommits && n < pool; c++) {
        const culprit_run *run = NULL;
        const culprit_test_result *t =
            newest_at(&run, &why, index, suite, test, now_run, now, commits[c], allow);
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
    if (n == 0)
        out->incomparable = why;
    else
        free(why);
    if (n && !out->label) {
        culprit_detect_baseline_dispose(out);
        return CULPRIT_ERROR;
    }
    return 0;
}

int culprit_detect_baseline_for(culprit_baseline *out, const culprit_history_runs *runs,
                                const culprit_run *now_run, const culprit_test_result *now,
                                const char *const *commits, size_t ncommits, size_t pool,
                                int allow_mixed)
{
    culprit_detect__index index;
    int error;

    memset(out, 0, sizeof(*out));
    if ((error = culprit_detect__index_runs(&index, runs)) < 0)
        return error;
    error = culprit_detect__baseline_indexed(out, &index, now_run->suite, now_run, now, now->name,
                                             commits, ncommits, pool,
                                             allow_mixed ? CULPRIT_DETECT__ALLOW_MIXED : 0);
    culprit_detect__index_dispose(&index);
    return error;
}

int culprit_detect_baseline(culprit_baseline *out, const culprit_history_runs *runs,
                            const char *suite, const char *test, const char *const *commits,
                            size_t ncommits, size_t pool)
{
    culprit_detect__index index;
    int error;

    memset(out, 0, sizeof(*out));
    if ((error = culprit_detect__index_runs(&index, runs)) < 0)
        return error;
    error = culprit_detect__baseline_indexed(out, &index, suite, NULL, NULL, test, commits,
                                             ncommits, pool, CULPRIT_DETECT__ALLOW_MIXED);
    culprit_detect__index_dispose(&index);
    return error;
}

void culprit_detect_baseline_dispose(culprit_baseline *baseline)
{
    if (!baseline)
        return;
    free((void *)baseline->results);
    free((void *)baseline->runs);
    free((void *)baseline->label);
    free(baseline->incomparable);
    memset(baseline, 0, sizeof(*baseline));
}

/* A copy of a string the run may lack: 0, or CULPRIT_ERROR out of memory. */
static int copy_or_null(char **out, const char *s)
{
    return s && !(*out = culprit_strdup(s)) ? CULPRIT_ERROR : 0;
}

int culprit_detect__name_base_runs(culprit_verdict *out, const culprit_baseline *base)
{
    char machine[512];

    if (!base->runs || base->n == 0)
        return 0;
    if (!(out->base_runs = calloc(base->n, sizeof(*out->base_runs))))
        return CULPRIT_ERROR_NOMEM();
    for (size_t i = 0; i < base->n; i++) {
        const culprit_run *run = base->runs[i];
        const culprit_test_result *t = base->results[i];
        const culprit_summary *s = t->judged.n >= 2 ? &t->judged : &t->summary;
        culprit_verdict_run *r = &out->base_runs[out->nbase_runs++];
        if (!run)
            continue;
        culprit_history_run_machine_class(machine, sizeof(machine), run);
        r->mean = s->mean;
        r->n = s->n;
        r->dirty = run->dirty;
        if (copy_or_null(&r->commit, run->commit) < 0 || copy_or_null(&r->id, run->id) < 0 ||
            copy_or_null(&r->machine, machine) < 0 ||
            copy_or_null(&r->timestamp, run->timestamp) < 0)
            return CULPRIT_ERROR;
    }
    return 0;
}

/* ------------------------------------------------------ run-to-run noise --- */

/* The median of the few values of a noise window (one per run, 10 by default):
 * sorted by insertion, which at that size is several times cheaper than qsort. */
static double median_of(double *x, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        double v = x[i];
        size_t j = i;
        for (; j > 0 && x[j - 1] > v; j--)
            x[j] = x[j - 1];
        x[j] = v;
    }
    return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

/* The median of a chi-square with one degree of freedom: a squared normal
 * difference d ~ N(0, s^2) has median(d^2) = 0.454936 s^2. */
#define CHI2_1_MEDIAN 0.454936423119572

/* Fewer than CULPRIT_DETECT_NOISE_MIN_RUNS runs estimate nothing: with 1 or 2
 * degrees of freedom the t quantile (63.7, 9.9 at 99%) would make any test
 * undecidable on the evidence of two or three runs. */
int culprit_detect_run_noise(double *var, double *df, const culprit_history_runs *runs,
                             const culprit_run *now_run, const culprit_test_result *now,
                             size_t window)
{
    double *mean = NULL, *se2 = NULL, *total = NULL, *within = NULL;
    size_t k = 0, i;
    int error = 0;

    *var = *df = 0;
    if (window < CULPRIT_DETECT_NOISE_MIN_RUNS)
        return 0;
    mean = malloc(window * sizeof(*mean));
    se2 = malloc(window * sizeof(*se2));
    total = malloc(window * sizeof(*total));
    within = malloc(window * sizeof(*within));
    if (!mean || !se2 || !total || !within) {
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    /* Newest first: runs are sorted by time, so walk back from the end. */
    for (i = runs->nruns; i-- > 0 && k < window;) {
        const culprit_run *run = runs->runs[i];
        const culprit_test_result *t;
        const culprit_summary *s;
        if (run == now_run || !culprit_str_equal(run->suite, now_run->suite) ||
            strcmp(run->timestamp ? run->timestamp : "",
                   now_run->timestamp ? now_run->timestamp : "") >= 0 ||
            !culprit_detect__same_build(run, now_run))
            continue;
        if (!(t = culprit_history_run_find_test(run, now->name)) ||
            !culprit_history_test_result_measured(t))
            continue;
        s = t->judged.n >= 2 ? &t->judged : &t->summary;
        if (s->n < 2 || !isfinite(s->mean) || !isfinite(s->sd))
            continue;
        mean[k] = s->mean;
        se2[k++] = s->sd * s->sd / (double)s->n;
    }
    if (k < CULPRIT_DETECT_NOISE_MIN_RUNS)
        goto cleanup;
    for (i = 0; i + 1 < k; i++) {
        double d = mean[i] - mean[i + 1];
        total[i] = d * d / CHI2_1_MEDIAN;
        within[i] = se2[i] + se2[i + 1];
    }
    /* Each difference of two run means has variance 2 var_between + se_i^2 + se_j^2. */
    *var = (median_of(total, k - 1) - median_of(within, k - 1)) / 2;
    if (*var < 0)
        *var = 0;
    *df = (double)(k - 1);
cleanup:
    free(mean);
    free(se2);
    free(total);
    free(within);
    return error;
}
