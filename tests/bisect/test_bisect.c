/*
 * Tests of the bisection algorithm (framework/bisect) with deterministic oracles:
 * the paper's Fig. 4 walk-through (Heger et al. 2013, section 4.1), the
 * ceil(log2 N) + 1 bound on linear histories, seeded merge DAGs where a commit is
 * bad iff the culprit is among its ancestors-or-self, skips and the ranges they
 * leave, and the sub-range API that --all uses to find two culprits.
 */
#include "support/test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "culprit/bisect.h"

/* ---- DAG fixtures ----------------------------------------------------------- */

typedef struct {
    size_t n;
    size_t *np;
    size_t (*par)[4]; /* at most 4 parents per commit in these tests */
    const size_t **rows;
    culprit_bisect_dag dag;
} fixture;

static fixture *fixture_new(size_t n)
{
    fixture *f = calloc(1, sizeof(*f));
    size_t i;
    assert_non_null(f);
    f->n = n;
    f->np = calloc(n, sizeof(size_t));
    f->par = calloc(n, sizeof(*f->par));
    f->rows = calloc(n, sizeof(*f->rows));
    assert_true(f->np && f->par && f->rows);
    for (i = 0; i < n; i++)
        f->rows[i] = f->par[i];
    f->dag.n = n;
    f->dag.nparents = f->np;
    f->dag.parents = f->rows;
    return f;
}

static void fixture_free(fixture *f)
{
    free(f->np);
    free(f->par);
    free(f->rows);
    free(f);
}

static void add_parent(fixture *f, size_t child, size_t parent)
{
    assert_true(f->np[child] < 4);
    f->par[child][f->np[child]++] = parent;
}

/* 0 <- 1 <- ... <- n-1; commit 0's parent is the (absent) good commit n. */
static fixture *linear(size_t n)
{
    fixture *f = fixture_new(n);
    size_t i;
    add_parent(f, 0, n);
    for (i = 1; i < n; i++)
        add_parent(f, i, i - 1);
    return f;
}

static uint64_t rng_next(uint64_t *s)
{
    /* splitmix64: a fixed, portable sequence for a given seed. */
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/*
 * A merge DAG of n commits, parents always of lower index: up to 4 branch tips
 * are extended at random, forked (1 in 8) and merged (1 in 5); the last commit
 * merges every remaining tip, so every commit is an ancestor of it.
 */
static fixture *merge_dag(size_t n, uint64_t seed)
{
    fixture *f = fixture_new(n);
    size_t tips[4], ntips = 1, i;
    tips[0] = 0;
    for (i = 1; i + 1 < n; i++) {
        size_t t = (size_t)(rng_next(&seed) % ntips);
        add_parent(f, i, tips[t]);
        if (ntips > 1 && rng_next(&seed) % 5 == 0) {
            size_t u = (size_t)(rng_next(&seed) % ntips);
            if (u != t) {
                add_parent(f, i, tips[u]);
                tips[u] = tips[--ntips];
                if (t == ntips)
                    t = u;
            }
        }
        if (ntips < 4 && rng_next(&seed) % 8 == 0)
            tips[ntips++] = tips[t]; /* a new branch forks from the old tip */
        tips[t] = i;
    }
    for (i = 0; i < ntips; i++)
        if (f->np[n - 1] == 0 || f->par[n - 1][f->np[n - 1] - 1] != tips[i])
            add_parent(f, n - 1, tips[i]);
    return f;
}

/* bad[i] = culprit is an ancestor-or-self of i (parents have lower indices). */
static unsigned char *oracle_descendants(const fixture *f, size_t culprit)
{
    unsigned char *bad = calloc(f->n, 1);
    size_t i, k;
    assert_non_null(bad);
    for (i = 0; i < f->n; i++) {
        bad[i] = i == culprit;
        for (k = 0; k < f->np[i]; k++)
            if (f->par[i][k] < f->n && bad[f->par[i][k]])
                bad[i] = 1;
    }
    return bad;
}

typedef struct {
    const unsigned char *bad;
    const unsigned char *untestable; /* NULL: everything builds */
} table_oracle;

static int decide_table(culprit_bisect_verdict *out, const culprit_bisect *b, size_t commit,
                        void *payload)
{
    const table_oracle *o = payload;
    assert_true(culprit_bisect_check(b));
    if (o->untestable && o->untestable[commit])
        *out = CULPRIT_BISECT_SKIP;
    else
        *out = o->bad[commit] ? CULPRIT_BISECT_BAD : CULPRIT_BISECT_GOOD;
    return 0;
}

static size_t ceil_log2(size_t n)
{
    size_t k = 0;
    while (((size_t)1 << k) < n)
        k++;
    return k;
}

/* ---- the paper's Fig. 4 ----------------------------------------------------- */

/*
 * Fig. 4: A is good; B, D, E on one branch, C on another, F merges E and C, then
 * G, H. Indices: A is outside (8); B=0 C=1 D=2 E=3 F=4 G=5 H=6.
 */
enum { B_, C_, D_, E_, F_, G_, H_, NFIG };

static fixture *fig4(void)
{
    fixture *f = fixture_new(NFIG);
    add_parent(f, B_, 8);
    add_parent(f, C_, 8);
    add_parent(f, D_, B_);
    add_parent(f, E_, D_);
    add_parent(f, F_, E_);
    add_parent(f, F_, C_);
    add_parent(f, G_, F_);
    add_parent(f, H_, G_);
    return f;
}

static void fig4_steps_e_f_c_report_f(void **state)
{
    fixture *f = fig4();
    culprit_bisect *b = NULL;
    size_t w[NFIG], a[NFIG], next, *range = NULL, nrange = 0;
    (void)state;

    assert_int_equal(culprit_bisect_new(&b, &f->dag, H_), 0);
    assert_true(culprit_bisect_check(b));
    assert_int_equal(culprit_bisect_ncandidates(b), 7);
    assert_int_equal(culprit_bisect_weights(w, a, b), 0);
    assert_int_equal(a[E_], 2);
    assert_int_equal(w[E_], 3); /* 3 = min(3, 4), as the paper says */
    assert_int_equal(w[F_], 2);
    assert_int_equal(w[H_], 0);
    assert_int_equal(culprit_bisect_next(&next, b), 0);
    assert_int_equal(next, E_);
    assert_int_equal(culprit_bisect_mark(b, E_, CULPRIT_BISECT_GOOD), 0);
    assert_true(culprit_bisect_check(b));

    /* Fig. 4(b): C, F, G, H remain; F has weight 2. */
    assert_int_equal(culprit_bisect_ncandidates(b), 4);
    assert_int_equal(culprit_bisect_weights(w, NULL, b), 0);
    assert_int_equal(w[F_], 2);
    assert_int_equal(w[B_], SIZE_MAX);
    assert_int_equal(culprit_bisect_next(&next, b), 0);
    assert_int_equal(next, F_);
    assert_int_equal(culprit_bisect_mark(b, F_, CULPRIT_BISECT_BAD), 0);
    assert_true(culprit_bisect_check(b));

    /* Fig. 4(c): only C and F. */
    assert_int_equal(culprit_bisect_ncandidates(b), 2);
    assert_int_equal(culprit_bisect_next(&next, b), 0);
    assert_int_equal(next, C_);
    assert_int_equal(culprit_bisect_mark(b, C_, CULPRIT_BISECT_GOOD), 0);
    assert_true(culprit_bisect_check(b));

    assert_int_equal(culprit_bisect_status_get(b), CULPRIT_BISECT_FOUND);
    assert_int_equal(culprit_bisect_bad(b), F_);
    assert_int_equal(culprit_bisect_tested(b), 3);
    assert_int_equal(culprit_bisect_next(&next, b), -3 /* CULPRIT_ENOTFOUND */);
    assert_int_equal(culprit_bisect_range(&range, &nrange, b), 0);
    assert_int_equal(nrange, 1);
    assert_int_equal(range[0], F_);
    free(range);
    culprit_bisect_free(b);
    fixture_free(f);
}

static void bad_input_is_refused(void **state)
{
    fixture *f = fig4();
    culprit_bisect *b = NULL;
    size_t good = H_;
    (void)state;

    assert_int_equal(culprit_bisect_new(&b, &f->dag, NFIG), -4);
    assert_null(b);
    assert_int_equal(culprit_bisect_new_range(&b, &f->dag, G_, &good, 1), -4);
    assert_null(b);
    assert_int_equal(culprit_bisect_new(&b, &f->dag, G_), 0);
    assert_int_equal(culprit_bisect_mark(b, H_, CULPRIT_BISECT_GOOD), -4); /* not a candidate */
    assert_int_equal(culprit_bisect_mark(b, G_, CULPRIT_BISECT_GOOD), -4); /* the bad end */
    assert_int_equal(culprit_bisect_mark(b, G_, CULPRIT_BISECT_BAD), 0);
    culprit_bisect_free(b);
    culprit_bisect_free(NULL);
    assert_int_equal(culprit_bisect_check(NULL), 0);

    /* A cycle: F's parent G. */
    add_parent(f, F_, G_);
    assert_int_equal(culprit_bisect_new(&b, &f->dag, H_), -4);
    fixture_free(f);
}

/* ---- linear histories ------------------------------------------------------- */

static void linear_bound(size_t n, size_t stride)
{
    fixture *f = linear(n);
    unsigned char *bad = calloc(n, 1);
    size_t c, i, bound = ceil_log2(n) + 1;
    assert_non_null(bad);
    for (c = 0; c < n; c += stride) {
        culprit_bisect *b = NULL;
        table_oracle o = {bad, NULL};
        for (i = 0; i < n; i++)
            bad[i] = i >= c;
        assert_int_equal(culprit_bisect_new(&b, &f->dag, n - 1), 0);
        assert_int_equal(culprit_bisect_run(b, decide_table, &o), 0);
        assert_int_equal(culprit_bisect_status_get(b), CULPRIT_BISECT_FOUND);
        assert_int_equal(culprit_bisect_bad(b), c);
        assert_true(culprit_bisect_tested(b) <= bound);
        culprit_bisect_free(b);
    }
    free(bad);
    fixture_free(f);
}

static void linear_16_every_culprit_within_log2(void **state)
{
    (void)state;
    linear_bound(16, 1);
}

static void linear_64_every_culprit_within_log2(void **state)
{
    (void)state;
    linear_bound(64, 1);
}

static void linear_256_every_culprit_within_log2(void **state)
{
    (void)state;
    linear_bound(256, 1);
}

static void linear_1024_sampled_culprits_within_log2(void **state)
{
    (void)state;
    linear_bound(1024, 7);
}

static void linear_even_split_prefers_lowest_index(void **state)
{
    fixture *f = linear(5); /* N = 5: commits 1 and 2 both weigh 2 */
    culprit_bisect *b = NULL;
    size_t next, w[5];
    (void)state;
    assert_int_equal(culprit_bisect_new(&b, &f->dag, 4), 0);
    assert_int_equal(culprit_bisect_weights(w, NULL, b), 0);
    assert_int_equal(w[1], 2);
    assert_int_equal(w[2], 2);
    assert_int_equal(culprit_bisect_next(&next, b), 0);
    assert_int_equal(next, 1);
    culprit_bisect_free(b);
    fixture_free(f);
}

/* ---- merge DAGs --------------------------------------------------------------- */

static void merge_dags_find_every_culprit(void **state)
{
    uint64_t seed;
    (void)state;
    for (seed = 1; seed <= 6; seed++) {
        size_t n = 150, c;
        fixture *f = merge_dag(n, seed);
        size_t nmerges = 0, i;
        for (i = 0; i < n; i++)
            nmerges += f->np[i] > 1;
        assert_true(nmerges > 3);
        for (c = 0; c < n; c += 3) {
            unsigned char *bad = oracle_descendants(f, c);
            table_oracle o = {bad, NULL};
            culprit_bisect *b = NULL;
            assert_int_equal(culprit_bisect_new(&b, &f->dag, n - 1), 0);
            assert_int_equal(culprit_bisect_run(b, decide_table, &o), 0);
            assert_true(culprit_bisect_check(b));
            assert_int_equal(culprit_bisect_status_get(b), CULPRIT_BISECT_FOUND);
            assert_int_equal(culprit_bisect_bad(b), c);
            /* A DAG can need more than log2 N, never more than N. */
            assert_true(culprit_bisect_tested(b) < n);
            culprit_bisect_free(b);
            free(bad);
        }
        fixture_free(f);
    }
}

static void large_dag_is_fast_enough(void **state)
{
    size_t n = 10000;
    fixture *f = merge_dag(n, 42);
    unsigned char *bad = oracle_descendants(f, 4321);
    table_oracle o = {bad, NULL};
    culprit_bisect *b = NULL;
    (void)state;
    assert_int_equal(culprit_bisect_new(&b, &f->dag, n - 1), 0);
    assert_int_equal(culprit_bisect_run(b, decide_table, &o), 0);
    assert_int_equal(culprit_bisect_bad(b), 4321);
    assert_true(culprit_bisect_tested(b) < 60);
    culprit_bisect_free(b);
    free(bad);
    fixture_free(f);
}

/* ---- skips ------------------------------------------------------------------ */

static void skip_next_to_culprit_reports_range(void **state)
{
    size_t n = 64, c = 40, i, *range = NULL, nrange = 0;
    fixture *f = linear(n);
    unsigned char bad[64], untestable[64] = {0};
    table_oracle o = {bad, untestable};
    culprit_bisect *b = NULL;
    (void)state;
    for (i = 0; i < n; i++)
        bad[i] = i >= c;
    untestable[c - 1] = 1; /* the culprit's parent does not build */
    assert_int_equal(culprit_bisect_new(&b, &f->dag, n - 1), 0);
    assert_int_equal(culprit_bisect_run(b, decide_table, &o), 0);
    assert_int_equal(culprit_bisect_status_get(b), CULPRIT_BISECT_AMBIGUOUS);
    assert_int_equal(culprit_bisect_range(&range, &nrange, b), 0);
    assert_int_equal(nrange, 2);
    assert_int_equal(range[0], c - 1);
    assert_int_equal(range[1], c);
    assert_true(culprit_bisect_is_skipped(b, c - 1));
    free(range);
    culprit_bisect_free(b);

    /* Skipping the culprit itself: the range is the culprit and its first bad child. */
    memset(untestable, 0, sizeof(untestable));
    untestable[c] = 1;
    assert_int_equal(culprit_bisect_new(&b, &f->dag, n - 1), 0);
    assert_int_equal(culprit_bisect_run(b, decide_table, &o), 0);
    assert_int_equal(culprit_bisect_status_get(b), CULPRIT_BISECT_AMBIGUOUS);
    assert_int_equal(culprit_bisect_range(&range, &nrange, b), 0);
    assert_int_equal(nrange, 2);
    assert_int_equal(range[0], c);
    assert_int_equal(range[1], c + 1);
    free(range);
    culprit_bisect_free(b);

    /* A skip far from the culprit changes nothing in the answer. */
    memset(untestable, 0, sizeof(untestable));
    untestable[31] = untestable[10] = 1;
    assert_int_equal(culprit_bisect_new(&b, &f->dag, n - 1), 0);
    assert_int_equal(culprit_bisect_run(b, decide_table, &o), 0);
    assert_int_equal(culprit_bisect_status_get(b), CULPRIT_BISECT_FOUND);
    assert_int_equal(culprit_bisect_bad(b), c);
    culprit_bisect_free(b);
    fixture_free(f);
}

static void skipping_everything_reports_whole_range(void **state)
{
    size_t n = 20, i, *range = NULL, nrange = 0;
    fixture *f = merge_dag(n, 7);
    unsigned char bad[20], untestable[20];
    table_oracle o = {bad, untestable};
    culprit_bisect *b = NULL;
    (void)state;
    memset(bad, 1, sizeof(bad));
    memset(untestable, 1, sizeof(untestable));
    assert_int_equal(culprit_bisect_new(&b, &f->dag, n - 1), 0);
    assert_int_equal(culprit_bisect_run(b, decide_table, &o), 0);
    assert_int_equal(culprit_bisect_status_get(b), CULPRIT_BISECT_AMBIGUOUS);
    assert_int_equal(culprit_bisect_tested(b), n - 1);
    assert_int_equal(culprit_bisect_range(&range, &nrange, b), 0);
    assert_int_equal(nrange, n);
    for (i = 0; i < n; i++)
        assert_int_equal(range[i], i);
    free(range);
    assert_int_equal(culprit_bisect_mark(b, n - 1, CULPRIT_BISECT_SKIP), -4);
    culprit_bisect_free(b);
    fixture_free(f);
}

static void skipped_commit_is_not_proposed_again(void **state)
{
    fixture *f = linear(16);
    culprit_bisect *b = NULL;
    size_t first, second, w[16];
    (void)state;
    assert_int_equal(culprit_bisect_new(&b, &f->dag, 15), 0);
    assert_int_equal(culprit_bisect_next(&first, b), 0);
    assert_int_equal(culprit_bisect_mark(b, first, CULPRIT_BISECT_SKIP), 0);
    assert_int_equal(culprit_bisect_next(&second, b), 0);
    assert_int_not_equal(first, second);
    assert_int_equal(culprit_bisect_weights(w, NULL, b), 0);
    assert_int_equal(w[second], 7); /* the next best weight after 8 */
    assert_int_equal(culprit_bisect_ncandidates(b), 16);
    culprit_bisect_free(b);
    fixture_free(f);
}

/* ---- sub-ranges for --all ----------------------------------------------------- */

/*
 * Cost model: each regression adds 1 to its descendants' cost. A commit is bad
 * against a baseline when its cost is at least `threshold` above the baseline's:
 * threshold 1 finds the oldest regression first, a threshold equal to the whole
 * range's step finds the one that makes the bad end as slow as it is.
 */
typedef struct {
    const int *cost;
    int baseline;
    int threshold;
} cost_oracle;

static int decide_cost(culprit_bisect_verdict *out, const culprit_bisect *b, size_t commit,
                       void *payload)
{
    const cost_oracle *o = payload;
    (void)b;
    *out = o->cost[commit] - o->baseline >= o->threshold ? CULPRIT_BISECT_BAD : CULPRIT_BISECT_GOOD;
    return 0;
}

/*
 * The --all driver in miniature: bisect, then restart above the culprit (against
 * it) and below it (when its parent is still bad against the good end).
 */
static void find_all(const fixture *f, const int *cost, size_t bad, const size_t *goods,
                     size_t ngoods, int baseline, size_t *found, size_t *nfound)
{
    culprit_bisect *b = NULL, *above = NULL;
    cost_oracle o = {cost, baseline, 0};
    size_t c, k, *known = NULL, nknown = 0;

    if (cost[bad] <= baseline)
        return; /* the range did not regress */
    o.threshold = cost[bad] - baseline;
    assert_int_equal(culprit_bisect_new_range(&b, &f->dag, bad, goods, ngoods), 0);
    assert_int_equal(culprit_bisect_run(b, decide_cost, &o), 0);
    assert_int_equal(culprit_bisect_status_get(b), CULPRIT_BISECT_FOUND);
    c = culprit_bisect_bad(b);
    for (k = 0; k < *nfound && found[k] != c; k++)
        ;
    if (k == *nfound)
        found[(*nfound)++] = c; /* below a merge, two parents can lead to one culprit */
    /* The goods of this search were judged against `threshold`, not against the
     * good end, so the search below starts from the range's own goods. */
    assert_int_equal(culprit_bisect_goods(&known, &nknown, b), 0);
    for (k = 0; k < nknown; k++)
        assert_true(cost[known[k]] - baseline < o.threshold);
    for (k = 0; k < f->np[c]; k++) {
        size_t p = f->par[c][k];
        if (p < f->n && cost[p] > baseline)
            find_all(f, cost, p, goods, ngoods, baseline, found, nfound);
    }
    if (bad != c) {
        assert_int_equal(culprit_bisect_new_range(&above, &f->dag, bad, &c, 1), 0);
        assert_true(culprit_bisect_check(above));
        assert_false(culprit_bisect_is_candidate(above, c));
        culprit_bisect_free(above);
        find_all(f, cost, bad, &c, 1, cost[c], found, nfound);
    }
    free(known);
    culprit_bisect_free(b);
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

static void two_culprits_both_found_with_subranges(void **state)
{
    size_t n = 100, i, found[8], nfound = 0;
    fixture *f = linear(n);
    int cost[100];
    (void)state;

    /* Regressions at 30 and 70: the first search (threshold 2) finds 70, the
     * search below it finds 30, the search above 70 finds nothing. */
    for (i = 0; i < n; i++)
        cost[i] = (i >= 30) + (i >= 70);
    find_all(f, cost, n - 1, NULL, 0, 0, found, &nfound);
    qsort(found, nfound, sizeof(size_t), cmp_size);
    assert_int_equal(nfound, 2);
    assert_int_equal(found[0], 30);
    assert_int_equal(found[1], 70);

    /* Sub-range above a culprit directly: from 30 to the bad end, against 30. */
    {
        culprit_bisect *b = NULL;
        size_t good = 30;
        cost_oracle o = {cost, 1, 1};
        assert_int_equal(culprit_bisect_new_range(&b, &f->dag, n - 1, &good, 1), 0);
        assert_int_equal(culprit_bisect_ncandidates(b), n - 31);
        assert_int_equal(culprit_bisect_run(b, decide_cost, &o), 0);
        assert_int_equal(culprit_bisect_bad(b), 70);
        culprit_bisect_free(b);
    }
    fixture_free(f);
}

static void two_culprits_on_merge_dag(void **state)
{
    size_t n = 120, c1 = 20, c2, i, found[8], nfound = 0;
    fixture *f = merge_dag(n, 3);
    unsigned char *d1 = oracle_descendants(f, c1), *d2;
    int cost[120];
    (void)state;
    /* The second regression: the first descendant of c1 from index 80 on. */
    for (c2 = 80; c2 < n && !d1[c2]; c2++)
        ;
    assert_true(c2 < n - 1);
    d2 = oracle_descendants(f, c2);
    for (i = 0; i < n; i++)
        cost[i] = d1[i] + d2[i];
    find_all(f, cost, n - 1, NULL, 0, 0, found, &nfound);
    qsort(found, nfound, sizeof(size_t), cmp_size);
    assert_int_equal(nfound, 2);
    assert_int_equal(found[0], c1);
    assert_int_equal(found[1], c2);
    free(d1);
    free(d2);
    fixture_free(f);
}

/* ---- rounds of k probes (plan.c) ---------------------------------------------- */

/* The fewest r with (k + 1)^r >= n: rounds of k probes a linear range of n needs. */
static size_t rounds_bound(size_t n, size_t k)
{
    size_t r = 0, reach = 1;
    while (reach < n) {
        reach *= k + 1;
        r++;
    }
    return r;
}

/* Runs rounds of k probes against the oracle to the end; returns the rounds. */
static size_t run_rounds(culprit_bisect *b, const unsigned char *bad, size_t k)
{
    size_t probes[16], marked[16], np, rounds = 0, i;
    culprit_bisect_verdict marks[16];
    assert_true(k <= 16);
    while (culprit_bisect_status_get(b) == CULPRIT_BISECT_RUNNING) {
        assert_int_equal(culprit_bisect_plan(probes, &np, k, b), 0);
        assert_true(np >= 1 && np <= k);
        for (i = 0; i < np; i++) {
            size_t j;
            assert_true(culprit_bisect_is_candidate(b, probes[i]));
            assert_false(culprit_bisect_is_skipped(b, probes[i]));
            assert_true(probes[i] != culprit_bisect_bad(b));
            for (j = 0; j < i; j++)
                assert_true(probes[j] != probes[i]);
            /* Results come back in any order: reversed here. */
            marked[np - 1 - i] = probes[i];
            marks[np - 1 - i] = bad[probes[i]] ? CULPRIT_BISECT_BAD : CULPRIT_BISECT_GOOD;
        }
        assert_int_equal(culprit_bisect_mark_round(b, marked, marks, np, NULL), 0);
        assert_true(culprit_bisect_check(b));
        rounds++;
    }
    return rounds;
}

static void rounds_linear(size_t n, size_t k, size_t stride, size_t expect_worst)
{
    fixture *f = linear(n);
    unsigned char *bad = calloc(n, 1);
    size_t c, i, worst = 0;
    assert_non_null(bad);
    for (c = 0; c < n; c += stride) {
        culprit_bisect *b = NULL;
        size_t rounds;
        for (i = 0; i < n; i++)
            bad[i] = i >= c;
        assert_int_equal(culprit_bisect_new(&b, &f->dag, n - 1), 0);
        rounds = run_rounds(b, bad, k);
        assert_int_equal(culprit_bisect_status_get(b), CULPRIT_BISECT_FOUND);
        assert_int_equal(culprit_bisect_bad(b), c);
        assert_true(rounds <= rounds_bound(n, k));
        worst = rounds > worst ? rounds : worst;
        culprit_bisect_free(b);
    }
    if (expect_worst)
        assert_int_equal(worst, expect_worst);
    free(bad);
    fixture_free(f);
}

/* Issue 28's figures: 1,024 commits in 10, 5 and 4 rounds of 1, 3 and 7 probes. */
static void plan_1024_in_log_k_plus_1_rounds(void **state)
{
    (void)state;
    rounds_linear(1024, 1, 5, 10);
    rounds_linear(1024, 3, 5, 5);
    rounds_linear(1024, 7, 5, 4);
}

static void plan_odd_sizes_within_bound(void **state)
{
    size_t sizes[] = {2, 3, 5, 37, 100, 1000}, k, i;
    (void)state;
    for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        for (k = 1; k <= 9; k += 2)
            rounds_linear(sizes[i], k, sizes[i] > 100 ? 7 : 1, 0);
}

static void plan_of_one_is_next_on_a_line(void **state)
{
    size_t n, next, probe, np;
    (void)state;
    for (n = 2; n <= 40; n++) {
        fixture *f = linear(n);
        culprit_bisect *b = NULL;
        assert_int_equal(culprit_bisect_new(&b, &f->dag, n - 1), 0);
        assert_int_equal(culprit_bisect_next(&next, b), 0);
        assert_int_equal(culprit_bisect_plan(&probe, &np, 1, b), 0);
        assert_int_equal(np, 1);
        assert_int_equal(probe, next);
        culprit_bisect_free(b);
        fixture_free(f);
    }
}

static void plan_on_merge_dags_finds_every_culprit(void **state)
{
    uint64_t seed;
    (void)state;
    for (seed = 1; seed <= 4; seed++) {
        size_t n = 150, c;
        fixture *f = merge_dag(n, seed);
        for (c = 0; c < n; c += 5) {
            unsigned char *bad = oracle_descendants(f, c);
            culprit_bisect *b = NULL, *one = NULL;
            table_oracle o = {bad, NULL};
            size_t rounds;
            assert_int_equal(culprit_bisect_new(&b, &f->dag, n - 1), 0);
            rounds = run_rounds(b, bad, 3);
            assert_int_equal(culprit_bisect_status_get(b), CULPRIT_BISECT_FOUND);
            assert_int_equal(culprit_bisect_bad(b), c);
            /* Three probes a round never take more rounds than one probe takes steps. */
            assert_int_equal(culprit_bisect_new(&one, &f->dag, n - 1), 0);
            assert_int_equal(culprit_bisect_run(one, decide_table, &o), 0);
            assert_true(rounds <= culprit_bisect_tested(one));
            culprit_bisect_free(one);
            culprit_bisect_free(b);
            free(bad);
        }
        fixture_free(f);
    }
}

static void plan_leaves_out_skipped_and_takes_all_when_few(void **state)
{
    fixture *f = linear(6);
    culprit_bisect *b = NULL;
    size_t probes[8], np, i;
    (void)state;
    assert_int_equal(culprit_bisect_new(&b, &f->dag, 5), 0);
    assert_int_equal(culprit_bisect_mark(b, 2, CULPRIT_BISECT_SKIP), 0);
    assert_int_equal(culprit_bisect_plan(probes, &np, 8, b), 0);
    assert_int_equal(np, 4); /* 0, 1, 3, 4: not the skipped 2, not the bad end 5 */
    for (i = 0; i < np; i++)
        assert_true(probes[i] != 2 && probes[i] != 5);
    assert_int_equal(culprit_bisect_plan(probes, &np, 0, b), CULPRIT_EINVALID);
    culprit_bisect_free(b);
    fixture_free(f);
}

static void mark_round_keeps_lowest_bad_and_counts_unused(void **state)
{
    fixture *f = linear(10);
    culprit_bisect *b = NULL;
    size_t commits[] = {7, 3, 5, 1}, unused = 99, np, probe;
    culprit_bisect_verdict marks[] = {CULPRIT_BISECT_GOOD, CULPRIT_BISECT_BAD, CULPRIT_BISECT_BAD,
                                      CULPRIT_BISECT_GOOD};
    (void)state;
    assert_int_equal(culprit_bisect_new(&b, &f->dag, 9), 0);
    /* 1 good, 3 bad: the first bad is 2 or 3; 5 bad adds nothing; 7 good above a bad
     * one is noise or a second regression: not used. */
    assert_int_equal(culprit_bisect_mark_round(b, commits, marks, 4, &unused), 0);
    assert_int_equal(unused, 2);
    assert_int_equal(culprit_bisect_bad(b), 3);
    assert_int_equal(culprit_bisect_ncandidates(b), 2);
    assert_int_equal(culprit_bisect_tested(b), 2);
    assert_int_equal(culprit_bisect_plan(&probe, &np, 1, b), 0);
    assert_int_equal(probe, 2);
    /* A commit that was no candidate before the round is refused. */
    commits[0] = 0;
    assert_int_equal(culprit_bisect_mark_round(b, commits, marks, 1, NULL), CULPRIT_EINVALID);
    culprit_bisect_free(b);
    fixture_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fig4_steps_e_f_c_report_f),
        cmocka_unit_test(bad_input_is_refused),
        cmocka_unit_test(linear_16_every_culprit_within_log2),
        cmocka_unit_test(linear_64_every_culprit_within_log2),
        cmocka_unit_test(linear_256_every_culprit_within_log2),
        cmocka_unit_test(linear_1024_sampled_culprits_within_log2),
        cmocka_unit_test(linear_even_split_prefers_lowest_index),
        cmocka_unit_test(merge_dags_find_every_culprit),
        cmocka_unit_test(large_dag_is_fast_enough),
        cmocka_unit_test(skip_next_to_culprit_reports_range),
        cmocka_unit_test(skipping_everything_reports_whole_range),
        cmocka_unit_test(skipped_commit_is_not_proposed_again),
        cmocka_unit_test(two_culprits_both_found_with_subranges),
        cmocka_unit_test(two_culprits_on_merge_dag),
        cmocka_unit_test(plan_1024_in_log_k_plus_1_rounds),
        cmocka_unit_test(plan_odd_sizes_within_bound),
        cmocka_unit_test(plan_of_one_is_next_on_a_line),
        cmocka_unit_test(plan_on_merge_dags_finds_every_culprit),
        cmocka_unit_test(plan_leaves_out_skipped_and_takes_all_when_few),
        cmocka_unit_test(mark_round_keeps_lowest_bad_and_counts_unused),
    };
    return cmocka_run_group_tests_name("bisect", tests, NULL, NULL);
}
