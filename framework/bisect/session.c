/*
 * A bisection session on a real repository (Heger et al. 2013, section 4.1): the
 * entry point. It checks the options (measurement.c), opens the repository and the range, checks
 * that the bad end is slower than the good end, hands the rest to the search
 * (search.c, scan.c), and adds the call trees of the culprit (calltree.c).
 *
 * Every build and run goes through a probe (bisect_internal.h): the real one
 * (probe.c) builds in temporary checkouts and runs processes; tests give one that
 * returns planted samples (culprit_bisect__session_with_probe), so the search's
 * decisions are tested without building anything.
 */
#include "bisect_internal.h"
#include "culprit/core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The sides the call trees are recorded on: checkouts of their own when they have
 * a build command of their own, else the measured ones. */
static culprit_bisect__side calltree_side(const culprit_bisect__session *s,
                                          culprit_bisect__side side)
{
    if (!s->opts->calltree_build || culprit_bisect__counted_trees(s->opts))
        return side;
    return side == CULPRIT_BISECT__GOOD ? CULPRIT_BISECT__CT_GOOD : CULPRIT_BISECT__CT_CANDIDATE;
}

/*
 * --calltree, before anything is measured: the good end built for call trees must
 * record a tree. A build whose trees are empty (not instrumented, or the runtime not
 * linked) would otherwise be found out only after the whole bisection; the session
 * stops at once with the recorder's fix. Without calltree_build this is the good
 * end's measured build, which the first check then reuses.
 */
static int calltree_preflight(culprit_bisect__session *s)
{
    const culprit_bisect__probe *p = s->probe;
    culprit_bisect__side side = calltree_side(s, CULPRIT_BISECT__GOOD);
    const char *good = s->result->good, *dir;
    int error;

    if (culprit_bisect__counted_trees(s->opts))
        return 0; /* any build with debug info counts: nothing to check before */
    /* A build of its own, which the call trees of the culprit's parent reuse (seeded,
     * docs/bisect.md): the call-tree phase's cost, paid first, said so. */
    if (s->opts->calltree_build)
        culprit_bisect__phase(s->opts,
                              "call trees, before bisecting: building the good end %.12s with "
                              "--calltree-build and checking that it records a tree",
                              good);
    if ((error = culprit_bisect__build(s, side, good)) < 0) {
        culprit_error_prefix("--calltree: the good end %.12s does not build for call trees: ",
                             good);
        return culprit_error_recode(CULPRIT_ERROR);
    }
    if (!p->dir)
        return 0; /* a probe without directories (tests): nothing to record */
    if (!(dir = p->dir(p->payload, side)))
        return culprit_error_recode(CULPRIT_ERROR);
    if ((error = culprit_bisect__calltree_check(s->opts, dir, good)) < 0)
        return culprit_error_recode(CULPRIT_ERROR);
    if (s->opts->calltree_build)
        culprit_bisect__phase(s->opts, "bisecting: the call-tree build records a tree");
    return 0;
}

/*
 * With a build for call trees of its own and a command (not a perf test), the parent
 * and the culprit built plain on the measured sides (usually built there already: the
 * confirmation compared that pair) are the recordings' baselines, so the trees' times
 * are corrected for the instrumentation as `culprit calltree record --baseline` does.
 * A perf test's harness repeats its body as often as its speed needs, so its plain
 * build does other work than the instrumented one and is no baseline. plain[] stays
 * NULL when there is none.
 */
static int plain_builds(culprit_bisect__session *s, const char *parent, const char *culprit,
                        int *plain)
{
    const culprit_bisect__probe *p = s->probe;
    int error;

    *plain = 0;
    if (!s->opts->calltree_build || s->opts->perf.run || !p->dir ||
        culprit_bisect__counted_trees(s->opts))
        return 0;
    if ((error = culprit_bisect__build(s, CULPRIT_BISECT__GOOD, parent)) < 0 ||
        (error = culprit_bisect__build(s, CULPRIT_BISECT__CANDIDATE, culprit)) < 0)
        return error;
    *plain = 1;
    return 0;
}

/* --calltree: the culprit and its first parent, built on the two sides (a commit
 * already built there is not built again), then recorded and diffed. */
static int calltree_step(culprit_bisect__session *s, const char *culprit)
{
    const culprit_bisect__probe *p = s->probe;
    const culprit_bisect__side G = calltree_side(s, CULPRIT_BISECT__GOOD),
                               C = calltree_side(s, CULPRIT_BISECT__CANDIDATE), sides[2] = {G, C};
    culprit_bisect_result *out = s->result;
    char(*fp)[41] = NULL;
    size_t k = 0;
    int error, plain = 0;

    if ((error = culprit_vcs_first_parents(&fp, &k, s->repo, culprit, 2)) < 0) {
        /* the message says why */
    } else if (k < 2) {
        error = culprit_error_set(CULPRIT_ENOTFOUND,
                                  "the culprit %.12s has no parent to compare "
                                  "its call tree with",
                                  culprit);
    } else {
        memcpy(out->parent, fp[1], 41);
        culprit_bisect__phase(s->opts, "call trees: building %.12s and its parent %.12s%s", culprit,
                              out->parent, s->opts->calltree_build ? " with --calltree-build" : "");
        if ((error = culprit_bisect__build(s, G, out->parent)) < 0 ||
            (error = culprit_bisect__build(s, C, culprit)) < 0 ||
            (error = plain_builds(s, out->parent, culprit, &plain)) < 0) {
            if (error == CULPRIT_ESKIP)
                culprit_error_prefix("building for the call trees: ");
        } else {
            culprit_bisect__phase(s->opts,
                                  "call trees: recording %.12s and its parent, then "
                                  "diffing them",
                                  culprit);
            error = p->dir ? culprit_bisect__calltree(out, s->repo, s->opts, p, sides, plain) : 0;
        }
    }
    free(fp);
    /* The culprit stands: what went wrong with its call trees is reported beside it. */
    if (error < 0 && !out->calltree_error) {
        if (!(out->calltree_error = culprit_strdup(culprit_error_last())))
            return CULPRIT_ERROR_NOMEM();
        culprit_error_clear();
    }
    return 0;
}

/* The ends of the whole range, resolved: validates the revisions (unknown, not an
 * ancestor, equal) before anything is built. */
static int open_range(culprit_bisect__session *s)
{
    culprit_bisect_result *out = s->result;
    const char *goods[1] = {s->opts->good};
    culprit_vcs_dag whole;
    int error;

    memset(&whole, 0, sizeof(whole));
    if ((error = culprit_vcs_dag_between(&whole, s->repo, goods, 1, s->opts->bad)) < 0 ||
        (error = culprit_vcs_resolve(out->good, s->repo, s->opts->good)) < 0)
        goto cleanup;
    memcpy(out->bad, whole.nodes[whole.n - 1].sha, 41);
    out->ncommits = whole.n;
cleanup:
    culprit_vcs_dag_dispose(&whole);
    return error;
}

/* Disposes of the result of a failed session, keeping the failure's message (the
 * one other place the last error is copied by hand). */
void culprit_bisect__dispose_keeping_error(culprit_bisect_result *out)
{
    culprit_error_state saved;

    culprit_error_save(&saved);
    culprit_bisect_result_dispose(out);
    culprit_error_restore(&saved);
}

/*
 * The search proper, once the bad end is known to be slower: --all searches for
 * every culprit (scan.c); else one culprit is bisected, confirmed against its
 * parent and searched for again when the confirmation fails (search.c), and a
 * range that is slower overall without a single culprit is a slow decay (scan.c).
 * culprit_out: the culprit whose call trees are wanted ("" none).
 */
static int search(culprit_bisect__session *s, char culprit_out[41])
{
    culprit_bisect_result *out = s->result;
    char culprit[41];
    int error, found = 0, decay = 0;

    culprit_out[0] = '\0';
    if (s->opts->all) {
        if ((error = culprit_bisect__search_all(s, out->good, out->bad, 1)) < 0)
            return error;
        if (out->nculprits) {
            culprit_bisect__describe(s, out->culprits[0].sha);
            memcpy(culprit_out, out->culprits[0].sha, 41);
        } else
            out->outcome = CULPRIT_BISECT_RESULT_AMBIGUOUS;
        return 0;
    }
    if ((error = culprit_bisect__search_one(s, culprit, &found, &decay)) < 0)
        return error;
    if (decay) {
        out->confirmed = -1;
        return culprit_bisect__slow_decay(s);
    }
    if (!found) {
        out->outcome = CULPRIT_BISECT_RESULT_AMBIGUOUS;
        return 0;
    }
    culprit_bisect__describe(s, culprit);
    if ((error = culprit_bisect__explain(s, culprit)) < 0)
        return error;
    memcpy(culprit_out, culprit, 41);
    return 0;
}

/* The end of a session on every path: the probe released (its checkouts removed),
 * the repository closed, and a failed session's result disposed of. */
static int end_session(culprit_bisect__session *s, const culprit_bisect__probe *probe, int error)
{
    if (probe->dispose)
        probe->dispose(probe->payload);
    culprit_vcs_free(s->repo);
    if (error < 0)
        culprit_bisect__dispose_keeping_error(s->result);
    return error;
}

int culprit_bisect__session_with_probe(culprit_bisect_result *out,
                                       const culprit_bisect_options *opts,
                                       const culprit_bisect__probe *probe)
{
    culprit_bisect__session s;
    culprit_bisect__side failed = CULPRIT_BISECT__CANDIDATE;
    culprit_bisect_step *first = NULL;
    char culprit[41];
    int error, slower = 0;

    memset(out, 0, sizeof(*out));
    memset(&s, 0, sizeof(s));
    s.result = out;
    out->change = out->change_low = out->change_high = NAN;
    out->confirmed = -1;
    if ((error = culprit_bisect_options_check(opts)) < 0)
        goto cleanup;
    s.opts = opts;
    s.probe = probe;
    snprintf(out->metric, sizeof(out->metric), "%s",
             culprit_bisect__metric(opts) ? culprit_bisect__metric(opts) : "");
    if ((error = culprit_vcs_open(&s.repo,
                                  opts->measure.repository ? opts->measure.repository : ".")) < 0 ||
        (error = open_range(&s)) < 0)
        goto cleanup;
    if (opts->calltree && (error = calltree_preflight(&s)) < 0)
        goto cleanup;
    if ((error =
             culprit_bisect__check_pair(&s, out->good, out->bad, 2 * culprit_bisect__max_runs(opts),
                                        &slower, &first, &failed)) < 0) {
        if (error == CULPRIT_ESKIP) { /* an end must be measurable: say which */
            if (failed != CULPRIT_BISECT__GOOD)
                culprit_error_prefix("the bad end ");
            error = culprit_error_recode(CULPRIT_ERROR);
        }
        goto cleanup;
    }
    if (!slower) {
        out->outcome = CULPRIT_BISECT_RESULT_NO_REGRESSION;
        goto cleanup;
    }
    s.effect = first->change;
    if ((error = search(&s, culprit)) < 0)
        goto cleanup;
    if (culprit[0] && opts->calltree)
        error = calltree_step(&s, culprit);
cleanup:
    return end_session(&s, probe, error);
}

/*
 * The call trees of one commit against its first parent, without a search: the
 * commit is the culprit already (a check judged it against its parent). Its result
 * reads as a bisection's that found it (outcome found, good = the parent, one
 * commit, no steps), so the bisection's document and the report take it as it is.
 */
int culprit_bisect__calltree_with_probe(culprit_bisect_result *out,
                                        const culprit_bisect_options *opts,
                                        const culprit_bisect__probe *probe)
{
    culprit_bisect__session s;
    culprit_bisect_options o;
    char culprit[41];
    int error;

    memset(out, 0, sizeof(*out));
    memset(&s, 0, sizeof(s));
    s.result = out;
    out->change = out->change_low = out->change_high = NAN;
    out->confirmed = -1;
    if (opts) {
        o = *opts;
        o.good = o.bad; /* no good end is needed: the parent is */
    }
    if ((error = culprit_bisect_options_check(opts ? &o : NULL)) < 0)
        goto cleanup;
    s.opts = opts;
    s.probe = probe;
    if ((error = culprit_vcs_open(&s.repo,
                                  opts->measure.repository ? opts->measure.repository : ".")) < 0 ||
        (error = culprit_vcs_resolve(culprit, s.repo, opts->bad)) < 0)
        goto cleanup;
    memcpy(out->bad, culprit, 41);
    out->ncommits = 1;
    culprit_bisect__describe(&s, culprit);
    if ((error = calltree_step(&s, culprit)) < 0)
        goto cleanup;
    memcpy(out->good, out->parent, 41);
cleanup:
    return end_session(&s, probe, error);
}

int culprit_bisect_calltree_session(culprit_bisect_result *out, const culprit_bisect_options *opts)
{
    culprit_bisect__probe probe;
    culprit_bisect_options o;
    int error;

    memset(out, 0, sizeof(*out));
    if (opts) {
        o = *opts;
        o.good = o.bad;
    }
    if ((error = culprit_bisect_options_check(opts ? &o : NULL)) < 0 ||
        (error = culprit_bisect__probe_open(&probe, opts)) < 0)
        return error;
    return culprit_bisect__calltree_with_probe(out, opts, &probe);
}

int culprit_bisect_session(culprit_bisect_result *out, const culprit_bisect_options *opts)
{
    culprit_bisect__probe probe;
    int error;

    memset(out, 0, sizeof(*out));
    if ((error = culprit_bisect_options_check(opts)) < 0 ||
        (error = culprit_bisect__probe_open(&probe, opts)) < 0)
        return error;
    return culprit_bisect__session_with_probe(out, opts, &probe);
}
