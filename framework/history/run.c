/*
 * The result model of one run: a culprit_run owns its test results, which own
 * their strings and series. Everything here is plain malloc'd memory so the
 * reader, the runner and the detectors can build and free runs the same way.
 */
#include "history_internal.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

const char *culprit_history_status_name(culprit_status status)
{
    switch (status) {
    case CULPRIT_STATUS_PASS:
        return "pass";
    case CULPRIT_STATUS_FAILURE:
        return "failure";
    case CULPRIT_STATUS_ERROR:
        return "error";
    case CULPRIT_STATUS_SKIPPED:
        return "skipped";
    }
    return "unknown";
}

int culprit_history_run_new(culprit_run **out)
{
    culprit_run *run;

    *out = NULL;
    if (!(run = calloc(1, sizeof(*run))))
        return CULPRIT_ERROR_NOMEM();
    *out = run;
    return 0;
}

/* The owned strings of a test result: one list for freeing and for copying. */
static const size_t test_strings[] = {
    offsetof(culprit_test_result, name),      offsetof(culprit_test_result, classname),
    offsetof(culprit_test_result, message),   offsetof(culprit_test_result, output),
    offsetof(culprit_test_result, category),  offsetof(culprit_test_result, category_source),
    offsetof(culprit_test_result, verdict),   offsetof(culprit_test_result, verdict_message),
    offsetof(culprit_test_result, metric),    offsetof(culprit_test_result, stop),
    offsetof(culprit_test_result, counted_by)};

#define NTEST_STRINGS (sizeof(test_strings) / sizeof(test_strings[0]))

static char **test_string(culprit_test_result *test, size_t i)
{
    return (char **)((char *)test + test_strings[i]);
}

static void test_result_dispose(culprit_test_result *test)
{
    for (size_t i = 0; i < NTEST_STRINGS; i++)
        free(*test_string(test, i));
    for (size_t i = 0; i < test->nseries; i++) {
        free(test->series[i].name);
        free(test->series[i].values);
    }
    free(test->series);
}

int culprit_history_test_result_copy_summary(culprit_test_result *dst,
                                             const culprit_test_result *src)
{
    /* Every scalar by assignment (a field added later is copied too), then each owned
     * string replaced by a copy; the series are left out. */
    *dst = *src;
    dst->nseries = 0;
    dst->series = NULL;
    for (size_t i = 0; i < NTEST_STRINGS; i++)
        *test_string(dst, i) = NULL;
    for (size_t i = 0; i < NTEST_STRINGS; i++) {
        const char *value = *test_string((culprit_test_result *)src, i);
        if (value && !(*test_string(dst, i) = culprit_strdup(value))) {
            test_result_dispose(dst);
            memset(dst, 0, sizeof(*dst));
            return CULPRIT_ERROR;
        }
    }
    return 0;
}

/* The tests by name, as they were when indexed: a run whose tests were added to
 * (ntests, or the array itself, changed) is indexed again. */
typedef struct {
    culprit_strmap names;
    const culprit_test_result *tests;
    size_t ntests;
    int unique; /* no two tests of one name: a test found where expected is the one */
    /* Where the next search looks first: after the last test found. Only a hint, so
     * threads searching an indexed run at once (culprit_history_runs_index()) may
     * overwrite each other's: atomic, relaxed, never torn. */
    atomic_size_t next;
} test_index;

/* Fewer tests are scanned: below this, a scan is as fast as a hash. */
#define INDEX_MIN_TESTS 16

static void index_free(test_index *index)
{
    if (index)
        culprit_strmap_dispose(&index->names);
    free(index);
}

void culprit_history_run_free(culprit_run *run)
{
    if (!run)
        return;
    free(run->id);
    free(run->suite);
    free(run->commit);
    free(run->branch);
    free(run->timestamp);
    free(run->host);
    free(run->machine);
    free(run->machine_class);
    free(run->compiler);
    free(run->flags);
    free(run->binary);
    free(run->path);
    index_free(run->test_index);
    for (size_t i = 0; i < run->ntests; i++)
        test_result_dispose(&run->tests[i]);
    free(run->tests);
    free(run);
}

/* The run's string properties (culprit_history__run_property). */
static const struct {
    const char *name;
    size_t offset;
} run_strings[] = {
    {"culprit.run-id", offsetof(culprit_run, id)},
    {"culprit.commit", offsetof(culprit_run, commit)},
    {"culprit.branch", offsetof(culprit_run, branch)},
    {"culprit.timestamp", offsetof(culprit_run, timestamp)},
    {"culprit.host", offsetof(culprit_run, host)},
    {"culprit.machine", offsetof(culprit_run, machine)},
    {"culprit.machine-class", offsetof(culprit_run, machine_class)},
    {"culprit.compiler", offsetof(culprit_run, compiler)},
    {"culprit.flags", offsetof(culprit_run, flags)},
    {"culprit.binary", offsetof(culprit_run, binary)},
};

/* CULPRIT_EINVALID with the message cut as the reader cuts its own (512 bytes). */
static int property_refused(const char *fmt, const char *value)
{
    char what[512];

    snprintf(what, sizeof(what), fmt, value);
    return culprit_error_set(CULPRIT_EINVALID, "%s", what);
}

int culprit_history__run_property(culprit_run *run, const char *name, char **value,
                                  int *have_format)
{
    if (!strcmp(name, "culprit.format")) {
        if (strcmp(*value, "1") != 0)
            return property_refused(
                "history format version '%s' is not supported (this build "
                "reads version " CULPRIT_HISTORY__STR(CULPRIT_HISTORY_FORMAT) ")",
                *value);
        *have_format = 1;
    } else if (!strcmp(name, "culprit.dirty")) {
        if (!strcmp(*value, "true") || !strcmp(*value, "1"))
            run->dirty = 1;
        else if (!strcmp(*value, "false") || !strcmp(*value, "0"))
            run->dirty = 0;
        else
            return property_refused("culprit.dirty is '%s', not true or false", *value);
    } else {
        for (size_t i = 0; i < sizeof(run_strings) / sizeof(run_strings[0]); i++) {
            if (strcmp(name, run_strings[i].name) != 0)
                continue;
            char **field = (char **)((char *)run + run_strings[i].offset);
            free(*field);
            *field = *value;
            *value = NULL;
            break;
        }
    }
    return 0;
}

int culprit_history_run_add_test(culprit_test_result **out, culprit_run *run)
{
    culprit_test_result *test;

    int error;

    if ((error = culprit_array_grow(&run->tests, &run->atests, run->ntests, sizeof(*run->tests),
                                    8)) < 0)
        return error;
    test = &run->tests[run->ntests++];
    memset(test, 0, sizeof(*test));
    *out = test;
    return 0;
}

/* The pages of an array about to be written whole (a run's tests, each zeroed as it
 * is added), faulted in at once: on transparent huge pages where the system gives
 * them on request (transparent_hugepage "madvise", Debian's default), and populated by
 * one call (MADV_POPULATE_WRITE, Linux 5.14) instead of a page fault per page, which
 * on a virtual machine cost more than the parse of the tests written there. A hint:
 * nothing changes where it is refused. */
static void prefault(void *p, size_t size)
{
    const uintptr_t page = 4096, huge = (uintptr_t)2 << 20;
    uintptr_t start = ((uintptr_t)p + page - 1) & ~(page - 1),
              end = ((uintptr_t)p + size) & ~(page - 1);
    uintptr_t hstart = ((uintptr_t)p + huge - 1) & ~(huge - 1),
              hend = ((uintptr_t)p + size) & ~(huge - 1);

#ifdef MADV_HUGEPAGE
    if (hend > hstart)
        (void)madvise((void *)hstart, hend - hstart, MADV_HUGEPAGE);
#endif
#ifdef MADV_POPULATE_WRITE
    if (end > start)
        (void)madvise((void *)start, end - start, MADV_POPULATE_WRITE);
#endif
    (void)start, (void)end, (void)hstart, (void)hend;
}

void culprit_history__tests_reserve(culprit_run *run, size_t n)
{
    culprit_test_result *tests;

    if (n <= run->atests || n > SIZE_MAX / sizeof(*tests) ||
        !(tests = realloc(run->tests, n * sizeof(*tests))))
        return; /* a hint: the array still grows as tests are added */
    run->tests = tests;
    run->atests = n;
    prefault(tests, n * sizeof(*tests));
}

/* The entries the series array of a test of n series holds: 4, then doubling when
 * full (at 4, 8, 16, ...): the 13 series of a run file's test cost 3 allocations
 * added one by one, not 13 (starting at 16 cost 25% more memory per test read, and
 * more time than it saved), and 1 through culprit_history__series_reserve(). */
static size_t series_room(size_t n)
{
    size_t room = 4;

    while (room < n)
        room *= 2;
    return room;
}

size_t culprit_history__series_reserve(culprit_test_result *test, size_t n)
{
    culprit_series *series;

    if (test->series || test->nseries || n == 0 || n > SIZE_MAX / 2 / sizeof(*series) ||
        !(series = malloc(series_room(n) * sizeof(*series))))
        return 0;
    test->series = series;
    return series_room(n);
}

int culprit_history_test_result_add_series(culprit_test_result *test, const char *name,
                                           const double *values, size_t n, int absent)
{
    culprit_series *series;
    size_t k = test->nseries;

    if (!name || !*name)
        return culprit_error_set(CULPRIT_EINVALID, "a series needs a name");
    if (k == 0 || (k >= 4 && (k & (k - 1)) == 0)) { /* full: series_room() */
        if (!(series = realloc(test->series, (k ? 2 * k : 4) * sizeof(*series))))
            return CULPRIT_ERROR_NOMEM();
        test->series = series;
    }
    return culprit_history__series_fill(test, name, values, n, absent);
}

int culprit_history__series_fill(culprit_test_result *test, const char *name, const double *values,
                                 size_t n, int absent)
{
    culprit_series *s = &test->series[test->nseries];

    memset(s, 0, sizeof(*s));
    if (!(s->name = culprit_strdup(name)))
        return CULPRIT_ERROR;
    s->absent = absent ? 1 : 0;
    s->n = absent ? 0 : n;
    if (!absent && values && n) {
        if (n > SIZE_MAX / sizeof(double) || !(s->values = malloc(n * sizeof(double)))) {
            free(s->name);
            return CULPRIT_ERROR_NOMEM();
        }
        memcpy(s->values, values, n * sizeof(double));
    }
    test->nseries++;
    return 0;
}

const culprit_series *culprit_history_test_result_series(const culprit_test_result *test,
                                                         const char *name)
{
    for (size_t i = 0; i < test->nseries; i++)
        if (!strcmp(test->series[i].name, name))
            return &test->series[i];
    return NULL;
}

/* ----------------------------------------------------------- find by name --- */

/* The run's index, built or rebuilt when stale; NULL when out of memory (the caller
 * scans instead, and the last error is left as it was). */
static test_index *index_of(culprit_run *run)
{
    test_index *index = run->test_index;
    culprit_error_state saved;

    if (index && index->tests == run->tests && index->ntests == run->ntests)
        return index;
    index_free(index);
    run->test_index = NULL;
    culprit_error_save(&saved);
    if (!(index = calloc(1, sizeof(*index))) ||
        culprit_strmap_reserve(&index->names, run->ntests) < 0)
        goto fail;
    /* In order, so that of two tests of one name the first is found, as a scan would. */
    index->unique = 1;
    for (size_t i = 0; i < run->ntests; i++) {
        int found;
        if (run->tests[i].name &&
            (found = culprit_strmap_put(&index->names, run->tests[i].name, i, NULL)) < 0)
            goto fail;
        if (run->tests[i].name && found)
            index->unique = 0;
    }
    index->tests = run->tests;
    index->ntests = run->ntests;
    run->test_index = index;
    return index;
fail:
    index_free(index);
    culprit_error_restore(&saved);
    return NULL;
}

const culprit_test_result *culprit_history_run_find_test(const culprit_run *run, const char *name)
{
    /* The index is a cache: building it does not change what the run holds. */
    test_index *index = run->ntests >= INDEX_MIN_TESTS ? index_of((culprit_run *)run) : NULL;
    size_t i;

    if (index) {
        /* Callers search test after test in the order runs hold them (a check walks its
         * tests through each earlier run, a comparison one run through the other):
         * the test after the last one found is tried first, without hashing. */
        i = atomic_load_explicit(&index->next, memory_order_relaxed);
        if (index->unique && i < run->ntests && run->tests[i].name &&
            !strcmp(run->tests[i].name, name)) {
            atomic_store_explicit(&index->next, i + 1, memory_order_relaxed);
            return &run->tests[i];
        }
        if (!culprit_strmap_get(&index->names, name, &i))
            return NULL;
        if (run->tests[i].name && !strcmp(run->tests[i].name, name)) {
            atomic_store_explicit(&index->next, i + 1, memory_order_relaxed);
            return &run->tests[i];
        }
    }
    for (i = 0; i < run->ntests; i++)
        if (run->tests[i].name && !strcmp(run->tests[i].name, name))
            return &run->tests[i];
    return NULL;
}

int culprit_history_runs_index(const culprit_history_runs *runs)
{
    for (size_t r = 0; r < runs->nruns; r++)
        if (runs->runs[r]->ntests >= INDEX_MIN_TESTS && !index_of(runs->runs[r]))
            return CULPRIT_ERROR_NOMEM();
    return 0;
}

int culprit_history_test_result_measured(const culprit_test_result *test)
{
    if (test->summary.n == 0)
        return 0;
    return test->status == CULPRIT_STATUS_PASS ||
           (test->status == CULPRIT_STATUS_FAILURE && test->verdict &&
            strcmp(test->verdict, "major") == 0);
}

/* Appends [s, s + n) to buf (of `size`, `*at` used), cut to fit with its NUL: what
 * snprintf would write, without its cost (every comparison of two runs asks). */
static void put_cut(char *buf, size_t size, size_t *at, const char *s, size_t n)
{
    if (*at + n >= size)
        n = size - 1 - *at;
    memcpy(buf + *at, s, n);
    *at += n;
    buf[*at] = '\0';
}

const char *culprit_history_run_machine_class(char *buf, size_t size, const culprit_run *run)
{
    const char *m = run->machine ? run->machine : "", *last, *sp1, *sp2;
    size_t at = 0;

    if (!size)
        return buf;
    buf[0] = '\0';
    if (run->machine_class) {
        put_cut(buf, size, &at, run->machine_class, strlen(run->machine_class));
        return buf;
    }
    /* The runner's fingerprint ends in "; SYSNAME RELEASE ARCH" (uname): drop RELEASE. */
    last = strrchr(m, ';');
    last = last ? last + 1 : m;
    while (*last == ' ')
        last++;
    sp1 = strchr(last, ' ');
    sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
    if (!sp1 || !sp2 || strchr(sp2 + 1, ' ')) {
        put_cut(buf, size, &at, m, strlen(m));
    } else {
        put_cut(buf, size, &at, m, (size_t)(sp1 - m));
        put_cut(buf, size, &at, sp2, strlen(sp2));
    }
    return buf;
}

int culprit_history__commit_wanted(const culprit_history_query *q, const char *commit, int prefix)
{
    size_t lo = 0, hi = q->ncommits, len;

    if (!commit)
        return 0;
    len = strlen(commit);
    while (lo < hi) { /* the first wanted commit not below `commit` */
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(q->commits[mid], commit) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < q->ncommits && (prefix ? strncmp(q->commits[lo], commit, len) == 0
                                       : strcmp(q->commits[lo], commit) == 0);
}

/* Adds `s` to the set `names` (an array of owned strings, indexed by `seen`) unless
 * already there. */
static int add_name(char ***names, size_t *n, size_t *cap, culprit_strmap *seen, const char *s)
{
    if (culprit_strmap_get(seen, s, NULL))
        return 0;
    if (culprit_array_grow(names, cap, *n, sizeof(**names), 32) < 0)
        return CULPRIT_ERROR;
    if (!((*names)[*n] = culprit_strdup(s)))
        return CULPRIT_ERROR;
    if (culprit_strmap_put(seen, (*names)[*n], *n, NULL) < 0) {
        free((*names)[*n]);
        return CULPRIT_ERROR;
    }
    (*n)++;
    return 0;
}

int culprit_history_require_test(const culprit_history_runs *runs, const char *name,
                                 const char *where)
{
    char **names = NULL;
    const char **near = NULL;
    culprit_strmap seen = CULPRIT_STRMAP_INIT;
    size_t n = 0, cap = 0, nnear = 0;
    culprit_buf msg = CULPRIT_BUF_INIT;
    int error = 0;

    for (size_t r = 0; r < runs->nruns; r++) {
        const culprit_run *run = runs->runs[r];
        for (size_t t = 0; t < run->ntests; t++) {
            culprit_buf k = CULPRIT_BUF_INIT;
            char *key = culprit_buf_printf(&k, "%s.%s", run->suite ? run->suite : "",
                                           run->tests[t].name ? run->tests[t].name : "") < 0
                            ? NULL
                            : culprit_buf_detach(&k);
            if (!key) {
                culprit_buf_dispose(&k);
                error = CULPRIT_ERROR;
                goto cleanup;
            }
            if (strcmp(key, name) == 0 || strcmp(run->tests[t].name, name) == 0) {
                free(key);
                goto cleanup; /* found */
            }
            error = add_name(&names, &n, &cap, &seen, key);
            free(key);
            if (error < 0 || (error = add_name(&names, &n, &cap, &seen, run->tests[t].name)) < 0)
                goto cleanup;
        }
    }
    if ((error = culprit_suggest(&near, &nnear, name, (const char *const *)names, n, 5)) < 0)
        goto cleanup;
    culprit_buf_printf(&msg, "no test '%s' in %s", name, where);
    culprit_suggest_format(&msg, near, nnear);
    error = culprit_error_set(CULPRIT_ENOTFOUND, "%s", culprit_buf_cstr(&msg));
cleanup:
    culprit_strmap_dispose(&seen);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    free(near);
    culprit_buf_dispose(&msg);
    return error;
}
