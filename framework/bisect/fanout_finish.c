/*
 * The end of a fanned-out bisection (docs/bisect.md, "Fanning out"): the probes'
 * answer judged against its first parent on this runner, with the normal
 * bisection's last steps, and, when that check rejects it, the search finished on
 * this runner. The answer never rests on a record or a count another runner pushed:
 * both ends of every comparison made here are built and measured here, nothing
 * taken from history (a record in the shared ref can change the search's path and
 * its cost, never its answer: "Security" in docs/bisect.md).
 *
 * A rejected answer (no slower than its parent, or not shown slower in runs of its
 * own: its confirmation) means a record misjudged a commit:
 * the answer's own "bad" (the culprit lies above it) or its parent's "good" (below
 * it). Leaving those two records out, the others leave a range (G, B] that holds
 * the culprit when no other record is wrong; it is bisected sequentially on this
 * runner (its steps against a moving good end, its own confirmation and searching
 * again). When that range shows no culprit either (more than one record was
 * wrong), the whole range is bisected sequentially, as `culprit bisect` without
 * --plan/--jobs would.
 */
#include "bisect_internal.h"
#include "culprit/core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The probe `r` as a step of round r->round (its subject read from `repo`). */
static int probe_step(culprit_bisect_step *st, const culprit_fanout_record *r, const char *good,
                      culprit_vcs *repo)
{
    culprit_vcs_commit c;

    memset(st, 0, sizeof(*st));
    memcpy(st->sha, r->sha, 41);
    memcpy(st->good, good, 41);
    st->verdict = r->verdict;
    st->round = r->round;
    st->good_mean_ns = st->mean_ns = NAN;
    st->change = r->change;
    st->change_low = r->change_low;
    st->change_high = r->change_high;
    st->runs = st->paired = r->pairs;
    if (culprit_vcs_commit_info(&c, repo, r->sha) == 0) {
        st->subject = c.subject;
        c.subject = NULL;
        culprit_vcs_commit_dispose(&c);
    } else
        culprit_error_clear();
    if (r->verdict == CULPRIT_BISECT_SKIP && r->note &&
        !(st->skip_reason = culprit_strdup(r->note)))
        return CULPRIT_ERROR_NOMEM();
    return 0;
}

/* The probes the search rested on (the records replayed), round by round, ahead of
 * the last steps in out->steps: the report's bisection table shows every round. */
static int prepend_rounds(culprit_bisect_result *out, const culprit_fanout_state *state,
                          culprit_vcs *repo)
{
    size_t n = 0, at = 0, last = 0;
    culprit_bisect_step *steps;
    int error = 0;

    for (size_t i = 0; i < state->nrecords; i++)
        if (state->records[i].used) {
            n++;
            last = state->records[i].round > last ? state->records[i].round : last;
        }
    if (!n)
        return 0;
    if (!(steps = calloc(n + out->nsteps, sizeof(*steps))))
        return CULPRIT_ERROR_NOMEM();
    for (size_t round = 1; round <= last; round++) /* by round, each round's in record order */
        for (size_t i = 0; error == 0 && i < state->nrecords; i++)
            if (state->records[i].used && state->records[i].round == round)
                error = probe_step(&steps[at++], &state->records[i], state->good, repo);
    memcpy(steps + at, out->steps, out->nsteps * sizeof(*steps));
    free(out->steps);
    out->steps = steps;
    out->nsteps += at;
    return error;
}

/* A sequential session over (good, bad] on this runner: through `probe` when given. */
static int session(culprit_bisect_result *out, const culprit_bisect_options *o,
                   const culprit_bisect__probe *probe)
{
    return probe ? culprit_bisect__session_with_probe(out, o, probe)
                 : culprit_bisect_session(out, o);
}

/* `later` becomes the result, `*earlier`'s steps ahead of its own and its costs added
 * (the search went on after an answer was rejected: one backtrack more). */
static int follow(culprit_bisect_result *earlier, culprit_bisect_result *later)
{
    culprit_bisect_step *steps = calloc(earlier->nsteps + later->nsteps + 1, sizeof(*steps));

    if (!steps) {
        culprit_bisect_result_dispose(later);
        return CULPRIT_ERROR_NOMEM();
    }
    memcpy(steps, earlier->steps, earlier->nsteps * sizeof(*steps));
    memcpy(steps + earlier->nsteps, later->steps, later->nsteps * sizeof(*steps));
    free(later->steps);
    later->steps = steps;
    later->nsteps += earlier->nsteps;
    later->builds += earlier->builds;
    later->runs += earlier->runs;
    later->reused += earlier->reused;
    later->backtracks += earlier->backtracks + 1;
    earlier->nsteps = 0; /* moved */
    culprit_bisect_result_dispose(earlier);
    *earlier = *later;
    return 0;
}

/* Does the check of the answer against its parent reject it? No slower (no
 * regression), or not shown slower in the confirmation's runs of its own: unconfirmed,
 * or a "slow decay" (over one commit: its first runs slower, the confirmation's not). */
static int rejected(const culprit_bisect_result *r)
{
    return r->outcome == CULPRIT_BISECT_RESULT_NO_REGRESSION ||
           r->outcome == CULPRIT_BISECT_RESULT_SLOW_DECAY ||
           (r->outcome == CULPRIT_BISECT_RESULT_FOUND && r->confirmed == 0);
}

/* The answer `state->culprit` was rejected against `parent` (out: that check: no
 * slower, or not shown slower in its runs of its own): the
 * range the other records leave bisected on this runner, then, when it shows no
 * culprit, the whole range. */
static int search_again(culprit_bisect_result *out, const culprit_bisect_options *o,
                        const culprit_fanout_state *state, const char *parent,
                        const culprit_bisect__probe *probe)
{
    char except[2][41], ends[2][2][41];
    culprit_bisect_options so = *o;
    culprit_bisect_result r;
    int error;

    memcpy(except[0], state->culprit, 41);
    memcpy(except[1], parent, 41);
    if ((error = culprit_bisect__fanout_narrow(ends[0][0], ends[0][1], o, state, except, 2)) < 0)
        return error;
    memcpy(ends[1][0], state->good, 41);
    memcpy(ends[1][1], state->bad, 41);
    for (int tier = 0; tier < 2; tier++) {
        if (tier == 1 &&
            (out->outcome != CULPRIT_BISECT_RESULT_NO_REGRESSION ||
             (strcmp(ends[0][0], ends[1][0]) == 0 && strcmp(ends[0][1], ends[1][1]) == 0)))
            break; /* found, or that was the whole range */
        culprit_bisect__phase(o,
                              "the probes' answer %.12s is not shown slower than its parent on "
                              "this runner (a record misjudged a commit): bisecting %s%.12s..%.12s "
                              "again on this runner",
                              state->culprit, tier ? "the whole range " : "", ends[tier][0],
                              ends[tier][1]);
        so.good = ends[tier][0];
        so.bad = ends[tier][1];
        if ((error = session(&r, &so, probe)) < 0)
            return error;
        if ((error = follow(out, &r)) < 0)
            return error;
    }
    return 0;
}

int culprit_bisect__fanout_finish_with(culprit_bisect_result *out,
                                       const culprit_bisect_options *opts,
                                       const culprit_fanout_state *state,
                                       const culprit_bisect__probe *probe)
{
    culprit_bisect_options o = *opts;
    culprit_vcs *repo = NULL;
    char(*fp)[41] = NULL;
    size_t k = 0;
    int error;

    memset(out, 0, sizeof(*out));
    o.perf.history_dir = NULL; /* both ends measured here: no run from history */
    o.perf.record = 0;
    if ((error = culprit_vcs_open(&repo,
                                  opts->measure.repository ? opts->measure.repository : ".")) < 0 ||
        (error = culprit_vcs_first_parents(&fp, &k, repo, state->culprit, 2)) < 0)
        goto cleanup;
    if (k < 2) {
        error =
            culprit_error_set(CULPRIT_ENOTFOUND, "the culprit %.12s has no parent", state->culprit);
        goto cleanup;
    }
    o.good = fp[1];
    o.bad = state->culprit;
    o.paths = NULL; /* a range of one commit: nothing to skip */
    o.npaths = 0;
    if ((error = session(out, &o, probe)) < 0)
        goto cleanup;
    o.paths = opts->paths;
    o.npaths = opts->npaths;
    if (rejected(out) && (error = search_again(out, &o, state, fp[1], probe)) < 0)
        goto cleanup;
    memcpy(out->good, state->good, 41);
    memcpy(out->bad, state->bad, 41);
    out->ncommits = state->ncommits;
    out->nirrelevant = state->nirrelevant; /* the sessions' ranges lie inside the whole */
    error = prepend_rounds(out, state, repo);
cleanup:
    free(fp);
    culprit_vcs_free(repo);
    if (error < 0)
        culprit_bisect__dispose_keeping_error(out);
    return error;
}

int culprit_bisect_fanout_finish(culprit_bisect_result *out, const culprit_bisect_options *opts,
                                 const culprit_fanout_state *state)
{
    return culprit_bisect__fanout_finish_with(out, opts, state, NULL);
}
