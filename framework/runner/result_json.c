/*
 * The --json document of a test binary's run (docs/runner.md documents the
 * fields; they are stable: new fields may be added, none renamed or removed).
 * Built with jansson: no hand-written JSON anywhere in culprit.
 */
#include "../calltree/calltree_json.h"
#include "runner_internal.h"

#include <jansson.h>
#include <math.h>

/* JSON has no infinity or NaN: they become null (the library's one writer of them). */
static json_t *number(double v)
{
    return culprit_calltree__json_double(v);
}

/* JSON carries UTF-8 only: a byte that is not is written as "\xNN". */
static json_t *string_or_null(const char *s)
{
    return culprit_calltree__json_text(s);
}

/* The mean of a recorded series (samples loaded), NaN when absent. */
static double series_mean(const culprit_test_result *t, const char *name)
{
    const culprit_series *s = culprit_history_test_result_series(t, name);
    double sum = 0;

    if (!s || s->absent || !s->values || s->n == 0)
        return NAN;
    for (size_t i = 0; i < s->n; i++)
        sum += s->values[i];
    return sum / (double)s->n;
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
    json_t *o = json_object(), *outliers = json_object();

    json_object_set_new(o, "name", string_or_null(t->name ? t->name : ""));
    json_object_set_new(o, "classname", string_or_null(t->classname ? t->classname : ""));
    json_object_set_new(o, "status", json_string(culprit_history_status_name(t->status)));
    json_object_set_new(o, "message", string_or_null(t->message));
    json_object_set_new(o, "verdict", string_or_null(t->verdict));
    json_object_set_new(o, "category", string_or_null(t->category));
    json_object_set_new(o, "category_source", string_or_null(t->category_source));
    json_object_set_new(o, "category_low_ns",
                        t->category ? number(t->category_low_ns) : json_null());
    json_object_set_new(o, "category_high_ns",
                        t->category ? number(t->category_high_ns) : json_null());
    json_object_set_new(o, "metric", string_or_null(t->metric));
    json_object_set_new(o, "counted_by", string_or_null(t->counted_by));
    json_object_set_new(o, "n", json_integer((json_int_t)s->n));
    json_object_set_new(o, "batch", json_integer(t->batch));
    json_object_set_new(o, "warmup", json_integer(t->warmup));
    json_object_set_new(o, "stop", string_or_null(t->stop));
    json_object_set_new(o, "mean_ns", number(s->mean));
    json_object_set_new(o, "median_ns", number(s->median));
    json_object_set_new(o, "sd_ns", number(s->sd));
    json_object_set_new(o, "min_ns", number(s->min));
    json_object_set_new(o, "max_ns", number(s->max));
    json_object_set_new(o, "ci_low_ns", number(s->ci_low));
    json_object_set_new(o, "ci_high_ns", number(s->ci_high));
    json_object_set_new(o, "cpu_mean_ns", number(series_mean(t, "cpu_ns")));
    json_object_set_new(o, "preempted", json_integer((json_int_t)t->preempted));
    json_object_set_new(o, "preempted_kept", json_boolean(t->preempted_kept));
    json_object_set_new(outliers, "low_severe", json_integer((json_int_t)t->outliers.n_low_severe));
    json_object_set_new(outliers, "low_mild", json_integer((json_int_t)t->outliers.n_low_mild));
    json_object_set_new(outliers, "high_mild", json_integer((json_int_t)t->outliers.n_high_mild));
    json_object_set_new(outliers, "high_severe",
                        json_integer((json_int_t)t->outliers.n_high_severe));
    json_object_set_new(o, "outliers", outliers);
    json_object_set_new(o, "counters_mean", counters);
    json_object_set_new(o, "elapsed_s", number(t->elapsed_s));
    return o;
}

char *culprit_runner__run_json(const culprit_run *run, const char *history_file)
{
    json_t *tests = json_array(), *root;
    char *text;

    for (size_t i = 0; i < run->ntests; i++)
        json_array_append_new(tests, test_json(&run->tests[i]));
    root = json_object();
    json_object_set_new(root, "culprit_json", json_integer(1));
    json_object_set_new(root, "suite", string_or_null(run->suite ? run->suite : ""));
    json_object_set_new(root, "commit", json_string(run->commit ? run->commit : "unknown"));
    json_object_set_new(root, "dirty", json_boolean(run->dirty));
    json_object_set_new(root, "branch", string_or_null(run->branch));
    json_object_set_new(root, "timestamp", string_or_null(run->timestamp));
    json_object_set_new(root, "host", string_or_null(run->host));
    json_object_set_new(root, "machine", string_or_null(run->machine));
    json_object_set_new(root, "machine_class", string_or_null(run->machine_class));
    json_object_set_new(root, "compiler", string_or_null(run->compiler));
    json_object_set_new(root, "flags", string_or_null(run->flags));
    json_object_set_new(root, "history_file", string_or_null(history_file));
    json_object_set_new(root, "confidence",
                        run->ntests ? number(run->tests[0].summary.confidence) : json_null());
    json_object_set_new(root, "tests", tests);
    if (!root)
        return NULL;
    text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(root);
    return text;
}
