/*
 * Comparing the means of alternatives from their Welford summaries: Welch's
 * confidence interval of the difference of two means, and the one-way ANOVA F-test
 * for two or more.
 *
 * These are the parametric tests of the papers culprit follows. Vogel (2017, §3.3
 * "Regression Detection (Comparison of alternatives)", after Georges et al. 2007)
 * decides a regression by whether the confidence interval of the difference of the
 * means contains 0, with z for n >= 30 and Student t with the Welch-Satterthwaite
 * degrees of freedom below; Heger et al. (2013, §3) use ANOVA at 99% between two
 * revisions. Both work from n, mean and variance only, so they take
 * culprit_welford accumulators: the sampling loop already keeps one per series and
 * the detectors never need the raw samples for them.
 *
 * What such an interval means against a practical threshold is decided here once
 * (culprit_stats_judge_change): detection's verdicts, the call-tree diff and the
 * bisection all call a change a slowdown only when it is significant AND beyond the
 * threshold, so that rule cannot drift between them.
 *
 * References:
 *   S. Vogel, "Automated Root Cause Isolation in Performance Regression Testing",
 *   Master's thesis, University of Stuttgart, 2017, §3.3.
 *   A. Georges, D. Buytaert, L. Eeckhout, "Statistically rigorous Java performance
 *   evaluation", OOPSLA 2007, §3.2-3.3.
 *   B. L. Welch, "The generalization of 'Student's' problem when several different
 *   population variances are involved", Biometrika 34, 1947; F. E. Satterthwaite,
 *   Biometrics Bulletin 2(6), 1946 (the df approximation).
 *   C. Heger, J. Happe, R. Farahbod, "Automated root cause isolation of performance
 *   regressions during software development", ICPE 2013, §3.
 *   Any textbook one-way ANOVA, e.g. NIST/SEMATECH e-Handbook §7.4.3.
 */
#include "culprit/core.h"
#include "culprit/stats.h"

#include <math.h>

#include <gsl/gsl_cdf.h>

int culprit_stats_welch(culprit_welch *out, const culprit_welford *a, const culprit_welford *b,
                        double confidence)
{
    return culprit_stats_welch_between(out, a, b, 0.0, 0.0, confidence);
}

int culprit_stats_welch_between(culprit_welch *out, const culprit_welford *a,
                                const culprit_welford *b, double extra_var, double extra_df,
                                double confidence)
{
    double na, nb, va, vb, v, tail, q, stat;

    out->diff = out->low = out->high = out->se = out->df = out->p = NAN;
    out->confidence = confidence;
    out->dist = CULPRIT_STATS_DIST_T;
    if (!(confidence > 0.0 && confidence < 1.0))
        return culprit_error_set(CULPRIT_EINVALID, "confidence %g is not in (0, 1)", confidence);
    if (!(extra_var >= 0.0 && isfinite(extra_var)) || (extra_var > 0.0 && !(extra_df > 0.0)))
        return culprit_error_set(CULPRIT_EINVALID,
                                 "extra variance %g with %g degrees of freedom is not usable",
                                 extra_var, extra_df);
    if (a->n >= 1 && b->n >= 1)
        out->diff = b->mean - a->mean;
    if (a->n < 2 || b->n < 2)
        return culprit_error_set(CULPRIT_EUNDECIDED,
                                 "Welch needs 2 values per sample (have %llu and %llu)",
                                 (unsigned long long)a->n, (unsigned long long)b->n);

    na = (double)a->n;
    nb = (double)b->n;
    /* Vogel 2017 §3.3: s_x = sqrt(s1^2/n1 + s2^2/n2), the standard error of the
     * difference of two independent means with unequal variances. */
    va = culprit_stats_welford_variance(a) / na;
    vb = culprit_stats_welford_variance(b) / nb;
    /* Kalibera & Jones 2013: a run's mean carries an offset of its own (the machine
     * was slower or faster for that whole run), which the spread within the run does
     * not show; its variance is added as a third component. */
    v = va + vb + extra_var;
    out->se = sqrt(v);
    if (!isfinite(out->diff) || !isfinite(out->se))
        return culprit_error_set(CULPRIT_EINVALID, "non-finite mean or variance");

    /* Vogel 2017 §3.3 (Georges et al. 2007): z for "large numbers of measurements",
     * n >= 30 -- both samples, or the smaller one would be judged by a normal
     * quantile it has not earned. */
    if (a->n >= CULPRIT_STATS_WELCH_Z_MIN_N && b->n >= CULPRIT_STATS_WELCH_Z_MIN_N &&
        extra_var == 0.0)
        out->dist = CULPRIT_STATS_DIST_Z;
    tail = 1.0 - (1.0 - confidence) / 2.0;

    if (v == 0.0) {
        /* Both samples constant: the difference is known exactly. */
        out->low = out->high = out->diff;
        out->df = out->dist == CULPRIT_STATS_DIST_Z ? INFINITY : NAN;
        out->p = out->diff == 0.0 ? 1.0 : 0.0;
        return 0;
    }

    stat = fabs(out->diff) / out->se;
    if (out->dist == CULPRIT_STATS_DIST_Z) {
        out->df = INFINITY;
        q = gsl_cdf_ugaussian_Pinv(tail);
        out->p = 2.0 * gsl_cdf_ugaussian_Q(stat);
    } else {
        /* Welch-Satterthwaite, as printed in Vogel 2017 §3.3:
         * df = (s1^2/n1 + s2^2/n2)^2 / ((s1^2/n1)^2/(n1-1) + (s2^2/n2)^2/(n2-1)).
         * One constant sample gives the other's n - 1, as it should. */
        out->df = v * v /
                  (va * va / (na - 1.0) + vb * vb / (nb - 1.0) +
                   (extra_var > 0.0 ? extra_var * extra_var / extra_df : 0.0));
        q = gsl_cdf_tdist_Pinv(tail, out->df);
        out->p = 2.0 * gsl_cdf_tdist_Q(stat, out->df);
    }
    /* The upper tail from Q, never 1 - P: a huge difference gives a tiny p, not 0
     * from cancellation or a negative number. */
    if (out->p > 1.0)
        out->p = 1.0;
    out->low = out->diff - q * out->se;
    out->high = out->diff + q * out->se;
    return 0;
}

int culprit_stats_anova(culprit_anova *out, const culprit_welford *groups, size_t k)
{
    double n = 0.0, grand = 0.0, ssb = 0.0, ssw = 0.0;
    size_t i;

    out->f = out->p = NAN;
    out->df1 = out->df2 = NAN;
    if (k < 2)
        return culprit_error_set(CULPRIT_EINVALID, "ANOVA needs at least 2 groups (have %zu)", k);
    for (i = 0; i < k; i++) {
        if (groups[i].n == 0)
            return culprit_error_set(CULPRIT_EUNDECIDED, "ANOVA group %zu is empty", i);
        n += (double)groups[i].n;
        grand += (double)groups[i].n * groups[i].mean;
    }
    out->df1 = (double)(k - 1);
    out->df2 = n - (double)k;
    if (!(out->df2 > 0.0))
        return culprit_error_set(CULPRIT_EUNDECIDED,
                                 "ANOVA needs more values than groups (%.0f values, %zu groups)", n,
                                 k);
    grand /= n;

    /* One-way ANOVA (e.g. NIST/SEMATECH e-Handbook §7.4.3.3):
     * SSB = sum n_i (mean_i - grand)^2 with k - 1 df, SSW = sum (n_i - 1) s_i^2 with
     * N - k df, F = (SSB / (k - 1)) / (SSW / (N - k)). Welford's m2 is exactly
     * (n_i - 1) s_i^2, so no raw sample is needed. */
    for (i = 0; i < k; i++) {
        double d = groups[i].mean - grand;
        ssb += (double)groups[i].n * d * d;
        ssw += groups[i].m2;
    }
    if (!isfinite(ssb) || !isfinite(ssw))
        return culprit_error_set(CULPRIT_EINVALID, "non-finite mean or variance");
    if (ssw == 0.0) {
        /* Every group constant: any difference of the means is certain, none is
         * no evidence at all. */
        out->f = ssb > 0.0 ? INFINITY : NAN;
        out->p = ssb > 0.0 ? 0.0 : 1.0;
        return 0;
    }
    out->f = (ssb / out->df1) / (ssw / out->df2);
    /* The upper tail directly (gsl_cdf_fdist_Q), accurate for tiny p. */
    out->p = gsl_cdf_fdist_Q(out->f, out->df1, out->df2);
    return 0;
}

int culprit_stats_slower_beyond(double change_low, double change, double threshold)
{
    return change_low > 0 && change > threshold;
}

int culprit_stats_faster_beyond(double change_high, double change, double threshold)
{
    return change_high < 0 && change < -threshold;
}

culprit_stats_change culprit_stats_judge_change(double change, double change_low,
                                                double change_high, double threshold)
{
    if (culprit_stats_slower_beyond(change_low, change, threshold))
        return CULPRIT_STATS_CHANGE_SLOWER;
    if (culprit_stats_faster_beyond(change_high, change, threshold))
        return CULPRIT_STATS_CHANGE_FASTER;
    /* The whole interval is inside the threshold: no change that matters. */
    if (change_low > -threshold && change_high < threshold)
        return CULPRIT_STATS_CHANGE_UNCHANGED;
    /* Significant, but the estimate is inside the threshold: does not alarm. */
    if (change_low > 0 || change_high < 0)
        return CULPRIT_STATS_CHANGE_UNCHANGED;
    return CULPRIT_STATS_CHANGE_UNDECIDED;
}
