/*
 * culprit bisect: the pure bisection algorithm over a commit DAG (Heger et al.
 * 2013, section 4.1, eq. 1; git bisect's rule). It decides which commit to test
 * next and what the answer is; the caller decides what a commit is (good, bad or
 * skipped), by measuring, by a script or by a statistical test. No git, no
 * building, no measuring here: the DAG is a generic description given by indices.
 *
 * A search object holds the candidates: the commits that may still be the first
 * bad one. At the start they are the ancestors-or-self of the bad end that are not
 * ancestors-or-self of a good end. Each test narrows them:
 *
 *   good c  c and its ancestors leave the candidates;
 *   bad c   only c and its ancestors stay; c becomes the bad end;
 *   skip c  c stays a candidate but is never proposed again.
 *
 * The search is done when the bad end is the only candidate (found) or when every
 * other candidate is skipped (ambiguous: the first bad commit is one of the range).
 *
 * Thread-safety: a search object is not shared; distinct objects are independent.
 */
#ifndef CULPRIT_BISECT_H
#define CULPRIT_BISECT_H

#include "culprit/calltree.h"
#include "culprit/detect.h"
#include "culprit/history.h"

#include <stddef.h>
#include "culprit/deprecated.h" /* the old names, until 0.2 */

#ifdef __cplusplus
extern "C" {
#endif

/**
 * A DAG of `n` commits named 0..n-1. Commit i has `nparents[i]` parents listed in
 * `parents[i]`; a parent index >= n is outside the DAG (on the good side) and is
 * ignored. Both arrays may be NULL when n == 0 or when no commit has a parent
 * (`nparents` NULL means every commit has none). The description is copied by
 * culprit_bisect_new*(), so it may be freed afterwards.
 *
 * The caller gives the commits that are ancestors of the bad commit and not of the
 * good one(s), the bad one included; the good side is implicit (outside). Any
 * order of the indices works; ties between equally good test points are broken by
 * the lowest index, so passing commits in `git rev-list` order (newest first)
 * reproduces git's choice among ties.
 */
typedef struct {
    size_t n;
    const size_t *nparents;
    const size_t *const *parents;
} culprit_bisect_dag;

/** What the caller found a tested commit to be. */
typedef enum {
    CULPRIT_BISECT_GOOD = 0, /**< not affected: the commit and its ancestors are not culprits */
    CULPRIT_BISECT_BAD = 1,  /**< affected: the first bad commit is it or one of its ancestors */
    CULPRIT_BISECT_SKIP = 2  /**< untestable (does not build, test fails, undecided) */
} culprit_bisect_verdict;

/** Where a search stands. */
typedef enum {
    CULPRIT_BISECT_RUNNING = 0,  /**< a commit remains to be tested (culprit_bisect_next) */
    CULPRIT_BISECT_FOUND = 1,    /**< one candidate remains: the bad end is the first bad commit */
    CULPRIT_BISECT_AMBIGUOUS = 2 /**< only skipped candidates plus the bad end remain */
} culprit_bisect_status;

/** A bisection search (opaque). */
typedef struct culprit_bisect culprit_bisect;

/**
 * Starts a search over the whole DAG: the candidates are `bad` and its ancestors.
 * Returns 0, CULPRIT_EINVALID (bad out of range, a parent cycle) or CULPRIT_ERROR
 * (out of memory). The caller frees `*out` with culprit_bisect_free().
 * O(N + E) time.
 */
int culprit_bisect_new(culprit_bisect **out, const culprit_bisect_dag *dag, size_t bad);

/**
 * Starts a search over a sub-range of the DAG: the candidates are `bad` and its
 * ancestors, minus the `ngood` commits of `good` and their ancestors (good ends
 * inside the DAG; the original good side stays implicit). This is what `--all`
 * needs after a culprit c was found (the paper's section 6, limitation 3):
 *
 *   - above c: culprit_bisect_new_range(&s, dag, original_bad, &c, 1), tested
 *     against c as the new good baseline;
 *   - below c: for a parent p of c that is still bad against the original good
 *     end, culprit_bisect_new_range(&s, dag, p, goods, ngoods) with the goods
 *     that are known good against the same baseline and decision rule
 *     (culprit_bisect_goods() of a search that used them; goods judged
 *     against a stricter threshold may hide a smaller regression).
 *
 * CULPRIT_EINVALID when `bad` or a good is out of range, when `bad` is an
 * ancestor-or-self of a good (empty range), or on a parent cycle.
 */
int culprit_bisect_new_range(culprit_bisect **out, const culprit_bisect_dag *dag, size_t bad,
                             const size_t *good, size_t ngood);

/** Frees a search. NULL is a no-op. */
void culprit_bisect_free(culprit_bisect *bisect);

/**
 * The next commit to test: among the candidates that are neither skipped nor the
 * bad end, the one of highest weight w = min(a + 1, N - (a + 1)), a its ancestors
 * among the candidates, N the number of candidates (Heger et al. eq. 1, git's
 * rule); ties go to the lowest index. CULPRIT_ENOTFOUND when the search is done
 * (see culprit_bisect_status()). O((N + E) * N / 64) time, N^2 / 8 bytes.
 */
int culprit_bisect_next(size_t *out, const culprit_bisect *bisect);

/**
 * Records what `commit` is. It must be a candidate: CULPRIT_EINVALID otherwise,
 * and when the bad end is marked good or skipped (a contradiction). Marking the
 * bad end bad is a no-op. Every accepted mark counts as one tested commit.
 * O(N + E) time.
 */
int culprit_bisect_mark(culprit_bisect *bisect, size_t commit, culprit_bisect_verdict mark);

/**
 * Decides a commit for culprit_bisect_run(): sets `*out` and returns 0, or returns
 * a negative code to stop the search (the code is passed through).
 */
typedef int (*culprit_bisect_decide_cb)(culprit_bisect_verdict *out, const culprit_bisect *bisect,
                                        size_t commit, void *payload);

/**
 * Runs the search to its end: next, decide, mark, until done. This is where a
 * driver plugs its decision in (a statistical comparison with the good end, a
 * script's exit code). Returns 0 when done, or the callback's negative code.
 */
int culprit_bisect_run(culprit_bisect *bisect, culprit_bisect_decide_cb decide, void *payload);

/** Where the search stands. */
culprit_bisect_status culprit_bisect_status_get(const culprit_bisect *bisect);

/** The current bad end: the first bad commit once the status is FOUND. */
size_t culprit_bisect_bad(const culprit_bisect *bisect);

/** The number of candidates (N of eq. 1), the bad end and skipped ones included. */
size_t culprit_bisect_ncandidates(const culprit_bisect *bisect);

/** The number of commits of the DAG the search was made over (its n). */
size_t culprit_bisect_ncommits(const culprit_bisect *bisect);

/** The number of commits marked so far (good, bad or skip): the builds spent. */
size_t culprit_bisect_tested(const culprit_bisect *bisect);

/** 1 when `commit` is a candidate, 0 otherwise (also when out of range). */
int culprit_bisect_is_candidate(const culprit_bisect *bisect, size_t commit);

/** 1 when `commit` was marked skip, 0 otherwise. */
int culprit_bisect_is_skipped(const culprit_bisect *bisect, size_t commit);

/**
 * The commits that could be the first bad one, in increasing index order: the
 * bad end alone when FOUND; the skipped candidates and the bad end when
 * AMBIGUOUS (what git reports as "the first bad commit could be any of");
 * every candidate while RUNNING. `*out` is malloc'd (caller frees with free();
 * NULL when `*n_out` is 0).
 */
int culprit_bisect_range(size_t **out, size_t *n_out, const culprit_bisect *bisect);

/**
 * The commits marked good in this search, in marking order (for restarting below
 * a culprit with culprit_bisect_new_range()). `*out` is malloc'd, caller frees.
 */
int culprit_bisect_goods(size_t **out, size_t *n_out, const culprit_bisect *bisect);

/**
 * Eq. 1 for every commit: `ancestors[i]` (a, may be NULL) and `weights[i]` (w, may
 * be NULL), arrays of the DAG's n entries; commits that are not candidates get
 * SIZE_MAX in both. For inspection and tests; culprit_bisect_next() uses the same.
 */
int culprit_bisect_weights(size_t *weights, size_t *ancestors, const culprit_bisect *bisect);

/**
 * A round of `k` probes to run at once (on k CI runners, say), instead of one
 * culprit_bisect_next() at a time: the eligible candidates (not skipped, not the
 * bad end) whose a + 1 (ancestors-or-self among the candidates) come nearest
 * j * N / (k + 1) for j = 1..k, distinct, ties to the lowest index. k = 1 is
 * culprit_bisect_next()'s choice on a linear range. On a linear range, whatever
 * the round's results, at most ceil(N / (k + 1)) candidates remain, so N
 * candidates need ceil(log_(k+1) N) rounds; on merges it is git's measure of a
 * split, applied k times. Fewer than k when fewer are eligible. `out` has room for
 * k entries; `*n_out` gets how many were chosen (0 when the search is done).
 * CULPRIT_EINVALID when k is 0. O((N + E) * N / 64) time, N^2 / 8 bytes.
 */
int culprit_bisect_plan(size_t *out, size_t *n_out, size_t k, const culprit_bisect *bisect);

/**
 * Records a round's results (commits[i] was marks[i]), in increasing order of
 * their ancestors among the candidates, so the lowest bad commit becomes the bad
 * end and goods below it still count. A result for a commit that an earlier one
 * of the round already decided (no longer a candidate: above a bad one, or below
 * a good one; a good above a bad is noise or a second regression) is not used;
 * `*unused` (may be NULL) gets how many. Each used result counts as one tested
 * commit. CULPRIT_EINVALID for a commit out of range or not a candidate before the
 * round, or a contradiction culprit_bisect_mark() refuses.
 */
int culprit_bisect_mark_round(culprit_bisect *bisect, const size_t *commits,
                              const culprit_bisect_verdict *marks, size_t n, size_t *unused);

/**
 * Checks the search's invariants, for use inside assert(): the bad end is a
 * candidate; every candidate is an ancestor-or-self of the bad end; the candidate
 * set is convex (no candidate descends from a non-candidate that is itself a
 * parent of a candidate, i.e. good ancestors never come back); the count matches.
 * Returns 1 when they hold, 0 otherwise (NULL: 0). O(N + E).
 */
int culprit_bisect_check(const culprit_bisect *bisect);

/* ------------------------------------------------------------ sessions --- */

struct culprit_bisect_step;

/**
 * What every measurement of one commit against another shares, whatever is
 * measured: a bisection's steps, a paired confirmation (culprit_bisect_confirm(),
 * culprit_bisect_confirm_check()) and an investigation's sessions. Each side is
 * built in a temporary checkout outside the user's working tree and measured against
 * the other with the runs of the two interleaved (so drift of the machine touches
 * both alike), and the change is judged with its interval.
 */
typedef struct {
    const char *repository; /**< a path inside the repository; NULL: "." */
    const char *build;      /**< shell command building a checkout (its directory is the
                                 working directory and $CULPRIT_CHECKOUT); NULL: none */
    /** Kill a build (`build`, culprit_bisect_options.calltree_build) after this long, in
     * seconds: a build of a large project on a loaded machine takes far longer than a
     * run. 0: the default, CULPRIT_BISECT_BUILD_TIMEOUT. */
    double build_timeout_s;
    const char *checkout_parent; /**< where temporary checkouts go; NULL: the process's
                                      temporary directory in $TMPDIR (culprit_fs_temp_dir()) */
    double confidence;           /**< of each decision (0.99) */
    double threshold;            /**< smallest relative slowdown that makes a commit bad (0.02) */
    double count_threshold;      /**< a counted metric ("instructions"): smallest relative change
                                      of the count that is bad (0.005) */
    unsigned int min_runs;       /**< runs of each per decision, in pairs; 0 (the default):
                                      CULPRIT_BISECT_MIN_RUNS, and a step far beyond the noise
                                      may stop before them (the sequential rule's early looks at
                                      4 and 6 pairs, docs/bisect.md "Stopping early"); a number
                                      (at least 2): that minimum is kept, no early stop */
    unsigned int max_runs;       /**< when undecided, more runs up to this many (30); below the
                                      minimum (min_runs or its default) the minimum is taken */
    double timeout_s;            /**< kill a run after this long (600) */
    /** Called after each measured step (NULL: silent). */
    void (*progress)(const struct culprit_bisect_step *step, size_t index, size_t estimate,
                     void *payload);
    /** Called when a phase of the session starts (NULL: silent), with a line saying what
     * it does ("searching the rest of the range...", "call trees: building..."), and
     * `payload`. */
    void (*phase)(const char *what, void *payload);
    void *payload;
} culprit_bisect_measurement;

/**
 * What is measured, first way: a command's whole run (the way hyperfine times
 * commands), by its wall time, its CPU time or its instructions.
 */
typedef struct {
    const char *line; /**< shell command whose run is measured, in the checkout */
    /** NULL: its wall time. "cpu_ns": its CPU time (user + system of its main process and
     * the descendants it waited for: culprit_process_result.cpu_ns), judged as wall time
     * is (warm-up, paired runs, the interval): CPU time is not deterministic, but it does
     * not see the scheduling delays of an oversubscribed machine. "instructions": its
     * instructions and those of every process it starts, counted under callgrind, one
     * run of each side per step, judged by detect's deterministic rule at
     * count_threshold. Nothing else. */
    const char *metric;
} culprit_bisect_command;

/**
 * What is measured, second way: a culprit perf test, run by a command that runs a
 * culprit test binary. Its runs already in history are reused and its new runs can be
 * recorded there.
 */
typedef struct {
    const char *run;  /**< shell command running a culprit test binary in the checkout (it gets
                           CULPRIT_HISTORY_DIR, CULPRIT_COMMIT, CULPRIT_FAIL_ON=none) */
    const char *test; /**< the perf test measured, "suite.test" or "test" */
    /** The series of the test bisected instead of its time: a time series of its own
     * ("cpu_ns", judged as time is) or a metric counted by a tool ("instructions":
     * counted under Valgrind, one run of each side per step without a warm-up, judged by
     * detect's deterministic rule, culprit_detect_counted_change, at count_threshold).
     * The run command gets CULPRIT_METRIC=NAME in its environment. NULL: its time. */
    const char *metric;
    const char *history_dir; /**< a history store whose runs of the test at a commit (clean
                                  tree, this machine, the same compiler and flags as this
                                  session's runs) are reused as samples; NULL: none */
    int record;              /**< also record this session's runs into history_dir */
} culprit_bisect_perf_test;

/**
 * One bisection on a real repository: build each commit chosen by the algorithm
 * above, measure it against the good end (`measure`), decide, and go on until the
 * first bad commit is found. The user's working tree, index, HEAD and refs are
 * never touched.
 *
 * What is measured is one of two: a command (`command.line`) or a perf test
 * (`perf.run` and `perf.test`); each way has its own options, and what the two share
 * is `measure`. The rest are the search's. culprit_bisect_confirm() and
 * culprit_bisect_investigate() take the same struct, and use good, bad, `measure` and
 * the way measured (culprit_bisect_options_check() says which fields each needs).
 */
typedef struct {
    unsigned int version;
    const char *good; /**< revision known to be fast */
    const char *bad;  /**< revision known to be slow */
    culprit_bisect_measurement measure;
    culprit_bisect_command command; /**< either this ... */
    culprit_bisect_perf_test perf;  /**< ... or this */
    /* The search's: */
    unsigned int max_failures; /**< stop after this many commits failed to build or run (5) */
    int all;                   /**< find every commit that made it slower, not only one */
    const char *const *paths;  /**< relevance (Vogel 2017, 4.4.4): commits touching none of
                                    these paths (directories or globs) are not built */
    size_t npaths;
    /** After a culprit is found: record the call trees of the culprit and its first
     * parent in their checkouts (the command, or the run command, of a binary built
     * with culprit_instrument) and diff them with change correlation against the
     * culprit (Heger et al. 2013, sections 4.2-4.3), at `confidence` and `threshold`. */
    int calltree;
    /** With calltree: the shell command building a checkout for call trees (instrumented,
     * e.g. with CC=culprit-cc), when measure.build makes a plain build. The bisection then
     * measures measure.build's binaries and records the trees in two checkouts of their
     * own built with this one. NULL: the trees are recorded from measure.build's binaries.
     * Either way, before bisecting, the good end's build for call trees must record a
     * tree, or the session stops at once with the fix (CULPRIT_ERROR). */
    const char *calltree_build;
} culprit_bisect_options;

/** The build timeout when culprit_bisect_measurement.build_timeout_s is 0: an hour. */
#define CULPRIT_BISECT_BUILD_TIMEOUT 3600

/** The runs of each per decision when min_runs is 0. */
#define CULPRIT_BISECT_MIN_RUNS 10

/** The defaults of a measurement (inside CULPRIT_BISECT_OPTIONS_INIT). */
#define CULPRIT_BISECT_MEASUREMENT_INIT                                                            \
    {                                                                                              \
        .build_timeout_s = CULPRIT_BISECT_BUILD_TIMEOUT, .confidence = 0.99, .threshold = 0.02,    \
        .count_threshold = CULPRIT_DETECT_COUNT_THRESHOLD, .min_runs = 0, .max_runs = 30,          \
        .timeout_s = 600                                                                           \
    }

/* 3: the options split into measure, command, perf and the search's (0.1.0 had 2). */
#define CULPRIT_BISECT_OPTIONS_VERSION 3
#define CULPRIT_BISECT_OPTIONS_INIT                                                                \
    {                                                                                              \
        .version = CULPRIT_BISECT_OPTIONS_VERSION, .measure = CULPRIT_BISECT_MEASUREMENT_INIT,     \
        .max_failures = 5                                                                          \
    }

/**
 * Initializes `opts` to the defaults of CULPRIT_BISECT_OPTIONS_INIT. `version` is
 * CULPRIT_BISECT_OPTIONS_VERSION (the version the caller was compiled with);
 * another one is CULPRIT_EINVALID. Returns 0.
 */
int culprit_bisect_options_init(culprit_bisect_options *opts, unsigned int version);

/**
 * The one check of a bisection's options, which every entry point makes itself
 * (culprit_bisect_session(), culprit_bisect_calltree_session(),
 * culprit_bisect_confirm(), culprit_bisect_confirm_check(),
 * culprit_bisect_investigate()) and a tool may make before it starts anything: the
 * version; good and bad; one way measured: a command (command.line), or else a perf
 * test (perf.run with perf.test; a test needs a run command), not both; a command's
 * metric only "cpu_ns" or "instructions", and a perf test's options (perf.*) only
 * with a run command; `measure` in range (confidence in (0, 1), min_runs 0 or at
 * least 2, timeouts and count_threshold). 0, or CULPRIT_EINVALID with a message
 * naming the option.
 */
int culprit_bisect_options_check(const culprit_bisect_options *opts);

/**
 * A paired A/B confirmation of one slowdown (`culprit check --confirm --build --run`):
 * `good` (the baseline commit) and `bad` (the commit judged) built in temporary
 * checkouts and run as one bisection step is (warm-up, interleaved pairs in
 * alternating order, judged on the pairs' differences, more pairs up to max_runs
 * while undecided).
 */
typedef struct {
    int slower;                             /**< 1 slower beyond the threshold; 0 not slower (the
                                                 interval rules such a slowdown out); -1 still unknown
                                                 after max_runs */
    double change, change_low, change_high; /**< relative change of bad against good */
    size_t runs;                            /**< runs of each side */
    size_t pairs;                           /**< pairs judged (0: Welch over the sides, some from
                                                 history; or the deterministic rule) */
    size_t builds;                          /**< commits built */
    int deterministic;                      /**< judged on counts (an "instructions" metric) */
    int cpu;                /**< judged on each run's CPU time: a run had preempted samples */
    size_t preempted;       /**< runs (both sides) with preempted samples */
    int out_of_time;        /**< the time budget stopped it: the figures are those so far */
    double seconds;         /**< wall time it took, builds included */
    int below;              /**< stopped as not slower: the change's one-sided 80% upper bound
                                 (below_high) fell below the threshold (docs/detection.md,
                                 "Paired confirmation") */
    double below_high;      /**< that bound when below */
    size_t decide_pairs;    /**< stopped by the time budget, still unknown: the pairs of the
                                 next look that could decide (0 otherwise) */
    double decide_budget_s; /**< and about the budget they need, at this confirmation's pace
                                 (culprit_bisect_confirm_check(); 0 otherwise) */
} culprit_bisect_confirmation;

/**
 * Measures opts->bad against opts->good as one step of a bisection (the same
 * comparison code) and says whether it is slower. Needs good, bad, and a command or a
 * run with its test, as culprit_bisect_session(); the working tree is never touched.
 * CULPRIT_ERROR naming the side when a side cannot be built or run.
 */
int culprit_bisect_confirm(culprit_bisect_confirmation *out, const culprit_bisect_options *opts);

/** What culprit_bisect_confirm_check() is doing, for a progress line. */
typedef enum {
    CULPRIT_CONFIRM_START = 0, /**< a test's confirmation begins (its two sides are built) */
    CULPRIT_CONFIRM_PAIR,      /**< one more pair was run: `pairs` and the figures so far */
    CULPRIT_CONFIRM_DONE,      /**< it ended: `result`, and the verdict was judged again */
    CULPRIT_CONFIRM_FAILED     /**< it could not run (`error`): the verdict is kept */
} culprit_confirm_event;

typedef struct {
    culprit_confirm_event event;
    const char *test;                       /**< "suite.test" */
    const char *good, *bad;                 /**< the baseline commit and the commit judged */
    size_t pairs, max_pairs;                /**< pairs so far, and the budget's */
    double elapsed_s, budget_s;             /**< time so far, and the budget's (0: none) */
    double change, change_low, change_high; /**< so far (NAN before two pairs) */
    int cpu;                                /**< so far judged on CPU time (a run was preempted) */
    const culprit_bisect_confirmation *result; /**< DONE */
    const char *error;                         /**< FAILED: why */
} culprit_confirm_progress;

/** Which verdicts of a check culprit_bisect_confirm_check() measures again. */
typedef enum {
    CULPRIT_CONFIRM_WANTED = 0,     /**< each that culprit_detect_wants_pairs() (check --confirm) */
    CULPRIT_CONFIRM_UNCONFIRMED = 1 /**< each flagged minor whose evidence is unconfirmed
                                         (check --investigate, before bisecting) */
} culprit_confirm_which;

typedef struct {
    unsigned int version;
    /** The template of each confirmation: `measure` (max_runs: the pairs budget) and the
     * way measured, a perf test (perf.run, perf.history_dir, perf.metric: the series the
     * check judged) or a command. good, bad and perf.test are set per test; the search's
     * fields are not used. */
    culprit_bisect_options pair;
    culprit_confirm_which which;
    double budget_s;   /**< per test: no pair starts after this long (its builds included);
                            the verdict rests on the pairs so far. 0: none */
    double confidence; /**< of the verdicts judged again: the check's (0.99) */
    int allow_mixed;   /**< the baseline as the check chose it (culprit_detect_options) */
    void (*progress)(const culprit_confirm_progress *p, void *payload); /**< NULL: silent */
    void *payload;
} culprit_confirm_options;

/** The default time budget of one test's paired confirmation, in seconds. */
#define CULPRIT_CONFIRM_BUDGET_S        60
#define CULPRIT_CONFIRM_OPTIONS_VERSION 2
#define CULPRIT_CONFIRM_OPTIONS_INIT                                                               \
    {                                                                                              \
        .version = CULPRIT_CONFIRM_OPTIONS_VERSION, .pair = CULPRIT_BISECT_OPTIONS_INIT,           \
        .which = CULPRIT_CONFIRM_WANTED, .budget_s = CULPRIT_CONFIRM_BUDGET_S, .confidence = 0.99  \
    }

/** Sets `opts` to CULPRIT_CONFIRM_OPTIONS_INIT. CULPRIT_EINVALID for another version. */
int culprit_bisect_confirm_options_init(culprit_confirm_options *opts, unsigned int version);

/**
 * The paired confirmation of a check (`culprit check --confirm --build --run`, and
 * `--investigate` before it bisects): each verdict of `result` that opts->which
 * selects is measured again, its baseline commit (the newest earlier run among
 * `bases` that the check compared with, from `runs`) against `commit`, as
 * culprit_bisect_confirm() does, with a confirmation's rules:
 *
 *   - only that test runs: the run command gets $CULPRIT_FILTER, the test's name as
 *     a glob, once its first run told the name the binary declares;
 *   - it stops at a budget: max_runs pairs, or opts->budget_s seconds, whichever comes
 *     first, and the verdict then rests on the pairs so far (still unknown when they
 *     cannot tell);
 *   - it judges each run's CPU floor (the CPU time of its fastest sample, the test's
 *     cpu_ns) instead of its time when any run of the two sides had preempted
 *     samples (the runner counts them), by the sign test below 20 pairs: on a loaded
 *     machine the wall time of a run carries the waits of the scheduler, and whole
 *     runs fall in slow phases that a pair's vote absorbs. The result (and the
 *     verdict's `paired`) says which.
 *
 * The verdict is then judged again by the pairs (culprit_detect_apply_paired()). A
 * test that cannot be confirmed (a side does not build or run) keeps its verdict,
 * and the progress callback is told why (FAILED). Errors: bad options, out of memory;
 * a Ctrl-C during a build or a run ends them (as culprit_bisect_session()).
 */
int culprit_bisect_confirm_check(culprit_check_result *result, const culprit_history_runs *runs,
                                 const char *commit, const char *const *bases, size_t nbases,
                                 const culprit_confirm_options *opts);

/** One measured comparison of a commit against the good end. */
typedef struct culprit_bisect_step {
    char sha[41];
    char *subject;
    culprit_bisect_verdict verdict;         /**< bad: significantly slower than the good end */
    char *skip_reason;                      /**< why a skipped commit could not be measured */
    char good[41];                          /**< the good end it was compared with */
    double good_mean_ns, mean_ns;           /**< mean run times */
    double change, change_low, change_high; /**< relative change and its interval */
    size_t runs;                            /**< runs of each of the two commits */
    int undecided;     /**< good only because max_runs could not tell (not a proven non-slowdown) */
    size_t reused;     /**< samples of the two sides taken from history instead of run */
    size_t paired;     /**< run pairs (good end, then candidate) the change was judged on, their
                            differences inside Tukey's severe fences; 0: Welch over the two
                            sides (some samples came from history) */
    int deterministic; /**< judged on counts (an "instructions" metric) by the deterministic rule:
                          one run per side, no warm-up, no interval (change_low == change_high) */
    int conclusive;    /**< bad at confidence 1 - (1 - confidence)^2 too: as strong as this
                            step and an independent confirmation of it together (a culprit
                            found by such a step against its parent is not measured again) */
    /* A paired confirmation's (culprit_bisect_confirm_check); 0 in a bisection: */
    int cpu;           /**< judged on each run's CPU floor (the test's cpu_ns), not its time:
                            some run of the step had preempted samples */
    size_t preempted;  /**< runs of the step (both sides) with preempted samples */
    int out_of_time;   /**< the time budget ended the step: the figures are those so far */
    int below;         /**< a confirmation stopped as not slower: the change's one-sided 80%
                            upper bound (below_high) fell below the threshold */
    double below_high; /**< that bound when below */
    /** The command's CPU time (user + system) over the same runs, when the probe tells it
     * (a --command run, a perf test's CPU floor): the change of its geometric mean,
     * candidate against good end, over cpu_runs runs a side; cpu_runs 0: unknown. */
    double cpu_change;
    size_t cpu_runs;
    /** Fanned out (culprit_bisect_fanout_finish()): the round of probes the step was
     * measured in, each probe on its runner (1, 2, ...); 0: a step of this process. */
    size_t round;
} culprit_bisect_step;

typedef enum {
    CULPRIT_BISECT_RESULT_FOUND = 0,     /**< culprit holds the first bad commit */
    CULPRIT_BISECT_RESULT_AMBIGUOUS,     /**< skips leave `range` as possible first bad commits */
    CULPRIT_BISECT_RESULT_NO_REGRESSION, /**< bad is not significantly slower than good */
    CULPRIT_BISECT_RESULT_SLOW_DECAY     /**< bad is slower, but no single commit is: `culprits`
                                              lists the commits of the range with the change each
                                              contributes (Heger et al. 2013, section 6, 2) */
} culprit_bisect_outcome;

/** One commit found to make the command slower (--all finds several). */
typedef struct {
    char sha[41];
    char *subject;
    double change, change_low, change_high; /**< against its first parent (a culprit judged
                                                 against it), else the good end it was
                                                 measured with */
    double share;     /**< the share of the range's slowdown it explains, on the log scale:
                           log(1 + change) / log(1 + the range's change); NAN unknown */
    double cpu_share; /**< the same share of the range's CPU-time slowdown (docs/bisect.md,
                           "Explaining the whole change"); NAN unknown or not used */
} culprit_bisect_culprit;

typedef struct {
    culprit_bisect_outcome outcome;
    char culprit[41];
    char *subject, *author, *date;          /**< of the culprit */
    double change, change_low, change_high; /**< the culprit's step against its good end */
    char good[41], bad[41];                 /**< the resolved ends */
    char metric[32]; /**< the series judged: command.metric or perf.metric ("cpu_ns",
                          "instructions"), or ""
                          for time (the command's wall time, the test's measured time) */
    size_t ncommits; /**< commits between them (the DAG) */
    size_t nsteps;
    culprit_bisect_step *steps; /**< the initial good/bad check first */
    size_t builds, runs;        /**< spent */
    size_t reused;              /**< samples taken from history instead of running */
    size_t nrange;
    char (*range)[41]; /**< AMBIGUOUS: the possible first bad commits */
    size_t nculprits;
    culprit_bisect_culprit *culprits; /**< every culprit found, the first one first */
    size_t nunsearched; /**< --all: ranges without an overall slowdown too long to scan */
    size_t nirrelevant; /**< commits not built because they touch none of `paths` */
    size_t backtracks;  /**< times an answer no slower than its parent sent the search
                             below it (its parent slower than the good end) or above it
                             (the bad end slower than it): a step had misjudged a commit */
    int confirmed;      /**< the culprit against its first parent, in runs of its own
                             (with twice max_runs): 1 slower;
                             0 not shown slower: with `paths` the cause may be in a commit
                             judged irrelevant, without them the runs could not tell (a
                             parent check that rules a slowdown out gives a slow decay);
                             -1 unchecked (no parent, or it cannot be measured) */
    /* With opts->calltree and a culprit found: */
    char parent[41];                /**< the culprit's first parent the trees compare with */
    culprit_calltree *parent_tree;  /**< recorded in the parent's checkout */
    culprit_calltree *culprit_tree; /**< recorded in the culprit's */
    culprit_calltree_diff calltree; /**< culprit against parent, correlated with `changes` */
    culprit_vcs_changeset changes;  /**< what the culprit changed against its parent */
    char *calltree_error;   /**< why the call-tree analysis could not run (the program is not
                                 instrumented, a build failed...), or NULL; the bisection's
                                 outcome stands either way */
    int calltree_corrected; /**< 1: both trees were recorded with the plain build of the
                                 same commit as their baseline (opts->calltree_build with
                                 opts->command.line: the bisection's own --build checkouts), so
                                 their times are corrected for the instrumentation
                                 (culprit_calltree_record_options.baseline); 0: not */
} culprit_bisect_result;

/**
 * Runs a bisection session. CULPRIT_EINVALID for options whose version is not
 * CULPRIT_BISECT_OPTIONS_VERSION (initialize them with CULPRIT_BISECT_OPTIONS_INIT
 * or culprit_bisect_options_init()) or out of range. CULPRIT_ENOTFOUND /
 * CULPRIT_EINVALID for bad revisions (unknown, good not an ancestor of bad,
 * good == bad), CULPRIT_ERROR when the good or the bad end does not build or run,
 * or too many commits failed (the message says which and why). A bad end that is
 * not slower is not an error: outcome NO_REGRESSION, with the figures. Temporary
 * checkouts are removed on every path. Builds and runs go in a process group of
 * their own: a SIGINT handler ends them with culprit_process_interrupt() (SIGTERM,
 * SIGKILL after the grace period) before culprit_vcs_checkout_remove_all() and
 * culprit_fs_temp_dir_remove_signal_safe().
 */
int culprit_bisect_session(culprit_bisect_result *out, const culprit_bisect_options *opts);

void culprit_bisect_result_dispose(culprit_bisect_result *result);

/**
 * The call-tree step alone, for a commit already known to be the culprit (a check
 * judged it against its first parent, the only commit between them): `opts->bad`
 * and its first parent are built in temporary checkouts with `opts->measure.build`, their
 * call trees recorded with `opts->perf.run` (or `opts->command.line`), diffed at
 * `opts->measure.confidence` and `opts->measure.threshold` and correlated with the commit's
 * changes. `opts->good` and `opts->calltree` are ignored. The result reads as a
 * bisection's that found the commit: outcome FOUND, `culprit` and `bad` the
 * commit, `good` and `parent` its parent, ncommits 1, no steps, the change
 * unknown (NAN); a failure of the call-tree step is in `calltree_error`, as for
 * culprit_bisect_session(). Errors: bad options, an unknown revision.
 */
int culprit_bisect_calltree_session(culprit_bisect_result *out, const culprit_bisect_options *opts);

/* ------------------------------------------------------------ investigations --- */

/** What became of one investigation (`culprit check --investigate`). */
typedef enum {
    CULPRIT_INVESTIGATION_FOUND = 0,       /**< the culprit commit is named (and the function
                                                when the call trees could tell) */
    CULPRIT_INVESTIGATION_UNRESOLVED = 1,  /**< the bisection ran but named no single commit
                                                (ambiguous, no regression, slow decay) */
    CULPRIT_INVESTIGATION_FAILED = 2,      /**< it could not run (a build failed...): `error` */
    CULPRIT_INVESTIGATION_NOT_INVESTIGATED /**< the budget ran out before or during it */
} culprit_investigation_status;

/** "found", "unresolved", "failed", "not-investigated"; NULL out of range. */
const char *culprit_bisect_investigation_status_name(culprit_investigation_status status);

/**
 * One investigation: the regressed tests of a check that share a range (the same
 * baseline commit and commit judged), one bisection of that range, or the call
 * trees alone when the range is one commit. Everything is owned.
 */
typedef struct {
    culprit_investigation_status status;
    size_t ntests;
    char **tests;     /**< "suite.test", the one bisected first (the worst) */
    char good[41];    /**< the baseline commit (newest earlier data of the first test) */
    char bad[41];     /**< the commit judged */
    size_t ncommits;  /**< commits in (good, bad]; 0 unknown */
    int bisected;     /**< 1 a bisection ran; 0 straight to the call trees */
    double change;    /**< the relative change the check saw of the first test */
    double threshold; /**< the slowdown a bisection step had to show */
    culprit_bisect_result result; /**< the bisection's (or the call-tree step's) result */
    char *function;               /**< the call trees' answer (culprit_calltree_diff_answer()): the
                                       function the culprit changed that explains the
                                       regression, or where the time went when no change
                                       was correlated; NULL when none */
    char *file;                   /**< its source file (relative to the repository), NULL unknown */
    unsigned int line;            /**< its first line, 0 unknown */
    char *error;                  /**< FAILED / NOT_INVESTIGATED: why; else NULL */
    double seconds;               /**< wall time spent */
    char *answer; /**< the answer as a sentence (culprit_calltree_answer_text()), also when
                       no changed function is on the slow path; NULL when none */
} culprit_investigation;

typedef struct {
    unsigned int version;
    /** The template of every session: `measure` and the perf test (perf.test is set per
     * investigation: perf.run, history_dir and record, metric). good, bad, perf.test,
     * calltree and all are set here. */
    culprit_bisect_options bisect;
    const char *calltree_build; /**< the instrumented build whose call trees are recorded
                                     (the culprit and its parent built again with it);
                                     NULL: bisect.measure.build (then it must be instrumented) */
    double budget_s;            /**< wall-time budget of all of them; 0: none */
} culprit_investigate_options;

#define CULPRIT_INVESTIGATE_OPTIONS_VERSION 2
#define CULPRIT_INVESTIGATE_OPTIONS_INIT                                                           \
    {                                                                                              \
        CULPRIT_INVESTIGATE_OPTIONS_VERSION, CULPRIT_BISECT_OPTIONS_INIT, NULL, 1800               \
    }

/** Sets `opts` to the defaults (a budget of 30 minutes). CULPRIT_EINVALID for another
 * version. */
int culprit_bisect_investigate_options_init(culprit_investigate_options *opts,
                                            unsigned int version);

/**
 * `culprit check --investigate`: for each test of `check` that regressed (a major
 * verdict, or a minor one with the evidence to fail a job: culprit_detect_check_counts_as()
 * and the time verdict agree), the range from its baseline commit (the newest earlier
 * data among `bases`, as `runs` hold them) to the commit judged. Tests sharing a range
 * share one investigation, majors first, then by the size of the change. A range of
 * more than one commit is bisected (culprit_bisect_session() with opts->bisect, the
 * test bisected the worst of the group, a step bad when slower by at least half the
 * change the check saw, and never less than opts->bisect.measure.threshold), then the call
 * trees of the culprit and its parent are diffed; a range of one commit goes
 * straight to the call trees (culprit_bisect_calltree_session()).
 *
 * The budget bounds the whole: an investigation not started before it ran out, or
 * stopped by it between two builds or runs, is NOT_INVESTIGATED; each build or run is
 * given at most what is left (and at least a second). A failed investigation does
 * not stop the next. `*out` gets `*nout` investigations in order (NULL when none);
 * free with culprit_bisect_investigations_free(). Errors: bad options, out of memory.
 * Not thread-safe (runs processes, uses the bisection's Ctrl-C handling).
 */
int culprit_bisect_investigate(culprit_investigation **out, size_t *nout,
                               const culprit_check_result *check, const culprit_history_runs *runs,
                               const char *const *bases, size_t nbases,
                               const culprit_investigate_options *opts);

/** Frees `n` investigations and the array. NULL is a no-op. */
void culprit_bisect_investigations_free(culprit_investigation *investigations, size_t n);

/** The investigation test `test` ("suite.test") belongs to, or NULL. Borrowed. */
const culprit_investigation *
culprit_bisect_investigation_of(const culprit_investigation *investigations, size_t n,
                                const char *test);

/* ------------------------------------------- the range of --auto, the document --- */

/**
 * `culprit bisect --auto`: the two ends of a bisection chosen from the history of
 * `test` ("suite.test" or a bare name). `first_parents` (n ids, newest first) is a
 * first-parent line; each commit with runs of the test is judged against the
 * commits after it in the array as `culprit history` judges it
 * (culprit_detect_check). Walking oldest first, `good` is the last commit where
 * the test was fine (unchanged, faster or without a baseline) and `bad` the first
 * flagged one (major or minor) after it; a commit fine again drops an earlier bad,
 * so the latest regression is the one found.
 *
 * Returns 0 with both set, CULPRIT_ENOTFOUND (message set, both empty) when the
 * line has no flagged commit after a fine one, or the error of a check.
 * Thread-safe: reads `runs` only.
 */
int culprit_bisect_auto_range_of(char good[41], char bad[41], const culprit_history_runs *runs,
                                 const char *test, const char *const *first_parents, size_t n);

/**
 * The same on the first-parent line of HEAD in `repo`, its newest 200 commits.
 * Errors also those of culprit_vcs_resolve and culprit_vcs_first_parents.
 */
int culprit_bisect_auto_range(char good[41], char bad[41], culprit_vcs *repo,
                              const culprit_history_runs *runs, const char *test);

/**
 * The document of `culprit bisect --json` (docs/cli.md), appended to `out` with a
 * final newline: the outcome, the ends, the culprits, every step, and with
 * `calltree` (the session ran with opts->calltree) the call-tree diff of the
 * culprit against its parent or why there is none. `test` is the --test measured
 * (NULL: none), which culprit report matches to its series. The library owns this
 * format: its reader is culprit_bisect_result_from_json(). Returns 0 or CULPRIT_ERROR.
 */
int culprit_bisect_result_to_json(culprit_buf *out, const culprit_bisect_result *result,
                                  const char *test, int calltree);

/** The document's word of an outcome: "found", "ambiguous", "no-regression",
 * "slow-decay"; NULL for a value out of range. */
const char *culprit_bisect_outcome_name(culprit_bisect_outcome outcome);

/** The document's word of a step's verdict: "good", "bad", "skip"; NULL out of range. */
const char *culprit_bisect_verdict_name(culprit_bisect_verdict verdict);

/**
 * Reads the document `culprit bisect --json` printed from `path` back into `out`
 * (zeroed first; free with culprit_bisect_result_dispose()): the outcome, the ends,
 * the culprit and its figures, the steps, the culprits of --all or a slow decay,
 * the ambiguous range, the totals, and with --calltree the parent compared with
 * and calltree_error. The trees and the library's diff of them are not in the
 * document: `out->calltree` stays empty, and the analysis goes to `*calltree` as
 * a view (NULL when the document has none; may be NULL to skip it; caller frees
 * with culprit_calltree_view_free()). `*test` (may be NULL) gets the perf test
 * bisected, NULL for a command (caller frees).
 *
 * The document is untrusted: CULPRIT_ENOTFOUND when the file does not exist;
 * CULPRIT_EINVALID naming the file and the field when it is not JSON, not this
 * command's document, without an "outcome", or with a word the writer never
 * writes (an outcome, a step's verdict). A missing optional field is left
 * unknown (NAN, NULL, 0; confirmed -1). On error nothing is left to free.
 */
int culprit_bisect_result_from_json(culprit_bisect_result *out, char **test,
                                    culprit_calltree_view **calltree, const char *path);

/* ------------------------------------------------ fan-out over many runners --- */

/**
 * A bisection fanned out over many runners (docs/bisect.md, "Fanning out"): rounds
 * of `k` probes at once, each probe a separate job (a CI matrix entry) that builds
 * and measures one commit against the good end on its own runner, paired, and
 * records its verdict into history as a run of the suite CULPRIT_FANOUT_SUITE; the
 * shared history (refs/culprit/history) carries the records between runners. Each
 * state is computed from the records alone, so a planner that died loses nothing and
 * a probe that recorded nothing (interrupted, its reference side failed) is planned
 * again.
 */
typedef struct {
    unsigned int version;
    size_t k; /**< probes per round (at least 1) */
    /** The history source the records are read from (the directory and the shared
     * ref); borrowed. */
    const culprit_history_source *history;
    /** Where a probe writes its record (created when missing). */
    const char *record_dir;
} culprit_fanout_options;

#define CULPRIT_FANOUT_OPTIONS_VERSION 1
#define CULPRIT_FANOUT_OPTIONS_INIT                                                                \
    {                                                                                              \
        .version = CULPRIT_FANOUT_OPTIONS_VERSION, .k = 1                                          \
    }

/** The suite of the probes' records in history. */
#define CULPRIT_FANOUT_SUITE "culprit-bisect"

/** One probe's record, as read back. */
typedef struct {
    char sha[41];
    culprit_bisect_verdict verdict;
    size_t round;                           /**< the round it was planned in */
    double change, change_low, change_high; /**< against the good end (NAN: skip) */
    size_t pairs;                           /**< pairs judged (0: counted, or Welch) */
    int used;   /**< 1: replayed on the search (the newest record of a commit of the range);
                     0: not (an older record of the commit, another range, a commit that is no
                     candidate: an irrelevant one with paths) */
    char *host; /**< the runner it ran on */
    char *note; /**< why it is a skip, or how it was judged */
    /** A counted metric: the good end's count the probe judged against (a later probe
        takes it instead of building and counting the good end again); 0: none (a
        timed probe's, or an older record). */
    double good_count;
} culprit_fanout_record;

/** Where a fanned-out bisection stands (culprit_bisect_fanout_state()). */
typedef struct {
    culprit_bisect_status status;
    size_t round;     /**< the round `plan` is (1 + the last round recorded) */
    char (*plan)[41]; /**< RUNNING: the next round's commits (at most k) */
    size_t nplan;
    char culprit[41];  /**< FOUND: the first bad commit */
    char (*range)[41]; /**< AMBIGUOUS: the commits that may be it */
    size_t nrange;
    char good[41], bad[41];         /**< the ends, resolved */
    size_t ncommits;                /**< commits in (good, bad] */
    size_t ncandidates;             /**< still possible */
    size_t nirrelevant;             /**< with paths: commits touching none, never planned */
    char key[17];                   /**< the bisection's records are the test "fanout-KEY" */
    culprit_fanout_record *records; /**< the records of this bisection, oldest first */
    size_t nrecords;
} culprit_fanout_state;

/**
 * Reads the records of the bisection `opts` describes (good, bad, build, command or
 * run/test, metric, threshold, paths: another of them is another bisection) and
 * replays them on the range: the next round of fo->k commits (culprit_bisect_plan)
 * or the answer. Records of commits outside the range are ignored; a commit
 * recorded twice counts by its newest record. Dispose with
 * culprit_bisect_fanout_state_dispose(). Errors: the range's (unknown revisions), the
 * history source's; a missing history is no error (nothing recorded yet).
 */
int culprit_bisect_fanout_state(culprit_fanout_state *out, const culprit_bisect_options *opts,
                                const culprit_fanout_options *fo);
void culprit_bisect_fanout_state_dispose(culprit_fanout_state *state);

/**
 * One probe: `commit` measured against opts->good in temporary checkouts (the
 * working tree untouched), as one step of a bisection, both sides on this runner
 * (paired; with a counted metric, a count of either side may come from history,
 * since counts agree across runners), and its record written into fo->record_dir:
 * bad, good (also when undecided, as a sequential step counts it), or skip when the
 * commit itself does not build or run. When the good end cannot be built or
 * measured, or anything else fails, nothing is recorded (the commit is planned
 * again) and the error is returned. `*out` gets the record (dispose with
 * culprit_bisect_fanout_record_dispose()).
 */
int culprit_bisect_fanout_probe(culprit_fanout_record *out, const culprit_bisect_options *opts,
                                const culprit_fanout_options *fo, const char *commit);
void culprit_bisect_fanout_record_dispose(culprit_fanout_record *record);

/**
 * The end of a fanned-out bisection that found `state->culprit`: the normal
 * bisection's last steps on this runner, with opts' options (--calltree included):
 * the culprit against its first parent (the confirmation), its share, its call
 * trees. `out` as culprit_bisect_session() fills it, with the whole range's ends and
 * size.
 */
int culprit_bisect_fanout_finish(culprit_bisect_result *out, const culprit_bisect_options *opts,
                                 const culprit_fanout_state *state);

#ifdef __cplusplus
}
#endif

#endif
