/*
 * Semi-private helpers shared by the files of framework/detect. Not part of the
 * public API.
 */
#ifndef CULPRIT_DETECT_INTERNAL_H
#define CULPRIT_DETECT_INTERNAL_H

#include "culprit/detect.h"

/** 1 when two runs share machine, compiler and flags (their timings compare). */
int culprit_detect__same_build(const culprit_run *a, const culprit_run *b);

/**
 * Runs the counter detectors opts->detectors asks for on every test of a check
 * whose time verdicts are done (result->now, now_runs set), filling
 * result->clusters and result->rules. Negative only for allocation failure.
 */
int culprit_detect__judge_counters(culprit_check_result *result, const culprit_history_runs *runs,
                                   const char *const *baseline_commits, size_t nbaseline,
                                   const culprit_check_options *opts);

#endif
