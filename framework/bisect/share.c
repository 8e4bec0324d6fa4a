/*
 * The share of a range's slowdown a change explains (docs/bisect.md, "Explaining the
 * whole change"), whether a share is known well enough to decide whether the rest
 * of the range is searched, and whether the culprits found surely explain enough of it
 * for that search to stop. Kept out of explain.c, which measures through the
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

/* The share the culprits must explain for the rest to be left unsearched: all but
 * EXPLAIN_LEFT of the range, or all but what a slowdown of `threshold` (the smallest
 * that matters, which the rest's checks cannot show less than) is of it, whichever
 * leaves more: a +10% range's tenth is +1%, below a 2% threshold, and pinning a share
 * at 90% would take its change to within 1%. */
static double line_of(double total, double threshold)
{
    double small = threshold > 0 ? log1p(threshold) / log1p(total) : 0;

    return 1 - fmax(CULPRIT_BISECT__EXPLAIN_LEFT, small);
}

int culprit_bisect__share_pinned(double change, double low, double high, double total,
                                 double threshold, double others, double others_spread)
{
    double line = line_of(total, threshold), at = culprit_bisect__share(change, total),
           lo = culprit_bisect__share(low, total), hi = culprit_bisect__share(high, total);

    if (!(total > 0) || !isfinite(total))
        return 1; /* no slowdown to share */
    /* A bound at or below -100% (no log) is a share below any line. */
    if (!(low > -1))
        lo = -INFINITY;
    if (!(high > -1))
        hi = -INFINITY;
    if (isnan(lo) || isnan(hi))
        return 0;
    if (!(others > 0) && !(others_spread > 0)) /* alone: its own interval */
        return lo >= line || hi < line;
    if (isnan(at))
        return 0;
    /* With the culprits found before: what they explain together, their errors in
     * quadrature (culprit_bisect__rest_unexplained()). */
    return others + at - sqrt(others_spread + (at - lo) * (at - lo)) >= line ||
           others + at + sqrt(others_spread + (hi - at) * (hi - at)) < line;
}

int culprit_bisect__rest_unexplained(const double *change, const double *low, size_t n,
                                     double total, double threshold, double *sure)
{
    double point = 0, spread = 0;

    *sure = 0;
    if (!(total > 0) || !isfinite(total))
        return 0; /* no slowdown to explain */
    /* Each culprit was measured apart: their errors add in quadrature, as independent
     * errors do (the sum of the lower ends would be a bound far beyond the confidence
     * of each, and searched the rest of ranges whose two culprits were both found). */
    for (size_t i = 0; i < n; i++) {
        double s = culprit_bisect__share(change[i], total),
               l = culprit_bisect__share(low[i], total);
        if (!(s > 0))
            continue; /* no change, or unknown: explains nothing */
        if (!(l > 0))
            l = 0;
        point += s;
        spread += (s - l) * (s - l);
    }
    *sure = point - sqrt(spread);
    return *sure < line_of(total, threshold);
}
