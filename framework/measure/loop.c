/*
 * The sampling loop: runs a test body repeatedly and turns it into samples of wall
 * time, CPU time and counters per iteration.
 *
 *   warm-up     opts->warmup untimed repetitions (caches, page faults, lazy binding)
 *   batching    bodies too short to time one by one run k times per sample; k
 *               doubles until one batch lasts min_sample_ns (as Google Benchmark
 *               grows its iteration count); those calibration runs are warm-up too
 *   sampling    counters, t0, body x k, t1, counters: only the body is inside the
 *               timed window, and the calibrated cost of one clock read is taken
 *               off each sample
 *   stopping    a fixed count, or adaptively once the confidence interval of the
 *               mean is narrow enough (and the samples span min_time_s), the time
 *               budget is spent or the maximum count is reached
 *   preemption  samples during which the process was preempted (an involuntary
 *               context switch) are left out of the stop test and the result,
 *               unless too many were (samples.c)
 *
 * Timed regions (CULPRIT_REGION) let a body time only part of itself; they find the
 * running loop through a thread-local state, defined at the end of this file.
 *
 * The loop must stay cheap: in the batched inner loop it does nothing but call the
 * body and test its result; everything else happens once per sample.
 */
#include "measure_internal.h"
#include "culprit/core.h"
#include "culprit/measure.h"
#include "culprit/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Pairs of clock reads for the overhead calibration: enough for a stable median,
 * few enough to cost microseconds. */
#define OVERHEAD_ROUNDS 255
/* Automatic batching never goes beyond this many iterations per sample. */
#define MAX_BATCH (1u << 30)
/* Samples allocated at first in adaptive mode; arrays double from there. */
#define INITIAL_CAPACITY 64
#define MAX_PREALLOCATED 65536

/* ---- timed regions: thread-local state of the running loop -------------------- */

typedef struct {
    int active;
    const culprit_samples *owner; /* the measurement the state belongs to */
    culprit_clock clock;          /* a copy: the caller's struct may be gone */
    double overhead_ns;
    unsigned int depth;
    uint64_t start_ns;
    double sum_ns;
    unsigned int count;
} region_state;

/* Static storage, not a pointer into the loop's stack frame: when a CMocka assertion
 * longjmps out of the body the frame is gone, and a region in a later, unmeasured
 * body must not write into it. culprit_measure_samples_free() deactivates a state whose
 * owner it frees; the next culprit_measure_run() replaces it. */
static _Thread_local region_state region;

void culprit_measure_region_begin(void)
{
    if (!region.active)
        return;
    if (region.depth++ == 0)
        region.start_ns = region.clock.now_ns(region.clock.payload);
}

void culprit_measure_region_end(void)
{
    uint64_t now;
    double t;

    if (!region.active || region.depth == 0)
        return;
    /* Only the outermost region counts: inner ones are already inside it. */
    if (--region.depth > 0)
        return;
    now = region.clock.now_ns(region.clock.payload);
    /* Each region paid for one clock read, as a sample does. */
    t = (double)(now - region.start_ns) - region.overhead_ns;
    region.sum_ns += t > 0.0 ? t : 0.0;
    region.count++;
}

static void region_reset(void)
{
    region.depth = 0;
    region.sum_ns = 0.0;
    region.count = 0;
}

/* ---- names and options -------------------------------------------------------- */

const char *culprit_measure_stop_reason_name(culprit_stop_reason reason)
{
    switch (reason) {
    case CULPRIT_STOP_FIXED:
        return "fixed";
    case CULPRIT_STOP_PRECISION:
        return "precision";
    case CULPRIT_STOP_BUDGET:
        return "budget";
    case CULPRIT_STOP_MAX:
        return "max";
    case CULPRIT_STOP_FAILED:
        return "failed";
    case CULPRIT_STOP_DURATION:
        return "duration";
    }
    return "unknown";
}

int culprit_measure_options_init(culprit_measure_options *opts, unsigned int version)
{
    static const culprit_measure_options defaults = CULPRIT_MEASURE_OPTIONS_INIT;

    return culprit_options_init_from(opts, &defaults, sizeof(defaults), version,
                                     CULPRIT_MEASURE_OPTIONS_VERSION, "measure");
}

static int check_options(const culprit_measure_options *o, const culprit_measure_callbacks *cb)
{
    if (o->version != CULPRIT_MEASURE_OPTIONS_VERSION)
        return culprit_options_check_version(o->version, CULPRIT_MEASURE_OPTIONS_VERSION,
                                             "measure");
    if (!cb || !cb->body)
        return culprit_error_set(CULPRIT_EINVALID, "no body to measure");
    if (!(o->confidence > 0.0 && o->confidence < 1.0))
        return culprit_error_set(CULPRIT_EINVALID, "confidence %g is not in (0, 1)", o->confidence);
    if (o->repetitions == 0 && !(o->target_ci > 0.0))
        return culprit_error_set(CULPRIT_EINVALID, "target_ci %g is not positive", o->target_ci);
    if (!(o->min_sample_ns >= 0.0) || isnan(o->budget_s))
        return culprit_error_set(CULPRIT_EINVALID, "min_sample_ns or budget_s is invalid");
    if (!(o->min_time_s >= 0.0))
        return culprit_error_set(CULPRIT_EINVALID, "min_time_s %g is not a number of seconds >= 0",
                                 o->min_time_s);
    if (!(o->duration_s >= 0.0) || isnan(o->interval_s) ||
        (o->duration_s > 0 && o->interval_s > o->duration_s))
        return culprit_error_set(CULPRIT_EINVALID,
                                 "load test: duration %g s or interval %g s is invalid "
                                 "(the interval must not exceed the duration)",
                                 o->duration_s, o->interval_s);
    return 0;
}

/* ---- samples ------------------------------------------------------------------- */

void culprit_measure_samples_free(culprit_samples *samples)
{
    if (!samples)
        return;
    if (region.owner == samples) {
        region.active = 0;
        region.owner = NULL;
    }
    free(samples->wall_ns);
    free(samples->cpu_ns);
    free(samples->preempted_at);
    for (int i = 0; i < CULPRIT_COUNTER__COUNT; i++)
        free(samples->counters[i]);
    free(samples);
}

/* ---- the loop ------------------------------------------------------------------ */

typedef struct {
    const culprit_measure_options *opts;
    culprit_measure_fn body, setup, teardown;
    void *payload;
    const culprit_clock *clock, *cpu;
    culprit_counters *counters;              /* NULL when counters are off */
    const culprit_count_source *preemptions; /* NULL: the nivcsw counter, if any */
    culprit_samples *s;
    double cpu_overhead_ns;
    uint64_t start_ns;
    uint64_t first_ns;   /* when the first sample's window opened */
    double t_df, t_crit; /* cached Student t for the precision check */
} loop;

static int callback_failed(loop *l, const char *which, int rc)
{
    l->s->stop = CULPRIT_STOP_FAILED;
    return culprit_error_set(CULPRIT_ESKIP, "measured %s returned %d", which, rc);
}

/* One untimed repetition of a single iteration, setup and teardown included. */
static int run_untimed(loop *l)
{
    int rc;

    if (l->setup && (rc = l->setup(l->payload)) != 0)
        return callback_failed(l, "setup", rc);
    if ((rc = l->body(l->payload)) != 0)
        return callback_failed(l, "body", rc);
    if (l->teardown && (rc = l->teardown(l->payload)) != 0)
        return callback_failed(l, "teardown", rc);
    l->s->warmup++;
    return 0;
}

/*
 * Automatic batching: double k until one batch of k iterations lasts at least
 * min_sample_ns, so that the clock's resolution and read cost become small against
 * the sample. Google Benchmark does the same (benchmark_runner.cc, "iters" grows
 * until the run is long enough); doubling overshoots by less than 2x.
 */
static int calibrate_batch(loop *l, unsigned int *out)
{
    culprit_measure_fn body = l->body;
    void *payload = l->payload;
    unsigned int k = 1, i;
    uint64_t t0, t1;
    int rc = 0;

    *out = 1;
    for (;;) {
        t0 = l->clock->now_ns(l->clock->payload);
        for (i = 0; i < k && rc == 0; i++)
            rc = body(payload);
        t1 = l->clock->now_ns(l->clock->payload);
        if (rc != 0)
            return callback_failed(l, "body", rc);
        l->s->warmup += k;
        if ((double)(t1 - t0) - l->s->timer_overhead_ns >= l->opts->min_sample_ns || k >= MAX_BATCH)
            break;
        k *= 2;
    }
    *out = k;
    return 0;
}

static double positive(double x)
{
    return x > 0.0 ? x : 0.0;
}

/* Is the `confidence` CI half-width of the mean within target_ci of the mean? */
static int precise_enough(loop *l, const culprit_welford *w)
{
    double df = (double)(w->n - 1), half;

    /* gsl_cdf_tdist_Pinv costs about a microsecond; recompute it only when df has
     * grown by 1/8 beyond 64. A t from a smaller df is larger, so the cached value
     * errs on the side of more samples. */
    if (df != l->t_df && (df < 64 || df >= l->t_df * 1.125)) {
        l->t_crit = culprit_stats_t_critical(l->opts->confidence, df);
        l->t_df = df;
    }
    half = l->t_crit * culprit_stats_welford_sd(w) / sqrt((double)w->n);
    return half <= l->opts->target_ci * fabs(w->mean);
}

/* Returns 1 and sets s->stop when the loop should stop after this sample. `w` holds
 * the samples that will be judged: all of them, or the unpreempted ones. */
static int should_stop(loop *l, const culprit_welford *w, uint64_t now_ns)
{
    const culprit_measure_options *o = l->opts;
    culprit_samples *s = l->s;

    if (o->repetitions > 0) {
        /* A preempted sample is replaced, up to twice the count in all. */
        s->stop = CULPRIT_STOP_FIXED;
        return w->n >= o->repetitions || s->n >= 2 * (size_t)o->repetitions;
    }
    /* The precision rule waits until the samples span min_time_s: without it, a run
     * that starts in a quiet moment of a loaded machine reaches the target within
     * it and reports the quiet cost, while a run that meets the contention goes on to
     * the budget and reports it (docs/measure.md, "Stopping"). */
    if (w->n >= o->min_repetitions && w->n >= 2 &&
        (double)(now_ns - l->first_ns) >= o->min_time_s * 1e9 && precise_enough(l, w))
        s->stop = CULPRIT_STOP_PRECISION;
    else if (o->max_repetitions > 0 && s->n >= o->max_repetitions)
        s->stop = CULPRIT_STOP_MAX;
    else if (o->budget_s > 0.0 && (double)(now_ns - l->start_ns) >= o->budget_s * 1e9)
        s->stop = CULPRIT_STOP_BUDGET;
    else
        return 0;
    return 1;
}

static int sample_loop(loop *l, unsigned int k)
{
    culprit_measure_fn body = l->body;
    void *payload = l->payload;
    const culprit_clock *clock = l->clock, *cpu = l->cpu;
    culprit_samples *s = l->s;
    const culprit_count_source *src = l->preemptions;
    double before[CULPRIT_COUNTER__COUNT], after[CULPRIT_COUNTER__COUNT], wall;
    uint64_t t0, t1, c0, c1, now, p0 = 0;
    culprit_welford w;
    unsigned int i;
    int rc = 0, error, j, preempted;

    culprit_stats_welford_init(&w);
    for (;;) {
        if (s->n == s->capacity &&
            (error = culprit_measure__samples_reserve(s, s->capacity * 2)) < 0)
            return error;
        if (l->setup && (rc = l->setup(payload)) != 0)
            return callback_failed(l, "setup", rc);
        if (l->counters)
            culprit_measure_counters_read(l->counters, before);
        if (src)
            p0 = src->count(src->payload);
        region_reset();

        /* The timed window: the CPU clock outside the wall clock, because the wall
         * time is the primary series and the CPU clock is a system call. */
        c0 = cpu->now_ns(cpu->payload);
        t0 = clock->now_ns(clock->payload);
        for (i = 0; i < k; i++)
            if ((rc = body(payload)) != 0)
                break;
        t1 = clock->now_ns(clock->payload);
        c1 = cpu->now_ns(cpu->payload);
        if (s->n == 0)
            l->first_ns = t0;

        if (rc != 0)
            return callback_failed(l, "body", rc);
        if (l->counters)
            culprit_measure_counters_read(l->counters, after);
        /* Preempted: an involuntary context switch between the reads around the window. */
        preempted = src ? src->count(src->payload) != p0
                        : s->counters[CULPRIT_COUNTER_NIVCSW] &&
                              after[CULPRIT_COUNTER_NIVCSW] > before[CULPRIT_COUNTER_NIVCSW];
        if (l->teardown && (rc = l->teardown(payload)) != 0)
            return callback_failed(l, "teardown", rc);

        if (region.count > 0) {
            wall = region.sum_ns; /* each region already paid its clock read */
            s->used_region = 1;
        } else {
            wall = positive((double)(t1 - t0) - s->timer_overhead_ns);
        }
        s->wall_ns[s->n] = wall / k;
        s->cpu_ns[s->n] = positive((double)(c1 - c0) - l->cpu_overhead_ns) / k;
        for (j = 0; j < CULPRIT_COUNTER__COUNT; j++) {
            if (!s->counters[j])
                continue;
            s->counters[j][s->n] =
                j == CULPRIT_COUNTER_MAX_RSS_KB ? after[j] : (after[j] - before[j]) / k;
        }
        s->preempted_at[s->n] = (unsigned char)preempted;
        s->n++;
        if (!preempted || l->opts->keep_preempted)
            culprit_stats_welford_add(&w, s->wall_ns[s->n - 1]);

        /* The budget counts teardown too; without one, t1 is recent enough. */
        now = l->teardown ? clock->now_ns(clock->payload) : t1;
        if (should_stop(l, &w, now))
            return 0;
    }
}

/* ---- load-test mode -------------------------------------------------------------- */

/*
 * Calls the body until the duration has passed, timing every call (a load test's
 * calls are requests, long against the ~20-35 ns of two clock reads). Each call
 * goes into the interval's Welford accumulator; at the end of an interval its mean
 * becomes the sample and the accumulator is kept, so that after the warm-up cut the
 * kept intervals merge (Chan et al.) into exact statistics of every steady call
 * without a single call having been stored.
 */
static int load_loop(loop *l)
{
    const culprit_measure_options *o = l->opts;
    const culprit_clock *clock = l->clock, *cpu = l->cpu;
    culprit_samples *s = l->s;
    double interval_ns = (o->interval_s > 0 ? o->interval_s : o->duration_s / 60) * 1e9;
    double duration_ns = o->duration_s * 1e9, before[CULPRIT_COUNTER__COUNT],
           after[CULPRIT_COUNTER__COUNT];
    culprit_welford w, *kept = NULL;
    uint64_t start, from, t0, t1, c0, c1;
    int rc, error = 0;

    s->batch = 1;
    s->interval_s = interval_ns / 1e9;
    culprit_stats_welford_init(&w);
    culprit_stats_welford_init(&s->calls);
    if (!(kept = malloc(s->capacity * sizeof(*kept))))
        return CULPRIT_ERROR_NOMEM();
    if (l->counters)
        culprit_measure_counters_read(l->counters, before);
    c0 = cpu->now_ns(cpu->payload);
    start = from = clock->now_ns(clock->payload);
    for (;;) {
        if (l->setup && (rc = l->setup(l->payload)) != 0) {
            error = callback_failed(l, "setup", rc);
            goto cleanup;
        }
        region_reset();
        t0 = clock->now_ns(clock->payload);
        rc = l->body(l->payload);
        t1 = clock->now_ns(clock->payload);
        if (rc != 0) {
            error = callback_failed(l, "body", rc);
            goto cleanup;
        }
        if (l->teardown && (rc = l->teardown(l->payload)) != 0) {
            error = callback_failed(l, "teardown", rc);
            goto cleanup;
        }
        if (region.count > 0) {
            culprit_stats_welford_add(&w, region.sum_ns);
            s->used_region = 1;
        } else {
            culprit_stats_welford_add(&w, positive((double)(t1 - t0) - s->timer_overhead_ns));
        }
        if ((double)(t1 - from) < interval_ns)
            continue;
        /* The interval is over: one sample of per-call means. */
        if (s->n == s->capacity) {
            culprit_welford *grown = realloc(kept, 2 * s->capacity * sizeof(*kept));
            if (!grown) {
                error = CULPRIT_ERROR_NOMEM();
                goto cleanup;
            }
            kept = grown;
            if ((error = culprit_measure__samples_reserve(s, s->capacity * 2)) < 0)
                goto cleanup;
        }
        c1 = cpu->now_ns(cpu->payload);
        if (l->counters)
            culprit_measure_counters_read(l->counters, after);
        s->wall_ns[s->n] = w.mean;
        s->cpu_ns[s->n] = positive((double)(c1 - c0) - l->cpu_overhead_ns) / (double)w.n;
        for (int j = 0; j < CULPRIT_COUNTER__COUNT; j++)
            if (s->counters[j])
                s->counters[j][s->n] = j == CULPRIT_COUNTER_MAX_RSS_KB
                                           ? after[j]
                                           : (after[j] - before[j]) / (double)w.n;
        s->preempted_at[s->n] = 0; /* an interval is long: preempted or not, kept */
        kept[s->n++] = w;
        culprit_stats_welford_init(&w);
        memcpy(before, after, sizeof(before));
        c0 = c1;
        from = t1;
        if ((double)(t1 - start) >= duration_ns)
            break;
    }
    s->stop = CULPRIT_STOP_DURATION;
    s->warmup_intervals = culprit_stats_mser(s->wall_ns, s->n);
    for (size_t i = s->warmup_intervals; i < s->n; i++)
        culprit_stats_welford_merge(&s->calls, &kept[i]);
    for (size_t i = 0; i < s->warmup_intervals; i++)
        s->warmup += (unsigned int)kept[i].n;
    culprit_measure__samples_drop_front(s, s->warmup_intervals);
cleanup:
    free(kept);
    return error;
}

int culprit_measure_run(culprit_samples **out, const culprit_measure_options *opts,
                        const culprit_measure_callbacks *cb)
{
    culprit_measure_options defaults = CULPRIT_MEASURE_OPTIONS_INIT;
    region_state saved = region;
    culprit_samples *s = NULL;
    loop l;
    unsigned int k = 1, i;
    size_t capacity;
    int error;

    *out = NULL;
    if (!opts)
        opts = &defaults;
    if ((error = check_options(opts, cb)) < 0)
        return error;

    memset(&l, 0, sizeof(l));
    l.opts = opts;
    l.body = cb->body;
    l.setup = cb->setup;
    l.teardown = cb->teardown;
    l.payload = cb->payload;
    l.clock = opts->clock ? opts->clock : &culprit_clock_monotonic;
    l.cpu = opts->cpu_clock ? opts->cpu_clock : &culprit_clock_cpu;
    l.preemptions = opts->preemptions;

    if (!(s = calloc(1, sizeof(*s))))
        return CULPRIT_ERROR_NOMEM();
    /* Set before any callback runs: a longjmp out of the body leaves it to the caller. */
    *out = l.s = s;
    l.start_ns = l.clock->now_ns(l.clock->payload);
    s->stop = opts->repetitions > 0 ? CULPRIT_STOP_FIXED : CULPRIT_STOP_MAX;
    if (opts->counters && (error = culprit_measure__thread_counters(&l.counters)) < 0)
        goto cleanup;
    for (i = 0; l.counters && i < CULPRIT_COUNTER__COUNT; i++) {
        if (culprit_measure_counters_available(l.counters, i) &&
            !(s->counters[i] = malloc(sizeof(double)))) {
            error = CULPRIT_ERROR_NOMEM();
            goto cleanup;
        }
    }
    /* A fixed count is allocated at once unless it is huge; arrays grow anyway. */
    capacity = opts->repetitions > 0 && opts->repetitions <= MAX_PREALLOCATED ? opts->repetitions
                                                                              : INITIAL_CAPACITY;
    if ((error = culprit_measure__samples_reserve(s, capacity)) < 0)
        goto cleanup;

    s->timer_overhead_ns = culprit_measure_clock_overhead_ns(l.clock, OVERHEAD_ROUNDS);
    l.cpu_overhead_ns = culprit_measure_clock_overhead_ns(l.cpu, OVERHEAD_ROUNDS);

    region.active = 1;
    region.owner = s;
    region.clock = *l.clock;
    region.overhead_ns = s->timer_overhead_ns;
    region_reset();

    for (i = 0; i < opts->warmup; i++)
        if ((error = run_untimed(&l)) < 0)
            goto cleanup;
    if (opts->duration_s > 0) {
        error = load_loop(&l);
        goto cleanup;
    }

    /* Setup and teardown belong to one iteration each, so they force k = 1. */
    if (cb->setup || cb->teardown)
        k = 1;
    else if (opts->batch > 0)
        k = opts->batch;
    else if ((error = calibrate_batch(&l, &k)) < 0)
        goto cleanup;
    s->batch = k;

    error = sample_loop(&l, k);
    culprit_measure__settle_preempted(s, opts);

cleanup:
    s->elapsed_s = (double)(l.clock->now_ns(l.clock->payload) - l.start_ns) / 1e9;
    region = saved; /* a measurement inside a measured body restores the outer one */
    return error;
}
