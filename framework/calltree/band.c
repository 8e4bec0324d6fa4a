/*
 * The nondeterminism band of a diff (docs/calltree.md, "Programs whose work varies"):
 * instruction counts are exact only for a program that does the same work every
 * time. One that does not (libxml2 seeds its hash tables at random: three recordings
 * of one xmllint counted 24,552,197, 24,514,755 and 24,543,047 instructions) shows
 * the functions whose work varies as slower or faster in the diff of one build with
 * itself, and they became suspects.
 *
 * Given a second recording of the same build of a side, the diff of the two is what
 * the recording itself varies by. Per function, what it adds is the sum of its pairs'
 * own_ns (reach.c: the owns add up to the change), per call of the root when the diff
 * has one: B between the sides, W_s between a side's two recordings. Under "no change"
 * B and each W_s are differences of two recordings alike, so B / sqrt(mean of W_s^2)
 * is Student's t on as many degrees of freedom as second recordings; a suspect whose
 * function's B is not beyond its one-sided quantile at the diff's confidence is left
 * out, counted in nvarying. The same test on the whole change (the sum of all owns):
 * a change within its band leaves every suspect out. A function whose count is the
 * same in a side's two recordings has no band: judged as before, so that the diff of
 * a deterministic program does not change.
 */
#include "calltree_internal.h"
#include "culprit/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Adds each pair's own_ns of `d` (per call of its root when it has one) into sum[f],
 * f its function mapped through `map` (d's test functions to sum's: NULL the
 * identity; entries at or past nf, NONE, are not summed), and all of them into
 * *total. */
static void own_by_function(double *sum, size_t nf, double *total, const culprit_calltree_diff *d,
                            const size_t *map)
{
    double scale = d->root_calls > 0 ? 1 / (double)d->root_calls : 1;

    *total = 0;
    for (size_t k = d->options.root ? 0 : 1; k < d->npairs; k++) {
        double own = d->pairs[k].own_ns * scale;
        size_t f = d->test->nodes[d->pairs[k].test].function;
        if (!isfinite(own))
            continue;
        *total += own;
        if (map && f < d->test->nfunctions)
            f = map[f];
        if (f < nf)
            sum[f] += own;
    }
}

/* 1 when `between` is within the band that the within-side differences w[0..m-1]
 * give at the one-sided quantile `t`; never when they are all 0 (no band). */
static int within_band(double between, const double *w, size_t m, double t)
{
    double ss = 0;

    for (size_t i = 0; i < m; i++)
        ss += w[i] * w[i];
    return ss > 0 && between <= t * sqrt(ss / (double)m);
}

/* What `again` varies from `side` by, per function of d's test tree, into w (nf
 * entries) and *total: the diff of the two with d's options. */
static int within_side(double *w, double *total, const culprit_calltree_diff *d,
                       const culprit_calltree *side, const culprit_calltree *again,
                       const char *which)
{
    culprit_calltree_diff wd;
    size_t *map = NULL;
    int error;

    if (again->instructions != d->test->instructions)
        return culprit_error_set(CULPRIT_EINVALID,
                                 "the %s tree's second recording %s and the trees diffed %s: "
                                 "record all with the same --metric",
                                 which, again->instructions ? "counts instructions" : "times calls",
                                 d->test->instructions ? "count instructions" : "time calls");
    if ((error = culprit_calltree_diff_trees(&wd, side, again, &d->options)) < 0)
        return culprit_error_prefix("the %s tree against its second recording: ", which);
    if ((error = culprit_calltree__function_map(&map, again, d->test, 0)) == 0)
        own_by_function(w, d->test->nfunctions, total, &wd, map);
    free(map);
    culprit_calltree_diff_dispose(&wd);
    return error;
}

/* Drops suspect i (its path and marks freed, the later ones moved up). */
static void drop_suspect(culprit_calltree_diff *d, size_t i)
{
    culprit_calltree_suspect *s = &d->suspects[i];

    for (size_t k = 0; s->marks && k < s->npath; k++)
        free(s->marks[k].lines);
    free(s->marks);
    free(s->path);
    memmove(s, s + 1, (d->nsuspects - i - 1) * sizeof(*s));
    d->nsuspects--;
    d->nvarying++;
}

int culprit_calltree_diff_band(culprit_calltree_diff *d, const culprit_calltree *base_again,
                               const culprit_calltree *test_again)
{
    const culprit_calltree *again[2] = {base_again, test_again};
    size_t nf, m = 0;
    double *between = NULL, *w[2] = {NULL, NULL}, total = 0, wtotal[2] = {0, 0}, t;
    int error = 0, all;

    if (!base_again && !test_again)
        return 0;
    if (!d->base || !d->test)
        return culprit_error_set(CULPRIT_EINVALID, "no diff to take a band of");
    nf = d->test->nfunctions ? d->test->nfunctions : 1;
    between = calloc(nf, sizeof(*between));
    w[0] = calloc(nf, sizeof(*w[0]));
    w[1] = calloc(nf, sizeof(*w[1]));
    if (!between || !w[0] || !w[1]) {
        error = culprit_error_set(CULPRIT_ERROR, "out of memory diffing call trees");
        goto cleanup;
    }
    own_by_function(between, nf, &total, d, NULL);
    for (int s = 0; s < 2; s++) {
        if (!again[s])
            continue;
        if ((error = within_side(w[m], &wtotal[m], d, s ? d->test : d->base, again[s],
                                 s ? "test" : "base")) < 0)
            goto cleanup;
        m++;
    }
    /* One-sided at the confidence: the two-sided quantile at 2 c - 1. */
    t = culprit_stats_t_critical(2 * d->options.confidence - 1, (double)m);
    all = within_band(total, wtotal, m, t);
    for (size_t i = d->nsuspects; i-- > 0;) {
        const culprit_calltree_suspect *s = &d->suspects[i];
        size_t f = d->test->nodes[d->pairs[s->path[s->npath - 1]].test].function;
        int varies = all;
        if (!all && f < nf) {
            double wf[2] = {w[0][f], w[1][f]};
            varies = within_band(between[f], wf, m, t);
        }
        if (varies)
            drop_suspect(d, i);
    }
cleanup:
    free(between);
    free(w[0]);
    free(w[1]);
    return error;
}
