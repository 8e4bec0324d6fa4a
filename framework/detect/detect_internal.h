/*
 * Semi-private helpers shared by the files of framework/detect. Not part of the
 * public API.
 */
#ifndef CULPRIT_DETECT_INTERNAL_H
#define CULPRIT_DETECT_INTERNAL_H

#include "culprit/detect.h"

/* Why a run from a dirty tree is not a baseline. */
#define CULPRIT_DETECT__DIRTY_BASELINE                                                             \
    "the baseline ran on a dirty tree (uncommitted changes; --allow-dirty compares with it)"

/* What a verdict of a run from a dirty tree says, after its message. */
#define CULPRIT_DETECT__DIRTY_NOTE "; measured on a dirty tree (uncommitted changes)"

/** 1 when two runs share machine, compiler and flags (their timings compare). */
int culprit_detect__same_build(const culprit_run *a, const culprit_run *b);

/* Appends "suite.name" as printf's "%s.%s" writes it (NULL as "(null)"), without
 * printf: every test judged has its key made. */
int culprit_detect__put_key(culprit_buf *key, const char *suite, const char *name);

/** Which fingerprint (machine, compiler, build flags) of the baseline's runs differs
 * from `run`, as a message (malloc'd), or NULL. */
char *culprit_detect__fingerprint_mismatch(const culprit_run *run, const culprit_baseline *base);

/** How the counting (tool, metric) of `now` differs from that of a baseline result,
 * as a message (malloc'd), or NULL. */
char *culprit_detect__counting_mismatch(const culprit_test_result *now,
                                        const culprit_baseline *base);

/* The loaded runs sorted by commit (then time), to find the runs of one commit. */
typedef struct {
    const culprit_run **runs;
    size_t n;
} culprit_detect__index;

int culprit_detect__index_runs(culprit_detect__index *out, const culprit_history_runs *runs);
void culprit_detect__index_dispose(culprit_detect__index *index);
/* The runs of `commit` are index->runs[return value .. *end), oldest first. */
size_t culprit_detect__index_find(const culprit_detect__index *index, const char *commit,
                                  size_t *end);

/* culprit_detect_baseline_for() over an index made once for many tests; `allow` is
 * CULPRIT_DETECT__ALLOW_MIXED (any run) and/or CULPRIT_DETECT__ALLOW_DIRTY (a run from a
 * dirty tree too). */
#define CULPRIT_DETECT__ALLOW_MIXED 0x1
#define CULPRIT_DETECT__ALLOW_DIRTY 0x2
int culprit_detect__baseline_indexed(culprit_baseline *out, const culprit_detect__index *index,
                                     const char *suite, const culprit_run *now_run,
                                     const culprit_test_result *now, const char *test,
                                     const char *const *commits, size_t ncommits, size_t pool,
                                     int allow);

/** Names in out->base_runs the runs of `base` (commit, id, machine class, time, the
 * mean used). 0, or CULPRIT_ERROR out of memory (out->base_runs then partly set). */
int culprit_detect__name_base_runs(culprit_verdict *out, const culprit_baseline *base);

/* The pooled spread of the last run asked for, reused for the next run of the same
 * time, build and metric (a check asks for each young test's minor). */
typedef struct {
    const culprit_run *run;
    const char *metric;
    culprit_run_spread spread;
} culprit_detect__spread_cache;

/* A result's floor: the fastest sample it judged (the judged summary's minimum, else
 * the plain one's); NAN when it has fewer than 2 samples or no positive minimum. What
 * the pooled rule judges (prior.c). */
double culprit_detect__floor(const culprit_test_result *t);

/* The young-history rule (prior.c): a minor or faster verdict `out` of a test with too
 * few earlier runs for its own noise model, judged against the pooled run-to-run
 * spread (base->spread, else the default): out->evidence POOLED beyond the limit,
 * UNCONFIRMED within; out->spread, spread_limit and floor_change set. */
void culprit_detect__judge_by_spread(culprit_verdict *out, const culprit_test_result *now,
                                     const culprit_baseline *base);
/* 1 when `change` is beyond out->spread_limit in the verdict's direction (above it for
 * a minor, below its mirror for a faster verdict). */
int culprit_detect__beyond_limit(const culprit_verdict *v, double change);

/* culprit_detect_run_spread() through `cache` (zeroed before its first use). */
int culprit_detect__spread_cached(culprit_detect__spread_cache *cache,
                                  const culprit_history_runs *runs, const culprit_run *now_run,
                                  const culprit_test_result *now, size_t window, double confidence);

/**
 * The deterministic rule (counted.c) when `now` or a result of `base` was counted by
 * a tool: fills `out` (kind, figures, evidence, message) and returns 1; 0 when
 * nothing was counted (the time verdict judges); negative on allocation failure.
 * `out` has its test, category and NaN figures set already.
 */
int culprit_detect__judge_counted(culprit_verdict *out, const culprit_run *run,
                                  const culprit_test_result *now, const culprit_baseline *base,
                                  const culprit_detect_options *opts);

/**
 * Runs the counter detectors opts->detectors asks for on every test of a check
 * whose time verdicts are done (result->now, now_runs set), filling
 * result->clusters and result->rules. Negative only for allocation failure.
 */
int culprit_detect__judge_counters(culprit_check_result *result, const culprit_history_runs *runs,
                                   const char *const *baseline_commits, size_t nbaseline,
                                   const culprit_check_options *opts);

#endif
