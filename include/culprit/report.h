/*
 * culprit report: the feedback a developer reads in a minute (Heger et al. 2013,
 * section 4.4, Fig. 3 and Fig. 7). A report gathers what the other modules decided
 * (each test's measurements and verdicts along first-parent history, the bisection's
 * culprit, the call-tree analysis of the culprit, the overweight table) into one
 * model, and renders it as a self-contained HTML page with inline SVG plots, as a
 * short Markdown summary for CI steps and pull requests, or as one JSON document.
 *
 * The model is built in two ways that can be mixed: from the history store
 * (culprit_report_add_history(), which judges every commit exactly as `culprit
 * check` does) and from the JSON documents the commands print with --json
 * (`culprit bisect`, `culprit calltree diff`, `culprit overweight`). See
 * docs/report.md for the page, the document shapes read, and the choices made.
 *
 * Thread-safety: a report is not shared between threads while it is built;
 * rendering only reads it.
 */
#ifndef CULPRIT_REPORT_H
#define CULPRIT_REPORT_H

#include "culprit/bisect.h"
#include "culprit/core.h"
#include "culprit/detect.h"
#include "culprit/history.h"
#include "culprit/vcs.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ model --- */

/** One commit of the first-parent window the report covers. Strings owned. */
typedef struct {
    char sha[41];
    char *subject; /**< first line of its message; NULL unknown */
    char *date;    /**< author date, ISO 8601; NULL unknown */
} culprit_report_commit;

/** One measurement of a test at a commit, with its verdict against the commit before. */
typedef struct {
    size_t commit;                   /**< index into the report's commits (oldest first) */
    culprit_verdict_kind verdict;    /**< what `culprit check --commit` says at that commit */
    double mean_ns, low_ns, high_ns; /**< the mean and its confidence interval */
    size_t n;                        /**< samples judged */
    double change;                   /**< relative change against its baseline; NAN when none */
    double change_low, change_high;  /**< its confidence interval */
    double category_high_ns;         /**< the upper limit of its category; NAN/INFINITY none */
    char *category;                  /**< the category judged against; NULL none */
    char *message;                   /**< the verdict's one line */
    char *clusters;       /**< the counter-cluster detector's line (`culprit check --detector`);
                               NULL when it did not run */
    char *rules;          /**< the association-rule detector's line; NULL when it did not run */
    int counters_flagged; /**< a counter detector flagged this measurement */
    culprit_evidence evidence; /**< what the verdict rests on (unconfirmed, paired, ...) */
    int dirty;                 /**< measured on a dirty tree (uncommitted changes) */
    int unconfirmed;     /**< a minor regression that fails no `--fail-on` (too little history,
                              or paired runs that could not tell: culprit_detect_verdict_confirmed()) */
    char *run_id;        /**< the run judged at this commit (what a later verdict names as
                              its baseline run); NULL unknown */
    double base_mean_ns; /**< the mean of the baseline it was compared with; NAN none */
    char *base_run_id;   /**< the newest run of that baseline; NULL none */
} culprit_report_point;

/** One test's series, oldest point first. */
typedef struct {
    char *test; /**< "suite.test" */
    size_t npoints;
    culprit_report_point *points;
    size_t apoints;
} culprit_report_series;

/*
 * The bisection, the call-tree analysis and the overweight table are held as the
 * modules that made them type them (culprit_bisect_result, culprit_calltree_view,
 * culprit_calltree_overweight_table), with enums for verdicts, outcomes and
 * statuses: the readers of the commands' documents (culprit_bisect_result_from_json()
 * and the call-tree ones) fill the same types, so no second copy of a result
 * exists to drift from the first.
 */

/** The call-tree analysis as the report holds it (the name the report used first). */
typedef culprit_calltree_view culprit_report_calltree;
/** One node of it: a function of the culprit's call tree, compared with its parent's. */
typedef culprit_calltree_view_node culprit_report_node;
/** One row of the overweight table. */
typedef culprit_calltree_overweight_entry culprit_report_overweight_row;

/** A category limit drawn as a dashed line (Fig. 3). */
typedef struct {
    char *name;
    double low_ns, high_ns;
} culprit_report_category;

/** The whole report. Every string and array is owned by it. */
typedef struct {
    char *title;     /**< the project's name shown in the header; NULL: "culprit report" */
    char commit[41]; /**< the commit the report is about ("" unknown) */
    size_t ncommits;
    culprit_report_commit *commits; /**< the first-parent window, oldest first */
    size_t nseries;
    culprit_report_series *series; /**< sorted by test */
    size_t aseries;                /**< allocated entries of series */
    size_t ncategories;
    culprit_report_category *categories;
    culprit_bisect_result *bisect; /**< NULL when no bisection was given */
    char *bisect_test; /**< the perf test bisected ("suite.test" or "test"); NULL: a command */
    culprit_calltree_view *calltree;               /**< NULL when no call-tree analysis was given */
    culprit_calltree_overweight_table *overweight; /**< NULL when none was given */
} culprit_report;

/** Creates an empty report. Caller frees with culprit_report_free(). */
int culprit_report_new(culprit_report **out);
/** Frees a report. NULL is a no-op. */
void culprit_report_free(culprit_report *report);

/** Sets the title shown in the page header (copied). */
int culprit_report_set_title(culprit_report *report, const char *title);

/** Copies the category set (for the dashed limit lines). */
int culprit_report_set_categories(culprit_report *report, const culprit_categories *categories);

/**
 * Fills the report's series from loaded history `runs`: `commits` is the first-parent
 * window, NEWEST first (commits[0] is the commit the report is about); `nchain`
 * shas of the whole first-parent chain (newest first, commits[i].sha == chain[i] for
 * i < ncommits) give the older baselines. Every commit of the window is judged exactly
 * as `culprit check --commit C` does (culprit_detect_check() against the commits
 * after it in `chain`), and each verdict becomes a point. Commits without data stay
 * in the window, without points. The commits are copied (stored oldest first).
 */
int culprit_report_add_history(culprit_report *report, const culprit_history_runs *runs,
                               const culprit_report_commit *commits, size_t ncommits,
                               const char *const *chain, size_t nchain,
                               const culprit_check_options *opts);

/**
 * Reads the document `culprit bisect --json` printed from `path`
 * (culprit_bisect_result_from_json()) into the report; the call-tree analysis it
 * embeds becomes the report's unless one is there already. CULPRIT_ENOTFOUND when
 * the file does not exist; CULPRIT_EINVALID naming the file and what is wrong when
 * it is not JSON, not a bisect document, or a field is malformed. The messages
 * start with "--bisect: ", the option of `culprit report` that names the file.
 */
int culprit_report_load_bisect(culprit_report *report, const char *path);

/** Reads the document `culprit calltree diff --json` printed
 * (culprit_calltree_view_from_json(); errors as above, with "--calltree: "). */
int culprit_report_load_calltree(culprit_report *report, const char *path);

/** Reads the document `culprit overweight --json` printed
 * (culprit_calltree_overweight_table_from_json(); errors as above, with "--overweight: "). */
int culprit_report_load_overweight(culprit_report *report, const char *path);

/**
 * Gives call-tree node `node` the excerpt of its changed lines shown under it:
 * each changed range of `source` (the file's whole text as the culprit commit has
 * it) with one line of context either side, changed lines marked '+', each with
 * its line number. Replaces what the node's document gave (its "diff"). A range
 * past the end of the text is left out. CULPRIT_EINVALID for a node out of range.
 */
int culprit_report_set_source(culprit_report *report, size_t node, const char *source, size_t len);

/* -------------------------------------------------------------- rendering --- */

typedef enum {
    CULPRIT_REPORT_HTML = 0, /**< one self-contained page: inline CSS and SVG, no script */
    CULPRIT_REPORT_MARKDOWN, /**< a short summary for CI step summaries and PR comments */
    CULPRIT_REPORT_JSON,     /**< the model as one JSON document */
    CULPRIT_REPORT_TEXT      /**< a summary block for the terminal */
} culprit_report_format;

/** The tag a verdict is shown with: "MAJOR", "MINOR", "FASTER", "UNDECIDED",
 * "unchanged", "no baseline", "MIXED", "not run" (upper case: look here). */
const char *culprit_report_verdict_tag(culprit_verdict_kind kind);

/** Parses "html", "markdown" (or "md"), "json", "text". CULPRIT_EINVALID otherwise. */
int culprit_report_format_parse(culprit_report_format *out, const char *name);

/** The verdict counts of the report's commit: the verdicts of the points there. */
size_t culprit_report_count(const culprit_report *report, culprit_verdict_kind kind);

/** 1 when the bisection was about the test of `series` (its steps are that test's means). */
int culprit_report_bisect_is_of(const culprit_report *report, const culprit_report_series *series);

/**
 * The point of `series` at the report's commit (its newest commit), or NULL when
 * the test was not measured there. Borrowed.
 */
const culprit_report_point *culprit_report_current(const culprit_report *report,
                                                   const culprit_report_series *series);

/** Appends the rendering of `report` in `format` to `out`. */
int culprit_report_render(culprit_buf *out, const culprit_report *report,
                          culprit_report_format format);

/* ------------------------------------------------- from the repository --- */

/**
 * Fills the report's series from `runs` over the first-parent history of `rev` in
 * `repo`: the window is the `limit` newest commits (the commit `rev` names first),
 * each with its subject and author date, and the whole first-parent chain gives
 * the older baselines, so the oldest point shown is judged like the newest
 * (culprit_report_add_history()). `culprit report` and `culprit history` show the
 * same points through this. Errors: those of culprit_vcs_resolve (an unknown
 * revision), culprit_vcs_first_parents, culprit_vcs_commit_info and
 * culprit_report_add_history; CULPRIT_ERROR out of memory.
 */
int culprit_report_add_history_window(culprit_report *report, culprit_vcs *repo,
                                      const culprit_history_runs *runs, const char *rev,
                                      size_t limit, const culprit_check_options *opts);

/**
 * How culprit_report_add_history_read() reads the history store: the runs at the
 * given commits (full shas, in any order) into `out` (the function zeroes it first),
 * as culprit_history_load() gives them with a query of those commits. 0 or an error.
 */
typedef int (*culprit_report_load_fn)(culprit_history_runs *out, const char *const *commits,
                                      size_t ncommits, void *payload);

/**
 * culprit_report_add_history_window() reading only the runs the window needs, through
 * `load`: those of its `limit` commits and of the first-parent commits before them,
 * first as many as the oldest point reads of a test measured at every commit
 * (noise_window + pool, or rules.history: 11 by default), then 8 times more while a
 * point may lack its baseline or the earlier runs its noise model and detectors read
 * (culprit_detect_check_wants_more()), as `culprit check` grows. Each commit is judged as
 * `culprit check --commit C` judges it (culprit_detect_check() on the runs of C and
 * its first-parent ancestors that were read), so a window of 30 at the head of 10,000
 * measured commits reads 41 runs. `runs` receives what was read (the caller disposes of it, also on
 * error). Errors: those of culprit_report_add_history_window() and of `load`.
 */
int culprit_report_add_history_read(culprit_report *report, culprit_history_runs *runs,
                                    culprit_vcs *repo, const char *rev, size_t limit,
                                    const culprit_check_options *opts, culprit_report_load_fn load,
                                    void *payload);

/**
 * Gives each changed function of the loaded call tree the text of its changed
 * lines (culprit_report_set_source()) as the commit of the call-tree document, or
 * else the bisection's culprit, has them in `repo`. Without a call tree or such a
 * commit, or for a file the commit does not have (a path from another build
 * directory), nothing is added and it is not an error. Returns 0 or CULPRIT_ERROR.
 */
int culprit_report_add_sources(culprit_report *report, culprit_vcs *repo);

#ifdef __cplusplus
}
#endif

#endif
