/*
 * The one answer of a call-tree diff (culprit_calltree_diff_answer(), docs/calltree.md
 * "The answer") on hand-built trees and change sets, one test per case of issue 26:
 * a quadratic scan in the changed function; a changed caller with a new callee; a
 * changed function whose time moved into an unchanged callee; a changed lookup
 * whose cost is split over three paths; no changed function on the slow path.
 * Then the suspects: one whose interval holds 0 is not listed, and no share is
 * above 100%. Last, the document carries the answer, and reading it back gives the
 * same function (what culprit report prints).
 */
#include "support/test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/tree_fixture.h"

static const char *const file = "/home/dev/fig5/src/fig5.c";

/* A change set of src/fig5.c touching one line inside each function named in
 * `names` ("fem,doo"; the layout of fixture_lines()). */
static culprit_vcs_changeset *changes_of(const char *names)
{
    static culprit_vcs_changeset c;
    static culprit_vcs_file_change f;
    static culprit_vcs_range ranges[8];
    static char path[] = "src/fig5.c", copy[64];
    size_t n = 0;

    memset(&c, 0, sizeof(c));
    memset(&f, 0, sizeof(f));
    snprintf(copy, sizeof(copy), "%s", names);
    for (char *name = strtok(copy, ","); name && n < 8; name = strtok(NULL, ",")) {
        unsigned int low, high;
        fixture_lines(name, &low, &high);
        assert_int_not_equal(low, 0);
        ranges[n].start = low + 2;
        ranges[n].lines = 1;
        n++;
    }
    f.path = path;
    f.status = CULPRIT_VCS_MODIFIED;
    f.ranges = ranges;
    f.nranges = n;
    c.files = &f;
    c.nfiles = 1;
    return &c;
}

static const char *name_of(const culprit_calltree_diff *d, size_t pair)
{
    assert_int_not_equal(pair, CULPRIT_CALLTREE_NONE);
    return culprit_calltree_diff_function(d, pair)->name;
}

/* The diff of base and test, correlated with `changed` (NULL: not correlated), and
 * its answer; the text into `text` when given. */
static void answer_of(culprit_calltree_diff *d, culprit_calltree_answer *a, culprit_buf *text,
                      const culprit_calltree *base, const culprit_calltree *test,
                      const char *changed)
{
    assert_int_equal(culprit_calltree_diff_trees(d, base, test, NULL), 0);
    if (changed)
        assert_int_equal(culprit_calltree_correlate(d, changes_of(changed)), 0);
    assert_int_equal(culprit_calltree_diff_answer(a, d), 0);
    if (text)
        assert_int_equal(culprit_calltree_answer_text(text, d, a), 0);
}

static void dispose_all(culprit_calltree_diff *d, culprit_calltree *base, culprit_calltree *test)
{
    culprit_calltree_diff_dispose(d);
    culprit_calltree_free(base);
    culprit_calltree_free(test);
}

static void a_quadratic_scan_in_the_changed_function_is_the_answer(void **state)
{
    culprit_calltree *base = fixture_fig5(20, 1000), *test = fixture_fig5(20, 6000);
    culprit_calltree_diff d;
    culprit_calltree_answer a;
    culprit_buf text = CULPRIT_BUF_INIT;
    (void)state;

    answer_of(&d, &a, &text, base, test, "fem");
    assert_int_equal(a.kind, CULPRIT_CALLTREE_ANSWER_CHANGED);
    assert_string_equal(name_of(&d, a.pair), "fem");
    assert_true(fabs(a.share - 1) < 1e-9);
    assert_true(fabs(a.explained_ns - 100000) < 1e-6);
    assert_string_equal(culprit_buf_cstr(&text), "fem (/home/dev/fig5/src/fig5.c:21), changed by "
                                                 "the commit, explains 100% of the regression");
    culprit_buf_dispose(&text);
    dispose_all(&d, base, test);
}

static void a_changed_caller_with_a_new_callee_is_the_answer_not_the_callee(void **state)
{
    /* fem now calls bar (which the commit did not change), 5 us per call: the reach
     * rule's suspect is fem → bar, new; fem adds nothing itself. */
    culprit_calltree *base = fixture_fig5(20, 1000), *test;
    culprit_calltree_diff d;
    culprit_calltree_answer a;
    culprit_buf text = CULPRIT_BUF_INIT;
    double fem = 1000 + 2000 + 3000 + 5000, doo = 500 + fem;
    (void)state;

    assert_int_equal(culprit_calltree_new(&test), 0);
    test->mode = CULPRIT_CALLTREE_FULL;
    fixture_node(test, "foo", file, 20, 100 + 3000 + doo, 0.02 * (3100 + doo));
    fixture_node(test, "foo;bar", file, 20, 3000, 60);
    fixture_node(test, "foo;doo", file, 20, doo, 0.02 * doo);
    fixture_node(test, "foo;doo;fem", file, 20, fem, 0.02 * fem);
    fixture_node(test, "foo;doo;fem;qux", file, 20, 2000, 40);
    fixture_node(test, "foo;doo;fem;wug", file, 60, 1000, 20);
    fixture_node(test, "foo;doo;fem;bar", file, 20, 5000, 100);
    fixture_finish(test);
    /* Without the commit's changes, the answer is where the time went: bar. */
    answer_of(&d, &a, NULL, base, test, NULL);
    assert_int_equal(a.kind, CULPRIT_CALLTREE_ANSWER_UNCORRELATED);
    assert_string_equal(name_of(&d, a.pair), "bar");
    culprit_calltree_diff_dispose(&d);
    answer_of(&d, &a, &text, base, test, "fem");
    assert_string_equal(name_of(&d, d.suspects[0].path[d.suspects[0].npath - 1]), "bar");
    assert_int_equal(a.kind, CULPRIT_CALLTREE_ANSWER_CHANGED);
    assert_string_equal(name_of(&d, a.pair), "fem");
    assert_true(fabs(a.explained_ns - 100000) < 1e-6);
    assert_non_null(strstr(culprit_buf_cstr(&text), "(the time itself is spent below it, in bar)"));
    culprit_buf_dispose(&text);
    dispose_all(&d, base, test);
}

static void a_changed_function_whose_time_moved_into_an_unchanged_callee_is_the_answer(void **state)
{
    /* doo (changed, as cmark_strbuf_grow) now spends 0.1 us itself instead of 0.5 but
     * hands fem (unchanged, as xrealloc) work that takes 9 us instead of 1: fem is the
     * only suspect, doo's own time fell; doo's inclusive time grew by 117%. */
    culprit_calltree *base = fixture_fig5(20, 1000), *test = fixture_fig5(20, 9000);
    culprit_calltree_diff d;
    culprit_calltree_answer a;
    double fem = 9000 + 2000 + 3000, doo = 100 + fem;
    (void)state;

    fixture_node(test, "foo;doo", file, 20, doo, 0.02 * doo);
    fixture_node(test, "foo", file, 20, 100 + 3000 + doo, 0.02 * (3100 + doo));
    fixture_finish(test);
    answer_of(&d, &a, NULL, base, test, "doo");
    assert_int_equal(d.nsuspects, 1);
    assert_string_equal(name_of(&d, d.suspects[0].path[2]), "fem");
    assert_false(d.suspects[0].changed);
    assert_int_equal(a.kind, CULPRIT_CALLTREE_ANSWER_CHANGED);
    assert_string_equal(name_of(&d, a.pair), "doo");
    assert_true(fabs(a.explained_ns - 20 * 7600) < 1e-6);
    assert_true(fabs(a.share - 1) < 1e-9);
    dispose_all(&d, base, test);
}

/* qux, a lookup, called from bar, doo and fem (20 calls each); `qux_ns` per call.
 * With `caller`, foo also calls a new wug that takes 4 us itself and calls qux. */
static culprit_calltree *lookup_tree(double qux_ns, int caller)
{
    culprit_calltree *t;
    double fem = 1000 + qux_ns, doo = 500 + fem + qux_ns, bar = 1000 + qux_ns;
    double wug = caller ? 4000 + qux_ns : 0, foo = 100 + bar + doo + wug;

    assert_int_equal(culprit_calltree_new(&t), 0);
    t->mode = CULPRIT_CALLTREE_FULL;
    fixture_node(t, "foo", file, 20, foo, 0.01 * foo);
    fixture_node(t, "foo;bar", file, 20, bar, 0.01 * bar);
    fixture_node(t, "foo;bar;qux", file, 20, qux_ns, 0.01 * qux_ns);
    fixture_node(t, "foo;doo", file, 20, doo, 0.01 * doo);
    fixture_node(t, "foo;doo;qux", file, 20, qux_ns, 0.01 * qux_ns);
    fixture_node(t, "foo;doo;fem", file, 20, fem, 0.01 * fem);
    fixture_node(t, "foo;doo;fem;qux", file, 20, qux_ns, 0.01 * qux_ns);
    if (caller) {
        fixture_node(t, "foo;wug", file, 20, wug, 0.01 * wug);
        fixture_node(t, "foo;wug;qux", file, 20, qux_ns, 0.01 * qux_ns);
    }
    fixture_finish(t);
    return t;
}

static void a_changed_lookup_split_over_three_paths_is_the_answer(void **state)
{
    /* qux 2 -> 5 us per call on each of its three paths (+60 us each) and under the
     * new caller wug (+100 us); wug itself adds 80 us, more than qux on any one path.
     * Both changed: qux explains 280 of the 360 us. */
    culprit_calltree *base = lookup_tree(2000, 0), *test = lookup_tree(5000, 1);
    culprit_calltree_diff d;
    culprit_calltree_answer a;
    (void)state;

    answer_of(&d, &a, NULL, base, test, "qux,wug");
    assert_true(fabs(d.regression_ns - 360000) < 1e-6);
    assert_int_equal(a.kind, CULPRIT_CALLTREE_ANSWER_CHANGED);
    assert_string_equal(name_of(&d, a.pair), "qux");
    assert_true(fabs(a.explained_ns - 280000) < 1e-6);
    assert_true(fabs(a.share - 280.0 / 360) < 1e-9);
    assert_int_equal(a.nchanged, 2);
    dispose_all(&d, base, test);
}

static void no_changed_function_on_the_slow_path_says_so_and_names_both(void **state)
{
    culprit_calltree *base = fixture_fig5(20, 1000), *test = fixture_fig5(20, 6000);
    culprit_calltree_diff d;
    culprit_calltree_answer a;
    culprit_buf text = CULPRIT_BUF_INIT;
    (void)state;

    /* The commit changed bar, which ran, off the slow path. */
    answer_of(&d, &a, &text, base, test, "bar");
    assert_int_equal(a.kind, CULPRIT_CALLTREE_ANSWER_NOT_ON_PATH);
    assert_int_equal(a.pair, CULPRIT_CALLTREE_NONE);
    assert_string_equal(name_of(&d, a.where), "fem");
    assert_string_equal(name_of(&d, a.changed), "bar");
    assert_string_equal(
        culprit_buf_cstr(&text),
        "no function the commit changed is on the slow path: the time went to "
        "fem (/home/dev/fig5/src/fig5.c:21); the commit changed bar "
        "(/home/dev/fig5/src/fig5.c:41), which ran but explains less than 1% of it");
    culprit_buf_clear(&text);
    culprit_calltree_diff_dispose(&d);
    /* It changed main, which is not in the tree. */
    answer_of(&d, &a, &text, base, test, "main");
    assert_int_equal(a.kind, CULPRIT_CALLTREE_ANSWER_NOT_ON_PATH);
    assert_int_equal(a.changed, CULPRIT_CALLTREE_NONE);
    assert_int_equal(a.nchanged, 0);
    assert_non_null(strstr(culprit_buf_cstr(&text), "; no function the commit changed ran"));
    culprit_buf_dispose(&text);
    dispose_all(&d, base, test);
}

static void nothing_regressed_is_no_answer(void **state)
{
    culprit_calltree *base = fixture_fig5(20, 6000), *test = fixture_fig5(20, 1000);
    culprit_calltree_diff d;
    culprit_calltree_answer a;
    (void)state;

    answer_of(&d, &a, NULL, base, test, "fem");
    assert_int_equal(a.kind, CULPRIT_CALLTREE_ANSWER_NONE);
    assert_int_equal(a.pair, CULPRIT_CALLTREE_NONE);
    dispose_all(&d, base, test);
}

static void a_suspect_whose_interval_holds_zero_is_not_listed(void **state)
{
    /* bar +0.9 us per call (+30%, 18 us: 15% of the regression) but its calls spread
     * 4 us: the interval holds 0. It used to be listed second. */
    culprit_calltree *base = fixture_fig5(20, 1000), *test = fixture_fig5(20, 6000);
    culprit_calltree_diff d;
    culprit_calltree_answer a;
    culprit_buf text = CULPRIT_BUF_INIT;
    const culprit_calltree_pair *bar = NULL;
    (void)state;

    fixture_node(test, "foo;bar", file, 20, 3900, 4000);
    fixture_node(test, "foo", file, 20, 100 + 3900 + 500 + 11000, 0.02 * 15500);
    fixture_finish(test);
    assert_int_equal(culprit_calltree_diff_trees(&d, base, test, NULL), 0);
    for (size_t k = 1; k < d.npairs; k++)
        if (!strcmp(name_of(&d, k), "bar"))
            bar = &d.pairs[k];
    assert_non_null(bar);
    assert_true(bar->tested);
    assert_true(bar->change_low < 0 && bar->change_high > 0);
    assert_true(bar->own_ns > 0.05 * d.regression_ns);
    assert_int_equal(d.nsuspects, 1);
    assert_string_equal(name_of(&d, d.suspects[0].path[2]), "fem");
    culprit_calltree_diff_dispose(&d);
    /* bar changed alone, its interval holding 0: no suspect, but the answer (the
     * split of the regression is exact), preferred over the unchanged fem that adds
     * more; the sentence says so. */
    assert_int_equal(culprit_calltree_diff_trees(&d, base, test, NULL), 0);
    assert_int_equal(culprit_calltree_correlate(&d, changes_of("bar")), 0);
    assert_int_equal(culprit_calltree_diff_answer(&a, &d), 0);
    assert_int_equal(a.kind, CULPRIT_CALLTREE_ANSWER_CHANGED);
    assert_string_equal(name_of(&d, a.pair), "bar");
    assert_true(fabs(a.explained_ns - 18000) < 1e-6);
    assert_int_equal(culprit_calltree_answer_text(&text, &d, &a), 0);
    assert_non_null(strstr(culprit_buf_cstr(&text),
                           "explains 15% of the regression; suspect 1 is fem, which the commit "
                           "did not change"));
    culprit_buf_dispose(&text);
    dispose_all(&d, base, test);
}

static void a_changed_function_whose_interval_holds_zero_is_still_the_answer(void **state)
{
    /* fem +5 us per call, its calls spread 20 us (a perf test's harness spreads the
     * recorded calls): no suspect, but the split of the regression is exact and fem,
     * changed, explains all of it. */
    culprit_calltree *base = fixture_fig5(20, 1000), *test = fixture_fig5(20, 6000);
    culprit_calltree_diff d;
    culprit_calltree_answer a;
    (void)state;

    fixture_node(test, "foo;doo;fem", file, 20, 11000, 20000);
    fixture_finish(test);
    answer_of(&d, &a, NULL, base, test, "fem");
    assert_int_equal(d.nsuspects, 0);
    assert_int_equal(a.kind, CULPRIT_CALLTREE_ANSWER_CHANGED);
    assert_string_equal(name_of(&d, a.pair), "fem");
    assert_true(fabs(a.share - 1) < 1e-9);
    dispose_all(&d, base, test);
}

static void no_share_is_above_100_percent(void **state)
{
    /* fem +5 us per call (+100 us) while bar got 2.5 us faster (-50 us): the
     * regression is 50 us, fem adds twice that. Its share is capped at 100%. */
    culprit_calltree *base = fixture_fig5(20, 1000), *test = fixture_fig5(20, 6000);
    culprit_calltree_diff d;
    culprit_calltree_answer a;
    culprit_buf doc = CULPRIT_BUF_INIT;
    const char *p;
    (void)state;

    fixture_node(test, "foo;bar", file, 20, 500, 10);
    fixture_node(test, "foo", file, 20, 100 + 500 + 500 + 11000, 0.02 * 12100);
    fixture_finish(test);
    answer_of(&d, &a, NULL, base, test, "fem");
    assert_true(fabs(d.regression_ns - 50000) < 1e-6);
    assert_int_equal(d.nsuspects, 1);
    assert_true(fabs(d.pairs[d.suspects[0].path[2]].own_ns - 100000) < 1e-6);
    for (size_t k = 0; k < d.npairs; k++)
        assert_true(isnan(d.pairs[k].share) || fabs(d.pairs[k].share) <= 1);
    assert_true(fabs(d.pairs[d.suspects[0].path[2]].share - 1) < 1e-12);
    assert_true(a.share <= 1);
    assert_int_equal(culprit_calltree_diff_to_json(&doc, &d, "b", "t", NULL), 0);
    for (p = culprit_buf_cstr(&doc); (p = strstr(p, "\"share\": ")); p++)
        assert_true(strtod(p + 9, NULL) <= 1);
    culprit_buf_dispose(&doc);
    dispose_all(&d, base, test);
}

static void the_document_carries_the_answer_and_reads_back_the_same(void **state)
{
    culprit_calltree *base = fixture_fig5(20, 1000), *test = fixture_fig5(20, 9000);
    culprit_calltree_diff d;
    culprit_calltree_answer a;
    culprit_calltree_view *v = NULL;
    culprit_buf doc = CULPRIT_BUF_INIT, text = CULPRIT_BUF_INIT;
    char path[] = "/tmp/culprit-answer-XXXXXX";
    double doo = 100 + 9000 + 2000 + 3000;
    int fd;
    (void)state;

    fixture_node(test, "foo;doo", file, 20, doo, 0.02 * doo);
    fixture_node(test, "foo", file, 20, 100 + 3000 + doo, 0.02 * (3100 + doo));
    fixture_finish(test);
    answer_of(&d, &a, &text, base, test, "doo");
    assert_int_equal(culprit_calltree_diff_to_json(&doc, &d, "b", "t", NULL), 0);
    assert_true((fd = mkstemp(path)) >= 0);
    assert_int_equal(write(fd, doc.ptr, doc.size), (ssize_t)doc.size);
    close(fd);
    assert_int_equal(culprit_calltree_view_from_json(&v, path), 0);
    unlink(path);
    assert_true(v->answer.given);
    assert_int_equal(v->answer.kind, CULPRIT_CALLTREE_ANSWER_CHANGED);
    assert_string_equal(v->answer.function, "doo");
    assert_int_equal(v->answer.line, 31);
    assert_string_equal(v->answer.where, "fem");
    assert_string_equal(v->answer.text, culprit_buf_cstr(&text));
    culprit_calltree_view_free(v);
    culprit_buf_dispose(&doc);
    culprit_buf_dispose(&text);
    dispose_all(&d, base, test);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_quadratic_scan_in_the_changed_function_is_the_answer),
        cmocka_unit_test(a_changed_caller_with_a_new_callee_is_the_answer_not_the_callee),
        cmocka_unit_test(
            a_changed_function_whose_time_moved_into_an_unchanged_callee_is_the_answer),
        cmocka_unit_test(a_changed_lookup_split_over_three_paths_is_the_answer),
        cmocka_unit_test(no_changed_function_on_the_slow_path_says_so_and_names_both),
        cmocka_unit_test(nothing_regressed_is_no_answer),
        cmocka_unit_test(a_suspect_whose_interval_holds_zero_is_not_listed),
        cmocka_unit_test(a_changed_function_whose_interval_holds_zero_is_still_the_answer),
        cmocka_unit_test(no_share_is_above_100_percent),
        cmocka_unit_test(the_document_carries_the_answer_and_reads_back_the_same),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
