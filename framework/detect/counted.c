/*
 * The deterministic rule: verdicts on a metric counted by a tool (instructions under
 * Valgrind, result->counted_by set) rather than timed. Such a count of unchanged
 * code moves by a few instructions in 10^7 (three runs of the fib example under
 * cachegrind: 101,517,799 / 101,522,512 / 101,515,708, a spread of 0.007%), so the
 * sampling statistics of the time verdict (confidence intervals, a minimum of
 * samples and of history runs, the run-to-run noise model) have nothing to do: the
 * relative change of the count is judged against a small threshold, 0.5% by
 * default, raised for a test whose history shows a wider A/A spread (5x the
 * largest difference between two runs at one commit), so that a test whose count
 * does depend on something outside the code (the environment's size, a hash seed)
 * does not alarm on every run.
 *
 * Categories are ranges of time and a count has no time: a counted result gets no
 * major verdict (docs/detection.md). A count made by another tool version, or a
 * baseline measured natively, does not compare with this one: mixed, naming both.
 */
#include "culprit/core.h"
#include "culprit/detect.h"
#include "detect_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

culprit_verdict_kind culprit_detect_counted_change(double change, double threshold)
{
    if (!isfinite(change))
        return CULPRIT_VERDICT_UNDECIDED;
    if (change > threshold)
        return CULPRIT_VERDICT_MINOR;
    if (change < -threshold)
        return CULPRIT_VERDICT_IMPROVEMENT;
    return CULPRIT_VERDICT_UNCHANGED;
}

int culprit_detect_count_threshold(double *out, const culprit_detect_options *opts,
                                   double aa_spread)
{
    static const culprit_detect_options defaults = CULPRIT_DETECT_OPTIONS_INIT;
    double widened;

    if (!opts)
        opts = &defaults;
    if (opts->version != CULPRIT_DETECT_OPTIONS_VERSION)
        return culprit_options_check_version(opts->version, CULPRIT_DETECT_OPTIONS_VERSION,
                                             "detect");
    widened = opts->count_aa_margin * (isfinite(aa_spread) ? aa_spread : 0);
    *out = widened > opts->count_threshold ? widened : opts->count_threshold;
    return 0;
}

double culprit_detect_counted_value(const culprit_test_result *t)
{
    return isfinite(t->summary.median) ? t->summary.median : t->summary.mean;
}

int culprit_detect_count_spread(double *spread, const culprit_history_runs *runs,
                                const culprit_run *now_run, const culprit_test_result *now,
                                size_t window)
{
    const culprit_run **seen = NULL;
    const culprit_test_result **res = NULL;
    size_t k = 0;

    *spread = 0;
    if (!now->counted_by || window < 2)
        return 0;
    seen = malloc(window * sizeof(*seen));
    res = malloc(window * sizeof(*res));
    if (!seen || !res) {
        free(seen);
        free(res);
        return CULPRIT_ERROR_NOMEM();
    }
    /* Newest first: runs are sorted by time, so walk back from the end. The run
     * judged counts too: runs before it at its own commit are its A/A partners. */
    for (size_t i = runs->nruns; i-- > 0 && k < window;) {
        const culprit_run *run = runs->runs[i];
        const culprit_test_result *t;
        if (run->dirty || !run->commit || !culprit_str_equal(run->suite, now_run->suite) ||
            !culprit_detect__same_build(run, now_run) ||
            !(t = culprit_history_run_find_test(run, now->name)) ||
            !culprit_history_test_result_measured(t) ||
            !culprit_str_equal(t->counted_by, now->counted_by) ||
            !(culprit_detect_counted_value(t) > 0))
            continue;
        seen[k] = run;
        res[k++] = t;
    }
    for (size_t a = 0; a < k; a++)
        for (size_t b = a + 1; b < k; b++) {
            double d;
            if (strcmp(seen[a]->commit, seen[b]->commit) != 0)
                continue;
            d = fabs(culprit_detect_counted_value(res[a]) / culprit_detect_counted_value(res[b]) -
                     1);
            if (d > *spread)
                *spread = d;
        }
    free(seen);
    free(res);
    return 0;
}

static void put_count(culprit_buf *b, double x, const char *metric)
{
    culprit_buf_printf(b, fabs(x) >= 1000 ? "%.0f %s" : "%.4g %s", x, metric);
}

/* The one line of a counted verdict: the counts, the change, the rule's threshold. */
static char *counted_message(const culprit_verdict *v, const culprit_test_result *now,
                             double threshold)
{
    static const char *const heads[] = {[CULPRIT_VERDICT_MINOR] = "minor regression: ",
                                        [CULPRIT_VERDICT_IMPROVEMENT] = "improvement: ",
                                        [CULPRIT_VERDICT_UNDECIDED] = "undecided: "};
    const char *metric = now->metric ? now->metric : "counted";
    culprit_buf b = CULPRIT_BUF_INIT;

    culprit_buf_printf(&b, "%s: ", v->test);
    if ((size_t)v->kind < sizeof(heads) / sizeof(*heads) && heads[v->kind])
        culprit_buf_puts(&b, heads[v->kind]);
    put_count(&b, v->now_mean, metric);
    culprit_buf_puts(&b, " now");
    if (isfinite(v->base_mean)) {
        culprit_buf_puts(&b, ", ");
        put_count(&b, v->base_mean, "");
        culprit_buf_printf(&b, "at %.12s", v->baseline ? v->baseline : "the baseline");
    }
    if (v->kind == CULPRIT_VERDICT_MIXED)
        culprit_buf_printf(&b, "; nothing compared: %s", v->mismatch);
    else if (v->kind == CULPRIT_VERDICT_NO_BASELINE)
        culprit_buf_puts(&b, "; nothing compared: no earlier run to compare with");
    else if (isfinite(v->change))
        culprit_buf_printf(&b, ": %+.2f%%%s (counted by %s; threshold %.2f%%)", 100 * v->change,
                           v->kind == CULPRIT_VERDICT_UNCHANGED ? ", unchanged" : "",
                           now->counted_by ? now->counted_by : "a tool", 100 * threshold);
    if (v->dirty)
        culprit_buf_puts(&b, CULPRIT_DETECT__DIRTY_NOTE);
    return culprit_buf_detach(&b);
}

int culprit_detect__judge_counted(culprit_verdict *out, const culprit_run *run,
                                  const culprit_test_result *now, const culprit_baseline *base,
                                  const culprit_detect_options *opts)
{
    size_t nbase = base ? base->n : 0;
    double threshold, sum = 0;
    int counted = now->counted_by != NULL, error;

    for (size_t i = 0; i < nbase; i++)
        counted |= base->results[i]->counted_by != NULL;
    if (!counted)
        return 0;
    out->evidence = CULPRIT_EVIDENCE_DETERMINISTIC;
    out->now_n = now->summary.n;
    out->now_mean = out->now_low = out->now_high = culprit_detect_counted_value(now);
    if ((error = culprit_detect_count_threshold(&threshold, opts, base ? base->count_spread : 0)) <
        0)
        return error;
    if (nbase) {
        for (size_t i = 0; i < nbase; i++) {
            out->base_n += base->results[i]->summary.n;
            sum += culprit_detect_counted_value(base->results[i]);
        }
        out->base_mean = sum / (double)nbase;
        if (base->label && !(out->baseline = culprit_strdup(base->label)))
            return CULPRIT_ERROR;
    }
    if (!nbase && base && base->incomparable && !opts->allow_mixed) {
        out->kind = CULPRIT_VERDICT_MIXED;
        if (!(out->mismatch = culprit_strdup(base->incomparable)))
            return CULPRIT_ERROR;
    } else if (!nbase)
        out->kind = CULPRIT_VERDICT_NO_BASELINE;
    else if (!opts->allow_mixed &&
             ((out->mismatch = culprit_detect__counting_mismatch(now, base)) ||
              (out->mismatch = culprit_detect__fingerprint_mismatch(run, base))))
        out->kind = CULPRIT_VERDICT_MIXED;
    else {
        out->change = out->change_low = out->change_high = out->now_mean / out->base_mean - 1;
        out->kind = culprit_detect_counted_change(out->change, threshold);
    }
    if (!(out->message = counted_message(out, now, threshold)))
        return CULPRIT_ERROR;
    return 1;
}
