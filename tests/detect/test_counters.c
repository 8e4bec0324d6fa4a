/*
 * Tests of the counter detectors (framework/detect/clusters.c and rules.c): each
 * step of Shang et al. 2015 §4 (zero-variance drop, redundancy, the KS choice of
 * the dependent counter, the fit on the old version and its prediction error on
 * the new one) and of Foo et al. 2010 §IV (discretization, Apriori, confidence
 * change, severity), on synthetic data with known answers. Values computed by hand
 * or with Python are cited next to each assertion.
 */
#include "support/test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "culprit/core.h"
#include "culprit/detect.h"
#include "culprit/stats.h"
#include "support/counters_synth.h"
#include "support/near.h"

static int in_list(char *const *list, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i], name) == 0)
            return 1;
    return 0;
}

static const culprit_counter_cluster *cluster_of(const culprit_clusters_verdict *v,
                                                 const char *name)
{
    for (size_t i = 0; i < v->nclusters; i++)
        if (in_list(v->clusters[i].counters, v->clusters[i].ncounters, name))
            return &v->clusters[i];
    return NULL;
}

static void detector_names_parse(void **state)
{
    unsigned int set = 0;
    (void)state;
    assert_int_equal(culprit_detect_detector_parse(&set, "time,clusters,rules"), 0);
    assert_int_equal(set,
                     CULPRIT_DETECTOR_TIME | CULPRIT_DETECTOR_CLUSTERS | CULPRIT_DETECTOR_RULES);
    assert_int_equal(culprit_detect_detector_parse(&set, "rules"), 0);
    assert_int_equal(set, CULPRIT_DETECTOR_RULES);
    assert_int_equal(culprit_detect_detector_parse(&set, "time,cluster"), CULPRIT_EINVALID);
    assert_non_null(strstr(culprit_error_last(), "'cluster'"));
    assert_int_equal(culprit_detect_detector_parse(&set, ""), CULPRIT_EINVALID);
    assert_string_equal(culprit_detect_detector_name(CULPRIT_DETECTOR_CLUSTERS), "clusters");
}

static void counter_table_keeps_series_present_everywhere(void **state)
{
    culprit_run *run;
    culprit_test_result *a, *b;
    culprit_counter_table t;
    const double w1[] = {1, 2, 3}, w2[] = {4, 5}, c1[] = {7, 8, 9}, c2[] = {10, 11};
    const double bad[] = {1, NAN};
    (void)state;
    assert_int_equal(culprit_history_run_new(&run), 0);
    assert_int_equal(culprit_history_run_add_test(&a, run), 0);
    assert_int_equal(culprit_history_test_result_add_series(a, "wall_ns", w1, 3, 0), 0);
    assert_int_equal(culprit_history_test_result_add_series(a, "cpu_ns", c1, 3, 0), 0);
    assert_int_equal(culprit_history_test_result_add_series(a, "cycles", NULL, 0, 1), 0);
    assert_int_equal(culprit_history_run_add_test(&b, run), 0);
    assert_int_equal(culprit_history_test_result_add_series(b, "wall_ns", w2, 2, 0), 0);
    assert_int_equal(culprit_history_test_result_add_series(b, "cpu_ns", c2, 2, 0), 0);
    assert_int_equal(culprit_history_test_result_add_series(b, "minflt", bad, 2, 0), 0);
    const culprit_test_result *both[2] = {&run->tests[0], &run->tests[1]};
    assert_int_equal(culprit_detect_counter_table_from_results(&t, both, 2), 0);
    /* Absent cycles and the minflt missing from a are left out; rows stacked. */
    assert_int_equal(t.ncounters, 2);
    assert_int_equal(t.n, 5);
    assert_string_equal(t.names[1], "cpu_ns");
    assert_near(t.values[1][3], 10, 0);
    assert_int_equal(culprit_detect_counter_table_find(&t, "cycles"), -1);
    culprit_detect_counter_table_dispose(&t);
    culprit_history_run_free(run);
}

static void clusters_drop_constant_and_redundant_counters(void **state)
{
    culprit_counter_table old, now;
    culprit_clusters_verdict v;
    double a[40], b[40], sum[40], flat[40], c[40], steady[40];
    const char *names[] = {"a", "b", "sum", "flat", "c", "steady"};
    const double *cols[] = {a, b, sum, flat, c, steady};
    synth_rng r = {42};
    (void)state;
    for (int i = 0; i < 40; i++) {
        a[i] = 10 + synth_normal(&r);
        b[i] = 5 + synth_normal(&r);
        sum[i] = a[i] + 2 * b[i]; /* exactly predicted: R^2 = 1 */
        flat[i] = 3;              /* zero variance in both versions */
        c[i] = 7 + synth_normal(&r);
        steady[i] = i < 20 ? 1 : 2; /* constant in old, constant (other value) in new */
    }
    assert_int_equal(culprit_detect_counter_table_init(&old, names, cols, 6, 20), 0);
    const double *later[] = {a + 20, b + 20, sum + 20, flat + 20, c + 20, steady + 20};
    assert_int_equal(culprit_detect_counter_table_init(&now, names, later, 6, 20), 0);
    assert_int_equal(culprit_detect_clusters(&v, &old, &now, NULL), 0);
    assert_true(v.judged);
    /* §4.1: zero variance in both versions, whatever the level. */
    assert_int_equal(v.nconstant, 2);
    assert_true(in_list(v.constant, v.nconstant, "flat"));
    assert_true(in_list(v.constant, v.nconstant, "steady"));
    /* Redundancy: one of a, b, sum (each exactly the others' combination, R^2 = 1)
     * goes first; then no more (the other two are independent draws). */
    assert_int_equal(v.nredundant, 1);
    assert_near(v.redundant_r2[0], 1.0, 1e-9);
    assert_true(in_list(v.redundant, 1, "a") || in_list(v.redundant, 1, "b") ||
                in_list(v.redundant, 1, "sum"));
    culprit_detect_clusters_verdict_dispose(&v);
    culprit_detect_counter_table_dispose(&old);
    culprit_detect_counter_table_dispose(&now);
}

static void clusters_flag_the_shifted_io_group_only(void **state)
{
    culprit_counter_table old, now;
    culprit_clusters_verdict v;
    (void)state;
    assert_int_equal(synth_table(&old, 60, 1, 1.0), 0);
    assert_int_equal(synth_table(&now, 60, 2, 1.5), 0);
    assert_int_equal(culprit_detect_clusters(&v, &old, &now, NULL), 0);
    assert_true(v.judged);
    assert_true(in_list(v.constant, v.nconstant, "majflt"));
    const culprit_counter_cluster *io = cluster_of(&v, "write_bytes");
    assert_non_null(io);
    /* §4.3.1: write_bytes is the counter whose distribution changed (KS p tiny). */
    assert_string_equal(io->counters[0], "write_bytes");
    assert_true(io->ks_p < 1e-6);
    /* Written 1.5x while its regressors stay: the model predicts the old level, an
     * error near 0.5 / 1.5 = 1/3 (by hand), above the 30% threshold. */
    assert_true(io->flagged);
    assert_true(io->error > 0.3 && io->error < 0.45);
    for (size_t i = 0; i < v.nclusters; i++)
        if (&v.clusters[i] != io)
            assert_false(v.clusters[i].flagged);
    /* Clusters are sorted by error: the regressed one first. */
    assert_ptr_equal(io, &v.clusters[0]);
    assert_non_null(strstr(v.message, "write_bytes"));
    culprit_detect_clusters_verdict_dispose(&v);
    culprit_detect_counter_table_dispose(&now);
    /* A/A: another draw of the same code. */
    assert_int_equal(synth_table(&now, 60, 3, 1.0), 0);
    assert_int_equal(culprit_detect_clusters(&v, &old, &now, NULL), 0);
    assert_true(v.judged);
    assert_false(v.flagged);
    culprit_detect_clusters_verdict_dispose(&v);
    culprit_detect_counter_table_dispose(&old);
    culprit_detect_counter_table_dispose(&now);
}

/* A whole run slowed by the machine separates wall time from the old run as fully as
 * an 8x change separates the bytes written (KS p and D equal): the dependent counter
 * is then the one that moved most, and the cluster is flagged for it. */
static void clusters_take_the_counter_that_moved_most_among_ties(void **state)
{
    static const char *const names[] = {"wall_ns", "write_bytes", "ctx"};
    enum { N = 40 };
    double old_v[3][N], new_v[3][N];
    const double *old_c[3] = {old_v[0], old_v[1], old_v[2]};
    const double *new_c[3] = {new_v[0], new_v[1], new_v[2]};
    culprit_counter_table old, now;
    culprit_clusters_verdict v;
    synth_rng r = {12345};
    (void)state;

    for (size_t i = 0; i < N; i++) {
        old_v[0][i] = 1e6 * (1 + 0.01 * synth_normal(&r));
        new_v[0][i] = 1.12e6 * (1 + 0.01 * synth_normal(&r)); /* +12%, fully apart */
        old_v[1][i] = 4096 * (5 + 0.05 * synth_normal(&r));
        new_v[1][i] = 8 * 4096 * (5 + 0.05 * synth_normal(&r)); /* 8x */
        old_v[2][i] = 100 + 3 * synth_normal(&r);
        new_v[2][i] = 100 + 3 * synth_normal(&r);
    }
    assert_int_equal(culprit_detect_counter_table_init(&old, names, old_c, 3, N), 0);
    assert_int_equal(culprit_detect_counter_table_init(&now, names, new_c, 3, N), 0);
    assert_int_equal(culprit_detect_clusters(&v, &old, &now, NULL), 0);
    assert_true(v.judged);
    const culprit_counter_cluster *io = cluster_of(&v, "write_bytes");
    assert_non_null(io);
    assert_string_equal(io->counters[0], "write_bytes");
    assert_true(io->flagged);
    culprit_detect_clusters_verdict_dispose(&v);
    culprit_detect_counter_table_dispose(&old);
    culprit_detect_counter_table_dispose(&now);
}

static void clusters_error_of_a_fit_on_the_old_version(void **state)
{
    culprit_counter_table old, now;
    culprit_clusters_verdict v;
    double y[30], noise[30], other[30];
    const char *names[] = {"y", "noise", "other"};
    const double *cols[] = {y, noise, other};
    synth_rng r = {7};
    (void)state;
    /* y alternates 110/90 in old (8 x 110 and 7 x 90: mean 1510 / 15) and is 150
     * throughout the new version.
     * "other" is "noise" plus a little (R^2 > 0.99: redundant, dropped), which leaves
     * two counters, each a cluster of its own (Calinski-Harabasz needs three). The
     * model of y is then the old mean: error = sum |150 - 1510/15| / sum 150 =
     * (150 - 100.667) / 150 = 0.32889 (by hand). */
    for (int i = 0; i < 30; i++) {
        y[i] = i < 15 ? (i % 2 ? 90 : 110) : 150;
        noise[i] = 50 + synth_normal(&r);
        other[i] = noise[i] + 0.01 * synth_normal(&r);
    }
    assert_int_equal(culprit_detect_counter_table_init(&old, names, cols, 3, 15), 0);
    const double *later[] = {y + 15, noise + 15, other + 15};
    assert_int_equal(culprit_detect_counter_table_init(&now, names, later, 3, 15), 0);
    assert_int_equal(culprit_detect_clusters(&v, &old, &now, NULL), 0);
    const culprit_counter_cluster *c = cluster_of(&v, "y");
    assert_non_null(c);

    assert_int_equal(c->ncounters, 1);
    assert_near(c->error, (150 - 1510.0 / 15) / 150, 1e-12);
    assert_true(c->flagged);
    culprit_detect_clusters_verdict_dispose(&v);
    /* A threshold above the error does not flag. */
    culprit_clusters_options opts;
    assert_int_equal(culprit_detect_clusters_options_init(&opts, CULPRIT_CLUSTERS_OPTIONS_VERSION),
                     0);
    opts.threshold = 0.33;
    assert_int_equal(culprit_detect_clusters(&v, &old, &now, &opts), 0);
    assert_false(v.flagged);
    culprit_detect_clusters_verdict_dispose(&v);
    /* Too few observations: not judged, and it says why. */
    opts.min_observations = 16;
    assert_int_equal(culprit_detect_clusters(&v, &old, &now, &opts), 0);
    assert_false(v.judged);
    assert_non_null(strstr(v.message, "15 observations"));
    culprit_detect_clusters_verdict_dispose(&v);
    culprit_detect_counter_table_dispose(&old);
    culprit_detect_counter_table_dispose(&now);
}

static void clusters_aa_errors_calibrate_per_counter(void **state)
{
    culprit_counter_table t[4], now;
    const culprit_counter_table *pairs[4] = {&t[0], &t[1], &t[2], &t[3]};
    culprit_clusters_options opts;
    culprit_clusters_verdict v;
    char **names;
    double *errors;
    size_t n;
    (void)state;
    for (int i = 0; i < 4; i++)
        assert_int_equal(synth_table(&t[i], 40, (uint64_t)(100 + i), 1.0), 0);
    assert_int_equal(culprit_detect_clusters_aa_errors(&names, &errors, &n, pairs, 2, NULL), 0);
    /* Every counter has an A/A error: its relative noise, a few percent; the
     * constant majflt none (its old mean predicts it exactly). */
    assert_int_equal(n, SYNTH_COUNTERS);
    for (size_t i = 0; i < n; i++) {
        assert_true(errors[i] >= 0 && errors[i] < 0.15);
        if (strcmp(names[i], "majflt") == 0)
            assert_near(errors[i], 0, 0);
    }
    /* Calibrated: every cluster's threshold is max(10%, 2 x the A/A error of its
     * dependent counter), below the default 30%, so a 25% shift of write_bytes (error ~0.2,
     * missed at 30%) is caught. */
    assert_int_equal(culprit_detect_clusters_options_init(&opts, CULPRIT_CLUSTERS_OPTIONS_VERSION),
                     0);
    opts.aa_n = n;
    opts.aa_counters = (const char *const *)names;
    opts.aa_errors = errors;
    assert_int_equal(synth_table(&now, 40, 7, 1.25), 0);
    assert_int_equal(culprit_detect_clusters(&v, &t[0], &now, &opts), 0);
    assert_true(v.calibrated);
    const culprit_counter_cluster *io = cluster_of(&v, "write_bytes");
    assert_non_null(io);
    assert_true(io->calibrated);
    assert_true(io->threshold >= 0.10 && io->threshold < 0.2);
    assert_true(io->flagged);
    for (size_t i = 0; i < v.nclusters; i++)
        if (&v.clusters[i] != io)
            assert_false(v.clusters[i].flagged);
    culprit_detect_clusters_verdict_dispose(&v);
    culprit_detect_clusters_aa_dispose(names, errors, n);
    culprit_detect_counter_table_dispose(&now);
    for (int i = 0; i < 4; i++)
        culprit_detect_counter_table_dispose(&t[i]);
}

/* ------------------------------------------------------------------ rules --- */

static void rules_levels_follow_foo_figure5(void **state)
{
    (void)state;
    /* Foo's example: median 74, sd 14: medium spans 60..88. */
    assert_int_equal(culprit_detect_rules_level(59.9, 74, 14), CULPRIT_LEVEL_LOW);
    assert_int_equal(culprit_detect_rules_level(60, 74, 14), CULPRIT_LEVEL_MEDIUM);
    assert_int_equal(culprit_detect_rules_level(88, 74, 14), CULPRIT_LEVEL_MEDIUM);
    assert_int_equal(culprit_detect_rules_level(88.1, 74, 14), CULPRIT_LEVEL_HIGH);
    assert_int_equal(culprit_detect_rules_level(5, 5, 0), CULPRIT_LEVEL_MEDIUM);
    assert_string_equal(culprit_detect_level_name(CULPRIT_LEVEL_HIGH), "high");
}

static void rules_confidence_change_is_cosine_distance(void **state)
{
    (void)state;
    /* Python, eq. 1 by hand: 1 - (b n + (1-b)(1-n)) / (|V_b| |V_n|). */
    assert_near(culprit_detect_rules_confidence_change(0.9, 0.2), 0.6518134703963729, 1e-14);
    assert_near(culprit_detect_rules_confidence_change(0.95, 0.8), 0.01845101291904505, 1e-14);
    assert_near(culprit_detect_rules_confidence_change(1, 0), 1, 1e-15);
    assert_near(culprit_detect_rules_confidence_change(0.8, 0.8), 0, 1e-15);
}

static void rules_apriori_matches_brute_force(void **state)
{
    /* 10 transactions of 3 counters (levels 0 low, 1 medium, 2 high). A Python
     * brute force over every itemset (min support 0.3, min confidence 0.8) finds 7
     * frequent itemsets and these 6 rules: (0=1 => 1=1, s 0.7, c 0.875),
     * (0=1 => 2=1, 0.7, 0.875), (2=1 => 1=1, 0.8, 8/9), (1=1 => 2=1, 0.8, 8/9),
     * (0=1, 2=1 => 1=1, 0.6, 6/7), (0=1, 1=1 => 2=1, 0.6, 6/7). */
    const unsigned char t[] = {1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1,
                               1, 1, 1, 1, 2, 1, 1, 1, 1, 2, 1, 1, 1, 1, 1};
    culprit_rule *rules;
    size_t n;
    (void)state;
    assert_int_equal(culprit_detect_rules_mine(&rules, &n, t, 10, 3, 0.3, 0.8, 3), 0);
    assert_int_equal(n, 6);
    assert_int_equal(rules[0].npremise, 1);
    assert_int_equal(rules[0].premise[0].counter, 0);
    assert_int_equal(rules[0].consequent.counter, 1);
    assert_near(rules[0].support, 0.7, 1e-15);
    assert_near(rules[0].confidence, 0.875, 1e-15);
    assert_int_equal(rules[2].premise[0].counter, 2);
    assert_int_equal(rules[2].consequent.counter, 1);
    assert_near(rules[2].confidence, 8.0 / 9.0, 1e-15);
    assert_int_equal(rules[4].npremise, 2);
    assert_int_equal(rules[4].consequent.counter, 1);
    assert_near(rules[4].support, 0.6, 1e-15);
    assert_near(rules[4].confidence, 6.0 / 7.0, 1e-15);
    free(rules);
    /* Itemsets capped at 2 items: the two 3-item rules go. */
    assert_int_equal(culprit_detect_rules_mine(&rules, &n, t, 10, 3, 0.3, 0.8, 2), 0);
    assert_int_equal(n, 4);
    free(rules);
}

/* A run of `n` windows of counters a, b, c: a and c always 10 (medium), b 10 except
 * in windows where `b_high` says 11, plus an alternation giving each some spread. */
static int levels_run(culprit_counter_table *out, size_t n, size_t b_high_from)
{
    double a[64], b[64], c[64];
    const char *names[] = {"a", "b", "c"};
    const double *cols[] = {a, b, c};
    for (size_t i = 0; i < n; i++) {
        a[i] = 10 + (i % 10 == 9 ? 1 : 0); /* one window in ten is high */
        b[i] = i >= b_high_from ? 14 : 10 + (i % 10 == 9 ? 1 : 0);
        c[i] = 10 + (i % 10 == 4 ? -1 : 0);
    }
    return culprit_detect_counter_table_init(out, names, cols, 3, n);
}

static void rules_detector_flags_the_changed_counter_with_its_severity(void **state)
{
    culprit_counter_table hist[3], now;
    culprit_rules_verdict v;
    (void)state;
    for (int h = 0; h < 3; h++)
        assert_int_equal(levels_run(&hist[h], 20, 99), 0);
    /* History: a and b move together (high together in 1 window of 10), so
     * a=medium => b=medium holds with confidence 1. The new run: b is high (14)
     * from window 8 of 20 on, while a stays: 12 windows, severity 12/20 = 0.6 when
     * every violating window is counted (by hand). */
    assert_int_equal(levels_run(&now, 20, 8), 0);
    assert_int_equal(culprit_detect_rules(&v, hist, 3, &now, NULL), 0);
    assert_true(v.judged);
    assert_true(v.flagged);
    assert_int_equal(v.history_windows, 60);
    assert_int_equal(v.new_windows, 20);
    assert_true(v.ncounters >= 1);
    assert_string_equal(v.counters[0].counter, "b");
    /* Windows 8..19 have b high; of them, 9 and 19 have a high too, but c=medium
     * => b=medium is violated there as well: all 12 windows. */
    assert_near(v.counters[0].severity, 0.6, 1e-12);
    assert_true(v.counters[0].nrules >= 1);
    assert_non_null(strstr(v.counters[0].rules[0].text, "=> b=medium"));
    assert_near(v.counters[0].rules[0].conf_base, 1.0, 1e-12);
    for (size_t i = 1; i < v.counters[0].nrules; i++)
        assert_true(v.counters[0].rules[i - 1].change >= v.counters[0].rules[i].change);
    for (size_t i = 0; i < v.ncounters; i++)
        if (strcmp(v.counters[i].counter, "b") != 0)
            assert_true(v.counters[i].severity < v.counters[0].severity);
    culprit_detect_rules_verdict_dispose(&v);
    culprit_detect_counter_table_dispose(&now);
    /* A/A: the same habits, nothing flagged. */
    assert_int_equal(levels_run(&now, 20, 99), 0);
    assert_int_equal(culprit_detect_rules(&v, hist, 3, &now, NULL), 0);
    assert_true(v.judged);
    assert_int_equal(v.ncounters, 0);
    assert_false(v.flagged);
    culprit_detect_rules_verdict_dispose(&v);
    /* Too little history: not judged. */
    assert_int_equal(culprit_detect_rules(&v, hist, 0, &now, NULL), 0);
    assert_false(v.judged);
    assert_non_null(strstr(v.message, "not judged"));
    culprit_detect_rules_verdict_dispose(&v);
    culprit_detect_counter_table_dispose(&now);
    for (int h = 0; h < 3; h++)
        culprit_detect_counter_table_dispose(&hist[h]);
}

static void rules_windows_are_medians(void **state)
{
    culprit_counter_table hist[2], now;
    culprit_rules_verdict v;
    culprit_rules_options opts;
    (void)state;
    for (int h = 0; h < 2; h++)
        assert_int_equal(levels_run(&hist[h], 60, 99), 0);
    assert_int_equal(levels_run(&now, 60, 99), 0);
    assert_int_equal(culprit_detect_rules_options_init(&opts, CULPRIT_RULES_OPTIONS_VERSION), 0);
    opts.window = 5;
    assert_int_equal(culprit_detect_rules(&v, hist, 2, &now, &opts), 0);
    /* 60 observations in windows of 5: 12 per run. */
    assert_int_equal(v.history_windows, 24);
    assert_int_equal(v.new_windows, 12);
    culprit_detect_rules_verdict_dispose(&v);
    culprit_detect_counter_table_dispose(&now);
    for (int h = 0; h < 2; h++)
        culprit_detect_counter_table_dispose(&hist[h]);
}

/* ------------------------------------------------------------------ check --- */

/* A run of suite "io" at `commit` with one test "journal" of synthetic counters. */
static culprit_run *counter_run(const char *commit, const char *stamp, uint64_t seed,
                                double write_scale, int dirty)
{
    culprit_run *run;
    culprit_test_result *t;

    assert_int_equal(culprit_history_run_new(&run), 0);
    culprit_str_set(&run->suite, "io");
    culprit_str_set(&run->commit, commit);
    culprit_str_set(&run->timestamp, stamp);
    culprit_str_set(&run->machine, "m");
    run->dirty = dirty;
    assert_int_equal(culprit_history_run_add_test(&t, run), 0);
    culprit_str_set(&t->name, "journal");
    culprit_str_set(&t->classname, "io");
    culprit_str_set(&t->metric, "wall_ns");
    t->status = CULPRIT_STATUS_PASS;
    assert_int_equal(synth_result(t, 40, seed, write_scale), 0);
    return run;
}

static void check_runs_the_counter_detectors_with_a_calibration(void **state)
{
    culprit_run *all[5];
    culprit_history_runs runs = {5, all, 0};
    const char *bases[] = {"b", "a"};
    culprit_check_options opts = CULPRIT_CHECK_OPTIONS_INIT;
    culprit_check_result r;
    (void)state;
    all[0] = counter_run("a", "2024-01-01T00:00:00Z", 1, 1.0, 0);
    all[1] = counter_run("b", "2024-01-02T00:00:00Z", 2, 1.0, 0);
    all[2] = counter_run("b", "2024-01-02T01:00:00Z", 4, 1.0, 0); /* A/A with all[1] */
    all[3] = counter_run("b", "2024-01-02T02:00:00Z", 3, 1.0, 1); /* dirty: not A/A, no baseline */
    all[4] = counter_run("c", "2024-01-03T00:00:00Z", 5, 2.0, 0); /* 2x write_bytes */

    /* Time only (the default): no counter verdicts. */
    assert_int_equal(culprit_detect_check(&r, &runs, "c", bases, 2, &opts), 0);
    assert_null(r.clusters);
    assert_null(r.rules);
    assert_int_equal(r.detectors, CULPRIT_DETECTOR_TIME);
    culprit_detect_check_result_dispose(&r);

    opts.detectors = CULPRIT_DETECTOR_CLUSTERS | CULPRIT_DETECTOR_RULES;
    assert_int_equal(culprit_detect_check(&r, &runs, "c", bases, 2, &opts), 0);
    assert_int_equal(r.n, 1);
    assert_non_null(r.clusters);
    assert_non_null(r.rules);
    /* One clean A/A pair at b (the dirty run is left out). */
    assert_true(r.clusters[0].judged);
    assert_int_equal(r.clusters[0].aa_pairs, 1);
    assert_true(r.clusters[0].calibrated);
    assert_true(r.clusters[0].flagged);
    assert_string_equal(r.clusters[0].clusters[0].counters[0], "write_bytes");
    /* Rules from the newest run at each of b and a. */
    assert_true(r.rules[0].judged);
    assert_int_equal(r.rules[0].history_runs, 2);
    assert_true(r.rules[0].flagged);
    assert_string_equal(r.rules[0].counters[0].counter, "write_bytes");
    assert_true(culprit_detect_check_counters_flagged(&r, 0));
    /* A counter flag is minor; without time in the set the time verdict does not
     * count, whatever it is. */
    assert_int_equal(culprit_detect_check_worst(&r), CULPRIT_VERDICT_MINOR);
    r.verdicts[0].kind = CULPRIT_VERDICT_MAJOR;
    assert_int_equal(culprit_detect_check_worst(&r), CULPRIT_VERDICT_MINOR);
    r.detectors |= CULPRIT_DETECTOR_TIME;
    assert_int_equal(culprit_detect_check_worst(&r), CULPRIT_VERDICT_MAJOR);
    culprit_detect_check_result_dispose(&r);

    /* An explicit threshold turns the calibration off. */
    opts.detectors = CULPRIT_DETECTOR_CLUSTERS;
    opts.clusters.aa_margin = 0;
    assert_int_equal(culprit_detect_check(&r, &runs, "c", bases, 2, &opts), 0);
    assert_false(r.clusters[0].calibrated);
    assert_int_equal(r.clusters[0].aa_pairs, 0);
    assert_null(r.rules);
    culprit_detect_check_result_dispose(&r);
    for (int i = 0; i < 5; i++)
        culprit_history_run_free(all[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(detector_names_parse),
        cmocka_unit_test(counter_table_keeps_series_present_everywhere),
        cmocka_unit_test(clusters_drop_constant_and_redundant_counters),
        cmocka_unit_test(clusters_flag_the_shifted_io_group_only),
        cmocka_unit_test(clusters_take_the_counter_that_moved_most_among_ties),
        cmocka_unit_test(clusters_error_of_a_fit_on_the_old_version),
        cmocka_unit_test(clusters_aa_errors_calibrate_per_counter),
        cmocka_unit_test(rules_levels_follow_foo_figure5),
        cmocka_unit_test(rules_confidence_change_is_cosine_distance),
        cmocka_unit_test(rules_apriori_matches_brute_force),
        cmocka_unit_test(rules_detector_flags_the_changed_counter_with_its_severity),
        cmocka_unit_test(rules_windows_are_medians),
        cmocka_unit_test(check_runs_the_counter_detectors_with_a_calibration),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
