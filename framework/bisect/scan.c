/*
 * The scans of a bisection session: where bisecting cannot name one culprit, the
 * commits of a short first-parent chain are measured one against the next.
 *
 *   --all (the paper's section 6, limitation 3): after a culprit, the ranges below
 *   and above it are searched again; a range without an overall slowdown is scanned
 *   when short, since an improvement can hide a later regression.
 *   Slow decay (the paper's section 6, 2): the range is slower overall but the
 *   culprit found is not slower than its own parent; each commit's contribution is
 *   reported rather than a false single culprit.
 */
#include "bisect_internal.h"
#include "culprit/core.h"

#include <stdlib.h>
#include <string.h>

/* --all: a range with no overall slowdown is scanned commit by commit (along the
 * first-parent chain) up to this many commits, to find a regression hidden behind
 * an improvement (the paper's oscillation); longer ones are reported unsearched. */
#define SCAN_MAX 16

/* check_pair with the runs a step may take; a side that cannot be measured is
 * CULPRIT_ESKIP. */
static int check_pair(culprit_bisect__session *s, const char *good, const char *bad, int *slower,
                      culprit_bisect_step **step_out)
{
    return culprit_bisect__check_pair(s, good, bad, culprit_bisect__max_runs(s->opts), slower,
                                      step_out, NULL);
}

/* The first-parent chain from good (excluded) to bad (included), oldest first;
 * n = 0 when good is not on bad's first-parent line or the chain is too long. */
static int chain_between(char (**out)[41], size_t *n, culprit_bisect__session *s, const char *good,
                         const char *bad)
{
    char(*fp)[41] = NULL;
    size_t k = 0, i;
    int error;

    *out = NULL;
    *n = 0;
    if ((error = culprit_vcs_first_parents(&fp, &k, s->repo, bad, SCAN_MAX + 1)) < 0)
        return error;
    for (i = 0; i < k && strcmp(fp[i], good) != 0; i++)
        ;
    if (i < k && i > 0) {
        /* fp[0..i) is bad back to just after good: reverse it. */
        for (size_t a = 0, z = i - 1; a < z; a++, z--) {
            char t[41];
            memcpy(t, fp[a], 41);
            memcpy(fp[a], fp[z], 41);
            memcpy(fp[z], t, 41);
        }
        *out = fp;
        *n = i;
        return 0;
    }
    free(fp);
    return 0;
}

/* A range (good, bad] without an overall slowdown: scanned commit by commit when
 * short, else counted unsearched. */
static int scan_chain(culprit_bisect__session *s, const char *good, const char *bad)
{
    const char *last = good;
    culprit_bisect_step *step = NULL;
    char(*chain)[41] = NULL;
    size_t n = 0;
    int slower, error;

    if ((error = chain_between(&chain, &n, s, good, bad)) < 0)
        return error;
    if (n == 0 || n > SCAN_MAX) {
        s->result->nunsearched++;
        goto cleanup;
    }
    for (size_t i = 0; i < n; i++) {
        if (i == n - 1 && n == 1)
            break; /* (good, bad] with bad measured just now: nothing in between */
        if ((error = culprit_bisect__judge_pair(s, last, chain[i], &slower, &step)) ==
            CULPRIT_ESKIP) {
            error = 0; /* unbuildable: the next commit is compared with `last` */
            continue;
        }
        if (error < 0 || (slower && (error = culprit_bisect__add_explained(s, chain[i], step)) < 0))
            goto cleanup;
        last = chain[i];
    }
cleanup:
    free(chain);
    return error;
}

/*
 * A range whose bad end is slower is bisected, and the ranges below and above the
 * culprit are searched again; a range without an overall slowdown is scanned.
 */
int culprit_bisect__search_all(culprit_bisect__session *s, const char *good, const char *bad,
                               int known_slower)
{
    culprit_bisect_step *step = NULL;
    char culprit[41], parent[41];
    double effect = s->effect;
    int slower = known_slower, found, error = 0;

    if (!strcmp(good, bad))
        return 0;
    if (!known_slower && (error = culprit_bisect__judge_pair(s, good, bad, &slower, &step)) < 0) {
        if (error != CULPRIT_ESKIP)
            return error;
        s->result->nunsearched++; /* an end that cannot be measured: not searchable */
        return 0;
    }
    if (!slower)
        return scan_chain(s, good, bad);
    /* Futility follows the slowdown of the range bisected, not the whole range's: a
     * +40% commit is no futile step in a range that is +40% slower. */
    if (step)
        s->effect = step->change;
    error = culprit_bisect__bisect_range(s, good, bad, culprit, &found);
    s->effect = effect;
    if (error < 0 || !found)
        return error;
    /* A culprit is reported only when slower than its own parent (measured, or a step
     * of that pair reused), not than the good end of the step that marked it: the
     * commits between a good end and a slow one are no slower than their parents. */
    error = culprit_bisect__against_parent(s, culprit, parent, &slower, &step);
    if (error == CULPRIT_ESKIP) /* no parent to judge it against: its own step stands */
        error =
            culprit_bisect__add_explained(s, culprit, culprit_bisect__step_of(s->result, culprit));
    else if (error == 0 && slower)
        error = culprit_bisect__add_explained(s, culprit, step);
    if (error < 0)
        return error;
    if (parent[0] && (error = culprit_bisect__search_all(s, good, parent, 0)) < 0)
        return error;
    return culprit_bisect__search_all(s, culprit, bad, 0);
}

/*
 * Slow decay: rather than name a false single culprit, time each commit of the
 * first-parent chain against the one before it and report what each contributes
 * (up to 2 SCAN_MAX commits; a longer range is reported by its ends).
 */
int culprit_bisect__slow_decay(culprit_bisect__session *s)
{
    culprit_bisect_result *r = s->result;
    culprit_bisect_step *step;
    char(*fp)[41] = NULL;
    size_t k = 0, i;
    int slower, error;

    r->outcome = CULPRIT_BISECT_RESULT_SLOW_DECAY;
    if ((error = culprit_vcs_first_parents(&fp, &k, s->repo, r->bad, 2 * SCAN_MAX + 1)) < 0)
        return error;
    for (i = 0; i < k && strcmp(fp[i], r->good) != 0; i++)
        ;
    if (i == k) { /* too long, or good is off bad's first-parent line */
        free(fp);
        return 0;
    }
    const char *last = r->good;    /* the newest commit measured so far */
    for (size_t j = i; j-- > 0;) { /* oldest first */
        if ((error = check_pair(s, last, fp[j], &slower, &step)) == CULPRIT_ESKIP) {
            error = 0; /* unbuildable: its change is counted with the next commit's */
            continue;
        }
        if (error < 0 || (error = culprit_bisect__add_culprit(s, fp[j], step)) < 0)
            break;
        last = fp[j];
    }
    free(fp);
    return error;
}
