/*
 * The share of a range's slowdown a change explains (docs/bisect.md, "Explaining the
 * whole change"), and whether a share is known well enough to decide whether the rest
 * of the range is searched. Kept out of explain.c, which measures through the
 * comparison, because the comparison (comparison.c) asks the second question at its
 * looks while a culprit's share is pinned: the files call each other in one direction.
 */
#include "bisect_internal.h"

#include <math.h>

double culprit_bisect__share(double change, double total)
{
    if (!(total > 0) || !(change > -1) || !isfinite(change) || !isfinite(total))
        return NAN;
    /* A culprit measured slower than the whole range (the two were measured apart,
     * and noise moves both) explains all of it, not more: capped at 1, as the call
     * tree's shares are. */
    return fmin(log1p(change) / log1p(total), 1.0);
}

int culprit_bisect__share_pinned(double low, double high, double total)
{
    double line = 1 - CULPRIT_BISECT__EXPLAIN_LEFT, lo = culprit_bisect__share(low, total),
           hi = culprit_bisect__share(high, total);

    if (!(total > 0) || !isfinite(total))
        return 1; /* no slowdown to share */
    /* A bound at or below -100% (no log) is a share below any line. */
    if (!(low > -1))
        lo = -INFINITY;
    if (!(high > -1))
        hi = -INFINITY;
    return !isnan(lo) && !isnan(hi) && (lo >= line || hi < line);
}

void culprit_bisect__cpu_change(culprit_bisect_step *step, double *const cx[2], const size_t cn[2],
                                const size_t n[2])
{
    double mean[2] = {0, 0};

    for (int side = 0; side < 2; side++) {
        if (!cn[side] || cn[side] != n[side])
            return;
        for (size_t i = 0; i < cn[side]; i++)
            mean[side] += log(cx[side][i]) / (double)cn[side];
    }
    step->cpu_change = expm1(mean[CULPRIT_BISECT__CANDIDATE] - mean[CULPRIT_BISECT__GOOD]);
    step->cpu_runs = cn[0] < cn[1] ? cn[0] : cn[1];
}
