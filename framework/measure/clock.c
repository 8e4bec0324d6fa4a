/*
 * Clocks for the sampling loop, and the calibration of what one clock read costs.
 *
 * Wall time comes from CLOCK_MONOTONIC (immune to NTP steps; on Linux read through
 * the vDSO, about 20 ns, no system call). CPU time comes from
 * CLOCK_PROCESS_CPUTIME_ID, which the kernel keeps in nanoseconds but which costs a
 * system call. Both are wrapped as culprit_clock values so the tests can inject a
 * scripted clock instead.
 */
#include "culprit/measure.h"
#include "culprit/stats.h"

#include <stdlib.h>
#include <time.h>

static uint64_t read_posix_clock(clockid_t id)
{
    struct timespec ts;

    /* clock_gettime cannot fail for these clock ids on Linux (clock_gettime(2)). */
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t culprit_measure_clock_monotonic_ns(void *payload)
{
    (void)payload;
    return read_posix_clock(CLOCK_MONOTONIC);
}

uint64_t culprit_measure_clock_cpu_ns(void *payload)
{
    (void)payload;
    return read_posix_clock(CLOCK_PROCESS_CPUTIME_ID);
}

const culprit_clock culprit_clock_monotonic = {culprit_measure_clock_monotonic_ns, NULL};
const culprit_clock culprit_clock_cpu = {culprit_measure_clock_cpu_ns, NULL};

double culprit_measure_clock_overhead_ns(const culprit_clock *clock, unsigned int rounds)
{
    double *diff, result;
    uint64_t t0, t1, best = UINT64_MAX;
    unsigned int i;

    if (rounds == 0)
        rounds = 1;
    /* The median, not the minimum: the minimum is the luckiest pair, and what the
     * loop subtracts from every sample should be the typical cost. */
    diff = malloc(rounds * sizeof(double));
    for (i = 0; i < rounds; i++) {
        t0 = clock->now_ns(clock->payload);
        t1 = clock->now_ns(clock->payload);
        if (t1 - t0 < best)
            best = t1 - t0;
        if (diff)
            diff[i] = (double)(t1 - t0);
    }
    if (!diff) /* out of memory: the minimum is still a safe under-estimate */
        return (double)best;
    culprit_stats_sort(diff, rounds);
    result = culprit_stats_quantile_sorted(diff, rounds, 0.5);
    free(diff);
    return result;
}
