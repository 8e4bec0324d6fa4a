/*
 * Which earlier runs a run may be compared with (docs/detection.md, "Comparable
 * baselines"): the same class of machine, the same build (compiler, flags), the
 * same metric counted by the same tool and version, and a baseline measured on a
 * clean tree. A timing from a Debug build, another runner type, or uncommitted
 * code says nothing about this run, so such runs are passed over when a baseline
 * is chosen rather than compared and called "mixed" (what Bencher calls a
 * "testbed" and asv a "machine" plus an "environment").
 *
 * The index sorts the runs by commit once, so that finding the runs of one commit
 * is a binary search: a check walking 10,000 first-parent commits for a test that
 * has no comparable baseline does not scan every run at every commit.
 */
#include "culprit/core.h"
#include "culprit/detect.h"
#include "detect_internal.h"

#include <stdlib.h>
#include <string.h>

static const char *or_empty(const char *s)
{
    return s ? s : "";
}

int culprit_detect__put_key(culprit_buf *key, const char *suite, const char *name)
{
    int error;

    if ((error = culprit_buf_puts(key, suite ? suite : "(null)")) < 0 ||
        (error = culprit_buf_put(key, ".", 1)) < 0)
        return error;
    return culprit_buf_puts(key, name ? name : "(null)");
}

static char *differs(const char *what, const char *now, const char *base)
{
    culprit_buf msg = CULPRIT_BUF_INIT;

    culprit_buf_printf(&msg, "%s differs: '%s' now, '%s' in the baseline", what, now, base);
    return culprit_buf_detach(&msg);
}

/* How the counting of `now` differs from that of `base`, or NULL. */
static char *counting_differs(const culprit_test_result *now, const culprit_test_result *base)
{
    culprit_buf msg = CULPRIT_BUF_INIT;
    const char *a = now->counted_by, *b = base->counted_by;

    if (strcmp(or_empty(a), or_empty(b)) == 0) {
        if (strcmp(now->metric ? now->metric : "wall_ns", base->metric ? base->metric : "wall_ns"))
            return differs("metric", now->metric ? now->metric : "wall_ns",
                           base->metric ? base->metric : "wall_ns");
        return NULL;
    }
    if (a && b)
        culprit_buf_printf(&msg, "counted by %s now, by %s in the baseline", a, b);
    else if (a)
        culprit_buf_printf(&msg, "counted by %s now, measured natively (%s) in the baseline", a,
                           base->metric ? base->metric : "wall_ns");
    else
        culprit_buf_printf(&msg, "measured natively (%s) now, counted by %s in the baseline",
                           now->metric ? now->metric : "wall_ns", b);
    return culprit_buf_detach(&msg);
}

static char *why_not(const culprit_run *now_run, const culprit_test_result *now,
                     const culprit_run *base_run, const culprit_test_result *base)
{
    char a[512], b[512];

    /* The class is the machine's fingerprint or the name given: the same inputs, the
     * same class (every pair of runs of one machine is asked, so that is the common
     * case, and building the two classes was a twentieth of `culprit history`). */
    if (!culprit_str_equal(now_run->machine_class, base_run->machine_class) ||
        !culprit_str_equal(now_run->machine, base_run->machine)) {
        culprit_history_run_machine_class(a, sizeof(a), now_run);
        culprit_history_run_machine_class(b, sizeof(b), base_run);
        if (strcmp(a, b) != 0)
            return differs("machine", a, b);
    }
    if (strcmp(or_empty(now_run->compiler), or_empty(base_run->compiler)) != 0)
        return differs("compiler", or_empty(now_run->compiler), or_empty(base_run->compiler));
    if (strcmp(or_empty(now_run->flags), or_empty(base_run->flags)) != 0)
        return differs("build flags", or_empty(now_run->flags), or_empty(base_run->flags));
    if (now && base)
        return counting_differs(now, base);
    return NULL;
}

int culprit_detect_comparable(char **why, const culprit_run *now_run,
                              const culprit_test_result *now, const culprit_run *base_run,
                              const culprit_test_result *base, unsigned int flags)
{
    char *reason;

    if (why)
        *why = NULL;
    if (base_run->dirty && !(flags & CULPRIT_COMPARABLE_ANY_TREE)) {
        if (why && !(*why = culprit_strdup(CULPRIT_DETECT__DIRTY_BASELINE)))
            return CULPRIT_ERROR;
        return 0;
    }
    if (!(reason = why_not(now_run, now, base_run, base)))
        return 1;
    if (why)
        *why = reason;
    else
        free(reason);
    return 0;
}

int culprit_detect__same_build(const culprit_run *a, const culprit_run *b)
{
    return culprit_detect_comparable(NULL, b, NULL, a, NULL, CULPRIT_COMPARABLE_ANY_TREE) == 1;
}

char *culprit_detect__fingerprint_mismatch(const culprit_run *run, const culprit_baseline *base)
{
    for (size_t i = 0; base->runs && i < base->n; i++) {
        char *why = NULL;
        if (base->runs[i] && culprit_detect_comparable(&why, run, NULL, base->runs[i], NULL,
                                                       CULPRIT_COMPARABLE_ANY_TREE) == 0)
            return why;
    }
    return NULL;
}

char *culprit_detect__counting_mismatch(const culprit_test_result *now,
                                        const culprit_baseline *base)
{
    for (size_t i = 0; i < base->n; i++) {
        char *why = counting_differs(now, base->results[i]);
        if (why)
            return why;
    }
    return NULL;
}

/* ------------------------------------------------------------ commit index --- */

static int by_commit(const void *a, const void *b)
{
    const culprit_run *x = *(culprit_run *const *)a, *y = *(culprit_run *const *)b;
    int c = strcmp(or_empty(x->commit), or_empty(y->commit));

    /* Equal commits keep the time order of the loaded runs (timestamp, then id). */
    if (c)
        return c;
    c = strcmp(or_empty(x->timestamp), or_empty(y->timestamp));
    return c ? c : strcmp(or_empty(x->id), or_empty(y->id));
}

int culprit_detect__index_runs(culprit_detect__index *out, const culprit_history_runs *runs)
{
    out->n = runs->nruns;
    out->runs = NULL;
    if (!out->n)
        return 0;
    if (!(out->runs = malloc(out->n * sizeof(*out->runs))))
        return CULPRIT_ERROR_NOMEM();
    memcpy(out->runs, runs->runs, out->n * sizeof(*out->runs));
    qsort(out->runs, out->n, sizeof(*out->runs), by_commit);
    return 0;
}

void culprit_detect__index_dispose(culprit_detect__index *index)
{
    free(index->runs);
    index->runs = NULL;
    index->n = 0;
}

size_t culprit_detect__index_find(const culprit_detect__index *index, const char *commit,
                                  size_t *end)
{
    size_t lo = 0, hi = index->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(or_empty(index->runs[mid]->commit), commit) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (*end = lo; *end < index->n && strcmp(or_empty(index->runs[*end]->commit), commit) == 0;)
        (*end)++;
    return lo;
}
