/*
 * `culprit check --metric NAME`: every result records a series per counter beside
 * the one it was measured for (wall_ns by default), and any of them can be judged
 * instead. The summaries verdicts read are those of the measured metric, so for
 * another series they are recomputed from its values, the judged one inside Tukey's
 * severe fences as the runner does (docs/detection.md), and the tool that counted
 * the measured metric no longer vouches for it: counted_by is cleared, and the
 * series is judged by the time rule, statistically. A category is a range of time:
 * it stays with a series of nanoseconds (name ending in "_ns") and is dropped for
 * any other (a count of page faults has no major regression).
 */
#include "culprit/core.h"
#include "culprit/detect.h"
#include "culprit/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int is_time(const char *metric)
{
    size_t n = strlen(metric);
    return n >= 3 && strcmp(metric + n - 3, "_ns") == 0;
}

static int select_one(culprit_test_result *t, const char *metric, double confidence)
{
    const culprit_series *s = culprit_history_test_result_series(t, metric);
    culprit_summary all, judged;
    culprit_outliers fences;
    int error;

    memset(&all, 0, sizeof(all));
    memset(&judged, 0, sizeof(judged));
    if (s && !s->absent && s->n && !s->values)
        return culprit_error_set(CULPRIT_EINVALID,
                                 "test '%s': the series '%s' was not loaded (load samples)",
                                 t->name, metric);
    if (s && !s->absent && s->n) {
        if ((error = culprit_stats_summarize(&all, s->values, s->n, confidence)) < 0 ||
            (error = culprit_stats_outliers(&fences, s->values, s->n)) < 0 ||
            (error = culprit_stats_summarize_within(&judged, s->values, s->n, fences.low_severe,
                                                    fences.high_severe, confidence)) < 0)
            return error;
        t->outliers = fences;
    }
    if (!is_time(metric)) {
        free(t->category);
        t->category = NULL;
        t->category_high_ns = t->category_low_ns = NAN;
    }
    t->summary = all;
    t->judged = judged;
    free(t->counted_by);
    t->counted_by = NULL;
    return culprit_str_set(&t->metric, metric);
}

int culprit_detect_select_metric(culprit_run *run, const char *metric, double confidence)
{
    int error;

    for (size_t i = 0; i < run->ntests; i++) {
        culprit_test_result *t = &run->tests[i];
        if (t->metric ? strcmp(t->metric, metric) == 0 : strcmp(metric, "wall_ns") == 0)
            continue;
        if ((error = select_one(t, metric, confidence)) < 0)
            return error;
    }
    return 0;
}
