/*
 * The report model: what the page, the Markdown summary and the JSON document are
 * rendered from. The series come from the history store, judged commit by commit
 * with culprit_detect_check() exactly as `culprit check --commit C` judges C (so
 * the plot and the command never disagree); the bisection, call-tree and
 * overweight parts are the typed results of those modules, read from the
 * commands' JSON documents (load.c). The model is a leaf: it calls no renderer
 * (render.c dispatches to them).
 */
#include "report_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int culprit_report_new(culprit_report **out)
{
    culprit_report *r = calloc(1, sizeof(*r));

    *out = r;
    return r ? 0 : CULPRIT_ERROR_NOMEM();
}

static void series_dispose(culprit_report_series *s)
{
    for (size_t i = 0; i < s->npoints; i++) {
        free(s->points[i].category);
        free(s->points[i].message);
        free(s->points[i].clusters);
        free(s->points[i].rules);
        free(s->points[i].run_id);
        free(s->points[i].base_run_id);
    }
    free(s->points);
    free(s->test);
}

void culprit_report_free(culprit_report *report)
{
    if (!report)
        return;
    free(report->title);
    for (size_t i = 0; i < report->ncommits; i++) {
        free(report->commits[i].subject);
        free(report->commits[i].date);
    }
    free(report->commits);
    for (size_t i = 0; i < report->nseries; i++)
        series_dispose(&report->series[i]);
    free(report->series);
    for (size_t i = 0; i < report->ncategories; i++)
        free(report->categories[i].name);
    free(report->categories);
    culprit_report__bisect_free(report->bisect);
    free(report->bisect_test);
    culprit_calltree_view_free(report->calltree);
    culprit_calltree_overweight_table_free(report->overweight);
    free(report);
}

void culprit_report__bisect_free(culprit_bisect_result *bisect)
{
    if (!bisect)
        return;
    culprit_bisect_result_dispose(bisect);
    free(bisect);
}

int culprit_report_set_title(culprit_report *report, const char *title)
{
    return culprit_str_set(&report->title, title);
}

int culprit_report_set_categories(culprit_report *report, const culprit_categories *categories)
{
    culprit_report_category *items = calloc(categories->n ? categories->n : 1, sizeof(*items));

    if (!items)
        return CULPRIT_ERROR_NOMEM();
    for (size_t i = 0; i < categories->n; i++) {
        items[i].low_ns = categories->items[i].low_ns;
        items[i].high_ns = categories->items[i].high_ns;
        if (!(items[i].name = culprit_strdup(categories->items[i].name))) {
            while (i-- > 0)
                free(items[i].name);
            free(items);
            return CULPRIT_ERROR;
        }
    }
    for (size_t i = 0; i < report->ncategories; i++)
        free(report->categories[i].name);
    free(report->categories);
    report->categories = items;
    report->ncategories = categories->n;
    return 0;
}

/* The series of `test`, added (empty) when absent; the set stays sorted by name,
 * found by a binary search (a check's verdicts come sorted: each new one goes last). */
static int series_for(culprit_report_series **out, culprit_report *r, const char *test)
{
    size_t at = 0, hi = r->nseries;
    culprit_report_series *grown;
    int error;

    if (hi && strcmp(r->series[hi - 1].test, test) < 0)
        at = hi;
    while (at < hi) {
        size_t mid = at + (hi - at) / 2;
        if (strcmp(r->series[mid].test, test) < 0)
            at = mid + 1;
        else
            hi = mid;
    }
    if (at < r->nseries && strcmp(r->series[at].test, test) == 0) {
        *out = &r->series[at];
        return 0;
    }
    if ((error = culprit_array_grow(&r->series, &r->aseries, r->nseries, sizeof(*r->series), 16)) <
        0)
        return error;
    grown = r->series;
    memmove(&grown[at + 1], &grown[at], (r->nseries - at) * sizeof(*grown));
    memset(&grown[at], 0, sizeof(*grown));
    r->nseries++;
    if (!(grown[at].test = culprit_strdup(test)))
        return CULPRIT_ERROR;
    *out = &grown[at];
    return 0;
}

/* The counter detectors' lines of verdict i, as `culprit check` prints them. */
static int counter_lines(culprit_report_point *p, const culprit_check_result *result, size_t i)
{
    if (result->clusters) {
        const char *m = result->clusters[i].message;
        if (!(p->clusters = culprit_strdup(m ? m : "-")))
            return CULPRIT_ERROR;
        p->counters_flagged |= result->clusters[i].flagged;
    }
    if (result->rules) {
        const char *m = result->rules[i].message;
        if (!(p->rules = culprit_strdup(m ? m : "-")))
            return CULPRIT_ERROR;
        p->counters_flagged |= result->rules[i].flagged;
    }
    return 0;
}

static int add_point(culprit_report *r, culprit_check_result *result, size_t i, size_t commit)
{
    culprit_verdict *v = &result->verdicts[i];
    culprit_report_series *s = NULL;
    culprit_report_point *p;
    int error;

    if ((error = series_for(&s, r, v->test)) < 0)
        return error;
    /* Room for a point at each commit of the window at once. */
    if ((error = culprit_array_grow(&s->points, &s->apoints, s->npoints, sizeof(*s->points),
                                    r->ncommits)) < 0)
        return error;
    p = &s->points[s->npoints];
    memset(p, 0, sizeof(*p));
    p->commit = commit;
    p->verdict = v->kind;
    p->evidence = v->evidence;
    p->dirty = v->dirty;
    p->unconfirmed = v->kind == CULPRIT_VERDICT_MINOR && !culprit_detect_verdict_confirmed(v);
    p->mean_ns = v->now_mean;
    p->low_ns = v->now_low;
    p->high_ns = v->now_high;
    p->n = v->now_n;
    p->change = v->change;
    p->change_low = v->change_low;
    p->change_high = v->change_high;
    p->category_high_ns = v->category_high_ns;
    p->base_mean_ns = v->base_mean;
    p->category = v->category; /* moved, not copied */
    p->message = v->message;
    v->category = v->message = NULL;
    if ((result->now_runs[i]->id && !(p->run_id = culprit_strdup(result->now_runs[i]->id))) ||
        (v->nbase_runs && v->base_runs[0].id &&
         !(p->base_run_id = culprit_strdup(v->base_runs[0].id))) ||
        counter_lines(p, result, i) < 0) {
        free(p->category);
        free(p->message);
        free(p->clusters);
        free(p->run_id);
        free(p->base_run_id);
        return CULPRIT_ERROR;
    }
    s->npoints++;
    return 0;
}

static int copy_commits(culprit_report *r, const culprit_report_commit *commits, size_t n)
{
    if (!(r->commits = calloc(n ? n : 1, sizeof(*r->commits))))
        return CULPRIT_ERROR_NOMEM();
    r->ncommits = n;
    /* Stored oldest first: the order of the plot's x axis. */
    for (size_t i = 0; i < n; i++) {
        const culprit_report_commit *c = &commits[n - 1 - i];
        memcpy(r->commits[i].sha, c->sha, sizeof(c->sha));
        if ((c->subject && !(r->commits[i].subject = culprit_strdup(c->subject))) ||
            (c->date && !(r->commits[i].date = culprit_strdup(c->date))))
            return CULPRIT_ERROR;
    }
    if (n)
        memcpy(r->commit, commits[0].sha, sizeof(r->commit));
    return 0;
}

int culprit_report__set_window(culprit_report *report, const culprit_report_commit *commits,
                               size_t ncommits, size_t nchain)
{
    if (report->ncommits)
        return culprit_error_set(CULPRIT_EINVALID, "the report already holds a history window");
    if (ncommits > nchain)
        return culprit_error_set(CULPRIT_EINVALID, "report: window longer than the chain");
    return copy_commits(report, commits, ncommits);
}

int culprit_report__add_points(culprit_report *report, culprit_check_result *result, size_t k)
{
    int error = 0;

    for (size_t i = 0; i < result->n && error == 0; i++)
        error = add_point(report, result, i, report->ncommits - 1 - k);
    return error;
}

int culprit_report_add_history(culprit_report *report, const culprit_history_runs *runs,
                               const culprit_report_commit *commits, size_t ncommits,
                               const char *const *chain, size_t nchain,
                               const culprit_check_options *opts)
{
    int error;

    if ((error = culprit_report__set_window(report, commits, ncommits, nchain)) < 0)
        return error;
    /* Oldest first, so each series' points are in plotting order. */
    for (size_t k = ncommits; k-- > 0;) {
        culprit_check_result result;
        error = culprit_detect_check(&result, runs, chain[k], chain + k + 1, nchain - k - 1, opts);
        if (error == CULPRIT_ENOTFOUND) { /* no data at this commit */
            culprit_error_clear();
            continue;
        }
        if (error < 0)
            return error;
        error = culprit_report__add_points(report, &result, k);
        culprit_detect_check_result_dispose(&result);
        if (error < 0)
            return error;
    }
    return 0;
}

const culprit_report_point *culprit_report_current(const culprit_report *report,
                                                   const culprit_report_series *series)
{
    if (!report->ncommits || !series->npoints)
        return NULL;
    const culprit_report_point *last = &series->points[series->npoints - 1];
    return last->commit == report->ncommits - 1 ? last : NULL;
}

int culprit_report_bisect_is_of(const culprit_report *report, const culprit_report_series *series)
{
    const char *test = report->bisect ? report->bisect_test : NULL;
    size_t lt, ls;

    if (!test)
        return 0;
    lt = strlen(test);
    ls = strlen(series->test);
    /* "suite.test", or the bare test name bisect also accepts. */
    return strcmp(test, series->test) == 0 || (ls > lt && series->test[ls - lt - 1] == '.' &&
                                               strcmp(series->test + ls - lt, test) == 0);
}

size_t culprit_report__count_unconfirmed(const culprit_report *report)
{
    size_t n = 0;

    for (size_t i = 0; i < report->nseries; i++) {
        const culprit_report_point *p = culprit_report_current(report, &report->series[i]);
        n += p && p->verdict == CULPRIT_VERDICT_MINOR && p->unconfirmed;
    }
    return n;
}

size_t culprit_report_count(const culprit_report *report, culprit_verdict_kind kind)
{
    size_t n = 0;

    for (size_t i = 0; i < report->nseries; i++) {
        const culprit_report_point *p = culprit_report_current(report, &report->series[i]);
        n += p && p->verdict == kind;
    }
    return n;
}

/* Lines around a changed range shown for context. */
#define SOURCE_CONTEXT 1

int culprit_report_set_source(culprit_report *report, size_t node, const char *source, size_t len)
{
    culprit_calltree_view_node *n;
    culprit_buf excerpt = CULPRIT_BUF_INIT;
    const char **starts = NULL;
    size_t nlines = 0;
    int error = 0;

    if (!report->calltree || node >= report->calltree->nnodes)
        return culprit_error_set(CULPRIT_EINVALID, "report: no call-tree node %zu", node);
    n = &report->calltree->nodes[node];
    /* Where each line starts (1-based line k at starts[k - 1]). */
    if (!(starts = malloc((len + 1) * sizeof(*starts))))
        return CULPRIT_ERROR_NOMEM();
    for (size_t i = 0; i < len; i++)
        if (i == 0 || source[i - 1] == '\n')
            starts[nlines++] = source + i;
    for (size_t k = 0; k < n->nchanged && error == 0; k++) {
        size_t lo = n->changed_lines[k][0], hi = n->changed_lines[k][1];
        size_t from = lo > SOURCE_CONTEXT ? lo - SOURCE_CONTEXT : 1, to = hi + SOURCE_CONTEXT;
        if (lo == 0 || lo > nlines)
            continue;
        if (to > nlines)
            to = nlines;
        if (excerpt.size)
            error = culprit_buf_puts(&excerpt, "   ...\n");
        for (size_t line = from; line <= to && error == 0; line++) {
            const char *start = starts[line - 1],
                       *end = memchr(start, '\n', (size_t)(source + len - start));
            size_t width = end ? (size_t)(end - start) : (size_t)(source + len - start);
            error =
                culprit_buf_printf(&excerpt, "%c%5zu  %.*s\n", line >= lo && line <= hi ? '+' : ' ',
                                   line, (int)width, start);
        }
    }
    if (error == 0 && excerpt.size) {
        free(n->diff);
        n->diff = culprit_buf_detach(&excerpt);
    }
    culprit_buf_dispose(&excerpt);
    free(starts);
    return error;
}
