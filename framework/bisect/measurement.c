/*
 * A bisection's options (culprit_bisect_options): their defaults and their one
 * validator, which every entry point (the session, the call-tree session, a
 * confirmation, a check's paired confirmation, an investigation) calls, and which
 * part of them says what a measurement judges. What every measurement shares is
 * `measure`; the way measured is a command (`command`) or a perf test (`perf`); the
 * rest are the search's (docs/bisect.md, "Options"). Also their defaulted values (the
 * build's timeout, the runs per comparison), whether the metric is counted, and progress.
 */
#include "bisect_internal.h"
#include "culprit/core.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

int culprit_bisect_options_init(culprit_bisect_options *opts, unsigned int version)
{
    static const culprit_bisect_options defaults = CULPRIT_BISECT_OPTIONS_INIT;

    return culprit_options_init_from(opts, &defaults, sizeof(defaults), version,
                                     CULPRIT_BISECT_OPTIONS_VERSION, "bisect");
}

/* The way measured: a command, or else a perf test (a run command with its test). */
static int check_way(const culprit_bisect_options *opts)
{
    const culprit_bisect_command *c = &opts->command;
    const culprit_bisect_perf_test *t = &opts->perf;

    if (!c->line == !t->run || !t->run != !t->test)
        return culprit_error_set(CULPRIT_EINVALID,
                                 "a bisection needs good, bad, and either a command to time or "
                                 "a run command with the test it measures");
    if (c->metric && strcmp(c->metric, CULPRIT_BISECT__CPU_METRIC) != 0 &&
        strcmp(c->metric, "instructions") != 0)
        return culprit_error_set(CULPRIT_EINVALID,
                                 "a bisection of the metric '%s' needs a run command and a test: "
                                 "a command's run is timed, by its wall time or its CPU time "
                                 "('" CULPRIT_BISECT__CPU_METRIC "'), or counted ('instructions')",
                                 c->metric);
    if (!t->run && (t->metric || t->history_dir || t->record))
        return culprit_error_set(CULPRIT_EINVALID,
                                 "a perf test's options (perf.metric, perf.history_dir, "
                                 "perf.record) need its run command (perf.run)");
    if (t->run && c->metric)
        return culprit_error_set(CULPRIT_EINVALID,
                                 "command.metric is a command's: a perf test's series is "
                                 "perf.metric");
    return 0;
}

/* What every measurement shares, in range. */
static int check_measurement(const culprit_bisect_measurement *m)
{
    if (!(m->count_threshold >= 0) || !(m->confidence > 0 && m->confidence < 1) ||
        m->min_runs == 1 || !(m->timeout_s > 0) || !(m->build_timeout_s >= 0))
        return culprit_error_set(CULPRIT_EINVALID,
                                 "bisection options out of range (confidence in (0,1), "
                                 "min_runs 0 or at least 2, timeout > 0, build timeout >= 0)");
    return 0;
}

int culprit_bisect_options_check(const culprit_bisect_options *opts)
{
    int error;

    if (opts && opts->version != CULPRIT_BISECT_OPTIONS_VERSION)
        return culprit_error_set(CULPRIT_EINVALID,
                                 "bisect options version %u is not %d (initialize them with "
                                 "CULPRIT_BISECT_OPTIONS_INIT or culprit_bisect_options_init())",
                                 opts->version, CULPRIT_BISECT_OPTIONS_VERSION);
    if (!opts || !opts->good || !opts->bad)
        return culprit_error_set(CULPRIT_EINVALID,
                                 "a bisection needs good, bad, and either a command to time or "
                                 "a run command with the test it measures");
    if ((error = check_way(opts)) < 0 || (error = check_measurement(&opts->measure)) < 0)
        return error;
    return 0;
}

int culprit_bisect__check_template(const culprit_bisect_options *tmpl, const char *test)
{
    culprit_bisect_options o;

    if (!tmpl)
        return culprit_bisect_options_check(NULL);
    o = *tmpl;
    o.good = o.bad = "HEAD"; /* set per use: any revision passes */
    o.perf.test = test;
    return culprit_bisect_options_check(&o);
}

const char *culprit_bisect__metric(const culprit_bisect_options *opts)
{
    return opts->perf.run ? opts->perf.metric : opts->command.metric;
}

/* What the measurement's options say once defaulted: progress, the build's timeout, the
 * runs per comparison and whether the metric is counted. */
void culprit_bisect__phase(const culprit_bisect_options *opts, const char *fmt, ...)
{
    char line[256];
    va_list ap;

    if (!opts || !opts->measure.phase)
        return;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    opts->measure.phase(line, opts->measure.payload);
}

double culprit_bisect__build_timeout(const culprit_bisect_options *opts)
{
    return opts->measure.build_timeout_s > 0 ? opts->measure.build_timeout_s
                                             : CULPRIT_BISECT_BUILD_TIMEOUT;
}

size_t culprit_bisect__min_runs(const culprit_bisect_options *opts)
{
    return opts->measure.min_runs ? opts->measure.min_runs : CULPRIT_BISECT_MIN_RUNS;
}

size_t culprit_bisect__max_runs(const culprit_bisect_options *opts)
{
    size_t min = culprit_bisect__min_runs(opts);
    return opts->measure.max_runs > min ? opts->measure.max_runs : min;
}

/* The looks of a step (docs/bisect.md, "Stopping early"; comparison.c judges at them). */
size_t culprit_bisect__next_look(const culprit_bisect_options *o, size_t extra, size_t done)
{
    size_t min = culprit_bisect__min_runs(o), n = min, max = culprit_bisect__max_runs(o);

    while (n <= done && n < max)
        n = n * 2 < max ? n * 2 : max;
    if (extra > min && extra > done && extra < n)
        n = extra;
    return n > done ? n : 0;
}

int culprit_bisect__counted(const culprit_bisect_options *opts)
{
    const char *metric = culprit_bisect__metric(opts);
    size_t n = metric ? strlen(metric) : 0;

    /* A perf test's counted series (a time series ending in _ns is timed), or a
     * command's instructions counted under callgrind. */
    return n && ((opts->perf.run && !(n > 3 && strcmp(metric + n - 3, "_ns") == 0)) ||
                 strcmp(metric, "instructions") == 0);
}
