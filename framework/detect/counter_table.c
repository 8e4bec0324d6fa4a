/*
 * What the counter detectors share: the set of detectors `culprit check --detector`
 * names, and the counter table, the observations-by-counters matrix both the
 * counter-cluster models (clusters.c) and the association rules (rules.c) read.
 * A table is built from the per-repetition series a result records, stacking
 * several results (a pooled baseline, a history) one after the other.
 */
#include "culprit/core.h"
#include "culprit/detect.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    culprit_detector detector;
    const char *name;
} detectors[] = {{CULPRIT_DETECTOR_TIME, "time"},
                 {CULPRIT_DETECTOR_CLUSTERS, "clusters"},
                 {CULPRIT_DETECTOR_RULES, "rules"}};
#define NDETECTORS (sizeof(detectors) / sizeof(detectors[0]))

const char *culprit_detect_detector_name(culprit_detector detector)
{
    for (size_t i = 0; i < NDETECTORS; i++)
        if (detectors[i].detector == detector)
            return detectors[i].name;
    return "?";
}

int culprit_detect_detector_parse(unsigned int *out, const char *list)
{
    unsigned int set = 0;
    const char *p = list;

    while (p && *p) {
        size_t len = strcspn(p, ",");
        size_t i;
        for (i = 0; i < NDETECTORS; i++)
            if (strlen(detectors[i].name) == len && strncmp(p, detectors[i].name, len) == 0)
                break;
        if (i == NDETECTORS)
            return culprit_error_set(CULPRIT_EINVALID,
                                     "unknown detector '%.*s' (known: time, clusters, rules)",
                                     (int)len, p);
        set |= detectors[i].detector;
        p += len;
        if (*p == ',')
            p++;
    }
    if (!set)
        return culprit_error_set(CULPRIT_EINVALID,
                                 "no detector named (use time, clusters, rules, comma-separated)");
    *out = set;
    return 0;
}

void culprit_detect_counter_table_dispose(culprit_counter_table *table)
{
    if (!table)
        return;
    for (size_t c = 0; c < table->ncounters; c++) {
        free(table->names[c]);
        free(table->values[c]);
    }
    free(table->names);
    free(table->values);
    memset(table, 0, sizeof(*table));
}

static int table_alloc(culprit_counter_table *out, size_t ncounters, size_t n)
{
    memset(out, 0, sizeof(*out));
    if (!(out->names = calloc(ncounters ? ncounters : 1, sizeof(char *))) ||
        !(out->values = calloc(ncounters ? ncounters : 1, sizeof(double *))))
        goto oom;
    out->n = n;
    for (size_t c = 0; c < ncounters; c++) {
        out->ncounters = c + 1;
        if (!(out->values[c] = malloc((n ? n : 1) * sizeof(double))))
            goto oom;
    }
    out->ncounters = ncounters;
    return 0;
oom:
    culprit_detect_counter_table_dispose(out);
    return CULPRIT_ERROR_NOMEM();
}

int culprit_detect_counter_table_init(culprit_counter_table *out, const char *const *names,
                                      const double *const *values, size_t ncounters, size_t n)
{
    int error;

    if ((error = table_alloc(out, ncounters, n)) < 0)
        return error;
    for (size_t c = 0; c < ncounters; c++) {
        if (!(out->names[c] = culprit_strdup(names[c]))) {
            culprit_detect_counter_table_dispose(out);
            return CULPRIT_ERROR_NOMEM();
        }
        memcpy(out->values[c], values[c], n * sizeof(double));
    }
    return 0;
}

int culprit_detect_counter_table_find(const culprit_counter_table *table, const char *name)
{
    for (size_t c = 0; c < table->ncounters; c++)
        if (strcmp(table->names[c], name) == 0)
            return (int)c;
    return -1;
}

/* Observations of a result: the length of its series (all have the same). */
static size_t rows_of(const culprit_test_result *r)
{
    for (size_t s = 0; s < r->nseries; s++)
        if (!r->series[s].absent && r->series[s].values)
            return r->series[s].n;
    return 0;
}

/* A series usable as a counter column of `r`: present, loaded, finite, full length. */
static const culprit_series *usable(const culprit_test_result *r, const char *name)
{
    const culprit_series *s = culprit_history_test_result_series(r, name);

    if (!s || s->absent || !s->values || s->n != rows_of(r) || s->n == 0)
        return NULL;
    for (size_t i = 0; i < s->n; i++)
        if (!isfinite(s->values[i]))
            return NULL;
    return s;
}

int culprit_detect_counter_table_from_results(culprit_counter_table *out,
                                              const culprit_test_result *const *results,
                                              size_t nresults)
{
    const culprit_test_result *first = nresults ? results[0] : NULL;
    const char **names = NULL;
    size_t nnames = 0, n = 0, at = 0;
    int error;

    memset(out, 0, sizeof(*out));
    for (size_t r = 0; r < nresults; r++) {
        if (rows_of(results[r]) == 0)
            return table_alloc(out, 0, 0);
        n += rows_of(results[r]);
    }
    if (!first)
        return table_alloc(out, 0, 0);
    if (!(names = calloc(first->nseries ? first->nseries : 1, sizeof(*names))))
        return CULPRIT_ERROR_NOMEM();
    for (size_t s = 0; s < first->nseries; s++) {
        int everywhere = 1;
        for (size_t r = 0; r < nresults && everywhere; r++)
            everywhere = usable(results[r], first->series[s].name) != NULL;
        if (everywhere)
            names[nnames++] = first->series[s].name;
    }
    if ((error = table_alloc(out, nnames, n)) < 0)
        goto cleanup;
    for (size_t c = 0; c < nnames; c++)
        if (!(out->names[c] = culprit_strdup(names[c]))) {
            culprit_detect_counter_table_dispose(out);
            error = CULPRIT_ERROR_NOMEM();
            goto cleanup;
        }
    for (size_t r = 0; r < nresults; r++) {
        size_t rows = rows_of(results[r]);
        for (size_t c = 0; c < nnames; c++)
            memcpy(out->values[c] + at, usable(results[r], names[c])->values,
                   rows * sizeof(double));
        at += rows;
    }
cleanup:
    free(names);
    return error;
}
