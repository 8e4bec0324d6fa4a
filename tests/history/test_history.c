/* Tests of framework/history: the model, the JUnit XML round trip, the reader's
 * defences against foreign and corrupt files, and the store. */
#include "support/test.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "culprit/history.h"
#include "history/history_internal.h"
#include "support/tmpdir.h"

#define SCHEMA CULPRIT_SOURCE_DIR "/docs/schemas/junit-10.xsd"

static const double wall[] = {1200,
                              1187.5,
                              0.1,
                              1.0 / 3.0,
                              -0.0,
                              1e-300,
                              1.7976931348623157e308,
                              NAN,
                              INFINITY,
                              -INFINITY,
                              123456789012345678.0,
                              4.9e-324};

static culprit_run *make_run(void)
{
    culprit_run *run;
    culprit_test_result *t;
    double cpu[] = {10, 20, 30};

    assert_int_equal(culprit_history_run_new(&run), 0);
    culprit_str_set(&run->id, "20261122T130500Z_0123456789ab_host_1_beef");
    culprit_str_set(&run->suite, "suite <&> \"quoted\" 'x'");
    culprit_str_set(&run->commit, "0123456789abcdef0123456789abcdef01234567");
    run->dirty = 1;
    culprit_str_set(&run->branch, "feature/a&b");
    culprit_str_set(&run->timestamp, "2026-11-22T13:05:00Z");
    culprit_str_set(&run->host, "build-01");
    culprit_str_set(&run->machine, "Intel(R) Xeon <8 cores>, Linux 6.1\nline2");
    culprit_str_set(&run->compiler, "gcc 12.2.0");
    culprit_str_set(&run->flags, "-O2 -g -DX=\"a&b\"");
    culprit_str_set(&run->binary, "/build/tests/fib perf");

    assert_int_equal(culprit_history_run_add_test(&t, run), 0);
    culprit_str_set(&t->name, "fib_30 <fast> & \"friends\"");
    culprit_str_set(&t->classname, "suite-a");
    t->status = CULPRIT_STATUS_PASS;
    culprit_str_set(&t->category, "fast & small");
    culprit_str_set(&t->category_source, "explicit");
    t->category_low_ns = 0;
    t->category_high_ns = INFINITY;
    culprit_str_set(&t->verdict, "minor");
    culprit_str_set(&t->verdict_message, "fib: 1.2 ms now, 1.0 ms before (+20%)");
    culprit_str_set(&t->metric, "wall_ns");
    t->batch = 16;
    t->warmup = 3;
    culprit_str_set(&t->stop, "precision");
    t->timer_overhead_ns = 20.25;
    t->elapsed_s = 0.123456789;
    t->summary = (culprit_summary){12, 1193.75, 9.1, 1190, 0.1, 1e308, -INFINITY, INFINITY, 0.99};
    t->judged = (culprit_summary){10, 1190.5, 2.25, 1190, 1185, 1196, 1188.25, 1192.75, 0.99};
    t->outliers =
        (culprit_outliers){1, 2, 1, -5, -0.5, 3.5, 5, (size_t)1 << 40, 2, 3, (size_t)1 << 53};
    assert_int_equal(culprit_history_test_result_add_series(t, "wall_ns", wall,
                                                            sizeof(wall) / sizeof(wall[0]), 0),
                     0);
    assert_int_equal(culprit_history_test_result_add_series(t, "cpu_ns", cpu, 3, 0), 0);
    assert_int_equal(culprit_history_test_result_add_series(t, "l1d_misses", NULL, 0, 1), 0);
    assert_int_equal(culprit_history_test_result_add_series(t, "empty", NULL, 0, 0), 0);

    assert_int_equal(culprit_history_run_add_test(&t, run), 0);
    culprit_str_set(&t->name, "fails");
    t->status = CULPRIT_STATUS_FAILURE;
    culprit_str_set(&t->message, "expected 1 < 2 && \"ok\"\nsecond line\ttab");
    culprit_str_set(&t->output, "stderr <b>bold</b> & ]]> end\r\nwindows line\n");
    culprit_str_set(&t->verdict, "major");

    assert_int_equal(culprit_history_run_add_test(&t, run), 0);
    culprit_str_set(&t->name, "crashes");
    t->status = CULPRIT_STATUS_ERROR;
    culprit_str_set(&t->message, "SIGSEGV");

    assert_int_equal(culprit_history_run_add_test(&t, run), 0);
    culprit_str_set(&t->name, "skipped");
    t->status = CULPRIT_STATUS_SKIPPED;
    return run;
}

static int same_double(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    return !memcmp(&a, &b, sizeof(a));
}

#define assert_same_double(a, b) assert_true(same_double((a), (b)))

static void assert_same_string(const char *a, const char *b)
{
    if (!a || !b)
        assert_ptr_equal(a, b);
    else
        assert_string_equal(a, b);
}

static void assert_same_run(const culprit_run *a, const culprit_run *b, int samples)
{
    assert_same_string(a->id, b->id);
    assert_same_string(a->suite, b->suite);
    assert_same_string(a->commit, b->commit);
    assert_int_equal(a->dirty, b->dirty);
    assert_same_string(a->branch, b->branch);
    assert_same_string(a->timestamp, b->timestamp);
    assert_same_string(a->host, b->host);
    assert_same_string(a->machine, b->machine);
    assert_same_string(a->compiler, b->compiler);
    assert_same_string(a->flags, b->flags);
    assert_same_string(a->binary, b->binary);
    assert_int_equal(a->ntests, b->ntests);
    for (size_t i = 0; i < a->ntests; i++) {
        const culprit_test_result *x = &a->tests[i], *y = &b->tests[i];
        assert_same_string(x->name, y->name);
        assert_same_string(x->classname ? x->classname : a->suite, y->classname);
        assert_int_equal(x->status, y->status);
        assert_same_string(x->message, y->message);
        assert_same_string(x->category, y->category);
        assert_same_string(x->category_source, y->category_source);
        assert_same_double(x->category_low_ns, y->category_low_ns);
        assert_same_double(x->category_high_ns, y->category_high_ns);
        assert_same_string(x->verdict, y->verdict);
        assert_same_string(x->verdict_message, y->verdict_message);
        assert_same_string(x->metric, y->metric);
        assert_int_equal(x->batch, y->batch);
        assert_int_equal(x->warmup, y->warmup);
        assert_same_string(x->stop, y->stop);
        assert_same_double(x->timer_overhead_ns, y->timer_overhead_ns);
        assert_same_double(x->elapsed_s, y->elapsed_s);
        assert_memory_equal(&x->summary, &y->summary, sizeof(x->summary) - 0 * sizeof(double));
        assert_memory_equal(&x->judged, &y->judged, sizeof(x->judged));
        assert_same_double(x->outliers.q1, y->outliers.q1);
        assert_same_double(x->outliers.high_severe, y->outliers.high_severe);
        assert_int_equal(x->outliers.n_low_severe, y->outliers.n_low_severe);
        assert_int_equal(x->outliers.n_high_severe, y->outliers.n_high_severe);
        assert_int_equal(x->nseries, y->nseries);
        for (size_t k = 0; k < x->nseries; k++) {
            const culprit_series *s = &x->series[k], *t = &y->series[k];
            assert_string_equal(s->name, t->name);
            assert_int_equal(s->absent, t->absent);
            assert_int_equal(s->n, t->n);
            if (!samples || s->absent || s->n == 0) {
                assert_null(t->values);
                continue;
            }
            for (size_t v = 0; v < s->n; v++)
                assert_same_double(s->values[v], t->values[v]);
        }
    }
}

static void round_trip_keeps_every_field(void **state)
{
    culprit_run *run = make_run(), *back = NULL, *summaries = NULL;
    culprit_buf doc = CULPRIT_BUF_INIT;
    (void)state;

    /* The system-err text comes back with \r\n as \n (XML end-of-line handling). */
    assert_int_equal(culprit_history_format(&doc, run), 0);
    assert_int_equal(
        culprit_history_read_memory(&back, doc.ptr, doc.size, "mem", CULPRIT_HISTORY_LOAD_SAMPLES),
        0);
    assert_same_run(run, back, 1);
    assert_string_equal(back->tests[1].output, "stderr <b>bold</b> & ]]> end\r\nwindows line\n");
    assert_null(back->tests[0].output);
    assert_null(back->path);

    /* Summaries only: the same, without values (and through the sample-skipping path). */
    assert_int_equal(culprit_history_read_memory(&summaries, doc.ptr, doc.size, "mem", 0), 0);
    assert_same_run(run, summaries, 0);
    assert_int_equal(culprit_history_test_result_series(&summaries->tests[0], "wall_ns")->n,
                     sizeof(wall) / sizeof(wall[0]));
    assert_true(culprit_history_test_result_series(&summaries->tests[0], "l1d_misses")->absent);
    assert_non_null(culprit_history_run_find_test(summaries, "crashes"));
    assert_null(culprit_history_run_find_test(summaries, "nope"));

    culprit_history_run_free(run);
    culprit_history_run_free(back);
    culprit_history_run_free(summaries);
    culprit_buf_dispose(&doc);
}

static void load_test_fields_round_trip_and_stay_out_of_other_blocks(void **state)
{
    culprit_run *run = make_run(), *back = NULL;
    culprit_buf doc = CULPRIT_BUF_INIT;
    (void)state;

    /* No load test: no "load-" line (blocks of ordinary tests are unchanged). */
    assert_int_equal(culprit_history_format(&doc, run), 0);
    assert_null(strstr(doc.ptr, "load-"));
    culprit_buf_dispose(&doc);
    run->tests[0].load_calls = 1234567;
    run->tests[0].load_call_mean = 10000.5;
    run->tests[0].load_call_sd = 1.0 / 3.0;
    run->tests[0].load_call_min = 9000;
    run->tests[0].load_call_max = 25000.25;
    run->tests[0].load_warmup_intervals = 6;
    run->tests[0].load_interval_s = 0.5;
    assert_int_equal(culprit_history_format(&doc, run), 0);
    assert_non_null(strstr(doc.ptr, "load-calls 1234567\n"));
    assert_int_equal(culprit_history_read_memory(&back, doc.ptr, doc.size, "mem", 0), 0);
    const culprit_test_result *t = &back->tests[0];
    assert_int_equal(t->load_calls, 1234567);
    assert_true(t->load_call_mean == 10000.5 && t->load_call_sd == 1.0 / 3.0);
    assert_true(t->load_call_min == 9000 && t->load_call_max == 25000.25);
    assert_int_equal(t->load_warmup_intervals, 6);
    assert_true(t->load_interval_s == 0.5);
    assert_int_equal(back->tests[1].load_calls, 0);
    culprit_history_run_free(run);
    culprit_history_run_free(back);
    culprit_buf_dispose(&doc);
}

/* A body timed by CULPRIT_REGION: the wall figure covers the regions, CPU time the
 * whole body, and the line says which is which (issue 27); the mark survives the
 * history file and is absent from ordinary tests' blocks. */
static void region_tests_say_what_each_figure_covers(void **state)
{
    culprit_run *run = make_run(), *back = NULL;
    culprit_buf doc = CULPRIT_BUF_INIT, line = CULPRIT_BUF_INIT;
    (void)state;

    assert_int_equal(culprit_history_format(&doc, run), 0);
    assert_null(strstr(doc.ptr, "\nregion "));
    assert_int_equal(culprit_history_test_result_line(&line, &run->tests[0]), 0);
    assert_null(strstr(line.ptr, "whole body"));
    culprit_buf_dispose(&doc);
    culprit_buf_dispose(&line);
    run->tests[0].region = 1;
    assert_int_equal(culprit_history_format(&doc, run), 0);
    assert_non_null(strstr(doc.ptr, "\nregion 1\n"));
    assert_int_equal(culprit_history_read_memory(&back, doc.ptr, doc.size, "mem", 0), 0);
    assert_int_equal(back->tests[0].region, 1);
    assert_int_equal(back->tests[1].region, 0);
    assert_int_equal(culprit_history_test_result_line(&line, &run->tests[0]), 0);
    assert_non_null(strstr(line.ptr, ", regions timed, cpu "));
    assert_non_null(strstr(line.ptr, " (whole body))"));
    culprit_history_run_free(run);
    culprit_history_run_free(back);
    culprit_buf_dispose(&doc);
    culprit_buf_dispose(&line);
}

static void preempted_samples_round_trip_and_show_in_the_line(void **state)
{
    culprit_run *run = make_run(), *back = NULL;
    culprit_buf doc = CULPRIT_BUF_INIT, line = CULPRIT_BUF_INIT;
    (void)state;

    /* None preempted: no "preempted" line, nothing in the summary line. */
    assert_int_equal(culprit_history_format(&doc, run), 0);
    assert_null(strstr(doc.ptr, "preempted"));
    assert_int_equal(culprit_history_test_result_line(&line, &run->tests[0]), 0);
    assert_null(strstr(line.ptr, "preempted"));
    culprit_buf_dispose(&doc);
    culprit_buf_dispose(&line);
    run->tests[0].preempted = 17;
    assert_int_equal(culprit_history_format(&doc, run), 0);
    assert_non_null(strstr(doc.ptr, "preempted 17\npreempted-kept 0\n"));
    assert_int_equal(culprit_history_read_memory(&back, doc.ptr, doc.size, "mem", 0), 0);
    assert_int_equal(back->tests[0].preempted, 17);
    assert_int_equal(back->tests[0].preempted_kept, 0);
    assert_int_equal(back->tests[1].preempted, 0);
    assert_int_equal(culprit_history_test_result_line(&line, &run->tests[0]), 0);
    assert_non_null(strstr(line.ptr, ", 17 preempted left out)"));
    culprit_buf_dispose(&line);
    run->tests[0].preempted_kept = 1;
    assert_int_equal(culprit_history_test_result_line(&line, &run->tests[0]), 0);
    assert_non_null(strstr(line.ptr, ", 17 preempted kept)"));
    culprit_history_run_free(run);
    culprit_history_run_free(back);
    culprit_buf_dispose(&doc);
    culprit_buf_dispose(&line);
}

static void numbers_round_trip_bit_for_bit(void **state)
{
    char text[CULPRIT_HISTORY__NUMBER_MAX];
    uint64_t x = 88172645463325252ull;
    (void)state;

    for (int i = 0; i < 200000; i++) {
        double v, back = 0;
        /* xorshift bit patterns, then typical magnitudes: integers and x/2^k. */
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        if (i % 3 == 0)
            memcpy(&v, &x, sizeof(v));
        else if (i % 3 == 1)
            v = (double)(x % 100000000);
        else
            v = (double)(x % 10000000) / (double)(1u << (x % 11));
        size_t len = culprit_history__format_double(text, v);
        assert_int_equal(len, strlen(text));
        assert_int_equal(culprit_history__parse_double(&back, text, text + len), 0);
        if (!same_double(v, back))
            fail_msg("%.17g written as '%s' read back as %.17g", v, text, back);
    }
    assert_int_equal(culprit_history__format_double(text, 1200), 4);
    assert_string_equal(text, "1200");
    culprit_history__format_double(text, 1187.5);
    assert_string_equal(text, "1187.5");
    culprit_history__format_double(text, 0.0625);
    assert_string_equal(text, "0.0625");
    culprit_history__format_double(text, -INFINITY);
    assert_string_equal(text, "-inf");
    {
        double v;
        const char *bad[] = {"", "1x", "0x10", "infinity", " 1", "1 ", "--1", "nan(1)"};
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
            assert_int_equal(culprit_history__parse_double(&v, bad[i], bad[i] + strlen(bad[i])),
                             -1);
    }
}

/* Issue 23: the 16-19 digit numbers "%.17g" writes are read without strtod; each
 * must be strtod's double, bit for bit: written numbers of every magnitude, random
 * digit strings, and the ties (a decimal exactly halfway between two doubles, which
 * strtod rounds to even: n.5 above 2^52, n.25 and n.75 above 2^51, odd integers
 * above 2^53). */
static void long_decimals_read_as_strtod_reads_them(void **state)
{
    char text[64];
    uint64_t x = 0x9e3779b97f4a7c15ull;
    (void)state;

    for (int i = 0; i < 300000; i++) {
        double v, want, got = 0;
        uint64_t n;
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        n = x >> 11;
        switch (i % 6) {
        case 0: /* what the writer writes for a mean or a deviation */
            v = ldexp((double)n, -53) * pow(10, (double)(x % 19) - 6);
            snprintf(text, sizeof(text), "%.*g", 16 + (int)(x >> 61) % 4, v);
            break;
        case 1: /* 16 to 20 random digits, the point anywhere */
            snprintf(text, sizeof(text), "%llu%07llu", (unsigned long long)(x % 10000000000000ull),
                     (unsigned long long)((x >> 20) % 10000000));
            {
                size_t len = strlen(text), at = (size_t)(x >> 58) % (len + 1);
                memmove(text + at + 1, text + at, len - at + 1);
                text[at] = '.';
                if (at == len)
                    text[at] = '\0';
            }
            break;
        case 2:
            snprintf(text, sizeof(text), "%llu.5",
                     (unsigned long long)((1ull << 52) + n % (1ull << 52)));
            break;
        case 3:
            snprintf(text, sizeof(text), "%llu.%s",
                     (unsigned long long)((1ull << 51) + n % (1ull << 51)), x & 1 ? "25" : "75");
            break;
        case 4:
            snprintf(text, sizeof(text), "%s%llu", x & 2 ? "-" : "",
                     (unsigned long long)(((1ull << 53) + (x % (1ull << 62))) | 1));
            break;
        default:
            snprintf(text, sizeof(text), "%.17g", ldexp((double)n, (int)(x % 64) - 32));
            break;
        }
        want = strtod(text, NULL);
        if (culprit_history__parse_double(&got, text, text + strlen(text)) != 0 ||
            !same_double(want, got))
            fail_msg("'%s': strtod %.17g (%a), read %.17g (%a)", text, want, want, got, got);
    }
}

static void write_text(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    fclose(f);
}

static void copy_summary_copies_everything_but_the_series(void **state)
{
    culprit_run *run = make_run(), *copy = NULL;
    culprit_test_result *dst;
    const culprit_test_result *src = &run->tests[0];
    (void)state;
    assert_int_equal(culprit_history_run_new(&copy), 0);
    assert_int_equal(culprit_history_run_add_test(&dst, copy), 0);
    assert_int_equal(culprit_history_test_result_copy_summary(dst, src), 0);
    assert_string_equal(dst->name, src->name);
    assert_ptr_not_equal(dst->name, src->name); /* owned copies */
    assert_string_equal(dst->verdict_message, src->verdict_message);
    assert_string_equal(dst->category_source, src->category_source);
    assert_memory_equal(&dst->summary, &src->summary, sizeof(src->summary));
    assert_memory_equal(&dst->judged, &src->judged, sizeof(src->judged));
    assert_int_equal(dst->batch, src->batch);
    assert_int_equal(dst->nseries, 0);
    assert_null(dst->series);
    culprit_history_run_free(run); /* the copy does not depend on the original */
    assert_int_equal(dst->batch, 16);
    culprit_history_run_free(copy);
}

/* The report form (--junit, culprit junit): the mean of one repetition as time, the
 * runner's line first in <system-out>, failure bodies with figures; several runs in
 * one valid document; a one-run report still reads back as a history document. */
static void report_form_is_for_dashboards_and_still_readable(void **state)
{
    culprit_run *run = make_run(), *second = make_run(), *back = NULL;
    const culprit_run *runs[2] = {run, second};
    char *dir = test_tmpdir_new("report"), *path = culprit_fs_join(dir, "report.xml");
    culprit_buf text = CULPRIT_BUF_INIT;
    char cmd[1024];
    const char *p;
    int suites = 0;
    (void)state;

    culprit_str_set(&second->suite, "second");
    assert_int_equal(culprit_history_write_report(runs, 2, path, 0), 0);
    assert_int_equal(culprit_fs_read_file(&text, path), 0);
    /* 1193.75 ns per repetition, not the 0.123456789 s the test ran */
    assert_non_null(strstr(text.ptr,
                           "<testcase name=\"fib_30 &lt;fast&gt; &amp; &quot;friends&quot;\" "
                           "classname=\"suite-a\" time=\"0.000001194\""));
    assert_non_null(strstr(text.ptr, "<system-out>[  PERF  ] fib_30 &lt;fast&gt;"));
    assert_non_null(strstr(text.ptr,
                           "second line\ttab\ncommit 0123456789abcdef0123456789abcdef01234567 "
                           "(dirty) on feature/a&amp;b\n</failure>"));
    for (p = text.ptr; (p = strstr(p, "<testsuite ")); p++)
        suites++;
    assert_int_equal(suites, 2);
    if (access(SCHEMA, R_OK) == 0) {
        snprintf(cmd, sizeof(cmd), "xmllint --noout --schema '%s' '%s'", SCHEMA, path);
        assert_int_equal(system(cmd), 0);
    }
    assert_int_equal(culprit_history_write_report(runs, 1, path, 0), 0);
    if (culprit_history_read_file(&back, path, CULPRIT_HISTORY_LOAD_SAMPLES) < 0)
        fail_msg("%s", culprit_error_last());
    assert_int_equal(back->ntests, run->ntests);
    assert_int_equal(back->tests[0].summary.n, 12);
    assert_true(back->tests[0].elapsed_s == run->tests[0].elapsed_s);
    assert_int_equal(back->tests[0].series[0].n, sizeof(wall) / sizeof(wall[0]));
    culprit_history_run_free(back);
    culprit_history_run_free(run);
    culprit_history_run_free(second);
    culprit_buf_dispose(&text);
    free(path);
    test_tmpdir_remove(dir);
    free(dir);
}

static void written_file_validates_against_junit_schema(void **state)
{
    culprit_run *run = make_run();
    char *dir = test_tmpdir_new("history"), *path = culprit_fs_join(dir, "run.xml");
    char cmd[1024];
    (void)state;

    /* Control bytes and broken UTF-8 in captured output must not break the XML. */
    culprit_str_set(&run->tests[1].output, "esc \x1b[31mred\x1b[0m bad \xff\xfe end");
    assert_int_equal(culprit_history_write_file(run, path, 1), 0);
    assert_int_equal(culprit_history_write_file(run, path, 1), CULPRIT_EEXISTS);
    if (access(SCHEMA, R_OK) != 0) {
        print_message("schema %s missing: skipping the xmllint check\n", SCHEMA);
    } else {
        snprintf(cmd, sizeof(cmd), "xmllint --noout --schema '%s' '%s'", SCHEMA, path);
        assert_int_equal(system(cmd), 0);
    }
    {
        /* a failed test whose verdict is major is a major-regression failure for CI */
        culprit_buf text = CULPRIT_BUF_INIT;
        assert_int_equal(culprit_fs_read_file(&text, path), 0);
        assert_non_null(strstr(text.ptr, "<failure type=\"culprit.major-regression\""));
        culprit_buf_dispose(&text);
    }
    {
        culprit_run *back = NULL;
        assert_int_equal(culprit_history_read_file(&back, path, 0), 0);
        assert_string_equal(back->path, path);
        assert_string_equal(back->tests[1].output, "esc \\x1b[31mred\\x1b[0m bad \\xff\\xfe end");
        culprit_history_run_free(back);
    }
    culprit_history_run_free(run);
    assert_int_equal(test_tmpdir_remove(dir), 0);
    free(path);
    free(dir);
}

static void expect_invalid(const char *text, size_t len, unsigned int flags, const char *why)
{
    culprit_run *run = (culprit_run *)1;
    int error = culprit_history_read_memory(&run, text, len, "bad-file.xml", flags);

    if (error != CULPRIT_EINVALID)
        fail_msg("%s: expected CULPRIT_EINVALID, got %d (%s)", why, error, culprit_error_last());
    assert_null(run);
    if (!strstr(culprit_error_last(), "bad-file.xml"))
        fail_msg("%s: message does not name the file: %s", why, culprit_error_last());
}

static void replace_once(culprit_buf *doc, const char *from, const char *to)
{
    char *at = strstr(doc->ptr, from);
    culprit_buf out = CULPRIT_BUF_INIT;
    assert_non_null(at);
    culprit_buf_put(&out, doc->ptr, (size_t)(at - doc->ptr));
    culprit_buf_puts(&out, to);
    culprit_buf_puts(&out, at + strlen(from));
    culprit_buf_dispose(doc);
    *doc = out;
}

/* A copy of `doc` with one edit must be refused with a message that mentions `what`. */
static void expect_invalid_edit(const culprit_buf *doc, const char *from, const char *to,
                                unsigned int flags, const char *what)
{
    culprit_buf bad = CULPRIT_BUF_INIT;

    culprit_buf_put(&bad, doc->ptr, doc->size);
    replace_once(&bad, from, to);
    expect_invalid(bad.ptr, bad.size, flags, what);
    if (!strstr(culprit_error_last(), what))
        fail_msg("'%s' -> '%s': message does not say '%s': %s", from, to, what,
                 culprit_error_last());
    culprit_buf_dispose(&bad);
}

/* A samples length that jumps over the next test's markup to its </system-out> made
 * that test vanish from summaries-only reads and not from full ones: both refuse it. */
static void a_lying_samples_length_is_refused_by_both_reads(void **state)
{
    culprit_run *run = make_run();
    culprit_buf doc = CULPRIT_BUF_INIT, bad = CULPRIT_BUF_INIT;
    char from[64], to[64];
    const char *samples, *nl, *second_close;
    (void)state;

    assert_int_equal(culprit_history_format(&doc, run), 0);
    assert_non_null(samples = strstr(doc.ptr, "\nsamples "));
    nl = strchr(samples + 1, '\n');
    second_close = strstr(strstr(nl, "</system-out>") + 1, "</system-out>");
    assert_non_null(second_close);
    snprintf(from, sizeof(from), "%.*s", (int)(nl - samples), samples);
    snprintf(to, sizeof(to), "\nsamples %zu", (size_t)(second_close - (nl + 1)));
    culprit_buf_put(&bad, doc.ptr, doc.size);
    replace_once(&bad, from, to);
    expect_invalid(bad.ptr, bad.size, CULPRIT_HISTORY_LOAD_SAMPLES, "lying length, full read");
    expect_invalid(bad.ptr, bad.size, 0, "lying length, summaries only");
    culprit_buf_dispose(&bad);
    culprit_buf_dispose(&doc);
    culprit_history_run_free(run);
}

static void corrupt_and_foreign_files_are_invalid(void **state)
{
    culprit_run *run = make_run();
    culprit_buf doc = CULPRIT_BUF_INIT;
    (void)state;

    assert_int_equal(culprit_history_format(&doc, run), 0);
    for (size_t cut = 1; cut < doc.size; cut += doc.size / 37 + 1) {
        expect_invalid(doc.ptr, cut, 0, "truncated");
        expect_invalid(doc.ptr, cut, CULPRIT_HISTORY_LOAD_SAMPLES, "truncated, samples");
    }
    expect_invalid("", 0, 0, "empty");
    expect_invalid("\x89PNG garbage \x00\x01", 15, 0, "garbage");
    expect_invalid("<html><body>hi</body></html>", 28, 0, "html");
    {
        const char *foreign = "<?xml version=\"1.0\"?>\n<testsuites><testsuite name=\"pytest\" "
                              "tests=\"1\" failures=\"0\" errors=\"0\"><testcase name=\"t\" "
                              "classname=\"c\" time=\"0.1\"/></testsuite></testsuites>\n";
        expect_invalid(foreign, strlen(foreign), 0, "foreign junit");
        assert_non_null(strstr(culprit_error_last(), "culprit.format"));
    }
    {
        char secret[] = "/tmp/culprit-secret-XXXXXX", xxe[1024];
        int fd = mkstemp(secret);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, "TOPSECRET", 9), 9);
        close(fd);
        snprintf(xxe, sizeof(xxe),
                 "<?xml version=\"1.0\"?>\n<!DOCTYPE testsuites [<!ENTITY xxe SYSTEM "
                 "\"file://%s\">]>\n<testsuites><testsuite name=\"&xxe;\" tests=\"0\" "
                 "failures=\"0\" errors=\"0\"><properties><property name=\"culprit.format\" "
                 "value=\"1\"/></properties></testsuite></testsuites>\n",
                 secret);
        expect_invalid(xxe, strlen(xxe), 0, "xxe");
        assert_null(strstr(culprit_error_last(), "TOPSECRET"));
        assert_non_null(strstr(culprit_error_last(), "DOCTYPE"));
        unlink(secret);
    }

    expect_invalid_edit(&doc, "value=\"1\"", "value=\"2\"", 0, "version");
    expect_invalid_edit(&doc, "name=\"culprit.format\"", "name=\"other.format\"", 0,
                        "culprit.format");
    expect_invalid_edit(&doc, "summary-mean 1193.75", "summary-mean 11x3.75", 0, "summary-mean");
    expect_invalid_edit(&doc, "summary-n 12", "summary-n 18446744073709551615", 0, "summary-n");
    expect_invalid_edit(&doc, "cpu_ns 10 20 30", "cpu_ns 10 2# 30", CULPRIT_HISTORY_LOAD_SAMPLES,
                        "malformed sample value");
    expect_invalid_edit(&doc, "cpu_ns 10 20 30", "cpu_ns 10 20", CULPRIT_HISTORY_LOAD_SAMPLES,
                        "fewer values");
    expect_invalid_edit(&doc, "culprit-result 1", "culprit-result 9", 0, "block version");

    culprit_history_run_free(run);
    culprit_buf_dispose(&doc);
}

static void reader_without_skip_shape_still_reads(void **state)
{
    culprit_run *run = make_run(), *back = NULL;
    culprit_buf doc = CULPRIT_BUF_INIT;
    (void)state;

    /* A tool that re-encodes the text (here: a CDATA section) defeats the fast path only. */
    assert_int_equal(culprit_history_format(&doc, run), 0);
    replace_once(&doc, "cpu_ns 10 20 30", "<![CDATA[cpu_ns 10 20 30]]>");
    assert_int_equal(culprit_history_read_memory(&back, doc.ptr, doc.size, "cdata", 0), 0);
    assert_same_run(run, back, 0);
    culprit_history_run_free(back);
    assert_int_equal(culprit_history_read_memory(&back, doc.ptr, doc.size, "cdata",
                                                 CULPRIT_HISTORY_LOAD_SAMPLES),
                     0);
    assert_same_run(run, back, 1);
    culprit_history_run_free(back);
    culprit_history_run_free(run);
    culprit_buf_dispose(&doc);
}

static size_t count_files(const char *dir, const char *suffix)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t n = 0;
    assert_non_null(d);
    while ((e = readdir(d)))
        if (e->d_name[0] != '.' && strstr(e->d_name, suffix))
            n++;
    closedir(d);
    return n;
}

static void store_never_overwrites(void **state)
{
    char *base = test_tmpdir_new("history"), *dir = culprit_fs_join(base, "a/b/history");
    culprit_history *history = NULL;
    culprit_run *run = make_run();
    char *p1 = NULL, *p2 = NULL, *p3 = NULL;
    (void)state;

    assert_int_equal(culprit_history_open(&history, dir, 0), CULPRIT_ENOTFOUND);
    assert_non_null(strstr(culprit_error_last(), dir));
    assert_int_equal(culprit_history_open(&history, dir, 1), 0);
    assert_string_equal(culprit_history_dir(history), dir);

    /* With an id, the id is the file name, and a second store refuses to replace it. */
    assert_int_equal(culprit_history_store(history, run, &p1), 0);
    assert_non_null(strstr(p1, "20261122T130500Z_0123456789ab_host_1_beef.xml"));
    assert_int_equal(culprit_history_store(history, run, NULL), CULPRIT_EEXISTS);

    /* Without an id, every store is a new file, its stem recorded as the run id. */
    culprit_str_set(&run->id, NULL);
    assert_int_equal(culprit_history_store(history, run, &p2), 0);
    assert_int_equal(culprit_history_store(history, run, &p3), 0);
    assert_string_not_equal(p2, p3);
    assert_non_null(strstr(p2, "/20261122T130500Z_0123456789ab_build-01_"));
    assert_int_equal(count_files(dir, ".xml"), 3);
    assert_int_equal(count_files(dir, ".tmp"), 0);
    {
        culprit_run *back = NULL;
        const char *slash = strrchr(p2, '/') + 1;
        assert_int_equal(culprit_history_read_file(&back, p2, 0), 0);
        assert_memory_equal(back->id, slash, strlen(back->id));
        assert_string_equal(slash + strlen(back->id), ".xml");
        culprit_history_run_free(back);
    }

    if (geteuid() != 0) {
        culprit_history *ro = NULL;
        char *locked = culprit_fs_join(base, "locked");
        assert_int_equal(mkdir(locked, 0555), 0);
        assert_true(culprit_history_open(&ro, locked, 1) < 0);
        assert_non_null(strstr(culprit_error_last(), locked));
        char *below = culprit_fs_join(locked, "sub");
        assert_true(culprit_history_open(&ro, below, 1) < 0);
        assert_non_null(strstr(culprit_error_last(), below));
        rmdir(locked);
        free(locked);
        free(below);
    }

    culprit_history_free(history);
    culprit_history_free(NULL);
    culprit_history_run_free(run);
    free(p1), free(p2), free(p3);
    assert_int_equal(test_tmpdir_remove(base), 0);
    free(dir);
    free(base);
}

typedef struct {
    int count;
    char last[1024];
} warnings;

static void collect_warning(const char *path, const char *message, void *payload)
{
    warnings *w = payload;
    w->count++;
    snprintf(w->last, sizeof(w->last), "%s: %s", path, message);
}

/* The sanitized build (ASan) runs the race below fewer times: there each fork and
 * each exit of a writer costs tens of milliseconds of CPU time, and what it checks is
 * the writers' memory; the main build's 20 trials check the race. */
#if defined(__SANITIZE_ADDRESS__)
#define CONCURRENT_TRIALS 4
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CONCURRENT_TRIALS 4
#endif
#endif
#ifndef CONCURRENT_TRIALS
#define CONCURRENT_TRIALS 20
#endif

/* 8 processes storing runs into one store at once, as 8 test binaries or CI jobs
 * finishing together do; 20 times (4 under ASan, above). Every run must be kept, each
 * whole and under a name of its own, and no temporary file left behind (issue 16's
 * goal). */
static void eight_concurrent_writers_keep_every_run(void **state)
{
    enum { WRITERS = 8, RUNS = 5, TRIALS = CONCURRENT_TRIALS };
    char *base = test_tmpdir_new("concurrent");
    (void)state;

    for (int trial = 0; trial < TRIALS; trial++) {
        char sub[32];
        snprintf(sub, sizeof(sub), "trial%02d", trial);
        char *dir = culprit_fs_join(base, sub);
        pid_t pids[WRITERS];
        for (int w = 0; w < WRITERS; w++) {
            assert_true((pids[w] = fork()) >= 0);
            if (pids[w] == 0) {
                culprit_history *history = NULL;
                culprit_run *run = make_run();
                int failed = culprit_history_open(&history, dir, 1) < 0;
                culprit_str_set(&run->id, NULL); /* every store names a new file */
                for (int r = 0; r < RUNS && !failed; r++)
                    failed = culprit_history_store(history, run, NULL) < 0;
                culprit_history_free(history);
                culprit_history_run_free(run);
                _exit(failed);
            }
        }
        for (int w = 0; w < WRITERS; w++) {
            int status;
            assert_int_equal(waitpid(pids[w], &status, 0), pids[w]);
            assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        }
        culprit_history *history = NULL;
        culprit_history_runs runs;
        warnings w = {0};
        assert_int_equal(culprit_history_open(&history, dir, 0), 0);
        assert_int_equal(culprit_history_load(&runs, history, NULL, collect_warning, &w), 0);
        assert_int_equal(runs.nruns, WRITERS * RUNS);
        assert_int_equal(runs.nskipped, 0);
        assert_int_equal(w.count, 0);
        for (size_t i = 1; i < runs.nruns; i++)
            for (size_t j = 0; j < i; j++)
                assert_string_not_equal(runs.runs[i]->id, runs.runs[j]->id);
        culprit_history_runs_dispose(&runs);
        culprit_history_free(history);
        assert_int_equal(count_files(dir, ".xml"), WRITERS * RUNS);
        assert_int_equal(count_files(dir, ".tmp"), 0);
        free(dir);
    }
    assert_int_equal(test_tmpdir_remove(base), 0);
    free(base);
}

static void store_run(culprit_history *history, const char *suite, const char *commit,
                      const char *timestamp, const char *test)
{
    culprit_run *run = make_run();
    culprit_str_set(&run->id, NULL);
    culprit_str_set(&run->suite, suite);
    culprit_str_set(&run->commit, commit);
    culprit_str_set(&run->timestamp, timestamp);
    culprit_str_set(&run->tests[3].name, test);
    assert_int_equal(culprit_history_store(history, run, NULL), 0);
    culprit_history_run_free(run);
}

static void load_skips_corrupt_files_and_filters(void **state)
{
    char *dir = test_tmpdir_new("history"), *corrupt = culprit_fs_join(dir, "0000-corrupt.xml");
    char *other = culprit_fs_join(dir, "notes.txt"), *tmp = culprit_fs_join(dir, "x.xml.tmp.abc");
    culprit_history *history = NULL;
    culprit_history_runs runs;
    culprit_history_query query = {0};
    warnings w = {0};
    struct stat st;
    (void)state;

    assert_int_equal(culprit_history_open(&history, dir, 1), 0);
    store_run(history, "alpha", "aaaa000000000000000000000000000000000000", "2026-01-03T00:00:00Z",
              "only_in_a");
    store_run(history, "alpha", "bbbb000000000000000000000000000000000000", "2026-01-01T00:00:00Z",
              "only_in_b");
    store_run(history, "beta", "aaaa111100000000000000000000000000000000", "2026-01-02T00:00:00Z",
              "only_in_c");
    write_text(corrupt, "<testsuites><testsuite", 22);
    write_text(other, "not history", 11);
    write_text(tmp, "<half", 5);
    /* A FIFO in the store made every reader wait for a writer forever. */
    char *fifo = culprit_fs_join(dir, "0001-fifo.xml");
    assert_int_equal(mkfifo(fifo, 0600), 0);

    assert_int_equal(culprit_history_load(&runs, history, NULL, collect_warning, &w), 0);
    assert_int_equal(runs.nruns, 3);
    assert_int_equal(runs.nskipped, 2);
    assert_int_equal(w.count, 2);
    assert_int_equal(unlink(fifo), 0);
    free(fifo);
    assert_non_null(strstr(w.last, "0001-fifo.xml"));
    assert_non_null(strstr(w.last, "not a regular file"));
    assert_int_equal(stat(corrupt, &st), 0); /* reported, never deleted */
    assert_string_equal(runs.runs[0]->timestamp, "2026-01-01T00:00:00Z");
    assert_string_equal(runs.runs[1]->timestamp, "2026-01-02T00:00:00Z");
    assert_string_equal(runs.runs[2]->timestamp, "2026-01-03T00:00:00Z");
    assert_null(runs.runs[0]->tests[0].series[0].values);
    culprit_history_runs_dispose(&runs);

    query.commit = "aaaa";
    assert_int_equal(culprit_history_load(&runs, history, &query, collect_warning, &w), 0);
    assert_int_equal(runs.nruns, 2);
    assert_string_equal(runs.runs[0]->suite, "beta");
    assert_string_equal(runs.runs[1]->suite, "alpha");
    culprit_history_runs_dispose(&runs);

    query.suite = "alpha";
    query.flags = CULPRIT_HISTORY_LOAD_SAMPLES;
    assert_int_equal(culprit_history_load(&runs, history, &query, collect_warning, &w), 0);
    assert_int_equal(runs.nruns, 1);
    assert_string_equal(runs.runs[0]->commit, "aaaa000000000000000000000000000000000000");
    assert_non_null(runs.runs[0]->tests[0].series[0].values);
    culprit_history_runs_dispose(&runs);

    /* A test filter keeps that test only, and drops runs without it. */
    memset(&query, 0, sizeof(query));
    query.test = "only_in_b";
    assert_int_equal(culprit_history_load(&runs, history, &query, collect_warning, &w), 0);
    assert_int_equal(runs.nruns, 1);
    assert_int_equal(runs.runs[0]->ntests, 1);
    assert_string_equal(runs.runs[0]->tests[0].name, "only_in_b");
    culprit_history_runs_dispose(&runs);
    query.test = "fib_30 <fast> & \"friends\"";
    assert_int_equal(culprit_history_load(&runs, history, &query, collect_warning, &w), 0);
    assert_int_equal(runs.nruns, 3);
    assert_int_equal(runs.runs[2]->ntests, 1);
    culprit_history_runs_dispose(&runs);
    culprit_history_runs_dispose(NULL);

    culprit_history_free(history);
    assert_int_equal(test_tmpdir_remove(dir), 0);
    free(corrupt), free(other), free(tmp), free(dir);
}

static void append_warning(const char *path, const char *message, void *payload)
{
    culprit_buf *all = payload;
    culprit_buf_printf(all, "%s: %s\n", path, message);
}

/* One load of `history` with CULPRIT_THREADS=`threads`: its run ids in order, then its
 * warnings in order, into `out`. */
static void load_with_threads(culprit_buf *out, culprit_history *history, const char *threads)
{
    culprit_history_runs runs;

    setenv("CULPRIT_THREADS", threads, 1);
    assert_int_equal(culprit_history_load(&runs, history, NULL, append_warning, out), 0);
    unsetenv("CULPRIT_THREADS");
    culprit_buf_printf(out, "%zu runs, %zu skipped\n", runs.nruns, runs.nskipped);
    for (size_t i = 0; i < runs.nruns; i++)
        culprit_buf_printf(out, "%s %zu\n", runs.runs[i]->id, runs.runs[i]->ntests);
    culprit_history_runs_dispose(&runs);
}

/* The files of a load are read on several threads: the runs, the warnings and their
 * order are those of a read one by one (the warnings in the files' name order, on the
 * calling thread); a bad CULPRIT_THREADS is an error naming it. */
static void load_on_several_threads_is_a_load_one_by_one(void **state)
{
    char *dir = test_tmpdir_new("threads");
    culprit_history *history = NULL;
    culprit_history_runs runs;
    culprit_buf one = CULPRIT_BUF_INIT, four = CULPRIT_BUF_INIT;
    (void)state;

    assert_int_equal(culprit_history_open(&history, dir, 1), 0);
    for (int i = 0; i < 60; i++) {
        char commit[41], stamp[32], test[16];
        snprintf(commit, sizeof(commit), "%040x", i * 7919);
        snprintf(stamp, sizeof(stamp), "2026-01-%02dT%02d:00:00Z", 1 + i % 28, i % 24);
        snprintf(test, sizeof(test), "t%d", i);
        store_run(history, i % 3 ? "alpha" : "beta", commit, stamp, test);
        if (i % 9 == 0) { /* a corrupt file between the runs, each wrong its own way */
            char name[64], *path;
            snprintf(name, sizeof(name), "2026%02d-corrupt.xml", i);
            path = culprit_fs_join(dir, name);
            write_text(path, "<testsuites><testsuite name=\"x\">", 20 + (size_t)i % 10);
            free(path);
        }
    }
    load_with_threads(&one, history, "1");
    load_with_threads(&four, history, "4");
    assert_non_null(strstr(culprit_buf_cstr(&one), "60 runs, 7 skipped"));
    assert_string_equal(culprit_buf_cstr(&four), culprit_buf_cstr(&one));

    setenv("CULPRIT_THREADS", "many", 1);
    assert_int_equal(culprit_history_load(&runs, history, NULL, append_warning, &one),
                     CULPRIT_EINVALID);
    unsetenv("CULPRIT_THREADS");
    assert_non_null(strstr(culprit_error_last(), "CULPRIT_THREADS='many'"));
    assert_int_equal(runs.nruns, 0);

    culprit_buf_dispose(&one);
    culprit_buf_dispose(&four);
    culprit_history_free(history);
    assert_int_equal(test_tmpdir_remove(dir), 0);
    free(dir);
}

/* culprit could not read back a file of its own over 10 MB (libxml2's limits on one
 * chunk of input): a run of one test with 3 million samples of each of two series
 * (about 50 MB) and a run of 20,000 tests must both read back, whole and summaries
 * only. */
/* The shared history beside the directory: runs added from memory, a run that both
 * sources hold (same id) kept once, the directory's copy first; a corrupt file
 * warned about and skipped; the query's filters applied; the order by time. */
static void a_second_source_is_deduplicated_by_run_id(void **state)
{
    culprit_run *a = make_run(), *b = make_run();
    culprit_history_runs runs = {0, NULL, 0};
    culprit_history_query query = {0};
    culprit_buf doc_a = CULPRIT_BUF_INIT, doc_b = CULPRIT_BUF_INIT;
    warnings w = {0};
    (void)state;

    culprit_str_set(&b->id, "20261121T000000Z_0123456789ab_other_2_cafe");
    culprit_str_set(&b->timestamp, "2026-11-21T00:00:00Z");
    assert_int_equal(culprit_history_format(&doc_a, a), 0);
    assert_int_equal(culprit_history_format(&doc_b, b), 0);
    assert_int_equal(culprit_history__runs_add_memory(&runs, doc_a.ptr, doc_a.size, "a", NULL,
                                                      collect_warning, &w),
                     0);
    culprit_str_set(&runs.runs[0]->host, "loaded first");
    assert_int_equal(culprit_history__runs_add_memory(&runs, doc_b.ptr, doc_b.size, "b", NULL,
                                                      collect_warning, &w),
                     0);
    assert_int_equal(culprit_history__runs_add_memory(&runs, doc_a.ptr, doc_a.size, "a again", NULL,
                                                      collect_warning, &w),
                     0);
    assert_int_equal(culprit_history__runs_add_memory(&runs, "<testsuites>", 12, "ref:bad.xml",
                                                      NULL, collect_warning, &w),
                     0);
    assert_int_equal(w.count, 1);
    assert_non_null(strstr(w.last, "ref:bad.xml"));
    assert_int_equal(runs.nskipped, 1);
    assert_int_equal(runs.nruns, 3);
    assert_int_equal(culprit_history__runs_finish(&runs), 0);
    assert_int_equal(runs.nruns, 2);
    assert_string_equal(runs.runs[0]->id, b->id); /* older first */
    assert_string_equal(runs.runs[1]->id, a->id);
    assert_string_equal(runs.runs[1]->host, "loaded first");
    culprit_history_runs_dispose(&runs);

    /* Filters as for the directory: another commit is not added at all. */
    query.commit = "ffff";
    assert_int_equal(culprit_history__runs_add_memory(&runs, doc_a.ptr, doc_a.size, "a", &query,
                                                      collect_warning, &w),
                     0);
    assert_int_equal(runs.nruns, 0);
    culprit_history_runs_dispose(&runs);
    culprit_buf_dispose(&doc_a);
    culprit_buf_dispose(&doc_b);
    culprit_history_run_free(a);
    culprit_history_run_free(b);
}

static void files_of_any_size_read_back(void **state)
{
    char *dir = test_tmpdir_new("huge"), *path = culprit_fs_join(dir, "huge.xml");
    culprit_run *run = make_run(), *back = NULL, *wide = NULL;
    culprit_buf doc = CULPRIT_BUF_INIT;
    size_t n = 3000000;
    double *x = malloc(n * sizeof(*x));
    struct stat st;
    (void)state;

    assert_non_null(x);
    for (size_t i = 0; i < n; i++)
        x[i] = 1000.0 + (double)(i % 977) * 0.1; /* no binary fraction: text, not packed */
    culprit_test_result *t = &run->tests[0];
    for (size_t i = 0; i < t->nseries; i++)
        free(t->series[i].name), free(t->series[i].values);
    t->nseries = 0;
    assert_int_equal(culprit_history_test_result_add_series(t, "wall_ns", x, n, 0), 0);
    assert_int_equal(culprit_history_test_result_add_series(t, "cpu_ns", x, n, 0), 0);
    assert_int_equal(culprit_history_write_file(run, path, 0), 0);
    assert_int_equal(stat(path, &st), 0);
    assert_true(st.st_size > 40 * 1000 * 1000);
    if (culprit_history_read_file(&back, path, CULPRIT_HISTORY_LOAD_SAMPLES) < 0)
        fail_msg("%s", culprit_error_last());
    assert_int_equal(culprit_history_test_result_series(&back->tests[0], "cpu_ns")->n, n);
    assert_true(culprit_history_test_result_series(&back->tests[0], "cpu_ns")->values[n - 1] ==
                x[n - 1]);
    culprit_history_run_free(back);
    assert_int_equal(culprit_history_read_file(&back, path, 0), 0);
    assert_int_equal(culprit_history_test_result_series(&back->tests[0], "wall_ns")->n, n);
    culprit_history_run_free(back);

    assert_int_equal(culprit_history_run_new(&wide), 0);
    culprit_str_set(&wide->suite, "wide");
    culprit_str_set(&wide->commit, "0123456789abcdef0123456789abcdef01234567");
    culprit_str_set(&wide->timestamp, "2026-11-22T13:05:00Z");
    for (size_t i = 0; i < 20000; i++) {
        char name[32];
        assert_int_equal(culprit_history_run_add_test(&t, wide), 0);
        snprintf(name, sizeof(name), "test_%05zu", i);
        culprit_str_set(&t->name, name);
        t->status = CULPRIT_STATUS_PASS;
        assert_int_equal(culprit_history_test_result_add_series(t, "wall_ns", x, 100, 0), 0);
    }
    assert_int_equal(culprit_history_format(&doc, wide), 0);
    assert_true(doc.size > 10 * 1000 * 1000);
    assert_int_equal(culprit_history_read_memory(&back, doc.ptr, doc.size, "wide", 0), 0);
    assert_int_equal(back->ntests, 20000);
    culprit_history_run_free(back);

    assert_int_equal(test_tmpdir_remove(dir), 0);
    culprit_buf_dispose(&doc);
    culprit_history_run_free(wide);
    culprit_history_run_free(run);
    free(x);
    free(path);
    free(dir);
}

/* A test's series read from a file (one array reserved for them all) take more
 * series afterwards as one built series by series does: for 1 to 17 series read,
 * 20 more added, every name and length where it was put. */
static void series_read_at_once_still_grow(void **state)
{
    culprit_run *run = NULL, *back = NULL;
    culprit_test_result *t;
    culprit_buf doc = CULPRIT_BUF_INIT;
    double v[3] = {1, 2, 3};
    char name[32];
    (void)state;

    for (size_t n = 1; n <= 17; n++) {
        assert_int_equal(culprit_history_run_new(&run), 0);
        culprit_str_set(&run->suite, "s");
        culprit_str_set(&run->commit, "0123456789abcdef0123456789abcdef01234567");
        culprit_str_set(&run->timestamp, "2026-11-22T13:05:00Z");
        assert_int_equal(culprit_history_run_add_test(&t, run), 0);
        culprit_str_set(&t->name, "t");
        t->status = CULPRIT_STATUS_PASS;
        for (size_t k = 0; k < n; k++) {
            snprintf(name, sizeof(name), "s%zu", k);
            assert_int_equal(culprit_history_test_result_add_series(t, name, v, 3, k == 1), 0);
        }
        culprit_buf_clear(&doc);
        assert_int_equal(culprit_history_format(&doc, run), 0);
        assert_int_equal(culprit_history_read_memory(&back, doc.ptr, doc.size, "m", 0), 0);
        t = &back->tests[0];
        assert_int_equal(t->nseries, n);
        for (size_t k = n; k < n + 20; k++) {
            snprintf(name, sizeof(name), "s%zu", k);
            assert_int_equal(culprit_history_test_result_add_series(t, name, v, 3, 0), 0);
        }
        assert_int_equal(t->nseries, n + 20);
        for (size_t k = 0; k < n + 20; k++) {
            snprintf(name, sizeof(name), "s%zu", k);
            assert_string_equal(t->series[k].name, name);
            assert_int_equal(t->series[k].n, k == 1 && k < n ? 0 : 3);
            assert_int_equal(t->series[k].absent, k == 1 && k < n);
        }
        culprit_history_run_free(back);
        culprit_history_run_free(run);
    }
    culprit_buf_dispose(&doc);
}

/* culprit_history_run_find_test() indexes a run of many tests: the first of two tests of
 * one name is found, as a scan finds it; tests added after a search are found. */
/* A run of n tests named "t<i % names>", test i with elapsed_s i. */
static culprit_run *run_of_tests(size_t n, size_t names)
{
    culprit_run *run = NULL;
    culprit_test_result *t;
    char name[32];

    assert_int_equal(culprit_history_run_new(&run), 0);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(culprit_history_run_add_test(&t, run), 0);
        snprintf(name, sizeof(name), "t%zu", i % names);
        culprit_str_set(&t->name, name);
        t->elapsed_s = (double)i;
    }
    return run;
}

static void find_test_is_indexed_and_follows_added_tests(void **state)
{
    culprit_run *run = run_of_tests(100, 50); /* each name twice */
    culprit_test_result *t;
    char name[32];
    (void)state;

    assert_int_equal(culprit_history_run_add_test(&t, run), 0); /* a test without a name */
    for (size_t i = 0; i < 50; i++) {
        snprintf(name, sizeof(name), "t%zu", i);
        assert_non_null(t = (culprit_test_result *)culprit_history_run_find_test(run, name));
        assert_true(t->elapsed_s == (double)i);
    }
    assert_null(culprit_history_run_find_test(run, "t50"));
    assert_null(culprit_history_run_find_test(run, ""));
    for (size_t i = 0; i < 200; i++) { /* the tests array moves as it grows */
        assert_int_equal(culprit_history_run_add_test(&t, run), 0);
        snprintf(name, sizeof(name), "late%zu", i);
        culprit_str_set(&t->name, name);
        assert_ptr_equal(culprit_history_run_find_test(run, name), t);
    }
    assert_true(culprit_history_run_find_test(run, "t3")->elapsed_s == 3.0);
    culprit_history_run_free(run);
}

/* Issue 23: the search tries the test after the last one found first (callers walk
 * tests in the order runs hold them); what it finds is what the index finds: in order,
 * out of order, and with a second test of a name just after the last one found. */
static void find_test_tries_the_next_test_first(void **state)
{
    culprit_run *run = run_of_tests(40, 40);
    culprit_test_result *t;
    char name[32];
    (void)state;

    for (size_t i = 0; i < 40; i++) { /* in order, then backwards */
        snprintf(name, sizeof(name), "t%zu", i);
        assert_ptr_equal(culprit_history_run_find_test(run, name), &run->tests[i]);
        snprintf(name, sizeof(name), "t%zu", 39 - i);
        assert_ptr_equal(culprit_history_run_find_test(run, name), &run->tests[39 - i]);
    }
    assert_null(culprit_history_run_find_test(run, "t40"));
    assert_int_equal(culprit_history_run_add_test(&t, run), 0); /* a second t3, at 40 */
    culprit_str_set(&t->name, "t3");
    assert_ptr_equal(culprit_history_run_find_test(run, "t39"), &run->tests[39]);
    assert_ptr_equal(culprit_history_run_find_test(run, "t3"), &run->tests[3]);
    assert_ptr_equal(culprit_history_run_find_test(run, "t3"), &run->tests[3]);
    culprit_history_run_free(run);
}

/* Summaries-only reading skips the samples but pushes everything else to the parser:
 * short pieces gathered, a long one (a failed test's 2 MB output) between them. */
static void summaries_only_read_keeps_long_text_between_blocks(void **state)
{
    culprit_run *run = make_run(), *whole = NULL, *summaries = NULL;
    culprit_buf doc = CULPRIT_BUF_INIT, big = CULPRIT_BUF_INIT;
    culprit_test_result *t;
    (void)state;

    for (size_t i = 0; i < 3 * 1024 * 1024 / 64; i++)
        culprit_buf_printf(&big, "line %06zu of a long output, written by a failed test.....\n", i);
    t = &run->tests[1];
    assert_int_equal(culprit_str_set(&t->output, big.ptr), 0);
    t = &run->tests[2]; /* samples after the long text too */
    assert_int_equal(culprit_history_test_result_add_series(t, "wall_ns", wall,
                                                            sizeof(wall) / sizeof(wall[0]), 0),
                     0);
    assert_int_equal(culprit_history_format(&doc, run), 0);
    assert_int_equal(
        culprit_history_read_memory(&whole, doc.ptr, doc.size, "mem", CULPRIT_HISTORY_LOAD_SAMPLES),
        0);
    assert_int_equal(culprit_history_read_memory(&summaries, doc.ptr, doc.size, "mem", 0), 0);
    assert_same_run(whole, summaries, 0);
    assert_string_equal(summaries->tests[1].output, big.ptr);
    culprit_history_run_free(run);
    culprit_history_run_free(whole);
    culprit_history_run_free(summaries);
    culprit_buf_dispose(&doc);
    culprit_buf_dispose(&big);
}

/* Issue 23: a time verdict reads no series, so CULPRIT_HISTORY_LOAD_NO_SERIES leaves
 * them out (a third less memory per test read): every other field is as a summaries-only
 * read has it, a malformed series line is still refused, and with the samples asked
 * for the flag is ignored. */
static void no_series_read_keeps_every_summary(void **state)
{
    culprit_run *run = make_run(), *summaries = NULL, *bare = NULL, *whole = NULL;
    culprit_buf doc = CULPRIT_BUF_INIT;
    (void)state;

    assert_int_equal(culprit_history_format(&doc, run), 0);
    assert_int_equal(culprit_history_read_memory(&summaries, doc.ptr, doc.size, "mem", 0), 0);
    assert_int_equal(culprit_history_read_memory(&bare, doc.ptr, doc.size, "mem",
                                                 CULPRIT_HISTORY_LOAD_NO_SERIES),
                     0);
    assert_int_equal(summaries->tests[0].nseries, 4);
    /* The skip counted the blocks: the tests' array was allocated once, of their number. */
    assert_int_equal(summaries->atests, summaries->ntests);
    for (size_t i = 0; i < bare->ntests; i++) {
        assert_int_equal(bare->tests[i].nseries, 0);
        assert_null(bare->tests[i].series);
    }
    for (size_t i = 0; i < summaries->ntests; i++) { /* all but the series: the same */
        culprit_test_result *t = &summaries->tests[i];
        for (size_t k = 0; k < t->nseries; k++)
            free(t->series[k].name);
        free(t->series);
        t->series = NULL;
        t->nseries = 0;
    }
    assert_same_run(summaries, bare, 0);
    assert_int_equal(
        culprit_history_read_memory(&whole, doc.ptr, doc.size, "mem",
                                    CULPRIT_HISTORY_LOAD_SAMPLES | CULPRIT_HISTORY_LOAD_NO_SERIES),
        0);
    assert_same_run(run, whole, 1);
    expect_invalid_edit(&doc, "series cpu_ns 3", "series cpu_ns three",
                        CULPRIT_HISTORY_LOAD_NO_SERIES, "malformed series length");
    culprit_history_run_free(run);
    culprit_history_run_free(summaries);
    culprit_history_run_free(bare);
    culprit_history_run_free(whole);
    culprit_buf_dispose(&doc);
}

/* A summaries-only read of `doc` reads what the full read does, but the series. */
static void assert_summaries_read_as_whole(const culprit_buf *doc)
{
    culprit_run *whole = NULL, *summaries = NULL;

    assert_int_equal(culprit_history_read_memory(&whole, doc->ptr, doc->size, "mem",
                                                 CULPRIT_HISTORY_LOAD_SAMPLES),
                     0);
    assert_int_equal(culprit_history_read_memory(&summaries, doc->ptr, doc->size, "mem", 0), 0);
    assert_same_run(whole, summaries, 0);
    culprit_history_run_free(whole);
    culprit_history_run_free(summaries);
}

/* Issue 23: the skip finds each block's samples line by the 'p' of "\nsamples ",
 * among headers full of 'p's and near-misses; one range per block and the tail, and
 * the same summaries as the full read. */
static void skip_finds_every_samples_line_among_look_alikes(void **state)
{
    culprit_run *run = make_run();
    culprit_buf doc = CULPRIT_BUF_INIT;
    culprit_history__ranges kept = {NULL, 0, 0, NULL, 0, 0, ""};
    (void)state;

    culprit_str_set(&run->tests[0].category, "p sample samples psamples");
    culprit_str_set(&run->tests[0].verdict_message, "pp \nsamples 12 p");
    culprit_str_set(&run->tests[1].stop, "p");
    assert_int_equal(culprit_history_format(&doc, run), 0);
    assert_int_equal(culprit_history__skip_samples(&kept, doc.ptr, doc.size, 0), 1);
    assert_int_equal(kept.n, run->ntests + 1);
    assert_int_equal(kept.nblocks, 0);
    assert_summaries_read_as_whole(&doc);
    free(kept.items);
    culprit_history_run_free(run);
    culprit_buf_dispose(&doc);
}

/* Issue 23: a block whose text the XML parser hands over unchanged is cut out whole
 * and read straight from the document; one with '&', ']' or non-ASCII bytes is not
 * (the parser decodes or checks those). Either way the run read is the full read's. */
static void plain_blocks_are_cut_out_and_read_as_the_parser_reads_them(void **state)
{
    culprit_run *run = make_run();
    culprit_test_result *t;
    culprit_buf doc = CULPRIT_BUF_INIT;
    culprit_history__ranges kept = {NULL, 0, 0, NULL, 0, 0, ""};
    size_t cut = 0;
    (void)state;

    assert_int_equal(culprit_history_run_add_test(&t, run), 0);
    culprit_str_set(&t->name, "bracket");
    culprit_str_set(&t->verdict_message, "a ]]> b");
    assert_int_equal(culprit_history_run_add_test(&t, run), 0);
    culprit_str_set(&t->name, "utf8");
    culprit_str_set(&t->category, "caf\xc3\xa9");
    assert_int_equal(culprit_history_run_add_test(&t, run), 0);
    culprit_str_set(&t->name, "tab");
    culprit_str_set(&t->verdict_message, "a\tb (written \\x09)");
    assert_int_equal(culprit_history_format(&doc, run), 0);
    assert_int_equal(culprit_history__skip_samples(&kept, doc.ptr, doc.size, 1), 1);
    assert_int_equal(kept.n, run->ntests + 1);
    /* all but the first test ("fast & small"), "bracket" and "utf8" */
    assert_int_equal(kept.nblocks, run->ntests - 3);
    for (size_t i = 0; i < kept.n; i++)
        cut += (size_t)kept.items[i].token;
    assert_int_equal(cut, kept.nblocks);
    assert_memory_equal(doc.ptr + kept.blocks[0].start, "culprit-result 1\n", 17);
    assert_summaries_read_as_whole(&doc);
    free(kept.items);
    free(kept.blocks);
    culprit_history_run_free(run);
    culprit_buf_dispose(&doc);
}

/* Issue 23: the check that a block is plain, eight bytes at a time, refuses each byte
 * the parser would change or check, wherever it falls, and keeps tabs and line breaks. */
static void every_byte_the_parser_changes_keeps_a_block_in(void **state)
{
    static const char refused[] = {0x01, 0x0d, 0x1f, 0x7f, (char)0x80, (char)0xff, '&', ']'};
    static const char kept[] = {'\t', '\n', ' ', '~', '>', '[', 0x7e};
    culprit_run *run = make_run();
    culprit_buf doc = CULPRIT_BUF_INIT;
    (void)state;

    culprit_str_set(&run->tests[0].category, "fast"); /* every block plain */
    assert_int_equal(culprit_history_format(&doc, run), 0);
    for (size_t at = 0; at < 9; at++) {
        for (size_t i = 0; i < sizeof(refused) + sizeof(kept); i++) {
            int refuse = i < sizeof(refused);
            char c = refuse ? refused[i] : kept[i - sizeof(refused)];
            culprit_buf edited = CULPRIT_BUF_INIT;
            culprit_history__ranges ranges = {NULL, 0, 0, NULL, 0, 0, ""};
            char *value;
            culprit_buf_put(&edited, doc.ptr, doc.size);
            /* "category fast" becomes "category fast" and 9 more bytes, one of them c */
            replace_once(&edited, "category fast\n", "category fastxxxxxxxxx\n");
            value = strstr(edited.ptr, "category fastxxxxxxxxx") + strlen("category fast");
            value[at] = c;
            assert_int_equal(culprit_history__skip_samples(&ranges, edited.ptr, edited.size, 1), 1);
            if ((size_t)ranges.nblocks != run->ntests - (size_t)refuse)
                fail_msg("byte 0x%02x at %zu: %zu blocks cut of %zu", (unsigned char)c, at,
                         ranges.nblocks, run->ntests);
            free(ranges.items);
            free(ranges.blocks);
            culprit_buf_dispose(&edited);
        }
    }
    culprit_history_run_free(run);
    culprit_buf_dispose(&doc);
}

/* The message of reading `doc` with `flags`, or "" when it reads. */
static void read_message(char *out, size_t size, const culprit_buf *doc, unsigned int flags)
{
    culprit_run *run = NULL;

    out[0] = '\0';
    if (culprit_history_read_memory(&run, doc->ptr, doc->size, "mem", flags) < 0)
        snprintf(out, size, "%s", culprit_error_last());
    culprit_history_run_free(run);
}

/* Issue 23: a block the parser does not see where the cut took it (inside a comment,
 * inside CDATA) or text that only looks like a token: the document is read as the
 * whole parse reads it, to the same run or the same error. */
static void blocks_out_of_place_read_as_the_whole_parse_reads_them(void **state)
{
    culprit_run *run = make_run(), *whole = NULL, *summaries = NULL;
    culprit_buf doc = CULPRIT_BUF_INIT, edited = CULPRIT_BUF_INIT, testcase = CULPRIT_BUF_INIT;
    char expected[1024], got[1024];
    const char *from, *to;
    (void)state;

    culprit_str_set(&run->tests[0].category, "fast"); /* every block plain */
    assert_int_equal(culprit_history_format(&doc, run), 0);
    /* the second test's <testcase>, again inside a comment first */
    assert_non_null(from = strstr(strstr(doc.ptr, "<testcase") + 1, "<testcase"));
    assert_non_null(to = strstr(from, "</testcase>"));
    culprit_buf_puts(&testcase, "<!-- ");
    culprit_buf_put(&testcase, from, (size_t)(to - from) + strlen("</testcase>"));
    culprit_buf_puts(&testcase, " --><testcase");
    culprit_buf_put(&edited, doc.ptr, doc.size);
    replace_once(&edited, "<testcase", culprit_buf_cstr(&testcase));
    assert_int_equal(culprit_history_read_memory(&whole, edited.ptr, edited.size, "mem",
                                                 CULPRIT_HISTORY_LOAD_SAMPLES),
                     0);
    assert_int_equal(culprit_history_read_memory(&summaries, edited.ptr, edited.size, "mem", 0), 0);
    assert_int_equal(summaries->ntests, run->ntests);
    assert_same_run(whole, summaries, 0);

    /* A block inside CDATA of a block: refused, with the whole parse's message. */
    culprit_buf_clear(&edited);
    culprit_buf_put(&edited, doc.ptr, doc.size);
    replace_once(&edited, "<system-out>culprit-result",
                 "<system-out><![CDATA[<system-out>culprit-result");
    replace_once(&edited, "</system-out>", "</system-out>]]></system-out>");
    read_message(expected, sizeof(expected), &edited, CULPRIT_HISTORY_LOAD_SAMPLES);
    read_message(got, sizeof(got), &edited, 0);
    assert_true(expected[0] != '\0');
    assert_string_equal(got, expected);

    /* Text that looks like a token is text: refused as before. */
    culprit_buf_clear(&edited);
    culprit_buf_put(&edited, doc.ptr, doc.size);
    replace_once(&edited, "</properties>",
                 "</properties><testcase name=\"t\"><system-out>"
                 "@0123456789abcdef-0</system-out></testcase>");
    read_message(expected, sizeof(expected), &edited, CULPRIT_HISTORY_LOAD_SAMPLES);
    read_message(got, sizeof(got), &edited, 0);
    assert_non_null(strstr(expected, "does not start with"));
    assert_string_equal(got, expected);
    culprit_history_run_free(run);
    culprit_history_run_free(whole);
    culprit_history_run_free(summaries);
    culprit_buf_dispose(&doc);
    culprit_buf_dispose(&edited);
    culprit_buf_dispose(&testcase);
}

static void invalid_series_names_are_refused(void **state)
{
    culprit_run *run = make_run();
    culprit_buf doc = CULPRIT_BUF_INIT;
    (void)state;

    assert_int_equal(culprit_history_test_result_add_series(&run->tests[1], "bad name", NULL, 0, 1),
                     0);
    assert_int_equal(culprit_history_format(&doc, run), CULPRIT_EINVALID);
    assert_non_null(strstr(culprit_error_last(), "bad name"));
    assert_int_equal(doc.size, 0);
    assert_int_equal(culprit_history_test_result_add_series(&run->tests[1], "", NULL, 0, 1),
                     CULPRIT_EINVALID);
    culprit_history_run_free(run);
    culprit_buf_dispose(&doc);
}

/* Issue 23: a name is never a reason not to record. A line break in a category or in a
 * verdict message (which names its test) failed the write, and with it every run;
 * names that XML cannot carry became U+FFFD, so two of them became one. Now each is
 * written as \xNN, in the block as in the attributes, and the [ PERF ] line escapes. */
static void names_with_line_breaks_and_broken_bytes_are_recorded(void **state)
{
    culprit_run *run = make_run(), *back = NULL;
    culprit_buf doc = CULPRIT_BUF_INIT, line = CULPRIT_BUF_INIT;
    (void)state;

    culprit_str_set(&run->tests[0].name, "two\nlines\x1b[31m\xff");
    culprit_str_set(&run->tests[0].category, "fa\nst");
    culprit_str_set(&run->tests[0].verdict_message, "perf.two\nlines: 1 us now");
    culprit_str_set(&run->tests[1].name, "two\nlines\x1b[31m\xfe");
    assert_int_equal(culprit_history_format(&doc, run), 0);
    assert_int_equal(culprit_history_read_memory(&back, doc.ptr, doc.size, "mem", 0), 0);
    assert_string_equal(back->tests[0].name, "two\nlines\\x1b[31m\\xff");
    assert_string_equal(back->tests[1].name, "two\nlines\\x1b[31m\\xfe");
    assert_string_equal(back->tests[0].category, "fa\\x0ast");
    assert_string_equal(back->tests[0].verdict_message, "perf.two\\x0alines: 1 us now");
    assert_int_equal(culprit_history_test_result_line(&line, &run->tests[0]), 0);
    assert_non_null(strstr(line.ptr, "two\\x0alines\\x1b[31m\\xff"));
    assert_non_null(strstr(line.ptr, "fa\\x0ast"));
    assert_null(strpbrk(line.ptr, "\n\x1b"));
    culprit_history_run_free(run);
    culprit_history_run_free(back);
    culprit_buf_dispose(&doc);
    culprit_buf_dispose(&line);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_with_line_breaks_and_broken_bytes_are_recorded),
        cmocka_unit_test(series_read_at_once_still_grow),
        cmocka_unit_test(round_trip_keeps_every_field),
        cmocka_unit_test(load_test_fields_round_trip_and_stay_out_of_other_blocks),
        cmocka_unit_test(preempted_samples_round_trip_and_show_in_the_line),
        cmocka_unit_test(region_tests_say_what_each_figure_covers),
        cmocka_unit_test(numbers_round_trip_bit_for_bit),
        cmocka_unit_test(long_decimals_read_as_strtod_reads_them),
        cmocka_unit_test(written_file_validates_against_junit_schema),
        cmocka_unit_test(report_form_is_for_dashboards_and_still_readable),
        cmocka_unit_test(copy_summary_copies_everything_but_the_series),
        cmocka_unit_test(corrupt_and_foreign_files_are_invalid),
        cmocka_unit_test(a_lying_samples_length_is_refused_by_both_reads),
        cmocka_unit_test(reader_without_skip_shape_still_reads),
        cmocka_unit_test(store_never_overwrites),
        cmocka_unit_test(load_skips_corrupt_files_and_filters),
        cmocka_unit_test(load_on_several_threads_is_a_load_one_by_one),
        cmocka_unit_test(invalid_series_names_are_refused),
        cmocka_unit_test(files_of_any_size_read_back),
        cmocka_unit_test(find_test_is_indexed_and_follows_added_tests),
        cmocka_unit_test(find_test_tries_the_next_test_first),
        cmocka_unit_test(summaries_only_read_keeps_long_text_between_blocks),
        cmocka_unit_test(no_series_read_keeps_every_summary),
        cmocka_unit_test(skip_finds_every_samples_line_among_look_alikes),
        cmocka_unit_test(plain_blocks_are_cut_out_and_read_as_the_parser_reads_them),
        cmocka_unit_test(blocks_out_of_place_read_as_the_whole_parse_reads_them),
        cmocka_unit_test(every_byte_the_parser_changes_keeps_a_block_in),
        cmocka_unit_test(eight_concurrent_writers_keep_every_run),
        cmocka_unit_test(a_second_source_is_deduplicated_by_run_id),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
