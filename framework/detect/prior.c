/*
 * Borrowing strength across tests (docs/detection.md). A test with fewer than
 * CULPRIT_DETECT_NOISE_MIN_RUNS earlier runs has no estimate of how much its mean
 * moves from run to run, so a minor regression it shows rests on two runs' samples
 * alone. But the run-to-run spread is mostly the machine's (its load, frequency,
 * cache and memory placement), and every test of a suite measures it: pooled over
 * the tests that have enough runs, it is known well long before any one new test
 * has its own history. A change whose lower bound lies far beyond the upper bound
 * of that spread is not something a run of unchanged code does; one within it is.
 *
 * The spread is that of the log of a run's floor, its fastest judged sample
 * (relative: a 1 us test and a 1 s test pool on one scale), estimated per test from
 * successive differences, so a past step change in one test's history moves one
 * difference instead of every deviation from a mean, and pooled with the degrees of
 * freedom each test brings. The floor, not the mean: on a loaded machine the mean of
 * a run moves with the load (measured beside two CPU hogs: a ~0.4 ms test's run mean
 * 389 to 673 us, in CPU time too), while the fastest of its samples, taken over the
 * half second an adaptive run lasts, stays within a few percent (353 to 374 us):
 * slowness on a shared machine only adds (Chen and Revels 2016, the estimator Julia's
 * BenchmarkTools judges by). Docs/detection.md, "Borrowing strength across tests".
 */
#include "culprit/core.h"
#include "culprit/detect.h"
#include "culprit/stats.h"
#include "detect_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One test's runs, newest first: its "suite.test" key (the map borrows it), their
 * number, the log of the last mean seen, and the sum of squared successive
 * differences. */
typedef struct {
    char *key;
    size_t k;
    double last;
    double sum_d2;
} series;

void culprit_detect_spread_default(culprit_run_spread *out)
{
    memset(out, 0, sizeof(*out));
    out->sd = out->upper = CULPRIT_DETECT_SPREAD_DEFAULT;
}

double culprit_detect_spread_limit(const culprit_run_spread *spread, size_t baseline_runs)
{
    double k = baseline_runs ? (double)baseline_runs : 1;

    double upper =
        spread->upper > CULPRIT_DETECT_SPREAD_MIN ? spread->upper : CULPRIT_DETECT_SPREAD_MIN;

    return expm1(CULPRIT_DETECT_SPREAD_FACTOR * upper * sqrt(1 + 1 / k));
}

double culprit_detect__floor(const culprit_test_result *t)
{
    const culprit_summary *s = t->judged.n >= 2 ? &t->judged : &t->summary;

    return s->n >= 2 && s->min > 0 && isfinite(s->min) ? s->min : NAN;
}

/* A young test's change beyond its limit (v->spread_limit: above it when slower,
 * below its mirror when faster). */
int culprit_detect__beyond_limit(const culprit_verdict *v, double change)
{
    return v->kind == CULPRIT_VERDICT_IMPROVEMENT ? change < v->spread_limit
                                                  : change > v->spread_limit;
}

/*
 * A young test's minor (no noise model of its own, significant on the means):
 * confirmed when its floor moved beyond CULPRIT_DETECT_SPREAD_FACTOR times the upper
 * bound of the machine's pooled run-to-run spread of floors (or the default), or
 * when the lower bound of the means' change did (either rule: a baseline run whose
 * floor fell in a slow phase of the machine hides a 3x slowdown from the floor rule,
 * while the means still show it; replayed on 162 A/A pairs of real runs beside two
 * CPU hogs, neither rule confirmed any, docs/detection.md), else unconfirmed. The
 * floor now against the geometric mean of the baseline runs' floors; a result
 * without a floor (fewer than 2 samples) is judged by the change's lower bound alone.
 * A young test's faster verdict by the mirror rule: a baseline run in a slow phase
 * makes an unchanged commit look faster as one now does slower, so it is confirmed
 * only below 1 / (1 + limit) - 1 (floor, or the upper bound of the means' change).
 */
void culprit_detect__judge_by_spread(culprit_verdict *out, const culprit_test_result *now,
                                     const culprit_baseline *base)
{
    double log_base = 0, moved;
    int faster = out->kind == CULPRIT_VERDICT_IMPROVEMENT;

    if (base->spread)
        out->spread = *base->spread;
    else
        culprit_detect_spread_default(&out->spread);
    out->spread_limit = culprit_detect_spread_limit(&out->spread, base->n);
    if (faster)
        out->spread_limit = 1 / (1 + out->spread_limit) - 1;
    for (size_t i = 0; i < base->n; i++)
        log_base += log(culprit_detect__floor(base->results[i])) / (double)base->n;
    out->floor_change = culprit_detect__floor(now) / exp(log_base) - 1;
    moved = !isnan(out->floor_change) ? out->floor_change
            : faster                  ? out->change_high
                                      : out->change_low;
    out->evidence =
        culprit_detect__beyond_limit(out, moved) ||
                culprit_detect__beyond_limit(out, faster ? out->change_high : out->change_low)
            ? CULPRIT_EVIDENCE_POOLED
            : CULPRIT_EVIDENCE_UNCONFIRMED;
}

/* 1 when result t of `run` may tell the spread for `now`. */
static int usable(const culprit_run *run, const culprit_test_result *t,
                  const culprit_test_result *now)
{
    return culprit_history_test_result_measured(t) && !t->counted_by &&
           strcmp(t->metric ? t->metric : "wall_ns", now->metric ? now->metric : "wall_ns") == 0 &&
           !isnan(culprit_detect__floor(t)) && run->suite;
}

/* Adds result t (of a run older than the ones seen) to its test's series. */
static int add_result(culprit_strmap *map, series **s, size_t *ns, size_t *cap,
                      const culprit_run *run, const culprit_test_result *t, size_t window)
{
    culprit_buf key = CULPRIT_BUF_INIT;
    double x = log(culprit_detect__floor(t));
    size_t k;
    int error = 0;

    if (culprit_buf_printf(&key, "%s.%s", run->suite, t->name) < 0)
        return CULPRIT_ERROR_NOMEM();
    if (!culprit_strmap_get(map, key.ptr, &k)) {
        if (culprit_array_grow(s, cap, *ns, sizeof(**s), 64) < 0) {
            error = CULPRIT_ERROR_NOMEM();
            goto cleanup;
        }
        k = *ns;
        memset(&(*s)[k], 0, sizeof(**s));
        if (!((*s)[k].key = culprit_buf_detach(&key)) ||
            culprit_strmap_put(map, (*s)[k].key, k, NULL) < 0) {
            free((*s)[k].key);
            error = CULPRIT_ERROR_NOMEM();
            goto cleanup;
        }
        (*ns)++;
    }
    if ((*s)[k].k >= window)
        goto cleanup;
    if ((*s)[k].k) {
        double d = (*s)[k].last - x;
        (*s)[k].sum_d2 += d * d;
    }
    (*s)[k].last = x;
    (*s)[k].k++;
cleanup:
    culprit_buf_dispose(&key);
    return error;
}

/* The pooled estimate from the series with enough runs (the default without any). */
static void pool(culprit_run_spread *out, const series *s, size_t ns, double confidence)
{
    double m_total = 0, ss = 0, denom = 0, var;

    for (size_t i = 0; i < ns; i++) {
        double m = (double)s[i].k - 1;
        if (s[i].k < CULPRIT_DETECT_NOISE_MIN_RUNS)
            continue;
        m_total += m;
        ss += s[i].sum_d2;
        denom += 3 * m - 1;
        out->tests++;
        out->runs += s[i].k;
    }
    if (!out->tests) {
        culprit_detect_spread_default(out);
        return;
    }
    /* Each difference of two run means' logs has variance 2 sd^2 (MSSD / 2). */
    var = ss / (2 * m_total);
    out->df = 2 * m_total * m_total / denom;
    out->sd = sqrt(var);
    out->upper = sqrt(culprit_stats_var_upper(var, out->df, confidence));
}

int culprit_detect_run_spread(culprit_run_spread *out, const culprit_history_runs *runs,
                              const culprit_run *now_run, const culprit_test_result *now,
                              size_t window, double confidence)
{
    culprit_strmap map = CULPRIT_STRMAP_INIT;
    const char *stamp = now_run->timestamp ? now_run->timestamp : "";
    series *s = NULL;
    size_t ns = 0, cap = 0;
    int error = 0;

    memset(out, 0, sizeof(*out));
    if (!(confidence > 0 && confidence < 1))
        return culprit_error_set(CULPRIT_EINVALID, "confidence %g is not in (0, 1)", confidence);
    /* Newest first: runs are sorted by time, so walk back from the end. */
    for (size_t i = runs->nruns; i-- > 0 && error == 0;) {
        const culprit_run *run = runs->runs[i];
        if (run == now_run || run->dirty ||
            strcmp(run->timestamp ? run->timestamp : "", stamp) >= 0 ||
            !culprit_detect__same_build(run, now_run))
            continue;
        for (size_t t = 0; t < run->ntests && error == 0; t++)
            if (usable(run, &run->tests[t], now))
                error = add_result(&map, &s, &ns, &cap, run, &run->tests[t], window);
    }
    if (error == 0)
        pool(out, s, ns, confidence);
    culprit_strmap_dispose(&map);
    for (size_t i = 0; i < ns; i++)
        free(s[i].key);
    free(s);
    return error;
}

int culprit_detect__spread_cached(culprit_detect__spread_cache *cache,
                                  const culprit_history_runs *runs, const culprit_run *now_run,
                                  const culprit_test_result *now, size_t window, double confidence)
{
    const char *metric = now->metric ? now->metric : "wall_ns";
    int error;

    if (cache->run && culprit_str_equal(cache->run->timestamp, now_run->timestamp) &&
        culprit_detect__same_build(cache->run, now_run) && strcmp(cache->metric, metric) == 0)
        return 0;
    cache->run = NULL;
    if ((error =
             culprit_detect_run_spread(&cache->spread, runs, now_run, now, window, confidence)) < 0)
        return error;
    cache->run = now_run;
    cache->metric = metric;
    return 0;
}
