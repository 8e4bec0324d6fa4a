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
