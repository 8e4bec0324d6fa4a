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
} culprit_calltree_node;

/** How the times of a tree were taken. */
typedef enum {
    CULPRIT_CALLTREE_STRUCTURE = 0, /**< call counts only; no clock was read */
    CULPRIT_CALLTREE_LEVEL = 1,     /**< nodes at one depth timed per run, merged per level */
    CULPRIT_CALLTREE_FULL = 2       /**< every call timed, calibrated overhead subtracted */
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
    char *binary;              /**< the program that ran; NULL unknown */
    char *command;             /**< the command line that was recorded; NULL unknown */
    double overhead_ns;        /**< the per-call overhead subtracted (0: none) */
    size_t afunctions, anodes; /**< allocated entries */
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

/**
 * Adds `src`'s node statistics into `dst` (times: NaN plus x is x), the helper
 * readers and mergers share.
 */
void culprit_calltree_node_add(culprit_calltree_node *dst, const culprit_calltree_node *src);

/* ------------------------------------------------------------------ record --- */

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
} culprit_calltree_record_options;

#define CULPRIT_CALLTREE_RECORD_OPTIONS_VERSION 1
#define CULPRIT_CALLTREE_RECORD_OPTIONS_INIT                                                       \
    {                                                                                              \
        CULPRIT_CALLTREE_RECORD_OPTIONS_VERSION, NULL, NULL, 0, 0, NULL, NULL, 0                   \
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
 * exclusive = inclusive minus the children's inclusive) and symbolized. `argv` is NULL-terminated;
 * argv[0] is looked up in PATH. The command may exit non-zero; it must not die of a signal.
 *
 * Caller frees *out. Errors: CULPRIT_ENOTFOUND when the command wrote no call
 * tree or an empty one (not instrumented: the message says how to fix it),
 * CULPRIT_ERROR when it could not be run or was killed, CULPRIT_EINVALID for a
 * bad option. Not thread-safe (forks and waits for its children).
 */
int culprit_calltree_record(culprit_calltree **out, const char *const *argv,
                            const culprit_calltree_record_options *opts);

#ifdef __cplusplus
}
#endif

#endif
