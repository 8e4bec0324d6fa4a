/*
 * The BFS diff (Heger et al. 2013, section 4.2) and the choice of suspects
 * (Vogel 2017, section 3.5) on hand-built trees: the paper's Fig. 5 with fem
 * slower, a changed shape stopping the search, chains of slower nodes with and
 * without a middle node that did not regress, and bad input; then the reach rule:
 * descending through changed shapes, new functions, each node's own added time,
 * the minimum share, trees rooted at a perf test's body.
 */
#include "support/test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support/tree_fixture.h"

/* The paper's stop rule (Heger et al. 2013), which the tests up to
 * repeated_levels_give_a_single_call_its_samples pin down; the reach rule's own
 * tests follow them. */
static const culprit_calltree_diff_options paper = {
    CULPRIT_CALLTREE_DIFF_OPTIONS_VERSION, 0.99, 0.02, CULPRIT_CALLTREE_RULE_PAPER, 0.02, NULL};

static const char *name_of(const culprit_calltree_diff *d, size_t pair)
{
    return culprit_calltree_diff_function(d, pair)->name;
}

/* The suspect's path as "a;b;c". */
static const char *path_of(const culprit_calltree_diff *d, const culprit_calltree_suspect *s)
{
    static char buf[512];

    buf[0] = '\0';
    for (size_t k = 0; k < s->npath; k++) {
        if (k)
            strcat(buf, ";");
        strcat(buf, name_of(d, s->path[k]));
    }
    return buf;
}

static const culprit_calltree_pair *pair_at(const culprit_calltree_diff *d, const char *path)
{
    size_t node = fixture_find(d->test, path);

    assert_int_not_equal(node, CULPRIT_CALLTREE_NONE);
    for (size_t k = 0; k < d->npairs; k++)
        if (d->pairs[k].test == node)
            return &d->pairs[k];
    fail_msg("no pair for %s", path);
    return NULL;
}

static void fig5_fem_slower_is_the_suspect_path(void **state)
{
    culprit_calltree *base = fixture_fig5(20, 1000), *test = fixture_fig5(20, 6000);
    culprit_calltree_diff d;
    (void)state;

    assert_int_equal(culprit_calltree_diff_trees(&d, base, test, &paper), 0);
    assert_int_equal(d.npairs, 7); /* the root and six functions */
    assert_int_equal(d.nsuspects, 1);
    assert_string_equal(path_of(&d, &d.suspects[0]), "foo;doo;fem");
    assert_int_equal(d.suspects[0].kind, CULPRIT_CALLTREE_LOWEST);
    for (const char *const *p = (const char *const[]){"foo", "foo;doo", "foo;doo;fem", NULL}; *p;
         p++) {
        const culprit_calltree_pair *x = pair_at(&d, *p);
        assert_int_equal(x->verdict, CULPRIT_CALLTREE_SLOWER);
        assert_true(x->tested);
        assert_true(x->change_low > 0);
    }
    for (const char *const *p =
             (const char *const[]){"foo;bar", "foo;doo;fem;qux", "foo;doo;fem;wug", NULL};
         *p; p++) {
        const culprit_calltree_pair *x = pair_at(&d, *p);
        assert_int_equal(x->verdict, CULPRIT_CALLTREE_UNCHANGED);
        assert_true(x->reached); /* compared, and cleared */
        assert_false(x->shape_changed);
    }
    /* fem: 11 us per call against 6 us, +83%; 20 calls add 100 us. */
    {
        const culprit_calltree_pair *fem = pair_at(&d, "foo;doo;fem");
        assert_true(fabs(fem->diff - 5000) < 1e-6);
        assert_true(fabs(fem->change - 5000.0 / 6000.0) < 1e-9);
        assert_true(fem->diff_low < 5000 && fem->diff_high > 5000);
        assert_true(fabs(fem->total_delta - 100000) < 1e-6);
    }
    culprit_calltree_diff_dispose(&d);
    culprit_calltree_diff_dispose(&d); /* twice is harmless */
    culprit_calltree_free(base);
    culprit_calltree_free(test);
}

static void unchanged_trees_have_no_suspect(void **state)
{
    culprit_calltree *base = fixture_fig5(20, 1000), *test = fixture_fig5(20, 1000);
    culprit_calltree_diff d;
    (void)state;

    assert_int_equal(culprit_calltree_diff_trees(&d, base, test, &paper), 0);
    assert_int_equal(d.nsuspects, 0);
    assert_int_equal(pair_at(&d, "foo")->verdict, CULPRIT_CALLTREE_UNCHANGED);
    assert_false(pair_at(&d, "foo;doo")->reached); /* foo did not regress: not descended */
    culprit_calltree_diff_dispose(&d);
    culprit_calltree_free(base);
    culprit_calltree_free(test);
}

static void a_small_significant_change_stays_under_the_threshold(void **state)
{
    /* fem +0.5% per call with a tiny spread: significant, but under 2%. */
    culprit_calltree *base = fixture_fig5(1000, 1000), *test = fixture_fig5(1000, 1030);
    culprit_calltree_diff d;
    culprit_calltree_diff_options o;
    (void)state;

    assert_int_equal(culprit_calltree_diff_options_init(&o, CULPRIT_CALLTREE_DIFF_OPTIONS_VERSION),
                     0);
    o.rule = CULPRIT_CALLTREE_RULE_PAPER;
    assert_int_equal(culprit_calltree_diff_trees(&d, base, test, &o), 0);
    assert_int_equal(pair_at(&d, "foo;doo;fem")->verdict, CULPRIT_CALLTREE_UNCHANGED);
    assert_int_equal(d.nsuspects, 0);
    culprit_calltree_diff_dispose(&d);
    /* A threshold of 0 takes any significant change. */
    o.threshold = 0;
    assert_int_equal(culprit_calltree_diff_trees(&d, base, test, &o), 0);
    assert_int_equal(pair_at(&d, "foo;doo;fem")->verdict, CULPRIT_CALLTREE_SLOWER);
    culprit_calltree_diff_dispose(&d);
    culprit_calltree_free(base);
    culprit_calltree_free(test);
}

static void a_changed_shape_stops_the_search(void **state)
{
    culprit_calltree *base = fixture_fig5(20, 1000), *test = fixture_fig5(20, 1000);
    culprit_calltree_diff d;
    const char *file = "/home/dev/fig5/src/fig5.c";
    (void)state;

    /* fem now calls wug four times per call (and is slower for it); wug itself
     * also looks slower, but fem is not descended. */
    fixture_node(test, "foo;doo;fem;wug", file, 80, 1500, 30);
    fixture_node(test, "foo;doo;fem", file, 20, 1000 + 2000 + 4 * 1500, 180);
    fixture_node(test, "foo;doo", file, 20, 500 + 9000, 190);
    fixture_node(test, "foo", file, 20, 100 + 3000 + 9500, 250);
    fixture_finish(test);
    assert_int_equal(culprit_calltree_diff_trees(&d, base, test, &paper), 0);
    assert_int_equal(d.nsuspects, 1);
    assert_string_equal(path_of(&d, &d.suspects[0]), "foo;doo;fem");
    assert_int_equal(d.suspects[0].kind, CULPRIT_CALLTREE_SHAPE);
    assert_true(pair_at(&d, "foo;doo;fem")->shape_changed);
    assert_int_equal(pair_at(&d, "foo;doo;fem")->calls_changed, 1);
    assert_int_equal(pair_at(&d, "foo;doo;fem;wug")->verdict, CULPRIT_CALLTREE_SLOWER);
    assert_false(pair_at(&d, "foo;doo;fem;wug")->reached);
    culprit_calltree_diff_dispose(&d);
    culprit_calltree_free(test);

    /* A callee added is a change of shape too, and it is named in the counts. */
    test = fixture_fig5(20, 6000);
    fixture_node(test, "foo;doo;fem;zot", file, 20, 10, 1);
    fixture_finish(test);
    assert_int_equal(culprit_calltree_diff_trees(&d, base, test, &paper), 0);
    assert_int_equal(d.nsuspects, 1);
    assert_int_equal(d.suspects[0].kind, CULPRIT_CALLTREE_SHAPE);
    assert_int_equal(pair_at(&d, "foo;doo;fem")->added, 1);
    assert_int_equal(pair_at(&d, "foo;doo;fem")->removed, 0);
    culprit_calltree_diff_dispose(&d);
    culprit_calltree_free(base);
    culprit_calltree_free(test);
}

static void more_calls_of_the_caller_do_not_change_the_shape(void **state)
{
    /* foo runs 30 times instead of 20: every count scales, the shape is the same. */
    culprit_calltree *base = fixture_fig5(20, 1000), *test = fixture_fig5(30, 6000);
    culprit_calltree_diff d;
    (void)state;

    assert_int_equal(culprit_calltree_diff_trees(&d, base, test, &paper), 0);
    assert_false(pair_at(&d, "foo;doo;fem")->shape_changed);
    assert_int_equal(d.nsuspects, 1);
    assert_string_equal(path_of(&d, &d.suspects[0]), "foo;doo;fem");
    culprit_calltree_diff_dispose(&d);
    culprit_calltree_free(base);
    culprit_calltree_free(test);
}

/* Vogel 2017, Fig. 3.8: A calls Aa and Ab; Aa calls Aa1; Aa1 calls Aa11 and Aa12. */
static culprit_calltree *vogel_tree(double a_own, double aa_own, double aa1_own)
{
    culprit_calltree *t;
    double aa1 = aa1_own + 2000, aa = aa_own + aa1, a = a_own + aa + 1000;

    assert_int_equal(culprit_calltree_new(&t), 0);
    t->mode = CULPRIT_CALLTREE_FULL;
    fixture_node(t, "A", "v.c", 50, a, 0.01 * a);
    fixture_node(t, "A;Aa", "v.c", 50, aa, 0.01 * aa);
    fixture_node(t, "A;Ab", "v.c", 50, 1000, 10);
    fixture_node(t, "A;Aa;Aa1", "v.c", 50, aa1, 0.01 * aa1);
    fixture_node(t, "A;Aa;Aa1;Aa11", "v.c", 50, 1000, 10);
    fixture_node(t, "A;Aa;Aa1;Aa12", "v.c", 50, 1000, 10);
    fixture_finish(t);
    return t;
}

static void the_lowest_of_a_slower_chain_is_the_suspect(void **state)
{
    culprit_calltree *base = vogel_tree(1000, 1000, 1000), *test = vogel_tree(1000, 1000, 9000);
    culprit_calltree_diff d;
    (void)state;

    assert_int_equal(culprit_calltree_diff_trees(&d, base, test, &paper), 0);
    assert_int_equal(d.nsuspects, 1);
    assert_string_equal(path_of(&d, &d.suspects[0]), "A;Aa;Aa1");
    assert_int_equal(d.suspects[0].kind, CULPRIT_CALLTREE_LOWEST);
    culprit_calltree_diff_dispose(&d);
    culprit_calltree_free(base);
    culprit_calltree_free(test);
}

static void both_ends_are_suspects_when_the_middle_did_not_regress(void **state)
{
    /* Aa spends 1 ms of its own, so Aa1's +1 us is 0.1% of it: Aa does not regress,
     * A does (its own +50%), Aa1 does (+33%). */
    culprit_calltree *base = vogel_tree(1e6, 1e6, 1000), *test = vogel_tree(1.5e6, 1e6, 2000);
    culprit_calltree_diff d;
    (void)state;

    assert_int_equal(culprit_calltree_diff_trees(&d, base, test, &paper), 0);
    assert_int_equal(pair_at(&d, "A")->verdict, CULPRIT_CALLTREE_SLOWER);
    assert_int_equal(pair_at(&d, "A;Aa")->verdict, CULPRIT_CALLTREE_UNCHANGED);
    assert_int_equal(pair_at(&d, "A;Aa;Aa1")->verdict, CULPRIT_CALLTREE_SLOWER);
    assert_false(pair_at(&d, "A;Aa;Aa1")->reached); /* the BFS stops at Aa */
    assert_int_equal(d.nsuspects, 2);
    assert_string_equal(path_of(&d, &d.suspects[0]), "A");
    assert_int_equal(d.suspects[0].kind, CULPRIT_CALLTREE_LOWEST);
    assert_string_equal(path_of(&d, &d.suspects[1]), "A;Aa;Aa1");
    assert_int_equal(d.suspects[1].kind, CULPRIT_CALLTREE_BELOW);
    culprit_calltree_diff_dispose(&d);
    culprit_calltree_free(base);
    culprit_calltree_free(test);
}

static void functions_match_by_name_and_file_not_by_order(void **state)
{
    culprit_calltree *base = fixture_fig5(20, 1000), *test;
    culprit_calltree_diff d;
    size_t extra;
    const char *file = "/home/dev/fig5/src/fig5.c";
    (void)state;

    /* The test build lists its functions in another order, with a same-named
     * function of another file in front: identities, not indices, match. */
    assert_int_equal(culprit_calltree_new(&test), 0);
    test->mode = CULPRIT_CALLTREE_FULL;
    assert_int_equal(culprit_calltree_function_intern(&extra, test, "fem", "other.c", 1, 2), 0);
    fixture_node(test, "foo;doo;fem;wug", file, 60, 1000, 20);
    fixture_node(test, "foo;doo;fem;qux", file, 20, 2000, 40);
    fixture_node(test, "foo;doo;fem", file, 20, 11000, 220);
    fixture_node(test, "foo;doo", file, 20, 11500, 230);
    fixture_node(test, "foo;bar", file, 20, 3000, 60);
    fixture_node(test, "foo", file, 20, 14600, 292);
    fixture_finish(test);
    assert_int_equal(culprit_calltree_diff_trees(&d, base, test, &paper), 0);
    assert_int_equal(d.npairs, 7);
    assert_int_equal(d.nsuspects, 1);
    assert_string_equal(path_of(&d, &d.suspects[0]), "foo;doo;fem");
    assert_string_equal(culprit_calltree_diff_function(&d, d.suspects[0].path[2])->file, file);
    culprit_calltree_diff_dispose(&d);
    culprit_calltree_free(base);
    culprit_calltree_free(test);
}

/* The fig5 tree with every function's file replaced by `file`. */
static culprit_calltree *fig5_in(const char *file, double fem_own_ns)
{
    culprit_calltree *t = fixture_fig5(20, fem_own_ns);

    for (size_t f = 0; f < t->nfunctions; f++) {
        free(t->functions[f].file);
        t->functions[f].file = strdup(file);
    }
    return t;
}

static void builds_in_two_directories_match_by_the_file_path_they_share(void **state)
{
    /* The test build holds, before the real fem, a fem of another directory's fig5.c:
     * the one sharing more of the path (src/fig5.c) is the match. */
    static const struct {
        const char *path;
        double mean;
        uint64_t calls;
    } nodes[] = {
        {"foo", 14600, 20},         {"foo;bar", 3000, 20},         {"foo;doo", 11500, 20},
        {"foo;doo;fem", 11000, 20}, {"foo;doo;fem;qux", 2000, 20}, {"foo;doo;fem;wug", 1000, 60}};
    culprit_calltree *base = fig5_in("/tmp/checkout-a/src/fig5.c", 1000), *test;
    culprit_calltree_diff d;
    size_t decoy;
    (void)state;

    assert_int_equal(culprit_calltree_new(&test), 0);
    test->mode = CULPRIT_CALLTREE_FULL;
    assert_int_equal(
        culprit_calltree_function_intern(&decoy, test, "fem", "/tmp/checkout-b/lib/fig5.c", 1, 2),
        0);
    for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++)
        fixture_node(test, nodes[i].path, "/tmp/checkout-b/src/fig5.c", nodes[i].calls,
                     nodes[i].mean, 0.02 * nodes[i].mean);
    fixture_finish(test);
    assert_int_equal(culprit_calltree_diff_trees(&d, base, test, &paper), 0);
    assert_int_equal(d.npairs, 7);
    assert_int_equal(d.nsuspects, 1);
    assert_string_equal(path_of(&d, &d.suspects[0]), "foo;doo;fem");
    culprit_calltree_diff_dispose(&d);
    culprit_calltree_free(test);
    /* Another file name is another function. */
    test = fig5_in("/tmp/checkout-b/src/fig6.c", 6000);
    assert_int_equal(culprit_calltree_diff_trees(&d, base, test, &paper), 0);
    assert_int_equal(d.npairs, 7); /* the root's, and six only in the test tree */
    for (size_t k = 1; k < d.npairs; k++)
        assert_int_equal(d.pairs[k].verdict, CULPRIT_CALLTREE_ADDED);
    assert_int_equal(d.nsuspects, 0); /* the paper compares nodes of both trees only */
    culprit_calltree_diff_dispose(&d);
    culprit_calltree_free(base);
    culprit_calltree_free(test);
}

static void a_single_call_is_judged_by_the_threshold(void **state)
{
    culprit_calltree *base = fixture_fig5(1, 1000), *test = fixture_fig5(1, 6000);
    culprit_calltree_diff d;
    (void)state;

    assert_int_equal(culprit_calltree_diff_trees(&d, base, test, &paper), 0);
    assert_false(pair_at(&d, "foo;doo;fem")->tested);
    assert_int_equal(pair_at(&d, "foo;doo;fem")->verdict, CULPRIT_CALLTREE_SLOWER);
    assert_true(isnan(pair_at(&d, "foo;doo;fem")->p));
    assert_int_equal(d.nsuspects, 1);
    assert_string_equal(path_of(&d, &d.suspects[0]), "foo;doo;fem");
    culprit_calltree_diff_dispose(&d);
    culprit_calltree_free(base);
    culprit_calltree_free(test);
}

/* A function called once per run, its level recorded 10 times (record --repeat):
 * the 10 timed calls are the samples, so Welch decides. */
static void repeated_levels_give_a_single_call_its_samples(void **state)
{
    culprit_calltree *base = fixture_fig5(1, 1000), *test = fixture_fig5(1, 6000);
    culprit_calltree *trees[2] = {base, test};
    culprit_calltree_diff d;
    (void)state;

    for (int t = 0; t < 2; t++)
        for (size_t i = 1; i < trees[t]->nnodes; i++) {
            culprit_calltree_node *n = &trees[t]->nodes[i];
            double mean = n->inclusive_ns / (double)n->calls, sd = 0.005 * mean;
            n->inclusive_sq_ns2 = (double)n->calls * (mean * mean + sd * sd);
            n->samples = 10;
        }
    assert_int_equal(culprit_calltree_diff_trees(&d, base, test, &paper), 0);
    assert_true(pair_at(&d, "foo;doo;fem")->tested);
    assert_int_equal(pair_at(&d, "foo;doo;fem")->verdict, CULPRIT_CALLTREE_SLOWER);
    assert_true(pair_at(&d, "foo;doo;fem")->p < 0.01);
    assert_true(pair_at(&d, "foo;doo;fem;qux")->tested);
    assert_int_equal(pair_at(&d, "foo;doo;fem;qux")->verdict, CULPRIT_CALLTREE_UNCHANGED);
    assert_int_equal(d.nsuspects, 1);
    assert_string_equal(path_of(&d, &d.suspects[0]), "foo;doo;fem");
    culprit_calltree_diff_dispose(&d);
    culprit_calltree_free(base);
    culprit_calltree_free(test);
}

static void trees_without_per_call_times_are_refused(void **state)
{
    culprit_calltree *base = fixture_fig5(20, 1000), *test = fixture_fig5(20, 1000);
    culprit_calltree_diff d;
    culprit_calltree_diff_options o = CULPRIT_CALLTREE_DIFF_OPTIONS_INIT;
    (void)state;

    test->mode = CULPRIT_CALLTREE_WEIGHTS;
    assert_int_equal(culprit_calltree_diff_trees(&d, base, test, NULL), CULPRIT_EINVALID);
    assert_non_null(strstr(culprit_error_last(), "test call tree holds folded-stack weights"));
    base->mode = CULPRIT_CALLTREE_STRUCTURE;
    assert_int_equal(culprit_calltree_diff_trees(&d, base, test, NULL), CULPRIT_EINVALID);
    assert_non_null(strstr(culprit_error_last(), "base call tree has no times"));
    o.confidence = 1;
    assert_int_equal(culprit_calltree_diff_trees(&d, base, test, &o), CULPRIT_EINVALID);
    assert_int_equal(
        culprit_calltree_diff_options_init(&o, CULPRIT_CALLTREE_DIFF_OPTIONS_VERSION + 1),
        CULPRIT_EINVALID);
    culprit_calltree_free(base);
    culprit_calltree_free(test);
}

/* ---------------------------------------------------------- the reach rule --- */

static void reach_fig5_names_fem_by_its_own_time(void **state)
{
    culprit_calltree *base = fixture_fig5(20, 1000), *test = fixture_fig5(20, 6000);
    culprit_calltree_diff d;
    const culprit_calltree_pair *fem;
    (void)state;

    assert_int_equal(culprit_calltree_diff_trees(&d, base, test, NULL), 0);
    assert_int_equal(d.nsuspects, 1);
    assert_string_equal(path_of(&d, &d.suspects[0]), "foo;doo;fem");
    assert_int_equal(d.suspects[0].kind, CULPRIT_CALLTREE_OWN);
    fem = pair_at(&d, "foo;doo;fem");
    assert_true(fabs(fem->own_ns - 100000) < 1e-6); /* 20 calls, 5 us more each */
    assert_true(fabs(d.regression_ns - 100000) < 1e-6);
    assert_true(fabs(fem->share - 1) < 1e-9);
    assert_true(fabs(pair_at(&d, "foo;doo")->own_ns) < 1e-6); /* its callers add nothing */
    assert_true(fabs(pair_at(&d, "foo")->own_ns) < 1e-6);
    assert_int_equal(d.nsmaller, 0);
    culprit_calltree_diff_dispose(&d);
    culprit_calltree_free(base);
    culprit_calltree_free(test);
}

static void reach_a_node_its_test_clears_is_no_suspect(void **state)
{
    /* fem +10 us per call (+181%); wug +300 ns per call (+30%, 18 us: 8% of the
     * regression). At a 100% threshold wug's test clears it (unchanged, same calls):
     * no suspect, not counted; at 2% it is slower and listed second. */
    culprit_calltree *base = fixture_fig5(20, 1000), *test = fixture_fig5(20, 11000);
    culprit_calltree_diff d;
    culprit_calltree_diff_options o = CULPRIT_CALLTREE_DIFF_OPTIONS_INIT;
    const char *file = "/home/dev/fig5/src/fig5.c";
    double fem = 11000 + 2000 + 3 * 1300;
    (void)state;

    fixture_node(test, "foo;doo;fem;wug", file, 60, 1300, 26);
    fixture_node(test, "foo;doo;fem", file, 20, fem, 0.02 * fem);
    fixture_node(test, "foo;doo", file, 20, 500 + fem, 0.02 * (500 + fem));
    fixture_node(test, "foo", file, 20, 3600 + fem, 0.02 * (3600 + fem));
    fixture_finish(test);
    o.threshold = 1.0;
    assert_int_equal(culprit_calltree_diff_trees(&d, base, test, &o), 0);
    assert_int_equal(pair_at(&d, "foo;doo;fem;wug")->verdict, CULPRIT_CALLTREE_UNCHANGED);
    assert_int_equal(d.nsuspects, 1);
    assert_string_equal(path_of(&d, &d.suspects[0]), "foo;doo;fem");
    assert_int_equal(d.nsmaller, 0);
    culprit_calltree_diff_dispose(&d);
    o.threshold = 0.02;
    assert_int_equal(culprit_calltree_diff_trees(&d, base, test, &o), 0);
    assert_int_equal(d.nsuspects, 2);
    assert_string_equal(path_of(&d, &d.suspects[1]), "foo;doo;fem;wug");
    culprit_calltree_diff_dispose(&d);
    culprit_calltree_free(base);
    culprit_calltree_free(test);
}

static void reach_descends_through_a_changed_shape(void **state)
{
    /* fem now calls wug four times per call instead of three, and each wug call
     * takes 1.5 us instead of 1: the paper stops at fem; the reach rule splits fem's
     * +60 us between wug (+40 us: 80 calls, 0.5 us slower) and fem itself (+20 us:
     * the 20 extra calls of wug at its old 1 us), and names wug first. */
    culprit_calltree *base = fixture_fig5(20, 1000), *test = fixture_fig5(20, 1000);
    culprit_calltree_diff d;
    const char *file = "/home/dev/fig5/src/fig5.c", *names[4];
    (void)state;

    fixture_node(test, "foo;doo;fem;wug", file, 80, 1500, 30);
    fixture_node(test, "foo;doo;fem", file, 20, 1000 + 2000 + 4 * 1500, 180);
    fixture_node(test, "foo;doo", file, 20, 500 + 9000, 190);
    fixture_node(test, "foo", file, 20, 100 + 3000 + 9500, 250);
    fixture_finish(test);
    assert_int_equal(culprit_calltree_diff_trees(&d, base, test, NULL), 0);
    assert_true(pair_at(&d, "foo;doo;fem;wug")->reached);
    assert_int_equal(d.nsuspects, 2);
    assert_string_equal(path_of(&d, &d.suspects[0]), "foo;doo;fem;wug");
    assert_string_equal(path_of(&d, &d.suspects[1]), "foo;doo;fem");
    assert_true(fabs(pair_at(&d, "foo;doo;fem;wug")->own_ns - 40000) < 1e-6);
    assert_true(fabs(pair_at(&d, "foo;doo;fem")->own_ns - 20000) < 1e-6);
    assert_true(fabs(pair_at(&d, "foo;doo;fem;wug")->share - 2.0 / 3) < 1e-9);
    /* fem's callee with other counts is named. */
    assert_int_equal(culprit_calltree_diff_callees(&d, d.suspects[1].path[2],
                                                   CULPRIT_CALLTREE_CALLEES_COUNTS, names, 4),
                     1);
    assert_string_equal(names[0], "wug");
    culprit_calltree_diff_dispose(&d);
    culprit_calltree_free(base);
    culprit_calltree_free(test);
}

static void reach_a_new_function_is_compared_against_nothing(void **state)
{
    /* fem calls a new zot (5 us per call) and no longer calls qux: zot is the
     * suspect with all its time; fem's callees name both. */
    culprit_calltree *base = fixture_fig5(20, 1000), *test;
    culprit_calltree_diff d;
    const char *file = "/home/dev/fig5/src/fig5.c", *names[4];
    double fem = 1000 + 5000 + 3000, doo = 500 + fem;
    (void)state;

    assert_int_equal(culprit_calltree_new(&test), 0);
    test->mode = CULPRIT_CALLTREE_FULL;
    fixture_node(test, "foo", file, 20, 100 + 3000 + doo, 0.02 * (3100 + doo));
    fixture_node(test, "foo;bar", file, 20, 3000, 60);
    fixture_node(test, "foo;doo", file, 20, doo, 0.02 * doo);
    fixture_node(test, "foo;doo;fem", file, 20, fem, 0.02 * fem);
    fixture_node(test, "foo;doo;fem;zot", file, 20, 5000, 100);
    fixture_node(test, "foo;doo;fem;wug", file, 60, 1000, 20);
    fixture_finish(test);
    assert_int_equal(culprit_calltree_diff_trees(&d, base, test, NULL), 0);
    assert_int_equal(pair_at(&d, "foo;doo;fem;zot")->verdict, CULPRIT_CALLTREE_ADDED);
    assert_int_equal(d.nsuspects, 1);
    assert_string_equal(path_of(&d, &d.suspects[0]), "foo;doo;fem;zot");
    assert_int_equal(d.suspects[0].kind, CULPRIT_CALLTREE_NEW);
    assert_true(fabs(pair_at(&d, "foo;doo;fem;zot")->own_ns - 100000) < 1e-6);
    /* fem's own: qux's 40 us are gone. */
    assert_true(fabs(pair_at(&d, "foo;doo;fem")->own_ns + 40000) < 1e-6);
    assert_true(fabs(d.regression_ns - 60000) < 1e-6);
    assert_int_equal(culprit_calltree_diff_callees(&d, d.suspects[0].path[2],
                                                   CULPRIT_CALLTREE_CALLEES_ADDED, names, 4),
                     1);
    assert_string_equal(names[0], "zot");
    assert_int_equal(culprit_calltree_diff_callees(&d, d.suspects[0].path[2],
                                                   CULPRIT_CALLTREE_CALLEES_REMOVED, names, 4),
                     1);
    assert_string_equal(names[0], "qux");
    culprit_calltree_diff_dispose(&d);
    /* The paper's rule stops at fem, whose shape changed. */
    assert_int_equal(culprit_calltree_diff_trees(&d, base, test, &paper), 0);
    assert_int_equal(d.nsuspects, 1);
    assert_string_equal(path_of(&d, &d.suspects[0]), "foo;doo;fem");
    assert_int_equal(d.suspects[0].kind, CULPRIT_CALLTREE_SHAPE);
    culprit_calltree_diff_dispose(&d);
    culprit_calltree_free(base);
    culprit_calltree_free(test);
}

static void reach_counts_what_explains_less_than_the_minimum_share(void **state)
{
    /* fem +5 us per call (100 us in all); bar +90 ns per call, +3%, significant
     * (1.8 us in all, 1.8% of the regression): bar is counted, not listed; with a
     * minimum share of 0 it is listed second. */
    culprit_calltree *base = fixture_fig5(20, 1000), *test = fixture_fig5(20, 6000);
    culprit_calltree_diff d;
    culprit_calltree_diff_options o = CULPRIT_CALLTREE_DIFF_OPTIONS_INIT;
    const char *file = "/home/dev/fig5/src/fig5.c";
    (void)state;

    fixture_node(test, "foo;bar", file, 20, 3090, 1);
    fixture_node(test, "foo", file, 20, 100 + 3090 + 500 + 11000, 0.02 * 14690);
    fixture_finish(test);
    assert_int_equal(culprit_calltree_diff_trees(&d, base, test, &o), 0);
    assert_int_equal(pair_at(&d, "foo;bar")->verdict, CULPRIT_CALLTREE_SLOWER);
    assert_int_equal(d.nsuspects, 1);
    assert_string_equal(path_of(&d, &d.suspects[0]), "foo;doo;fem");
    assert_int_equal(d.nsmaller, 1);
    assert_true(fabs(d.smaller_ns - 1800) < 1e-6);
    culprit_calltree_diff_dispose(&d);
    o.min_share = 0;
    assert_int_equal(culprit_calltree_diff_trees(&d, base, test, &o), 0);
    assert_int_equal(d.nsuspects, 2);
    assert_string_equal(path_of(&d, &d.suspects[1]), "foo;bar");
    culprit_calltree_diff_dispose(&d);
    o.min_share = 1.5;
    assert_int_equal(culprit_calltree_diff_trees(&d, base, test, &o), CULPRIT_EINVALID);
    culprit_calltree_free(base);
    culprit_calltree_free(test);
}

/* A perf test's tree: main calls the harness, which calls the body `calls` times;
 * the body calls prepare() once and leaf() 10 times, each leaf call `leaf_ns`. */
static culprit_calltree *perf_tree(uint64_t calls, double leaf_ns)
{
    culprit_calltree *t;
    double body = 200 + 10 * leaf_ns, harness = 1000 + calls * body;

    assert_int_equal(culprit_calltree_new(&t), 0);
    t->mode = CULPRIT_CALLTREE_FULL;
    fixture_node(t, "main", "p.c", 1, harness + 500, 0);
    fixture_node(t, "main;harness", "p.c", 1, harness, 0);
    fixture_node(t, "main;harness;body", "p.c", calls, body, 0.01 * body);
    fixture_node(t, "main;harness;body;prepare", "p.c", calls, 100, 1);
    fixture_node(t, "main;harness;body;leaf", "p.c", 10 * calls, leaf_ns, 0.01 * leaf_ns);
    fixture_finish(t);
    return t;
}

static void reach_a_rooted_diff_compares_per_call_of_the_body(void **state)
{
    /* The harness ran the faster body 40 times, the slower one 8 times: per call of
     * the body, leaf adds 10 x 4 us; the whole trees would not say so. */
    culprit_calltree *base = perf_tree(40, 1000), *test = perf_tree(8, 5000);
    culprit_calltree_diff d;
    culprit_calltree_diff_options o = CULPRIT_CALLTREE_DIFF_OPTIONS_INIT;
    (void)state;

    o.root = "body";
    assert_int_equal(culprit_calltree_diff_trees(&d, base, test, &o), 0);
    assert_int_equal(d.root_calls, 8);
    assert_string_equal(name_of(&d, 0), "body");
    assert_true(fabs(d.regression_ns / 8 - 40000) < 1e-6);
    assert_int_equal(d.nsuspects, 1);
    assert_string_equal(path_of(&d, &d.suspects[0]), "body;leaf");
    assert_true(fabs(d.pairs[d.suspects[0].path[1]].own_ns / 8 - 40000) < 1e-6);
    assert_false(d.pairs[0].shape_changed);
    culprit_calltree_diff_dispose(&d);
    o.root = "nobody";
    assert_int_equal(culprit_calltree_diff_trees(&d, base, test, &o), CULPRIT_ENOTFOUND);
    assert_non_null(strstr(culprit_error_last(), "no function 'nobody' in the base call tree"));
    culprit_calltree_free(base);
    culprit_calltree_free(test);
}

static void reach_nothing_to_explain_without_a_regression(void **state)
{
    /* fem 5 us faster per call, bar 30 ns slower: the whole got faster. */
    culprit_calltree *base = fixture_fig5(20, 6000), *test = fixture_fig5(20, 1000);
    culprit_calltree_diff d;
    const char *file = "/home/dev/fig5/src/fig5.c";
    (void)state;

    fixture_node(test, "foo;bar", file, 20, 3030, 1);
    fixture_node(test, "foo", file, 20, 100 + 3030 + 500 + 6000, 0.02 * 9630);
    fixture_finish(test);
    assert_int_equal(culprit_calltree_diff_trees(&d, base, test, NULL), 0);
    assert_int_equal(d.nsuspects, 0);
    culprit_calltree_diff_dispose(&d);
    culprit_calltree_free(base);
    culprit_calltree_free(test);
}

/* A counted tree (instructions: no per-call variance): main calls parse once and
 * lookup 100 times, each `parse` and `lookup` instructions of its own per call. */
static culprit_calltree *counted(double parse, double lookup)
{
    culprit_calltree *t;
    const char *file = "src/x.c";

    assert_int_equal(culprit_calltree_new(&t), 0);
    t->mode = CULPRIT_CALLTREE_FULL;
    t->instructions = 1;
    fixture_node(t, "main", file, 1, 1000 + parse + 100 * lookup, 0);
    fixture_node(t, "main;parse", file, 1, parse, 0);
    fixture_node(t, "main;lookup", file, 100, lookup, 0);
    for (size_t i = 1; i < t->nnodes; i++)
        t->nodes[i].inclusive_sq_ns2 = NAN;
    fixture_finish(t);
    return t;
}

/* The diff of base and test with each side's second recording (NULL none): its
 * suspects' functions as "a b", and how many the band left out. */
static const char *banded(const culprit_calltree *base, const culprit_calltree *test,
                          const culprit_calltree *base2, const culprit_calltree *test2,
                          size_t *nvarying)
{
    static char buf[256];
    culprit_calltree_diff d;

    assert_int_equal(culprit_calltree_diff_trees(&d, base, test, NULL), 0);
    assert_int_equal(culprit_calltree_diff_band(&d, base2, test2), 0);
    buf[0] = '\0';
    for (size_t i = 0; i < d.nsuspects; i++) {
        strcat(buf, i ? " " : "");
        strcat(buf, name_of(&d, d.suspects[i].path[d.suspects[i].npath - 1]));
    }
    *nvarying = d.nvarying;
    culprit_calltree_diff_dispose(&d);
    return buf;
}

/* A program whose work varies from run to run (a hash table seeded at random): its
 * lookup counts 1000 and 1050 instructions per call in two recordings of one build,
 * 1040 and 990 in two of the same build again (an A/A). Alone, the diff names lookup
 * (+4% per call, over the 2% threshold); with the second recordings, what lookup adds
 * between the sides (4,000) is within what it varies within each (5,000): left out.
 * A change beyond it stays: parse 10x (the same in a side's recordings, no band) and
 * lookup 2x (100,000 beside its 5,000). Without a difference between a side's two
 * recordings, nothing changes: lookup's +4% stays a suspect. */
static void band_leaves_out_what_varies_within_a_side(void **state)
{
    culprit_calltree *base = counted(50000, 1000), *base2 = counted(50000, 1050),
                     *aa = counted(50000, 1040), *aa2 = counted(50000, 990),
                     *ab = counted(500000, 2000), *ab2 = counted(500000, 1950);
    size_t nvarying;
    (void)state;

    assert_string_equal(banded(base, aa, NULL, NULL, &nvarying), "lookup");
    assert_int_equal(nvarying, 0);
    assert_string_equal(banded(base, aa, base2, aa2, &nvarying), "");
    assert_int_equal(nvarying, 1);
    assert_string_equal(banded(base, aa, base2, NULL, &nvarying), "");
    assert_string_equal(banded(base, ab, base2, ab2, &nvarying), "parse lookup");
    assert_int_equal(nvarying, 0);
    assert_string_equal(banded(base, aa, base, aa, &nvarying), "lookup");
    assert_int_equal(nvarying, 0);
    /* A second recording of another metric is refused, saying which. */
    base2->instructions = 0;
    {
        culprit_calltree_diff d;
        assert_int_equal(culprit_calltree_diff_trees(&d, base, aa, NULL), 0);
        assert_int_equal(culprit_calltree_diff_band(&d, base2, NULL), CULPRIT_EINVALID);
        assert_non_null(
            strstr(culprit_error_last(), "the base tree's second recording times calls"));
        culprit_calltree_diff_dispose(&d);
    }
    culprit_calltree_free(base);
    culprit_calltree_free(base2);
    culprit_calltree_free(aa);
    culprit_calltree_free(aa2);
    culprit_calltree_free(ab);
    culprit_calltree_free(ab2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fig5_fem_slower_is_the_suspect_path),
        cmocka_unit_test(unchanged_trees_have_no_suspect),
        cmocka_unit_test(a_small_significant_change_stays_under_the_threshold),
        cmocka_unit_test(a_changed_shape_stops_the_search),
        cmocka_unit_test(more_calls_of_the_caller_do_not_change_the_shape),
        cmocka_unit_test(the_lowest_of_a_slower_chain_is_the_suspect),
        cmocka_unit_test(both_ends_are_suspects_when_the_middle_did_not_regress),
        cmocka_unit_test(functions_match_by_name_and_file_not_by_order),
        cmocka_unit_test(builds_in_two_directories_match_by_the_file_path_they_share),
        cmocka_unit_test(a_single_call_is_judged_by_the_threshold),
        cmocka_unit_test(repeated_levels_give_a_single_call_its_samples),
        cmocka_unit_test(trees_without_per_call_times_are_refused),
        cmocka_unit_test(reach_fig5_names_fem_by_its_own_time),
        cmocka_unit_test(reach_a_node_its_test_clears_is_no_suspect),
        cmocka_unit_test(reach_descends_through_a_changed_shape),
        cmocka_unit_test(reach_a_new_function_is_compared_against_nothing),
        cmocka_unit_test(reach_counts_what_explains_less_than_the_minimum_share),
        cmocka_unit_test(reach_a_rooted_diff_compares_per_call_of_the_body),
        cmocka_unit_test(reach_nothing_to_explain_without_a_regression),
        cmocka_unit_test(band_leaves_out_what_varies_within_a_side),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
