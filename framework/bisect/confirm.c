/*
 * A paired confirmation (`culprit check --confirm --build CMD --run CMD`, and
 * `--investigate` before it bisects): the baseline commit and the commit judged,
 * built in temporary checkouts and measured against each other as one step of a
 * bisection, by the bisection's own comparison (comparison.c: warm-up runs,
 * interleaved pairs in alternating order, the pairs' differences judged, more pairs
 * while undecided up to max_runs). This is how Pinpoint confirms on one bot what a
 * CI history only suggests: the drift of a shared machine cancels in pairs, where
 * one run per commit could not decide.
 *
 * A confirmation finishes (docs/detection.md, "Paired confirmation"): the run
 * command runs the flagged test alone ($CULPRIT_FILTER, probe.c), no pair starts
 * after the time budget, and when a run's samples were preempted the pairs judge
 * CPU time, which the scheduler's waits on a loaded machine do not reach.
 */
#include "bisect_internal.h"
#include "culprit/core.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int culprit_bisect__confirm_with_probe(culprit_bisect_confirmation *out,
                                       const culprit_bisect_options *opts,
                                       const culprit_bisect__probe *probe,
                                       const culprit_bisect__confirm_rules *rules)
{
    culprit_bisect_result result;
    culprit_bisect__session s;
    culprit_bisect_step *step = NULL;
    culprit_bisect__side failed = CULPRIT_BISECT__CANDIDATE;
    double started = culprit_time_now_s();
    int error, slower = 0;

    memset(out, 0, sizeof(*out));
    memset(&result, 0, sizeof(result));
    memset(&s, 0, sizeof(s));
    out->change = out->change_low = out->change_high = NAN;
    out->slower = -1;
    if ((error = culprit_bisect_options_check(opts)) < 0)
        goto cleanup;
    s.opts = opts;
    s.result = &result;
    s.probe = probe;
    if (rules) {
        s.cpu_if_preempted = rules->cpu_if_preempted;
        s.deadline = rules->deadline;
        s.on_pair = rules->on_pair;
        s.on_pair_payload = rules->on_pair_payload;
        s.good_count = rules->good_count ? *rules->good_count : 0;
        s.stop_below = rules->stop_below;
        /* a confirmation that may judge floors by the sign test */
        s.extra_look = rules->cpu_if_preempted ? CULPRIT_BISECT__CONFIRM_LOOK : 0;
    }
    if ((error = culprit_vcs_open(&s.repo,
                                  opts->measure.repository ? opts->measure.repository : ".")) < 0 ||
        (error = culprit_vcs_resolve(result.good, s.repo, opts->good)) < 0 ||
        (error = culprit_vcs_resolve(result.bad, s.repo, opts->bad)) < 0)
        goto cleanup;
    if ((error =
             culprit_bisect__check_pair(&s, result.good, result.bad, culprit_bisect__max_runs(opts),
                                        &slower, &step, &failed)) < 0) {
        if (error == CULPRIT_ESKIP) { /* say which side could not be built or run */
            if (rules && rules->failed)
                *rules->failed = failed;
            culprit_error_prefix(failed == CULPRIT_BISECT__GOOD ? "the baseline "
                                                                : "the commit judged ");
            error = culprit_error_recode(CULPRIT_ERROR);
        }
        goto cleanup;
    }
    out->slower = slower ? 1 : step && step->undecided ? -1 : 0;
    if (step) {
        out->change = step->change;
        out->change_low = step->change_low;
        out->change_high = step->change_high;
        out->runs = step->runs;
        out->pairs = step->paired;
        out->deterministic = step->deterministic;
        out->cpu = step->cpu;
        out->preempted = step->preempted;
        out->out_of_time = step->out_of_time;
        if (rules && rules->good_count)
            *rules->good_count = step->deterministic ? step->good_mean_ns : 0;
        out->below = step->below;
        out->below_high = step->below_high;
        if (out->out_of_time && out->slower == -1)
            out->decide_pairs =
                culprit_bisect__next_look(opts, out->cpu ? s.extra_look : 0, out->runs);
    }
    out->builds = result.builds;
    out->seconds = culprit_time_now_s() - started;
cleanup:
    if (probe->dispose)
        probe->dispose(probe->payload);
    culprit_vcs_free(s.repo);
    culprit_bisect__dispose_keeping_error(&result);
    return error;
}

int culprit_bisect_confirm(culprit_bisect_confirmation *out, const culprit_bisect_options *opts)
{
    culprit_bisect__probe probe;
    int error;

    memset(out, 0, sizeof(*out));
    out->slower = -1;
    if ((error = culprit_bisect_options_check(opts)) < 0 ||
        (error = culprit_bisect__probe_open(&probe, opts)) < 0)
        return error;
    return culprit_bisect__confirm_with_probe(out, opts, &probe, NULL);
}

int culprit_bisect_confirm_options_init(culprit_confirm_options *opts, unsigned int version)
{
    static const culprit_confirm_options defaults = CULPRIT_CONFIRM_OPTIONS_INIT;

    return culprit_options_init_from(opts, &defaults, sizeof(defaults), version,
                                     CULPRIT_CONFIRM_OPTIONS_VERSION, "confirm");
}

/* One test's confirmation as its progress reports it. */
typedef struct {
    const culprit_confirm_options *o;
    culprit_confirm_progress p;
    double started;
} one_test;

static void tell(one_test *t, culprit_confirm_event event)
{
    t->p.event = event;
    t->p.elapsed_s = culprit_time_now_s() - t->started;
    if (t->o->progress)
        t->o->progress(&t->p, t->o->payload);
}

static void on_pair(void *payload, const culprit_bisect_step *so_far)
{
    one_test *t = payload;

    t->p.pairs = so_far->paired;
    t->p.change = so_far->change;
    t->p.change_low = so_far->change_low;
    t->p.change_high = so_far->change_high;
    t->p.cpu = so_far->cpu;
    tell(t, CULPRIT_CONFIRM_PAIR);
}

/* 1 when opts->which selects test i of the check. */
static int selected(const culprit_check_result *result, size_t i, culprit_confirm_which which)
{
    const culprit_verdict *v = &result->verdicts[i];

    if (which == CULPRIT_CONFIRM_UNCONFIRMED)
        return culprit_detect_check_flagged(result, i) && v->kind == CULPRIT_VERDICT_MINOR &&
               !culprit_detect_verdict_confirmed(v);
    return culprit_detect_wants_pairs(v, culprit_detect_check_flagged(result, i));
}

/* The baseline commit of test i: the newest earlier run the check could compare
 * with. 0 with good[0] == '\0' when there is none. */
static int baseline_commit(char good[41], const culprit_check_result *result, size_t i,
                           const culprit_history_runs *runs, const char *const *bases,
                           size_t nbases, int allow_mixed)
{
    culprit_baseline b;
    int error;

    good[0] = '\0';
    if ((error = culprit_detect_baseline_for(&b, runs, result->now_runs[i], result->now[i], bases,
                                             nbases, 1, allow_mixed)) == 0 &&
        b.n > 0)
        snprintf(good, 41, "%s", b.runs[0]->commit);
    culprit_detect_baseline_dispose(&b);
    return error == CULPRIT_ERROR ? error : 0;
}

/* The real probe of the confirmations against one baseline commit: the two ends are
 * built once for every test confirmed between them (the run command and the commit
 * judged are the same for all). */
typedef struct {
    culprit_bisect__probe probe;
    char good[41]; /* its baseline commit; "" when none is open */
} shared_probe;

static void shared_dispose(shared_probe *sp)
{
    if (sp->good[0] && sp->probe.dispose)
        sp->probe.dispose(sp->probe.payload);
    sp->good[0] = '\0';
}

/* The probe for a test confirmed against `good` with `pair`: the open one when it has
 * that baseline, else a new one; in *out without its dispose (sp keeps it). Its runs
 * run the test declared as `name` (NULL: not known) alone from the first one on. */
static int probe_for(culprit_bisect__probe *out, shared_probe *sp, const char *good,
                     const culprit_bisect_options *pair, const char *name)
{
    int error;

    if (sp->good[0] && !strcmp(sp->good, good)) {
        culprit_bisect__probe_retarget(&sp->probe, pair);
    } else {
        shared_dispose(sp);
        if ((error = culprit_bisect__probe_open(&sp->probe, pair)) < 0)
            return error;
        sp->probe.reuse = NULL; /* fresh pairs: history's runs are what is being confirmed */
        culprit_bisect__probe_max_samples(&sp->probe, CULPRIT_BISECT__CONFIRM_SAMPLES);
        snprintf(sp->good, sizeof(sp->good), "%s", good);
    }
    if (name && (error = culprit_bisect__probe_test_name(&sp->probe, name)) < 0)
        return error;
    *out = sp->probe;
    out->dispose = NULL;
    return 0;
}

/* Confirms test i against its baseline commit `good`, judging its verdict again. */
static int confirm_test(culprit_check_result *result, size_t i, const char *good,
                        const char *commit, const culprit_confirm_options *o, shared_probe *sp)
{
    culprit_verdict *v = &result->verdicts[i];
    culprit_bisect_options pair = o->pair;
    culprit_bisect_confirmation c;
    culprit_bisect__confirm_rules rules = {1, 0, on_pair, NULL, NULL, 1, NULL};
    culprit_bisect__probe probe;
    culprit_paired_confirmation p;
    one_test t;
    int error;

    memset(&t, 0, sizeof(t));
    t.o = o;
    t.started = culprit_time_now_s();
    t.p = (culprit_confirm_progress){.test = v->test, .good = good, .bad = commit};
    t.p.max_pairs = culprit_bisect__max_runs(&pair);
    t.p.budget_s = o->budget_s;
    t.p.change = t.p.change_low = t.p.change_high = NAN;
    pair.good = good;
    pair.bad = commit;
    pair.perf.test = v->test;
    rules.deadline = o->budget_s > 0 ? t.started + o->budget_s : 0;
    rules.on_pair_payload = &t;
    tell(&t, CULPRIT_CONFIRM_START);
    error = probe_for(&probe, sp, good, &pair, result->now[i] ? result->now[i]->name : NULL);
    if (error < 0 || (error = culprit_bisect__confirm_with_probe(&c, &pair, &probe, &rules)) < 0) {
        t.p.error = culprit_error_last();
        tell(&t, CULPRIT_CONFIRM_FAILED);
        return 0;
    }
    if (c.out_of_time && isnan(c.change)) { /* too little measured: the verdict stays */
        t.p.error = "the time budget ran out before the first pair";
        tell(&t, CULPRIT_CONFIRM_FAILED);
        return 0;
    }
    /* The budget that next look needs at this pace: the budget held c.runs pairs and
     * the warm-up pair, rounded up to 10 s. */
    if (c.decide_pairs && o->budget_s > 0)
        c.decide_budget_s =
            10 * ceil(o->budget_s * (double)(c.decide_pairs + 1) / (double)(c.runs + 1) / 10);
    p = (culprit_paired_confirmation){c.pairs ? c.pairs : c.runs,
                                      c.change,
                                      c.change_low,
                                      c.change_high,
                                      c.slower,
                                      c.cpu,
                                      c.preempted,
                                      c.out_of_time,
                                      c.below,
                                      c.below_high,
                                      c.decide_pairs,
                                      c.decide_budget_s};
    if (culprit_detect_apply_paired(v, &p, o->confidence) < 0)
        return CULPRIT_ERROR;
    t.p.pairs = p.pairs;
    t.p.change = c.change;
    t.p.change_low = c.change_low;
    t.p.change_high = c.change_high;
    t.p.cpu = c.cpu;
    t.p.result = &c;
    tell(&t, CULPRIT_CONFIRM_DONE);
    return 0;
}

int culprit_bisect_confirm_check(culprit_check_result *result, const culprit_history_runs *runs,
                                 const char *commit, const char *const *bases, size_t nbases,
                                 const culprit_confirm_options *o)
{
    char good[41];
    shared_probe sp;
    int error = 0;

    if (!o)
        return culprit_error_set(CULPRIT_EINVALID, "confirm options: none given");
    if ((error = culprit_options_check_version(o->version, CULPRIT_CONFIRM_OPTIONS_VERSION,
                                               "confirm")) < 0)
        return error;
    if (!(o->budget_s >= 0) || !(o->confidence > 0 && o->confidence < 1))
        return culprit_error_set(CULPRIT_EINVALID,
                                 "confirm options out of range (budget >= 0, confidence in (0,1))");
    /* the template, checked once with the ends and test it lacks */
    if ((error = culprit_bisect__check_template(&o->pair, o->pair.perf.run ? "test" : NULL)) < 0)
        return error;
    sp.good[0] = '\0';
    for (size_t i = 0; i < result->n && error == 0; i++) {
        if (!selected(result, i, o->which))
            continue;
        if ((error = baseline_commit(good, result, i, runs, bases, nbases, o->allow_mixed)) == 0 &&
            good[0])
            error = confirm_test(result, i, good, commit, o, &sp);
    }
    shared_dispose(&sp);
    return error;
}
