/*
 * One comparison of a bisection session: a candidate measured against a good end
 * through the probe (bisect_internal.h), and judged.
 *
 * After one warm-up run of each (the first run after a build is disturbed by it),
 * the good end and the candidate are run in pairs, back to back, every other pair
 * with the candidate first, and the step is judged on the pairs' differences, in
 * which the slow drift of a shared machine's speed cancels (sign.c). Each run of
 * the command is one sample, so the interval includes what makes one run differ
 * from the next (the noise a within-run interval misses). A candidate is bad when
 * it is significantly slower at `confidence` by more than `threshold`, good when
 * its interval rules such a slowdown out, and when the runs cannot tell, more runs
 * are taken, up to max_runs (Pinpoint-style adaptive sampling); still undecided, it
 * counts as good, and the step says so.
 *
 * A counted metric (culprit_bisect__metric(): instructions under Valgrind) needs none of that:
 * one run of each side, no warm-up (a count does not depend on a warm machine), and
 * detect's deterministic rule on the two counts (decide_counted()).
 */
#include "bisect_internal.h"
#include "culprit/core.h"
#include "culprit/detect.h"
#include "culprit/stats.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The runs of one comparison: the two sides' samples and the pairs' differences. */
typedef struct {
    culprit_bisect__session *s;
    const char *sha[2];     /* indexed by culprit_bisect__side */
    double *x[2], *dx, *lx; /* lx: the pairs' log ratios (pooled.c) */
    size_t n[2], np;
    culprit_bisect__side failed;
    char *reason; /* the probe's message when the candidate failed */
    /* Each kept run's CPU time or floor, when the probe tells it (cn[side] of them, in
     * step with x while every run tells it), the pairs' differences of it, and the
     * runs with preempted samples. out_of_time: the deadline stopped the pairs. */
    double *cx[2], *cdx;
    size_t cn[2], npreempted;
    int out_of_time;
} runs;

int culprit_bisect__build(culprit_bisect__session *s, culprit_bisect__side side, const char *sha)
{
    double started = culprit_time_now_s();
    int built = 0, error;

    error = s->probe->build(s->probe->payload, s->repo, side, sha, &built);
    s->result->builds += built;
    /* A confirmation's budget is for its pairs: a build moves the deadline on by
     * what it took (docs/detection.md, "Paired confirmation"). */
    if (built && s->deadline > 0)
        s->deadline += culprit_time_now_s() - started;
    return error;
}

/* The CPU time of the run just kept on `side`, when the probe knows it (cn stays
 * behind n otherwise): judged by a confirmation, told by every step (its cpu_change). */
static void keep_cpu(runs *r, culprit_bisect__side side)
{
    const culprit_bisect__probe *p = r->s->probe;
    double cpu;
    int preempted;

    if (!p->cpu_of_last || r->cn[side] + 1 != r->n[side] ||
        p->cpu_of_last(p->payload, &cpu, &preempted) < 0)
        return;
    r->cx[side][r->cn[side]++] = cpu;
    r->npreempted += preempted != 0;
}

/*
 * One more run of a side: its commit built on its side (once: a commit whose
 * samples all came from history is never built), then measured. A failure is
 * CULPRIT_ESKIP, r->failed saying which side, the message naming the commit.
 */
static int run_side(runs *r, culprit_bisect__side side, double *x, size_t *n)
{
    culprit_bisect__session *s = r->s;
    const culprit_bisect__probe *p = s->probe;
    const char *sha = r->sha[side];
    size_t builds = s->result->builds;
    int error, ran;

    error = culprit_bisect__build(s, side, sha);
    ran = error == 0;
    if (side == CULPRIT_BISECT__GOOD && s->result->builds != builds)
        s->warm_good[0] = '\0'; /* built: cold */
    if (ran && (error = p->measure(p->payload, side, sha, &x[*n])) == 0) {
        if (side == CULPRIT_BISECT__GOOD)
            snprintf(s->warm_good, sizeof(s->warm_good), "%s", sha);
        (*n)++;
        s->result->runs++;
        if (x == r->x[side])
            keep_cpu(r, side);
    }
    if (error == CULPRIT_ESKIP) {
        r->failed = side;
        if (side == CULPRIT_BISECT__CANDIDATE && !r->reason)
            r->reason = culprit_strdup(culprit_error_last());
        culprit_error_prefix("%s%.12s %s: ", side == CULPRIT_BISECT__GOOD ? "the good end " : "",
                             sha, ran ? "fails" : "does not build");
        culprit_error_recode(CULPRIT_ESKIP);
    }
    return error;
}

/*
 * One run of each side that needs runs in this step, not kept: the first run after a
 * build is disturbed by it (measured on this machine, docs/bisect.md: a quarter
 * slower on average), and a candidate is built just before its first run. The
 * candidate goes first, so that its build comes before both kept runs.
 */
static int warm_up(runs *r, int good, int cand)
{
    double scratch[1];
    size_t n = 0;
    int error = 0;

    if (cand && (error = run_side(r, CULPRIT_BISECT__CANDIDATE, scratch, &n)) < 0)
        return error;
    n = 0;
    if (good && (error = run_side(r, CULPRIT_BISECT__GOOD, scratch, &n)) < 0)
        return error;
    return 0;
}

static int tell_pair(runs *r);

/*
 * Runs until each side has `target` runs: good end and candidate alternately, in
 * pairs, each side warmed up before its first kept run of the step.
 */
static int run_pairs(runs *r, size_t target, int warm[2])
{
    const culprit_bisect__side G = CULPRIT_BISECT__GOOD, C = CULPRIT_BISECT__CANDIDATE;
    int error;

    while (r->n[G] < target || r->n[C] < target) {
        int need_g = r->n[G] < target, need_c = r->n[C] < target;
        if (r->s->deadline > 0 && culprit_time_now_s() >= r->s->deadline) {
            r->out_of_time = 1; /* judged on the pairs so far */
            return 0;
        }
        if ((need_g && !warm[G]) || (need_c && !warm[C])) {
            if ((error = warm_up(r, need_g && !warm[G], need_c && !warm[C])) < 0)
                return error;
            warm[G] |= need_g;
            warm[C] |= need_c;
        }
        /* Every other pair runs the candidate first: a drift of the machine within
         * a pair then adds to half the differences and takes from the others. */
        if (need_g && need_c && r->np % 2) {
            if ((error = run_side(r, C, r->x[C], &r->n[C])) < 0 ||
                (error = run_side(r, G, r->x[G], &r->n[G])) < 0)
                return error;
        } else if ((need_g && (error = run_side(r, G, r->x[G], &r->n[G])) < 0) ||
                   (need_c && (error = run_side(r, C, r->x[C], &r->n[C])) < 0)) {
            return error;
        }
        if (need_g && need_c) {
            if (r->cn[C] == r->n[C] && r->cn[G] == r->n[G])
                r->cdx[r->np] = r->cx[C][r->cn[C] - 1] - r->cx[G][r->cn[G] - 1];
            r->lx[r->np] = culprit_bisect__log_ratio(r->x[C][r->n[C] - 1], r->x[G][r->n[G] - 1]);
            r->dx[r->np++] = r->x[C][r->n[C] - 1] - r->x[G][r->n[G] - 1];
            if ((error = tell_pair(r)) < 0)
                return error;
        }
    }
    return 0;
}

/* Samples history already holds count first (probe->reuse). */
static int reuse_history(runs *r, size_t max_runs)
{
    const culprit_bisect__side G = CULPRIT_BISECT__GOOD, C = CULPRIT_BISECT__CANDIDATE;
    const culprit_bisect__probe *p = r->s->probe;
    int error;

    /* History matches on this build's fingerprint: known after one run of our own. */
    if (p->history_pending && p->history_pending(p->payload) &&
        (error = run_side(r, G, r->x[G], &r->n[G])) < 0)
        return error;
    if (p->reuse) {
        size_t before = r->n[G] + r->n[C];
        p->reuse(p->payload, r->sha[G], r->x[G], &r->n[G], max_runs);
        p->reuse(p->payload, r->sha[C], r->x[C], &r->n[C], max_runs);
        r->s->result->reused += r->n[G] + r->n[C] - before;
    }
    return 0;
}

static double mean_of(const double *x, size_t n)
{
    double sum = 0;

    for (size_t i = 0; i < n; i++)
        sum += x[i];
    return sum / (double)n;
}

/* A side's count from an earlier step of the session that counted the same commit: a
 * count is exact, so counting the commit again (a build and a run under callgrind)
 * would give the same figure. */
static void reuse_counted(runs *r, const culprit_bisect_step *step)
{
    const culprit_bisect_result *res = r->s->result;

    for (int side = 0; side < 2; side++)
        for (size_t i = 0; i < res->nsteps && !r->n[side]; i++) {
            const culprit_bisect_step *e = &res->steps[i];
            if (e == step || !e->deterministic || e->verdict == CULPRIT_BISECT_SKIP)
                continue;
            if (!strcmp(e->sha, r->sha[side]))
                r->x[side][r->n[side]++] = e->mean_ns;
            else if (!strcmp(e->good, r->sha[side]))
                r->x[side][r->n[side]++] = e->good_mean_ns;
        }
}

/* A step on counts: samples in history first, then a count from an earlier step
 * (reuse_counted), then one run of each side that has none. Bad when detect's rule
 * (culprit_detect_counted_change) calls the change a regression, and conclusive; but
 * futile below futile_below as a timed step is (a count shows any slowdown: on libxml2
 * #726 a +8.4% commit, 2% of a 50x range, became the culprit): good, undecided. */
static int decide_counted(runs *r, culprit_bisect_step *step)
{
    const culprit_bisect__side G = CULPRIT_BISECT__GOOD, C = CULPRIT_BISECT__CANDIDATE;
    size_t reused = r->s->result->reused;
    int error;

    if ((error = reuse_history(r, 1)) < 0)
        return error;
    reuse_counted(r, step);
    if (!r->n[G] && r->s->good_count > 0) { /* the good end's count, known (fanout.c) */
        r->x[G][r->n[G]++] = r->s->good_count;
        r->s->result->reused++;
    }
    if ((!r->n[C] && (error = run_side(r, C, r->x[C], &r->n[C])) < 0) ||
        (!r->n[G] && (error = run_side(r, G, r->x[G], &r->n[G])) < 0))
        return error;
    step->deterministic = 1;
    step->good_mean_ns = mean_of(r->x[G], r->n[G]);
    step->mean_ns = mean_of(r->x[C], r->n[C]);
    step->change = step->change_low = step->change_high = step->mean_ns / step->good_mean_ns - 1;
    step->runs = r->n[C] < r->n[G] ? r->n[C] : r->n[G];
    step->reused = r->s->result->reused - reused;
    step->paired = 0;
    step->verdict = culprit_detect_counted_change(
                        step->change, r->s->opts->measure.count_threshold) == CULPRIT_VERDICT_MINOR
                        ? CULPRIT_BISECT_BAD
                        : CULPRIT_BISECT_GOOD;
    if ((step->undecided =
             step->verdict == CULPRIT_BISECT_BAD && step->change < r->s->futile_below))
        step->verdict = CULPRIT_BISECT_GOOD;
    /* A count is exact: the same pair counted again gives the same counts, so a bad
     * step is as strong as any confirmation of it (search.c skips that). */
    step->conclusive = step->verdict == CULPRIT_BISECT_BAD;
    return 0;
}

/*
 * The looks of the sequential rule (docs/bisect.md, "Stopping early"). Before the
 * min_runs look, EARLY_LOOKS looks at EARLY_N[k] pairs may stop a step whose
 * evidence is overwhelming (a slowdown several times the noise, or none at all);
 * each spends EARLY_SHARE of the step's error rate alpha = 1 - confidence, and the
 * regular looks (min_runs, doubling up to max_runs) judge at 1 - (1 - EARLY_SHARE *
 * (EARLY_LOOKS + 1)) alpha: the pooled look (pooled.c) before them all spends one
 * EARLY_SHARE too. By Bonferroni's inequality, whatever the correlation between
 * looks, the chance that a step with no slowdown is judged bad at any of the early
 * looks, or any of the regular ones, is no larger than before; the early looks only
 * take a tenth of it from the regular ones. With t's fat tails on 3 to 5 degrees of
 * freedom, an early look needs an effect of about 8 to 15 standard errors: a 3x
 * regression stops there, a 20% one on a noisy machine goes on to min_runs.
 */
#define EARLY_LOOKS 2
static const size_t EARLY_N[EARLY_LOOKS] = {4, 6};
#define EARLY_SHARE 0.05

/* A judgement is "conclusive" at this confidence: 1 - alpha^2, the error of two
 * independent comparisons at alpha both wrong (the confirmation the culprit would
 * otherwise get, search.c). */
static double conclusive_confidence(double confidence)
{
    return 1 - (1 - confidence) * (1 - confidence);
}

/* The regular looks of a step (min_runs, doubling, up to max_runs; the session's
 * extra look). */
static size_t regular_looks(const culprit_bisect__session *s)
{
    size_t n = culprit_bisect__min_runs(s->opts), looks = 1;

    while ((n = culprit_bisect__next_look(s->opts, s->extra_look, n)) != 0)
        looks++;
    return looks;
}

/* A confirmation's rule: CPU floors when a run was preempted and every run told its
 * floor, in pairs. */
static int judged_on_cpu(const runs *r, int paired)
{
    const culprit_bisect__side G = CULPRIT_BISECT__GOOD, C = CULPRIT_BISECT__CANDIDATE;

    return r->s->cpu_if_preempted && paired && r->npreempted > 0 && r->cn[G] == r->n[G] &&
           r->cn[C] == r->n[C];
}

/* The change and its interval by the step's rule (judged_on_cpu(): CPU floors by the
 * sign test, sign.c, at every look, each bound missing at most (1 - confidence) /
 * looks; else as times are, the mean inside the fences, at `confidence`), into `step`.
 * Not the mean of floors from CULPRIT_BISECT__FENCE_MIN_N pairs on, as times are: beside
 * two CPU hogs the good end's floors in slow phases (-70% to -77% differences) stayed
 * inside fences that the phases themselves widened, and at 20 pairs a +10% commit's
 * mean fell to -7.4% while the pairs' median said +9%: stopped as not slower. */
static int judge_by_rule(runs *r, culprit_bisect_step *step, int paired, double confidence,
                         size_t looks)
{
    const culprit_bisect__side G = CULPRIT_BISECT__GOOD, C = CULPRIT_BISECT__CANDIDATE;

    if (judged_on_cpu(r, paired))
        return culprit_bisect__judge_floors(step, looks, r->cx[G], r->cn[G], r->cx[C], r->cn[C],
                                            r->cdx, r->np, confidence);
    return culprit_bisect__judge_runs(step, r->x[G], r->n[G], r->x[C], r->n[C],
                                      paired ? r->dx : NULL, r->np, confidence);
}

/*
 * The equivalence stop of a confirmation (docs/detection.md, "Paired confirmation"),
 * at any look that did not decide: the change's one-sided upper bound at 1 -
 * CULPRIT_BISECT__BELOW_TAIL (the sign test's order statistic, or the t interval's
 * upper end at 1 - 2 tail two-sided) below the threshold says the later side is not
 * slower by what matters, and the pairs stop there (Pinpoint's "same"). An unchanged
 * commit's floors vary by about the threshold, so at 95% they rarely rule it out
 * before the budget; at 80% one-sided, 10 pairs of them usually do. A slowdown
 * whose pairs' median is at the threshold is stopped this way at most
 * CULPRIT_BISECT__BELOW_TAIL of the time at each look; a larger one far less often
 * (its pairs mostly exceed the threshold). 1 in *below with the bound in *high.
 */
static int shown_below(runs *r, int paired, int *below, double *high)
{
    culprit_bisect_step t;
    int error;

    *below = 0;
    if (!r->s->stop_below || !paired || r->np < 2)
        return 0;
    memset(&t, 0, sizeof(t));
    /* looks 1: the floors' bound misses at most 1 - (1 - tail) = tail; the t interval
     * at 1 - 2 tail two-sided misses above at most tail */
    if ((error = judge_by_rule(r, &t, paired,
                               judged_on_cpu(r, paired) ? 1 - CULPRIT_BISECT__BELOW_TAIL
                                                        : 1 - 2 * CULPRIT_BISECT__BELOW_TAIL,
                               1)) < 0)
        return error;
    *high = t.change_high;
    *below = t.change_high < r->s->opts->measure.threshold;
    return 0;
}

/* Judges the runs so far at `confidence` into `step` and says whether it is decided:
 * bad (significantly slower, and by more than the threshold: stats' rule, as
 * verdicts and the call-tree diff judge) or good (a slowdown beyond the threshold
 * ruled out). */
static int judge_at(runs *r, culprit_bisect_step *step, int paired, double confidence, int *decided)
{
    const culprit_bisect__side G = CULPRIT_BISECT__GOOD, C = CULPRIT_BISECT__CANDIDATE;
    double threshold = r->s->opts->measure.threshold;
    int cpu = judged_on_cpu(r, paired), error;

    if ((error = judge_by_rule(r, step, paired, confidence, regular_looks(r->s))) < 0)
        return error;
    step->cpu = cpu;
    step->preempted = r->npreempted;
    step->runs = r->n[C] < r->n[G] ? r->n[C] : r->n[G];
    if (culprit_stats_slower_beyond(step->change_low, step->change, threshold))
        step->verdict = CULPRIT_BISECT_BAD;
    else
        step->verdict = CULPRIT_BISECT_GOOD;
    *decided = step->verdict == CULPRIT_BISECT_BAD || step->change_high < threshold;
    return 0;
}

/* After each pair of a confirmation: its figures so far (at the step's confidence). */
static int tell_pair(runs *r)
{
    culprit_bisect_step so_far;
    int decided, error;

    if (!r->s->on_pair)
        return 0;
    memset(&so_far, 0, sizeof(so_far));
    so_far.change = so_far.change_low = so_far.change_high = NAN;
    so_far.runs = so_far.paired = r->np;
    if (r->np >= 2 &&
        (error = judge_at(r, &so_far, 1, r->s->opts->measure.confidence, &decided)) < 0)
        return error;
    r->s->on_pair(r->s->on_pair_payload, &so_far);
    return 0;
}

/* A bad step is conclusive when it is bad at conclusive_confidence() too (on the
 * pooled spread when the pooled look decided it): the figures reported stay those of
 * the look that decided it. */
static int mark_conclusive(runs *r, culprit_bisect_step *step, int paired, int pooled)
{
    culprit_bisect_step strict = *step;
    double confidence = conclusive_confidence(r->s->opts->measure.confidence);
    int error, decided;

    if (step->verdict != CULPRIT_BISECT_BAD)
        return 0;
    if ((error = judge_at(r, &strict, paired, confidence, &decided)) < 0)
        return error;
    if (pooled)
        culprit_bisect__pooled_judge(r->s, &strict, r->lx, r->np, confidence, &decided);
    step->conclusive = strict.verdict == CULPRIT_BISECT_BAD;
    return 0;
}

/* While the culprit's share is pinned (s->pin_total, explain.c): whether the step's
 * interval, on the session's pooled spread when there is one (pooled.c: the step's
 * own when wider), puts its share of the range wholly on one side of the line. */
static int share_pinned(runs *r, const culprit_bisect_step *step)
{
    culprit_bisect_step on_pool = *step;
    int decided;

    culprit_bisect__pooled_judge(r->s, &on_pool, r->lx, r->np, r->s->opts->measure.confidence,
                                 &decided);
    return culprit_bisect__share_pinned(on_pool.change_low, on_pool.change_high, r->s->pin_total);
}

/*
 * Measures and decides (bisect_internal.h): samples already in history count first;
 * runs are added, good end and candidate alternately, and judged at the looks of the
 * sequential rule until the step is decided or has max_runs runs ("otherwise good":
 * the paper's rule).
 */
static int measure_and_decide(runs *r, culprit_bisect_step *step, size_t max_runs)
{
    const culprit_bisect_options *o = r->s->opts;
    double alpha = 1 - o->measure.confidence;
    size_t min = culprit_bisect__min_runs(o), target = min, reused = r->s->result->reused, look = 0;
    int error, paired, pooled, on_pool = 0, decided = 0, warm[2] = {0, 0};

    if ((error = reuse_history(r, max_runs)) < 0)
        return error;
    paired = r->s->result->reused == reused;
    /* The good end ran last on its side, unbuilt since (the candidate of the step
     * before, or the same good end): warm already. */
    warm[CULPRIT_BISECT__GOOD] = !strcmp(r->s->warm_good, r->sha[CULPRIT_BISECT__GOOD]);
    /* The pooled look first (pooled.c), when earlier steps tell the session's spread:
     * it spends a share of alpha as an early look does. */
    pooled = paired && !o->measure.min_runs && r->s->pooled_df >= CULPRIT_BISECT__POOLED_MIN_DF;
    for (;;) {
        int early = !o->measure.min_runs && look < EARLY_LOOKS && EARLY_N[look] < min;
        double confidence = early || pooled ? 1 - EARLY_SHARE * alpha
                                            : 1 - (1 - EARLY_SHARE * (EARLY_LOOKS + 1)) * alpha;
        if ((error = run_pairs(r,
                               pooled  ? CULPRIT_BISECT__POOLED_N
                               : early ? EARLY_N[look]
                                       : target,
                               warm)) < 0)
            return error;
        if (r->out_of_time && (r->n[0] < 2 || r->n[1] < 2)) {
            step->verdict = CULPRIT_BISECT_GOOD; /* nothing to judge: unknown */
            step->undecided = step->out_of_time = 1;
            step->change = step->change_low = step->change_high = NAN;
            step->runs = r->n[0] < r->n[1] ? r->n[0] : r->n[1];
            return 0;
        }
        if ((error = judge_at(r, step, paired, confidence, &decided)) < 0)
            return error;
        if (pooled)
            on_pool = culprit_bisect__pooled_judge(r->s, step, r->lx, r->np, confidence, &decided);
        /* Pinning a share: a verdict before min_runs pairs counts only once the share is
         * known well enough to tell whether the rest of the range is searched. */
        if (decided && r->s->pin_total > 0 && paired && step->runs < min && !share_pinned(r, step))
            decided = 0;
        if (!decided && (error = shown_below(r, paired, &step->below, &step->below_high)) < 0)
            return error;
        if (step->below) { /* not slower by what matters: the figures of this look */
            step->verdict = CULPRIT_BISECT_GOOD;
            step->undecided = 0;
            step->out_of_time = r->out_of_time;
            step->reused = r->s->result->reused - reused;
            return 0;
        }
        if (r->out_of_time) { /* the budget's end: the figures so far */
            step->undecided = !decided;
            step->out_of_time = 1;
            step->reused = r->s->result->reused - reused;
            return mark_conclusive(r, step, paired, on_pool);
        }
        step->reused = r->s->result->reused - reused;
        /* Futility, at every look (the early ones with their stricter interval): the
         * candidate is surely not slower by half the range's slowdown, so it does
         * not hold the regression being bisected; more runs could only show a
         * smaller one. Good, and undecided (not shown below the threshold). */
        if (!decided && r->s->futile_below > 0 && step->change_high < r->s->futile_below) {
            step->verdict = CULPRIT_BISECT_GOOD;
            step->undecided = 1;
            return 0;
        }
        if (decided || (!early && !pooled && step->runs >= max_runs)) {
            step->undecided = !decided;
            return mark_conclusive(r, step, paired, on_pool);
        }
        if (pooled) { /* on to the early looks */
            pooled = on_pool = 0;
            continue;
        }
        if (early) {
            look++;
            continue;
        }
        target = step->runs * 2 < max_runs ? step->runs * 2 : max_runs;
        /* A confirmation judging floors (no reused runs: runs == the look) takes its
         * extra look; the time's t interval keeps the looks it had. */
        if (r->s->extra_look && judged_on_cpu(r, paired))
            target = culprit_bisect__next_look(o, r->s->extra_look, step->runs);
    }
}

int culprit_bisect__compare(culprit_bisect__session *s, culprit_bisect_step *step, const char *good,
                            const char *sha, size_t max_runs, culprit_bisect__side *failed)
{
    runs r;
    int error;

    memset(&r, 0, sizeof(r));
    r.s = s;
    r.sha[CULPRIT_BISECT__GOOD] = good;
    r.sha[CULPRIT_BISECT__CANDIDATE] = sha;
    r.failed = CULPRIT_BISECT__CANDIDATE;
    r.x[0] = calloc(max_runs, sizeof(double));
    r.x[1] = calloc(max_runs, sizeof(double));
    r.dx = calloc(max_runs, sizeof(double));
    r.lx = calloc(max_runs, sizeof(double));
    r.cx[0] = calloc(max_runs, sizeof(double));
    r.cx[1] = calloc(max_runs, sizeof(double));
    r.cdx = calloc(max_runs, sizeof(double));
    if (!r.x[0] || !r.x[1] || !r.dx || !r.lx || !r.cx[0] || !r.cx[1] || !r.cdx)
        error = CULPRIT_ERROR_NOMEM();
    else if (culprit_bisect__counted(s->opts))
        error = decide_counted(&r, step);
    else if ((error = measure_and_decide(&r, step, max_runs)) == 0) {
        culprit_bisect__cpu_change(step, r.cx, r.cn, r.n);
        if (step->paired)
            culprit_bisect__pool_add(s, r.lx, r.np); /* the step's spread, for later steps */
    }
    if (error == CULPRIT_ESKIP) {
        *failed = r.failed;
        if (r.failed == CULPRIT_BISECT__CANDIDATE) {
            /* The step's reason is the probe's, without the commit the step names. */
            step->verdict = CULPRIT_BISECT_SKIP;
            step->skip_reason = r.reason;
            r.reason = NULL;
        }
    }
    free(r.reason);
    free(r.x[0]);
    free(r.x[1]);
    free(r.dx);
    free(r.lx);
    free(r.cx[0]);
    free(r.cx[1]);
    free(r.cdx);
    return error;
}

int culprit_bisect__check_pair(culprit_bisect__session *s, const char *good, const char *bad,
                               size_t max_runs, int *slower, culprit_bisect_step **step_out,
                               culprit_bisect__side *failed)
{
    culprit_bisect__side side = CULPRIT_BISECT__CANDIDATE;
    culprit_bisect_step *step;
    int error;

    /* A side that cannot be built or run is CULPRIT_ESKIP, with the message set: the
     * initial check turns it into an error, the scans step over the commit. */
    if ((error = culprit_bisect__add_step(&step, s, good, bad)) < 0)
        return error;
    error = culprit_bisect__compare(s, step, good, bad, max_runs, &side);
    if (failed)
        *failed = side;
    if (error < 0)
        return error;
    *slower = step->verdict == CULPRIT_BISECT_BAD;
    if (step_out)
        *step_out = step;
    if (s->opts->measure.progress)
        s->opts->measure.progress(step, s->result->nsteps - 1, 0, s->opts->measure.payload);
    return 0;
}
