/*
 * Correlation and ordinary least squares: what the counter-cluster detector of
 * Shang et al. (2015) builds on. Pearson's correlation measures how alike two
 * counters move (the distance the clustering uses, eq. 1 of the paper); least
 * squares both finds redundant counters (one predicted from the others with a high
 * R^2, §4.1) and models each cluster's dependent counter from the others (§4.3).
 *
 * Counters differ by orders of magnitude (nanoseconds against page faults), so the
 * fit standardizes every column before handing the design matrix to GSL's SVD
 * solver; the SVD also copes with collinear columns (two counters that are the same
 * quantity in other units) by giving the minimum-norm solution, where the normal
 * equations would be singular.
 */
#include "culprit/core.h"
#include "culprit/stats.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double mean_of(const double *x, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    return s / (double)n;
}

/* Sum of squared deviations from the mean (two passes: no cancellation). */
static double ss_of(const double *x, size_t n, double mean)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += (x[i] - mean) * (x[i] - mean);
    return s;
}

double culprit_stats_pearson(const double *x, const double *y, size_t n)
{
    double mx, my, sxx, syy, sxy = 0;

    if (n < 2)
        return NAN;
    mx = mean_of(x, n);
    my = mean_of(y, n);
    sxx = ss_of(x, n, mx);
    syy = ss_of(y, n, my);
    if (!(sxx > 0) || !(syy > 0))
        return NAN;
    for (size_t i = 0; i < n; i++)
        sxy += (x[i] - mx) * (y[i] - my);
    double r = sxy / sqrt(sxx * syy);
    /* Rounding can push |r| a hair past 1. */
    return r > 1 ? 1 : r < -1 ? -1 : r;
}

double culprit_stats_pearson_distance(double rho)
{
    if (isnan(rho))
        return NAN;
    return rho >= 0 ? 1 - rho : fabs(rho);
}

void culprit_stats_pearson_distances(double *out, const double *const *cols, size_t k, size_t n)
{
    for (size_t i = 0; i < k; i++) {
        out[i * k + i] = 0;
        for (size_t j = i + 1; j < k; j++) {
            double d = culprit_stats_pearson_distance(culprit_stats_pearson(cols[i], cols[j], n));
            /* A constant series relates to nothing: as far as uncorrelated ones. */
            if (isnan(d))
                d = 1;
            out[i * k + j] = out[j * k + i] = d;
        }
    }
}

void culprit_stats_ols_dispose(culprit_ols *fit)
{
    if (!fit)
        return;
    free(fit->coef);
    memset(fit, 0, sizeof(*fit));
}

int culprit_stats_ols(culprit_ols *out, const double *const *x, size_t p, const double *y, size_t n)
{
    gsl_matrix *design = NULL, *cov = NULL;
    gsl_vector *rhs = NULL, *beta = NULL;
    gsl_multifit_linear_workspace *work = NULL;
    double *mean = NULL, *scale = NULL, ymean, tss, rss = 0, chisq;
    size_t *used = NULL, q = 0;
    int error = 0;

    memset(out, 0, sizeof(*out));
    if (n < p + 2)
        return culprit_error_set(CULPRIT_EUNDECIDED,
                                 "least squares of %zu regressors needs at least %zu "
                                 "observations, got %zu",
                                 p, p + 2, n);
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(y[i]))
            return culprit_error_set(CULPRIT_EINVALID, "least squares: a value is not finite");
        for (size_t j = 0; j < p; j++)
            if (!isfinite(x[j][i]))
                return culprit_error_set(CULPRIT_EINVALID, "least squares: a value is not finite");
    }
    if (!(out->coef = calloc(p ? p : 1, sizeof(double))) ||
        !(mean = calloc(p ? p : 1, sizeof(double))) ||
        !(scale = calloc(p ? p : 1, sizeof(double))) || !(used = calloc(p ? p : 1, sizeof(size_t))))
        goto oom;
    out->p = p;
    out->n = n;
    ymean = mean_of(y, n);
    tss = ss_of(y, n, ymean);
    /* Standardize; a constant column carries nothing the intercept does not. */
    for (size_t j = 0; j < p; j++) {
        mean[j] = mean_of(x[j], n);
        scale[j] = sqrt(ss_of(x[j], n, mean[j]) / (double)(n - 1));
        if (scale[j] > 0)
            used[q++] = j;
    }
    /* GSL's error handler is process-wide, so it is left as it is (thread safety):
     * the dimensions below always agree and every value is finite, the only inputs
     * gsl_multifit_linear rejects. */
    if (q > 0) {
        int status;
        if (!(design = gsl_matrix_alloc(n, q)) || !(rhs = gsl_vector_alloc(n)) ||
            !(beta = gsl_vector_alloc(q)) || !(cov = gsl_matrix_alloc(q, q)) ||
            !(work = gsl_multifit_linear_alloc(n, q)))
            goto oom;
        for (size_t i = 0; i < n; i++) {
            gsl_vector_set(rhs, i, y[i] - ymean);
            for (size_t c = 0; c < q; c++)
                gsl_matrix_set(design, i, c, (x[used[c]][i] - mean[used[c]]) / scale[used[c]]);
        }
        status = gsl_multifit_linear(design, rhs, beta, cov, &chisq, work);
        if (status) {
            error =
                culprit_error_set(CULPRIT_ERROR, "least squares failed: %s", gsl_strerror(status));
            goto cleanup;
        }
        for (size_t c = 0; c < q; c++)
            out->coef[used[c]] = gsl_vector_get(beta, c) / scale[used[c]];
    }
    out->intercept = ymean;
    for (size_t j = 0; j < p; j++)
        out->intercept -= out->coef[j] * mean[j];
    for (size_t i = 0; i < n; i++) {
        double e = y[i] - culprit_stats_ols_predict(out, x, i);
        rss += e * e;
    }
    /* A constant y fitted exactly is perfectly explained. */
    out->r2 = tss > 0 ? 1 - rss / tss : 1;
    goto cleanup;
oom:
    error = CULPRIT_ERROR_NOMEM();
cleanup:
    if (error < 0)
        culprit_stats_ols_dispose(out);
    if (work)
        gsl_multifit_linear_free(work);
    gsl_matrix_free(design);
    gsl_matrix_free(cov);
    gsl_vector_free(rhs);
    gsl_vector_free(beta);
    free(mean);
    free(scale);
    free(used);
    return error;
}

double culprit_stats_ols_predict(const culprit_ols *fit, const double *const *x, size_t i)
{
    double v = fit->intercept;
    for (size_t j = 0; j < fit->p; j++)
        v += fit->coef[j] * x[j][i];
    return v;
}
