/*
 * Tests of the building blocks of the counter-cluster detector (Shang et al. 2015):
 * Pearson correlation and distance, least squares with R^2, average-linkage
 * clustering, the cut into k clusters and the Calinski-Harabasz rule. Reference
 * values come from tests/stats/reference_counters.py (scipy 1.10.1 / numpy 1.24.2);
 * the comment next to each names the line that printed it.
 */
#include "support/test.h"

#include <math.h>
#include <stdlib.h>

#include "culprit/core.h"
#include "culprit/stats.h"
#include "support/near.h"

static const double X[] = {3.1, 4.7, 2.2, 5.9, 4.1, 3.3, 6.8, 5.0};
static const double Y[] = {10.2, 13.9, 8.1, 16.5, 12.0, 11.4, 19.7, 14.2};
static const double Z[] = {7.5, 2.1, 6.6, 3.3, 9.0, 1.2, 4.4, 5.8};

static void pearson_matches_scipy(void **state)
{
    (void)state;
    /* "pearsonr(X, Y)" and "pearsonr(X, Z)" */
    assert_near(culprit_stats_pearson(X, Y, 8), 0.9906306004083177, 1e-13);
    assert_near(culprit_stats_pearson(X, Z, 8), -0.2819911961868657, 1e-13);
    /* Undefined for a constant series or a single pair. */
    const double c[] = {2, 2, 2, 2, 2, 2, 2, 2};
    assert_true(isnan(culprit_stats_pearson(X, c, 8)));
    assert_true(isnan(culprit_stats_pearson(X, Y, 1)));
}

static void pearson_distance_follows_shang_eq1(void **state)
{
    double d[9];
    const double *cols[3] = {X, Y, Z};
    (void)state;
    /* Eq. 1 by hand: 1 - rho for rho >= 0, |rho| below. */
    assert_near(culprit_stats_pearson_distance(1.0), 0.0, 0);
    assert_near(culprit_stats_pearson_distance(0.3), 0.7, 1e-15);
    assert_near(culprit_stats_pearson_distance(0.0), 1.0, 0);
    assert_near(culprit_stats_pearson_distance(-0.8), 0.8, 1e-15);
    assert_true(isnan(culprit_stats_pearson_distance(NAN)));
    culprit_stats_pearson_distances(d, cols, 3, 8);
    assert_near(d[0], 0, 0);
    assert_near(d[1], 1 - 0.9906306004083177, 1e-13);
    assert_near(d[3], d[1], 0); /* symmetric */
    assert_near(d[2], 0.2819911961868657, 1e-13);
}

static void ols_matches_numpy_lstsq(void **state)
{
    culprit_ols fit;
    const double *x[2] = {X, Z};
    const double at_x[] = {4}, at_z[] = {5};
    const double *point[2] = {at_x, at_z};
    (void)state;
    assert_int_equal(culprit_stats_ols(&fit, x, 2, Y, 8), 0);
    /* "ols Y~X+Z coef ... r2 ..." */
    assert_near(fit.intercept, 3.5312582831796675, 1e-11);
    assert_near(fit.coef[0], 2.3319707728875967, 1e-12);
    assert_near(fit.coef[1], -0.10281304245092615, 1e-12);
    assert_near(fit.r2, 0.986667835697278, 1e-12);
    /* "ols predict at X=4, Z=5" */
    assert_near(culprit_stats_ols_predict(&fit, point, 0), 12.345076162475424, 1e-11);
    culprit_stats_ols_dispose(&fit);
}

static void ols_handles_constant_and_collinear_columns(void **state)
{
    culprit_ols fit;
    double twice[8], y[8], constant[8];
    const double *x[3] = {X, twice, constant};
    (void)state;
    for (int i = 0; i < 8; i++) {
        twice[i] = 2 * X[i];
        constant[i] = 7;
        y[i] = 1 + 3 * X[i]; /* exactly linear */
    }
    assert_int_equal(culprit_stats_ols(&fit, x, 3, y, 8), 0);
    /* X and 2X are the same regressor: SVD gives the minimum-norm split, which
     * still predicts exactly; the constant column gets 0. */
    assert_near(fit.r2, 1.0, 1e-12);
    assert_near(fit.coef[2], 0, 0);
    assert_near(fit.coef[0] + 2 * fit.coef[1], 3.0, 1e-10);
    for (int i = 0; i < 8; i++)
        assert_near(culprit_stats_ols_predict(&fit, x, (size_t)i), y[i], 1e-10);
    culprit_stats_ols_dispose(&fit);
    /* No residual degree of freedom: undecided. */
    assert_int_equal(culprit_stats_ols(&fit, x, 3, y, 4), CULPRIT_EUNDECIDED);
    /* An intercept-only fit is the mean; R^2 is 0. */
    assert_int_equal(culprit_stats_ols(&fit, NULL, 0, Y, 8), 0);
    assert_near(fit.intercept, 13.25, 1e-12); /* sum(Y) = 106.0, by hand */
    assert_near(fit.r2, 0, 1e-12);
    culprit_stats_ols_dispose(&fit);
}

static const double D6[36] = {0.00, 0.10, 0.80, 0.85, 0.90, 0.40, 0.10, 0.00, 0.75,
                              0.95, 0.70, 0.45, 0.80, 0.75, 0.00, 0.20, 0.60, 0.65,
                              0.85, 0.95, 0.20, 0.00, 0.55, 0.70, 0.90, 0.70, 0.60,
                              0.55, 0.00, 0.50, 0.40, 0.45, 0.65, 0.70, 0.50, 0.00};

static void average_linkage_matches_scipy(void **state)
{
    culprit_dendrogram d;
    /* "linkage average:" rows: a, b, height, size */
    const size_t a[] = {0, 2, 5, 4, 8}, b[] = {1, 3, 6, 7, 9}, size[] = {2, 2, 3, 3, 6};
    const double h[] = {0.1, 0.2, 0.42500000000000004, 0.575, 0.7555555555555556};
    (void)state;
    assert_int_equal(culprit_stats_cluster_average(&d, D6, 6), 0);
    for (int m = 0; m < 5; m++) {
        assert_int_equal(d.a[m], a[m]);
        assert_int_equal(d.b[m], b[m]);
        assert_int_equal(d.size[m], size[m]);
        assert_near(d.height[m], h[m], 1e-14);
    }
    culprit_stats_dendrogram_dispose(&d);
    assert_int_equal(culprit_stats_cluster_average(&d, D6, 0), CULPRIT_EINVALID);
}

static void cut_matches_scipy_fcluster(void **state)
{
    culprit_dendrogram d;
    size_t labels[6];
    /* "fcluster maxclust k", renumbered from 0 in order of first item. */
    const size_t k2[] = {0, 0, 1, 1, 1, 0}, k3[] = {0, 0, 1, 1, 2, 0}, k4[] = {0, 0, 1, 1, 2, 3};
    (void)state;
    assert_int_equal(culprit_stats_cluster_average(&d, D6, 6), 0);
    assert_int_equal(culprit_stats_cluster_cut(labels, &d, 2), 0);
    assert_memory_equal(labels, k2, sizeof(k2));
    assert_int_equal(culprit_stats_cluster_cut(labels, &d, 3), 0);
    assert_memory_equal(labels, k3, sizeof(k3));
    assert_int_equal(culprit_stats_cluster_cut(labels, &d, 4), 0);
    assert_memory_equal(labels, k4, sizeof(k4));
    assert_int_equal(culprit_stats_cluster_cut(labels, &d, 1), 0);
    for (int i = 0; i < 6; i++)
        assert_int_equal(labels[i], 0);
    assert_int_equal(culprit_stats_cluster_cut(labels, &d, 7), CULPRIT_EINVALID);
    culprit_stats_dendrogram_dispose(&d);
}

/* Euclidean distances of the 7 points of the reference script. */
static void points_distances(double *dist)
{
    static const double p[7][2] = {{0, 0}, {1, 0}, {0, 1}, {5, 5}, {6, 5}, {5, 7}, {10, 0}};
    for (int i = 0; i < 7; i++)
        for (int j = 0; j < 7; j++)
            dist[i * 7 + j] = hypot(p[i][0] - p[j][0], p[i][1] - p[j][1]);
}

static void calinski_harabasz_equals_centroid_form(void **state)
{
    double dist[49];
    const size_t labels[] = {0, 0, 0, 1, 1, 1, 2};
    (void)state;
    points_distances(dist);
    /* "CH centroid form": the distance form equals it for Euclidean distances. */
    assert_near(culprit_stats_calinski_harabasz(dist, 7, labels, 3), 56.53061224489795, 1e-9);
    assert_true(isnan(culprit_stats_calinski_harabasz(dist, 7, labels, 1)));
    assert_true(isnan(culprit_stats_calinski_harabasz(dist, 7, labels, 7)));
}

static void ch_cut_picks_the_largest_index(void **state)
{
    double dist[49];
    culprit_dendrogram d;
    size_t labels[7], k;
    /* "points: average linkage k 4 [1, 1, 1, 2, 2, 3, 4] CH 73.49..." is the largest
     * of k = 2..6 (10.15, 56.53, 73.49, 67.79, 67.79). */
    const size_t want[] = {0, 0, 0, 1, 1, 2, 3};
    (void)state;
    points_distances(dist);
    assert_int_equal(culprit_stats_cluster_average(&d, dist, 7), 0);
    assert_int_equal(culprit_stats_cluster_ch_cut(labels, &k, &d, dist), 0);
    assert_int_equal(k, 4);
    assert_memory_equal(labels, want, sizeof(want));
    assert_near(culprit_stats_calinski_harabasz(dist, 7, labels, 4), 73.49350649350649, 1e-9);
    culprit_stats_dendrogram_dispose(&d);
    /* Two items: the index is undefined, each is its own cluster. */
    const double two[4] = {0, 0.1, 0.1, 0};
    assert_int_equal(culprit_stats_cluster_average(&d, two, 2), 0);
    assert_int_equal(culprit_stats_cluster_ch_cut(labels, &k, &d, two), 0);
    assert_int_equal(k, 2);
    culprit_stats_dendrogram_dispose(&d);
    /* Identical items: no index is defined, one cluster. */
    const double same[9] = {0};
    assert_int_equal(culprit_stats_cluster_average(&d, same, 3), 0);
    assert_int_equal(culprit_stats_cluster_ch_cut(labels, &k, &d, same), 0);
    assert_int_equal(k, 1);
    assert_true(labels[0] == 0 && labels[1] == 0 && labels[2] == 0);
    culprit_stats_dendrogram_dispose(&d);
}

static void mser_cuts_a_warm_up_transient(void **state)
{
    /* tests/stats/reference_counters.py: "mser(x)" brute force over d = 0..n/2. */
    const double x[] = {50, 40, 30, 20, 15, 10, 11, 9, 10, 12, 8, 10, 11,
                        9,  10, 10, 11, 9,  10, 12, 8, 10, 11, 9, 10};
    const double flat[] = {10, 11, 9, 10, 12, 8, 10, 11, 9, 10};
    const double trend[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    (void)state;
    assert_int_equal(culprit_stats_mser(x, 25), 5);
    /* No transient: nothing cut. */
    assert_int_equal(culprit_stats_mser(flat, 10), 0);
    /* A run that never settles: the rule stops at half (the search limit). */
    assert_int_equal(culprit_stats_mser(trend, 10), 5);
    assert_int_equal(culprit_stats_mser(x, 1), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pearson_matches_scipy),
        cmocka_unit_test(pearson_distance_follows_shang_eq1),
        cmocka_unit_test(ols_matches_numpy_lstsq),
        cmocka_unit_test(ols_handles_constant_and_collinear_columns),
        cmocka_unit_test(average_linkage_matches_scipy),
        cmocka_unit_test(cut_matches_scipy_fcluster),
        cmocka_unit_test(calinski_harabasz_equals_centroid_form),
        cmocka_unit_test(ch_cut_picks_the_largest_index),
        cmocka_unit_test(mser_cuts_a_warm_up_transient),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
