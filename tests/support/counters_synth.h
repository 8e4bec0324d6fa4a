/*
 * Synthetic counter data with a known structure, for the tests of the counter
 * detectors and the quality benchmark (tests/bench/bench_counters.c): a CPU-like
 * group (wall_ns, cpu_ns, instructions) driven by one latent factor, an I/O-like
 * group (read_bytes, write_bytes, nvcsw) driven by another, an independent noisy
 * counter (minflt) and a constant one (majflt). `write_scale` multiplies
 * write_bytes only: more bytes written per call while CPU and wall time stay.
 * Deterministic for a seed (xorshift64* and Box-Muller; no libc rand()).
 */
#ifndef CULPRIT_TESTS_SUPPORT_COUNTERS_SYNTH_H
#define CULPRIT_TESTS_SUPPORT_COUNTERS_SYNTH_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "culprit/detect.h"
#include "culprit/stats.h"

#define SYNTH_COUNTERS 8

static const char *const synth_names[SYNTH_COUNTERS] = {
    "wall_ns", "cpu_ns", "instructions", "read_bytes", "write_bytes", "nvcsw", "minflt", "majflt"};

typedef struct {
    uint64_t s;
} synth_rng;

static inline double synth_uniform(synth_rng *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return ((double)((r->s * 2685821657736338717ull) >> 11) + 0.5) / 9007199254740992.0;
}

static inline double synth_normal(synth_rng *r)
{
    double u = synth_uniform(r), v = synth_uniform(r);
    return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

/* n observations into `out` (columns malloc'd by the table). */
static inline int synth_table(culprit_counter_table *out, size_t n, uint64_t seed,
                              double write_scale)
{
    synth_rng r = {seed * 0x9E3779B97F4A7C15ull + 1};
    double *cols[SYNTH_COUNTERS];
    int error;

    for (int c = 0; c < SYNTH_COUNTERS; c++)
        cols[c] = malloc(n * sizeof(double));
    for (size_t i = 0; i < n; i++) {
        double cpu = synth_normal(&r), io = synth_normal(&r);
        cols[0][i] = 1e6 * (1 + 0.05 * cpu + 0.02 * synth_normal(&r));
        cols[1][i] = 0.95e6 * (1 + 0.05 * cpu + 0.02 * synth_normal(&r));
        cols[2][i] = 2e6 * (1 + 0.05 * cpu + 0.02 * synth_normal(&r));
        cols[3][i] = 4096 * (10 + 1.0 * io + 0.4 * synth_normal(&r));
        cols[4][i] = write_scale * 4096 * (5 + 0.5 * io + 0.2 * synth_normal(&r));
        cols[5][i] = 20 + 2 * io + 0.8 * synth_normal(&r);
        cols[6][i] = 100 + 3 * synth_normal(&r);
        cols[7][i] = 0;
    }
    error = culprit_detect_counter_table_init(out, synth_names, (const double *const *)cols,
                                              SYNTH_COUNTERS, n);
    for (int c = 0; c < SYNTH_COUNTERS; c++)
        free(cols[c]);
    return error;
}

/*
 * Gives result `t` the series of synth_table() and the summary of its wall_ns (what
 * the time verdict reads): a stored result with counters, for the check tests.
 * Returns 0 or a negative error.
 */
static inline int synth_result(culprit_test_result *t, size_t n, uint64_t seed, double write_scale)
{
    culprit_counter_table table;
    int error;

    if ((error = synth_table(&table, n, seed, write_scale)) < 0)
        return error;
    for (size_t c = 0; c < table.ncounters && error == 0; c++)
        error =
            culprit_history_test_result_add_series(t, table.names[c], table.values[c], table.n, 0);
    if (error == 0)
        error = culprit_stats_summarize(&t->summary, table.values[0], table.n, 0.99);
    culprit_detect_counter_table_dispose(&table);
    return error;
}

#endif
