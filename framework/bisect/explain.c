/*
 * Explaining the whole change (docs/bisect.md, "Explaining the whole change"): a
 * culprit is judged against its own first parent, and what it explains of the range's
 * slowdown is its share; while a share of the slowdown beyond EXPLAIN_LEFT stays
 * unexplained, the rest of the range (below and above the culprit) is searched again,
 * a bounded number of times, every step already measured reused.
 *
 * A share is taken on the log scale: a commit that makes the program r times slower,
 * in a range that makes it R times slower, explains log r / log R of it. Slowdowns
 * compose by multiplying (a 2x commit then a 25x one make 50x, in either order), so
 * the shares of the commits of a range add up to 1 whatever their order, and a change
 * of the machine's speed that scales all runs alike leaves them as they are.
 */
#include "bisect_internal.h"
#include "culprit/core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The share of the range's slowdown left unexplained below which the search stops:
 * a tenth (a 2x commit in a 50x range explains 18% of it, and is searched for). */
#define EXPLAIN_LEFT CULPRIT_BISECT__EXPLAIN_LEFT
/* The most culprits searched for after the first one (each costs a check of a range
 * and a bisection of it): a bound, so that a slow decay's many small steps or a noisy
 * machine still end. */
#define EXPLAIN_MAX 3

/* A step that measured `sha` against `good` and decided (bad, or good beyond doubt),
 * or NULL: measuring the same pair again would only repeat it. */
static culprit_bisect_step *decided_step(const culprit_bisect_result *r, const char *good,
                                         const char *sha)
{
    for (size_t i = r->nsteps; i-- > 0;) {
        culprit_bisect_step *st = &r->steps[i];
        if (!strcmp(st->sha, sha) && !strcmp(st->good, good) &&
            (st->verdict == CULPRIT_BISECT_BAD ||
             (st->verdict == CULPRIT_BISECT_GOOD && !st->undecided)))
            return st;
    }
    return NULL;
}

/* culprit_bisect__judge_pair, the pair measured on at most max_runs runs a side. */
static int judge_pair_upto(culprit_bisect__session *s, const char *good, const char *bad,
                           size_t max_runs, int *slower, culprit_bisect_step **step)
{
    if ((*step = decided_step(s->result, good, bad))) {
        *slower = (*step)->verdict == CULPRIT_BISECT_BAD;
        return 0;
    }
    return culprit_bisect__check_pair(s, good, bad, max_runs, slower, step, NULL);
}

int culprit_bisect__judge_pair(culprit_bisect__session *s, const char *good, const char *bad,
                               int *slower, culprit_bisect_step **step)
{
    return judge_pair_upto(s, good, bad, culprit_bisect__max_runs(s->opts), slower, step);
}

int culprit_bisect__against_parent(culprit_bisect__session *s, const char *sha, char parent[41],
                                   int *slower, culprit_bisect_step **step)
{
    char(*fp)[41] = NULL;
    size_t k = 0;
    int error;

    parent[0] = '\0';
    *step = NULL;
    *slower = 0;
    if ((error = culprit_vcs_first_parents(&fp, &k, s->repo, sha, 2)) < 0)
        return error;
    if (k == 2)
        memcpy(parent, fp[1], 41);
    free(fp);
    if (k < 2)
        return culprit_error_set(CULPRIT_ESKIP, "%.12s has no parent", sha);
    return culprit_bisect__judge_pair(s, parent, sha, slower, step);
}

/* The part of the wall time's slowdown, at the lower end of its interval, that the
 * range's CPU-time slowdown is on the log scale (1: all of it, or more). */
static double cpu_part(const culprit_bisect_step *first)
{
    return first->change_low > 0 ? log1p(first->cpu_change) / log1p(first->change_low) : 1;
}

/*
 * The range's slowdown on CPU time, when shares are taken on it too (docs/bisect.md,
 * "Explaining the whole change"): the first check told it, it is beyond the threshold,
 * and it is at least CPU_PART of the wall time's (the program spends its time
 * computing: a slowdown that sleeps or waits shows in the wall time alone); 0
 * otherwise. The load does not move it: beside two CPU hogs a run's wall time grows by
 * whatever the scheduler gives the others, its CPU time hardly.
 */
#define CPU_PART 0.5
static double cpu_total(const culprit_bisect__session *s)
{
    const culprit_bisect_step *first = s->result->nsteps ? &s->result->steps[0] : NULL;

    if (!first || !first->cpu_runs || !(first->cpu_change > s->opts->measure.threshold) ||
        !(first->change > 0) || cpu_part(first) < CPU_PART)
        return 0;
    return first->cpu_change;
}

/* 1 when the CPU time alone decides whether the rest is searched: the wall time's
 * slowdown is not surely larger than the CPU time's by more than what the search
 * leaves anyway (EXPLAIN_LEFT), so a part that the CPU time does not see could not
 * send the search on. */
static int cpu_decides(const culprit_bisect__session *s)
{
    return cpu_total(s) > 0 && cpu_part(&s->result->steps[0]) >= 1 - EXPLAIN_LEFT;
}

int culprit_bisect__add_explained(culprit_bisect__session *s, const char *sha,
                                  const culprit_bisect_step *step)
{
    culprit_bisect_result *r = s->result;
    culprit_bisect_culprit *c;
    int error;

    if ((error = culprit_bisect__add_culprit(s, sha, step)) < 0)
        return error;
    c = &r->culprits[r->nculprits - 1];
    if (step && r->nsteps)
        c->share = culprit_bisect__share(step->change, r->steps[0].change);
    if (step && step->cpu_runs && cpu_total(s) > 0)
        c->cpu_share = culprit_bisect__share(step->cpu_change, cpu_total(s));
    return 0;
}

/*
 * A culprit's share, pinned: when the step against its parent (often the 2 pairs of
 * the pooled look that found it) leaves the share's interval across the line 1 -
 * EXPLAIN_LEFT, whether the rest of the range is searched would rest on noise, so the
 * pair is measured again (both are built on their sides already), its verdict not
 * taken before min_runs pairs unless the share's interval, on the session's pooled
 * spread, lies on one side of the line (comparison.c). *step becomes that measurement
 * when it could be made.
 */
static int pin_share(culprit_bisect__session *s, const char *parent, const char *sha,
                     culprit_bisect_step **step)
{
    culprit_bisect_step *fresh;
    size_t at = (size_t)(*step - s->result->steps); /* the steps may move when one is added */
    double total;
    int slower, error;

    /* The CPU time decides the search: the wall time's share need not be pinned. */
    if (!s->result->nsteps || ((*step)->cpu_runs && cpu_decides(s)))
        return 0;
    total = s->result->steps[0].change;
    /* Only a share that would send the search on (below the line) is pinned: one at or
     * above it ends the search whatever its interval, as before. */
    if (!(culprit_bisect__share((*step)->change, total) < 1 - EXPLAIN_LEFT) ||
        culprit_bisect__share_pinned((*step)->change_low, (*step)->change_high, total))
        return 0;
    s->pin_total = total;
    error = culprit_bisect__check_pair(s, parent, sha, culprit_bisect__max_runs(s->opts), &slower,
                                       &fresh, NULL);
    s->pin_total = 0;
    *step = error == 0 ? fresh : &s->result->steps[at];
    /* A side that cannot be measured now: the figures of the step before stand. */
    return error == CULPRIT_ESKIP ? 0 : error;
}

/* The share the culprits found explain together, of the wall time's slowdown or of
 * the CPU time's (NAN when one is unknown). */
static double explained(const culprit_bisect_result *r, int cpu)
{
    double sum = 0;

    for (size_t i = 0; i < r->nculprits; i++)
        sum += cpu ? r->culprits[i].cpu_share : r->culprits[i].share;
    return sum;
}

/* Whether more than EXPLAIN_LEFT of the range's slowdown is left unexplained: by the
 * CPU time's shares alone when it decides (cpu_decides()); else by the wall time's, or
 * by the CPU time's when the range's CPU time is slower by a part of it (cpu_total()):
 * a share the load moved past the line on one is seen on the other. */
static int unexplained(const culprit_bisect__session *s)
{
    double line = 1 - EXPLAIN_LEFT, cpu = cpu_total(s) > 0 ? explained(s->result, 1) : NAN;

    if (!isnan(cpu) && cpu_decides(s))
        return cpu < line;
    return explained(s->result, 0) < line || cpu < line;
}

/* A range still to search: (lo, hi]. */
typedef struct {
    char lo[41], hi[41];
} span;

/* Pushes (lo, hi] when it holds a commit. */
static void push(span *q, size_t *n, const char *lo, const char *hi)
{
    if (lo[0] && hi[0] && strcmp(lo, hi) != 0) {
        memcpy(q[*n].lo, lo, 41);
        memcpy(q[*n].hi, hi, 41);
        (*n)++;
    }
}

/* One range of the rest: checked (reusing a step of the same pair), bisected when
 * slower, its culprit judged against its parent and kept when slower than it and
 * its share may reach EXPLAIN_LEFT. *found: a culprit found (kept or not: either
 * cost a bisection); lo/hi of the two ranges left beside it pushed. */
static int search_span(culprit_bisect__session *s, const span *sp, span *q, size_t *nq, int *found)
{
    culprit_bisect_step *step;
    char culprit[41], parent[41];
    double effect = s->effect, line;
    int slower = 0, in_range = 0, error;

    *found = 0;
    /* A range whose slowdown would explain less than EXPLAIN_LEFT of the whole is not
     * worth a bisection: its check stops, futile, once its interval lies below that
     * slowdown (comparison.c), and takes at most min_runs pairs, instead of running to
     * max_runs to show it below the threshold, which a loaded machine cannot. */
    line = s->result->nsteps ? pow(1 + s->result->steps[0].change, EXPLAIN_LEFT) - 1 : 0;
    s->futile_below = line > s->opts->measure.threshold ? line : 0;
    error = judge_pair_upto(s, sp->lo, sp->hi, culprit_bisect__min_runs(s->opts), &slower, &step);
    s->futile_below = 0;
    if (error < 0 || !slower)
        return error == CULPRIT_ESKIP ? 0 : error;
    /* Futility follows the slowdown of the range bisected (comparison.c). */
    s->effect = step->change;
    error = culprit_bisect__bisect_range(s, sp->lo, sp->hi, culprit, &in_range);
    s->effect = effect;
    if (error < 0 || !in_range)
        return error;
    error = culprit_bisect__against_parent(s, culprit, parent, &slower, &step);
    if (error < 0 && error != CULPRIT_ESKIP)
        return error;
    if (error == 0 && slower) {
        if ((error = pin_share(s, parent, culprit, &step)) < 0)
            return error;
        *found = 1;
        /* A commit of the rest that surely explains less than EXPLAIN_LEFT is below
         * what the search resolves (it stops at that much unexplained): on a timed
         * range it is most often a step of noise beside the real culprit, which the
         * search of its sides goes on to find. Not listed; its steps stay. */
        if (s->result->nsteps &&
            (culprit_bisect__share(step->change_high, s->result->steps[0].change) < EXPLAIN_LEFT ||
             (step->cpu_runs && cpu_decides(s) &&
              culprit_bisect__share(step->cpu_change, cpu_total(s)) < EXPLAIN_LEFT)))
            culprit_bisect__phase(s->opts,
                                  "explaining the whole change: %.12s explains under a tenth of "
                                  "it (%+.1f%% against its parent): not listed",
                                  culprit, 100 * step->change);
        else if ((error = culprit_bisect__add_explained(s, culprit, step)) < 0)
            return error;
    }
    push(q, nq, sp->lo, parent);
    push(q, nq, culprit, sp->hi);
    return 0;
}

int culprit_bisect__explain(culprit_bisect__session *s, const char *culprit)
{
    culprit_bisect_result *r = s->result;
    span q[2 * EXPLAIN_MAX + 2];
    char parent[41];
    size_t nq = 0, more = 0;
    culprit_bisect_step *step;
    int slower = 0, error = 0;

    /* Only a culprit confirmed slower than its parent has a share to explain. */
    if (r->confirmed == 1)
        error = culprit_bisect__against_parent(s, culprit, parent, &slower, &step);
    if (r->confirmed != 1 || error == CULPRIT_ESKIP || (!error && !slower))
        return culprit_bisect__add_culprit(s, culprit, culprit_bisect__step_of(r, culprit));
    if (error < 0 || (error = pin_share(s, parent, culprit, &step)) < 0 ||
        (error = culprit_bisect__add_explained(s, culprit, step)) < 0)
        return error;
    push(q, &nq, r->good, parent);
    push(q, &nq, culprit, r->bad);
    while (nq && more < EXPLAIN_MAX && unexplained(s)) {
        span sp = q[0];
        int found;
        if (cpu_total(s) > 0 && !isnan(explained(r, 1)))
            culprit_bisect__phase(s->opts,
                                  "explaining the whole change: %.0f%% of it is explained "
                                  "(%.0f%% of its CPU time); searching (%.12s, %.12s]",
                                  100 * explained(r, 0), 100 * explained(r, 1), sp.lo, sp.hi);
        else
            culprit_bisect__phase(s->opts,
                                  "explaining the whole change: %.0f%% of it is explained; "
                                  "searching (%.12s, %.12s]",
                                  100 * explained(r, 0), sp.lo, sp.hi);
        memmove(q, q + 1, --nq * sizeof(*q));
        if ((error = search_span(s, &sp, q, &nq, &found)) < 0)
            return error;
        more += found;
        if (nq > 2 * EXPLAIN_MAX)
            break;
    }
    return 0;
}
