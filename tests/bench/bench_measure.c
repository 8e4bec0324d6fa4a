/*
 * Benchmark of the sampling loop itself (framework/measure), for the issue notes:
 *
 *   1. harness overhead: what the loop costs per iteration of an empty body with
 *      default settings, against the cost of the two clock_gettime(CLOCK_MONOTONIC)
 *      calls a naive harness would spend on every iteration (target: <= 2x);
 *   2. precision: how narrow the 99% confidence interval of a ~1 ms CPU-bound body
 *      gets with default settings, with how many samples, in how much time.
 *
 * Exits non-zero only when the overhead ratio misses its target by a wide margin
 * (3x the target, on the better of two runs), so that a loaded machine does not
 * turn it red; the figures are printed either way.
 */
#include "culprit/core.h"
#include "culprit/measure.h"
#include "culprit/stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define TARGET_RATIO      2.0
#define FAIL_RATIO        (3.0 * TARGET_RATIO)
#define OVERHEAD_BUDGET_S 1.5

static int empty_body(void *payload)
{
    (void)payload;
    return 0;
}

static int spin_body(void *payload)
{
    unsigned long n = *(unsigned long *)payload;
    volatile unsigned long x = 0;
    for (unsigned long i = 0; i < n; i++)
        x += i ^ (x >> 3);
    return 0;
}

static double now_s(void)
{
    return (double)culprit_measure_clock_monotonic_ns(NULL) / 1e9;
}

/* Two clock_gettime(CLOCK_MONOTONIC) calls, as a harness timing every iteration
 * would make: the best of 5 rounds of 200000. */
static double two_clock_reads_ns(void)
{
    struct timespec a, b;
    double best = 1e300;
    long sink = 0;

    for (int r = 0; r < 5; r++) {
        double t0 = now_s();
        for (int i = 0; i < 200000; i++) {
            clock_gettime(CLOCK_MONOTONIC, &a);
            clock_gettime(CLOCK_MONOTONIC, &b);
            sink += b.tv_nsec - a.tv_nsec;
        }
        double per = (now_s() - t0) * 1e9 / 200000;
        if (per < best)
            best = per;
    }
    if (sink == 42) /* keeps the reads */
        puts("");
    return best;
}

typedef struct {
    double per_iteration_ns; /* everything the loop spent / every iteration it ran */
    double body_ns;          /* the mean the loop measured for the empty body */
    double per_sample_us;    /* time outside the timed windows, per sample */
    size_t n;
    unsigned int batch;
    const char *stop;
} overhead;

static int measure_overhead(overhead *out, int counters)
{
    culprit_measure_options opts = CULPRIT_MEASURE_OPTIONS_INIT;
    culprit_measure_callbacks cb = {empty_body, NULL, NULL, NULL};
    culprit_samples *s = NULL;
    culprit_welford w = {0};
    double iterations, timed_ns = 0.0;
    int error;

    opts.counters = counters;
    /* Keeps the whole benchmark under 10 s on a loaded machine, where an empty body
     * can be too noisy to reach 1% and would run to the 5 s default. */
    opts.budget_s = OVERHEAD_BUDGET_S;
    if ((error = culprit_measure_run(&s, &opts, &cb)) < 0)
        goto cleanup;
    iterations = (double)s->warmup + (double)s->n * s->batch;
    for (size_t i = 0; i < s->n; i++) {
        culprit_stats_welford_add(&w, s->wall_ns[i]);
        timed_ns += s->wall_ns[i] * s->batch + s->timer_overhead_ns;
    }
    out->per_iteration_ns = s->elapsed_s * 1e9 / iterations;
    out->body_ns = w.mean;
    out->per_sample_us = (s->elapsed_s * 1e9 - timed_ns) / (double)s->n / 1e3;
    out->n = s->n;
    out->batch = s->batch;
    out->stop = culprit_measure_stop_reason_name(s->stop);
cleanup:
    culprit_measure_samples_free(s);
    return error;
}

/* Spin count for a ~1 ms body, from the median of a few timed calls. */
static unsigned long calibrate_spin(void)
{
    unsigned long n = 100000;
    for (int round = 0; round < 3; round++) {
        double t0 = now_s();
        spin_body(&n);
        double dt = now_s() - t0;
        if (dt > 0)
            n = (unsigned long)((double)n * 1e-3 / dt);
    }
    return n;
}

int main(void)
{
    overhead best = {0}, o, quiet;
    double clocks_ns, ratio;
    culprit_measure_callbacks cb = {spin_body, NULL, NULL, NULL};
    culprit_samples *s = NULL;
    culprit_summary sum;
    unsigned long spins;
    double t0, took;
    int failed = 0;

    /* 1. harness overhead ------------------------------------------------------ */
    clocks_ns = two_clock_reads_ns();
    for (int r = 0; r < 2; r++) {
        if (measure_overhead(&o, 1) < 0 || (r == 0 && measure_overhead(&quiet, 0) < 0)) {
            fprintf(stderr, "bench_measure: %s\n", culprit_error_last());
            return 1;
        }
        if (r == 0 || o.per_iteration_ns < best.per_iteration_ns)
            best = o;
    }
    ratio = best.per_iteration_ns / clocks_ns;
    printf("harness overhead, empty body, default settings but budget %.1f s (best of 2 "
           "runs):\n",
           OVERHEAD_BUDGET_S);
    printf("  samples n = %zu, batch k = %u iterations/sample, stop = %s\n", best.n, best.batch,
           best.stop);
    printf("  loop cost per iteration (all-in: warm-up, calibration, counters) = %.2f ns\n",
           best.per_iteration_ns);
    printf("  measured empty body per iteration                               = %.2f ns\n",
           best.body_ns);
    printf("  time outside timed windows per sample (warm-up, batch calibration,\n"
           "  clock calibration, counters, stop checks)                      = %.2f us\n",
           best.per_sample_us);
    printf("  the same with counters off (opts.counters = 0)                 = %.2f us\n",
           quiet.per_sample_us);
    printf("  two clock_gettime(CLOCK_MONOTONIC) calls                        = %.2f ns\n",
           clocks_ns);
    printf("  ratio loop cost / two clock reads = %.3f (target <= %.1f)\n", ratio, TARGET_RATIO);
    if (ratio > FAIL_RATIO) {
        printf("  FAILED: ratio above %.1f\n", FAIL_RATIO);
        failed = 1;
    }

    /* 2. precision ------------------------------------------------------------- */
    spins = calibrate_spin();
    cb.payload = &spins;
    t0 = now_s();
    if (culprit_measure_run(&s, NULL, &cb) < 0 ||
        culprit_stats_summarize(&sum, s->wall_ns, s->n, 0.99) < 0) {
        fprintf(stderr, "bench_measure: %s\n", culprit_error_last());
        culprit_measure_samples_free(s);
        return 1;
    }
    took = now_s() - t0;
    printf("precision, ~1 ms CPU-bound body, default settings (99%%, target 1%%):\n");
    printf("  mean = %.1f us, sd = %.2f%% of the mean, batch = %u\n", sum.mean / 1e3,
           100.0 * sum.sd / sum.mean, s->batch);
    printf("  99%% CI half-width = %.3f%% of the mean, n = %zu samples, stop = %s\n",
           100.0 * (sum.ci_high - sum.mean) / sum.mean, s->n,
           culprit_measure_stop_reason_name(s->stop));
    printf("  took %.3f s (loop elapsed %.3f s, warm-up iterations %u)\n", took, s->elapsed_s,
           s->warmup);
    culprit_measure_samples_free(s);
    return failed;
}
