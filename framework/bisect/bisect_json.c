/*
 * The writer of the bisection's document, `culprit bisect --json` (docs/cli.md):
 * the outcome, the ends, the culprits, every step and the call-tree analysis of
 * the culprit. It lives in the library beside its reader (culprit report loads the
 * document back), so one module owns the format; the tool only prints it. Built
 * with jansson, which stays out of the public header; numbers that are not finite
 * are written as null.
 */
#include "../calltree/calltree_json.h"
#include "culprit/bisect.h"

#include <math.h>

static json_t *number(double x)
{
    return culprit_calltree__json_double(x);
}

/* Subjects, authors, test names and errors are data: escaped as calltree's are. */
static json_t *string(const char *s)
{
    return culprit_calltree__json_text(s);
}

static json_t *step_json(const culprit_bisect_step *s)
{
    json_t *o = json_object();
    json_object_set_new(o, "commit", json_string(s->sha));
    json_object_set_new(o, "subject", string(s->subject));
    json_object_set_new(o, "verdict", string(culprit_bisect_verdict_name(s->verdict)));
    json_object_set_new(o, "good", json_string(s->good));
    json_object_set_new(o, "good_mean_ns", number(s->good_mean_ns));
    json_object_set_new(o, "mean_ns", number(s->mean_ns));
    json_object_set_new(o, "change", number(s->change));
    json_object_set_new(o, "change_low", number(s->change_low));
    json_object_set_new(o, "change_high", number(s->change_high));
    json_object_set_new(o, "runs", json_integer((json_int_t)s->runs));
    json_object_set_new(o, "reused", json_integer((json_int_t)s->reused));
    json_object_set_new(o, "paired", json_integer((json_int_t)s->paired));
    json_object_set_new(o, "undecided", json_boolean(s->undecided));
    json_object_set_new(o, "skip_reason", string(s->skip_reason));
    /* Only on a counted bisection: documents of timed ones stay as they were. */
    if (s->deterministic)
        json_object_set_new(o, "deterministic", json_true());
    if (s->round) /* only a fanned-out bisection's probes */
        json_object_set_new(o, "round", json_integer((json_int_t)s->round));
    return o;
}

/* --calltree: the diff of the culprit's call tree against its parent's, or why not. */
static json_t *calltree_json(const culprit_bisect_result *r, int requested)
{
    json_t *o;

    if (!requested || (r->outcome != CULPRIT_BISECT_RESULT_FOUND && !r->nculprits))
        return json_null();
    if (r->calltree_error) {
        o = json_object();
        json_object_set_new(o, "parent", r->parent[0] ? json_string(r->parent) : json_null());
        json_object_set_new(o, "error", string(r->calltree_error));
        return o;
    }
    o = culprit_calltree__diff_json(&r->calltree);
    json_object_set_new(o, "parent", json_string(r->parent));
    json_object_set_new(o, "error", json_null());
    /* How the trees' times were taken: corrected against the plain builds or not. */
    json_object_set_new(o, "corrected", json_boolean(r->calltree_corrected));
    if (r->parent_tree && r->culprit_tree) {
        json_t *overhead = json_object();
        json_object_set_new(overhead, "parent", json_real(r->parent_tree->overhead_ns));
        json_object_set_new(overhead, "culprit", json_real(r->culprit_tree->overhead_ns));
        json_object_set_new(o, "overhead_ns", overhead);
        json_object_set_new(o, "sampled",
                            json_boolean(r->parent_tree->sampled && r->culprit_tree->sampled));
        if (r->calltree_corrected && !(r->parent_tree->sampled && r->culprit_tree->sampled))
            json_object_set_new(
                o, "unsampled",
                json_string(culprit_calltree_unsampled(r->parent_tree, r->culprit_tree)));
        json_object_set_new(o, "fitted",
                            json_boolean(r->parent_tree->fitted && r->culprit_tree->fitted));
        if (r->calltree_corrected) {
            json_t *excess = json_object();
            json_object_set_new(excess, "parent", json_real(r->parent_tree->baseline_excess));
            json_object_set_new(excess, "culprit", json_real(r->culprit_tree->baseline_excess));
            json_object_set_new(o, "baseline_excess", excess);
        }
    }
    return o;
}

/* --all and slow decays: every commit found with the change it contributes. */
static json_t *culprits_json(const culprit_bisect_result *r)
{
    json_t *all = json_array();

    for (size_t i = 0; i < r->nculprits; i++) {
        json_t *c = json_object();
        json_object_set_new(c, "commit", json_string(r->culprits[i].sha));
        json_object_set_new(c, "subject", string(r->culprits[i].subject));
        json_object_set_new(c, "change", number(r->culprits[i].change));
        json_object_set_new(c, "change_low", number(r->culprits[i].change_low));
        json_object_set_new(c, "change_high", number(r->culprits[i].change_high));
        json_object_set_new(c, "share", number(r->culprits[i].share));
        json_object_set_new(c, "cpu_share", number(r->culprits[i].cpu_share));
        json_array_append_new(all, c);
    }
    return all;
}

int culprit_bisect_result_to_json(culprit_buf *out, const culprit_bisect_result *r,
                                  const char *test, int calltree)
{
    json_t *doc = json_object(), *steps = json_array(), *range = json_array();

    json_object_set_new(doc, "culprit_json", json_integer(1));
    json_object_set_new(doc, "command", json_string("bisect"));
    json_object_set_new(doc, "outcome", string(culprit_bisect_outcome_name(r->outcome)));
    json_object_set_new(doc, "test", string(test)); /* --test, for the report */
    /* The series judged: null for time (the command's wall time, the test's time). */
    json_object_set_new(doc, "metric", r->metric[0] ? json_string(r->metric) : json_null());
    json_object_set_new(doc, "good", json_string(r->good));
    json_object_set_new(doc, "bad", json_string(r->bad));
    json_object_set_new(doc, "commits", json_integer((json_int_t)r->ncommits));
    json_object_set_new(doc, "culprit",
                        r->outcome == CULPRIT_BISECT_RESULT_FOUND ? json_string(r->culprit)
                                                                  : json_null());
    json_object_set_new(doc, "subject", string(r->subject));
    json_object_set_new(doc, "author", string(r->author));
    json_object_set_new(doc, "date", string(r->date));
    json_object_set_new(doc, "change", number(r->change));
    json_object_set_new(doc, "change_low", number(r->change_low));
    json_object_set_new(doc, "change_high", number(r->change_high));
    json_object_set_new(doc, "builds", json_integer((json_int_t)r->builds));
    json_object_set_new(doc, "runs", json_integer((json_int_t)r->runs));
    json_object_set_new(doc, "reused", json_integer((json_int_t)r->reused));
    for (size_t i = 0; i < r->nrange; i++)
        json_array_append_new(range, json_string(r->range[i]));
    json_object_set_new(doc, "range", range);
    json_object_set_new(doc, "culprits", culprits_json(r));
    json_object_set_new(doc, "unsearched_ranges", json_integer((json_int_t)r->nunsearched));
    json_object_set_new(doc, "irrelevant", json_integer((json_int_t)r->nirrelevant));
    json_object_set_new(doc, "backtracks", json_integer((json_int_t)r->backtracks));
    json_object_set_new(doc, "confirmed",
                        r->confirmed < 0 ? json_null() : json_boolean(r->confirmed));
    for (size_t i = 0; i < r->nsteps; i++)
        json_array_append_new(steps, step_json(&r->steps[i]));
    json_object_set_new(doc, "steps", steps);
    json_object_set_new(doc, "calltree", calltree_json(r, calltree));
    return culprit_calltree__json_put(out, doc);
}
