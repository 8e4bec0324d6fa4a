/*
 * The search policies of a bisection session (Heger et al. 2013, section 4.1): the
 * algorithm of bisect.c picks the commit, the comparison (comparison.c) measures it
 * against the good end, and this file marks it and decides where to look next.
 *
 * A step judged undecided counts as good, and may be wrong: the culprit found is
 * then no slower than its parent, and the search starts again below it or above
 * it, where the slowdown is measured to be (search_again, BACKTRACK_MAX times). A
 * range slower overall with no single culprit is a slow decay; with --all every
 * culprit is searched for, and a short range without an overall slowdown is
 * scanned commit by commit. With --paths, commits touching none of the paths are
 * not built (Vogel 2017, 4.4.4).
 */
#include "bisect_internal.h"
#include "culprit/core.h"

#include <fnmatch.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* How many times a culprit not slower than its parent sends the search into the range
 * below or above it (search_again): a bound, so that a machine too noisy to decide
 * anything still ends. */
#define BACKTRACK_MAX 2

int culprit_bisect__relevant(culprit_bisect__session *s, const char *sha, int *out)
{
    culprit_vcs_changeset cs;
    int error;

    *out = 1;
    if (!s->opts->npaths)
        return 0;
    if ((error = culprit_vcs_changes(&cs, s->repo, sha, 0)) < 0)
        return error;
    *out = 0;
    for (size_t f = 0; f < cs.nfiles && !*out; f++)
        for (size_t p = 0; p < s->opts->npaths && !*out; p++) {
            const char *want = s->opts->paths[p],
                       *files[2] = {cs.files[f].path, cs.files[f].old_path};
            size_t len = strlen(want);
            for (int k = 0; k < 2 && files[k]; k++)
                if (fnmatch(want, files[k], 0) == 0 ||
                    (strncmp(files[k], want, len) == 0 &&
                     (files[k][len] == '/' || (len && want[len - 1] == '/'))))
                    *out = 1;
        }
    culprit_vcs_changeset_dispose(&cs);
    return 0;
}

/* A step that could not be measured: skipped, unless too many were. */
static int count_failure(culprit_bisect__session *s, const culprit_bisect_step *step)
{
    if (++s->failures >= s->opts->max_failures)
        return culprit_error_set(CULPRIT_ERROR,
                                 "%zu commits could not be built or measured; the last, "
                                 "%.12s: %s",
                                 s->failures, step->sha, step->skip_reason);
    return 0;
}

/* One bisection step on DAG node `index` against the good end `good`: build,
 * compare, mark. A candidate found good becomes the good end (`good` updated). */
static int step_on(culprit_bisect__session *s, const culprit_bisect__range *rg, culprit_bisect *b,
                   size_t index, char good[41])
{
    const char *sha = rg->dag.nodes[index].sha;
    culprit_bisect__side failed = CULPRIT_BISECT__CANDIDATE;
    culprit_bisect_step *step;
    int error;

    if ((error = culprit_bisect__add_step(&step, s, good, sha)) < 0)
        return error;
    if (index + 1 < rg->dag.n) { /* the bad end is measured whatever it touches */
        int is_relevant;
        if ((error = culprit_bisect__relevant(s, sha, &is_relevant)) < 0)
            return error;
        if (!is_relevant) {
            step->verdict = CULPRIT_BISECT_SKIP;
            step->skip_reason = culprit_strdup("touches none of the relevant paths: not built");
            s->result->nirrelevant++;
            return culprit_bisect_mark(b, index, CULPRIT_BISECT_SKIP);
        }
    }
    /* A step searches for the range's slowdown: one that is surely less than half of
     * it is futile to pursue (comparison.c; docs/bisect.md, "Stopping early"). */
    s->futile_below = s->effect / 2 > s->opts->measure.threshold ? s->effect / 2 : 0;
    error = culprit_bisect__compare(s, step, good, sha, culprit_bisect__max_runs(s->opts), &failed);
    s->futile_below = 0;
    if (error == CULPRIT_ESKIP && failed == CULPRIT_BISECT__GOOD) /* measured before */
        return culprit_error_recode(CULPRIT_ERROR);
    if (error == CULPRIT_ESKIP)
        error = count_failure(s, step);
    if (error < 0 || (error = culprit_bisect_mark(b, index, step->verdict)) < 0)
        return error;
    if (step->verdict == CULPRIT_BISECT_GOOD) {
        /* The candidate is the new good end: the sides trade places. */
        memcpy(good, sha, 41);
        s->probe->swap(s->probe->payload);
        memcpy(s->warm_good, sha, 41); /* it just ran there */
    }
    if (s->opts->measure.progress)
        s->opts->measure.progress(step, s->result->nsteps - 1, culprit_bisect_ncandidates(b),
                                  s->opts->measure.payload);
    return 0;
}

void culprit_bisect__range_dispose(culprit_bisect__range *rg)
{
    free(rg->nparents);
    free((void *)rg->parents);
    culprit_vcs_dag_dispose(&rg->dag);
    memset(rg, 0, sizeof(*rg));
}

int culprit_bisect__range_open(culprit_bisect__range *rg, culprit_bisect__session *s,
                               const char *good, const char *bad)
{
    const char *goods[1] = {good};
    size_t n;
    int error;

    memset(rg, 0, sizeof(*rg));
    if ((error = culprit_vcs_dag_between(&rg->dag, s->repo, goods, 1, bad)) < 0)
        return error;
    n = rg->dag.n;
    rg->nparents = calloc(n ? n : 1, sizeof(*rg->nparents));
    rg->parents = calloc(n ? n : 1, sizeof(*rg->parents));
    if (!rg->nparents || !rg->parents) {
        culprit_bisect__range_dispose(rg);
        return CULPRIT_ERROR_NOMEM();
    }
    for (size_t i = 0; i < n; i++) {
        rg->nparents[i] = rg->dag.nodes[i].nparents;
        rg->parents[i] = rg->dag.nodes[i].parents;
    }
    rg->view.n = n;
    rg->view.nparents = rg->nparents;
    rg->view.parents = rg->parents;
    return 0;
}

/*
 * culprit_bisect__check_pair for the checks every later answer rests on (the ends, the culprit
 * against its parent, the parent against the good end): up to twice the runs a step
 * may, so that noise leaves them undecided less often.
 */
static int check_pair_patient(culprit_bisect__session *s, const char *good, const char *bad,
                              int *slower, culprit_bisect_step **step_out)
{
    return culprit_bisect__check_pair(s, good, bad, 2 * (size_t)culprit_bisect__max_runs(s->opts),
                                      slower, step_out, NULL);
}

/*
 * What bisection leaves when skips end it: with --paths, skips for irrelevance
 * leave a range whose one relevant commit is the answer (confirmed against its
 * parent by the caller, *found 1); else the range is recorded in the result.
 */
static int settle_range(culprit_bisect__session *s, const culprit_bisect__range *rg,
                        const culprit_bisect *b, char culprit[41], int *found)
{
    culprit_bisect_result *r = s->result;
    size_t *ids = NULL, n = 0;
    int error;

    if ((error = culprit_bisect_range(&ids, &n, b)) < 0)
        return error;
    if (s->opts->npaths) {
        size_t relevant_at = SIZE_MAX, nrelevant = 0;
        for (size_t i = 0; i < n; i++) {
            int is_relevant;
            if ((error = culprit_bisect__relevant(s, rg->dag.nodes[ids[i]].sha, &is_relevant)) < 0)
                goto cleanup;
            if (is_relevant) {
                relevant_at = ids[i];
                nrelevant++;
            }
        }
        if (nrelevant == 1) {
            memcpy(culprit, rg->dag.nodes[relevant_at].sha, 41);
            *found = 1;
            goto cleanup;
        }
    }
    free(r->range);
    if (!(r->range = calloc(n ? n : 1, sizeof(*r->range)))) {
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    for (size_t i = 0; i < n; i++)
        memcpy(r->range[i], rg->dag.nodes[ids[i]].sha, 41);
    r->nrange = n;
cleanup:
    free(ids);
    return error;
}

int culprit_bisect__bisect_range(culprit_bisect__session *s, const char *good, const char *bad,
                                 char culprit[41], int *found)
{
    culprit_bisect *b = NULL;
    culprit_bisect__range rg;
    char good_end[41]; /* the good end the next step measures against */
    int error;

    *found = 0;
    if ((error = culprit_bisect__range_open(&rg, s, good, bad)) < 0)
        return error;
    /* The good end is built when a step first needs a run of it. */
    memcpy(good_end, good, 41);
    if ((error = culprit_bisect_new(&b, &rg.view, rg.dag.n - 1)) < 0)
        goto cleanup;
    for (;;) {
        size_t next;
        error = culprit_bisect_next(&next, b);
        if (error == CULPRIT_ENOTFOUND) {
            error = 0;
            break;
        }
        if (error < 0 || (error = step_on(s, &rg, b, next, good_end)) < 0)
            goto cleanup;
    }
    if (culprit_bisect_status_get(b) == CULPRIT_BISECT_FOUND) {
        memcpy(culprit, rg.dag.nodes[culprit_bisect_bad(b)].sha, 41);
        *found = 1;
    } else {
        error = settle_range(s, &rg, b, culprit, found);
    }
cleanup:
    culprit_bisect_free(b);
    culprit_bisect__range_dispose(&rg);
    return error;
}

/*
 * The culprit against its own first parent (check_pair_patient), in runs of its own:
 * the step that marked it bad compared it with the good end of that time, which
 * may lie several commits back (with relevance skipping, Vogel 2017, 4.4.4, the
 * commits in between were assumed to change nothing; in a slow decay each adds a
 * little), and when that good end was the parent, noise that made the step wrong
 * would make the same runs confirm it: a fresh comparison is independent evidence.
 * Unless that step against the parent was conclusive (comparison.c): its runs are
 * then evidence as strong as the step and a fresh comparison together.
 * *confirmed: 1 slower, 0 not shown slower, -1 unchecked (no parent, or it cannot
 * be measured); *decided: the check ruled a slowdown beyond the threshold out;
 * parent: the first parent ("" if none).
 */
static int confirm(culprit_bisect__session *s, const char *culprit, int *confirmed, int *decided,
                   char parent[41])
{
    culprit_bisect_step *check = NULL;
    char(*fp)[41] = NULL;
    size_t k = 0;
    int slower = 1, error;

    *confirmed = 1;
    *decided = 0;
    parent[0] = '\0';
    if ((error = culprit_vcs_first_parents(&fp, &k, s->repo, culprit, 2)) < 0)
        return error;
    if (k == 2)
        memcpy(parent, fp[1], 41);
    free(fp);
    if (k < 2)
        return 0;
    /* The step that marked the culprit bad compared exactly this pair, conclusively
     * (bad at 1 - alpha^2, as strong as that step and a fresh confirmation both wrong):
     * measuring the pair again would add nothing but its cost. */
    if ((check = (culprit_bisect_step *)culprit_bisect__step_of(s->result, culprit)) &&
        check->conclusive && !strcmp(check->good, parent))
        return 0;
    error = check_pair_patient(s, parent, culprit, &slower, &check);
    if (error == CULPRIT_ESKIP) { /* the parent cannot be measured: keep the culprit */
        *confirmed = -1;
        return 0;
    }
    if (error < 0)
        return error;
    *confirmed = slower;
    *decided = !slower && !check->undecided;
    return 0;
}

/*
 * After a culprit that is not slower than its parent, within the range (lo, hi]: when
 * the parent is in the range and significantly slower than lo, the culprit lies in
 * (lo, parent], and hi becomes the parent; else, when hi is significantly slower than
 * the culprit, it lies in (culprit, hi], and lo becomes the culprit. *again: one of
 * them. A side that cannot be measured counts as not slower.
 */
static int search_again(culprit_bisect__session *s, char lo[41], char hi[41], const char *culprit,
                        const char *parent, int *again)
{
    int in_range = 0, slower = 0, error;

    *again = 0;
    if (parent[0] && strcmp(parent, lo) != 0 &&
        (error = culprit_vcs_is_ancestor(&in_range, s->repo, lo, parent)) < 0)
        return error;
    if (in_range) {
        if ((error = check_pair_patient(s, lo, parent, &slower, NULL)) < 0 &&
            error != CULPRIT_ESKIP)
            return error;
        if (slower) {
            memcpy(hi, parent, 41);
            *again = 1;
            return 0;
        }
    }
    if (strcmp(culprit, hi) != 0) {
        slower = 0;
        if ((error = check_pair_patient(s, culprit, hi, &slower, NULL)) < 0 &&
            error != CULPRIT_ESKIP)
            return error;
        if (slower) {
            memcpy(lo, culprit, 41);
            *again = 1;
        }
    }
    return 0;
}

/*
 * Bisects (good, bad] until a culprit slower than its parent is found, searching
 * again below or above a culprit that is not. *found: the culprit is in `culprit`.
 * *decay: the parent check ruled a slowdown out and no search again was left.
 */
int culprit_bisect__search_one(culprit_bisect__session *s, char culprit[41], int *found, int *decay)
{
    const culprit_bisect_options *opts = s->opts;
    culprit_bisect_result *out = s->result;
    char lo[41], hi[41], parent[41];
    int error;

    *decay = 0;
    memcpy(lo, out->good, 41);
    memcpy(hi, out->bad, 41);
    for (;;) {
        int confirmed, decided, again = 0;
        if ((error = culprit_bisect__bisect_range(s, lo, hi, culprit, found)) < 0 || !*found)
            return error;
        if ((error = confirm(s, culprit, &confirmed, &decided, parent)) < 0)
            return error;
        out->confirmed = confirmed;
        if (confirmed != 0)
            return 0;
        /* Not slower than its parent: a step misjudged a commit (a slowdown its runs
         * could not tell from noise counts as good; rarely, noise makes an unchanged
         * commit look slower), or the range decays slowly. Searching again where the
         * slowdown must be tells them apart: below the culprit when its parent is
         * slower than the good end, above it when the bad end is slower than it. */
        if (!opts->npaths && out->backtracks < BACKTRACK_MAX &&
            (error = search_again(s, lo, hi, culprit, parent, &again)) < 0)
            return error;
        if (again) {
            out->backtracks++;
            continue;
        }
        /* A decay only when the parent check ruled out a slowdown beyond the
         * threshold; runs that could not tell leave the culprit named, not
         * confirmed (a noise burst may have misjudged the step that marked it). */
        *decay = !opts->npaths && decided;
        return 0;
    }
}
