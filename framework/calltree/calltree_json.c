/*
 * The writers of the call-tree documents: `culprit calltree diff --json` and
 * `culprit overweight --json` (docs/cli.md). The library owns the format, so the
 * tool only prints what these return, and the reader (culprit report) and the
 * writer live on the same side of the line. Built with jansson; numbers that are
 * not finite are written as null.
 */
#include "calltree_json.h"

#include <math.h>
#include <stdlib.h>

/* The format number every culprit JSON document carries (docs/cli.md). */
#define JSON_FORMAT 1

json_t *culprit_calltree__json_double(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

json_t *culprit_calltree__json_text(const char *s)
{
    culprit_buf scratch = CULPRIT_BUF_INIT;
    const char *safe = s ? culprit_text_utf8(s, &scratch, 0) : NULL;
    json_t *j = safe ? json_string(safe) : json_null();

    culprit_buf_dispose(&scratch);
    return j;
}

static json_t *string(const char *s)
{
    return culprit_calltree__json_text(s);
}

int culprit_calltree__json_put(culprit_buf *out, json_t *doc)
{
    char *text;
    int error;

    if (!doc)
        return culprit_error_set(CULPRIT_ERROR, "out of memory building the JSON document");
    /* 12 significant digits: far beyond the precision of any timing, and the same
     * text on every run of the same data (stable output for scripts and diffs). */
    text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
    json_decref(doc);
    if (!text)
        return culprit_error_set(CULPRIT_ERROR, "out of memory building the JSON document");
    if ((error = culprit_buf_puts(out, text)) == 0)
        error = culprit_buf_puts(out, "\n");
    free(text);
    return error;
}

/* ----------------------------------------------------------------------- diff --- */

static void put_path(culprit_buf *b, const culprit_calltree_diff *d,
                     const culprit_calltree_suspect *s)
{
    for (size_t k = 0; k < s->npath; k++)
        culprit_buf_printf(b, "%s%s", k ? " \u2192 " : "",
                           culprit_calltree_diff_function(d, s->path[k])->name);
}

static json_t *lines_json(const culprit_calltree_mark *m)
{
    json_t *a = json_array();

    for (size_t i = 0; m && i < m->nlines; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "start", json_integer((json_int_t)m->lines[i].start));
        json_object_set_new(o, "lines", json_integer((json_int_t)m->lines[i].lines));
        json_array_append_new(a, o);
    }
    return a;
}

/* The names of a pair's callees of one kind. */
static json_t *callees_json(const culprit_calltree_diff *d, size_t k, culprit_calltree_callees w)
{
    size_t n = culprit_calltree_diff_callees(d, k, w, NULL, 0);
    const char **names = n ? malloc(n * sizeof(*names)) : NULL;
    json_t *a = json_array();

    if (names)
        culprit_calltree_diff_callees(d, k, w, names, n);
    for (size_t i = 0; names && i < n; i++)
        json_array_append_new(a, string(names[i]));
    free(names);
    return a;
}

static json_t *node_json(const culprit_calltree_diff *d, size_t k, const culprit_calltree_mark *m)
{
    const culprit_calltree_pair *p = &d->pairs[k];
    const culprit_calltree_function *f = culprit_calltree_diff_function(d, k);
    json_t *o = json_object();

    json_object_set_new(o, "function", string(f->name));
    json_object_set_new(o, "file", string(f->file));
    json_object_set_new(o, "line_low", json_integer(f->line_low));
    json_object_set_new(o, "line_high", json_integer(f->line_high));
    json_object_set_new(o, "verdict", json_string(culprit_calltree_verdict_name(p->verdict)));
    json_object_set_new(o, "tested", json_boolean(p->tested));
    json_object_set_new(o, "shape_changed", json_boolean(p->shape_changed));
    json_object_set_new(o, "children_added", json_integer((json_int_t)p->added));
    json_object_set_new(o, "children_removed", json_integer((json_int_t)p->removed));
    json_object_set_new(o, "calls_changed", json_integer((json_int_t)p->calls_changed));
    json_object_set_new(o, "base_calls", json_integer((json_int_t)p->base_calls));
    json_object_set_new(o, "test_calls", json_integer((json_int_t)p->test_calls));
    json_object_set_new(o, "base_mean_ns", culprit_calltree__json_double(p->base_mean));
    json_object_set_new(o, "test_mean_ns", culprit_calltree__json_double(p->test_mean));
    json_object_set_new(o, "diff_ns", culprit_calltree__json_double(p->diff));
    json_object_set_new(o, "diff_low_ns", culprit_calltree__json_double(p->diff_low));
    json_object_set_new(o, "diff_high_ns", culprit_calltree__json_double(p->diff_high));
    json_object_set_new(o, "change", culprit_calltree__json_double(p->change));
    json_object_set_new(o, "change_low", culprit_calltree__json_double(p->change_low));
    json_object_set_new(o, "change_high", culprit_calltree__json_double(p->change_high));
    json_object_set_new(o, "p", culprit_calltree__json_double(p->p));
    json_object_set_new(o, "total_delta_ns", culprit_calltree__json_double(p->total_delta));
    json_object_set_new(o, "own_ns", culprit_calltree__json_double(p->own_ns));
    json_object_set_new(o, "share", culprit_calltree__json_double(p->share));
    json_object_set_new(o, "callees_added", callees_json(d, k, CULPRIT_CALLTREE_CALLEES_ADDED));
    json_object_set_new(o, "callees_removed", callees_json(d, k, CULPRIT_CALLTREE_CALLEES_REMOVED));
    json_object_set_new(o, "callees_other_counts",
                        callees_json(d, k, CULPRIT_CALLTREE_CALLEES_COUNTS));
    json_object_set_new(o, "changed",
                        m ? json_string(culprit_calltree_change_name(m->change)) : json_null());
    json_object_set_new(o, "changed_lines", lines_json(m));
    return o;
}

/* A pair's function as {"function", "file", "line"}; null for NONE. */
static json_t *function_json(const culprit_calltree_diff *d, size_t k)
{
    const culprit_calltree_function *f =
        k == CULPRIT_CALLTREE_NONE ? NULL : culprit_calltree_diff_function(d, k);
    json_t *o;

    if (!f)
        return json_null();
    o = json_object();
    json_object_set_new(o, "function", string(f->name));
    json_object_set_new(o, "file", string(f->file));
    json_object_set_new(o, "line", json_integer(f->line_low));
    return o;
}

/* The one answer (culprit_calltree_diff_answer()), with the sentence every output prints. */
static json_t *answer_json(const culprit_calltree_diff *d)
{
    culprit_calltree_answer a;
    culprit_buf text = CULPRIT_BUF_INIT;
    json_t *o;

    if (culprit_calltree_diff_answer(&a, d) < 0 || culprit_calltree_answer_text(&text, d, &a) < 0) {
        culprit_buf_dispose(&text);
        return NULL;
    }
    o = json_object();
    json_object_set_new(o, "kind", json_string(culprit_calltree_answer_kind_name(a.kind)));
    json_object_set_new(o, "function", function_json(d, a.pair));
    json_object_set_new(o, "share", culprit_calltree__json_double(a.share));
    json_object_set_new(o, "explained_ns", culprit_calltree__json_double(a.explained_ns));
    json_object_set_new(o, "where", function_json(d, a.where));
    json_object_set_new(o, "changed", function_json(d, a.changed));
    json_object_set_new(o, "changed_functions", json_integer((json_int_t)a.nchanged));
    json_object_set_new(o, "text", string(culprit_buf_cstr(&text)));
    culprit_buf_dispose(&text);
    return o;
}

/* The diff's fields, appended to `o` (a document or the bisection's object). */
static json_t *add_diff(json_t *o, const culprit_calltree_diff *d)
{
    json_t *suspects = json_array(), *answer;

    if (!o || !suspects) {
        json_decref(o);
        json_decref(suspects);
        return NULL;
    }
    json_object_set_new(o, "confidence", json_real(d->options.confidence));
    json_object_set_new(o, "threshold", json_real(d->options.threshold));
    json_object_set_new(
        o, "rule", json_string(d->options.rule == CULPRIT_CALLTREE_RULE_PAPER ? "paper" : "reach"));
    json_object_set_new(o, "min_share", json_real(d->options.min_share));
    json_object_set_new(o, "root", string(d->options.root));
    json_object_set_new(o, "root_calls", json_integer((json_int_t)d->root_calls));
    json_object_set_new(o, "regression_ns", culprit_calltree__json_double(d->regression_ns));
    /* What the "_ns" fields hold: instructions for trees counted by callgrind. */
    json_object_set_new(o, "cost",
                        json_string(d->test && d->test->instructions ? "instructions" : "ns"));
    json_object_set_new(o, "nodes_compared", json_integer((json_int_t)(d->npairs - 1)));
    json_object_set_new(o, "correlated", json_boolean(d->correlated));
    json_object_set_new(o, "smaller_suspects", json_integer((json_int_t)d->nsmaller));
    json_object_set_new(o, "smaller_ns", culprit_calltree__json_double(d->smaller_ns));
    json_object_set_new(o, "varying_suspects", json_integer((json_int_t)d->nvarying));
    for (size_t i = 0; i < d->nsuspects; i++) {
        const culprit_calltree_suspect *s = &d->suspects[i];
        culprit_buf path = CULPRIT_BUF_INIT;
        json_t *js = json_object(), *nodes = json_array();
        put_path(&path, d, s);
        json_object_set_new(js, "rank", json_integer((json_int_t)i + 1));
        json_object_set_new(js, "kind", json_string(culprit_calltree_suspect_kind_name(s->kind)));
        json_object_set_new(js, "path_text", string(culprit_buf_cstr(&path)));
        json_object_set_new(js, "changed", d->correlated ? json_boolean(s->changed) : json_null());
        json_object_set_new(js, "own_ns",
                            culprit_calltree__json_double(d->pairs[s->path[s->npath - 1]].own_ns));
        json_object_set_new(js, "share",
                            culprit_calltree__json_double(d->pairs[s->path[s->npath - 1]].share));
        for (size_t k = 0; k < s->npath; k++)
            json_array_append_new(nodes, node_json(d, s->path[k], s->marks ? &s->marks[k] : NULL));
        json_object_set_new(js, "path", nodes);
        json_array_append_new(suspects, js);
        culprit_buf_dispose(&path);
    }
    json_object_set_new(o, "suspects", suspects);
    if (!(answer = answer_json(d))) {
        json_decref(o);
        return NULL;
    }
    json_object_set_new(o, "answer", answer);
    return o;
}

json_t *culprit_calltree__diff_json(const culprit_calltree_diff *diff)
{
    return add_diff(json_object(), diff);
}

static json_t *document(const char *command)
{
    json_t *doc = json_object();

    if (doc) {
        json_object_set_new(doc, "culprit_json", json_integer(JSON_FORMAT));
        json_object_set_new(doc, "command", json_string(command));
    }
    return doc;
}

int culprit_calltree_diff_to_json(culprit_buf *out, const culprit_calltree_diff *diff,
                                  const char *base, const char *test, const char *commit)
{
    json_t *doc = document("calltree diff");

    if (doc) {
        json_object_set_new(doc, "base", string(base));
        json_object_set_new(doc, "test", string(test));
        json_object_set_new(doc, "commit", string(commit));
    }
    return culprit_calltree__json_put(out, add_diff(doc, diff));
}

/* ----------------------------------------------------------------- overweight --- */

static json_t *rows_json(const culprit_calltree_overweight_round *round)
{
    json_t *a = json_array();

    for (size_t i = 0; i < round->nrows; i++) {
        const culprit_calltree_overweight_row *row = &round->rows[i];
        json_t *o = json_object();
        json_object_set_new(o, "function", string(row->name));
        json_object_set_new(o, "file", string(row->file));
        json_object_set_new(o, "base", culprit_calltree__json_double(row->base));
        json_object_set_new(o, "test", culprit_calltree__json_double(row->test));
        json_object_set_new(o, "delta", culprit_calltree__json_double(row->delta));
        json_object_set_new(o, "expected", culprit_calltree__json_double(row->expected));
        json_object_set_new(o, "overweight", culprit_calltree__json_double(row->overweight));
        json_object_set_new(o, "responsibility",
                            culprit_calltree__json_double(row->responsibility));
        json_array_append_new(a, o);
    }
    return a;
}

/* One object per round; each names the pivots dropped before it. */
static json_t *rounds_json(const culprit_calltree_overweight *ow)
{
    json_t *rounds = json_array(), *dropped = json_array();

    for (size_t r = 0; rounds && dropped && r < ow->nrounds; r++) {
        const culprit_calltree_overweight_round *round = &ow->rounds[r];
        json_t *jr = json_object();
        json_object_set_new(jr, "round", json_integer((json_int_t)r));
        json_object_set_new(jr, "dropped", json_deep_copy(dropped));
        json_object_set_new(jr, "base_total", culprit_calltree__json_double(round->base_total));
        json_object_set_new(jr, "test_total", culprit_calltree__json_double(round->test_total));
        json_object_set_new(jr, "delta_total", culprit_calltree__json_double(round->delta_total));
        json_object_set_new(jr, "pivot",
                            round->pivot == CULPRIT_CALLTREE_NONE
                                ? json_null()
                                : string(round->rows[round->pivot].name));
        json_object_set_new(jr, "functions", rows_json(round));
        json_array_append_new(rounds, jr);
        if (round->pivot != CULPRIT_CALLTREE_NONE)
            json_array_append_new(dropped, string(round->rows[round->pivot].name));
    }
    json_decref(dropped);
    return rounds;
}

int culprit_calltree_overweight_to_json(culprit_buf *out, const culprit_calltree_overweight *ow,
                                        const culprit_calltree_overweight_options *opts,
                                        const char *base, const char *test, int durations)
{
    culprit_calltree_overweight_options defaults = CULPRIT_CALLTREE_OVERWEIGHT_OPTIONS_INIT;
    json_t *doc = document("overweight");

    if (!opts)
        opts = &defaults;
    if (doc) {
        json_object_set_new(doc, "base", string(base));
        json_object_set_new(doc, "test", string(test));
        json_object_set_new(doc, "unit", json_string(durations ? "ns" : "weight"));
        json_object_set_new(doc, "recurse", json_integer((json_int_t)opts->recurse));
        json_object_set_new(doc, "min_responsibility", json_real(opts->min_responsibility));
        json_object_set_new(doc, "min_overweight", json_real(opts->min_overweight));
        json_object_set_new(doc, "rounds", rounds_json(ow));
    }
    return culprit_calltree__json_put(out, doc);
}
