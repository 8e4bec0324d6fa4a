/*
 * Reading a JUnit report of several runs: `culprit junit` merges the reports of a
 * ctest invocation (one run per perf test) into <testsuites> with one <testsuite>
 * per run, and CI keeps that file as its artifact. The run reader (read.c) reads a
 * document of one run; here each <testsuite> element of the report is cut out and
 * read as such a document, with all of the reader's checks. culprit writes no
 * comment, CDATA section or literal '<' in text, so in a file it wrote the tags are
 * the only "<testsuite" and "</testsuite>"; a file that fools the cut yields pieces
 * the reader refuses, with the file's name.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memmem */
#endif
#include "history_internal.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The first `what` in [from, end), as memmem finds it: memchr for its '<', which the
 * sample lines (most of a run file's bytes) never hold, then a compare. memmem scanned
 * every byte for the closing tag of a 100 MB run: 6% of a `compare` of 100,000 tests. */
static const char *find(const char *from, const char *end, const char *what)
{
    size_t len = strlen(what);

    for (const char *p = from; (size_t)(end - p) >= len; p++) {
        if (!(p = memchr(p, what[0], (size_t)(end - p) - len + 1)))
            return NULL;
        if (!memcmp(p, what, len))
            return p;
    }
    return NULL;
}

/* The next "<testsuite" element at or after `from` (not "<testsuites"), or NULL. */
static const char *next_suite(const char *from, const char *end)
{
    const char *at;

    while ((at = find(from, end, "<testsuite")) && at + 10 < end && at[10] == 's')
        from = at + 10;
    return at && at + 10 < end ? at : NULL;
}

static int add_run(culprit_history_runs *out, size_t *alloc, const char *data, size_t len,
                   const char *path, const culprit_history_query *query)
{
    culprit_run *run = NULL;
    int error;

    if ((error = culprit_history__read(&run, data, len, path, query)) < 0 || !run)
        return error; /* !run: another suite, commit or test than the query's */
    if ((error = culprit_str_set(&run->path, path)) < 0 ||
        (error = culprit_array_grow(&out->runs, alloc, out->nruns, sizeof(*out->runs), 4)) < 0) {
        culprit_history_run_free(run);
        return error;
    }
    out->runs[out->nruns++] = run;
    return 0;
}

int culprit_history_read_report(culprit_history_runs *out, const char *path, unsigned int flags)
{
    culprit_history_query query = {.flags = flags};

    return culprit_history__read_report(out, path, &query);
}

/* Frees the runs of `out` and empties it (not culprit_history_runs_dispose():
 * store.c calls this file). */
static void drop_runs(culprit_history_runs *out)
{
    for (size_t i = 0; i < out->nruns; i++)
        culprit_history_run_free(out->runs[i]);
    free(out->runs);
    memset(out, 0, sizeof(*out));
}

/* The files of culprit_history_read_reports(), each read on any thread: its error
 * and message kept for the calling thread. */
typedef struct {
    culprit_history_runs *out;
    const char *const *paths;
    culprit_history_query query;
    int *errors;
    culprit_error_state *why;
} reports_job;

static void read_one(size_t i, void *arg)
{
    reports_job *job = arg;

    job->errors[i] = culprit_history__read_report(&job->out[i], job->paths[i], &job->query);
    if (job->errors[i] < 0)
        culprit_error_save(&job->why[i]);
}

int culprit_history_read_reports(culprit_history_runs *out, const char *const *paths, size_t n,
                                 unsigned int flags)
{
    reports_job job = {out, paths, {.flags = flags}, NULL, NULL};
    int error = 0;

    for (size_t i = 0; i < n; i++)
        memset(&out[i], 0, sizeof(out[i]));
    if (n == 0)
        return 0;
    if (!(job.errors = calloc(n, sizeof(*job.errors))) ||
        !(job.why = calloc(n, sizeof(*job.why)))) {
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    culprit_history__parser_init();
    if ((error = culprit_parallel_for(n, read_one, &job)) < 0)
        goto cleanup;
    for (size_t i = 0; i < n && error == 0; i++)
        if (job.errors[i] < 0)
            error = culprit_error_restore(&job.why[i]);
cleanup:
    for (size_t i = 0; error < 0 && i < n; i++)
        drop_runs(&out[i]);
    free(job.errors);
    free(job.why);
    return error;
}

/* The bytes of a report: a regular file mapped (a run file of 100,000 tests, 100 MB,
 * read into a buffer cost a fifth of `culprit compare` in the copy and the fresh
 * pages) and populated at once (every page is read), anything else (a pipe,
 * `<(command)`) read. */
typedef struct {
    culprit_buf buf;
    void *map;
    size_t size;
    const char *ptr;
} content;

static int load(content *c, const char *path)
{
    struct stat st;
    int fd = -1, error = 0;

    /* stat() first: a FIFO is opened once, by the reader below, so that its writer
     * is not cut off by an open and close that read nothing. */
    c->map = MAP_FAILED;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
        (fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) >= 0 && fstat(fd, &st) == 0 &&
        S_ISREG(st.st_mode) && st.st_size > 0)
        c->map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (fd >= 0)
        close(fd);
    if (c->map != MAP_FAILED) {
        c->ptr = c->map;
        c->size = (size_t)st.st_size;
    } else if ((error = culprit_fs_read_file(&c->buf, path)) == 0) {
        c->ptr = c->buf.ptr ? c->buf.ptr : "";
        c->size = c->buf.size;
    }
    return error;
}

int culprit_history__read_report(culprit_history_runs *out, const char *path,
                                 const culprit_history_query *query)
{
    content data = {CULPRIT_BUF_INIT, MAP_FAILED, 0, ""};
    const char *at, *end, *close;
    size_t alloc = 0;
    int error;

    memset(out, 0, sizeof(*out));
    if ((error = load(&data, path)) < 0)
        goto cleanup;
    end = data.ptr + data.size;
    if (!data.size || !find(data.ptr, end, "<testsuites")) {
        error = add_run(out, &alloc, data.ptr, data.size, path, query);
        goto cleanup;
    }
    for (at = next_suite(data.ptr, end); at && error == 0; at = next_suite(close, end)) {
        if (!(close = find(at, end, "</testsuite>"))) {
            error = culprit_error_set(CULPRIT_EINVALID, "%s: a <testsuite> is not closed", path);
            break;
        }
        close += strlen("</testsuite>");
        error = add_run(out, &alloc, at, (size_t)(close - at), path, query);
    }
    if (error == 0 && !find(data.ptr, end, "<testsuite "))
        error =
            culprit_error_set(CULPRIT_EINVALID, "%s: not a culprit report (no <testsuite>)", path);
cleanup:
    if (error < 0) /* nothing kept */
        drop_runs(out);
    if (data.map != MAP_FAILED)
        munmap(data.map, data.size);
    culprit_buf_dispose(&data.buf);
    return error;
}
