/* The call-tree model: interning by identity, children per path, the checker. */
#include "support/test.h"

#include "culprit/calltree.h"

#include <stdio.h>
#include <stdlib.h>

static void functions_are_interned_by_name_and_file(void **state)
{
    culprit_calltree *t;
    size_t a, b, c, d;
    (void)state;

    assert_int_equal(culprit_calltree_new(&t), 0);
    assert_int_equal(culprit_calltree_function_intern(&a, t, "f", "a.c", 1, 9), 0);
    assert_int_equal(culprit_calltree_function_intern(&b, t, "f", "b.c", 1, 9), 0);
    assert_int_equal(culprit_calltree_function_intern(&c, t, "f", NULL, 0, 0), 0);
    assert_int_equal(culprit_calltree_function_intern(&d, t, "f", "a.c", 3, 4), 0);
    assert_int_not_equal(a, b);
    assert_int_not_equal(a, c);
    assert_int_equal(a, d);
    assert_int_equal(t->nfunctions, 3);
    assert_int_equal(t->functions[a].line_high, 9); /* the first definition stays */
    culprit_calltree_free(t);
}

/* The index of identities stays right while it grows (and the lookups stay fast:
 * 20,000 functions would take seconds with a linear search). */
static void many_functions_keep_their_identity(void **state)
{
    culprit_calltree *t;
    char name[32], file[32];
    size_t idx;
    (void)state;

    assert_int_equal(culprit_calltree_new(&t), 0);
    for (size_t i = 0; i < 20000; i++) {
        snprintf(name, sizeof(name), "f%zu", i % 10000);
        snprintf(file, sizeof(file), "src/%zu.c", i / 10000);
        assert_int_equal(culprit_calltree_function_intern(&idx, t, name, file, 1, 2), 0);
        assert_int_equal(idx, i);
    }
    for (size_t i = 0; i < 20000; i += 7) {
        snprintf(name, sizeof(name), "f%zu", i % 10000);
        snprintf(file, sizeof(file), "src/%zu.c", i / 10000);
        assert_int_equal(culprit_calltree_function_intern(&idx, t, name, file, 0, 0), 0);
        assert_int_equal(idx, i);
    }
    assert_int_equal(culprit_calltree_function_intern(&idx, t, "f1", NULL, 0, 0), 0);
    assert_int_equal(idx, 20000); /* no file is another identity */
    assert_int_equal(t->nfunctions, 20001);
    culprit_calltree_free(t);
}

static void one_node_per_call_path(void **state)
{
    culprit_calltree *t;
    size_t main_fn, f, g, n_main, n_f, n_g1, n_g2, again;
    (void)state;

    assert_int_equal(culprit_calltree_new(&t), 0);
    assert_int_equal(culprit_calltree_function_intern(&main_fn, t, "main", "m.c", 1, 5), 0);
    assert_int_equal(culprit_calltree_function_intern(&f, t, "f", "m.c", 6, 9), 0);
    assert_int_equal(culprit_calltree_function_intern(&g, t, "g", "m.c", 10, 12), 0);
    assert_int_equal(culprit_calltree_child(&n_main, t, 0, main_fn), 0);
    assert_int_equal(culprit_calltree_child(&n_f, t, n_main, f), 0);
    assert_int_equal(culprit_calltree_child(&n_g1, t, n_f, g), 0);
    assert_int_equal(culprit_calltree_child(&n_g2, t, n_main, g), 0);
    assert_int_equal(culprit_calltree_child(&again, t, n_f, g), 0);
    assert_int_equal(again, n_g1);
    assert_int_not_equal(n_g1, n_g2);
    assert_int_equal(t->nnodes, 5);
    assert_int_equal(t->nodes[n_g1].depth, 3);
    assert_int_equal(t->nodes[n_g2].depth, 2);
    assert_true(culprit_calltree_check(t));
    culprit_calltree_free(t);
    culprit_calltree_free(NULL);
}

static void checker_catches_a_broken_tree(void **state)
{
    culprit_calltree *t;
    size_t f, n1, n2;
    (void)state;

    assert_int_equal(culprit_calltree_new(&t), 0);
    assert_int_equal(culprit_calltree_function_intern(&f, t, "f", NULL, 0, 0), 0);
    assert_int_equal(culprit_calltree_child(&n1, t, 0, f), 0);
    assert_int_equal(culprit_calltree_child(&n2, t, n1, f), 0);
    assert_true(culprit_calltree_check(t));
    t->nodes[n2].depth = 7;
    assert_false(culprit_calltree_check(t));
    t->nodes[n2].depth = 2;
    t->nodes[n2].function = 42;
    assert_false(culprit_calltree_check(t));
    t->nodes[n2].function = f;
    t->nodes[n2].parent = 0; /* not listed among the root's children */
    assert_false(culprit_calltree_check(t));
    t->nodes[n2].parent = n1;
    assert_true(culprit_calltree_check(t));
    assert_false(culprit_calltree_check(NULL));
    culprit_calltree_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(functions_are_interned_by_name_and_file),
        cmocka_unit_test(many_functions_keep_their_identity),
        cmocka_unit_test(one_node_per_call_path),
        cmocka_unit_test(checker_catches_a_broken_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
