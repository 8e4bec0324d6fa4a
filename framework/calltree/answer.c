/*
 * The one answer of a call-tree diff (docs/calltree.md, "The answer"): the function
 * every output names. The suspects say where the time went; the answer says which
 * function the commit changed made it go there, and the two differ whenever a
 * changed function's cost shows up below it: a changed caller whose new or more
 * frequent callees take the time (a string insertion now calling a helper), a
 * changed function whose own time moved into an unchanged callee (a buffer that
 * grows by 64 bytes, its time in realloc), a changed helper whose cost is split
 * over several callers (a lookup made quadratic).
 *
 * Each pair's own_ns (reach.c: the owns of all pairs add up to the regression) goes
 * to the nearest changed function on its path from the root, itself included; the
 * changed function that so explains the most, and at least min_share of the
 * regression, is the answer, provided its test does not say it is no slower (the
 * same calls, unchanged or faster per call) and it adds time.
 * Time with no changed function above it is nobody's: when it is most of the
 * regression, no changed function is on the slow path, and the answer says so,
 * naming where the time went and what the commit changed.
 */
#include "calltree_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[] = {"none", "changed", "not-on-path", "uncorrelated"};

const char *culprit_calltree_answer_kind_name(culprit_calltree_answer_kind kind)
{
    return (unsigned)kind < 4 ? kind_names[kind] : "unknown";
}

/* The function index of pair k in the test tree; NONE for the whole trees' root. */
static size_t function_of(const culprit_calltree_diff *d, size_t k)
{
    return k == 0 && !d->options.root ? CULPRIT_CALLTREE_NONE
                                      : d->test->nodes[d->pairs[k].test].function;
}

static int changed(const culprit_calltree_diff *d, size_t f)
{
    return f != CULPRIT_CALLTREE_NONE && f < d->test->nfunctions &&
           d->changes[f] != CULPRIT_CALLTREE_NOT_CHANGED;
}

/* Per changed function: the time it explains, whether a pair of it is not cleared
 * by its test, its pair adding the most (best), its pair of most time (ran). */
typedef struct {
    double *explained;
    unsigned char *counts;
    size_t *best, *ran;
} tally;

static int tally_changes(tally *t, const culprit_calltree_diff *d)
{
    size_t nf = d->test->nfunctions ? d->test->nfunctions : 1, *owner;

    t->explained = calloc(nf, sizeof(*t->explained));
    t->counts = calloc(nf, 1);
    t->best = malloc(nf * sizeof(*t->best));
    t->ran = malloc(nf * sizeof(*t->ran));
    owner = malloc((d->npairs ? d->npairs : 1) * sizeof(*owner));
    if (!t->explained || !t->counts || !t->best || !t->ran || !owner) {
        free(owner);
        return culprit_error_set(CULPRIT_ERROR, "out of memory choosing the answer");
    }
    for (size_t f = 0; f < nf; f++)
        t->best[f] = t->ran[f] = CULPRIT_CALLTREE_NONE;
    /* Pairs are in breadth-first order: a parent's owner is known before its children. */
    for (size_t k = 0; k < d->npairs; k++) {
        const culprit_calltree_pair *p = &d->pairs[k];
        size_t f = function_of(d, k);
        owner[k] = changed(d, f) ? f : k ? owner[p->parent] : CULPRIT_CALLTREE_NONE;
        if (owner[k] != CULPRIT_CALLTREE_NONE && isfinite(p->own_ns))
            t->explained[owner[k]] += p->own_ns;
        if (!changed(d, f))
            continue;
        /* Not culprit_calltree__cleared(), which also clears an interval that holds
         * 0: the answer's time is the exact split of a regression the bisection
         * measured, and a wide interval (a perf test's harness spreads the recorded
         * calls) says the test cannot tell, not that the function did nothing. */
        if (!culprit_calltree__not_slower(p) && p->subtree_ns > 0)
            t->counts[f] = 1;
        if (t->best[f] == CULPRIT_CALLTREE_NONE || p->subtree_ns > d->pairs[t->best[f]].subtree_ns)
            t->best[f] = k;
        if (t->ran[f] == CULPRIT_CALLTREE_NONE ||
            d->test->nodes[p->test].inclusive_ns >
                d->test->nodes[d->pairs[t->ran[f]].test].inclusive_ns)
            t->ran[f] = k;
    }
    free(owner);
    return 0;
}

static void tally_dispose(tally *t)
{
    free(t->explained);
    free(t->counts);
    free(t->best);
    free(t->ran);
}

/*
 * The changed function the answer is, from the tally; NOT_ON_PATH's fields else. It
 * explains at least the minimum share; it is preferred over unchanged functions that
 * add more themselves (issue 26: a timed tree on a loaded machine hands callers'
 * own time noise, and a perf test's level runs tens of percent of it).
 */
static void choose(culprit_calltree_answer *out, const culprit_calltree_diff *d, const tally *t)
{
    double floor = d->options.min_share * d->regression_ns, most = 0, top = 0;
    size_t answer = CULPRIT_CALLTREE_NONE, ran = CULPRIT_CALLTREE_NONE, part = ran;

    for (size_t f = 0; f < d->test->nfunctions; f++) {
        if (t->ran[f] == CULPRIT_CALLTREE_NONE)
            continue;
        out->nchanged++;
        if (ran == CULPRIT_CALLTREE_NONE || d->test->nodes[d->pairs[t->ran[f]].test].inclusive_ns >
                                                d->test->nodes[d->pairs[ran].test].inclusive_ns)
            ran = t->ran[f];
        if (t->explained[f] > top) /* the changed function that explains the most */
            top = t->explained[f], part = f;
        if (t->counts[f] && t->explained[f] > 0 && t->explained[f] >= floor &&
            (answer == CULPRIT_CALLTREE_NONE || t->explained[f] > most)) {
            answer = f;
            most = t->explained[f];
        }
    }
    if (answer == CULPRIT_CALLTREE_NONE) {
        out->kind = CULPRIT_CALLTREE_ANSWER_NOT_ON_PATH;
        out->changed = part != CULPRIT_CALLTREE_NONE ? t->best[part] : ran;
        out->explained_ns = part != CULPRIT_CALLTREE_NONE ? top : 0;
        out->share = culprit_calltree__share(d, out->explained_ns);
        return;
    }
    out->kind = CULPRIT_CALLTREE_ANSWER_CHANGED;
    out->pair = t->best[answer];
    out->explained_ns = most;
    out->share = culprit_calltree__share(d, most);
}

int culprit_calltree_diff_answer(culprit_calltree_answer *out, const culprit_calltree_diff *d)
{
    tally t = {NULL, NULL, NULL, NULL};
    int error = 0;

    memset(out, 0, sizeof(*out));
    out->pair = out->where = out->changed = CULPRIT_CALLTREE_NONE;
    out->explained_ns = out->share = NAN;
    if (d->nsuspects > 0)
        out->where = d->suspects[0].path[d->suspects[0].npath - 1];
    /* Nothing regressed: nothing to explain (as the search, which starts nowhere). */
    if (d->npairs == 0 || (!(d->pairs[0].subtree_ns > 0) && d->nsuspects == 0) ||
        !(d->regression_ns > 0))
        return 0;
    if (!d->changes) {
        out->kind = out->where != CULPRIT_CALLTREE_NONE ? CULPRIT_CALLTREE_ANSWER_UNCORRELATED
                                                        : CULPRIT_CALLTREE_ANSWER_NONE;
        out->pair = out->where;
        return 0;
    }
    if ((error = tally_changes(&t, d)) == 0)
        choose(out, d, &t);
    tally_dispose(&t);
    return error;
}

/* "name (file:line)" of a pair's function. */
static void put_function(culprit_buf *out, const culprit_calltree_diff *d, size_t k)
{
    const culprit_calltree_function *f = culprit_calltree_diff_function(d, k);

    culprit_buf_put_text(out, f && f->name ? f->name : "?");
    if (f && f->file) {
        culprit_buf_puts(out, " (");
        culprit_buf_put_text(out, f->file);
        if (f->line_low)
            culprit_buf_printf(out, ":%u", f->line_low);
        culprit_buf_puts(out, ")");
    }
}

/* 1 when the first suspect's path passes through the answer's function below it. */
static int time_below(const culprit_calltree_diff *d, const culprit_calltree_answer *a)
{
    const culprit_calltree_suspect *s = d->nsuspects ? &d->suspects[0] : NULL;
    size_t f = function_of(d, a->pair);

    if (!s || a->where == CULPRIT_CALLTREE_NONE || function_of(d, a->where) == f)
        return 0;
    for (size_t k = 0; k + 1 < s->npath; k++)
        if (function_of(d, s->path[k]) == f)
            return 1;
    return 0;
}

int culprit_calltree_answer_text(culprit_buf *out, const culprit_calltree_diff *d,
                                 const culprit_calltree_answer *a)
{
    /* Room for the sentence up front: the names are short next to it. */
    if (culprit_buf_grow(out, 512) < 0)
        return CULPRIT_ERROR;
    switch (a->kind) {
    case CULPRIT_CALLTREE_ANSWER_CHANGED:
        put_function(out, d, a->pair);
        culprit_buf_printf(out, ", changed by the commit, explains %.0f%% of the regression",
                           100 * a->share);
        if (time_below(d, a)) {
            culprit_buf_puts(out, " (the time itself is spent below it, in ");
            culprit_buf_put_text(out, culprit_calltree_diff_function(d, a->where)->name);
            culprit_buf_puts(out, ")");
        } else if (a->share < 0.5 && a->where != CULPRIT_CALLTREE_NONE &&
                   function_of(d, a->where) != function_of(d, a->pair)) {
            /* Most of it is elsewhere: the reader must not take the part for the whole. */
            culprit_buf_puts(out, "; suspect 1 is ");
            culprit_buf_put_text(out, culprit_calltree_diff_function(d, a->where)->name);
            culprit_buf_puts(out, ", which the commit did not change");
        }
        break;
    case CULPRIT_CALLTREE_ANSWER_NOT_ON_PATH:
        culprit_buf_puts(out, "no function the commit changed is on the slow path: ");
        if (a->where != CULPRIT_CALLTREE_NONE) {
            culprit_buf_puts(out, "the time went to ");
            put_function(out, d, a->where);
        } else {
            culprit_buf_printf(out, "no function adds %g%% of the regression",
                               100 * d->options.min_share);
        }
        if (a->changed != CULPRIT_CALLTREE_NONE) {
            culprit_buf_puts(out, "; the commit changed ");
            put_function(out, d, a->changed);
            if (a->nchanged > 1)
                culprit_buf_printf(out, " and %zu other function%s", a->nchanged - 1,
                                   a->nchanged == 2 ? "" : "s");
            culprit_buf_printf(out, ", which ran but explains %s%.0f%% of it",
                               a->share < 0.005 ? "less than " : "only ",
                               a->share < 0.005 ? 1.0 : 100 * a->share);
        } else {
            culprit_buf_puts(out, "; no function the commit changed ran");
        }
        break;
    case CULPRIT_CALLTREE_ANSWER_UNCORRELATED:
        put_function(out, d, a->pair);
        culprit_buf_puts(out, " adds the most time (not correlated with a commit's changes)");
        break;
    default:
        culprit_buf_puts(out, "no function: the call trees show no regression to explain");
    }
    return 0;
}
