/*
 * A check: every test measured at one commit, judged against its baseline, with
 * the false discovery rate controlled across all of them, so a suite of 500 tests
 * does not raise alarms every run by chance. ctest runs a test binary once per
 * test, so the tests of one commit are spread over many run files: results are
 * grouped by "suite.test", the newest run of each test at the commit taken.
 */
#include "culprit/core.h"
#include "culprit/detect.h"
#include "detect_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const culprit_run *run;
    const culprit_test_result *test;
    char *key; /* "suite.test" */
} entry;

static int compare_entries(const void *a, const void *b)
{
    return strcmp(((const entry *)a)->key, ((const entry *)b)->key);
}

static int matches(const char *key, const char *name, const char *wanted)
{
    return !wanted || strcmp(key, wanted) == 0 || strcmp(name, wanted) == 0;
}

/* The newest result of each suite.test among the runs at `commit`. */
static int collect(entry **out, size_t *n_out, const culprit_history_runs *runs, const char *commit,
                   const char *wanted)
{
    culprit_strmap seen = CULPRIT_STRMAP_INIT; /* key -> its entry */
    entry *e = NULL;
    size_t n = 0, cap = 0, k;
    int found;

    for (size_t i = 0; i < runs->nruns; i++) {
        const culprit_run *run = runs->runs[i];
        if (!run->commit || strcmp(run->commit, commit) != 0)
            continue;
        for (size_t t = 0; t < run->ntests; t++) {
            const culprit_test_result *test = &run->tests[t];
            culprit_buf key = CULPRIT_BUF_INIT;
            if (culprit_detect__put_key(&key, run->suite ? run->suite : "", test->name) < 0)
                goto oom;
            if (!matches(key.ptr, test->name, wanted)) {
                culprit_buf_dispose(&key);
                continue;
            }
            if ((found = culprit_strmap_get(&seen, key.ptr, &k))) {
                /* runs are sorted by time: a later one replaces */
                e[k].run = run;
                e[k].test = test;
                culprit_buf_dispose(&key);
                continue;
            }
            if (culprit_array_grow(&e, &cap, n, sizeof(*e), 16) < 0) {
                culprit_buf_dispose(&key);
                goto oom;
            }
            e[n].run = run;
            e[n].test = test;
            e[n].key = culprit_buf_detach(&key);
            if (culprit_strmap_put(&seen, e[n].key, n, NULL) < 0) {
                free(e[n].key);
                goto oom;
            }
            n++;
        }
    }
    culprit_strmap_dispose(&seen);
    if (n)
        qsort(e, n, sizeof(*e), compare_entries);
    *out = e;
    *n_out = n;
    return 0;
oom:
    culprit_strmap_dispose(&seen);
    for (k = 0; k < n; k++)
        free(e[k].key);
    free(e);
    return CULPRIT_ERROR_NOMEM();
}

static int result_alloc(culprit_check_result *out, size_t n)
{
    memset(out, 0, sizeof(*out));
    out->verdicts = calloc(n ? n : 1, sizeof(*out->verdicts));
    out->now = calloc(n ? n : 1, sizeof(*out->now));
    out->now_runs = calloc(n ? n : 1, sizeof(*out->now_runs));
    if (!out->verdicts || !out->now || !out->now_runs) {
        culprit_detect_check_result_dispose(out);
        return CULPRIT_ERROR_NOMEM();
    }
    return 0;
}

int culprit_detect_check_options_init(culprit_check_options *opts, unsigned int version)
{
    static const culprit_check_options defaults = CULPRIT_CHECK_OPTIONS_INIT;

    return culprit_options_init_from(opts, &defaults, sizeof(defaults), version,
                                     CULPRIT_CHECK_OPTIONS_VERSION, "check");
}

/*
 * The options and the three they embed, each against the version this library was
 * built with: a caller compiled against another layout of the struct would
 * otherwise be read field by field at the wrong offsets, silently.
 */
static int options_valid(const culprit_check_options *opts)
{
    if (opts->version != CULPRIT_CHECK_OPTIONS_VERSION)
        return culprit_error_set(CULPRIT_EINVALID,
                                 "check options version %u is not %d (use "
                                 "CULPRIT_CHECK_OPTIONS_INIT or culprit_detect_check_options_init)",
                                 opts->version, CULPRIT_CHECK_OPTIONS_VERSION);
    if (opts->detect.version != CULPRIT_DETECT_OPTIONS_VERSION)
        return culprit_error_set(CULPRIT_EINVALID, "detect options version %u is not %d",
                                 opts->detect.version, CULPRIT_DETECT_OPTIONS_VERSION);
    if (opts->clusters.version != CULPRIT_CLUSTERS_OPTIONS_VERSION)
        return culprit_error_set(CULPRIT_EINVALID, "clusters options version %u is not %d",
                                 opts->clusters.version, CULPRIT_CLUSTERS_OPTIONS_VERSION);
    if (opts->rules.version != CULPRIT_RULES_OPTIONS_VERSION)
        return culprit_error_set(CULPRIT_EINVALID, "rules options version %u is not %d",
                                 opts->rules.version, CULPRIT_RULES_OPTIONS_VERSION);
    return 0;
}

/* With a metric asked for, every result judged must carry it (select_metric). */
static int metric_selected(const entry *e, size_t n, const char *metric)
{
    for (size_t i = 0; metric && i < n; i++) {
        const char *m = e[i].test->metric ? e[i].test->metric : "wall_ns";
        if (strcmp(m, metric) != 0)
            return culprit_error_set(CULPRIT_EINVALID,
                                     "%s was measured for '%s', not '%s' (select the metric "
                                     "with culprit_detect_select_metric first)",
                                     e[i].key, m, metric);
    }
    return 0;
}

/* The commit judged, then its baseline commits. */
static int commits_for_dirty(const char ***out, const char *commit, const char *const *bases,
                             size_t nbases)
{
    if (!(*out = malloc((nbases + 1) * sizeof(**out))))
        return CULPRIT_ERROR_NOMEM();
    (*out)[0] = commit;
    for (size_t i = 0; i < nbases; i++)
        (*out)[i + 1] = bases[i];
    return 0;
}

/* The error for a commit without runs (a commit made after the last measurement,
 * such as a config file's): it names the newest first-parent ancestor that has runs. */
static int no_run_at(const culprit_history_runs *runs, const char *commit, const char *const *bases,
                     size_t nbases)
{
    for (size_t b = 0; b < nbases; b++)
        for (size_t i = 0; i < runs->nruns; i++)
            if (runs->runs[i]->commit && !strcmp(runs->runs[i]->commit, bases[b]))
                return culprit_error_set(CULPRIT_ENOTFOUND,
                                         "no run in the history at commit %.12s; the newest "
                                         "measured commit before it is %.12s, %zu commit%s "
                                         "back (measure this one first, or check that one "
                                         "with --commit %.12s)",
                                         commit, bases[b], b + 1, b ? "s" : "", bases[b]);
    return culprit_error_set(CULPRIT_ENOTFOUND, "no run in the history at commit %.12s", commit);
}

/* Which runs may be baselines besides the comparable clean ones. */
static int allow_of(const culprit_detect_options *o)
{
    return (o->allow_mixed ? CULPRIT_DETECT__ALLOW_MIXED : 0) |
           (o->allow_dirty ? CULPRIT_DETECT__ALLOW_DIRTY : 0);
}

/*
 * Judges one test; a minor that the pooled rule judged (a test too young for its own
 * noise model) is judged again with the machine's pooled spread, estimated only
 * then: most checks have no such minor, and a fresh 100,000-test history would
 * otherwise pool its runs once per test.
 */
static int judge_young(culprit_verdict *v, culprit_detect__spread_cache *cache,
                       const culprit_history_runs *runs, const culprit_run *run,
                       const culprit_test_result *test, culprit_baseline *base,
                       const culprit_check_options *opts)
{
    int error;

    if ((error = culprit_detect_judge(v, run, test, base, &opts->detect)) < 0 ||
        isnan(v->spread_limit))
        return error;
    if ((error = culprit_detect__spread_cached(cache, runs, run, test, opts->noise_window,
                                               opts->detect.confidence)) < 0)
        return error;
    culprit_detect_verdict_dispose(v);
    base->spread = &cache->spread;
    return culprit_detect_judge(v, run, test, base, &opts->detect);
}

int culprit_detect_check(culprit_check_result *out, const culprit_history_runs *runs,
                         const char *commit, const char *const *baseline_commits, size_t nbaseline,
                         const culprit_check_options *opts)
{
    culprit_check_options defaults = CULPRIT_CHECK_OPTIONS_INIT;
    culprit_detect__index index = {NULL, 0};
    culprit_detect__spread_cache spread = {NULL, NULL, {0, 0, 0, 0, 0}};
    const char **dirty_commits = NULL;
    entry *e = NULL;
    size_t n = 0;
    int error;

    memset(out, 0, sizeof(*out));
    if (!opts)
        opts = &defaults;
    if ((error = options_valid(opts)) < 0)
        return error;
    if ((error = collect(&e, &n, runs, commit, opts->test)) < 0)
        return error;
    if (n == 0) {
        free(e);
        if (opts->test)
            return culprit_error_set(CULPRIT_ENOTFOUND, "no run of test '%s' at commit %.12s",
                                     opts->test, commit);
        return no_run_at(runs, commit, baseline_commits, nbaseline);
    }
    if ((error = metric_selected(e, n, opts->metric)) < 0 || (error = result_alloc(out, n)) < 0)
        goto cleanup;
    if ((error = culprit_detect__index_runs(&index, runs)) < 0 ||
        (error = commits_for_dirty(&dirty_commits, commit, baseline_commits, nbaseline)) < 0)
        goto cleanup;
    for (size_t i = 0; i < n; i++) {
        culprit_baseline base;
        /* A run from a dirty tree is "its commit plus changes": the clean runs of its
         * own commit are its nearest baseline. */
        const char *const *bases = e[i].run->dirty ? dirty_commits : baseline_commits;
        size_t nbases = e[i].run->dirty ? nbaseline + 1 : nbaseline;
        if ((error = culprit_detect__baseline_indexed(&base, &index, e[i].run->suite, e[i].run,
                                                      e[i].test, e[i].test->name, bases, nbases,
                                                      opts->pool, allow_of(&opts->detect))) < 0 ||
            (error = culprit_detect_run_noise(&base.between_var, &base.between_df, runs, e[i].run,
                                              e[i].test, opts->noise_window)) < 0 ||
            (error = culprit_detect_count_spread(&base.count_spread, runs, e[i].run, e[i].test,
                                                 opts->noise_window)) < 0)
            goto cleanup;
        error = judge_young(&out->verdicts[i], &spread, runs, e[i].run, e[i].test, &base, opts);
        culprit_detect_baseline_dispose(&base);
        if (error < 0)
            goto cleanup;
        out->now[i] = e[i].test;
        out->now_runs[i] = e[i].run;
        out->n = i + 1;
    }
    if ((error = culprit_detect_adjust(out->verdicts, out->n, &opts->detect)) < 0)
        goto cleanup;
    out->detectors = opts->detectors ? opts->detectors : CULPRIT_DETECTOR_TIME;
    if (opts->detectors & (CULPRIT_DETECTOR_CLUSTERS | CULPRIT_DETECTOR_RULES))
        error = culprit_detect__judge_counters(out, runs, baseline_commits, nbaseline, opts);
cleanup:
    for (size_t i = 0; i < n; i++)
        free(e[i].key);
    free(e);
    free((void *)dirty_commits);
    culprit_detect__index_dispose(&index);
    if (error < 0)
        culprit_detect_check_result_dispose(out);
    return error;
}

/* One test of culprit_detect_compare_runs(): its result in B and in A (NULL: A has no
 * measured one), judged on any thread (culprit_parallel_for); an error is kept with
 * its message for the calling thread. */
typedef struct {
    const culprit_test_result *now, *before;
    int error;
    culprit_error_state *why;
} compared;

typedef struct {
    culprit_check_result *out;
    compared *tests;
    const culprit_run *a, *b;
    const culprit_check_options *opts;
} compare_job;

static void judge_compared(size_t i, void *arg)
{
    compare_job *job = arg;
    compared *c = &job->tests[i];
    const culprit_test_result *results[1] = {c->before};
    const culprit_run *runs_a[1] = {job->a};
    culprit_baseline base = {.results = results, .runs = runs_a, .label = job->a->commit};

    base.n = c->before != NULL;
    /* Never a dirty tree's run as the baseline unless asked (docs/detection.md). */
    if (base.n && job->a->dirty && !allow_of(&job->opts->detect)) {
        base.n = 0;
        base.incomparable = (char *)CULPRIT_DETECT__DIRTY_BASELINE;
    }
    c->error =
        culprit_detect_judge(&job->out->verdicts[i], job->b, c->now, &base, &job->opts->detect);
    if (c->error < 0 && (c->why = malloc(sizeof(*c->why))))
        culprit_error_save(c->why);
}

/* The tests of B to judge (those --test names) with their results in A, into `tests`. */
static size_t compared_tests(compared *tests, const culprit_run *a, const culprit_run *b,
                             const char *test)
{
    size_t n = 0;

    for (size_t i = 0; i < b->ntests; i++) {
        const culprit_test_result *now = &b->tests[i], *before;
        culprit_buf key = CULPRIT_BUF_INIT;
        int wanted = 1;
        if (test) { /* the key only to match --test against */
            culprit_detect__put_key(&key, b->suite ? b->suite : "", now->name);
            wanted = matches(culprit_buf_cstr(&key), now->name, test);
            culprit_buf_dispose(&key);
        }
        if (!wanted)
            continue;
        before = culprit_history_run_find_test(a, now->name);
        tests[n++] = (compared){
            now, before && culprit_history_test_result_measured(before) ? before : NULL, 0, NULL};
    }
    return n;
}

int culprit_detect_compare_runs(culprit_check_result *out, const culprit_run *a,
                                const culprit_run *b, const culprit_check_options *opts)
{
    culprit_check_options defaults = CULPRIT_CHECK_OPTIONS_INIT;
    compare_job job = {out, NULL, a, b, NULL};
    int error;
    size_t n = 0;

    memset(out, 0, sizeof(*out));
    job.opts = opts = opts ? opts : &defaults;
    if ((error = options_valid(opts)) < 0)
        return error;
    if ((error = result_alloc(out, b->ntests)) < 0)
        return error;
    if (!(job.tests = calloc(b->ntests ? b->ntests : 1, sizeof(*job.tests)))) {
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    /* Matched here, on this thread (a run's index of its tests is built on its first
     * search), then judged on several: the tests do not depend on each other. */
    n = compared_tests(job.tests, a, b, opts->test);
    if ((error = culprit_parallel_for(n, judge_compared, &job)) < 0)
        goto cleanup;
    for (size_t i = 0; i < n; i++) {
        out->now[i] = job.tests[i].now;
        out->now_runs[i] = b;
    }
    for (size_t i = 0; i < n && error == 0; i++)
        if (job.tests[i].error < 0)
            error =
                job.tests[i].why ? culprit_error_restore(job.tests[i].why) : CULPRIT_ERROR_NOMEM();
    for (size_t i = 0; i < n; i++) /* the judged ones, for the result's disposal */
        if (job.tests[i].error == 0 && error < 0)
            culprit_detect_verdict_dispose(&out->verdicts[i]);
    if (error < 0)
        goto cleanup;
    out->n = n;
    if (n == 0 && opts->test) {
        error = culprit_error_set(CULPRIT_ENOTFOUND, "no test '%s' in %s", opts->test,
                                  b->path ? b->path : "the run");
        goto cleanup;
    }
    error = culprit_detect_adjust(out->verdicts, out->n, &opts->detect);
cleanup:
    if (error < 0)
        culprit_detect_check_result_dispose(out);
    for (size_t i = 0; job.tests && i < n; i++)
        free(job.tests[i].why);
    free(job.tests);
    return error;
}

size_t culprit_detect_check_history_need(const culprit_check_options *opts)
{
    culprit_check_options defaults = CULPRIT_CHECK_OPTIONS_INIT;
    size_t need;

    if (!opts)
        opts = &defaults;
    need = opts->noise_window + opts->pool;
    if ((opts->detectors & CULPRIT_DETECTOR_RULES) && opts->rules.history > need)
        need = opts->rules.history;
    return need ? need : 1;
}

int culprit_detect_check_wants_more(const culprit_check_result *result, size_t i,
                                    const culprit_history_runs *runs,
                                    const culprit_check_options *opts)
{
    const culprit_run *now_run = result->now_runs[i];
    const culprit_test_result *now = result->now[i];
    size_t need = culprit_detect_check_history_need(opts), found = 0;

    if (result->verdicts[i].kind == CULPRIT_VERDICT_NO_BASELINE ||
        result->verdicts[i].kind == CULPRIT_VERDICT_MIXED)
        return 1;
    for (size_t r = 0; r < runs->nruns && found < need; r++) {
        const culprit_run *run = runs->runs[r];
        const culprit_test_result *t;
        if (run != now_run && run->suite && now_run->suite &&
            strcmp(run->suite, now_run->suite) == 0 &&
            (t = culprit_history_run_find_test(run, now->name)) &&
            culprit_history_test_result_measured(t) &&
            culprit_detect_comparable(NULL, now_run, now, run, t, 0) == 1)
            found++;
    }
    return found < need;
}

void culprit_detect_check_result_dispose(culprit_check_result *result)
{
    if (!result)
        return;
    for (size_t i = 0; i < result->n; i++) {
        culprit_detect_verdict_dispose(&result->verdicts[i]);
        if (result->clusters)
            culprit_detect_clusters_verdict_dispose(&result->clusters[i]);
        if (result->rules)
            culprit_detect_rules_verdict_dispose(&result->rules[i]);
    }
    free(result->clusters);
    free(result->rules);
    free(result->verdicts);
    free((void *)result->now);
    free((void *)result->now_runs);
    memset(result, 0, sizeof(*result));
}

int culprit_detect_check_counters_flagged(const culprit_check_result *result, size_t i)
{
    return (result->clusters && result->clusters[i].flagged) ||
           (result->rules && result->rules[i].flagged);
}

int culprit_detect_check_flagged(const culprit_check_result *result, size_t i)
{
    culprit_verdict_kind kind = result->verdicts[i].kind;
    int time = !result->detectors || (result->detectors & CULPRIT_DETECTOR_TIME);

    return (time && (kind == CULPRIT_VERDICT_MAJOR || kind == CULPRIT_VERDICT_MINOR)) ||
           culprit_detect_check_counters_flagged(result, i);
}

int culprit_detect_verdict_confirmed(const culprit_verdict *v)
{
    if (v->kind == CULPRIT_VERDICT_IMPROVEMENT) /* the young-history rule, mirrored */
        return v->evidence != CULPRIT_EVIDENCE_UNCONFIRMED;
    if (v->kind != CULPRIT_VERDICT_MINOR)
        return 1;
    return v->evidence != CULPRIT_EVIDENCE_UNCONFIRMED &&
           !(v->evidence == CULPRIT_EVIDENCE_PAIRED && v->paired.slower != 1);
}

culprit_verdict_kind culprit_detect_check_counts_as(const culprit_check_result *result, size_t i)
{
    const culprit_verdict *v = &result->verdicts[i];
    int time = !result->detectors || (result->detectors & CULPRIT_DETECTOR_TIME);
    culprit_verdict_kind k = time ? v->kind : CULPRIT_VERDICT_UNCHANGED;

    if (!culprit_detect_check_flagged(result, i)) /* the one meaning of flagged */
        return CULPRIT_VERDICT_UNCHANGED;
    if (k == CULPRIT_VERDICT_MAJOR)
        return k;
    if ((k == CULPRIT_VERDICT_MINOR && culprit_detect_verdict_confirmed(v)) ||
        culprit_detect_check_counters_flagged(result, i))
        return CULPRIT_VERDICT_MINOR;
    return CULPRIT_VERDICT_UNCHANGED;
}

culprit_verdict_kind culprit_detect_check_worst(const culprit_check_result *result)
{
    culprit_verdict_kind worst = CULPRIT_VERDICT_UNCHANGED;

    for (size_t i = 0; i < result->n; i++) {
        culprit_verdict_kind k = culprit_detect_check_counts_as(result, i);
        if (k == CULPRIT_VERDICT_MAJOR)
            return k;
        if (k == CULPRIT_VERDICT_MINOR)
            worst = k;
    }
    return worst;
}

int culprit_detect_verdict_compared(const culprit_verdict *v)
{
    switch (v->kind) {
    case CULPRIT_VERDICT_NO_BASELINE:
    case CULPRIT_VERDICT_MIXED:
    case CULPRIT_VERDICT_NOT_RUN:
        return 0;
    case CULPRIT_VERDICT_MAJOR:
        return v->base_n > 0 && !v->mismatch;
    default:
        return 1;
    }
}

static const char *const fail_on_names[] = {"major", "minor", "none", "uncompared", NULL};

const char *const *culprit_detect_fail_on_names(void)
{
    return fail_on_names;
}

int culprit_detect_fail_on_parse(const char *name, culprit_fail_on *out)
{
    for (int i = 0; name && fail_on_names[i]; i++)
        if (strcmp(name, fail_on_names[i]) == 0) {
            *out = (culprit_fail_on)i;
            return 0;
        }
    return -1;
}

int culprit_detect_check_test_fails(const culprit_check_result *result, size_t i,
                                    culprit_fail_on fail_on)
{
    culprit_verdict_kind k = culprit_detect_check_counts_as(result, i);

    if (fail_on == CULPRIT_FAIL_ON_NONE)
        return 0;
    return k == CULPRIT_VERDICT_MAJOR ||
           (k == CULPRIT_VERDICT_MINOR &&
            (fail_on == CULPRIT_FAIL_ON_MINOR || fail_on == CULPRIT_FAIL_ON_UNCOMPARED));
}

size_t culprit_detect_check_compared(const culprit_check_result *result)
{
    size_t n = 0;

    for (size_t i = 0; i < result->n; i++)
        n += culprit_detect_verdict_compared(&result->verdicts[i]);
    return n;
}

int culprit_detect_check_fails(const culprit_check_result *result, culprit_fail_on fail_on)
{
    for (size_t i = 0; i < result->n; i++)
        if (culprit_detect_check_test_fails(result, i, fail_on))
            return 1;
    return fail_on == CULPRIT_FAIL_ON_UNCOMPARED && result->n &&
           culprit_detect_check_compared(result) == 0;
}
