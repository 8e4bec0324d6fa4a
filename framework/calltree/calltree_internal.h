/*
 * What the call-tree analyses share inside the module: matching the functions of
 * two trees by identity. Trees of two builds list their functions in different
 * orders; every analysis needs "this function of tree A is that one of tree B" in
 * constant time, so the map is built once per pair of trees with a hash table.
 */
#ifndef CULPRIT_CALLTREE_INTERNAL_H
#define CULPRIT_CALLTREE_INTERNAL_H

#include "culprit/calltree.h"

/*
 * (*out)[i] is the index in `to` of the function of `from` with the same name and
 * file, or CULPRIT_CALLTREE_NONE. Without an exact match, the function of the same
 * name whose file shares the most trailing path components (at least the file
 * name) matches: two builds in two directories. With `loose`, a function without
 * a file on either side matches by name alone (folded stacks carry no files), an
 * exact match winning. The caller frees *out. Returns 0 or CULPRIT_ERROR.
 */
int culprit_calltree__function_map(size_t **out, const culprit_calltree *from,
                                   const culprit_calltree *to, int loose);

/* The child of node `parent` calling function `function` (indices of `tree`), or
 * CULPRIT_CALLTREE_NONE: through the tree's index of children when it is there, a
 * scan of the parent's children when not (tree.c). */
size_t culprit_calltree__find_child(const culprit_calltree *tree, size_t parent, size_t function);

/* The cost of each node's own code: exclusive_ns where finite, else inclusive
 * minus the children's inclusive (clamped at 0), else NaN. `out` has nnodes
 * entries. Returns the number of nodes below the root with a finite cost. */
size_t culprit_calltree__exclusive(double *out, const culprit_calltree *tree);

/* Sorts a diff's suspects: changed first, the breadth-first search's suspects
 * before the lower ends, then by the time they added (diff.c). */
void culprit_calltree__rank_suspects(culprit_calltree_diff *diff);

/* Appends a suspect ending at pair k, its path from the top (reach.c). */
int culprit_calltree__add_suspect(culprit_calltree_diff *d, size_t *asuspects, size_t k,
                                  culprit_calltree_suspect_kind kind);

/* The topmost node (breadth-first) of the function named `name` in `tree`, or
 * CULPRIT_ENOTFOUND naming it and `which` tree (reach.c). */
int culprit_calltree__find_root(size_t *out, const culprit_calltree *tree, const char *name,
                                const char *which);

/* Fills the pairs' own_ns, subtree_ns and share and the diff's regression_ns
 * (reach.c). Returns 0 or CULPRIT_ERROR (out of memory). */
int culprit_calltree__attribute(culprit_calltree_diff *d);

/* `ns` as a share of the regression, capped to [-1, 1]: a node can add more than the
 * whole when others got faster; NaN without a regression (reach.c). */
double culprit_calltree__share(const culprit_calltree_diff *d, double ns);

/* 1 when pair p's test says it is no slower: in both trees with the same calls, and
 * unchanged or faster per call at the threshold (reach.c). */
int culprit_calltree__not_slower(const culprit_calltree_pair *p);

/* 1 when pair p's test clears it: not slower as above, or in both trees with the
 * same calls and an interval that holds 0 (reach.c). */
int culprit_calltree__cleared(const culprit_calltree_pair *p);

/* The reach rule's search and suspects (reach.c). */
int culprit_calltree__reach(culprit_calltree_diff *d, size_t *asuspects);

/* The word of the "mode" header line (file.c): "structure", "level", "full", "weights". */
const char *culprit_calltree__mode_name(culprit_calltree_mode mode);

/* The program a recorded command runs (diagnose.c): argv[0] found in PATH, or, for
 * `sh -c CMD`, CMD's first word when it is a plain path (relative to `workdir`);
 * NULL when it cannot tell (shell syntax, not found). The caller frees it. */
char *culprit_calltree__program(const char *const *argv, const char *workdir);

/* Sets the error of a command that recorded nothing (`what` says how) and returns
 * CULPRIT_ENOTFOUND: its program inspected (culprit_calltree_inspect), the message
 * tells "instrumented, but the trace runtime was not linked" from "not
 * instrumented" and gives the fix of each (diagnose.c). */
int culprit_calltree__explain_empty(const char *const *argv, const char *workdir, const char *what);

/* culprit_calltree_record() with a metric other than time: "instructions", one run
 * under callgrind, or CULPRIT_EINVALID (record_callgrind.c). */
int culprit_calltree__record_callgrind(culprit_calltree **out, const char *const *argv,
                                       const culprit_calltree_record_options *opts);

/* ------------------------------------------- record's corrections (record_correct.c) --- */

/* The share of a runtime file's run its first thread was on a CPU: 1 - run-delay /
 * wall, 1 when the file does not tell. */
double culprit_calltree__cpu_share(const culprit_calltree *run);

/* (*out)[i]: the calls of node i's strict descendants (malloc'd, nnodes entries).
 * Returns 0 or CULPRIT_ERROR. */
int culprit_calltree__descendants(double **out, const culprit_calltree *tree);

/* Maps each of a node's `calls` per-call durations x to a*x + b, on its sums of
 * durations and squares; a total below 0 becomes 0. Untimed nodes are left alone. */
void culprit_calltree__affine(culprit_calltree_node *node, double calls, double a, double b);

/* In a level run's tree, the nodes at `depth`: the runtime's per-descendant
 * subtraction (the file's overhead-ns) undone, and the times scaled to the share of
 * the run the program was on a CPU. Returns 0 or CULPRIT_ERROR. */
int culprit_calltree__level_raw(culprit_calltree *run, size_t depth);

/* Subtracts `cost_ns` per descendant call from every timed node (a merged tree's
 * sums stand for its `calls`). Returns 0 or CULPRIT_ERROR. */
int culprit_calltree__subtract_cost(culprit_calltree *tree, double cost_ns);

/* Whether level runs can measure the cost of an instrumented call against a baseline
 * of `baseline_ns` CPU time: `ncalls` calls at the runtime's estimate `estimate_ns`
 * each must cost more than 2% of it. Below that, the least of a few CPU times is not
 * reproducible enough for a fit to find the calls' cost (it would take noise for it,
 * and charge it to every call), and whichever estimate is subtracted moves the times
 * by less than 2% of the run. */
int culprit_calltree__fit_resolves(double ncalls, double estimate_ns, double baseline_ns);
/* The total of `t`: its depth-1 nodes' inclusive times. */
double culprit_calltree__total(const culprit_calltree *t);
/* The total of `t` against `baseline_ns`, the plain build's CPU time: 0.56 for 56%
 * above; 0 when either is unknown. */
double culprit_calltree__baseline_excess(const culprit_calltree *t, double baseline_ns);
/* After culprit_calltree__reconcile() raised the tree's total above `measured_ns`,
 * the total its depth-1 runs measured: when `measured_ns` lies nearer `baseline_ns`
 * (the plain build's CPU time) than the raised total, every node is scaled by
 * measured / raised (shares kept). Returns 1 when scaled, else 0. */
int culprit_calltree__anchor_total(culprit_calltree *t, double measured_ns, double baseline_ns);

/* The CPU time an untimed instrumented call costs, fitted to level runs: extra_ns[d]
 * is run d's CPU time beyond the uninstrumented build's, ntimed[d] the calls it
 * timed, ncalls all its calls. Never negative. */
double culprit_calltree__fit_cost(const double *extra_ns, const double *ntimed, size_t nruns,
                                  double ncalls);

/* Raises every timed node whose children's inclusive times add up to more than its
 * own to their total (deepest first, squares scaled alike), so that totals along
 * every path add up. Returns 0 or CULPRIT_ERROR. */
int culprit_calltree__reconcile(culprit_calltree *tree);

/* Sets each node's exclusive time from `report` (`perf report --sort sym -F
 * overhead,sym` of the uninstrumented build): its function's share of the samples
 * times the tree's total, split between the function's nodes in proportion to
 * their exclusive times; inclusive times rebuilt bottom-up (record_sample.c).
 * *applied is 0 when the profile's symbols cover less than half of the samples
 * (not this program), and the tree is left alone. Returns 0 or CULPRIT_ERROR. */
int culprit_calltree__apply_samples(culprit_calltree *tree, const char *report, int *applied);

/* Adds `src`'s node statistics into `dst` (times: NaN plus x is x), the helper
 * readers and mergers share. */
void culprit_calltree__node_add(culprit_calltree_node *dst, const culprit_calltree_node *src);

#endif
