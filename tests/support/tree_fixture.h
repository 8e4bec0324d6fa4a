/* Hand-built call trees for the analysis tests and the diff benchmark: a path of
 * function names and the per-call figures of its node, turned into the sums the
 * model keeps (calls, inclusive, inclusive squared). */
#ifndef CULPRIT_TESTS_SUPPORT_TREE_FIXTURE_H
#define CULPRIT_TESTS_SUPPORT_TREE_FIXTURE_H

#include "culprit/calltree.h"

/*
 * Sets the node at `path` ("foo;doo;fem", created when absent; functions get the
 * file `file` and the line range of `fixture_lines()`) to `calls` calls of mean
 * `mean_ns` and standard deviation `sd_ns`. Exclusive times are left to
 * fixture_finish(). Returns the node index; fails the test on error.
 */
size_t fixture_node(culprit_calltree *tree, const char *path, const char *file, uint64_t calls,
                    double mean_ns, double sd_ns);

/* Computes every node's exclusive time from the inclusive times and asserts the
 * tree's invariants. */
void fixture_finish(culprit_calltree *tree);

/* The node at `path`, or CULPRIT_CALLTREE_NONE. */
size_t fixture_find(const culprit_calltree *tree, const char *path);

/*
 * The paper's Fig. 5 (Heger et al. 2013): foo calls bar and doo, doo calls fem,
 * fem calls qux once and wug three times, each per call of its caller; foo runs
 * `calls` times. `fem_own_ns` is fem's own time per call (1000 in the base).
 * Functions live in "src/fig5.c" at the lines fixture_lines() gives.
 */
culprit_calltree *fixture_fig5(uint64_t calls, double fem_own_ns);

/* The line range of a Fig. 5 function in src/fig5.c (the example's layout). */
void fixture_lines(const char *name, unsigned int *low, unsigned int *high);

#endif
