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
#include "detect_internal.h"

#include <math.h>
#include <stddef.h>
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

/* ------------------------------------------------------ run-to-run noise --- */

static int same_string(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

int culprit_detect__same_build(const culprit_run *a, const culprit_run *b)
{
    return same_string(a->machine, b->machine) && same_string(a->compiler, b->compiler) &&
           same_string(a->flags, b->flags);
}

/* Which fingerprint of the baseline's runs differs from the run judged, or NULL. */
char *culprit_detect__fingerprint_mismatch(const culprit_run *run, const culprit_baseline *base)
{
    static const struct {
        const char *what;
        size_t offset;
    } parts[] = {{"machine", offsetof(culprit_run, machine)},
                 {"compiler", offsetof(culprit_run, compiler)},
                 {"build flags", offsetof(culprit_run, flags)}};

    for (size_t i = 0; i < base->n; i++) {
        const culprit_run *b = base->runs ? base->runs[i] : NULL;
        if (!b)
            continue;
        for (size_t k = 0; k < sizeof(parts) / sizeof(parts[0]); k++) {
            const char *x = *(char *const *)((const char *)run + parts[k].offset);
            const char *y = *(char *const *)((const char *)b + parts[k].offset);
            if (strcmp(x ? x : "", y ? y : "") != 0) {
                culprit_buf msg = CULPRIT_BUF_INIT;
                culprit_buf_printf(&msg, "%s differs: '%s' now, '%s' in the baseline",
                                   parts[k].what, x ? x : "", y ? y : "");
                return culprit_buf_detach(&msg);
            }
        }
    }
    return NULL;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median_of(double *x, size_t n)
{
    qsort(x, n, sizeof(*x), compare_doubles);
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
        error = culprit_error_set(CULPRIT_ERROR, "out of memory");
        goto cleanup;
    }
    /* Newest first: runs are sorted by time, so walk back from the end. */
    for (i = runs->nruns; i-- > 0 && k < window;) {
        const culprit_run *run = runs->runs[i];
        const culprit_test_result *t;
        const culprit_summary *s;
        if (run == now_run || !same_string(run->suite, now_run->suite) ||
            strcmp(run->timestamp ? run->timestamp : "",
                   now_run->timestamp ? now_run->timestamp : "") >= 0 ||
            !culprit_detect__same_build(run, now_run))
            continue;
        if (!(t = culprit_run_find_test(run, now->name)) || !culprit_test_result_measured(t))
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
