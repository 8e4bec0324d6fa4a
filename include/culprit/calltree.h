/*
 * culprit calltree: the calling-context tree of a program run (Heger et al. 2013,
 * section 4.2; Vogel 2017, section 3.5), how it is read, written and symbolized,
 * and the analyses that name the function behind a regression.
 *
 * The model is the same whatever produced it: the trace runtime of a binary built
 * with -finstrument-functions (framework/trace, see docs/calltree-format.md for the
 * file it writes), or a folded-stack file from any profiler. A node is a function
 * in its call path: the root's children are the functions threads entered first
 * (main, thread start routines), and a function called from two different paths
 * has two nodes. Threads are merged: the same path in two threads is one node.
 *
 * Functions are identified by name and source file, never by address, so trees
 * from two builds of a program can be compared after both binaries are gone.
 *
 * Thread-safety: a tree is not shared between threads while it is changed;
 * distinct trees are independent.
 */
#ifndef CULPRIT_CALLTREE_H
#define CULPRIT_CALLTREE_H

#include "culprit/core.h"
#include "culprit/vcs.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ model --- */

/** "No such node / function": the root's parent, an unknown index. */
#define CULPRIT_CALLTREE_NONE ((size_t)-1)

/** One function of the program. Strings are owned by the tree. */
typedef struct {
    char *name; /**< symbol name ("fib", "static_helper"); never NULL once symbolized;
                     "0x<offset>" when no symbol covers the address */
    char *file; /**< source file of its definition; NULL when unknown (no debug info) */
    unsigned int line_low, line_high; /**< its lines in `file` (inclusive); 0 when unknown */
    char *object; /**< the ELF object (executable or shared library) it lives in; NULL unknown */
    uint64_t address; /**< its entry relative to the object's load address (0 unknown) */
    char *build_id;   /**< the object's GNU build-id in hex, as recorded at run time; NULL
                           unknown. Symbolization refuses an object whose file on disk has
                           another one (rebuilt since the run) */
} culprit_calltree_function;

/**
 * One node: a function reached through one call path. Times are nanoseconds of
 * the program's monotonic clock, with the calibrated per-call overhead of the
 * instrumentation subtracted when it was measured (see the tree's mode).
 *
 * `inclusive_ns` is the sum over the node's calls of each call's duration, its
 * callees included; `inclusive_sq_ns2` the sum of the squared durations, so that
 * the mean and variance of one call's duration are known (the per-call samples
 * the statistical test of the BFS diff compares). `exclusive_ns` is the time in
 * the function's own code: inclusive minus the inclusive time of its children.
 * Times are NAN when the node was not timed (structure mode, or level mode at
 * another depth). `samples` is how many timed calls the sums stand for, the n of
 * the per-call statistics: `calls` when one run timed the node, more when
 * culprit_calltree_record() repeated its level (the sums are then scaled to
 * `calls`, keeping the mean and the mean square per call); 0 when not timed.
 */
typedef struct {
    size_t function;         /**< index into the tree's functions; NONE for the root */
    size_t parent;           /**< index of its parent node; NONE for the root */
    size_t depth;            /**< 0 for the root, 1 for main and thread entries */
    uint64_t calls;          /**< how many times this path was entered */
    double inclusive_ns;     /**< sum of the calls' durations, callees included */
    double inclusive_sq_ns2; /**< sum of the squares of the calls' durations */
    double exclusive_ns;     /**< time in its own code */
    size_t nchildren;
    size_t *children; /**< node indices, owned by the tree */
    uint64_t samples; /**< timed calls behind the times (see above); 0 when not timed */
    size_t achildren; /**< private: allocated entries of children */
} culprit_calltree_node;

/** How the times of a tree were taken. */
typedef enum {
    CULPRIT_CALLTREE_STRUCTURE = 0, /**< call counts only; no clock was read */
    CULPRIT_CALLTREE_LEVEL = 1,     /**< nodes at one depth timed per run, merged per level */
    CULPRIT_CALLTREE_FULL = 2,      /**< every call timed, calibrated overhead subtracted */
    CULPRIT_CALLTREE_WEIGHTS = 3    /**< from folded stacks: exclusive and inclusive are the
                                         profiler's weights (samples, ns...), calls are 0
                                         (unknown) and inclusive_sq_ns2 is NaN */
} culprit_calltree_mode;

/**
 * A calling-context tree. nodes[0] is the root (function NONE). Children always
 * have higher indices than their parent (nodes are in creation order).
 */
typedef struct {
    size_t nfunctions;
    culprit_calltree_function *functions;
    size_t nnodes;
    culprit_calltree_node *nodes;
    culprit_calltree_mode mode;
    char *binary;           /**< the program that ran; NULL unknown */
    char *command;          /**< the command line that was recorded; NULL unknown */
    double overhead_ns;     /**< the per-call overhead subtracted (0: none) */
    double wall_ns;         /**< a runtime's file: the run's wall time from start-up (0: unknown) */
    double run_delay_ns;    /**< ... and the time its first thread waited for a CPU meanwhile
                                 (preempted on a loaded machine); 0 with wall_ns 0: unknown */
    int sampled;            /**< culprit_calltree_record(): the exclusive times come from a
                                 sampling profile of the baseline (perf); not kept in files */
    double runtime_cpu_ns;  /**< a runtime's file: the CPU time the runtime spent outside
                                 the program's calls (set-up, calibration, writing; 0:
                                 unknown) */
    int fitted;             /**< culprit_calltree_record(): overhead_ns was measured against
                                 the baseline (0: the runtime's calibrated estimate kept);
                                 not kept in files */
    int instructions;       /**< the costs are instructions counted by Valgrind's callgrind
                                 (culprit_calltree_read_callgrind()), not nanoseconds: the
                                 "_ns" fields hold instructions (file header "cost
                                 instructions") */
    double baseline_excess; /**< culprit_calltree_record() with a baseline: how far the
                                 corrected total lies above (below: negative) the plain
                                 build's CPU time, 0.56 for +56% (0: no baseline); not kept
                                 in files (culprit_calltree_bias_note()) */
    char *unsampled;        /**< culprit_calltree_record() with a baseline: why the exclusive
                                 times do not come from the perf profile (perf missing or
                                 refused, or its samples mostly outside the tree's
                                 functions); NULL when they do, or without a baseline; not
                                 kept in files */
    double scaled;          /**< culprit_calltree_record() with a baseline: the factor (below
                                 1) every time was scaled by, to the total the depth-1 runs
                                 measured, when that total lay nearer the plain build's CPU
                                 time than the callers raised to their callees' times; 0:
                                 not scaled; not kept in files */
    size_t afunctions, anodes;         /**< allocated entries */
    size_t *fn_slots, fn_nslots;       /**< private: the index of functions by identity kept by
                                            culprit_calltree_function_intern() (a function's name
                                            and file are not changed once interned) */
    size_t *child_slots, child_nslots; /**< private: the index of nodes by (parent, function)
                                            kept by culprit_calltree_child() */
} culprit_calltree;

/** Creates a tree holding only its root. Caller frees with culprit_calltree_free(). */
int culprit_calltree_new(culprit_calltree **out);
/** Frees a tree. NULL is a no-op. */
void culprit_calltree_free(culprit_calltree *tree);

/**
 * The index of the function with this identity (name and file; file NULL matches
 * only a function without a file), added when absent with its line range and
 * object. Returns 0 with *out set, or CULPRIT_ERROR (out of memory).
 */
int culprit_calltree_function_intern(size_t *out, culprit_calltree *tree, const char *name,
                                     const char *file, unsigned int line_low,
                                     unsigned int line_high);

/**
 * The child of `parent` for `function`, added (calls 0, times 0) when absent.
 * Returns 0 with *out set to its node index, or CULPRIT_ERROR.
 */
int culprit_calltree_child(size_t *out, culprit_calltree *tree, size_t parent, size_t function);

/**
 * Checks the tree's invariants, for use inside assert(): node 0 is the only root;
 * every parent index is lower than its child's and lists it among its children;
 * depths are the parent's plus one; function indices are in range; no node has
 * two children of the same function. Returns 1 when they hold (NULL: 0).
 */
int culprit_calltree_check(const culprit_calltree *tree);

/* -------------------------------------------------- file and symbolization --- */

/** The version of the call-tree file format this library reads and writes. */
#define CULPRIT_CALLTREE_FORMAT 1

/**
 * Reads a call-tree file (docs/calltree-format.md), as written by the trace runtime
 * or by culprit_calltree_write_file(). Functions the file does not name (a raw file
 * from the runtime) get their address as a name ("0x1139" in the binary,
 * "libfoo.so+0x1139" in another object) until culprit_calltree_symbolize().
 * Functions or call paths that turn out identical (same name and file) are merged.
 * Caller frees *out with culprit_calltree_free(). Errors: CULPRIT_ENOTFOUND (no such
 * file), CULPRIT_EINVALID with a message "FILE:LINE: what is wrong" for a foreign,
 * newer, malformed or truncated file, CULPRIT_EIO. Thread-safe.
 */
int culprit_calltree_read_file(culprit_calltree **out, const char *path);

/** Same as culprit_calltree_read_file() from memory; `name` is used in messages. */
int culprit_calltree_read_buffer(culprit_calltree **out, const char *data, size_t len,
                                 const char *name);

/** Appends the file form of `tree` to `out`. */
int culprit_calltree_write_buf(culprit_buf *out, const culprit_calltree *tree);

/** Writes `tree` to `path` atomically (culprit_fs_write_atomic). */
int culprit_calltree_write_file(const culprit_calltree *tree, const char *path);

/**
 * 1 when function `f` of `tree` still has an address for a name (not symbolized,
 * or no symbol covers it).
 */
int culprit_calltree_function_is_raw(const culprit_calltree *tree, size_t f);

/**
 * Symbolizes every raw function of `tree` from the ELF object on disk it lives in
 * (executable or shared library; libdw/libelf, separate debug files found the way
 * elfutils does): symbol name (exported and static functions alike), source file
 * and line range of its definition from DWARF. Functions that then share an
 * identity are merged, with their call paths. Objects that no longer exist are
 * skipped; `*nmissing` (may be NULL) receives how many functions kept an address
 * because their object is gone, has no symbol table (stripped) or no symbol covers
 * them. Returns 0 or CULPRIT_ERROR (out of memory). Not thread-safe on one tree.
 */
int culprit_calltree_symbolize(culprit_calltree *tree, size_t *nmissing);

/* ---- callgrind ---- */

/**
 * Adds the output of Valgrind's callgrind (one dump, "Callgrind Format
 * Specification": compressed or not, positions "line" or "instr line") to `tree`:
 * per function its instructions (event Ir) and per call path its calls and
 * inclusive instructions, the call graph callgrind keeps unrolled into a tree from
 * the functions nobody calls (a callee called from several paths is split between
 * them in proportion to their cost; recursion is not unrolled: docs/calltree.md,
 * "Instruction counts"). Functions are named by callgrind's names and files (debug
 * info), their line range the lines that ran. Several dumps (the processes of one
 * command) add up. The tree becomes mode FULL with `instructions` set; squares are
 * NaN (exact counts: the diff judges by its threshold alone).
 *
 * `tree` may be NULL to read only the total; `*total` (may be NULL) receives the
 * dump's "summary:" instructions (its "totals:" without one). `name` names the input
 * in messages. Returns 0; CULPRIT_EINVALID "NAME:LINE: what" for malformed input or
 * text that is not callgrind output; CULPRIT_ERROR out of memory.
 */
int culprit_calltree_add_callgrind(culprit_calltree *tree, double *total, const char *text,
                                   size_t len, const char *name);

/**
 * culprit_calltree_add_callgrind() of the file `path` into a new tree (`out` NULL:
 * the total only). CULPRIT_ENOTFOUND / CULPRIT_EIO when it cannot be read.
 */
int culprit_calltree_read_callgrind(culprit_calltree **out, double *total, const char *path);

/**
 * Adds every callgrind dump of directory `dir` (files "cg.*", one per process of a
 * run with --callgrind-out-file=DIR/cg.%p, in name order) to `tree` (NULL: totals
 * only); `*total` (may be NULL) receives the sum of their totals. CULPRIT_ENOTFOUND
 * when there is none.
 */
int culprit_calltree_read_callgrind_dir(culprit_calltree *tree, double *total, const char *dir);

/* --------------------------------------------------------------- analysis --- */

/* ---- folded stacks ---- */

/**
 * Parses folded stacks ("main;f;k 10" per line: frames root first, separated by
 * ';', then blanks and a non-negative weight, integer or decimal), the collapsed
 * format of flamegraph.pl's stackcollapse tools and `perf script | stackcollapse`.
 * Each weight is the exclusive cost of the stack's last frame; the same stack on
 * several lines adds up; every node's inclusive cost is the sum of the exclusive
 * costs below it. Functions have no file (folded stacks carry names only). The
 * tree's mode is CULPRIT_CALLTREE_WEIGHTS. Blank lines are skipped; a trailing
 * '\r' is ignored.
 *
 * `name` names the input in messages ("perf.folded:12: ..."). Returns 0 with
 * `*out` owned by the caller (culprit_calltree_free()); CULPRIT_EINVALID for a
 * malformed line (no weight, a negative or non-numeric weight, an empty frame or
 * stack), the message naming `name` and the line; CULPRIT_ERROR out of memory.
 */
int culprit_calltree_parse_folded(culprit_calltree **out, const char *text, size_t len,
                                  const char *name);

/** culprit_calltree_parse_folded() of the file at `path` (CULPRIT_EIO: unreadable). */
int culprit_calltree_read_folded(culprit_calltree **out, const char *path);

/**
 * 1 when `text` looks like folded stacks: it does not start with the call-tree
 * file's magic ("culprit-calltree "), and its first non-blank line ends in a blank
 * and a number and has no NUL byte.
 */
int culprit_calltree_is_folded(const char *text, size_t len);

/**
 * Reads `path` whichever it holds, told by content: a call-tree file
 * (culprit_calltree_read_buffer()) or folded stacks (culprit_calltree_parse_folded()).
 * A file whose first line is neither is CULPRIT_EINVALID naming the file, both
 * formats and the line; the other errors are the readers' (FILE:LINE: why).
 */
int culprit_calltree_load(culprit_calltree **out, const char *path);

/**
 * Appends `tree` to `out` as folded stacks, one line per node whose exclusive cost
 * is not zero (and per leaf, with weight 0), in depth-first order: the path of
 * function names from main down, then the exclusive cost (nanoseconds of a timed
 * tree, the weight of a folded one; integers as integers, other values in the
 * fewest digits that read back exactly, negative costs as 0). A tree without times
 * (structure mode) writes each node's call count. Reading the output with
 * culprit_calltree_parse_folded() gives the same paths and weights.
 * Returns 0 or CULPRIT_ERROR (out of memory).
 */
int culprit_calltree_write_folded(culprit_buf *out, const culprit_calltree *tree);

/* ---- BFS diff (Heger et al. 2013, section 4.2; Vogel 2017, section 3.5) ---- */

/** How a node of the test tree compares with its base counterpart. */
typedef enum {
    CULPRIT_CALLTREE_UNCHANGED = 0, /**< no change beyond the threshold, or not significant */
    CULPRIT_CALLTREE_SLOWER = 1,    /**< significantly slower by more than the threshold */
    CULPRIT_CALLTREE_FASTER = 2,    /**< significantly faster by more than the threshold */
    CULPRIT_CALLTREE_UNDECIDED = 3, /**< untimed, or the test cannot decide */
    CULPRIT_CALLTREE_ADDED = 4      /**< only in the test tree: nothing to compare it with */
} culprit_calltree_verdict;

/** "unchanged", "slower", "faster", "undecided", "added". */
const char *culprit_calltree_verdict_name(culprit_calltree_verdict verdict);

/** Which search names the suspects (docs/calltree.md, "The search"). */
typedef enum {
    /** Descends through changed shapes and new functions, attributes each node's added
     *  time to its own code and its callees, ranks by the time a node adds itself and
     *  leaves out nodes explaining less than `min_share` of the regression. */
    CULPRIT_CALLTREE_RULE_REACH = 0,
    /** Heger et al. 2013: descends only into slower nodes of unchanged shape; a slower
     *  node whose calls changed shape is a suspect and the search stops there. */
    CULPRIT_CALLTREE_RULE_PAPER = 1
} culprit_calltree_rule;

typedef struct {
    unsigned int version;
    double confidence;          /**< of Welch's interval of the per-call difference (0.99) */
    double threshold;           /**< relative change of the per-call mean that matters (0.02) */
    culprit_calltree_rule rule; /**< REACH (default) or PAPER */
    double min_share;           /**< REACH: a node adding less than this share of the whole
                                     regression is counted, not listed; the answer
                                     (culprit_calltree_diff_answer()) explains at least this
                                     share (0.05) */
    const char *root;           /**< compare the subtrees of this function (its topmost node in
                                     each tree, e.g. a perf test's body), per call of it; NULL:
                                     the whole trees. Borrowed: it must outlive the diff */
} culprit_calltree_diff_options;

#define CULPRIT_CALLTREE_DIFF_OPTIONS_VERSION 2
#define CULPRIT_CALLTREE_DIFF_OPTIONS_INIT                                                         \
    {                                                                                              \
        CULPRIT_CALLTREE_DIFF_OPTIONS_VERSION, 0.99, 0.02, CULPRIT_CALLTREE_RULE_REACH, 0.05, NULL \
    }

int culprit_calltree_diff_options_init(culprit_calltree_diff_options *opts, unsigned int version);

/**
 * One node present in both trees: the same path of function identities (name and
 * file) from the root. Per-call figures come from the nodes' sums: mean =
 * inclusive / calls, variance from the sum of squares (Welch's test on the
 * per-call durations, culprit_stats_welch()).
 */
typedef struct {
    size_t base, test;       /**< node indices in the base and the test tree; base is NONE for a
                                  node only in the test tree (verdict ADDED) */
    size_t parent;           /**< index of the parent pair; NONE for the roots' pair */
    size_t first, nchildren; /**< its children are pairs first .. first + nchildren - 1 */
    culprit_calltree_verdict verdict;
    int tested;        /**< 1: Welch decided; 0: a side had one call, judged by the
                            threshold alone (or untimed: undecided) */
    int shape_changed; /**< children added or removed, or a child's calls per call of
                            this node changed */
    size_t added, removed, calls_changed; /**< how: children only in test, only in base,
                                               matched children with other calls per call */
    int reached; /**< the breadth-first search compared it (its callers all slower) */
    uint64_t base_calls, test_calls;
    double base_mean, test_mean;            /**< per-call inclusive time, ns */
    double diff, diff_low, diff_high;       /**< test - base per call, and its interval */
    double change, change_low, change_high; /**< diff / base_mean, and its interval */
    double p;                               /**< Welch's two-sided p-value (NaN untested) */
    double total_delta;                     /**< test inclusive sum - base inclusive sum, ns */
    double own_ns;     /**< the time it adds itself (REACH attribution, docs/calltree.md): its
                            exclusive time against the base's scaled to the caller's calls,
                            plus its callees' extra calls, new callees of functions the base
                            tree has and minus removed callees; an added node's exclusive time
                            and such callees. ns over the test tree's calls of the root */
    double share;      /**< own_ns / the diff's regression_ns, capped to [-1, 1] (a node can
                            add more than the whole regression when others got faster;
                            own_ns keeps the amount); NaN when there is no regression */
    double subtree_ns; /**< what its calls add, callees included, with its caller's calls
                            of it scaled as own_ns scales (the search descends where this
                            is at least min_share of the regression) */
} culprit_calltree_pair;

/** Why a suspect is one. */
typedef enum {
    CULPRIT_CALLTREE_LOWEST = 0, /**< the lowest slower node of a chain of slower nodes */
    CULPRIT_CALLTREE_SHAPE = 1,  /**< slower and its calls changed shape: not descended */
    CULPRIT_CALLTREE_BELOW = 2,  /**< slower below a caller that is not (Vogel 2017 §3.5:
                                      both ends of the chain are candidates) */
    CULPRIT_CALLTREE_OWN = 3,    /**< REACH: its own code adds time (or its calls do) */
    CULPRIT_CALLTREE_NEW = 4     /**< REACH: a function new in the commit, all its time added */
} culprit_calltree_suspect_kind;

/** "lowest-regressed", "shape-changed", "below-unregressed", "own-time", "new-function". */
const char *culprit_calltree_suspect_kind_name(culprit_calltree_suspect_kind kind);

/** How a function's own lines relate to a commit's changes. */
typedef enum {
    CULPRIT_CALLTREE_NOT_CHANGED = 0,   /**< its file's hunks miss its lines, or no hunk */
    CULPRIT_CALLTREE_LINES_CHANGED = 1, /**< a hunk intersects its line range */
    CULPRIT_CALLTREE_FILE_CHANGED = 2   /**< its file changed; its lines are unknown */
} culprit_calltree_change;

/** "no", "lines", "file". */
const char *culprit_calltree_change_name(culprit_calltree_change change);

/** The change correlation of one function of a suspect path. */
typedef struct {
    culprit_calltree_change change;
    culprit_vcs_range *lines; /**< the changed lines inside the function (hunks clipped to
                                   its range; lines == 0: lines deleted after `start`) */
    size_t nlines;
} culprit_calltree_mark;

/** A suspect: the path from the top of the tree down to the node suspected. */
typedef struct {
    culprit_calltree_suspect_kind kind;
    size_t *path; /**< pair indices, the first below the root, the last the suspect */
    size_t npath;
    culprit_calltree_mark *marks; /**< per path element; NULL until correlated */
    int changed;            /**< the suspect's own lines changed (LINES_CHANGED), or its file when
                                 its lines are unknown (FILE_CHANGED) */
    double function_own_ns; /**< REACH: the own_ns of the suspect's function summed over
                                 every call path the search reached (a helper slower under
                                 several callers); what suspects are ranked by */
} culprit_calltree_suspect;

/**
 * The result of culprit_calltree_diff(). `base` and `test` are borrowed: the
 * trees must outlive the diff.
 */
typedef struct {
    const culprit_calltree *base, *test;
    culprit_calltree_diff_options options;
    culprit_calltree_pair *pairs; /**< pairs[0] is the roots'; parents before children */
    size_t npairs;
    culprit_calltree_suspect *suspects; /**< ranked: changed first (once correlated), the
                                             search's own before those found below an
                                             unregressed caller, then by total_delta */
    size_t nsuspects;
    int correlated;       /**< culprit_calltree_correlate() ran */
    double regression_ns; /**< what the shares are of: the root's inclusive time in the
                               test tree minus the base's scaled to the test's calls of the
                               root (the sum of the positive own_ns when that is not
                               positive); ns over the test tree's calls of the root */
    uint64_t root_calls;  /**< the test tree's calls of `options.root` (0: whole trees);
                               regression_ns / root_calls is the regression per call */
    size_t nsmaller;      /**< REACH: nodes the search reached that add time but less than
                               min_share of the regression each: counted, not listed */
    double smaller_ns;    /**< the time they add together */
    culprit_calltree_change *changes; /**< per function of the test tree: what the commit
                                           correlated changed of it; NULL until
                                           culprit_calltree_correlate() */
    size_t nvarying; /**< suspects left out by culprit_calltree_diff_band(): what their
                          functions add is within what they vary between two recordings
                          of one build */
} culprit_calltree_diff;

/**
 * Compares `test` against `base` (Heger et al. 2013, section 4.2): nodes are
 * matched by the path of function identities (name and file; without an exact
 * match, the same name in the file that shares the most trailing path components,
 * so builds in two directories compare); each matched pair's per-call
 * durations are compared with Welch's test at `confidence`, and a node is slower
 * when the interval of the relative change lies above 0 and the change exceeds
 * `threshold` (detection's minor-regression rule). A side with a single call has
 * no variance: the change alone decides, and `tested` is 0.
 *
 * With `options.root`, pair 0 is the topmost node of that function in each tree
 * (CULPRIT_ENOTFOUND when a tree has none) and everything is compared per call of
 * it: a perf test's body, however often the harness called it.
 *
 * REACH (the default): the search starts at the root's children and descends into
 * every child that is slower, or new, or whose subtree adds at least `min_share` of
 * the regression, whatever its shape; nodes only in the test tree are pairs too
 * (verdict ADDED, base NONE). Each node's added time is split between its own code
 * and its callees (own_ns); a node the search reached that adds at least
 * `min_share` of the regression itself, and is slower, changed shape or is new, is
 * a suspect (OWN or NEW); smaller ones are counted (nsmaller). Ranked by own_ns.
 *
 * PAPER: the breadth-first search starts at the root's children and descends only into
 * slower nodes whose shape did not change; a slower node whose shape changed is a
 * suspect and is not descended. Among the nodes it reaches, the lowest slower node
 * of each chain is a suspect (Vogel 2017, section 3.5); below a suspect, a slower
 * node under callers that are not slower is a suspect too ("both ends"). Suspects
 * the search reached rank before the lower ends, then by total_delta (largest
 * first).
 *
 * culprit_calltree_correlate() puts the changed suspects first.
 *
 * Both trees need per-call times (not structure mode, not folded weights):
 * otherwise CULPRIT_EINVALID saying which. CULPRIT_ERROR out of memory.
 * Free with culprit_calltree_diff_dispose().
 */
int culprit_calltree_diff_trees(culprit_calltree_diff *out, const culprit_calltree *base,
                                const culprit_calltree *test,
                                const culprit_calltree_diff_options *opts);

/**
 * The nondeterminism band (docs/calltree.md, "Programs whose work varies"): counts
 * are exact only for a program that does the same work every time (one that seeds
 * its hash tables at random does not). Given a second recording of the same build of
 * either side or both (`base_again`, `test_again`; NULL none), a suspect is left out,
 * and counted in `nvarying`, when what its function adds between the sides is not
 * beyond what it varies between a side's two recordings: per function, the sum of
 * its pairs' own_ns (per call of the root), between the sides against each side's
 * two recordings, by Student's t on as many degrees of freedom as second recordings,
 * one-sided at the diff's confidence. When the whole change is within its band, every
 * suspect is left out. A function the same in a side's two recordings has no band
 * and is judged as before. Returns 0, CULPRIT_EINVALID (a second recording of another
 * metric, or one the diff refuses: the message says which) or CULPRIT_ERROR.
 */
int culprit_calltree_diff_band(culprit_calltree_diff *diff, const culprit_calltree *base_again,
                               const culprit_calltree *test_again);

/** Frees what a diff holds; it is left empty. Twice is harmless. */
void culprit_calltree_diff_dispose(culprit_calltree_diff *diff);

/** Which callees of a pair culprit_calltree_diff_callees() lists. */
typedef enum {
    CULPRIT_CALLTREE_CALLEES_ADDED = 0,   /**< only in the test tree */
    CULPRIT_CALLTREE_CALLEES_REMOVED = 1, /**< only in the base tree */
    CULPRIT_CALLTREE_CALLEES_COUNTS = 2   /**< in both, called another number of times per call */
} culprit_calltree_callees;

/**
 * The names of the callees of `pair` of kind `which`, in the trees' order: up to
 * `max` of them into `names` (borrowed from the trees). Returns how many there are.
 */
size_t culprit_calltree_diff_callees(const culprit_calltree_diff *diff, size_t pair,
                                     culprit_calltree_callees which, const char **names,
                                     size_t max);

/**
 * The function of a pair (from the test tree), or NULL for the roots' pair.
 * Borrowed from the diff's test tree.
 */
const culprit_calltree_function *culprit_calltree_diff_function(const culprit_calltree_diff *diff,
                                                                size_t pair);

/**
 * Change correlation (Heger et al. 2013, section 4.3, at function level): marks
 * every function of every suspect path whose own line range (file, line_low ..
 * line_high of the test tree) intersects a hunk of `changes` (new-side ranges,
 * as `git diff -U0` gives), keeps the intersecting lines, and ranks the suspects
 * again: changed suspects first, then as culprit_calltree_diff_trees() ranks. Files match when one
 * path ends with the other at a '/' boundary (trees hold absolute or build-relative paths; changes
 * are relative to the repository). A function without a line range in a changed file is
 * FILE_CHANGED. Returns 0 or CULPRIT_ERROR (out of memory).
 */
int culprit_calltree_correlate(culprit_calltree_diff *diff, const culprit_vcs_changeset *changes);

/** What culprit_calltree_diff_answer() found. */
typedef enum {
    /** Nothing to explain: the trees show no regression, or no function adds time. */
    CULPRIT_CALLTREE_ANSWER_NONE = 0,
    /** A function the commit changed (or added) explains the regression: `pair`. */
    CULPRIT_CALLTREE_ANSWER_CHANGED = 1,
    /** Correlated, but no function the commit changed is on the slow path: `where` is
     *  where the time went, `changed` what the commit changed that ran (or NONE). */
    CULPRIT_CALLTREE_ANSWER_NOT_ON_PATH = 2,
    /** Not correlated with a commit: `pair` is where the time went (the first suspect). */
    CULPRIT_CALLTREE_ANSWER_UNCORRELATED = 3
} culprit_calltree_answer_kind;

/** "none", "changed", "not-on-path", "uncorrelated"; "unknown" out of range. */
const char *culprit_calltree_answer_kind_name(culprit_calltree_answer_kind kind);

/** The one answer of a diff (docs/calltree.md, "The answer"). */
typedef struct {
    culprit_calltree_answer_kind kind;
    size_t pair;         /**< CHANGED, UNCORRELATED: the answer's pair; else NONE */
    double explained_ns; /**< CHANGED: the time it explains (regression_ns's unit) */
    double share;        /**< explained_ns / regression_ns, in [0, 1]; NaN when none */
    size_t where;        /**< where the time went: the first suspect's pair; NONE when none */
    size_t changed;      /**< NOT_ON_PATH: the changed function that ran with the most time
                              (its topmost pair); NONE when none of them ran */
    size_t nchanged;     /**< functions of the test tree the commit changed */
} culprit_calltree_answer;

/**
 * The one answer of a diff, the function every output names (calltree diff's text
 * and JSON, bisect's result, check --investigate's summary, culprit report). Each
 * pair's own_ns goes to the nearest function the commit changed on its path from
 * the root (itself included): a changed caller takes the time of its new or more
 * frequent callees, a changed function the time its own code moved into unchanged
 * callees, a changed helper its time at every call path. The answer is the changed
 * function that so explains the most, at least `min_share` of the regression, with
 * a pair adding time whose test does not say it is no slower (the same calls,
 * unchanged or faster per call at the threshold; an interval that holds 0 does not
 * rule it out: the split of the regression is exact, the test may not tell).
 * Without one: NOT_ON_PATH when the diff was correlated, UNCORRELATED when not (the
 * first suspect), NONE when nothing regressed. Returns 0 or CULPRIT_ERROR (out of
 * memory).
 */
int culprit_calltree_diff_answer(culprit_calltree_answer *out, const culprit_calltree_diff *diff);

/**
 * The answer as one sentence, appended to `out` (the text every output prints):
 * "fem (src/fig5.c:21), changed by the commit, explains 100% of the regression", or
 * "no function the commit changed is on the slow path: the time went to ...; the
 * commit changed ... (ran elsewhere)". Names are data: written through
 * culprit_buf_put_text(). Returns 0 or CULPRIT_ERROR.
 */
int culprit_calltree_answer_text(culprit_buf *out, const culprit_calltree_diff *diff,
                                 const culprit_calltree_answer *answer);

/* ---- overweight analysis ---- */

/** One symbol present in both profiles. Costs are in the profiles' unit. */
typedef struct {
    const char *name;      /**< borrowed from the test profile */
    const char *file;      /**< NULL when unknown */
    double base, test;     /**< B(s), T(s): cost of the stacks that contain s */
    double delta;          /**< T(s) - B(s) */
    double expected;       /**< B(s) * D / B0: its share of the total change */
    double overweight;     /**< 100 * delta / expected (NaN when expected is 0) */
    double responsibility; /**< 100 * delta / D (NaN when D is 0) */
} culprit_calltree_overweight_row;

/** One round: the profiles with the stacks of earlier pivots dropped. */
typedef struct {
    double base_total, test_total, delta_total; /**< B0, T0, D = T0 - B0 */
    culprit_calltree_overweight_row *rows;      /**< by overweight, highest first (NaN last) */
    size_t nrows;
    size_t pivot; /**< the row chosen as pivot, or NONE (the last round) */
} culprit_calltree_overweight_round;

typedef struct {
    unsigned int version;
    size_t recurse;            /**< pivots to drop at most (0: one round only) */
    double min_responsibility; /**< a pivot explains at least this % of D (10) */
    double min_overweight;     /**< a pivot grew by more than this % of its share (100:
                                    more than proportionally) */
} culprit_calltree_overweight_options;

#define CULPRIT_CALLTREE_OVERWEIGHT_OPTIONS_VERSION 1
#define CULPRIT_CALLTREE_OVERWEIGHT_OPTIONS_INIT                                                   \
    {                                                                                              \
        CULPRIT_CALLTREE_OVERWEIGHT_OPTIONS_VERSION, 0, 10.0, 100.0                                \
    }

int culprit_calltree_overweight_options_init(culprit_calltree_overweight_options *opts,
                                             unsigned int version);

typedef struct {
    culprit_calltree_overweight_round *rounds;
    size_t nrounds;
} culprit_calltree_overweight;

/**
 * Overweight analysis of `test` against `base`. Every node is a stack (its path
 * from the root) whose cost is the node's exclusive cost; a symbol's inclusive
 * cost is the cost of the stacks that contain it, each stack counted once even
 * when the symbol recurses; B0 and T0 are the totals. For the symbols present in
 * both: delta(s) = T(s) - B(s), expected(s) = B(s) D / B0, overweight%(s) = 100
 * delta(s) / expected(s), responsibility%(s) = 100 delta(s) / D.
 *
 * With opts->recurse > 0: the pivot is the row of highest overweight among those
 * with overweight above min_overweight and responsibility at least
 * min_responsibility; every stack that contains it is dropped from both profiles
 * and the analysis runs again, up to `recurse` times, while D > 0 and a pivot
 * qualifies. Symbols match by name and file, by name alone when a side has no file.
 *
 * Trees need costs: exclusive times, or weights (folded); a structure-mode tree is
 * CULPRIT_EINVALID, as is a base whose total is not positive. The rows borrow the
 * test tree's strings. Free with culprit_calltree_overweight_dispose().
 */
int culprit_calltree_overweight_trees(culprit_calltree_overweight *out,
                                      const culprit_calltree *base, const culprit_calltree *test,
                                      const culprit_calltree_overweight_options *opts);

void culprit_calltree_overweight_dispose(culprit_calltree_overweight *ow);

/* -------------------------------------------- the documents read back --- */

/*
 * A diff read back from the document `culprit calltree diff --json` printed (or
 * the "calltree" object `culprit bisect --calltree --json` embeds). The document
 * cannot become a culprit_calltree_diff again: a diff points into the two trees it
 * compared, and the document holds neither, only the suspect paths with each
 * node's figures. So it is read into this view: the nodes it lists, parents before
 * children, with their figures and statuses as enums. Every string and array is
 * owned by the view.
 */

/** What a node of a view says of its function. */
typedef enum {
    CULPRIT_CALLTREE_VIEW_UNKNOWN = 0, /**< the document does not say */
    CULPRIT_CALLTREE_VIEW_UNCHANGED,   /**< "unchanged" */
    CULPRIT_CALLTREE_VIEW_SLOWER,      /**< "slower" */
    CULPRIT_CALLTREE_VIEW_FASTER,      /**< "faster" */
    CULPRIT_CALLTREE_VIEW_UNDECIDED,   /**< "undecided" */
    CULPRIT_CALLTREE_VIEW_ADDED,       /**< "added": only in the test tree */
    CULPRIT_CALLTREE_VIEW_REMOVED,     /**< "removed": only in the base tree */
    CULPRIT_CALLTREE_VIEW_SHAPE        /**< "shape": its callees changed */
} culprit_calltree_view_status;

/** The word of a status as the documents spell it; NULL for UNKNOWN. */
const char *culprit_calltree_view_status_name(culprit_calltree_view_status status);

/** One node of a view, compared with its counterpart in the base tree. */
typedef struct {
    char *function;                      /**< symbol name */
    char *file;                          /**< source file; NULL unknown */
    unsigned int line_low, line_high;    /**< the function's lines; 0 unknown */
    size_t parent;                       /**< index of the parent node; SIZE_MAX for a top node */
    size_t depth;                        /**< 1 for a top node */
    double base_ns, test_ns;             /**< inclusive time per call, before and after; NAN none */
    double base_calls, test_calls;       /**< calls before and after; NAN when absent on a side */
    double change;                       /**< relative change of the time per call; NAN none */
    culprit_calltree_view_status status; /**< UNKNOWN when the document does not say */
    int suspect;                         /**< on a suspect path */
    int changed;                         /**< its own lines changed in the commit correlated */
    size_t nchanged;
    unsigned int (*changed_lines)[2]; /**< changed line ranges [low, high] inside it */
    char *diff;                       /**< the changed lines as a unified diff excerpt; NULL none */
} culprit_calltree_view_node;

/** The answer of a diff as its document gives it (culprit_calltree_diff_answer()). */
typedef struct {
    culprit_calltree_answer_kind kind; /**< NONE also when the document gives none */
    int given;                         /**< the document has an "answer" */
    char *function;                    /**< CHANGED, UNCORRELATED: the answer; else NULL */
    char *file;                        /**< its file; NULL unknown */
    unsigned int line;                 /**< its first line; 0 unknown */
    double share;                      /**< of the regression it explains; NAN unknown */
    char *where;                       /**< where the time went; NULL none */
    char *changed;                     /**< NOT_ON_PATH: what the commit changed that ran */
    char *text;                        /**< the sentence (culprit_calltree_answer_text()) */
} culprit_calltree_view_answer;

/** A call-tree diff as its document gives it. */
typedef struct {
    char *base, *test; /**< what was compared (file names or commits) */
    char *commit;      /**< the commit whose changes were correlated; NULL none */
    char *error;       /**< why there is no analysis (bisect --calltree); NULL none */
    size_t nnodes;
    culprit_calltree_view_node *nodes; /**< parents before children */
    size_t nsuspects;
    char **suspects;                     /**< suspect paths, ranked: "foo → doo → fem" */
    culprit_calltree_view_answer answer; /**< the document's "answer" */
} culprit_calltree_view;

/**
 * Reads the document `culprit calltree diff --json` printed from `path` into a new
 * view (caller frees with culprit_calltree_view_free()). The tree is the node list
 * the document gives (flat with "parent" indices, or nested "children"), or else
 * the union of its suspect paths. The document is untrusted: CULPRIT_ENOTFOUND when
 * the file does not exist; CULPRIT_EINVALID naming the file and the field when it
 * is not JSON, not this command's document, or a field is malformed (a node that
 * is not an object or has no function, a parent that does not come before its
 * child, an unknown status word). A missing optional field is left unknown.
 */
int culprit_calltree_view_from_json(culprit_calltree_view **out, const char *path);

/** Frees a view. NULL is a no-op. */
void culprit_calltree_view_free(culprit_calltree_view *view);

/** One row of an overweight table read back from its document. */
typedef struct {
    char *symbol;
    double base_ns, test_ns, delta_ns, expected_ns;
    double overweight_pct, responsibility_pct;
} culprit_calltree_overweight_entry;

/** The overweight table `culprit overweight --json` printed (its first round). */
typedef struct {
    culprit_calltree_overweight_entry *rows;
    size_t nrows;
} culprit_calltree_overweight_table;

/**
 * Reads the document `culprit overweight --json` printed from `path` into a new
 * table (caller frees with culprit_calltree_overweight_table_free()): the rows of
 * its first round, the whole profile. Errors as culprit_calltree_view_from_json().
 */
int culprit_calltree_overweight_table_from_json(culprit_calltree_overweight_table **out,
                                                const char *path);

/** Frees a table. NULL is a no-op. */
void culprit_calltree_overweight_table_free(culprit_calltree_overweight_table *table);

/* ------------------------------------------------------------------ record --- */

/** What a program's symbol tables say about its instrumentation (culprit_calltree_inspect). */
typedef enum {
    CULPRIT_CALLTREE_LINK_UNKNOWN = 0,      /**< not an ELF file (a script, a missing file) */
    CULPRIT_CALLTREE_LINK_NOT_INSTRUMENTED, /**< no call of __cyg_profile_func_enter */
    CULPRIT_CALLTREE_LINK_HOOKS_ONLY,       /**< instrumented, but the hooks are not defined in
                                                 it: glibc's empty ones run (the trace runtime
                                                 was not linked) */
    CULPRIT_CALLTREE_LINK_RUNTIME           /**< instrumented, with the hooks linked in */
} culprit_calltree_link;

/**
 * Inspects the ELF file `path` (an executable or a shared library): is it
 * instrumented with -finstrument-functions, and is the trace runtime linked into it
 * (docs/calltree.md, "Instrumenting any build")? A file that is not ELF is
 * CULPRIT_CALLTREE_LINK_UNKNOWN. Returns 0, or CULPRIT_ENOTFOUND when it cannot be
 * opened. Thread-safe.
 */
int culprit_calltree_inspect(culprit_calltree_link *out, const char *path);

/** How culprit_calltree_record() runs the command. */
typedef struct {
    unsigned int version;    /**< CULPRIT_CALLTREE_RECORD_OPTIONS_VERSION */
    const char *workdir;     /**< directory the command runs in; NULL: the current one */
    const char *const *env;  /**< extra "NAME=value" entries, NULL-terminated; may be NULL */
    unsigned int max_levels; /**< timing runs for depths 1..max_levels only; 0: every depth */
    int quiet;               /**< the command's stdout and stderr go to /dev/null */
    /** Called before each depth's runs (0 = the structure run, then depth 1, 2, ...);
     *  may be NULL. */
    void (*progress)(unsigned int run, unsigned int nruns, void *payload);
    void *payload;
    /** Timing runs per depth (the paper runs each step several times, so that even a
     *  function called once has n > 1 for the statistical test); 0 or 1: one. */
    unsigned int repeat;
    /** The same program built without instrumentation, NULL-terminated (argv[0] looked
     *  up in PATH), run like the command (same directory and environment); NULL: none.
     *  With it, the real cost of an instrumented call on this workload is measured
     *  against it (CPU time) and subtracted, instead of the runtime's calibrated
     *  estimate, which is biased on call-heavy code (docs/calltree.md). */
    const char *const *baseline;
    /** What the tree's costs are: NULL (or "time") the timed tree of an instrumented
     *  build as above; "instructions" the instructions counted by Valgrind's callgrind
     *  in one run of the command (any build with debug info; libc included; every
     *  process it starts), exact under any load (docs/calltree.md, "Instruction
     *  counts"). max_levels, repeat and baseline do not apply to it. */
    const char *metric;
} culprit_calltree_record_options;

#define CULPRIT_CALLTREE_RECORD_OPTIONS_VERSION 1
#define CULPRIT_CALLTREE_RECORD_OPTIONS_INIT                                                       \
    {                                                                                              \
        CULPRIT_CALLTREE_RECORD_OPTIONS_VERSION, NULL, NULL, 0, 0, NULL, NULL, 0, NULL, NULL       \
    }

/** Initializes `opts` to the defaults. Returns 0, or CULPRIT_EINVALID for another version. */
int culprit_calltree_record_options_init(culprit_calltree_record_options *opts,
                                         unsigned int version);

/**
 * Records the call tree of a command built with culprit_instrument() (or
 * -finstrument-functions and the culprit_trace runtime), the paper's way (Heger et
 * al. 2013, section 4.2): one run in structure mode gives the tree and the call
 * counts; then one run per depth d = 1..max depth in level mode times only the
 * calls at depth d (`repeat` times), so a function's time carries no
 * instrumentation of its callees but the calibrated cost of their hooks. The trees
 * are merged (structure from the first run; each node's times from the runs of its
 * depth, scaled to its call count, `samples` the timed calls behind them;
 * exclusive = inclusive minus the children's inclusive) and symbolized. Times are
 * corrected (docs/calltree.md, "Unbiased times"): each run's scaled to the share of
 * it the program was on a CPU, the cost of the descendants' hooks measured against
 * `baseline` when given, and a node whose children add up to more than itself raised
 * to their total, so that times along every path add up; `overhead_ns` is the cost
 * per descendant call subtracted. `argv` is NULL-terminated;
 * argv[0] is looked up in PATH. The command may exit non-zero; it must not die of a signal.
 *
 * Caller frees *out. Errors: CULPRIT_ENOTFOUND when the command wrote no call
 * tree or an empty one (not instrumented: the message says how to fix it),
 * CULPRIT_ERROR when it could not be run or was killed, CULPRIT_EINVALID for a
 * bad option. Not thread-safe (forks and waits for its children).
 */
int culprit_calltree_record(culprit_calltree **out, const char *const *argv,
                            const culprit_calltree_record_options *opts);

/**
 * When the corrected times of `tree` (recorded with a baseline) are more than 10% off
 * the plain build's CPU time, appends to `out` a sentence saying so, with the likely
 * cause (the functions the plain build inlines run as calls once instrumented: the
 * most called one is named) and what to trust instead (shares, or counted
 * instructions). Appends nothing otherwise. 0, or CULPRIT_ERROR when out of memory.
 */
int culprit_calltree_bias_note(culprit_buf *out, const culprit_calltree *tree);

/**
 * Why the own times of two trees recorded with baselines (a parent's and a
 * culprit's) do not both come from the perf profile: the first `unsampled` reason
 * of `a`, then `b`, or a generic one. Never NULL; the string belongs to the trees.
 */
const char *culprit_calltree_unsampled(const culprit_calltree *a, const culprit_calltree *b);

/* ------------------------------------------------------------- documents --- */

/**
 * The document of `culprit calltree diff --json` (docs/cli.md): the format number,
 * "base" and "test" (the files compared, or NULL), "commit" (the full sha the marks
 * are against, or NULL), then the diff's options, pairs and ranked suspects.
 * Appended to `out` with a final newline. The library owns this format: the writer
 * here and the reader of culprit report are its only two ends. Returns 0 or
 * CULPRIT_ERROR (out of memory). Thread-safe on distinct buffers.
 */
int culprit_calltree_diff_to_json(culprit_buf *out, const culprit_calltree_diff *diff,
                                  const char *base, const char *test, const char *commit);

/**
 * The document of `culprit overweight --json` (docs/cli.md): the inputs, the unit
 * ("ns" when `durations`, else "weight": folded stacks' weights have none), the
 * options (NULL: the defaults) and one object per round. Appended to `out` with a
 * final newline. Returns 0 or CULPRIT_ERROR.
 */
int culprit_calltree_overweight_to_json(culprit_buf *out, const culprit_calltree_overweight *ow,
                                        const culprit_calltree_overweight_options *opts,
                                        const char *base, const char *test, int durations);

#ifdef __cplusplus
}
#endif

#endif
