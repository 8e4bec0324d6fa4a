/*
 * The --json document of a test binary's run (docs/runner.md documents the
 * fields; they are stable: new fields may be added, none renamed or removed).
 * Built with jansson: no hand-written JSON anywhere in culprit.
 */
#include "runner.h"

#include <jansson.h>
#include <math.h>

/* JSON has no infinity or NaN: they become null. */
static json_t *number(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *string_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *test_json(const culprit_test_result *t)
{
    const culprit_summary *s = &t->summary;
    json_t *counters = json_object();

    for (size_t i = 0; i < t->nseries; i++) {
        const culprit_series *series = &t->series[i];
        culprit_summary cs;
        if (series->absent || !series->values || series->n == 0) {
            json_object_set_new(counters, series->name, json_null());
            continue;
        }
        culprit_stats_summarize(&cs, series->values, series->n, s->confidence);
        json_object_set_new(counters, series->name, number(cs.mean));
    }
    return json_pack(
        "{s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:i, s:i, s:o, s:o, s:o, s:o, "
        "s:o, s:o, s:o, s:o, s:o, s:{s:I, s:I, s:I, s:I}, s:o, s:o}",
        "name", t->name, "classname", t->classname ? t->classname : "", "status",
        culprit_status_name(t->status), "message", string_or_null(t->message), "verdict",
        string_or_null(t->verdict), "category", string_or_null(t->category), "category_source",
        string_or_null(t->category_source), "category_low_ns",
        t->category ? number(t->category_low_ns) : json_null(), "category_high_ns",
        t->category ? number(t->category_high_ns) : json_null(), "metric",
        string_or_null(t->metric), "n", (json_int_t)s->n, "batch", (int)t->batch, "warmup",
        (int)t->warmup, "stop", string_or_null(t->stop), "mean_ns", number(s->mean), "median_ns",
        number(s->median), "sd_ns", number(s->sd), "min_ns", number(s->min), "max_ns",
        number(s->max), "ci_low_ns", number(s->ci_low), "ci_high_ns", number(s->ci_high),
        "outliers", "low_severe", (json_int_t)t->outliers.n_low_severe, "low_mild",
        (json_int_t)t->outliers.n_low_mild, "high_mild", (json_int_t)t->outliers.n_high_mild,
        "high_severe", (json_int_t)t->outliers.n_high_severe, "counters_mean", counters,
        "elapsed_s", number(t->elapsed_s));
}

char *culprit_runner__run_json(const culprit_run *run, const char *history_file)
{
    json_t *tests = json_array(), *root;
    char *text;

    for (size_t i = 0; i < run->ntests; i++)
        json_array_append_new(tests, test_json(&run->tests[i]));
    root = json_pack(
        "{s:i, s:s, s:s, s:b, s:o, s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:o}", "culprit_json", 1,
        "suite", run->suite ? run->suite : "", "commit", run->commit ? run->commit : "unknown",
        "dirty", run->dirty, "branch", string_or_null(run->branch), "timestamp",
        run->timestamp ? run->timestamp : "", "host", run->host ? run->host : "", "machine",
        run->machine ? run->machine : "", "compiler", run->compiler ? run->compiler : "", "flags",
        run->flags ? run->flags : "", "history_file", string_or_null(history_file), "confidence",
        run->ntests ? number(run->tests[0].summary.confidence) : json_null(), "tests", tests);
    if (!root)
        return NULL;
    text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(root);
    return text;
}
