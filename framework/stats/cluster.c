/*
 * Hierarchical clustering of counters and where to cut it (Shang et al. 2015
 * §4.2): average linkage over a distance matrix, a cut into k clusters, and the
 * Calinski-Harabasz stopping rule that picks k.
 *
 * The counters of one test are a dozen at most, so the plain O(n^3) agglomeration
 * (find the closest pair, merge, update its row) is the clearest choice; the
 * cluster-to-cluster distances are kept as the mean over item pairs, which is what
 * the Lance-Williams update of UPGMA, (|a| d_ak + |b| d_bk) / (|a| + |b|), maintains.
 *
 * The Calinski-Harabasz index needs within- and between-cluster sums of squares.
 * The counters are compared by a distance, not as points, so both sums are written
 * with distances: for Euclidean points the within sum of squares of a cluster c
 * equals (1 / 2|c|) sum_{i,j in c} d_ij^2 (each pair counted twice), which defines
 * it for any dissimilarity, as R's fpc::calinhara and NbClust do from a distance
 * matrix.
 */
#include "culprit/core.h"
#include "culprit/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void culprit_stats_dendrogram_dispose(culprit_dendrogram *d)
{
    if (!d)
        return;
    free(d->a);
    free(d->b);
    free(d->height);
    free(d->size);
    memset(d, 0, sizeof(*d));
}

int culprit_stats_cluster_average(culprit_dendrogram *out, const double *dist, size_t n)
{
    double *d = NULL;
    size_t *id = NULL, *count = NULL;
    int *alive = NULL;
    int error = 0;

    memset(out, 0, sizeof(*out));
    if (n == 0)
        return culprit_error_set(CULPRIT_EINVALID, "clustering: no item");
    for (size_t i = 0; i < n * n; i++)
        if (!(dist[i] >= 0))
            return culprit_error_set(
                CULPRIT_EINVALID, "clustering: distance %zu,%zu is negative or NaN", i / n, i % n);
    out->n = n;
    if (!(out->a = calloc(n, sizeof(size_t))) || !(out->b = calloc(n, sizeof(size_t))) ||
        !(out->height = calloc(n, sizeof(double))) || !(out->size = calloc(n, sizeof(size_t))) ||
        !(d = malloc(n * n * sizeof(double))) || !(id = malloc(n * sizeof(size_t))) ||
        !(count = malloc(n * sizeof(size_t))) || !(alive = malloc(n * sizeof(int))))
        goto oom;
    memcpy(d, dist, n * n * sizeof(double));
    for (size_t i = 0; i < n; i++) {
        id[i] = i;
        count[i] = 1;
        alive[i] = 1;
    }
    /* Slot i holds a live cluster; id[i] is its dendrogram id. Merging j into i
     * keeps slot i. */
    for (size_t m = 0; m + 1 < n; m++) {
        size_t bi = 0, bj = 0;
        double best = INFINITY;
        for (size_t i = 0; i < n; i++) {
            if (!alive[i])
                continue;
            for (size_t j = i + 1; j < n; j++) {
                if (!alive[j])
                    continue;
                double v = d[i * n + j];
                /* Ties: the pair of smallest ids, so the result does not depend on
                 * slot order. */
                size_t lo = id[i] < id[j] ? id[i] : id[j], hi = id[i] < id[j] ? id[j] : id[i];
                size_t blo = id[bi] < id[bj] ? id[bi] : id[bj];
                size_t bhi = id[bi] < id[bj] ? id[bj] : id[bi];
                if (v < best || (v == best && (lo < blo || (lo == blo && hi < bhi)))) {
                    best = v;
                    bi = i;
                    bj = j;
                }
            }
        }
        out->a[m] = id[bi] < id[bj] ? id[bi] : id[bj];
        out->b[m] = id[bi] < id[bj] ? id[bj] : id[bi];
        out->height[m] = best;
        out->size[m] = count[bi] + count[bj];
        for (size_t k = 0; k < n; k++) {
            if (!alive[k] || k == bi || k == bj)
                continue;
            double v = ((double)count[bi] * d[bi * n + k] + (double)count[bj] * d[bj * n + k]) /
                       (double)(count[bi] + count[bj]);
            d[bi * n + k] = d[k * n + bi] = v;
        }
        count[bi] += count[bj];
        id[bi] = n + m;
        alive[bj] = 0;
    }
    goto cleanup;
oom:
    error = CULPRIT_ERROR_NOMEM();
    culprit_stats_dendrogram_dispose(out);
cleanup:
    free(d);
    free(id);
    free(count);
    free(alive);
    return error;
}

/* Union-find root of x (the parents array is tiny; no path compression needed). */
static size_t root(const size_t *parent, size_t x)
{
    while (parent[x] != x)
        x = parent[x];
    return x;
}

int culprit_stats_cluster_cut(size_t *labels, const culprit_dendrogram *d, size_t k)
{
    size_t n = d->n, *parent, *label_of;

    if (k < 1 || k > n)
        return culprit_error_set(CULPRIT_EINVALID, "cannot cut %zu items into %zu clusters", n, k);
    /* Items 0..n-1 and merged clusters n..2n-2; apply the first n - k merges. */
    if (!(parent = malloc(2 * n * sizeof(size_t))) ||
        !(label_of = malloc(2 * n * sizeof(size_t)))) {
        free(parent);
        return CULPRIT_ERROR_NOMEM();
    }
    for (size_t i = 0; i < 2 * n; i++) {
        parent[i] = i;
        label_of[i] = (size_t)-1;
    }
    for (size_t m = 0; m < n - k; m++) {
        parent[d->a[m]] = n + m;
        parent[d->b[m]] = n + m;
    }
    size_t next = 0;
    for (size_t i = 0; i < n; i++) {
        size_t r = root(parent, i);
        if (label_of[r] == (size_t)-1)
            label_of[r] = next++;
        labels[i] = label_of[r];
    }
    free(parent);
    free(label_of);
    return 0;
}

double culprit_stats_calinski_harabasz(const double *dist, size_t n, const size_t *labels, size_t k)
{
    double total = 0, within = 0;
    size_t *size;

    if (k < 2 || k >= n)
        return NAN;
    if (!(size = calloc(k, sizeof(size_t))))
        return NAN;
    for (size_t i = 0; i < n; i++)
        size[labels[i]]++;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            double sq = dist[i * n + j] * dist[i * n + j];
            total += sq;
            if (labels[i] == labels[j])
                within += sq / (2.0 * (double)size[labels[i]]);
        }
    free(size);
    total /= 2.0 * (double)n;
    double between = total - within;
    if (between < 0) /* rounding */
        between = 0;
    if (within <= 0)
        return between > 0 ? INFINITY : NAN;
    return (between / (double)(k - 1)) / (within / (double)(n - k));
}

int culprit_stats_cluster_ch_cut(size_t *labels, size_t *k, const culprit_dendrogram *d,
                                 const double *dist)
{
    size_t n = d->n, best_k = n, *trial;
    double best = -INFINITY;

    if (n <= 2) {
        for (size_t i = 0; i < n; i++)
            labels[i] = i;
        *k = n;
        return 0;
    }
    trial = malloc(n * sizeof(size_t));
    CULPRIT_ERROR_CHECK_ALLOC(trial);
    for (size_t c = 2; c < n; c++) {
        culprit_stats_cluster_cut(trial, d, c);
        double ch = culprit_stats_calinski_harabasz(dist, n, trial, c);
        if (ch > best) { /* strictly: the smallest k wins ties */
            best = ch;
            best_k = c;
        }
    }
    /* Every index NaN (all distances 0): nothing separates the items; one cluster. */
    if (best == -INFINITY)
        best_k = 1;
    culprit_stats_cluster_cut(labels, d, best_k);
    *k = best_k;
    free(trial);
    return 0;
}
