/*
 * What JUnit dashboards (Jenkins, GitLab, Azure, CDash's JUnit import) show of a
 * perf test, for the JUnit report (--junit, `culprit junit`): the history file is
 * culprit's storage, the report is for people looking at a CI page.
 *
 * - `time` of a <testcase> is the mean time of one repetition of the test body (the
 *   judged series when it is a time, else wall time), not how long sampling ran.
 *   Dashboards plot `time` as the test's duration trend; sampling time is set by the
 *   budget and the stopping rule (5.000238 s when the budget ran out, 0.0023 s when
 *   it stopped early), so its trend says nothing, while the mean per repetition
 *   makes that trend a performance trend. How long sampling took stays in the
 *   block (elapsed-s).
 * - <system-out> starts with the line the terminal showed, then the culprit block.
 * - <failure>/<error> carry a body with the figures: the value and its interval,
 *   the category and its limit, the commit.
 */
#include "history_internal.h"

#include <math.h>
#include <string.h>

/* The mean of a series' loaded values; NAN when there are none. */
static double series_mean(const culprit_series *s)
{
    double sum = 0;

    if (!s || s->absent || !s->values || !s->n)
        return NAN;
    for (size_t i = 0; i < s->n; i++)
        sum += s->values[i];
    return sum / (double)s->n;
}

static int is_time_metric(const char *metric)
{
    size_t len = metric ? strlen(metric) : 0;
    return len > 3 && !strcmp(metric + len - 3, "_ns");
}

double culprit_history__report_time(const culprit_test_result *t)
{
    double wall;

    if (t->summary.n > 0 && is_time_metric(t->metric ? t->metric : "wall_ns") &&
        isfinite(t->summary.mean))
        return t->summary.mean / 1e9;
    wall = series_mean(culprit_history_test_result_series(t, "wall_ns"));
    return isfinite(wall) ? wall / 1e9 : t->elapsed_s;
}

/* The judged value in its unit: a duration, or a count ("instr" when counted). */
static int put_value(culprit_buf *out, const culprit_test_result *t, double v)
{
    if (is_time_metric(t->metric ? t->metric : "wall_ns"))
        return culprit_buf_put_duration(out, v);
    return culprit_buf_printf(out, "%.0f %s", v,
                              t->counted_by ? "instr"
                              : t->metric   ? t->metric
                                            : "");
}

/* A name (data) escaped for the terminal, padded to `width` as "%-*s" would: the
 * line is printed there and opens the report's <system-out>. */
static int put_padded(culprit_buf *out, const char *s, size_t width)
{
    size_t mark = out->size;
    int error;

    if ((error = culprit_buf_put_text(out, s)) < 0)
        return error;
    while (out->size - mark < width)
        if ((error = culprit_buf_put(out, " ", 1)) < 0)
            return error;
    return 0;
}

int culprit_history_test_result_line(culprit_buf *out, const culprit_test_result *t)
{
    culprit_buf mean = CULPRIT_BUF_INIT, cpu_text = CULPRIT_BUF_INIT;
    int error;

    if (t->status != CULPRIT_STATUS_PASS) {
        const char *tag = t->status == CULPRIT_STATUS_ERROR            ? "ERROR "
                          : t->status == CULPRIT_STATUS_SKIPPED        ? "SKIP  "
                          : t->verdict && !strcmp(t->verdict, "major") ? "MAJOR "
                                                                       : "FAILED";
        if ((error = culprit_buf_printf(out, "[ %s ] ", tag)) < 0 ||
            (error = put_padded(out, t->name ? t->name : "", 28)) < 0 ||
            (error = culprit_buf_put(out, " ", 1)) < 0)
            return error;
        return culprit_buf_put_text(out, t->message ? t->message : "");
    }
    double rel = t->summary.mean > 0
                     ? 100.0 * (t->summary.ci_high - t->summary.mean) / t->summary.mean
                     : NAN;
    /* CPU time beside wall time: on an oversubscribed machine they part, and the gap
     * is time spent waiting for a core (docs/measure.md). */
    double cpu = series_mean(culprit_history_test_result_series(t, "cpu_ns"));
    if ((error = put_value(&mean, t, t->summary.mean)) < 0)
        goto cleanup;
    /* With timed regions the two cover different code: the wall figure the regions,
     * CPU time the whole body; the line says so. */
    if (t->metric && !strcmp(t->metric, "wall_ns") && !t->load_calls && isfinite(cpu) &&
        ((error = culprit_buf_puts(&cpu_text, t->region ? ", regions timed, cpu " : ", cpu ")) <
             0 ||
         (error = culprit_buf_put_duration(&cpu_text, cpu)) < 0 ||
         (t->region && (error = culprit_buf_puts(&cpu_text, " (whole body)")) < 0)))
        goto cleanup;
    /* Samples the test spent partly off its core (docs/measure.md, "Preempted samples"). */
    if (t->preempted && (error = culprit_buf_printf(&cpu_text, ", %zu preempted %s", t->preempted,
                                                    t->preempted_kept ? "kept" : "left out")) < 0)
        goto cleanup;
    if ((error = culprit_buf_puts(out, "[  PERF  ] ")) < 0 ||
        (error = put_padded(out, t->name ? t->name : "", 28)) < 0 ||
        (error = culprit_buf_put(out, " ", 1)) < 0 ||
        (error = put_padded(out, t->category ? t->category : "-", 8)) < 0)
        goto cleanup;
    error = culprit_buf_printf(out, " %10s +-%.2f%%  (n=%zu, batch %u, %s%s)",
                               culprit_buf_cstr(&mean), rel, t->summary.n, t->batch,
                               t->stop ? t->stop : "-", culprit_buf_cstr(&cpu_text));
cleanup:
    culprit_buf_dispose(&mean);
    culprit_buf_dispose(&cpu_text);
    return error;
}

int culprit_history__failure_body(culprit_buf *out, const culprit_run *run,
                                  const culprit_test_result *t)
{
    int error = 0;

    if (t->message && (error = culprit_buf_printf(out, "%s\n", t->message)) < 0)
        return error;
    if (t->summary.n > 0 && isfinite(t->summary.mean)) {
        if ((error = culprit_buf_puts(out, "mean ")) < 0 ||
            (error = put_value(out, t, t->summary.mean)) < 0 ||
            (error = culprit_buf_printf(
                 out, " per repetition, %g%% CI ",
                 100 * (t->summary.confidence > 0 ? t->summary.confidence : 0.99))) < 0 ||
            (error = put_value(out, t, t->summary.ci_low)) < 0 ||
            (error = culprit_buf_puts(out, " to ")) < 0 ||
            (error = put_value(out, t, t->summary.ci_high)) < 0 ||
            (error = culprit_buf_printf(out, " (n=%zu, batch %u, stopped: %s)\n", t->summary.n,
                                        t->batch, t->stop ? t->stop : "-")) < 0)
            return error;
    }
    if (t->category) {
        if ((error = culprit_buf_printf(out, "category %s (", t->category)) < 0 ||
            (error = culprit_buf_put_duration(out, t->category_low_ns)) < 0 ||
            (error = culprit_buf_puts(out, " <= mean < ")) < 0 ||
            (error = isfinite(t->category_high_ns)
                         ? culprit_buf_put_duration(out, t->category_high_ns)
                         : culprit_buf_puts(out, "no limit")) < 0 ||
            (error = culprit_buf_printf(out, ", %s)\n",
                                        t->category_source ? t->category_source : "?")) < 0)
            return error;
    }
    if (run->commit && (error = culprit_buf_printf(
                            out, "commit %s%s%s%s\n", run->commit, run->dirty ? " (dirty)" : "",
                            run->branch ? " on " : "", run->branch ? run->branch : "")) < 0)
        return error;
    return 0;
}
