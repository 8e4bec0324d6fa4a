/*
 * culprit detect: speed categories (the paper's baseline for major regressions)
 * and, in later issues, the verdicts. A category is a named range of response
 * time; the set is ordered from fastest to slowest, each category ending where
 * the next begins (fast < 1 ms <= medium < 100 ms <= slow by default).
 */
#ifndef CULPRIT_DETECT_H
#define CULPRIT_DETECT_H

#include <stddef.h>

#include "culprit/history.h"

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
int culprit_categories_default(culprit_categories **out);
void culprit_categories_free(culprit_categories *categories);
/** The category called `name`, or NULL. Borrowed. */
const culprit_category *culprit_categories_find(const culprit_categories *categories,
                                                const char *name);
/** The category whose range holds `ns`. Never NULL for ns >= 0 (the set is contiguous). */
const culprit_category *culprit_categories_classify(const culprit_categories *categories,
                                                    double ns);
/** 1 when `c` is the fastest category of the set. */
int culprit_categories_is_fastest(const culprit_categories *categories, const culprit_category *c);

/**
 * Parses a duration such as "250us", "1ms", "1.5 s", "100000ns" or a bare number of
 * nanoseconds into ns. CULPRIT_EINVALID for anything else.
 */
int culprit_parse_duration_ns(double *out, const char *text);

/**
 * The project file (culprit.json, checked into the user's repository; see
 * docs/categories.md): categories, per-test category choices, the history directory.
 */
typedef struct culprit_project culprit_project;

/**
 * Loads a project file. CULPRIT_ENOTFOUND when it does not exist; CULPRIT_EINVALID
 * with a message naming the file, the key and what is wrong.
 */
int culprit_project_load(culprit_project **out, const char *path);
/** A project with the default categories and nothing else. */
int culprit_project_default(culprit_project **out);
void culprit_project_free(culprit_project *project);
/** The categories (borrowed). */
const culprit_categories *culprit_project_categories(const culprit_project *project);
/** The category the project file names for test key "suite.test", or NULL. */
const char *culprit_project_test_category(const culprit_project *project, const char *key);
/** The history directory the project file names (relative to the file), or NULL. */
const char *culprit_project_history_dir(const culprit_project *project);

/**
 * Persisted automatic assignments: "suite.test" -> category, kept in
 * <history dir>/categories.json so later runs are judged against the first one.
 */
typedef struct culprit_assignments culprit_assignments;

/** Loads assignments; a missing file gives an empty set. CULPRIT_EINVALID if corrupt. */
int culprit_assignments_load(culprit_assignments **out, const char *path);
void culprit_assignments_free(culprit_assignments *assignments);
/** The category assigned to `key`, or NULL. Borrowed. */
const char *culprit_assignments_get(const culprit_assignments *assignments, const char *key);
/** Assigns (or re-assigns) `key`. */
int culprit_assignments_set(culprit_assignments *assignments, const char *key,
                            const char *category);
/** Removes the assignment of `key`; 0 also when there was none. */
int culprit_assignments_unset(culprit_assignments *assignments, const char *key);
/** Number of assignments, and the i-th key/category (borrowed), for listing. */
size_t culprit_assignments_count(const culprit_assignments *assignments);
int culprit_assignments_entry(const culprit_assignments *assignments, size_t i, const char **key,
                              const char **category);
/**
 * Saves atomically (temporary file and rename). Entries written by another process
 * since the load are kept: the file is re-read and merged just before writing.
 */
int culprit_assignments_save(culprit_assignments *assignments, const char *path);

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
    CULPRIT_VERDICT_MIXED,         /**< the baseline ran on another machine or build: not
                                        compared (see mismatch; allow_mixed overrides) */
    CULPRIT_VERDICT_NOT_RUN        /**< the test failed or errored: no timing to judge */
} culprit_verdict_kind;

/** "unchanged", "minor", "major", "improvement", "undecided", "no-baseline", "mixed",
 * "not-run". */
const char *culprit_verdict_name(culprit_verdict_kind kind);

typedef struct {
    unsigned int version;
    double confidence;        /**< of every interval and test (0.99, as the paper) */
    double threshold;         /**< practical threshold: relative change that matters (0.02) */
    double fdr;               /**< Benjamini-Hochberg level across the tests of a check (0.05) */
    unsigned int min_samples; /**< fewer samples on a side: undecided (5) */
    int allow_mixed;          /**< compare across machine / compiler / flags fingerprints */
} culprit_detect_options;

#define CULPRIT_DETECT_OPTIONS_VERSION 1
#define CULPRIT_DETECT_OPTIONS_INIT                                                                \
    {                                                                                              \
        CULPRIT_DETECT_OPTIONS_VERSION, 0.99, 0.02, 0.05, 5, 0                                     \
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
    const char *label;  /**< what to call it in messages: a commit sha, or "3 commits" */
    double between_var; /**< variance of one run's mean offset (Kalibera & Jones 2013), from
                             culprit_detect_run_noise(); 0: unknown or none */
    double between_df;  /**< its degrees of freedom */
} culprit_baseline;

/**
 * Chooses the baseline of test `suite`.`test` from loaded `runs`: walking `commits`
 * (newest first: the first-parent history the caller got from vcs), the newest
 * passing run of the test at each commit, until `pool` commits with data were found
 * (pool <= 1: the newest one only; K: the pooled runs of the last K commits with
 * data). `out` borrows from `runs`; dispose with culprit_baseline_dispose(). A test
 * with no earlier data gives n == 0 (not an error).
 */
int culprit_detect_baseline(culprit_baseline *out, const culprit_history_runs *runs,
                            const char *suite, const char *test, const char *const *commits,
                            size_t ncommits, size_t pool);
void culprit_baseline_dispose(culprit_baseline *baseline);

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

/** One verdict. Strings are owned; free with culprit_verdict_dispose(). */
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
    double p;                /**< two-sided p of equal means (Welch); NAN when not compared */
    double q;                /**< Benjamini-Hochberg adjusted p across the check; NAN */
    double category_high_ns; /**< the category's upper limit; INFINITY/NAN when none */
    char *category;          /**< the category judged against; NULL when none */
    size_t more_samples;     /**< undecided: about this many more samples per run would decide */
    char *baseline;          /**< the baseline's label (commit); NULL when none */
    char *mismatch;          /**< MIXED: which fingerprint differs and how */
    char *message;           /**< one line for a developer, no statistics needed */
} culprit_verdict;

void culprit_verdict_dispose(culprit_verdict *verdict);

/**
 * Judges `now` (a result of `run`, samples loaded) against `base` (NULL: no baseline;
 * samples loaded). Never fails for a test that failed or has too few samples (that is
 * the verdict); negative only on allocation failure or bad options.
 * The verdict is provisional until culprit_detect_adjust() has seen all the tests
 * judged together.
 */
int culprit_detect_judge(culprit_verdict *out, const culprit_run *run,
                         const culprit_test_result *now, const culprit_baseline *base,
                         const culprit_detect_options *opts);

/**
 * Controls the false discovery rate across the verdicts of one check: p-values are
 * adjusted with Benjamini-Hochberg, and a minor regression or an improvement whose
 * adjusted p exceeds opts->fdr becomes undecided (possibly real, not proven among
 * this many tests). Messages are updated.
 */
int culprit_detect_adjust(culprit_verdict *verdicts, size_t n, const culprit_detect_options *opts);

/* ----------------------------------------------------------------- checks --- */

typedef struct {
    unsigned int version;
    culprit_detect_options detect;
    size_t pool;         /**< baseline: pool the last K commits with data (default 1) */
    const char *test;    /**< only this test: "suite.test" or a bare test name; NULL: all */
    size_t noise_window; /**< earlier runs that estimate run-to-run noise (10; < 2: none) */
} culprit_check_options;

#define CULPRIT_CHECK_OPTIONS_VERSION 1
#define CULPRIT_CHECK_OPTIONS_INIT                                                                 \
    {                                                                                              \
        CULPRIT_CHECK_OPTIONS_VERSION, CULPRIT_DETECT_OPTIONS_INIT, 1, NULL, 10                    \
    }

/** The verdicts of one check, one per test, sorted by "suite.test". */
typedef struct {
    size_t n;
    culprit_verdict *verdicts;
    const culprit_test_result **now; /**< the result judged (borrowed from the runs) */
    const culprit_run **now_runs;    /**< the run it came from */
} culprit_check_result;

/**
 * Judges every test measured at `commit`: for each "suite.test", the newest run at
 * that commit (runs are one per test binary invocation; ctest makes one per test)
 * against its baseline among `baseline_commits` (newest first; typically the
 * first-parent ancestors of commit, or one named commit), then controls the false
 * discovery rate across them. CULPRIT_ENOTFOUND when no run is at `commit` (or none
 * has opts->test).
 */
int culprit_detect_check(culprit_check_result *out, const culprit_history_runs *runs,
                         const char *commit, const char *const *baseline_commits, size_t nbaseline,
                         const culprit_check_options *opts);

/** Judges every test of run `b` against the same test in run `a` (e.g. two JUnit files). */
int culprit_detect_compare_runs(culprit_check_result *out, const culprit_run *a,
                                const culprit_run *b, const culprit_check_options *opts);

void culprit_check_result_dispose(culprit_check_result *result);

/** The worst verdict of a check by severity: major > minor > everything else. */
culprit_verdict_kind culprit_check_worst(const culprit_check_result *result);

#ifdef __cplusplus
}
#endif

#endif
