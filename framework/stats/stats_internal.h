/*
 * Semi-private helpers shared by the files of framework/stats: the common start of
 * the tests that work on raw samples (Mann-Whitney, Kolmogorov-Smirnov). Not part of
 * the public API.
 */
#ifndef CULPRIT_STATS_INTERNAL_H
#define CULPRIT_STATS_INTERNAL_H

#include "culprit/stats.h"

/*
 * Checks `method` and makes ascending, NaN-free copies of both samples into `*sa`
 * (`*na` values) and `*sb` (`*nb`); the caller frees both with free(), on failure
 * too (they are NULL or valid). `test` names the test in messages. Returns 0,
 * CULPRIT_EINVALID for an unknown method, CULPRIT_EUNDECIDED when a sample has no
 * value left, or CULPRIT_ERROR when out of memory.
 */
int culprit_stats__sorted_pair(double **sa, size_t *na, double **sb, size_t *nb, const double *a,
                               size_t n_a, const double *b, size_t n_b,
                               culprit_stats_pmethod method, const char *test);

#endif
