/*
 * The bisection's result as it is built: the steps measured, the culprits found,
 * the culprit's details, and the result's disposal. Every part of the session
 * records into the result through these, so that none of them needs another's
 * internals (search.c and scan.c both add culprits; the comparison adds steps).
 */
#include "bisect_internal.h"
#include "culprit/core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int culprit_bisect__add_step(culprit_bisect_step **out, culprit_bisect__session *s,
                             const char *good, const char *sha)
{
    culprit_bisect_result *r = s->result;
    culprit_bisect_step *steps = realloc(r->steps, (r->nsteps + 1) * sizeof(*steps));
    culprit_vcs_commit info;

    if (!steps)
        return CULPRIT_ERROR_NOMEM();
    r->steps = steps;
    *out = &steps[r->nsteps++];
    memset(*out, 0, sizeof(**out));
    memcpy((*out)->sha, sha, 41);
    memcpy((*out)->good, good, 41);
    (*out)->change = (*out)->change_low = (*out)->change_high = NAN;
    (*out)->good_mean_ns = (*out)->mean_ns = (*out)->cpu_change = NAN;
    if (culprit_vcs_commit_info(&info, s->repo, sha) == 0) {
        (*out)->subject = culprit_strdup(info.subject);
        culprit_vcs_commit_dispose(&info);
    }
    return 0;
}

int culprit_bisect__add_culprit(culprit_bisect__session *s, const char *sha,
                                const culprit_bisect_step *step)
{
    culprit_bisect_result *r = s->result;
    culprit_bisect_culprit *c = realloc(r->culprits, (r->nculprits + 1) * sizeof(*c));

    if (!c)
        return CULPRIT_ERROR_NOMEM();
    r->culprits = c;
    c = &c[r->nculprits++];
    memset(c, 0, sizeof(*c));
    memcpy(c->sha, sha, 41);
    c->subject = step && step->subject ? culprit_strdup(step->subject) : NULL;
    c->change = step ? step->change : NAN;
    c->change_low = step ? step->change_low : NAN;
    c->change_high = step ? step->change_high : NAN;
    c->share = c->cpu_share = NAN;
    return 0;
}

const culprit_bisect_step *culprit_bisect__step_of(const culprit_bisect_result *r, const char *sha)
{
    for (size_t i = r->nsteps; i-- > 0;)
        if (!strcmp(r->steps[i].sha, sha) && r->steps[i].verdict == CULPRIT_BISECT_BAD)
            return &r->steps[i];
    return NULL;
}

/* The culprit's details for the result. */
void culprit_bisect__describe(culprit_bisect__session *s, const char *sha)
{
    culprit_bisect_result *r = s->result;
    const culprit_bisect_step *step = culprit_bisect__step_of(r, sha);
    culprit_vcs_commit info;

    r->outcome = CULPRIT_BISECT_RESULT_FOUND;
    memcpy(r->culprit, sha, 41);
    if (culprit_vcs_commit_info(&info, s->repo, sha) == 0) {
        r->subject = culprit_strdup(info.subject);
        r->author = culprit_strdup(info.author_name);
        r->date = culprit_strdup(info.author_date);
        culprit_vcs_commit_dispose(&info);
    }
    if (step) {
        r->change = step->change;
        r->change_low = step->change_low;
        r->change_high = step->change_high;
    }
}

void culprit_bisect_result_dispose(culprit_bisect_result *result)
{
    if (!result)
        return;
    for (size_t i = 0; i < result->nsteps; i++) {
        free(result->steps[i].subject);
        free(result->steps[i].skip_reason);
    }
    free(result->steps);
    free(result->subject);
    free(result->author);
    free(result->date);
    free(result->range);
    for (size_t i = 0; i < result->nculprits; i++)
        free(result->culprits[i].subject);
    free(result->culprits);
    culprit_calltree_diff_dispose(&result->calltree);
    culprit_calltree_free(result->parent_tree);
    culprit_calltree_free(result->culprit_tree);
    culprit_vcs_changeset_dispose(&result->changes);
    free(result->calltree_error);
    memset(result, 0, sizeof(*result));
}
