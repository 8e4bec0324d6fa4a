/*
 * culprit measure: clocks, counters and the sampling loop (warm-up, automatic
 * batching, adaptive stopping, time budget). Everything that reads time takes an
 * injectable clock so the loop can be tested deterministically.
 */
#ifndef CULPRIT_MEASURE_H
#define CULPRIT_MEASURE_H

#include <stddef.h>
#include <stdint.h>

#include "culprit/stats.h"
#include "culprit/deprecated.h" /* the old names, until 0.2 */

#ifdef __cplusplus
extern "C" {
#endif

/** A clock: returns nanoseconds from an arbitrary origin. */
typedef struct culprit_clock {
    uint64_t (*now_ns)(void *payload);
    void *payload;
} culprit_clock;

/** CLOCK_MONOTONIC in ns (payload unused). */
uint64_t culprit_measure_clock_monotonic_ns(void *payload);
/** CLOCK_PROCESS_CPUTIME_ID in ns (payload unused). */
uint64_t culprit_measure_clock_cpu_ns(void *payload);

/** The two clocks above as culprit_clock values (the loop's defaults). */
extern const culprit_clock culprit_clock_monotonic;
extern const culprit_clock culprit_clock_cpu;

/**
 * Calibrates the cost of one clock read as the median, over `rounds` pairs, of the
 * difference between two back-to-back reads (what a timed empty region costs).
 * Thread-safe if the clock is.
 */
double culprit_measure_clock_overhead_ns(const culprit_clock *clock, unsigned int rounds);

/** The counters recorded per sample besides wall and CPU time. */
typedef enum {
    CULPRIT_COUNTER_USER_NS = 0,  /**< getrusage user time */
    CULPRIT_COUNTER_SYS_NS,       /**< getrusage system time */
    CULPRIT_COUNTER_MAX_RSS_KB,   /**< getrusage max RSS (a level, not a delta) */
    CULPRIT_COUNTER_MINFLT,       /**< minor page faults */
    CULPRIT_COUNTER_MAJFLT,       /**< major page faults */
    CULPRIT_COUNTER_NVCSW,        /**< voluntary context switches */
    CULPRIT_COUNTER_NIVCSW,       /**< involuntary context switches */
    CULPRIT_COUNTER_READ_BYTES,   /**< /proc/self/io rchar */
    CULPRIT_COUNTER_WRITE_BYTES,  /**< /proc/self/io wchar */
    CULPRIT_COUNTER_INSTRUCTIONS, /**< perf_event user-space instructions */
    CULPRIT_COUNTER_CYCLES,       /**< perf_event user-space cycles */
    CULPRIT_COUNTER__COUNT
} culprit_counter_id;

/** Stable series name of a counter, e.g. "user_ns", "minflt", "instructions". */
const char *culprit_measure_counter_name(culprit_counter_id id);

/** Open counter sources (the /proc/self/io descriptor, perf_event descriptors). */
typedef struct culprit_counters culprit_counters;

/**
 * Opens every counter source the kernel allows; never fails for a missing one.
 * The perf counters count the calling thread. Free with culprit_measure_counters_free().
 * Returns 0 or CULPRIT_ERROR when out of memory.
 */
int culprit_measure_counters_open(culprit_counters **out);
void culprit_measure_counters_free(culprit_counters *counters);
/**
 * 1 when the counter can be read on this machine, 0 when it is recorded as absent.
 * With `counters` NULL only the getrusage counters are available.
 */
int culprit_measure_counters_available(const culprit_counters *counters, culprit_counter_id id);
/** Reads every counter's current absolute value; NAN where absent. NULL: getrusage only. */
void culprit_measure_counters_read(const culprit_counters *counters,
                                   double values[CULPRIT_COUNTER__COUNT]);

/**
 * A running count read before and after each sample (returns the count so far).
 * The loop's preemption source: involuntary context switches (injectable for tests).
 */
typedef struct culprit_count_source {
    uint64_t (*count)(void *payload);
    void *payload;
} culprit_count_source;

/** One step of the measured code; return 0 to go on, non-zero to stop (failure). */
typedef int (*culprit_measure_fn)(void *payload);

typedef struct {
    unsigned int version;
    unsigned int warmup;            /**< untimed repetitions first (default 1) */
    unsigned int repetitions;       /**< > 0: exactly this many samples; 0: adaptive */
    unsigned int min_repetitions;   /**< adaptive: never stop before (default 10) */
    unsigned int max_repetitions;   /**< adaptive: never take more (default 100000; 0: no cap) */
    double target_ci;               /**< adaptive: stop at this relative CI half-width (0.01) */
    double confidence;              /**< of that interval (0.99) */
    double budget_s;                /**< adaptive: stop after this much time (5 s; <= 0: none) */
    unsigned int batch;             /**< iterations per sample: 0 automatic, k fixed */
    double min_sample_ns;           /**< automatic batching: make samples at least this long */
    int counters;                   /**< read counters per sample (default 1) */
    const culprit_clock *clock;     /**< NULL: CLOCK_MONOTONIC */
    const culprit_clock *cpu_clock; /**< NULL: CLOCK_PROCESS_CPUTIME_ID */
    double duration_s; /**< > 0: load-test mode, call the body for this long (docs/measure.md) */
    double interval_s; /**< load test: one sample per interval; <= 0: duration_s / 60 */
    double min_time_s; /**< adaptive: no precision stop before the samples span this long, so
                            that a quiet moment cannot end a run early (0.5 s; 0: none) */
    const culprit_count_source *preemptions; /**< NULL: the nivcsw counter (counters on) */
    int keep_preempted; /**< 1: judge the samples during which the process was preempted too
                             (0: leave them out, docs/measure.md "Preempted samples") */
} culprit_measure_options;

#define CULPRIT_MEASURE_OPTIONS_VERSION 1
#define CULPRIT_MEASURE_OPTIONS_INIT                                                               \
    {                                                                                              \
        CULPRIT_MEASURE_OPTIONS_VERSION, 1, 0, 10, 100000, 0.01, 0.99, 5.0, 0, 100000.0, 1, NULL,  \
            NULL, 0.0, 0.0, 0.5, NULL, 0                                                           \
    }

/** Fills `opts` with the defaults. Returns CULPRIT_EINVALID for an unknown version. */
int culprit_measure_options_init(culprit_measure_options *opts, unsigned int version);

typedef struct {
    culprit_measure_fn body;     /**< required: one iteration of the measured code */
    culprit_measure_fn setup;    /**< per repetition, untimed; NULL for none */
    culprit_measure_fn teardown; /**< per repetition, untimed; NULL for none */
    void *payload;
} culprit_measure_callbacks;

typedef enum {
    CULPRIT_STOP_FIXED = 0, /**< the fixed repetition count was reached */
    CULPRIT_STOP_PRECISION, /**< the CI reached the target half-width */
    CULPRIT_STOP_BUDGET,    /**< the time budget ran out */
    CULPRIT_STOP_MAX,       /**< max_repetitions was reached */
    CULPRIT_STOP_FAILED,    /**< a callback returned non-zero */
    CULPRIT_STOP_DURATION   /**< load test: the duration was reached */
} culprit_stop_reason;

/** "fixed", "precision", "budget", "max", "failed", "duration". */
const char *culprit_measure_stop_reason_name(culprit_stop_reason reason);

/** What one measurement produced. Values are per iteration (divided by the batch). */
typedef struct {
    size_t n;            /**< samples */
    size_t capacity;     /**< allocated samples per array */
    unsigned int batch;  /**< iterations per sample */
    unsigned int warmup; /**< warm-up (and calibration) iterations run, untimed */
    double *wall_ns;     /**< wall time per iteration, timer overhead subtracted */
    double *cpu_ns;      /**< process CPU time per iteration */
    double *counters[CULPRIT_COUNTER__COUNT]; /**< per iteration; NULL when absent or off */
    culprit_stop_reason stop;
    double timer_overhead_ns; /**< the calibrated cost subtracted from each sample */
    double elapsed_s;         /**< everything the loop spent, warm-up included */
    int used_region;          /**< 1 when samples came from CULPRIT_REGION, not the body */
    /* Load-test mode only (duration_s > 0): a sample is one interval, its values the
     * per-call means over that interval. */
    culprit_welford calls;   /**< every call of the steady state, exactly (Welford/Chan) */
    size_t warmup_intervals; /**< leading intervals discarded as warm-up (MSER) */
    double interval_s;       /**< the interval length used */
    /* Preemption (adaptive and fixed modes, docs/measure.md "Preempted samples"). */
    unsigned char *preempted_at; /**< per sample: 1 when the process was preempted during it */
    size_t preempted;            /**< preempted samples: left out, or kept when preempted_kept */
    int preempted_kept;          /**< 1: they are in the arrays (too many to leave out, or asked) */
} culprit_samples;

/**
 * Runs the sampling loop (docs/measure.md). With opts->duration_s > 0 it runs a load
 * test instead: after opts->warmup untimed calls, the body is called (with setup and
 * teardown around each call, untimed) until duration_s has passed, every call timed;
 * each interval of interval_s becomes one sample (the mean wall time per call, CPU
 * time and counters per call over the interval), the warm-up intervals are found by
 * culprit_stats_mser() on the interval means and dropped, and `calls` accumulates
 * every call of the rest without storing it. batch is 1, stop "duration"; the
 * repetition, precision and budget options do not apply. `*out` is set before the first callback
 * runs, so a caller whose callback never returns (a longjmp from a failed CMocka
 * assertion) still owns and frees it with culprit_measure_samples_free(), which also ends
 * the abandoned measurement's timed regions. NULL options mean the defaults.
 *
 * Warm-up repetitions run one iteration each (with setup and teardown); automatic
 * batching then runs its calibration batches, also counted in `warmup`.
 *
 * Samples during which the process was preempted (the `preemptions` count, else the
 * nivcsw counter, rose) are left out of the precision test and of the arrays, and
 * counted in `preempted`; a fixed count replaces them, taking at most twice
 * `repetitions` samples. When fewer than min_repetitions (fixed: repetitions) or
 * than half of the samples are left, or with keep_preempted, all are kept (a fixed
 * count its first `repetitions`) and `preempted_kept` says so. Load tests keep all.
 *
 * Returns 0, CULPRIT_ESKIP when a callback returned non-zero (stop =
 * CULPRIT_STOP_FAILED; the samples taken before are kept), CULPRIT_EINVALID for bad
 * options, or CULPRIT_ERROR when out of memory. Measures on the calling thread;
 * several threads may measure at once.
 */
int culprit_measure_run(culprit_samples **out, const culprit_measure_options *opts,
                        const culprit_measure_callbacks *cb);
/** Frees the samples and their arrays (each allocated with malloc). NULL is a no-op. */
void culprit_measure_samples_free(culprit_samples *samples);

/**
 * Timed regions: when the body calls these, a sample is the sum of its regions'
 * times instead of the body's (one clock-read overhead subtracted per region; CPU
 * time and counters still cover the whole body). Only the outermost region counts
 * when nested. Outside a measurement they do nothing. Thread-local.
 */
void culprit_measure_region_begin(void);
void culprit_measure_region_end(void);

/** Times only the statement or block that follows: `CULPRIT_REGION { work(); }`. */
#define CULPRIT_REGION                                                                             \
    for (int culprit__region_once = (culprit_measure_region_begin(), 1); culprit__region_once;     \
         culprit__region_once = (culprit_measure_region_end(), 0))

#ifdef __cplusplus
}
#endif

#endif
