/*
 * Multiple-testing corrections: Benjamini-Hochberg adjusted p-values (q-values) and
 * Holm's step-down adjusted p-values.
 *
 * A run checks hundreds of tests at once; at a 1% level each, a suite of 500
 * unchanged tests still raises about 5 false alarms per run. Detection therefore
 * adjusts the p-values of all tests of a run together: Benjamini-Hochberg controls
 * the expected share of false alarms among the flagged tests (the false discovery
 * rate), Holm the probability of any false alarm at all (stricter, for when a
 * single false alarm is expensive).
 *
 * Both are the formulas of R's p.adjust(), including its treatment of missing
 * values: NaN p-values stay NaN and do not count in the number m of tests.
 *
 * References:
 *   Y. Benjamini, Y. Hochberg, "Controlling the false discovery rate: a practical
 *   and powerful approach to multiple testing", JRSS B 57(1), 1995 (step-up rule;
 *   the adjusted form q_(i) = min_{j>=i} m p_(j) / j is Yekutieli & Benjamini 1999).
 *   S. Holm, "A simple sequentially rejective multiple test procedure", Scand. J.
 *   Statist. 6(2), 1979.
 */
#include "culprit/core.h"
#include "culprit/stats.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_sort_double.h>

typedef enum { ADJUST_BH, ADJUST_HOLM } adjust_kind;

static int adjust(double *out, const double *p, size_t n, adjust_kind kind)
{
    double *vals = NULL, *adj = NULL;
    size_t *where = NULL, *order = NULL, i, m = 0;
    int error = 0;

    for (i = 0; i < n; i++)
        if (!isnan(p[i]) && !(p[i] >= 0.0 && p[i] <= 1.0))
            return culprit_error_set(CULPRIT_EINVALID, "p-value %zu is %g, not in [0, 1]", i, p[i]);
    /* One spare element each, so that n == 0 still allocates. */
    vals = malloc((n + 1) * sizeof(double));
    adj = malloc((n + 1) * sizeof(double));
    where = malloc((n + 1) * sizeof(size_t));
    order = malloc((n + 1) * sizeof(size_t));
    if (!vals || !adj || !where || !order) {
        error = culprit_error_set(CULPRIT_ERROR, "out of memory (%zu p-values)", n);
        goto cleanup;
    }
    /* Everything is read before anything is written, so out may alias p. */
    for (i = 0; i < n; i++)
        if (!isnan(p[i])) {
            vals[m] = p[i];
            where[m++] = i;
        }
    if (m > 0)
        gsl_sort_index(order, vals, 1, m);

    if (kind == ADJUST_BH) {
        /* Benjamini & Hochberg 1995, adjusted: from the largest p down,
         * q_(r) = min(q_(r+1), m p_(r) / r), capped at 1. The running minimum makes
         * the q-values monotone in p. */
        double run = 1.0;
        for (i = m; i-- > 0;) {
            double q = (double)m * vals[order[i]] / (double)(i + 1);
            if (q < run)
                run = q;
            adj[i] = run;
        }
    } else {
        /* Holm 1979: from the smallest p up, a_(r) = max(a_(r-1), (m - r + 1) p_(r)),
         * capped at 1. */
        double run = 0.0;
        for (i = 0; i < m; i++) {
            double a = fmin(1.0, (double)(m - i) * vals[order[i]]);
            if (a > run)
                run = a;
            adj[i] = run;
        }
    }
    for (i = 0; i < n; i++)
        if (isnan(p[i]))
            out[i] = p[i];
    for (i = 0; i < m; i++)
        out[where[order[i]]] = adj[i];

cleanup:
    free(vals);
    free(adj);
    free(where);
    free(order);
    return error;
}

int culprit_stats_adjust_bh(double *out, const double *p, size_t n)
{
    return adjust(out, p, n, ADJUST_BH);
}

int culprit_stats_adjust_holm(double *out, const double *p, size_t n)
{
    return adjust(out, p, n, ADJUST_HOLM);
}
