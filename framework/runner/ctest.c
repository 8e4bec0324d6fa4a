/*
 * What a test binary tells ctest about a measured test (--ctest, which
 * culprit_discover_tests passes): ctest shows a passing test as "Passed 5.14 sec"
 * and nothing else without -V, and CDash sees only what ctest parses out of the
 * output. So before each result line the runner prints
 *
 *   <CTestMeasurement type="numeric/double" name="wall_ns.mean">312400</...>...
 *       the mean, the bounds of its confidence interval, the sd, the sample count
 *       and the category, all on one line: CTest copies them into Test.xml as
 *       <NamedMeasurement>s, which CDash shows on the test's page and plots across
 *       builds;
 *   <CTestDetails>fast 312.4 us +-0.41%</CTestDetails>
 *       CDash's "Completion Status" of the test;
 *   <CTestLabel>fib_perf.fib_24: 312.4 us +-0.41% (fast)</CTestLabel>
 *       a label added to the test's result: ctest prints its labels in the
 *       "Label Time Summary" at the end of every run, so the value, interval and
 *       category appear in plain `ctest` output. CULPRIT_CTEST_LABEL=0 leaves it out
 *       (CDash lists labels too, and a project may want only its own there).
 *
 * Before, not after: ctest (3.25) strips <CTestDetails> and <CTestLabel> from what
 * --output-on-failure and -V show, but not <CTestMeasurement>, and a test cannot
 * tell whether ctest runs in dashboard mode (-T Test, ctest_test()) where they are
 * read. Printed first and on one line, they leave the verdict line and its
 * explanation as the last lines a reader sees of a failed test.
 *
 * ctest's own --output-junit drops these tags from the test output and keeps no
 * measurement; culprit's JUnit report (--junit DIR/, culprit junit) has them all.
 */
#include "runner_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void measurement(culprit_buf *line, const char *metric, const char *name, double v)
{
    if (isfinite(v))
        culprit_buf_printf(line,
                           "<CTestMeasurement type=\"numeric/double\" name=\"%s.%s\">%.17g"
                           "</CTestMeasurement>",
                           metric, name, v);
}

void culprit_runner__ctest_report(FILE *out, const culprit_test_result *t)
{
    const char *metric = t->metric ? t->metric : "wall_ns";
    const char *label = getenv("CULPRIT_CTEST_LABEL");
    culprit_buf line = CULPRIT_BUF_INIT, value = CULPRIT_BUF_INIT;
    double rel;

    if (t->summary.n == 0)
        return;
    measurement(&line, metric, "mean", t->summary.mean);
    measurement(&line, metric, "ci_low", t->summary.ci_low);
    measurement(&line, metric, "ci_high", t->summary.ci_high);
    measurement(&line, metric, "sd", t->summary.sd);
    culprit_buf_printf(
        &line, "<CTestMeasurement type=\"numeric/integer\" name=\"n\">%zu</CTestMeasurement>",
        t->summary.n);
    if (t->category)
        culprit_buf_printf(&line,
                           "<CTestMeasurement type=\"text/string\" name=\"category\">%s"
                           "</CTestMeasurement>",
                           t->category);
    fprintf(out, "%s\n", culprit_buf_cstr(&line));
    culprit_buf_clear(&line);
    /* The figures as the terminal line has them: value in its unit, +- the interval. */
    rel = t->summary.mean > 0 ? 100.0 * (t->summary.ci_high - t->summary.mean) / t->summary.mean
                              : NAN;
    if (strstr(metric, "_ns"))
        culprit_buf_put_duration(&value, t->summary.mean);
    else
        culprit_buf_printf(&value, "%.0f %s", t->summary.mean, metric);
    culprit_buf_printf(&line, "%s +-%.2f%%", culprit_buf_cstr(&value), rel);
    if (t->status == CULPRIT_STATUS_PASS)
        fprintf(out, "<CTestDetails>%s%s%s</CTestDetails>\n", t->category ? t->category : "",
                t->category ? " " : "", culprit_buf_cstr(&line));
    if (!(label && !strcmp(label, "0")))
        fprintf(out, "<CTestLabel>%s.%s: %s (%s)</CTestLabel>\n", t->classname ? t->classname : "",
                t->name ? t->name : "", culprit_buf_cstr(&line),
                t->category ? t->category : "no category");
    fflush(out);
    culprit_buf_dispose(&line);
    culprit_buf_dispose(&value);
}
