/*
 * The report as one JSON document (`culprit report --format json`): the data
 * behind the page, for tools that draw their own (dashboards, bots). The shape is
 * documented in docs/report.md and pinned by tests/report/golden/report.json.
 * Numbers that do not exist (no baseline, the slowest category's infinite limit)
 * are null; 12 significant digits, as every culprit document.
 */
#include "../calltree/calltree_json.h"
#include "render.h"

#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static json_t *num(double x)
{
    return culprit_calltree__json_double(x);
}

static json_t *str(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *series_json(const culprit_report *r, const culprit_report_series *s)
{
    json_t *t = json_object(), *points = json_array();
    const culprit_report_point *now = culprit_report_current(r, s);

    json_object_set_new(t, "test", json_string(s->test));
    json_object_set_new(t, "verdict",
                        now ? json_string(culprit_detect_verdict_name(now->verdict)) : json_null());
    json_object_set_new(t, "evidence",
                        now ? json_string(culprit_detect_evidence_name(now->evidence))
                            : json_null());
    json_object_set_new(t, "message", str(now ? now->message : NULL));
    json_object_set_new(t, "clusters", str(now ? now->clusters : NULL));
    json_object_set_new(t, "rules", str(now ? now->rules : NULL));
    json_object_set_new(t, "counters_flagged", json_boolean(now && now->counters_flagged));
    json_object_set_new(t, "dirty", json_boolean(now && now->dirty));
    json_object_set_new(t, "category", str(now ? now->category : NULL));
    for (size_t i = 0; i < s->npoints; i++) {
        const culprit_report_point *p = &s->points[i];
        const culprit_report_commit *c = &r->commits[p->commit];
        json_t *j = json_object();
        json_object_set_new(j, "commit", json_string(c->sha));
        json_object_set_new(j, "date", str(c->date));
        json_object_set_new(j, "subject", str(c->subject));
        json_object_set_new(j, "mean_ns", num(p->mean_ns));
        json_object_set_new(j, "ci_low_ns", num(p->low_ns));
        json_object_set_new(j, "ci_high_ns", num(p->high_ns));
        json_object_set_new(j, "n", json_integer((json_int_t)p->n));
        json_object_set_new(j, "verdict", json_string(culprit_detect_verdict_name(p->verdict)));
        json_object_set_new(j, "change", num(p->change));
        json_object_set_new(j, "category", str(p->category));
        json_object_set_new(j, "category_high_ns", num(p->category_high_ns));
        json_array_append_new(points, j);
    }
    json_object_set_new(t, "points", points);
    return t;
}

/* A step, or (verdict NULL, no means, no runs) a culprit: the two share a shape. */
static json_t *step_json(const char *commit, const char *subject, const char *verdict,
                         const double means[2], const double change[3], size_t runs)
{
    json_t *j = json_object();

    json_object_set_new(j, "commit", json_string(commit));
    json_object_set_new(j, "subject", str(subject));
    json_object_set_new(j, "verdict", str(verdict));
    json_object_set_new(j, "good_mean_ns", num(means[0]));
    json_object_set_new(j, "mean_ns", num(means[1]));
    json_object_set_new(j, "change", num(change[0]));
    json_object_set_new(j, "change_low", num(change[1]));
    json_object_set_new(j, "change_high", num(change[2]));
    json_object_set_new(j, "runs", json_integer((json_int_t)runs));
    return j;
}

static json_t *bisect_json(const culprit_bisect_result *b, const char *test)
{
    static const double none[2] = {NAN, NAN};
    json_t *j = json_object(), *steps = json_array(), *culprits = json_array();

    if (!b) {
        json_decref(j);
        json_decref(steps);
        json_decref(culprits);
        return json_null();
    }
    json_object_set_new(j, "outcome", str(culprit_bisect_outcome_name(b->outcome)));
    json_object_set_new(j, "test", str(test));
    json_object_set_new(j, "good", json_string(b->good));
    json_object_set_new(j, "bad", json_string(b->bad));
    json_object_set_new(j, "culprit", b->culprit[0] ? json_string(b->culprit) : json_null());
    json_object_set_new(j, "subject", str(b->subject));
    json_object_set_new(j, "author", str(b->author));
    json_object_set_new(j, "date", str(b->date));
    json_object_set_new(j, "change", num(b->change));
    json_object_set_new(j, "change_low", num(b->change_low));
    json_object_set_new(j, "change_high", num(b->change_high));
    json_object_set_new(j, "commits", json_integer((json_int_t)b->ncommits));
    json_object_set_new(j, "builds", json_integer((json_int_t)b->builds));
    json_object_set_new(j, "runs", json_integer((json_int_t)b->runs));
    json_object_set_new(j, "confirmed",
                        b->confirmed < 0 ? json_null() : json_boolean(b->confirmed));
    for (size_t i = 0; i < b->nsteps; i++) {
        const culprit_bisect_step *s = &b->steps[i];
        const double means[2] = {s->good_mean_ns, s->mean_ns},
                     change[3] = {s->change, s->change_low, s->change_high};
        json_array_append_new(steps,
                              step_json(s->sha, s->subject, culprit_bisect_verdict_name(s->verdict),
                                        means, change, s->runs));
    }
    for (size_t i = 0; i < b->nculprits; i++) {
        const culprit_bisect_culprit *c = &b->culprits[i];
        const double change[3] = {c->change, c->change_low, c->change_high};
        json_array_append_new(culprits, step_json(c->sha, c->subject, NULL, none, change, 0));
    }
    json_object_set_new(j, "steps", steps);
    json_object_set_new(j, "culprits", culprits);
    return j;
}

/* The call trees' one answer as the document gave it; null when it gave none. */
static json_t *answer_json(const culprit_calltree_view_answer *a)
{
    json_t *j;

    if (!a->given)
        return json_null();
    j = json_object();
    json_object_set_new(j, "kind", json_string(culprit_calltree_answer_kind_name(a->kind)));
    json_object_set_new(j, "function", str(a->function));
    json_object_set_new(j, "file", str(a->file));
    json_object_set_new(j, "line", a->line ? json_integer(a->line) : json_null());
    json_object_set_new(j, "share", num(a->share));
    json_object_set_new(j, "where", str(a->where));
    json_object_set_new(j, "changed", str(a->changed));
    json_object_set_new(j, "text", str(a->text));
    return j;
}

static json_t *calltree_json(const culprit_calltree_view *c)
{
    json_t *j, *nodes, *suspects;

    if (!c)
        return json_null();
    j = json_object();
    nodes = json_array();
    suspects = json_array();
    json_object_set_new(j, "base", str(c->base));
    json_object_set_new(j, "test", str(c->test));
    json_object_set_new(j, "commit", str(c->commit));
    json_object_set_new(j, "error", str(c->error));
    for (size_t i = 0; i < c->nsuspects; i++)
        json_array_append_new(suspects, json_string(c->suspects[i]));
    json_object_set_new(j, "suspects", suspects);
    for (size_t i = 0; i < c->nnodes; i++) {
        const culprit_calltree_view_node *n = &c->nodes[i];
        json_t *o = json_object(), *lines = json_array();
        json_object_set_new(o, "function", json_string(n->function));
        json_object_set_new(o, "file", str(n->file));
        json_object_set_new(o, "line_low", json_integer(n->line_low));
        json_object_set_new(o, "line_high", json_integer(n->line_high));
        json_object_set_new(
            o, "parent", n->parent == SIZE_MAX ? json_null() : json_integer((json_int_t)n->parent));
        json_object_set_new(o, "base_ns", num(n->base_ns));
        json_object_set_new(o, "test_ns", num(n->test_ns));
        json_object_set_new(o, "base_calls", num(n->base_calls));
        json_object_set_new(o, "test_calls", num(n->test_calls));
        json_object_set_new(o, "change", num(n->change));
        json_object_set_new(o, "status", str(culprit_calltree_view_status_name(n->status)));
        json_object_set_new(o, "suspect", json_boolean(n->suspect));
        json_object_set_new(o, "changed", json_boolean(n->changed));
        for (size_t k = 0; k < n->nchanged; k++)
            json_array_append_new(lines, json_pack("[II]", (json_int_t)n->changed_lines[k][0],
                                                   (json_int_t)n->changed_lines[k][1]));
        json_object_set_new(o, "changed_lines", lines);
        json_object_set_new(o, "diff", str(n->diff));
        json_array_append_new(nodes, o);
    }
    json_object_set_new(j, "nodes", nodes);
    json_object_set_new(j, "answer", answer_json(&c->answer));
    return j;
}

static json_t *overweight_json(const culprit_report *r)
{
    json_t *rows;

    if (!r->overweight)
        return json_null();
    rows = json_array();
    for (size_t i = 0; i < r->overweight->nrows; i++) {
        const culprit_calltree_overweight_entry *w = &r->overweight->rows[i];
        json_t *o = json_object();
        json_object_set_new(o, "symbol", json_string(w->symbol));
        json_object_set_new(o, "base_ns", num(w->base_ns));
        json_object_set_new(o, "test_ns", num(w->test_ns));
        json_object_set_new(o, "delta_ns", num(w->delta_ns));
        json_object_set_new(o, "expected_ns", num(w->expected_ns));
        json_object_set_new(o, "overweight_pct", num(w->overweight_pct));
        json_object_set_new(o, "responsibility_pct", num(w->responsibility_pct));
        json_array_append_new(rows, o);
    }
    return rows;
}

/* json_dump_callback()'s sink: the text goes straight into the caller's buffer. */
static int put_json(const char *text, size_t size, void *out)
{
    return culprit_buf_put(out, text, size) < 0 ? -1 : 0;
}

int culprit_report__render_json(culprit_buf *out, const culprit_report *r)
{
    static const culprit_verdict_kind kinds[] = {
        CULPRIT_VERDICT_MAJOR,     CULPRIT_VERDICT_MINOR,     CULPRIT_VERDICT_IMPROVEMENT,
        CULPRIT_VERDICT_UNDECIDED, CULPRIT_VERDICT_UNCHANGED, CULPRIT_VERDICT_NO_BASELINE,
        CULPRIT_VERDICT_MIXED,     CULPRIT_VERDICT_NOT_RUN};
    json_t *doc = json_object(), *counts = json_object(), *tests = json_array(),
           *categories = json_array();
    int error;

    json_object_set_new(doc, "culprit_json", json_integer(1));
    json_object_set_new(doc, "command", json_string("report"));
    json_object_set_new(doc, "commit", r->commit[0] ? json_string(r->commit) : json_null());
    json_object_set_new(doc, "commits", json_integer((json_int_t)r->ncommits));
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
        json_object_set_new(counts, culprit_detect_verdict_name(kinds[k]),
                            json_integer((json_int_t)culprit_report_count(r, kinds[k])));
    json_object_set_new(doc, "counts", counts);
    for (size_t i = 0; i < r->ncategories; i++)
        json_array_append_new(categories, json_pack("{s:s,s:o,s:o}", "name", r->categories[i].name,
                                                    "low_ns", num(r->categories[i].low_ns),
                                                    "high_ns", num(r->categories[i].high_ns)));
    json_object_set_new(doc, "categories", categories);
    for (size_t i = 0; i < r->nseries; i++)
        json_array_append_new(tests, series_json(r, &r->series[i]));
    json_object_set_new(doc, "tests", tests);
    json_object_set_new(doc, "bisect", bisect_json(r->bisect, r->bisect_test));
    json_object_set_new(doc, "calltree", calltree_json(r->calltree));
    json_object_set_new(doc, "overweight", overweight_json(r));
    /* Dumped into `out` as it is written: json_dumps() built the text in a string of
     * its own, doubled as it grew (13 MB at 1,000 x 1,000), which was then copied. */
    error = json_dump_callback(doc, put_json, out,
                               JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
    json_decref(doc);
    if (error < 0)
        return culprit_error_set(CULPRIT_ERROR, "out of memory building the report document");
    return culprit_buf_puts(out, "\n");
}
