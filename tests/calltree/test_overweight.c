/*
 * Overweight analysis on hand-built profiles: the formulas of issue 5 (delta,
 * expected, overweight%, responsibility%) with growing and shrinking symbols, a
 * recursive symbol counted once per stack, the recursive pivot, and call trees
 * against folded stacks.
 */
#include "support/test.h"

#include <math.h>
#include <string.h>

#include "support/tree_fixture.h"

static culprit_calltree *folded(const char *text)
{
    culprit_calltree *t = NULL;

    assert_int_equal(culprit_calltree_parse_folded(&t, text, strlen(text), "test"), 0);
    return t;
}

static const culprit_calltree_overweight_row *row(const culprit_calltree_overweight_round *r,
                                                  const char *name)
{
    for (size_t i = 0; i < r->nrows; i++)
        if (strcmp(r->rows[i].name, name) == 0)
            return &r->rows[i];
    return NULL;
}

#define assert_close(x, y)                                                                         \
    assert_true(fabs((double)(x) - (double)(y)) < 1e-9 * (1 + fabs((double)(y))))

static void formulas_with_growing_and_shrinking_symbols(void **state)
{
    /* B0 = 100, T0 = 200, D = 100. */
    culprit_calltree *b = folded("main;a 50\nmain;b 30\nmain 20\nmain;gone 0\n");
    culprit_calltree *t = folded("main;a 150\nmain;b 20\nmain 30\nmain;new 0\n");
    culprit_calltree_overweight ow;
    const culprit_calltree_overweight_row *a, *bb, *m;
    (void)state;

    assert_int_equal(culprit_calltree_overweight_trees(&ow, b, t, NULL), 0);
    assert_int_equal(ow.nrounds, 1);
    assert_close(ow.rounds[0].base_total, 100);
    assert_close(ow.rounds[0].test_total, 200);
    assert_close(ow.rounds[0].delta_total, 100);
    assert_int_equal(ow.rounds[0].nrows, 3); /* gone and new are not in both */
    assert_int_equal(ow.rounds[0].pivot, CULPRIT_CALLTREE_NONE);
    a = row(&ow.rounds[0], "a");
    bb = row(&ow.rounds[0], "b");
    m = row(&ow.rounds[0], "main");
    /* a: delta 100, expected 50 * 100 / 100 = 50: twice its share, all of D. */
    assert_close(a->base, 50);
    assert_close(a->test, 150);
    assert_close(a->delta, 100);
    assert_close(a->expected, 50);
    assert_close(a->overweight, 200);
    assert_close(a->responsibility, 100);
    /* b shrank: delta -10 against an expected +30. */
    assert_close(bb->delta, -10);
    assert_close(bb->expected, 30);
    assert_close(bb->overweight, -100.0 / 3);
    assert_close(bb->responsibility, -10);
    /* main is on every stack: exactly its share. */
    assert_close(m->overweight, 100);
    assert_close(m->responsibility, 100);
    /* Sorted by overweight. */
    assert_string_equal(ow.rounds[0].rows[0].name, "a");
    assert_string_equal(ow.rounds[0].rows[1].name, "main");
    assert_string_equal(ow.rounds[0].rows[2].name, "b");
    culprit_calltree_overweight_dispose(&ow);
    culprit_calltree_overweight_dispose(&ow);
    culprit_calltree_free(b);
    culprit_calltree_free(t);
}

static void a_shrinking_profile_has_negative_totals(void **state)
{
    /* D = -50: a lost 60, b gained 10. */
    culprit_calltree *b = folded("main;a 80\nmain;b 20\n");
    culprit_calltree *t = folded("main;a 20\nmain;b 30\n");
    culprit_calltree_overweight ow;
    culprit_calltree_overweight_options o;
    (void)state;

    assert_int_equal(
        culprit_calltree_overweight_options_init(&o, CULPRIT_CALLTREE_OVERWEIGHT_OPTIONS_VERSION),
        0);
    o.recurse = 3;
    assert_int_equal(culprit_calltree_overweight_trees(&ow, b, t, &o), 0);
    assert_int_equal(ow.nrounds, 1); /* nothing grew overall: no pivot is sought */
    assert_close(ow.rounds[0].delta_total, -50);
    assert_close(row(&ow.rounds[0], "a")->expected, 80 * -50.0 / 100);
    assert_close(row(&ow.rounds[0], "a")->overweight, 100 * -60.0 / -40.0);
    assert_close(row(&ow.rounds[0], "a")->responsibility, 120);
    assert_close(row(&ow.rounds[0], "b")->responsibility, -20);
    culprit_calltree_overweight_dispose(&ow);
    culprit_calltree_free(b);
    culprit_calltree_free(t);
}

static void a_recursive_symbol_counts_each_stack_once(void **state)
{
    culprit_calltree *b = folded("main;f;f;f 10\nmain;f 5\nmain;g;f 5\nmain 80\n");
    culprit_calltree *t = folded("main;f;f;f 40\nmain;f 5\nmain;g;f 5\nmain 80\n");
    culprit_calltree_overweight ow;
    (void)state;

    assert_int_equal(culprit_calltree_overweight_trees(&ow, b, t, NULL), 0);
    /* f: the stacks main;f;f;f, main;f and main;g;f: 20, not 10 x 3 + 5 + 5. */
    assert_close(row(&ow.rounds[0], "f")->base, 20);
    assert_close(row(&ow.rounds[0], "f")->test, 50);
    assert_close(row(&ow.rounds[0], "f")->responsibility, 100);
    assert_close(row(&ow.rounds[0], "main")->base, 100);
    culprit_calltree_overweight_dispose(&ow);
    culprit_calltree_free(b);
    culprit_calltree_free(t);
}

static void the_recursive_mode_drops_each_pivots_stacks(void **state)
{
    culprit_calltree *b = folded("main;hot 10\nmain;c 40\nmain;d 50\nmain;c;hot 0\n");
    culprit_calltree *t = folded("main;hot 100\nmain;c 80\nmain;d 50\nmain;c;hot 0\n");
    culprit_calltree_overweight ow;
    culprit_calltree_overweight_options o = CULPRIT_CALLTREE_OVERWEIGHT_OPTIONS_INIT;
    const culprit_calltree_overweight_round *r;
    (void)state;

    o.recurse = 5;
    assert_int_equal(culprit_calltree_overweight_trees(&ow, b, t, &o), 0);
    /* Round 0: D = 130. hot: +90 against an expected 13 (692%), 69% of D: pivot. */
    r = &ow.rounds[0];
    assert_close(r->delta_total, 130);
    assert_int_not_equal(r->pivot, CULPRIT_CALLTREE_NONE);
    assert_string_equal(r->rows[r->pivot].name, "hot");
    assert_close(r->rows[r->pivot].overweight, 100 * 90 / 13.0);
    /* c's stacks include main;c;hot in round 0 (weight 0): c is 40 -> 80. */
    assert_close(row(r, "c")->overweight, 100 * 40 / 52.0);
    /* Round 1: every stack with hot dropped (main;c;hot too): B0 90, T0 130. */
    r = &ow.rounds[1];
    assert_close(r->base_total, 90);
    assert_close(r->test_total, 130);
    assert_null(row(r, "hot"));
    assert_close(row(r, "c")->expected, 40 * 40 / 90.0);
    assert_string_equal(r->rows[r->pivot].name, "c");
    /* Round 2: c dropped too; B0 = T0 = 50, D = 0: the analysis stops. */
    assert_int_equal(ow.nrounds, 3);
    r = &ow.rounds[2];
    assert_close(r->delta_total, 0);
    assert_int_equal(r->pivot, CULPRIT_CALLTREE_NONE);
    assert_true(isnan(row(r, "d")->responsibility));
    culprit_calltree_overweight_dispose(&ow);

    /* --recurse 1: one pivot dropped, the second round has none chosen. */
    o.recurse = 1;
    assert_int_equal(culprit_calltree_overweight_trees(&ow, b, t, &o), 0);
    assert_int_equal(ow.nrounds, 2);
    assert_int_equal(ow.rounds[1].pivot, CULPRIT_CALLTREE_NONE);
    culprit_calltree_overweight_dispose(&ow);

    /* A pivot needs a sizeable responsibility: at 70% none qualifies. */
    o.recurse = 5;
    o.min_responsibility = 70;
    assert_int_equal(culprit_calltree_overweight_trees(&ow, b, t, &o), 0);
    assert_int_equal(ow.nrounds, 1);
    assert_int_equal(ow.rounds[0].pivot, CULPRIT_CALLTREE_NONE);
    culprit_calltree_overweight_dispose(&ow);
    culprit_calltree_free(b);
    culprit_calltree_free(t);
}

static void a_call_tree_compares_with_folded_stacks(void **state)
{
    /* The tree's functions have files, the folded ones do not: names match. */
    culprit_calltree *tree = fixture_fig5(20, 1000);
    culprit_calltree *f = folded("foo 2000\nfoo;bar 60000\nfoo;doo 10000\nfoo;doo;fem 420000\n"
                                 "foo;doo;fem;qux 40000\nfoo;doo;fem;wug 60000\n");
    culprit_calltree_overweight ow;
    (void)state;

    assert_int_equal(culprit_calltree_overweight_trees(&ow, tree, f, NULL), 0);
    assert_int_equal(ow.rounds[0].nrows, 6);
    /* Only fem's own time grew (20 us -> 420 us): fem, doo and foo carry all of D;
     * fem has the highest overweight (its share was smallest). */
    assert_close(ow.rounds[0].delta_total, 400000);
    assert_string_equal(ow.rounds[0].rows[0].name, "fem");
    assert_close(row(&ow.rounds[0], "fem")->responsibility, 100);
    assert_close(row(&ow.rounds[0], "bar")->delta, 0);
    culprit_calltree_overweight_dispose(&ow);
    culprit_calltree_free(tree);
    culprit_calltree_free(f);
}

static void profiles_without_costs_are_refused(void **state)
{
    culprit_calltree *a = fixture_fig5(20, 1000), *z = folded("main 0\n");
    culprit_calltree_overweight ow;
    (void)state;

    assert_int_equal(culprit_calltree_overweight_trees(&ow, z, a, NULL), CULPRIT_EINVALID);
    assert_non_null(strstr(culprit_error_last(), "base profile's total cost is 0"));
    a->mode = CULPRIT_CALLTREE_STRUCTURE;
    assert_int_equal(culprit_calltree_overweight_trees(&ow, z, a, NULL), CULPRIT_EINVALID);
    assert_non_null(strstr(culprit_error_last(), "test profile has no costs"));
    culprit_calltree_free(a);
    culprit_calltree_free(z);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(formulas_with_growing_and_shrinking_symbols),
        cmocka_unit_test(a_shrinking_profile_has_negative_totals),
        cmocka_unit_test(a_recursive_symbol_counts_each_stack_once),
        cmocka_unit_test(the_recursive_mode_drops_each_pivots_stacks),
        cmocka_unit_test(a_call_tree_compares_with_folded_stacks),
        cmocka_unit_test(profiles_without_costs_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
