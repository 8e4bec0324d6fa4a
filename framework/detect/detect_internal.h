/*
 * Semi-private helpers shared by the files of framework/detect. Not part of the
 * public API.
 */
#ifndef CULPRIT_DETECT_INTERNAL_H
#define CULPRIT_DETECT_INTERNAL_H

#include "culprit/detect.h"

/** 1 when two runs share machine, compiler and flags (their timings compare). */
int culprit_detect__same_build(const culprit_run *a, const culprit_run *b);

/** Which fingerprint (machine, compiler, build flags) of the baseline's runs differs
 * from `run`, as a message (malloc'd), or NULL. */
char *culprit_detect__fingerprint_mismatch(const culprit_run *run, const culprit_baseline *base);

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
