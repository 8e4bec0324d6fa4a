/*
 * Rounds of probes at once (issue 28's fan-out bisection, as Chromium's Pinpoint
 * splits a range over many bots): git bisect's rule tests the commit that splits
 * the candidates nearest half and half (eq. 1); k probes split them into k + 1
 * parts. The j-th probe is the candidate whose ancestors-or-self count a + 1 comes
 * nearest j * N / (k + 1). On a linear range the parts then differ by at most one
 * commit, the best worst case for k probes; on merges a + 1 is the same exact
 * measure culprit_bisect_next() uses (shared ancestors counted once), taken k
 * times, which is a heuristic there as git's rule is.
 *
 * Only the public search API is used: the probes change nothing, and a round's
 * results go through culprit_bisect_mark() one by one.
 */
#include "culprit/bisect.h"
#include "culprit/core.h"

#include <stdint.h>
#include <stdlib.h>

/* The eligible candidates: what culprit_bisect_next() may propose. */
static int eligible(const culprit_bisect *b, size_t i, const size_t *anc)
{
    return anc[i] != SIZE_MAX && !culprit_bisect_is_skipped(b, i) && i != culprit_bisect_bad(b);
}

static size_t distance(size_t x, double target)
{
    double d = (double)x - target;
    return (size_t)((d < 0 ? -d : d) * 2 + 0.5); /* exact for halves, in half steps */
}

int culprit_bisect_plan(size_t *out, size_t *n_out, size_t k, const culprit_bisect *bisect)
{
    size_t n = culprit_bisect_ncandidates(bisect), size = culprit_bisect_ncommits(bisect);
    size_t count = 0, i, j;
    size_t *anc = NULL;
    unsigned char *taken = NULL;
    int error = 0;

    *n_out = 0;
    if (k == 0)
        return culprit_error_set(CULPRIT_EINVALID, "bisect: a round needs at least one probe");
    if (culprit_bisect_status_get(bisect) != CULPRIT_BISECT_RUNNING)
        return 0;
    if (!(anc = malloc(size * sizeof(*anc))) || !(taken = calloc(size, 1))) {
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    if ((error = culprit_bisect_weights(NULL, anc, bisect)) < 0)
        goto cleanup;
    for (j = 1; j <= k; j++) {
        double target = (double)j * (double)n / (double)(k + 1);
        size_t best = SIZE_MAX, best_d = SIZE_MAX;
        for (i = 0; i < size; i++) {
            size_t d;
            if (taken[i] || !eligible(bisect, i, anc))
                continue;
            d = distance(anc[i] + 1, target);
            if (d < best_d) {
                best = i;
                best_d = d;
            }
        }
        if (best == SIZE_MAX)
            break; /* fewer eligible candidates than probes: all of them are planned */
        taken[best] = 1;
        out[count++] = best;
    }
    *n_out = count;
cleanup:
    free(anc);
    free(taken);
    return error;
}

int culprit_bisect_mark_round(culprit_bisect *bisect, const size_t *commits,
                              const culprit_bisect_verdict *marks, size_t n, size_t *unused)
{
    size_t size = culprit_bisect_ncommits(bisect), nunused = 0, i, j;
    size_t *anc = NULL, *order = NULL;
    int error = 0;

    if (unused)
        *unused = 0;
    if (!(anc = malloc((size ? size : 1) * sizeof(*anc))) ||
        !(order = malloc((n ? n : 1) * sizeof(*order)))) {
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    if ((error = culprit_bisect_weights(NULL, anc, bisect)) < 0)
        goto cleanup;
    for (i = 0; i < n; i++) {
        if (commits[i] >= size || anc[commits[i]] == SIZE_MAX) {
            error = culprit_error_set(CULPRIT_EINVALID, "bisect: commit %zu is not a candidate",
                                      commits[i]);
            goto cleanup;
        }
        /* Insertion sort by ancestors: a round is a handful of probes. */
        for (j = i; j > 0 && anc[commits[order[j - 1]]] > anc[commits[i]]; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    for (i = 0; i < n; i++) {
        size_t c = commits[order[i]];
        if (!culprit_bisect_is_candidate(bisect, c) ||
            (c == culprit_bisect_bad(bisect) && marks[order[i]] == CULPRIT_BISECT_BAD)) {
            nunused++;
            continue;
        }
        if ((error = culprit_bisect_mark(bisect, c, marks[order[i]])) < 0)
            goto cleanup;
    }
    if (unused)
        *unused = nunused;
cleanup:
    free(anc);
    free(order);
    return error;
}
