/*
 * culprit detect: speed categories (the paper's baseline for major regressions),
 * the verdicts of the time detector (docs/detection.md), the counter detectors
 * (counter clusters and association rules, docs/counters.md) and the check that
 * runs them over every test of a commit. A category is a named range of response
 * time; the set is ordered from fastest to slowest, each category ending where
 * the next begins (fast < 1 ms <= medium < 100 ms <= slow by default).
 */
#ifndef CULPRIT_DETECT_H
#define CULPRIT_DETECT_H

#include <stddef.h>

#include "culprit/history.h"
#include "culprit/deprecated.h" /* the old names, until 0.2 */

#ifdef __cplusplus
extern "C" {
#endif

/** One category: [low_ns, high_ns). high_ns is INFINITY for the slowest. */
typedef struct {
    char *name;
    double low_ns;
    double high_ns;
} culprit_category;

/** An ordered set of categories, fastest first, contiguous from 0 to infinity. */
typedef struct {
    size_t n;
    culprit_category *items;
} culprit_categories;

/** The defaults: fast [0, 1 ms), medium [1 ms, 100 ms), slow [100 ms, inf). */
int culprit_detect_categories_default(culprit_categories **out);
void culprit_detect_categories_free(culprit_categories *categories);
/** The category called `name`, or NULL. Borrowed. */
const culprit_category *culprit_detect_categories_find(const culprit_categories *categories,
                                                       const char *name);
/** The category whose range holds `ns`. Never NULL for ns >= 0 (the set is contiguous). */
const culprit_category *culprit_detect_categories_classify(const culprit_categories *categories,
                                                           double ns);
/** 1 when `c` is the fastest category of the set. */
int culprit_detect_categories_is_fastest(const culprit_categories *categories,
                                         const culprit_category *c);

/**
 * Parses a duration such as "250us", "1ms", "1.5 s", "100000ns" or a bare number of
 * nanoseconds into ns, at most a day. CULPRIT_EINVALID for anything else.
 */
int culprit_detect_parse_duration_ns(double *out, const char *text);

/** The longest category name, in bytes. */
#define CULPRIT_CATEGORY_NAME_MAX 128
/**
 * 0 when `name` can name a category: 1 to CULPRIT_CATEGORY_NAME_MAX bytes of UTF-8
 * without control characters (no line break, tab or escape), since every run
 * records it in its history and every terminal shows it. Else CULPRIT_EINVALID
 * with a message saying why, the name in it escaped (culprit_buf_put_text()).
 */
int culprit_detect_category_name_check(const char *name);

/**
 * The project file (culprit.json, checked into the user's repository; see
 * docs/categories.md): categories, per-test category choices, the history directory.
 */
typedef struct culprit_project culprit_project;

/**
 * Loads a project file. CULPRIT_ENOTFOUND when it does not exist; CULPRIT_EINVALID
 * with a message naming the file, the key and what is wrong.
 */
int culprit_detect_project_load(culprit_project **out, const char *path);
/** The same from `len` bytes of text; `path` names it in messages and anchors a
 * relative "history". */
int culprit_detect_project_parse(culprit_project **out, const char *text, size_t len,
                                 const char *path);
/** A project with the default categories and nothing else. */
int culprit_detect_project_default(culprit_project **out);
void culprit_detect_project_free(culprit_project *project);
/** The categories (borrowed). */
const culprit_categories *culprit_detect_project_categories(const culprit_project *project);
/** The category the project file names for test key "suite.test", or NULL. */
const char *culprit_detect_project_test_category(const culprit_project *project, const char *key);
/** The history directory the project file names (relative to the file), or NULL. */
const char *culprit_detect_project_history_dir(const culprit_project *project);
/** The project file's "fail_on" ("major", "minor", "none" or "uncompared": the default
 * of --fail-on for `culprit check` and the test binaries), or NULL when not set. */
const char *culprit_detect_project_fail_on(const culprit_project *project);

/** The commands a project file can hold for bisections and investigations. */
typedef enum {
    CULPRIT_PROJECT_BUILD = 0,          /**< "build": builds a checkout (bisect --build) */
    CULPRIT_PROJECT_RUN = 1,            /**< "run": runs the test binary (bisect --run) */
    CULPRIT_PROJECT_CALLTREE_BUILD = 2, /**< "calltree_build": the instrumented build whose
                                             call trees are recorded */
    CULPRIT_PROJECT_NCOMMANDS = 3
} culprit_project_command_kind;

/**
 * The shell command the project file holds under the key of `which` (run in a
 * checkout with $CULPRIT_CHECKOUT, as culprit bisect runs --build and --run), or NULL
 * when it holds none. Borrowed from the project. A present key that is not a
 * non-empty string was refused by culprit_detect_project_parse() with "file:line".
 */
const char *culprit_detect_project_command(const culprit_project *project,
                                           culprit_project_command_kind which);

/**
 * Persisted automatic assignments: "suite.test" -> category, kept in
 * <history dir>/categories.json so later runs are judged against the first one.
 */
typedef struct culprit_assignments culprit_assignments;

/** Loads assignments; a missing file gives an empty set. CULPRIT_EINVALID if corrupt. */
int culprit_detect_assignments_load(culprit_assignments **out, const char *path);
void culprit_detect_assignments_free(culprit_assignments *assignments);
/** The category assigned to `key`, or NULL. Borrowed. */
const char *culprit_detect_assignments_get(const culprit_assignments *assignments, const char *key);
/** Assigns (or re-assigns) `key`. */
int culprit_detect_assignments_set(culprit_assignments *assignments, const char *key,
                                   const char *category);
/** Removes the assignment of `key`; 0 also when there was none. */
int culprit_detect_assignments_unset(culprit_assignments *assignments, const char *key);
/** Number of assignments, and the i-th key/category (borrowed), for listing. */
size_t culprit_detect_assignments_count(const culprit_assignments *assignments);
int culprit_detect_assignments_entry(const culprit_assignments *assignments, size_t i,
                                     const char **key, const char **category);
/**
 * Saves atomically (temporary file and rename). Entries written by another process
 * since the load are kept: the file is re-read and merged just before writing.
 */
int culprit_detect_assignments_save(culprit_assignments *assignments, const char *path);
/**
 * Adds to the file at `path` the assignments of `from` it lacks, under the same lock
 * and atomically as a save; an assignment the file holds already wins (the first
 * one a test got stays its category). `*added` (may be NULL): how many were added;
 * none, no write. Errors as culprit_detect_assignments_save() (a corrupt file is refused
 * and left untouched).
 */
int culprit_detect_assignments_adopt(size_t *added, const char *path,
                                     const culprit_assignments *from);

/**
 * How one assignment travels in the shared history (docs/categories.md): a file
 * named after the test, `name` (bytes other than [A-Za-z0-9_.-], and a leading '.',
 * written %XX), holding `content`, the category and a newline. Both are appended
 * to. CULPRIT_EINVALID when the key is empty or the category not one line of text.
 */
int culprit_detect_assignments_encode(culprit_buf *name, culprit_buf *content, const char *key,
                                      const char *category);
/**
 * Reads back a file of culprit_detect_assignments_encode() (untrusted: from other
 * machines) into `into`, unless `into` holds that test already (the first wins).
 * CULPRIT_EINVALID naming `name` when the name is not an encoded test name or the
 * content not a category name (1 to 128 bytes, no control characters), `into`
 * unchanged.
 */
int culprit_detect_assignments_decode(culprit_assignments *into, const char *name, const char *data,
                                      size_t len);

/* ------------------------------------------------------------- verdicts --- */

/**
 * What detection says of one test at one commit (Heger et al. 2013, section 3: the
 * category is the baseline for major regressions, history for minor ones).
 */
typedef enum {
    CULPRIT_VERDICT_UNCHANGED = 0, /**< no practically relevant significant change */
    CULPRIT_VERDICT_MINOR,         /**< significantly slower than the baseline, inside the
                                        category, by more than the threshold */
    CULPRIT_VERDICT_MAJOR,         /**< the category is not met: the lower confidence
                                        bound of the mean is above its upper limit */
    CULPRIT_VERDICT_IMPROVEMENT,   /**< significantly faster by more than the threshold */
    CULPRIT_VERDICT_UNDECIDED,     /**< the samples cannot tell; more_samples says how many
                                        more repetitions would decide */
    CULPRIT_VERDICT_NO_BASELINE,   /**< nothing earlier to compare with */
    CULPRIT_VERDICT_MIXED,         /**< earlier runs exist but none is comparable (another
                                        machine class, build, counting tool, a dirty tree),
                                        or an explicit baseline is not: not compared (see
                                        mismatch; allow_mixed overrides) */
    CULPRIT_VERDICT_NOT_RUN        /**< the test failed or errored: no timing to judge */
} culprit_verdict_kind;

/** "unchanged", "minor", "major", "improvement", "undecided", "no-baseline", "mixed",
 * "not-run". */
const char *culprit_detect_verdict_name(culprit_verdict_kind kind);

typedef struct {
    unsigned int version;
    double confidence;        /**< of every interval and test (0.99, as the paper) */
    double threshold;         /**< practical threshold: relative change that matters (0.02) */
    double fdr;               /**< Benjamini-Hochberg level across the tests of a check (0.05) */
    unsigned int min_samples; /**< fewer samples on a side: undecided (5) */
    int allow_mixed;          /**< compare across machine / compiler / flags fingerprints */
    /* Counted metrics (a result with counted_by set: instructions under Valgrind) are
     * judged by the deterministic rule (culprit_detect_counted_change): */
    double count_threshold; /**< relative change of the count that matters (0.005) */
    double count_aa_margin; /**< the threshold is at least this x the A/A spread seen in
                                 history for the test (culprit_detect_count_spread) (5) */
    int allow_dirty;        /**< a run from a dirty tree may be a baseline (never by
                                 default: its code is not its commit's) */
} culprit_detect_options;

#define CULPRIT_DETECT_OPTIONS_VERSION 1
#define CULPRIT_DETECT_COUNT_THRESHOLD 0.005
#define CULPRIT_DETECT_COUNT_AA_MARGIN 5.0
#define CULPRIT_DETECT_OPTIONS_INIT                                                                \
    {                                                                                              \
        CULPRIT_DETECT_OPTIONS_VERSION, 0.99, 0.02, 0.05, 5, 0, CULPRIT_DETECT_COUNT_THRESHOLD,    \
            CULPRIT_DETECT_COUNT_AA_MARGIN, 0                                                      \
    }

int culprit_detect_options_init(culprit_detect_options *opts, unsigned int version);

/**
 * The baseline of one test: one or more earlier results of it, pooled when several
 * (the "last K commits" baseline), with the runs they came from (for fingerprints).
 */
typedef struct {
    size_t n;
    const culprit_test_result *const *results;
    const culprit_run *const *runs;
    const char *label;   /**< what to call it in messages: a commit sha, or "3 commits" */
    double between_var;  /**< variance of one run's mean offset (Kalibera & Jones 2013), from
                              culprit_detect_run_noise(); 0: unknown or none */
    double between_df;   /**< its degrees of freedom */
    double count_spread; /**< counted metrics: the largest relative difference between two
                              runs of the test at one commit (A/A), from
                              culprit_detect_count_spread(); 0: none seen */
    char *incomparable;  /**< n == 0 from culprit_detect_baseline_for(): why the newest
                              earlier run passed over was not comparable (owned); NULL when
                              there was none */
    const struct culprit_run_spread *spread; /**< the machine's pooled run-to-run spread, for
                                                  a test too young for its own noise model
                                                  (culprit_detect_run_spread()); NULL: the
                                                  default (CULPRIT_DETECT_SPREAD_DEFAULT) */
} culprit_baseline;

/** culprit_detect_comparable(): a baseline from a dirty tree is comparable too. */
#define CULPRIT_COMPARABLE_ANY_TREE 0x1u

/**
 * 1 when `base` (a result of `base_run`) may be the baseline of `now` (a result of
 * `now_run`), docs/detection.md "Comparable baselines": the same machine class
 * (culprit_history_run_machine_class()), compiler and build flags, the same metric counted the
 * same way (counted_by, the tool and its version), and a baseline measured on a
 * clean tree (unless `flags` has CULPRIT_COMPARABLE_ANY_TREE). `now` and `base` may
 * both be NULL: the run-level rules only. 0 when not, with *why (when `why` is not
 * NULL) a malloc'd line naming what differs ("compiler differs: 'clang 16' now,
 * 'gcc 12' in the baseline"); negative on allocation failure. Thread-safe.
 */
int culprit_detect_comparable(char **why, const culprit_run *now_run,
                              const culprit_test_result *now, const culprit_run *base_run,
                              const culprit_test_result *base, unsigned int flags);

/**
 * Chooses the baseline of test `suite`.`test` from loaded `runs`: walking `commits`
 * (newest first: the first-parent history the caller got from vcs), the newest
 * passing run of the test at each commit, until `pool` commits with data were found
 * (pool <= 1: the newest one only; K: the pooled runs of the last K commits with
 * data). `out` borrows from `runs`; dispose with culprit_detect_baseline_dispose(). A test
 * with no earlier data gives n == 0 (not an error).
 */
int culprit_detect_baseline(culprit_baseline *out, const culprit_history_runs *runs,
                            const char *suite, const char *test, const char *const *commits,
                            size_t ncommits, size_t pool);

/**
 * The baseline of `now` (a result of `now_run`), as culprit_detect_baseline() but
 * only from runs comparable with it (culprit_detect_comparable()): at each commit the
 * newest comparable run, so that an incomparable newer run (a Debug build beside the
 * Release ones, another runner) never hides an older comparable one. With nothing
 * comparable, n == 0 and `incomparable` says why the newest candidate was passed
 * over (NULL when there was no earlier run at all). `allow_mixed`: any run counts,
 * as culprit_detect_baseline().
 */
int culprit_detect_baseline_for(culprit_baseline *out, const culprit_history_runs *runs,
                                const culprit_run *now_run, const culprit_test_result *now,
                                const char *const *commits, size_t ncommits, size_t pool,
                                int allow_mixed);
void culprit_detect_baseline_dispose(culprit_baseline *baseline);

/** The fewest earlier runs culprit_detect_run_noise() estimates from; a minor
 * regression judged with fewer is unconfirmed (CULPRIT_EVIDENCE_UNCONFIRMED). */
#define CULPRIT_DETECT_NOISE_MIN_RUNS 4

/**
 * Estimates how much the mean of `now`'s test moves from one run to the next beyond
 * what its repetitions show (the between-run variance of Kalibera & Jones 2013): from
 * the last `window` measured runs of the same suite.test before `now_run` in time, on
 * the same machine, compiler and flags, as the median of the squared differences of
 * successive run means (robust to a past step change) less their within-run parts.
 * Sets *var = 0 and *df = 0 when fewer than 4 such runs exist (fewer would give
 * an estimate with 1 or 2 degrees of freedom, too uncertain to judge with).
 */
int culprit_detect_run_noise(double *var, double *df, const culprit_history_runs *runs,
                             const culprit_run *now_run, const culprit_test_result *now,
                             size_t window);

/**
 * The relative run-to-run spread of a machine class, pooled over tests
 * (docs/detection.md, "Borrowing strength across tests"): how far the mean of one
 * run of unchanged code lands from the next, as the standard deviation of the log of
 * a run's floor (its fastest judged sample: on a loaded machine a run's mean moves
 * with the load, its floor far less), estimated from every test with enough runs
 * there. What judges a
 * minor regression of a test too young for its own noise model.
 */
typedef struct culprit_run_spread {
    double sd;    /**< the estimate (0.05: a run's floor moves about 5%); the default when
                       no test has enough runs */
    double upper; /**< its upper confidence bound at the check's confidence (chi-square
                       with df degrees of freedom); the default when no test has enough */
    double df;    /**< degrees of freedom of the estimate; 0: the default decided */
    size_t tests; /**< tests pooled: those with CULPRIT_DETECT_NOISE_MIN_RUNS runs or more */
    size_t runs;  /**< their runs */
} culprit_run_spread;

/** The spread assumed before any test has enough runs: a run's floor 25% off (one sd of
 * its log); with the factor, a limit of x11.9 for one earlier run (docs/detection.md). */
#define CULPRIT_DETECT_SPREAD_DEFAULT 0.25
/** How far beyond the spread's upper bound a young test's floor must move to be
 * confirmed by one earlier run (with the minor significant on the means): 7 sds of the difference
 * of two runs (Vysochanskij-Petunin: at most 0.9% of any unimodal distribution lies beyond 7 sds on
 * one side). At 3 and 5, 5 and 3 of 105 A/A pairs at load 16 were confirmed: the pooled spread
 * itself moves with the load (docs/detection.md). */
#define CULPRIT_DETECT_SPREAD_FACTOR 7.0

/** The least spread the limit assumes, whatever the pool says (a limit of x2.44 for one
 * earlier run): a pool of calm minutes says nothing of the next busy ones. Beside two
 * CPU hogs, floors of unchanged code moved +34% while the pool's floors had moved at
 * most 1.4% in the minutes before, and A/A floors moved up to x2.33 in slow phases
 * (docs/detection.md). */
#define CULPRIT_DETECT_SPREAD_MIN 0.09

/** Sets `out` to the default: sd and upper CULPRIT_DETECT_SPREAD_DEFAULT, nothing pooled. */
void culprit_detect_spread_default(culprit_run_spread *out);

/**
 * Estimates the pooled run-to-run spread for `now` (a result of `now_run`): over the
 * clean runs before `now_run` in time on the same machine class, compiler and flags,
 * every test measured for the same metric (not counted by a tool) with at least
 * CULPRIT_DETECT_NOISE_MIN_RUNS runs among its newest `window`: the mean square of
 * successive differences of the logs of its runs' floors, halved, pooled over tests
 * (a past step change moves one difference, not all), with Satterthwaite's degrees
 * of freedom, 2 M^2 / sum(3 m_i - 1) for m_i differences of test i and M their sum;
 * the upper bound from the chi-square distribution at `confidence`. Without such a
 * test, the default (culprit_detect_spread_default()). Negative only on allocation
 * failure or a confidence outside (0, 1) (CULPRIT_EINVALID).
 */
int culprit_detect_run_spread(culprit_run_spread *out, const culprit_history_runs *runs,
                              const culprit_run *now_run, const culprit_test_result *now,
                              size_t window, double confidence);

/**
 * The smallest relative change of the floor (now/base - 1) that confirms a minor
 * regression of a young test against `baseline_runs` earlier runs:
 * exp(CULPRIT_DETECT_SPREAD_FACTOR * max(upper, CULPRIT_DETECT_SPREAD_MIN) *
 * sqrt(1 + 1/baseline_runs)) - 1 (the run
 * now and the baseline's floor each carry a run offset).
 */
double culprit_detect_spread_limit(const culprit_run_spread *spread, size_t baseline_runs);

/**
 * The A/A spread of a counted metric (docs/detection.md, "Deterministic counts"):
 * among the last `window` runs of `now`'s suite.test before `now_run` in time,
 * counted by the same tool (counted_by) on the same machine, compiler and flags,
 * the largest relative difference |a/b - 1| between the medians of two runs at one
 * commit (clean trees): what the count does with the code unchanged. *spread = 0
 * when no commit has two such runs, or `now` was not counted.
 */
int culprit_detect_count_spread(double *spread, const culprit_history_runs *runs,
                                const culprit_run *now_run, const culprit_test_result *now,
                                size_t window);

/**
 * The deterministic rule (docs/detection.md): a relative change of a count beyond
 * `threshold` is a regression (CULPRIT_VERDICT_MINOR), below -threshold an
 * improvement, otherwise unchanged. No interval and no minimum of samples: the
 * count of unchanged code moves by a few instructions in 10^7. Shared by
 * culprit_detect_judge() and the bisection's steps.
 */
culprit_verdict_kind culprit_detect_counted_change(double change, double threshold);

/**
 * The value a counted result stands for: the median count of a repetition (the
 * first repetition may count lazy binding and first touches the others do not),
 * the mean when no median was recorded.
 */
double culprit_detect_counted_value(const culprit_test_result *t);

/**
 * The threshold of the deterministic rule for one test, into `*out`:
 * opts->count_threshold, raised to opts->count_aa_margin x `aa_spread` when the
 * history's A/A spread is wider. opts NULL: the defaults. CULPRIT_EINVALID when
 * opts->version is not CULPRIT_DETECT_OPTIONS_VERSION.
 */
int culprit_detect_count_threshold(double *out, const culprit_detect_options *opts,
                                   double aa_spread);

/**
 * `culprit check --metric NAME`: makes every result of `run` judge its series `metric`
 * instead of the one it was measured for: where the result's metric differs, its
 * summary and judged summary (inside Tukey's severe fences) are recomputed from the
 * series' values at `confidence`, its metric becomes `metric` and counted_by is
 * cleared (the tool counted the other series). A result without that series (or
 * with it absent) gets an empty summary: it is not judged. CULPRIT_EINVALID when a
 * result has the series but its values were not loaded (load the runs with
 * CULPRIT_HISTORY_LOAD_SAMPLES).
 */
int culprit_detect_select_metric(culprit_run *run, const char *metric, double confidence);

/**
 * What a verdict rests on (docs/detection.md, "No alarm without evidence"). A minor
 * regression resting on too little history is unconfirmed; a paired A/B run or a
 * deterministic metric confirms it.
 */
typedef enum {
    CULPRIT_EVIDENCE_HISTORY = 0,   /**< this run's samples against history (the default) */
    CULPRIT_EVIDENCE_UNCONFIRMED,   /**< too little history for the run-to-run noise model */
    CULPRIT_EVIDENCE_PAIRED,        /**< paired A/B runs of baseline and now (check --confirm) */
    CULPRIT_EVIDENCE_DETERMINISTIC, /**< a deterministic count (instructions under Valgrind) */
    CULPRIT_EVIDENCE_POOLED         /**< too little history of its own, but a change far beyond the
                                         machine's pooled run-to-run spread (culprit_run_spread) */
} culprit_evidence;

/** "history", "unconfirmed", "paired", "deterministic", "pooled". */
const char *culprit_detect_evidence_name(culprit_evidence evidence);

/** A paired A/B confirmation of a verdict (check --confirm --build --run). */
typedef struct {
    size_t pairs;                   /**< pairs of runs judged; 0: not confirmed this way */
    double change;                  /**< median relative change of the pairs, now/base - 1 */
    double change_low, change_high; /**< its confidence interval */
    int slower;                     /**< 1 slower, 0 not slower, -1 still unknown */
    int cpu;                /**< judged on the runs' CPU time (a run had preempted samples) */
    size_t preempted;       /**< runs with preempted samples */
    int out_of_time;        /**< the time budget stopped the pairs: the figures so far */
    int below;              /**< stopped early, not slower: the change's one-sided 80% upper bound
                                 (below_high) fell below the threshold */
    double below_high;      /**< that bound when below */
    size_t decide_pairs;    /**< stopped by the time budget, still unknown: the pairs of the
                                 next look that could decide (0 otherwise) */
    double decide_budget_s; /**< about the budget (s) those pairs need at this pace */
} culprit_paired_confirmation;

/** A run a verdict compared with (docs/detection.md, "A traceable baseline"). Owned. */
typedef struct {
    char *commit;    /**< 40 hex digits */
    char *id;        /**< the run id (the history file's name stem) */
    char *machine;   /**< its machine class (culprit_history_run_machine_class()) */
    char *timestamp; /**< ISO 8601 UTC */
    double mean;     /**< the mean the verdict used (inside the severe fences) */
    size_t n;        /**< its samples */
    int dirty;       /**< measured on a dirty tree (only with allow_dirty) */
} culprit_verdict_run;

/** One verdict. Strings are owned; free with culprit_detect_verdict_dispose(). */
typedef struct {
    culprit_verdict_kind kind;
    char *test;               /**< "suite.test" */
    size_t now_n, base_n;     /**< samples judged now and in the (pooled) baseline */
    size_t set_aside;         /**< extreme samples now (beyond Tukey's severe fences) not judged */
    double between_sd;        /**< estimated sd of a run's offset (ns); NAN when not estimated */
    int runs_vary;            /**< undecided because runs differ more than repetitions do:
                                   more runs, not more repetitions, would decide */
    double now_mean;          /**< ns (the metric's unit) */
    double now_low, now_high; /**< confidence interval of the mean now */
    double base_mean;         /**< NAN without a baseline */
    double change;            /**< relative change of the mean, now/base - 1; NAN without */
    double change_low, change_high; /**< its confidence interval */
    double p;                  /**< two-sided p of equal means (Welch); NAN when not compared */
    double q;                  /**< Benjamini-Hochberg adjusted p across the check; NAN */
    double category_high_ns;   /**< the category's upper limit; INFINITY/NAN when none */
    char *category;            /**< the category judged against; NULL when none */
    size_t more_samples;       /**< undecided: about this many more samples per run would decide */
    char *baseline;            /**< the baseline's label (commit); NULL when none */
    char *mismatch;            /**< MIXED: which fingerprint differs and how */
    char *message;             /**< one line for a developer, no statistics needed */
    culprit_evidence evidence; /**< what the verdict rests on */
    culprit_paired_confirmation paired; /**< when evidence is CULPRIT_EVIDENCE_PAIRED */
    int dirty; /**< the run judged was measured on a dirty tree (its message says so) */
    culprit_run_spread spread; /**< a minor or faster verdict of a young test: the spread
                                    that judged it */
    double spread_limit;       /**< ... the change its floor had to pass (faster: to fall
                                    below, 1 / (1 + limit) - 1; NAN: the pooled rule did
                                    not judge) */
    size_t nbase_runs;         /**< the runs compared with (base_runs), newest first */
    culprit_verdict_run *base_runs;
    double floor_change; /**< a minor the pooled rule judged: the relative change of the
                              floor (fastest judged sample) now against the geometric mean
                              of the baseline runs' floors; NAN otherwise */
} culprit_verdict;

/**
 * 1 when the verdict compared the test with a baseline: not when there was none
 * (no-baseline), none comparable (mixed), or the test did not run; a major
 * regression without a baseline rests on its category alone, and is not.
 */
int culprit_detect_verdict_compared(const culprit_verdict *v);

void culprit_detect_verdict_dispose(culprit_verdict *verdict);

/**
 * Judges `now` (a result of `run`, samples loaded) against `base` (NULL: no baseline;
 * samples loaded). Never fails for a test that failed or has too few samples (that is
 * the verdict); negative only on allocation failure or bad options (CULPRIT_EINVALID,
 * opts->version included), and then `out` holds nothing to dispose.
 * The verdict is provisional until culprit_detect_adjust() has seen all the tests
 * judged together. Thread-safe: it writes nothing but `out` (culprit_detect_compare_runs()
 * judges its tests on several threads).
 */
int culprit_detect_judge(culprit_verdict *out, const culprit_run *run,
                         const culprit_test_result *now, const culprit_baseline *base,
                         const culprit_detect_options *opts);

/**
 * Whether `check --confirm --build --run` measures a verdict's test again in pairs:
 * a flagged test (`flagged`: minor, major or a counter detector's flag) or an
 * undecided one; and, while the run-to-run noise model has too few runs (a young
 * history: between_sd NAN), an unchanged or faster one too, which one run per commit
 * vouches for no better than for a slowdown (a +5% commit whose baseline run landed
 * slow is judged faster). Never a deterministic count.
 */
int culprit_detect_wants_pairs(const culprit_verdict *v, int flagged);

/**
 * Applies a paired A/B confirmation to a verdict: its evidence becomes PAIRED with
 * `c`'s figures; a minor regression the pairs say is not slower (c->slower == 0)
 * becomes unchanged (a major stays: it rests on the category); an undecided,
 * unchanged or faster verdict becomes what the pairs decided: minor when slower,
 * else unchanged (faster stays faster only when the pairs' interval is below 0 too);
 * still unknown keeps the kind; the message is written
 * again, saying what the pairs found. `confidence` as the check's.
 */
int culprit_detect_apply_paired(culprit_verdict *v, const culprit_paired_confirmation *c,
                                double confidence);

/**
 * Controls the false discovery rate across the verdicts of one check: p-values are
 * adjusted with Benjamini-Hochberg, and a minor regression or an improvement whose
 * adjusted p exceeds opts->fdr becomes undecided (possibly real, not proven among
 * this many tests). Messages are updated. CULPRIT_EINVALID for bad options (a version
 * other than CULPRIT_DETECT_OPTIONS_VERSION included).
 */
int culprit_detect_adjust(culprit_verdict *verdicts, size_t n, const culprit_detect_options *opts);

/* ---------------------------------------------------- counter detectors --- */

/*
 * Regressions that show in counters before, or instead of, time: the counter-cluster
 * models of Shang et al. 2015 §4 and the association rules over history of Foo et
 * al. 2010 §IV (docs/counters.md). Both read the per-repetition (or per-interval)
 * series every result records: wall_ns, cpu_ns, user_ns, sys_ns, max_rss_kb, minflt,
 * majflt, nvcsw, nivcsw, read_bytes, write_bytes, instructions, cycles.
 */

/** The detectors of `culprit check --detector`; a set is their bitwise or. */
typedef enum {
    CULPRIT_DETECTOR_TIME = 1u,     /**< the category and history verdict above */
    CULPRIT_DETECTOR_CLUSTERS = 2u, /**< counter-cluster models (Shang et al. 2015) */
    CULPRIT_DETECTOR_RULES = 4u     /**< association rules over history (Foo et al. 2010) */
} culprit_detector;

/**
 * Parses a comma-separated list such as "time,clusters,rules" into a set.
 * CULPRIT_EINVALID naming the unknown word (with the known ones) or an empty list.
 */
int culprit_detect_detector_parse(unsigned int *out, const char *list);
/** "time", "clusters", "rules". */
const char *culprit_detect_detector_name(culprit_detector detector);

/**
 * Observations of counters: `ncounters` named columns of `n` values each
 * (values[c][i] is counter c at observation i). Owned; culprit_detect_counter_table_dispose().
 */
typedef struct {
    size_t ncounters;
    size_t n;
    char **names;
    double **values;
} culprit_counter_table;

/**
 * The table of the series of `nresults` results (samples loaded) stacked one after
 * the other: the counters are those present in every result with a value for every
 * observation (an absent or non-finite series is left out). n == 0 when a result has
 * no sample loaded. Returns 0 or CULPRIT_ERROR.
 */
int culprit_detect_counter_table_from_results(culprit_counter_table *out,
                                              const culprit_test_result *const *results,
                                              size_t nresults);
/** Builds a table from borrowed columns (copied). */
int culprit_detect_counter_table_init(culprit_counter_table *out, const char *const *names,
                                      const double *const *values, size_t ncounters, size_t n);
/** Index of counter `name`, or -1. */
int culprit_detect_counter_table_find(const culprit_counter_table *table, const char *name);
void culprit_detect_counter_table_dispose(culprit_counter_table *table);

/* --- counter clusters (Shang et al. 2015 §4) --- */

typedef struct {
    unsigned int version;
    double redundancy_r2;    /**< a counter predicted by the others with R^2 >= this is
                                  redundant (0.9) */
    double threshold;        /**< mean prediction error that is a regression (0.30) */
    size_t min_observations; /**< fewer observations in a version: not judged (10) */
    double aa_margin;        /**< calibrated threshold = margin x the A/A error (2.0) */
    double aa_floor;         /**< ... and never below this (0.10) */
    /* A/A calibration (culprit_detect_clusters_aa_errors()), borrowed; aa_n == 0: none. A
     * cluster's threshold is max(aa_floor, aa_margin x the A/A error of its dependent
     * counter), or `threshold` when that counter has none. */
    size_t aa_n;
    const char *const *aa_counters;
    const double *aa_errors;
} culprit_clusters_options;

#define CULPRIT_CLUSTERS_OPTIONS_VERSION 1
#define CULPRIT_CLUSTERS_OPTIONS_INIT                                                              \
    {                                                                                              \
        CULPRIT_CLUSTERS_OPTIONS_VERSION, 0.9, 0.30, 10, 2.0, 0.10, 0, NULL, NULL                  \
    }

/** One cluster of counters and its model. */
typedef struct {
    size_t ncounters;
    char **counters;  /**< the dependent counter first, then the independent ones */
    double ks_p;      /**< two-sample KS p-value of the dependent counter, old vs new */
    double r2;        /**< R^2 of the model on the old version */
    double error;     /**< mean prediction error on the new version, relative */
    double threshold; /**< the error that flags this cluster (calibrated or the default) */
    int calibrated;   /**< the threshold came from A/A errors of its counters */
    int flagged;      /**< error > threshold */
} culprit_counter_cluster;

typedef struct {
    int judged;          /**< 0: not enough data (the message says why) */
    int flagged;         /**< some cluster is above its threshold */
    double threshold;    /**< the default threshold (clusters may have calibrated ones) */
    int calibrated;      /**< some cluster's threshold came from A/A pairs in history */
    size_t aa_pairs;     /**< A/A pairs the calibration came from */
    size_t n_old, n_new; /**< observations per version */
    size_t nconstant;    /**< counters dropped for zero variance in both versions */
    char **constant;
    size_t nredundant; /**< counters dropped as redundant, in the order dropped */
    char **redundant;
    double *redundant_r2; /**< the R^2 each was dropped with */
    size_t nclusters;     /**< sorted by error, largest first */
    culprit_counter_cluster *clusters;
    char *message; /**< one line for a developer */
} culprit_clusters_verdict;

int culprit_detect_clusters_options_init(culprit_clusters_options *opts, unsigned int version);

/**
 * The counter-cluster detector of Shang et al. 2015 §4 on the counters common to
 * `old` and `now`: (1) drop counters with zero variance in both versions; (2)
 * redundancy analysis: repeatedly drop the counter best predicted by the others
 * (OLS on both versions' observations) while that R^2 >= opts->redundancy_r2;
 * (3) Pearson distances, average-linkage clustering, cut by Calinski-Harabasz;
 * (4) per cluster the dependent counter is the one with the smallest two-sample KS
 * p-value between the versions, modelled by OLS on the others fitted on `old`;
 * (5) its mean prediction error on `now`, sum |y - y_hat| / sum |y| (relative to the
 * observed total), above the cluster's threshold flags it: opts->threshold, or the
 * A/A-calibrated one of its counters (opts->aa_*). Fewer than
 * min_observations in a version, or no counter left: judged = 0. Negative only for
 * allocation failure or bad options. Dispose with culprit_detect_clusters_verdict_dispose().
 */
int culprit_detect_clusters(culprit_clusters_verdict *out, const culprit_counter_table *old,
                            const culprit_counter_table *now, const culprit_clusters_options *opts);
void culprit_detect_clusters_verdict_dispose(culprit_clusters_verdict *verdict);

/**
 * A/A calibration: runs culprit_detect_clusters() on `npairs` A/A pairs (pairs[2i],
 * pairs[2i+1]: two runs of unchanged code) and gives, per counter, the largest
 * prediction error seen for it: its model's error when it was a cluster's dependent
 * counter, else the error of predicting it by its old mean -- what noise alone does
 * to predictions of that counter. *names and *errors (*n entries, malloc'd, names too) are for
 * culprit_clusters_options.aa_*; free with culprit_detect_clusters_aa_dispose(). *n == 0
 * when no pair could be judged. Returns 0 or CULPRIT_ERROR.
 */
int culprit_detect_clusters_aa_errors(char ***names, double **errors, size_t *n,
                                      const culprit_counter_table *const *pairs, size_t npairs,
                                      const culprit_clusters_options *opts);
void culprit_detect_clusters_aa_dispose(char **names, double *errors, size_t n);

/* --- association rules (Foo et al. 2010 §IV) --- */

typedef struct {
    unsigned int version;
    size_t window;         /**< observations per window, summarized by their median (1) */
    double min_support;    /**< of a frequent itemset, over the history's windows (0.2) */
    double min_confidence; /**< of a rule in the history (0.8) */
    double threshold;      /**< confidence change that flags a rule (0.2) */
    size_t max_itemset;    /**< items per frequent itemset, premise + consequent (3) */
    size_t history;        /**< prior passing runs mined: one per commit, newest first (10) */
    size_t min_windows;    /**< fewer windows in the new run, or 2x fewer in history: not
                                judged (5) */
    double min_severity;   /**< the test is flagged when a counter's severity reaches this
                                (0.5); counters below are still listed */
} culprit_rules_options;

#define CULPRIT_RULES_OPTIONS_VERSION 1
#define CULPRIT_RULES_OPTIONS_INIT                                                                 \
    {                                                                                              \
        CULPRIT_RULES_OPTIONS_VERSION, 1, 0.2, 0.8, 0.2, 3, 10, 5, 0.5                             \
    }

int culprit_detect_rules_options_init(culprit_rules_options *opts, unsigned int version);

/** Discretization levels of Foo et al. 2010, Figure 5. */
typedef enum {
    CULPRIT_LEVEL_LOW = 0,    /**< below median - sd */
    CULPRIT_LEVEL_MEDIUM = 1, /**< within median +- sd */
    CULPRIT_LEVEL_HIGH = 2    /**< above median + sd */
} culprit_level;

/** "low", "medium", "high". */
const char *culprit_detect_level_name(culprit_level level);
/** The level of x given the history's median and standard deviation (bounds inclusive). */
culprit_level culprit_detect_rules_level(double x, double median, double sd);

/**
 * Foo et al. 2010 eq. 1: 1 - cos(V_b, V_n) with V = (conf, 1 - conf); 0 when the
 * confidence did not change, 1 when it went from 1 to 0 or from 0 to 1.
 */
double culprit_detect_rules_confidence_change(double conf_base, double conf_new);

/** An item: counter `counter` at `level`. */
typedef struct {
    unsigned short counter;
    unsigned char level;
} culprit_item;

/** An association rule premise => consequent (one item), mined from history. */
typedef struct {
    size_t npremise;
    culprit_item premise[7];
    culprit_item consequent;
    double support;    /**< of premise + consequent in the history */
    double confidence; /**< support(premise + consequent) / support(premise) */
} culprit_rule;

/**
 * Apriori (Agrawal & Srikant 1994) over `ntrans` transactions of `ncounters` levels
 * each (levels[t * ncounters + c]): every itemset of at most max_itemset items with
 * support >= min_support, and from each (of two items or more) the rules with one
 * item as consequent and confidence >= min_confidence. *out (malloc'd, caller
 * frees) holds *nout rules, ordered by itemset then consequent. max_itemset is
 * clamped to 2..8. Returns 0 or CULPRIT_ERROR.
 */
int culprit_detect_rules_mine(culprit_rule **out, size_t *nout, const unsigned char *levels,
                              size_t ntrans, size_t ncounters, double min_support,
                              double min_confidence, size_t max_itemset);

/** One violated rule of a flagged counter. */
typedef struct {
    char *text;       /**< "cpu_ns=medium, wall_ns=medium => write_bytes=medium" */
    double conf_base; /**< confidence in the history */
    double conf_new;  /**< confidence in the new run */
    double change;    /**< culprit_detect_rules_confidence_change() */
} culprit_violated_rule;

/** A counter in the consequent of a rule whose confidence changed too much. */
typedef struct {
    char *counter;
    double severity;  /**< fraction of the new run's windows in which a flagged rule of
                           this counter is violated (premise holds, consequent does not) */
    size_t nviolated; /**< its flagged rules */
    size_t nrules;    /**< the (at most 10) kept here, largest change first */
    culprit_violated_rule *rules;
} culprit_flagged_counter;

typedef struct {
    int judged;             /**< 0: too little history or data (the message says why) */
    int flagged;            /**< some counter's severity reaches opts->min_severity */
    size_t history_runs;    /**< runs mined */
    size_t history_windows; /**< their windows (transactions) */
    size_t new_windows;
    size_t nrules;    /**< rules mined */
    size_t ncounters; /**< flagged counters, by severity, largest first */
    culprit_flagged_counter *counters;
    char *message;
} culprit_rules_verdict;

/**
 * The association-rule detector of Foo et al. 2010 §IV: windows of opts->window
 * observations of every counter common to the history and `now`, represented by
 * their medians; levels from the history's median and sd per counter (Figure 5);
 * rules mined from the history's windows (culprit_detect_rules_mine); for each rule whose
 * premise occurs in the new run, the confidence change (eq. 1) above
 * opts->threshold flags its consequent counter; severity per counter (eq. 3).
 * A rule whose premise never occurs in the new run is not judged (its confidence is
 * undefined). A counter constant within every history run (a level such as
 * max_rss_kb) is left out. Negative only for allocation failure. Dispose with
 * culprit_detect_rules_verdict_dispose().
 */
int culprit_detect_rules(culprit_rules_verdict *out, const culprit_counter_table *history,
                         size_t nhistory, const culprit_counter_table *now,
                         const culprit_rules_options *opts);
void culprit_detect_rules_verdict_dispose(culprit_rules_verdict *verdict);

/* ----------------------------------------------------------------- checks --- */

typedef struct {
    unsigned int version;
    culprit_detect_options detect;
    size_t pool;            /**< baseline: pool the last K commits with data (default 1) */
    const char *test;       /**< only this test: "suite.test" or a bare test name; NULL: all */
    size_t noise_window;    /**< earlier runs that estimate run-to-run noise (10; < 2: none) */
    unsigned int detectors; /**< culprit_detector set (CULPRIT_DETECTOR_TIME) */
    culprit_clusters_options clusters; /**< for CULPRIT_DETECTOR_CLUSTERS */
    culprit_rules_options rules;       /**< for CULPRIT_DETECTOR_RULES */
    const char *metric; /**< the series judged (`check --metric`); NULL: each result's own
                             metric. The runs must have been passed through
                             culprit_detect_select_metric() first */
} culprit_check_options;

#define CULPRIT_CHECK_OPTIONS_VERSION 1
#define CULPRIT_CHECK_OPTIONS_INIT                                                                 \
    {                                                                                              \
        CULPRIT_CHECK_OPTIONS_VERSION, CULPRIT_DETECT_OPTIONS_INIT, 1, NULL, 10,                   \
            CULPRIT_DETECTOR_TIME, CULPRIT_CLUSTERS_OPTIONS_INIT, CULPRIT_RULES_OPTIONS_INIT, NULL \
    }

/** Sets `opts` to the defaults. Returns 0, or CULPRIT_EINVALID for another version. */
int culprit_detect_check_options_init(culprit_check_options *opts, unsigned int version);

/** The verdicts of one check, one per test, sorted by "suite.test". */
typedef struct {
    size_t n;
    culprit_verdict *verdicts;
    const culprit_test_result **now;    /**< the result judged (borrowed from the runs) */
    const culprit_run **now_runs;       /**< the run it came from */
    unsigned int detectors;             /**< the detectors that judged (culprit_detector set) */
    culprit_clusters_verdict *clusters; /**< n entries with CULPRIT_DETECTOR_CLUSTERS, else NULL */
    culprit_rules_verdict *rules;       /**< n entries with CULPRIT_DETECTOR_RULES, else NULL */
} culprit_check_result;

/**
 * Judges every test measured at `commit`: for each "suite.test", the newest run at
 * that commit (runs are one per test binary invocation; ctest makes one per test)
 * against its baseline among `baseline_commits` (newest first; typically the
 * first-parent ancestors of commit, or one named commit), then controls the false
 * discovery rate across them. CULPRIT_ENOTFOUND when no run is at `commit` (or none
 * has opts->test).
 *
 * With CULPRIT_DETECTOR_CLUSTERS in opts->detectors, the counters of each test are
 * judged against the same baseline by culprit_detect_clusters(), its threshold
 * calibrated from A/A pairs (two runs of the test at one commit, same machine) when
 * the history has any; with CULPRIT_DETECTOR_RULES, by culprit_detect_rules()
 * against the newest passing run at each of the last opts->rules.history commits
 * with data. Both need the runs loaded with CULPRIT_HISTORY_LOAD_SAMPLES; without
 * samples they report "not judged". The time verdict is always computed.
 * With opts->metric set, a result at `commit` measured for another metric is
 * CULPRIT_EINVALID (culprit_detect_select_metric() was not applied to the runs).
 * CULPRIT_EINVALID when opts, or one of the options it embeds, has another version
 * than this header's (set them with CULPRIT_CHECK_OPTIONS_INIT or
 * culprit_detect_check_options_init()); opts NULL means the defaults.
 */
int culprit_detect_check(culprit_check_result *out, const culprit_history_runs *runs,
                         const char *commit, const char *const *baseline_commits, size_t nbaseline,
                         const culprit_check_options *opts);

/** Judges every test of run `b` against the same test in run `a` (e.g. two JUnit files).
 *  Options as culprit_detect_check(). The tests are judged on up to
 *  culprit_parallel_threads() threads at once (core.h); the verdicts are the same, in
 *  b's order. `a` is indexed by test name on this thread first, so neither run may be
 *  searched by another thread meanwhile. */
int culprit_detect_compare_runs(culprit_check_result *out, const culprit_run *a,
                                const culprit_run *b, const culprit_check_options *opts);

void culprit_detect_check_result_dispose(culprit_check_result *result);

/**
 * The comparable earlier runs a test needs before reading more history cannot change
 * its verdict: the noise model's window and the pool (noise_window + pool), or the
 * rules' history when the rules run; at least 1. NULL: the defaults (11). What
 * culprit_detect_check_wants_more() looks for, and how many ancestors `culprit check`
 * and `culprit history` read first (docs/cli.md).
 */
size_t culprit_detect_check_history_need(const culprit_check_options *opts);

/**
 * 1 when test i of `result`, a check of `runs` holding the runs of only the newest
 * first-parent commits (the commit judged and its nearest ancestors), may lack
 * history that older commits hold: nothing comparable was found (no baseline, or
 * only mixed ones), or fewer comparable earlier runs than the noise model and the
 * detectors read (noise_window + pool, or rules.history when the rules run). Reading
 * more commits then may change the verdict; otherwise it cannot. What `culprit check`
 * and `culprit history` grow their reading by (docs/cli.md). Options as
 * culprit_detect_check().
 */
int culprit_detect_check_wants_more(const culprit_check_result *result, size_t i,
                                    const culprit_history_runs *runs,
                                    const culprit_check_options *opts);

/** 1 when test i of the check is flagged by a counter detector (clusters or rules). */
int culprit_detect_check_counters_flagged(const culprit_check_result *result, size_t i);

/**
 * 1 when a verdict has the evidence to fail a CI job (docs/detection.md, "No alarm
 * without evidence"): every verdict but a minor one whose evidence is
 * CULPRIT_EVIDENCE_UNCONFIRMED, or PAIRED with the pairs still unable to say
 * (paired.slower != 1), and a faster one whose evidence is UNCONFIRMED (a young
 * history's faster verdict within the pooled spread's mirrored limit).
 */
int culprit_detect_verdict_confirmed(const culprit_verdict *v);

/**
 * What test i of a check counts as for --fail-on: MAJOR, MINOR (a confirmed minor
 * regression, or a counter detector's flag) or UNCHANGED (everything else, an
 * unconfirmed minor included). The time verdicts count only when
 * CULPRIT_DETECTOR_TIME judged (or no detector set is recorded).
 */
culprit_verdict_kind culprit_detect_check_counts_as(const culprit_check_result *result, size_t i);

/**
 * The worst of culprit_detect_check_counts_as() over the check's tests: major > minor >
 * unchanged. What --fail-on compares with.
 */
culprit_verdict_kind culprit_detect_check_worst(const culprit_check_result *result);

/**
 * What fails a check: `culprit check --fail-on`, a test binary's --fail-on and
 * culprit.json's "fail_on" (docs/cli.md), in the order of culprit_detect_fail_on_names().
 */
typedef enum {
    CULPRIT_FAIL_ON_MAJOR = 0, /* a major regression (the default) */
    CULPRIT_FAIL_ON_MINOR,     /* also a minor one that counts (culprit_detect_check_counts_as) */
    CULPRIT_FAIL_ON_NONE,      /* nothing: the check only reports */
    CULPRIT_FAIL_ON_UNCOMPARED /* as minor, and also a check that compared no test */
} culprit_fail_on;

/** "major", "minor", "none", "uncompared" and NULL: culprit_fail_on's names, in its order. */
const char *const *culprit_detect_fail_on_names(void);

/** `*out` for the name `name` (one of culprit_detect_fail_on_names()); -1 for any other. */
int culprit_detect_fail_on_parse(const char *name, culprit_fail_on *out);

/**
 * 1 when test i of a check fails under `fail_on`: it counts as major
 * (culprit_detect_check_counts_as()) and fail_on is not NONE, or it counts as minor and
 * fail_on is MINOR or UNCOMPARED. An unconfirmed minor fails nothing.
 */
int culprit_detect_check_test_fails(const culprit_check_result *result, size_t i,
                                    culprit_fail_on fail_on);

/** How many of the check's tests were compared (culprit_detect_verdict_compared()). */
size_t culprit_detect_check_compared(const culprit_check_result *result);

/**
 * 1 when the check fails under `fail_on` (the tool exits 1): one of its tests fails
 * (culprit_detect_check_test_fails()), or fail_on is UNCOMPARED and the check had tests
 * but compared none of them (culprit_detect_verdict_compared()).
 */
int culprit_detect_check_fails(const culprit_check_result *result, culprit_fail_on fail_on);

/* ------------------------------------------------------- a whole check --- */

/**
 * 1 when test i of a check is flagged, the one meaning of the word: a major or minor
 * time verdict (confirmed or not; only when CULPRIT_DETECTOR_TIME judged or no
 * detector set is recorded) or a counter detector's flag. What a confirmation
 * re-runs; culprit_detect_check_counts_as() says what a flagged test counts as.
 */
int culprit_detect_check_flagged(const culprit_check_result *result, size_t i);

/** The CULPRIT_HISTORY_LOAD_* flags a check with `opts` reads with: the samples when
 * a counter detector or opts->metric needs them, else the summaries without the
 * series (CULPRIT_HISTORY_LOAD_NO_SERIES: the time verdicts read no series). */
unsigned int culprit_detect_check_load_flags(const culprit_check_options *opts);

/**
 * Loads from `src` the runs a check with `opts` judges: those of `commits` (all
 * when `ncommits` is 0) with culprit_detect_check_load_flags(), and with opts->metric each
 * result's summaries selected for that series (culprit_detect_select_metric()).
 * Errors as culprit_history_source_load().
 */
int culprit_detect_check_load(culprit_history_runs *out, const culprit_history_source *src,
                              const culprit_check_options *opts, const char *const *commits,
                              size_t ncommits, culprit_history_warn_fn warn, void *payload);

/** Re-runs test i of `result` once, recording the new run into the history (e.g.
 * culprit_runner_rerun() on a trusted binary): 1 when it re-ran, 0 when it did not
 * (the verdict is kept), or a negative error, which ends the check. */
typedef int (*culprit_check_rerun_fn)(void *payload, const culprit_check_result *result, size_t i);
/** A test flagged before its re-run that is not after it (`now`: its new verdict). */
typedef void (*culprit_check_unconfirmed_fn)(void *payload, const culprit_verdict *now);

#define CULPRIT_CHECK_COMMIT_OPTIONS_VERSION 1

/** What culprit_detect_check_commit() judges and how. Zero it and set `version`. */
typedef struct {
    unsigned int version;
    const culprit_check_options *check; /**< the detectors, --test, --metric, --pool, ... */
    const char *commit;                 /**< the commit judged (40 hex digits) */
    const char *const *bases;           /**< its baseline commits, newest first: the
                                             first-parent ancestors, or one named commit */
    size_t nbases;
    int read_all; /**< read the whole store at once (an explicit baseline, or a shallow
                       clone whose runs beyond the boundary are counted); 0: the commit
                       and its newest culprit_detect_check_history_need() bases, then 8
                       times more while a test may lack history
                       (culprit_detect_check_wants_more()) */
    culprit_check_rerun_fn rerun;             /**< NULL: no confirmation; else each flagged test is
                                                   re-run and the whole store judged again */
    culprit_check_unconfirmed_fn unconfirmed; /**< NULL, or told of each unconfirmed test */
    culprit_history_warn_fn warn;             /**< skipped files (NULL: stderr) */
    void *payload;                            /**< passed to the hooks */
} culprit_check_commit_options;

/**
 * A whole check of `o->commit`, as `culprit check` does it: reads `src`, selects the
 * judged metric, judges every test of the commit against its baseline, and with
 * `o->rerun` confirms the flagged ones. `result` and `runs` (the runs judged, which
 * the result's pointers borrow) are set on success; dispose both either way. With
 * o->check->test, CULPRIT_ENOTFOUND names a test the history lacks, with near
 * matches (culprit_history_require_test()). CULPRIT_EINVALID for options of another
 * version; other errors as culprit_detect_check_load() and culprit_detect_check().
 */
int culprit_detect_check_commit(culprit_check_result *result, culprit_history_runs *runs,
                                const culprit_history_source *src,
                                const culprit_check_commit_options *o);

#ifdef __cplusplus
}
#endif

#endif
