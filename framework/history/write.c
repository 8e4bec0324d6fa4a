/*
 * The history writer: a culprit_run as one JUnit XML document that validates
 * against the strict Jenkins junit-10.xsd, so CI servers display it as ordinary
 * test results, while the culprit block in each <system-out> keeps everything
 * culprit itself needs (block.c). libxml2's xmlTextWriter does the escaping; the
 * document is built in memory and written atomically, never in place.
 */
#include "history_internal.h"

#include <libxml/xmlwriter.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------- XML safety --- */

/* Captured output and names may hold control bytes or broken UTF-8, which XML
 * cannot carry: they are written as "\xNN", the escaping of names everywhere
 * (core's culprit_buf_put_utf8()), so distinct names stay distinct. */
const char *culprit_history__xml_safe(const char *s, culprit_buf *tmp)
{
    return culprit_text_utf8(s, tmp, CULPRIT_TEXT_XML);
}

/* ---------------------------------------------------------------- writing --- */

typedef struct {
    xmlTextWriterPtr w;
    culprit_buf tmp;
} writer;

static int xml_failed(const char *what)
{
    return culprit_error_set(CULPRIT_ERROR, "cannot write the history XML (%s)", what);
}

static int start(writer *wr, const char *name)
{
    return xmlTextWriterStartElement(wr->w, BAD_CAST name) < 0 ? xml_failed(name) : 0;
}

static int end(writer *wr)
{
    return xmlTextWriterEndElement(wr->w) < 0 ? xml_failed("end element") : 0;
}

static int attr(writer *wr, const char *name, const char *value)
{
    const char *safe = culprit_history__xml_safe(value, &wr->tmp);

    if (!safe)
        return CULPRIT_ERROR;
    if (xmlTextWriterWriteAttribute(wr->w, BAD_CAST name, BAD_CAST safe) < 0)
        return xml_failed(name);
    return 0;
}

static int attr_count(writer *wr, const char *name, size_t value)
{
    char num[32];

    snprintf(num, sizeof(num), "%zu", value);
    return attr(wr, name, num);
}

/* JUnit times are SUREFIRE_TIME: digits and a dot, never an exponent, inf or a sign.
 * Microseconds in the history; nanoseconds in the report, whose times are the mean
 * of one repetition, often a few microseconds. */
static int attr_time(writer *wr, const char *name, double seconds, unsigned int flags)
{
    char num[48];
    unsigned long long ticks, per_s = (flags & CULPRIT_HISTORY_REPORT) ? 1000000000ull : 1000000ull;

    if (!(seconds >= 0) || !isfinite(seconds))
        seconds = 0;
    if (seconds > 1e9)
        seconds = 1e9;
    ticks = (unsigned long long)llround(seconds * (double)per_s);
    snprintf(num, sizeof(num), per_s == 1000000ull ? "%llu.%06llu" : "%llu.%09llu", ticks / per_s,
             ticks % per_s);
    return attr(wr, name, num);
}

static int text(writer *wr, const char *value)
{
    const char *safe = culprit_history__xml_safe(value, &wr->tmp);

    if (!safe)
        return CULPRIT_ERROR;
    if (xmlTextWriterWriteString(wr->w, BAD_CAST safe) < 0)
        return xml_failed("text");
    return 0;
}

static int property(writer *wr, const char *name, const char *value)
{
    int error;

    if (!value)
        return 0;
    if ((error = start(wr, "property")) < 0 || (error = attr(wr, "name", name)) < 0 ||
        (error = attr(wr, "value", value)) < 0 || (error = end(wr)) < 0)
        return error;
    return 0;
}

static int write_properties(writer *wr, const culprit_run *run)
{
    char format[16];
    int error;

    snprintf(format, sizeof(format), "%d", CULPRIT_HISTORY_FORMAT);
    if ((error = start(wr, "properties")) < 0 ||
        (error = property(wr, "culprit.format", format)) < 0 ||
        (error = property(wr, "culprit.run-id", run->id)) < 0 ||
        (error = property(wr, "culprit.commit", run->commit)) < 0 ||
        (error = property(wr, "culprit.dirty", run->dirty ? "true" : "false")) < 0 ||
        (error = property(wr, "culprit.branch", run->branch)) < 0 ||
        (error = property(wr, "culprit.timestamp", run->timestamp)) < 0 ||
        (error = property(wr, "culprit.host", run->host)) < 0 ||
        (error = property(wr, "culprit.machine", run->machine)) < 0 ||
        (error = property(wr, "culprit.machine-class", run->machine_class)) < 0 ||
        (error = property(wr, "culprit.compiler", run->compiler)) < 0 ||
        (error = property(wr, "culprit.flags", run->flags)) < 0 ||
        (run->binary && (error = property(wr, "culprit.binary", run->binary)) < 0))
        return error;
    return end(wr);
}

/* A failed test whose verdict is a regression says so in the type CI shows. */
static const char *failure_type(const culprit_test_result *test, const char *fallback)
{
    if (test->status == CULPRIT_STATUS_FAILURE && test->verdict) {
        if (strcmp(test->verdict, "major") == 0)
            return "culprit.major-regression";
        if (strcmp(test->verdict, "minor") == 0)
            return "culprit.minor-regression";
    }
    return fallback;
}

/* The <testcase> time: sampling time in the history, the mean of one repetition in
 * the report for dashboards (junit.c says why). */
static double testcase_time(const culprit_test_result *test, unsigned int flags)
{
    return (flags & CULPRIT_HISTORY_REPORT) ? culprit_history__report_time(test) : test->elapsed_s;
}

static int write_outcome(writer *wr, const culprit_run *run, const culprit_test_result *test,
                         unsigned int flags)
{
    static const char *const elements[] = {NULL, "failure", "error", "skipped"};
    static const char *const types[] = {NULL, "culprit.assertion", "culprit.error", NULL};
    culprit_buf body = CULPRIT_BUF_INIT;
    int error;

    if (test->status == CULPRIT_STATUS_PASS || test->status > CULPRIT_STATUS_SKIPPED)
        return 0;
    if ((error = start(wr, elements[test->status])) < 0 ||
        (types[test->status] &&
         (error = attr(wr, "type", failure_type(test, types[test->status]))) < 0) ||
        (test->message && (error = attr(wr, "message", test->message)) < 0))
        return error;
    /* The report's failures carry the figures in their body, which dashboards show. */
    if ((flags & CULPRIT_HISTORY_REPORT) && test->status != CULPRIT_STATUS_SKIPPED &&
        (error = culprit_history__failure_body(&body, run, test)) == 0 && body.size)
        error = text(wr, body.ptr);
    culprit_buf_dispose(&body);
    return error < 0 ? error : end(wr);
}

static int write_testcase(writer *wr, const culprit_run *run, const culprit_test_result *test,
                          culprit_buf *head, culprit_buf *samples, unsigned int flags)
{
    int error;

    culprit_buf_clear(head);
    culprit_buf_clear(samples);
    /* The report's <system-out> opens with the line the terminal showed; the reader
     * skips it (block.c). */
    if ((flags & CULPRIT_HISTORY_REPORT) &&
        ((error = culprit_history_test_result_line(head, test)) < 0 ||
         (error = culprit_buf_puts(head, "\n")) < 0))
        return error;
    if ((error = culprit_history__block_format(head, samples, test)) < 0)
        return error;
    if ((error = start(wr, "testcase")) < 0 ||
        (error = attr(wr, "name", test->name ? test->name : "")) < 0 ||
        (error = attr(wr, "classname",
                      test->classname ? test->classname : (run->suite ? run->suite : ""))) < 0 ||
        (error = attr_time(wr, "time", testcase_time(test, flags), flags)) < 0 ||
        (error = write_outcome(wr, run, test, flags)) < 0)
        return error;
    if ((error = start(wr, "system-out")) < 0 || (error = text(wr, head->ptr)) < 0)
        return error;
    /* Sample lines are plain ASCII (block.c checks the names): no escaping, raw copy. */
    if (samples->size &&
        xmlTextWriterWriteRawLen(wr->w, BAD_CAST samples->ptr, (int)samples->size) < 0)
        return xml_failed("samples");
    if ((error = end(wr)) < 0)
        return error;
    if (test->output && *test->output &&
        ((error = start(wr, "system-err")) < 0 || (error = text(wr, test->output)) < 0 ||
         (error = end(wr)) < 0))
        return error;
    return end(wr);
}

/* libxml2 output callback: the document goes straight into the caller's buffer. */
static int write_to_buf(void *context, const char *data, int len)
{
    return culprit_buf_put(context, data, (size_t)len) < 0 ? -1 : len;
}

typedef struct {
    size_t tests, failures, errors, skipped;
    double time;
} totals;

static void add_totals(totals *sum, const culprit_run *run, unsigned int flags)
{
    for (size_t i = 0; i < run->ntests; i++) {
        const culprit_test_result *t = &run->tests[i];
        double time = testcase_time(t, flags);
        sum->tests++;
        sum->failures += t->status == CULPRIT_STATUS_FAILURE;
        sum->errors += t->status == CULPRIT_STATUS_ERROR;
        sum->skipped += t->status == CULPRIT_STATUS_SKIPPED;
        if (time > 0 && isfinite(time))
            sum->time += time;
    }
}

static int write_suite(writer *wr, const culprit_run *run, culprit_buf *head, culprit_buf *samples,
                       unsigned int flags)
{
    totals sum = {0, 0, 0, 0, 0};
    int error;

    add_totals(&sum, run, flags);
    if ((error = start(wr, "testsuite")) < 0 ||
        (error = attr(wr, "name", run->suite ? run->suite : "")) < 0 ||
        (error = attr_count(wr, "tests", sum.tests)) < 0 ||
        (error = attr_count(wr, "failures", sum.failures)) < 0 ||
        (error = attr_count(wr, "errors", sum.errors)) < 0 ||
        (error = attr_count(wr, "skipped", sum.skipped)) < 0 ||
        (error = attr_time(wr, "time", sum.time, flags)) < 0 ||
        (run->timestamp && (error = attr(wr, "timestamp", run->timestamp)) < 0) ||
        (run->host && (error = attr(wr, "hostname", run->host)) < 0) ||
        (run->id && (error = attr(wr, "id", run->id)) < 0))
        return error;
    if ((error = write_properties(wr, run)) < 0)
        return error;
    for (size_t i = 0; i < run->ntests; i++)
        if ((error = write_testcase(wr, run, &run->tests[i], head, samples, flags)) < 0)
            return error;
    return end(wr);
}

int culprit_history_format_runs(culprit_buf *out, const culprit_run *const *runs, size_t nruns,
                                unsigned int flags)
{
    writer wr = {NULL, CULPRIT_BUF_INIT};
    xmlOutputBufferPtr ob = NULL;
    size_t start_size = out->size;
    culprit_buf head = CULPRIT_BUF_INIT, samples = CULPRIT_BUF_INIT;
    totals sum = {0, 0, 0, 0, 0};
    int error = 0;

    for (size_t i = 0; i < nruns; i++)
        add_totals(&sum, runs[i], flags);
    xmlInitParser();
    if (!(ob = xmlOutputBufferCreateIO(write_to_buf, NULL, out, NULL)) ||
        !(wr.w = xmlNewTextWriter(ob))) {
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    ob = NULL; /* owned by the writer now */
    xmlTextWriterSetIndent(wr.w, 1);
    xmlTextWriterSetIndentString(wr.w, BAD_CAST "  ");
    if (xmlTextWriterStartDocument(wr.w, NULL, "UTF-8", NULL) < 0) {
        error = xml_failed("document");
        goto cleanup;
    }
    if ((error = start(&wr, "testsuites")) < 0 || (error = attr(&wr, "name", "culprit")) < 0 ||
        (error = attr_count(&wr, "tests", sum.tests)) < 0 ||
        (error = attr_count(&wr, "failures", sum.failures)) < 0 ||
        (error = attr_count(&wr, "errors", sum.errors)) < 0 ||
        (error = attr_time(&wr, "time", sum.time, flags)) < 0)
        goto cleanup;
    for (size_t i = 0; i < nruns; i++)
        if ((error = write_suite(&wr, runs[i], &head, &samples, flags)) < 0)
            goto cleanup;
    if (xmlTextWriterEndDocument(wr.w) < 0 || xmlTextWriterFlush(wr.w) < 0) {
        error = xml_failed("end of document");
        goto cleanup;
    }
cleanup:
    if (wr.w)
        xmlFreeTextWriter(wr.w);
    if (ob)
        xmlOutputBufferClose(ob);
    /* On failure the caller's buffer is left as it was, not with half a document. */
    if (error < 0 && out->ptr) {
        out->size = start_size;
        out->ptr[start_size] = '\0';
    }
    culprit_buf_dispose(&wr.tmp);
    culprit_buf_dispose(&head);
    culprit_buf_dispose(&samples);
    return error;
}

int culprit_history_format(culprit_buf *out, const culprit_run *run)
{
    return culprit_history_format_runs(out, &run, 1, 0);
}

int culprit_history_write_report(const culprit_run *const *runs, size_t nruns, const char *path,
                                 int no_replace)
{
    culprit_buf doc = CULPRIT_BUF_INIT;
    int error;

    if ((error = culprit_history_format_runs(&doc, runs, nruns, CULPRIT_HISTORY_REPORT)) == 0)
        error = culprit_fs_write_atomic(path, doc.ptr, doc.size, no_replace);
    culprit_buf_dispose(&doc);
    return error;
}

int culprit_history_write_file(const culprit_run *run, const char *path, int flags)
{
    culprit_buf doc = CULPRIT_BUF_INIT;
    int error;

    if ((error = culprit_history_format(&doc, run)) < 0)
        goto cleanup;
    error = culprit_fs_write_atomic(path, doc.ptr, doc.size, flags);
cleanup:
    culprit_buf_dispose(&doc);
    return error;
}
