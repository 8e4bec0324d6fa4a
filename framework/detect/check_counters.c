/*
 * The counter detectors inside a check: for each test judged, the counter-cluster
 * models against the same baseline the time verdict used, with the threshold
 * calibrated from A/A pairs of the test in history, and the association rules
 * mined from its last passing runs. Kept apart from check.c, whose time verdicts
 * need summaries only: these read the raw series.
 *
 * A/A pairs: two runs of the test at one commit on the same machine, compiler and
 * flags are runs of unchanged code; the error of each cluster between them is what
 * noise alone does to the models of its counters. A cluster's threshold becomes
 * max(aa_floor, aa_margin x the largest A/A error of its counters) instead of the
 * paper's fixed 30%, which Shang et al. (§4.4) say developers must learn for their
 * system: a counter of rare events (involuntary context switches, system time at
 * microsecond resolution) mispredicts by 100% between identical runs, write_bytes
 * by 0.2%, and one threshold cannot serve both.
 */
#include "culprit/core.h"
#include "culprit/detect.h"
#include "detect_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A/A pairs examined per test: the newest ones. */
#define AA_MAX_PAIRS 10

static int table_of(culprit_counter_table *out, const culprit_test_result *r)
{
    return culprit_detect_counter_table_from_results(out, &r, 1);
}

/* The A/A errors per counter of test `now` (from `now_run`); *n == 0 without pairs. */
static int calibrate(char ***names, double **errors, size_t *n, size_t *npairs,
                     const culprit_history_runs *runs, const culprit_run *now_run,
                     const culprit_test_result *now, const culprit_clusters_options *opts)
{
    culprit_counter_table tables[2 * AA_MAX_PAIRS];
    const culprit_counter_table *pairs[2 * AA_MAX_PAIRS];
    size_t np = 0;
    int error = 0;

    *names = NULL;
    *errors = NULL;
    *n = *npairs = 0;
    /* Newest first; a run pairs with the next older run of the same commit. */
    for (size_t i = runs->nruns; i-- > 0 && np < AA_MAX_PAIRS;) {
        const culprit_run *a = runs->runs[i];
        const culprit_test_result *ta;
        if (!a->commit || strcmp(a->commit, "unknown") == 0 || a->dirty ||
            strcmp(a->suite ? a->suite : "", now_run->suite ? now_run->suite : "") != 0 ||
            !culprit_detect__same_build(a, now_run) ||
            !(ta = culprit_history_run_find_test(a, now->name)) ||
            !culprit_history_test_result_measured(ta))
            continue;
        for (size_t j = i; j-- > 0;) {
            const culprit_run *b = runs->runs[j];
            const culprit_test_result *tb;
            if (!b->commit || strcmp(b->commit, a->commit) != 0 || b->dirty ||
                strcmp(b->suite ? b->suite : "", a->suite ? a->suite : "") != 0 ||
                !culprit_detect__same_build(a, b) ||
                !(tb = culprit_history_run_find_test(b, now->name)) ||
                !culprit_history_test_result_measured(tb))
                continue;
            if ((error = table_of(&tables[2 * np], tb)) < 0)
                goto cleanup;
            if ((error = table_of(&tables[2 * np + 1], ta)) < 0) {
                culprit_detect_counter_table_dispose(&tables[2 * np]);
                goto cleanup;
            }
            pairs[2 * np] = &tables[2 * np];
            pairs[2 * np + 1] = &tables[2 * np + 1];
            np++;
            break;
        }
    }
    if (np > 0 &&
        (error = culprit_detect_clusters_aa_errors(names, errors, n, pairs, np, opts)) == 0 &&
        *n > 0)
        *npairs = np;
cleanup:
    for (size_t i = 0; i < 2 * np; i++)
        culprit_detect_counter_table_dispose(&tables[i]);
    return error;
}

static int judge_clusters(culprit_clusters_verdict *out, const culprit_history_runs *runs,
                          const culprit_run *now_run, const culprit_test_result *now,
                          const char *const *commits, size_t ncommits,
                          const culprit_check_options *opts)
{
    culprit_baseline base;
    culprit_counter_table old, cur;
    culprit_clusters_options copts = opts->clusters;
    char **aa_names = NULL;
    double *aa_errors = NULL;
    size_t aa_n = 0, npairs = 0;
    int error;

    memset(&old, 0, sizeof(old));
    memset(&cur, 0, sizeof(cur));
    if ((error = culprit_detect_baseline_for(&base, runs, now_run, now, commits, ncommits,
                                             opts->pool, opts->detect.allow_mixed)) < 0)
        return error;
    if ((error = culprit_detect_counter_table_from_results(&old, base.results, base.n)) < 0 ||
        (error = table_of(&cur, now)) < 0)
        goto cleanup;
    /* An explicit threshold (aa_margin 0) is not calibrated. */
    if (opts->clusters.aa_margin > 0 &&
        (error = calibrate(&aa_names, &aa_errors, &aa_n, &npairs, runs, now_run, now,
                           &opts->clusters)) < 0)
        goto cleanup;
    copts.aa_n = aa_n;
    copts.aa_counters = (const char *const *)aa_names;
    copts.aa_errors = aa_errors;
    if ((error = culprit_detect_clusters(out, &old, &cur, &copts)) < 0)
        goto cleanup;
    out->aa_pairs = npairs;
    if (!out->judged && base.n == 0) {
        free(out->message);
        out->message = culprit_strdup("counter clusters not judged: no baseline");
    }
cleanup:
    culprit_detect_clusters_aa_dispose(aa_names, aa_errors, aa_n);
    culprit_detect_counter_table_dispose(&old);
    culprit_detect_counter_table_dispose(&cur);
    culprit_detect_baseline_dispose(&base);
    return error;
}

static int judge_rules(culprit_rules_verdict *out, const culprit_history_runs *runs,
                       const culprit_run *now_run, const culprit_test_result *now,
                       const char *const *commits, size_t ncommits,
                       const culprit_check_options *opts)
{
    culprit_baseline base;
    culprit_counter_table *hist = NULL, cur;
    int error;

    memset(&cur, 0, sizeof(cur));
    if ((error = culprit_detect_baseline_for(&base, runs, now_run, now, commits, ncommits,
                                             opts->rules.history, opts->detect.allow_mixed)) < 0)
        return error;
    if (!(hist = calloc(base.n ? base.n : 1, sizeof(*hist)))) {
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    for (size_t i = 0; i < base.n; i++)
        if ((error = table_of(&hist[i], base.results[i])) < 0)
            goto cleanup;
    if ((error = table_of(&cur, now)) < 0 ||
        (error = culprit_detect_rules(out, hist, base.n, &cur, &opts->rules)) < 0)
        goto cleanup;
cleanup:
    for (size_t i = 0; hist && i < base.n; i++)
        culprit_detect_counter_table_dispose(&hist[i]);
    free(hist);
    culprit_detect_counter_table_dispose(&cur);
    culprit_detect_baseline_dispose(&base);
    return error;
}

int culprit_detect__judge_counters(culprit_check_result *result, const culprit_history_runs *runs,
                                   const char *const *baseline_commits, size_t nbaseline,
                                   const culprit_check_options *opts)
{
    size_t n = result->n;
    int error;

    if ((opts->detectors & CULPRIT_DETECTOR_CLUSTERS) &&
        !(result->clusters = calloc(n ? n : 1, sizeof(*result->clusters))))
        return CULPRIT_ERROR_NOMEM();
    if ((opts->detectors & CULPRIT_DETECTOR_RULES) &&
        !(result->rules = calloc(n ? n : 1, sizeof(*result->rules))))
        return CULPRIT_ERROR_NOMEM();
    for (size_t i = 0; i < n; i++) {
        const culprit_test_result *now = result->now[i];
        const culprit_run *run = result->now_runs[i];
        int measured = culprit_history_test_result_measured(now);
        if (result->clusters) {
            if (!measured)
                result->clusters[i].message = culprit_strdup("counter clusters not judged: "
                                                             "the test did not run to the end");
            else if ((error = judge_clusters(&result->clusters[i], runs, run, now, baseline_commits,
                                             nbaseline, opts)) < 0)
                return error;
        }
        if (result->rules) {
            if (!measured)
                result->rules[i].message = culprit_strdup("association rules not judged: "
                                                          "the test did not run to the end");
            else if ((error = judge_rules(&result->rules[i], runs, run, now, baseline_commits,
                                          nbaseline, opts)) < 0)
                return error;
        }
    }
    return 0;
}
