/*
 * `culprit check --investigate`: from a red check to the commit and the function,
 * with the library's own pieces. The regressed tests of a check are grouped by the
 * range they regressed over (their baseline commit, the commit judged); each range
 * of more than one commit is bisected (session.c) and the culprit's call tree is
 * diffed against its parent's (calltree.c); a range of one commit goes straight
 * to the call trees. A wall-time budget bounds the whole: the real probe is
 * wrapped so that no build or run starts once it has run out, and what did not
 * fit is reported as not investigated rather than cut off without a word.
 *
 * A step of such a bisection is bad when slower by at least half the change the
 * check saw (never less than the options' threshold, never more than 100%): the
 * check has measured the size of the regression already, and a commit that makes
 * the test half as much slower is not the one being looked for, while a busy
 * moment of a shared machine (tens of percent) no longer sends the search down the
 * wrong half. The cap: one run per commit on a loaded machine can show a fivefold
 * slowdown as fortyfold, and a step asking for twentyfold would then find nothing.
 */
#include "bisect_internal.h"
#include "culprit/core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The largest step threshold taken from the check's change: twice as slow. */
#define STEP_THRESHOLD_MAX 1.0

int culprit_bisect_investigate_options_init(culprit_investigate_options *opts, unsigned int version)
{
    static const culprit_investigate_options defaults = CULPRIT_INVESTIGATE_OPTIONS_INIT;

    return culprit_options_init_from(opts, &defaults, sizeof(defaults), version,
                                     CULPRIT_INVESTIGATE_OPTIONS_VERSION, "investigate");
}

const char *culprit_bisect_investigation_status_name(culprit_investigation_status status)
{
    static const char *const names[] = {"found", "unresolved", "failed", "not-investigated"};

    return (unsigned)status < sizeof(names) / sizeof(names[0]) ? names[status] : NULL;
}

/* ------------------------------------------------------------ the budget --- */

/* The real probe with a deadline: a build or a run asked for after it fails. */
typedef struct {
    culprit_bisect__probe inner;
    double deadline; /* 0: none */
    double budget_s;
    int expired;
} budget_probe;

static int over_budget(budget_probe *b)
{
    if (b->deadline <= 0 || culprit_time_now_s() < b->deadline)
        return 0;
    b->expired = 1;
    return culprit_error_set(CULPRIT_ERROR, "the investigation budget (%.0f s) ran out",
                             b->budget_s);
}

static int budget_build(void *payload, culprit_vcs *repo, culprit_bisect__side side,
                        const char *sha, int *built)
{
    budget_probe *b = payload;
    int error;

    if ((error = over_budget(b)) < 0)
        return error;
    return b->inner.build(b->inner.payload, repo, side, sha, built);
}

static int budget_measure(void *payload, culprit_bisect__side side, const char *sha, double *value)
{
    budget_probe *b = payload;
    int error;

    if ((error = over_budget(b)) < 0)
        return error;
    return b->inner.measure(b->inner.payload, side, sha, value);
}

static int budget_history_pending(void *payload)
{
    budget_probe *b = payload;
    return b->inner.history_pending(b->inner.payload);
}

static void budget_reuse(void *payload, const char *sha, double *x, size_t *n, size_t cap)
{
    budget_probe *b = payload;
    b->inner.reuse(b->inner.payload, sha, x, n, cap);
}

static void budget_swap(void *payload)
{
    budget_probe *b = payload;
    b->inner.swap(b->inner.payload);
}

static const char *budget_dir(void *payload, culprit_bisect__side side)
{
    budget_probe *b = payload;
    return b->inner.dir(b->inner.payload, side);
}

static void budget_dispose(void *payload)
{
    budget_probe *b = payload;
    if (b->inner.dispose)
        b->inner.dispose(b->inner.payload);
}

/* Opens the real probe for `o` inside `b`, and the wrapper `out` around it. */
static int budget_open(culprit_bisect__probe *out, budget_probe *b, const culprit_bisect_options *o)
{
    int error;

    if ((error = culprit_bisect__probe_open(&b->inner, o)) < 0)
        return error;
    memset(out, 0, sizeof(*out));
    out->build = budget_build;
    out->measure = budget_measure;
    out->history_pending = b->inner.history_pending ? budget_history_pending : NULL;
    out->reuse = b->inner.reuse ? budget_reuse : NULL;
    out->swap = b->inner.swap ? budget_swap : NULL;
    out->dir = b->inner.dir ? budget_dir : NULL;
    out->dispose = budget_dispose;
    out->payload = b;
    return 0;
}

/* ------------------------------------------------------ one investigation --- */

/* Moves the call-tree analysis of `src` (a call-tree session) into `dst`. */
static void take_calltree(culprit_bisect_result *dst, culprit_bisect_result *src)
{
    memcpy(dst->parent, src->parent, 41);
    dst->parent_tree = src->parent_tree;
    dst->culprit_tree = src->culprit_tree;
    dst->calltree = src->calltree;
    dst->changes = src->changes;
    dst->calltree_error = src->calltree_error;
    src->parent_tree = src->culprit_tree = NULL;
    src->calltree_error = NULL;
    memset(&src->calltree, 0, sizeof(src->calltree));
    memset(&src->changes, 0, sizeof(src->changes));
}

/* Runs a bisection (calltree 0) or a call-tree session through a budget probe;
 * `*expired` says the budget stopped it. */
static int run_session(culprit_bisect_result *out, const culprit_bisect_options *o, int calltree,
                       double deadline, double budget_s, int *expired)
{
    budget_probe b = {.deadline = deadline, .budget_s = budget_s};
    culprit_bisect__probe probe;
    int error;

    *expired = 0;
    memset(out, 0, sizeof(*out));
    if ((error = budget_open(&probe, &b, o)) < 0)
        return error;
    error = calltree ? culprit_bisect__calltree_with_probe(out, o, &probe)
                     : culprit_bisect__session_with_probe(out, o, &probe);
    /* A build or run cut short by the budget fails as a timeout: the budget's too. */
    *expired = b.expired || (error < 0 && deadline > 0 && culprit_time_now_s() >= deadline);
    if (*expired && !b.expired)
        culprit_error_prefix("the investigation budget (%.0f s) ran out: ", budget_s);
    return error;
}

/* The diff's one answer (culprit_calltree_diff_answer()), copied into the investigation:
 * its function (changed by the culprit, or where the time went when no commit was
 * correlated) and the sentence every output prints. */
static int name_function(culprit_investigation *inv)
{
    const culprit_calltree_diff *d = &inv->result.calltree;
    const culprit_calltree_function *f = NULL;
    culprit_calltree_answer a;
    culprit_buf text = CULPRIT_BUF_INIT;
    int error;

    if (inv->result.outcome != CULPRIT_BISECT_RESULT_FOUND || d->npairs == 0)
        return 0;
    if ((error = culprit_calltree_diff_answer(&a, d)) < 0 ||
        (error = culprit_calltree_answer_text(&text, d, &a)) < 0)
        goto cleanup;
    if (a.pair != CULPRIT_CALLTREE_NONE)
        f = culprit_calltree_diff_function(d, a.pair);
    if (a.kind != CULPRIT_CALLTREE_ANSWER_NONE &&
        !(inv->answer = culprit_strdup(culprit_buf_cstr(&text))))
        error = CULPRIT_ERROR_NOMEM();
    if (error == 0 && f && f->name) {
        inv->line = f->line_low;
        if (!(inv->function = culprit_strdup(f->name)) ||
            (f->file && !(inv->file = culprit_strdup(f->file))))
            error = CULPRIT_ERROR_NOMEM();
    }
cleanup:
    culprit_buf_dispose(&text);
    return error;
}

/*
 * Investigates one range: the bisection (or not), then the call trees with the
 * instrumented build when it is another. A failure of the session is the
 * investigation's status, not an error; only running out of memory is.
 */
static int investigate(culprit_investigation *inv, const culprit_investigate_options *opts,
                       double deadline)
{
    culprit_bisect_options o = opts->bisect;
    double started = culprit_time_now_s(), left = deadline - started;
    int error = 0, expired = 0, bisect = inv->ncommits != 1;

    o.good = inv->good;
    o.bad = inv->bad;
    o.perf.test = inv->tests[0];
    o.measure.threshold = inv->threshold;
    o.all = 0;
    /* The call trees are recorded apart, with the options' own threshold: the top of
     * a perf test's tree (main, the harness) is slower by less than the test. */
    o.calltree = 0;
    if (deadline > 0 && left < o.measure.timeout_s)
        o.measure.timeout_s = left > 1 ? left : 1;
    if (deadline > 0 && left < culprit_bisect__build_timeout(&o))
        o.measure.build_timeout_s = left > 1 ? left : 1;
    if (deadline > 0 && left <= 0) {
        expired = 1;
        error = culprit_error_set(CULPRIT_ERROR,
                                  "the investigation budget (%.0f s) was spent "
                                  "before it could start",
                                  opts->budget_s);
    } else if (bisect) {
        inv->bisected = 1;
        culprit_bisect__phase(&o, "investigating %s: bisecting %zu commits (%.12s, %.12s]",
                              inv->tests[0], inv->ncommits, inv->good, inv->bad);
        error = run_session(&inv->result, &o, 0, deadline, opts->budget_s, &expired);
    }
    if (error == 0 && (!bisect || inv->result.outcome == CULPRIT_BISECT_RESULT_FOUND)) {
        culprit_bisect_result trees;
        char culprit[41];
        if (opts->calltree_build && !culprit_bisect__counted_trees(&o))
            o.measure.build = opts->calltree_build; /* counted trees need no instrumented build */
        o.measure.threshold = opts->bisect.measure.threshold;
        memcpy(culprit, bisect ? inv->result.culprit : inv->bad, 41);
        o.bad = culprit;
        if ((error = run_session(&trees, &o, 1, deadline, opts->budget_s, &expired)) == 0) {
            if (bisect) {
                take_calltree(&inv->result, &trees);
                culprit_bisect_result_dispose(&trees);
            } else {
                inv->result = trees;
                inv->result.change = inv->change;
            }
        }
    }
    inv->seconds = culprit_time_now_s() - started;
    if (error < 0) {
        inv->status =
            expired ? CULPRIT_INVESTIGATION_NOT_INVESTIGATED : CULPRIT_INVESTIGATION_FAILED;
        if (!(inv->error = culprit_strdup(culprit_error_last())))
            return CULPRIT_ERROR_NOMEM();
        culprit_error_clear();
        return 0;
    }
    inv->status = inv->result.outcome == CULPRIT_BISECT_RESULT_FOUND
                      ? CULPRIT_INVESTIGATION_FOUND
                      : CULPRIT_INVESTIGATION_UNRESOLVED;
    return name_function(inv);
}

/* ------------------------------------------------------ choosing the ranges --- */

typedef struct {
    size_t test; /* index into the check */
    int major;
    double change; /* NAN unknown */
} pick;

/* Majors first, then the larger change, then the check's (name) order. */
static int pick_order(const void *a, const void *b)
{
    const pick *x = a, *y = b;
    double cx = isnan(x->change) ? -INFINITY : x->change;
    double cy = isnan(y->change) ? -INFINITY : y->change;

    if (x->major != y->major)
        return y->major - x->major;
    if (cx != cy)
        return cx < cy ? 1 : -1;
    return x->test < y->test ? -1 : x->test > y->test;
}

/* The regressions of the check worth a bisection, in the order they are investigated. */
static int regressions(pick **out, size_t *n, const culprit_check_result *check)
{
    *n = 0;
    if (!(*out = calloc(check->n ? check->n : 1, sizeof(**out))))
        return CULPRIT_ERROR_NOMEM();
    for (size_t i = 0; i < check->n; i++) {
        culprit_verdict_kind counts = culprit_detect_check_counts_as(check, i);
        culprit_verdict_kind time = check->verdicts[i].kind;
        /* A counter detector's flag alone has no time regression to bisect. */
        if ((counts != CULPRIT_VERDICT_MAJOR && counts != CULPRIT_VERDICT_MINOR) ||
            (time != CULPRIT_VERDICT_MAJOR && time != CULPRIT_VERDICT_MINOR))
            continue;
        (*out)[(*n)++] = (pick){i, time == CULPRIT_VERDICT_MAJOR, check->verdicts[i].change};
    }
    qsort(*out, *n, sizeof(**out), pick_order);
    return 0;
}

/* Adds the test of `p` to the investigation of its range, opening one when new. */
static int add_to_range(culprit_investigation **invs, size_t *n, const pick *p,
                        const culprit_check_result *check, const culprit_history_runs *runs,
                        const char *const *bases, size_t nbases,
                        const culprit_investigate_options *opts)
{
    const culprit_run *run = check->now_runs[p->test];
    culprit_investigation *inv = NULL;
    culprit_baseline b;
    char good[41];
    char **tests;

    if (culprit_detect_baseline(&b, runs, run->suite, check->now[p->test]->name, bases, nbases, 1) <
            0 ||
        b.n == 0) {
        culprit_detect_baseline_dispose(&b);
        culprit_error_clear();
        return 0; /* no baseline: nothing to bisect from */
    }
    snprintf(good, sizeof(good), "%s", b.runs[0]->commit);
    culprit_detect_baseline_dispose(&b);
    for (size_t k = 0; k < *n && !inv; k++)
        if (strcmp((*invs)[k].good, good) == 0 && strcmp((*invs)[k].bad, run->commit) == 0)
            inv = &(*invs)[k];
    if (!inv) {
        inv = &(*invs)[(*n)++];
        memset(inv, 0, sizeof(*inv));
        snprintf(inv->good, sizeof(inv->good), "%s", good);
        snprintf(inv->bad, sizeof(inv->bad), "%s", run->commit);
        inv->change = p->change;
        inv->threshold = opts->bisect.measure.threshold;
        if (p->change / 2 > inv->threshold)
            inv->threshold =
                p->change / 2 < STEP_THRESHOLD_MAX ? p->change / 2 : STEP_THRESHOLD_MAX;
    }
    if (!(tests = realloc(inv->tests, (inv->ntests + 1) * sizeof(*tests))))
        return CULPRIT_ERROR_NOMEM();
    inv->tests = tests;
    if (!(tests[inv->ntests] = culprit_strdup(check->verdicts[p->test].test)))
        return CULPRIT_ERROR_NOMEM();
    inv->ntests++;
    return 0;
}

/* The number of commits in (good, bad]; 0 when the range cannot be walked (the
 * session says why). */
static size_t range_size(culprit_vcs *repo, const char *good, const char *bad)
{
    const char *goods[1] = {good};
    culprit_vcs_dag dag;
    size_t n = 0;

    memset(&dag, 0, sizeof(dag));
    if (repo && culprit_vcs_dag_between(&dag, repo, goods, 1, bad) == 0)
        n = dag.n;
    culprit_vcs_dag_dispose(&dag);
    culprit_error_clear();
    return n;
}

int culprit_bisect_investigate(culprit_investigation **out, size_t *nout,
                               const culprit_check_result *check, const culprit_history_runs *runs,
                               const char *const *bases, size_t nbases,
                               const culprit_investigate_options *opts)
{
    culprit_investigation *invs = NULL;
    culprit_vcs *repo = NULL;
    pick *picks = NULL;
    size_t npicks = 0, n = 0;
    double deadline = 0;
    int error;

    *out = NULL;
    *nout = 0;
    if (!opts || opts->version != CULPRIT_INVESTIGATE_OPTIONS_VERSION || !(opts->budget_s >= 0))
        return culprit_error_set(CULPRIT_EINVALID,
                                 "investigate options: version %u is not %d, "
                                 "or the budget is negative",
                                 opts ? opts->version : 0, CULPRIT_INVESTIGATE_OPTIONS_VERSION);
    /* Each session bisects a perf test: the template, checked once with what it lacks. */
    if ((error = culprit_bisect__check_template(&opts->bisect, "test")) < 0)
        return error;
    if (opts->budget_s > 0)
        deadline = culprit_time_now_s() + opts->budget_s;
    if ((error = regressions(&picks, &npicks, check)) < 0)
        goto cleanup;
    if (npicks == 0)
        goto cleanup;
    if (!(invs = calloc(npicks, sizeof(*invs)))) {
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    for (size_t k = 0; k < npicks; k++)
        if ((error = add_to_range(&invs, &n, &picks[k], check, runs, bases, nbases, opts)) < 0)
            goto cleanup;
    if (culprit_vcs_open(&repo, opts->bisect.measure.repository ? opts->bisect.measure.repository
                                                                : ".") < 0)
        culprit_error_clear(); /* each session says why it cannot open it */
    for (size_t k = 0; k < n; k++) {
        invs[k].ncommits = range_size(repo, invs[k].good, invs[k].bad);
        if ((error = investigate(&invs[k], opts, deadline)) < 0)
            goto cleanup;
    }
cleanup:
    free(picks);
    culprit_vcs_free(repo);
    if (error < 0) {
        culprit_error_state saved;
        culprit_error_save(&saved);
        culprit_bisect_investigations_free(invs, n);
        culprit_error_restore(&saved);
        return error;
    }
    *out = invs;
    *nout = n;
    return 0;
}

void culprit_bisect_investigations_free(culprit_investigation *investigations, size_t n)
{
    for (size_t k = 0; investigations && k < n; k++) {
        culprit_investigation *inv = &investigations[k];
        for (size_t t = 0; t < inv->ntests; t++)
            free(inv->tests[t]);
        free(inv->tests);
        culprit_bisect_result_dispose(&inv->result);
        free(inv->function);
        free(inv->file);
        free(inv->answer);
        free(inv->error);
    }
    free(investigations);
}

const culprit_investigation *
culprit_bisect_investigation_of(const culprit_investigation *investigations, size_t n,
                                const char *test)
{
    for (size_t k = 0; investigations && k < n; k++)
        for (size_t t = 0; t < investigations[k].ntests; t++)
            if (strcmp(investigations[k].tests[t], test) == 0)
                return &investigations[k];
    return NULL;
}
