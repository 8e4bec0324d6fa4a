/*
 * culprit history: the result model of one run, its JUnit XML form (valid against
 * the strict Jenkins junit-10.xsd) and the history store on disk, one file per run.
 *
 * File format (docs/history-format.md has the whole description):
 *   <testsuites> / <testsuite name=SUITE ...> with <properties> carrying the run's
 *   metadata (culprit.commit, culprit.dirty, culprit.branch, ...), then one
 *   <testcase name=TEST classname=SUITE time=...> per perf test, whose
 *   <system-out> holds a line-oriented culprit block with the summary, the
 *   category, the verdict and every raw sample and counter.
 */
#ifndef CULPRIT_HISTORY_H
#define CULPRIT_HISTORY_H

#include "culprit/core.h"
#include "culprit/stats.h"
#include "culprit/vcs.h"
#include "culprit/deprecated.h" /* the old names, until 0.2 */

#ifdef __cplusplus
extern "C" {
#endif

/** Format version written into every file as the property culprit.format. */
#define CULPRIT_HISTORY_FORMAT 1

typedef enum {
    CULPRIT_STATUS_PASS = 0, /**< ran to the end */
    CULPRIT_STATUS_FAILURE,  /**< an assertion failed (JUnit <failure>) */
    CULPRIT_STATUS_ERROR,    /**< crashed, timed out, or could not run (JUnit <error>) */
    CULPRIT_STATUS_SKIPPED   /**< not run (JUnit <skipped>) */
} culprit_status;

/** "pass", "failure", "error", "skipped". */
const char *culprit_history_status_name(culprit_status status);

/** One named series of per-iteration values: "wall_ns", "cpu_ns", "minflt", ... */
typedef struct {
    char *name;
    size_t n;
    double *values; /**< NULL when absent or when samples were not loaded */
    int absent;     /**< 1: the counter could not be read on that machine */
} culprit_series;

/** The result of one perf test in one run. All strings are owned (malloc'd). */
typedef struct {
    char *name;      /**< test name, e.g. "fib_30" */
    char *classname; /**< the suite (test binary) it belongs to */
    culprit_status status;
    char *message; /**< failure or error message; NULL when passed */
    char *output;  /**< captured output of a failed test; NULL when none */

    char *category;          /**< category name; NULL when none */
    char *category_source;   /**< "explicit" (in the test), "project" (culprit.json), "assigned"
                                  (persisted automatic), "auto" (assigned by this run) */
    double category_low_ns;  /**< the category's range: low <= mean < high */
    double category_high_ns; /**< INFINITY for the slowest category */
    char *verdict;           /**< e.g. "pass", "failure", "error", "major", "minor", ... */
    char *verdict_message;   /**< one line explaining the verdict; NULL when none */

    char *metric;       /**< the judged series, "wall_ns" by default */
    char *counted_by;   /**< the tool that counted the metric series deterministically (e.g.
                             "valgrind-3.19.0"; the metric is then "instructions"); NULL:
                             measured natively (clocks, kernel counters) */
    unsigned int batch; /**< iterations per sample */
    unsigned int warmup;
    char *stop; /**< why sampling stopped: "fixed", "precision", "budget", "max", "failed",
                   "duration" (a load test) */
    double timer_overhead_ns;
    double elapsed_s; /**< wall time the test took, warm-up included (JUnit time) */
    size_t preempted; /**< samples during which the process was preempted (docs/measure.md) */
    unsigned int preempted_kept; /**< 1: they are in the series; 0: left out */
    unsigned int region;         /**< 1: the wall series timed the body's CULPRIT_REGIONs only (CPU
                                      time and counters still cover the whole body) */

    culprit_summary summary; /**< of the metric series */
    culprit_summary judged;  /**< of the metric series inside Tukey's severe fences: what
                                  verdicts judge (n == 0 when not recorded) */
    culprit_outliers outliers;

    /* Load tests only (a duration-based test, docs/measure.md; load_calls == 0
     * otherwise): the series are per-interval means, and these are the exact
     * statistics of every steady-state call, warm-up intervals excluded. */
    size_t load_calls;
    double load_call_mean, load_call_sd, load_call_min, load_call_max; /**< ns */
    size_t load_warmup_intervals; /**< leading intervals discarded as warm-up (MSER) */
    double load_interval_s;       /**< the interval of one sample */

    size_t nseries;
    culprit_series *series;
} culprit_test_result;

/** One run of one test binary: what a history file holds. */
typedef struct {
    char *id;        /**< unique run id (also the file name stem) */
    char *suite;     /**< the test binary / group name */
    char *commit;    /**< 40-hex sha, or "unknown" */
    int dirty;       /**< 1 when the working tree had uncommitted changes */
    char *branch;    /**< branch name, or NULL (detached, unknown) */
    char *timestamp; /**< ISO 8601 UTC, e.g. "2026-11-22T13:05:00Z" */
    char *host;      /**< host name */
    char *machine;   /**< machine fingerprint: CPU model, cores, kernel, architecture */
    char *compiler;  /**< compiler of the test binary */
    char *flags;     /**< its build flags */
    char *binary;    /**< path of the test binary that ran (to re-run a test); NULL: unknown */
    char *path;      /**< the file it was read from; NULL for a run built in memory */

    size_t ntests;
    culprit_test_result *tests;
    size_t atests; /**< allocated entries of tests */

    char *machine_class; /**< the class of identical machines the run counts for: the name
                              given with the runner's --machine / $CULPRIT_MACHINE, else the
                              fingerprint without the kernel release (docs/detection.md);
                              NULL: derived from `machine` (culprit_history_run_machine_class) */
    void *test_index;    /**< private: culprit_history_run_find_test()'s index of the tests by name,
                              built on the first search, freed by culprit_history_run_free() */
} culprit_run;

/**
 * The machine class of `run` into `buf` (NUL-terminated, cut to `size`): its
 * machine_class when set, else its machine fingerprint with the kernel release left
 * out ("CPU; N cpus; Linux 6.1.0-25-amd64 x86_64" is class "CPU; N cpus; Linux
 * x86_64"), so that files written before classes existed, and runs before and after a
 * kernel update, count for one machine. "" when the run records neither. Returns buf.
 */
const char *culprit_history_run_machine_class(char *buf, size_t size, const culprit_run *run);

/** Creates an empty run. Caller frees with culprit_history_run_free(). */
int culprit_history_run_new(culprit_run **out);
void culprit_history_run_free(culprit_run *run);

/** Appends a zeroed test result and returns it (borrowed from the run). */
int culprit_history_run_add_test(culprit_test_result **out, culprit_run *run);

/** Appends a copy of a series. values may be NULL with absent = 1. */
int culprit_history_test_result_add_series(culprit_test_result *test, const char *name,
                                           const double *values, size_t n, int absent);

/**
 * Copies `src` into the zeroed `dst` without its series: every summary, verdict and
 * string (deep copies, owned by dst). For documents that carry verdicts, not samples.
 */
int culprit_history_test_result_copy_summary(culprit_test_result *dst,
                                             const culprit_test_result *src);

/** The series called `name`, or NULL. Borrowed. */
const culprit_series *culprit_history_test_result_series(const culprit_test_result *test,
                                                         const char *name);

/**
 * 1 when the result has timings to judge: it passed, or it failed only because its
 * verdict is a major regression (the test itself ran to the end).
 */
int culprit_history_test_result_measured(const culprit_test_result *test);

/**
 * Finds a test by name in a run (the first of that name), or NULL. Borrowed. In
 * constant time: a run of many tests is indexed by name on its first search (again
 * when tests were added since), so the run must not be searched from two threads at
 * once unless culprit_history_runs_index() indexed it first, and a test's name must
 * not change in place once the run has been searched.
 */
const culprit_test_result *culprit_history_run_find_test(const culprit_run *run, const char *name);

/** Serializes a run as a JUnit XML document (libxml2's writer) into `out`. */
int culprit_history_format(culprit_buf *out, const culprit_run *run);

/**
 * Flag of culprit_history_format_runs(): the JUnit report for dashboards rather than
 * the history file. A <testcase>'s time is the mean of one repetition (not how long
 * sampling ran), its <system-out> opens with the line the terminal showed, and a
 * <failure> or <error> has a body with the figures (docs/history-format.md). Still
 * valid against junit-10.xsd, and readable as a history document.
 */
#define CULPRIT_HISTORY_REPORT 0x1u

/**
 * Serializes several runs as one JUnit document: one <testsuites> holding a
 * <testsuite> per run, in the order given. flags: 0 or CULPRIT_HISTORY_REPORT.
 */
int culprit_history_format_runs(culprit_buf *out, const culprit_run *const *runs, size_t nruns,
                                unsigned int flags);

/** Writes the report form of `runs` to `path` atomically (see write_file). */
int culprit_history_write_report(const culprit_run *const *runs, size_t nruns, const char *path,
                                 int no_replace);

/**
 * Appends the one line the runner prints for a test ("[  PERF  ] name  fast  21.3 us
 * +-0.35%  (n=30, batch 1, fixed)", or "[ FAILED ] name message"), no newline.
 */
int culprit_history_test_result_line(culprit_buf *out, const culprit_test_result *test);

/**
 * Writes the run to `path` atomically (temporary file and rename). `flags` as
 * culprit_fs_write_atomic's (core.h): with CULPRIT_FS_NO_REPLACE (1) an existing
 * file is never replaced (CULPRIT_EEXISTS); CULPRIT_FS_NO_SYNC, no fsync (a scratch
 * file read at once).
 */
int culprit_history_write_file(const culprit_run *run, const char *path, int flags);

/** Flags for the readers. */
#define CULPRIT_HISTORY_LOAD_SAMPLES 0x1u /**< also load the raw series (not only summaries) */
/**
 * Summaries only, without even the list of series (each test's nseries is 0): what
 * the time verdicts read (culprit_detect_check_load_flags()). The series lines are
 * still checked. Ignored with CULPRIT_HISTORY_LOAD_SAMPLES.
 */
#define CULPRIT_HISTORY_LOAD_NO_SERIES 0x2u

/**
 * Parses a history (JUnit XML) document with safe options: no network, no entity
 * substitution, no DTD loading. CULPRIT_EINVALID for a malformed or foreign file,
 * with a message naming `name` and what is wrong.
 */
int culprit_history_read_memory(culprit_run **out, const char *data, size_t len, const char *name,
                                unsigned int flags);
int culprit_history_read_file(culprit_run **out, const char *path, unsigned int flags);

/** The history store: a directory of run files. */
typedef struct culprit_history culprit_history;

/** Opens (and with `create`, creates) the history directory `dir`. */
int culprit_history_open(culprit_history **out, const char *dir, int create);
void culprit_history_free(culprit_history *history);
/** The directory (borrowed). */
const char *culprit_history_dir(const culprit_history *history);

/**
 * Stores a run as a new file, never colliding with a file written by another run
 * on this or another machine: "<timestamp>_<commit12>_<host>_<pid>_<random>.xml".
 * The run's id is used as the stem when set. `path_out` (optional) receives the
 * malloc'd path of the file written.
 */
int culprit_history_store(culprit_history *history, const culprit_run *run, char **path_out);

/**
 * Makes a fresh run id, the stem culprit_history_store() gives a run without one:
 * "<timestamp as 20261122T130500Z>_<commit12 or unknown>_<host>_<pid>_<16 random hex>",
 * with the run's timestamp, commit and host (now, and this host, when NULL), each
 * kept to [A-Za-z0-9.-]. The caller frees *out. Thread-safe.
 */
int culprit_history_run_id(char **out, const culprit_run *run);

/** Called for each history file that is skipped (corrupt or foreign); never deleted. */
typedef void (*culprit_history_warn_fn)(const char *path, const char *message, void *payload);

/** What to load from the store. Zero-initialize: everything, summaries only. */
typedef struct {
    const char *commit;         /**< only runs whose commit starts with this; NULL: all */
    const char *test;           /**< only this test's results (other tests dropped); NULL: all */
    const char *suite;          /**< only runs of this suite; NULL: all */
    unsigned int flags;         /**< CULPRIT_HISTORY_LOAD_* */
    const char *const *commits; /**< only runs at one of these commits (full shas), when
                                     ncommits > 0: a file whose generated name carries
                                     another commit is not even opened */
    size_t ncommits;
} culprit_history_query;

/** A loaded set of runs, sorted by timestamp then id. */
typedef struct {
    size_t nruns;
    culprit_run **runs;
    size_t nskipped; /**< files skipped with a warning */
} culprit_history_runs;

/**
 * Loads every run matching `query` (NULL: all) from the store. Unreadable or foreign
 * files are reported through `warn` (NULL: to stderr) and skipped. The files are read
 * on up to culprit_parallel_threads() threads at once (core.h; CULPRIT_THREADS=1: one
 * by one); `warn` is called on the calling thread only, in the files' name order, and
 * the runs, warnings and errors are those of a read one by one. CULPRIT_EINVALID for a
 * bad CULPRIT_THREADS.
 */
int culprit_history_load(culprit_history_runs *out, culprit_history *history,
                         const culprit_history_query *query, culprit_history_warn_fn warn,
                         void *payload);
void culprit_history_runs_dispose(culprit_history_runs *runs);

/**
 * Reads every run of a JUnit file written by culprit into `out` (emptied first;
 * dispose it): the one run of a history file or of a runner's --junit report, or
 * each <testsuite> of a report merged by `culprit junit` (one per run), in document
 * order. Errors as culprit_history_read_file(); nothing is kept on an error.
 */
int culprit_history_read_report(culprit_history_runs *out, const char *path, unsigned int flags);

/**
 * Reads the `n` files `paths` into out[0] .. out[n - 1] as culprit_history_read_report()
 * reads each (every one emptied first; dispose each), several at once on up to
 * culprit_parallel_threads() threads (core.h): the two sides of `culprit compare`.
 * On an error, the error of the first file in `paths` order that failed (its message
 * on the calling thread, as if they had been read one by one), and nothing is kept in
 * any of them.
 */
int culprit_history_read_reports(culprit_history_runs *out, const char *const *paths, size_t n,
                                 unsigned int flags);

/**
 * 0 when the run file named `name` (its base name) is of a commit `query` does not
 * want, judged from the name alone ("<stamp>_<commit12>_<host>_...", as generated
 * names are): such a file need not be read. 1 otherwise, also for names of another
 * shape. `query->commits` sorted in strcmp order.
 */
int culprit_history_query_wants_name(const culprit_history_query *query, const char *name);

/**
 * Builds now, for every run of `runs`, the index of its tests by name that
 * culprit_history_run_find_test() would build on its first search: afterwards the runs
 * may be searched from several threads at once, as long as none of them changes (a
 * test added, a name changed). CULPRIT_ERROR when out of memory.
 */
int culprit_history_runs_index(const culprit_history_runs *runs);

/** Sorts `runs` as culprit_history_load() does: by timestamp, then id. */
void culprit_history_runs_sort(culprit_history_runs *runs);

/**
 * Moves the runs of `more` into `runs` (a later read of other commits), kept in
 * culprit_history_runs_sort()'s order; `more` is left empty. Out of memory
 * (CULPRIT_ERROR): `more` is disposed of and `runs` is unchanged.
 */
int culprit_history_runs_take(culprit_history_runs *runs, culprit_history_runs *more);

/* ------------------------------------------------------- the history source --- */

/** Where a history source reads runs from (culprit_history_source_open()). */
enum {
    CULPRIT_HISTORY_FROM_DIR = 1,    /**< the store directory */
    CULPRIT_HISTORY_FROM_SHARED = 2, /**< the shared history, the ref refs/culprit/history */
    CULPRIT_HISTORY_FROM_BOTH = 3    /**< both: the directory first, then the ref's runs the
                                          directory does not hold (by file name and run id) */
};

/**
 * "The history" every reader of past runs loads: check, history, report, compare,
 * the bisection's probe and --investigate see the same runs through one source.
 * Reading the ref, a file that is not named as a run (culprit_history_shared_run_name())
 * is ignored and one above culprit_history_shared_file_max() is skipped with a warning
 * naming it and counted in nskipped, unread.
 */
typedef struct culprit_history_source culprit_history_source;

/**
 * A source over the directory `dir` (copied) and the ref of `repo` (borrowed: it
 * must outlive the source; NULL: the directory alone), reading what `from`
 * (CULPRIT_HISTORY_FROM_*) names. Neither needs to exist yet: each load looks.
 * CULPRIT_EINVALID without a directory or with another `from`.
 */
int culprit_history_source_open(culprit_history_source **out, const char *dir, culprit_vcs *repo,
                                unsigned int from);
void culprit_history_source_free(culprit_history_source *src);
/** The store directory (borrowed): where runs are written and named in messages. */
const char *culprit_history_source_dir(const culprit_history_source *src);

/**
 * Loads the runs matching `query` (NULL: all) into `out` (emptied first; dispose
 * it): the directory's, then the ref's it lacks, de-duplicated and sorted as
 * culprit_history_load(). Unreadable, foreign or oversized files go through `warn`
 * (NULL: stderr) and are skipped. CULPRIT_ENOTFOUND when neither the directory nor
 * the ref exists (the message says how to get one); CULPRIT_EINVALID for a bad
 * CULPRIT_SHARED_FILE_MAX.
 */
int culprit_history_source_load(culprit_history_runs *out, const culprit_history_source *src,
                                const culprit_history_query *query, culprit_history_warn_fn warn,
                                void *payload);

/**
 * The largest file read from the shared history or pushed into it: the environment
 * variable CULPRIT_SHARED_FILE_MAX (bytes, or with a K, M or G suffix; 0: no
 * limit), else 100 MiB. CULPRIT_EINVALID naming the variable when it is not a size.
 */
int culprit_history_shared_file_max(size_t *out);
/** The file name of a run at `path` of the shared history ("runs/<2 chars>/<name>.xml",
 * the name neither hidden nor nested): a pointer into `path`, or NULL when `path`
 * is not the path of a run file. */
const char *culprit_history_shared_run_name(const char *path);

/**
 * 0 when test `name` ("suite.test" or a bare test name) appears in `runs`;
 * CULPRIT_ENOTFOUND "no test 'NAME' in WHERE" with the near names ("did you mean")
 * otherwise.
 */
int culprit_history_require_test(const culprit_history_runs *runs, const char *name,
                                 const char *where);
/* ------------------------------------------------------------ compaction --- */

/** What culprit_history_compact() does. */
typedef struct {
    unsigned int version;
    size_t keep_samples; /**< per test, the raw samples of its newest this many runs are
                              kept and older runs keep their summaries only (prune);
                              0: every sample kept (compact losslessly) */
    int dry_run;         /**< count what would change, write nothing */
} culprit_history_compact_options;

#define CULPRIT_HISTORY_COMPACT_OPTIONS_VERSION 1
#define CULPRIT_HISTORY_COMPACT_OPTIONS_INIT                                                       \
    {                                                                                              \
        CULPRIT_HISTORY_COMPACT_OPTIONS_VERSION, 0, 0                                              \
    }

int culprit_history_compact_options_init(culprit_history_compact_options *opts,
                                         unsigned int version);

/** What a compaction found and did. */
typedef struct {
    size_t files;          /**< run files read */
    size_t rewritten;      /**< of them written anew, smaller (or that would be: dry_run) */
    size_t skipped;        /**< unreadable or foreign files, reported and left as they are */
    size_t test_runs;      /**< test results in the files read */
    size_t pruned;         /**< test results whose raw samples were dropped */
    uint64_t bytes_before; /**< the run files read, before */
    uint64_t bytes_after;  /**< and after */
} culprit_history_compact_stats;

/**
 * Makes the store small (docs/history-format.md, "Compaction"): every run file is
 * written again with its samples packed, and with opts->keep_samples K the samples
 * of every test result older than the newest K of its test are dropped (summaries,
 * categories and verdicts stay). A file is replaced only when the result is
 * smaller, atomically (temporary file, rename), so readers never see a partial
 * file; one that cannot be read is reported through `warn` (NULL: stderr), counted
 * in `skipped` and left. Verdicts of culprit check are the same before and after
 * (they judge summaries). Not safe against another compaction of the same store
 * at the same time (the second one just finds less to do); runs stored meanwhile
 * are not touched. opts NULL: lossless compaction.
 */
int culprit_history_compact(culprit_history_compact_stats *out, culprit_history *history,
                            const culprit_history_compact_options *opts,
                            culprit_history_warn_fn warn, void *payload);

#ifdef __cplusplus
}
#endif

#endif
