/*
 * Quality of the counter detectors on generated data with a known structure
 * (tests/support/counters_synth.h): a CPU-like group and an I/O-like group of
 * correlated counters, an independent noisy counter and a constant one. In each
 * A/B case the new version writes `shift` times the bytes (write_bytes only: CPU
 * and wall time unchanged); in each A/A case it is another draw of the same code.
 *
 * The counter-cluster detector (Shang et al. 2015) judges the new run against the
 * newest earlier run; the association rules (Foo et al. 2010) are mined from the 10
 * earlier runs. A flag is correct when it names the shifted counter: a flagged
 * cluster that contains write_bytes, a flagged counter that is write_bytes.
 * Precision = correct flags / all flags (A/B and A/A cases together), recall = A/B
 * cases with a correct flag / A/B cases (Foo et al. eqs. 4 and 5), and the A/A false
 * alarm rate = A/A cases with any flag / A/A cases.
 *
 * Usage: bench_counters [--quick] [CASES]   (--quick: 20 cases of each kind, the
 * ctest size; default 200). Build with -DOBS=1000 for longer runs (the time per
 * test it prints then shows how the detectors scale). Exits 1 when recall or precision is below 0.9
 * or more than 10% of A/A cases raise an alarm.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "culprit/core.h"
#include "culprit/detect.h"
#include "support/counters_synth.h"

#ifndef HISTORY
#define HISTORY 10
#endif
#ifndef OBS
#define OBS 30
#endif

typedef struct {
    size_t cases, detected, correct, flags, aa_alarms;
    double seconds; /* spent in the detector */
} tally;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Counts the flagged clusters of a verdict into t. */
static void count_clusters(tally *t, const culprit_clusters_verdict *cv, int ab)
{
    int hit = 0, any = 0;

    for (size_t i = 0; i < cv->nclusters; i++) {
        const culprit_counter_cluster *c = &cv->clusters[i];
        int has = 0;
        if (!c->flagged)
            continue;
        for (size_t j = 0; j < c->ncounters; j++)
            has |= strcmp(c->counters[j], "write_bytes") == 0;
        t->flags++;
        any = 1;
        if (ab && has) {
            t->correct++;
            hit = 1;
        }
    }
    t->cases++;
    t->detected += hit;
    t->aa_alarms += !ab && any;
}

static void judge(tally *clusters, tally *calibrated, tally *rules, uint64_t seed, double shift)
{
    culprit_counter_table hist[HISTORY], now;
    culprit_clusters_verdict cv;
    culprit_rules_verdict rv;
    int ab = shift != 1.0, hit, any;
    double t0;

    for (int h = 0; h < HISTORY; h++)
        synth_table(&hist[h], OBS, seed * 100 + (uint64_t)h, 1.0);
    synth_table(&now, OBS, seed * 100 + 99, shift);

    t0 = now_s();
    if (culprit_detect_clusters(&cv, &hist[HISTORY - 1], &now, NULL) < 0) {
        fprintf(stderr, "bench_counters: %s\n", culprit_error_last());
        exit(2);
    }
    clusters->seconds += now_s() - t0;
    count_clusters(clusters, &cv, ab);
    culprit_detect_clusters_verdict_dispose(&cv);

    /* Calibrated on the A/A pair of the two newest earlier runs, as `culprit check`
     * does with two runs at one commit. */
    {
        const culprit_counter_table *pair[2] = {&hist[HISTORY - 2], &hist[HISTORY - 1]};
        culprit_clusters_options opts = CULPRIT_CLUSTERS_OPTIONS_INIT;
        char **names;
        double *errors;
        size_t n;
        t0 = now_s();
        if (culprit_detect_clusters_aa_errors(&names, &errors, &n, pair, 1, NULL) < 0) {
            fprintf(stderr, "bench_counters: %s\n", culprit_error_last());
            exit(2);
        }
        opts.aa_n = n;
        opts.aa_counters = (const char *const *)names;
        opts.aa_errors = errors;
        if (culprit_detect_clusters(&cv, &hist[HISTORY - 1], &now, &opts) < 0) {
            fprintf(stderr, "bench_counters: %s\n", culprit_error_last());
            exit(2);
        }
        calibrated->seconds += now_s() - t0;
        count_clusters(calibrated, &cv, ab);
        culprit_detect_clusters_verdict_dispose(&cv);
        culprit_detect_clusters_aa_dispose(names, errors, n);
    }

    t0 = now_s();
    if (culprit_detect_rules(&rv, hist, HISTORY, &now, NULL) < 0) {
        fprintf(stderr, "bench_counters: %s\n", culprit_error_last());
        exit(2);
    }
    rules->seconds += now_s() - t0;
    hit = any = 0;
    for (size_t i = 0; i < rv.ncounters; i++) {
        culprit_rules_options defaults = CULPRIT_RULES_OPTIONS_INIT;
        if (rv.counters[i].severity < defaults.min_severity)
            continue;
        rules->flags++;
        any = 1;
        if (ab && strcmp(rv.counters[i].counter, "write_bytes") == 0) {
            rules->correct++;
            hit = 1;
        }
    }
    rules->cases++;
    rules->detected += hit;
    rules->aa_alarms += !ab && any;
    culprit_detect_rules_verdict_dispose(&rv);

    culprit_detect_counter_table_dispose(&now);
    for (int h = 0; h < HISTORY; h++)
        culprit_detect_counter_table_dispose(&hist[h]);
}

static double ratio(size_t a, size_t b)
{
    return b ? (double)a / (double)b : 1.0;
}

/* Prints one detector's figures; returns 1 when a target is missed. */
static int report(const char *name, const tally *ab, const tally *aa)
{
    size_t flags = ab->flags + aa->flags;
    double precision = ratio(ab->correct, flags), recall = ratio(ab->detected, ab->cases);
    double alarms = ratio(aa->aa_alarms, aa->cases);

    printf("%-12s precision %.3f (%zu of %zu flags correct)  recall %.3f (%zu of %zu shifted "
           "cases)  A/A alarms %.3f (%zu of %zu)  %.2f ms per test\n",
           name, precision, ab->correct, flags, recall, ab->detected, ab->cases, alarms,
           aa->aa_alarms, aa->cases,
           1e3 * (ab->seconds + aa->seconds) / (double)(ab->cases + aa->cases));
    return precision < 0.9 || recall < 0.9 || alarms > 0.1;
}

int main(int argc, char **argv)
{
    size_t cases = 200;
    double shifts[] = {1.5, 1.25};
    int failed = 0;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            cases = 20;
        else
            cases = (size_t)strtoul(argv[i], NULL, 10);
    }
    printf("bench_counters: %zu A/B and %zu A/A cases, %d earlier runs of %d observations, 8 "
           "counters\n",
           cases, cases, HISTORY, OBS);
    for (size_t s = 0; s < sizeof(shifts) / sizeof(shifts[0]); s++) {
        tally c_ab = {0}, c_aa = {0}, k_ab = {0}, k_aa = {0}, r_ab = {0}, r_aa = {0};
        for (size_t k = 0; k < cases; k++) {
            judge(&c_ab, &k_ab, &r_ab, 1000 + k, shifts[s]);
            judge(&c_aa, &k_aa, &r_aa, 5000 + k, 1.0);
        }
        printf("write_bytes x %.2f:\n", shifts[s]);
        int missed = report("clusters", &c_ab, &c_aa) | report("rules", &r_ab, &r_aa);
        /* Reported only: one A/A pair is thin evidence for a threshold. */
        report("clusters+A/A", &k_ab, &k_aa);
        /* Targets apply to the case (a clear shift); 25% is reported only. */
        if (s == 0)
            failed |= missed;
    }
    return failed;
}
