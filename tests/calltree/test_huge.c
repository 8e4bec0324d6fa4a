/*
 * Trees from untrusted files at sizes the fuzzers never reach: a chain hundreds of
 * thousands of calls deep (every walk must be iterative: a recursive one overflowed
 * the stack) and a node with hundreds of thousands of children (building, folding
 * and diffing it must stay linear: a scan per child took 30 s). The inputs are
 * generated here, not committed. Names that hold ';' or a line break cannot break
 * a folded line.
 */
#include "support/test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "culprit/calltree.h"

#define DEEP_FOLDED 500000
#define DEEP_DIFF   150000
#define WIDE        200000

/* "a;b;...;z;a;b... 1": one stack `depth` frames deep, names of one letter. */
static char *deep_stack(size_t depth)
{
    char *text = malloc(2 * depth + 8), *p = text;

    assert_non_null(text);
    for (size_t i = 0; i < depth; i++) {
        *p++ = (char)('a' + i % 26);
        *p++ = i + 1 < depth ? ';' : ' ';
    }
    strcpy(p, "1\n");
    return text;
}

static void a_stack_500000_frames_deep_folds_back_as_it_was(void **state)
{
    char *text = deep_stack(DEEP_FOLDED);
    culprit_calltree *t = NULL;
    culprit_buf back = CULPRIT_BUF_INIT;
    (void)state;

    assert_int_equal(culprit_calltree_parse_folded(&t, text, strlen(text), "deep.folded"), 0);
    assert_int_equal(t->nnodes, DEEP_FOLDED + 1);
    assert_int_equal(culprit_calltree_write_folded(&back, t), 0);
    assert_string_equal(culprit_buf_cstr(&back), text);
    culprit_buf_dispose(&back);
    culprit_calltree_free(t);
    free(text);
}

/* Sets node i to `calls` calls of `mean` ns each (sd 1% of it), timed every call. */
static void timed(culprit_calltree *t, size_t i, uint64_t calls, double mean)
{
    culprit_calltree_node *n = &t->nodes[i];
    double sd = mean / 100;

    n->calls = n->samples = calls;
    n->inclusive_ns = mean * (double)calls;
    n->inclusive_sq_ns2 = (mean * mean + sd * sd) * (double)calls;
}

/* A chain main -> f1 -> ... -> f<depth-1>, 10 calls each, every level 100 ns of its
 * own per call; the leaf's own time is `leaf_ns`. */
static culprit_calltree *chain(size_t depth, double leaf_ns)
{
    culprit_calltree *t = NULL;
    size_t node = 0, fn;
    char name[32];

    assert_int_equal(culprit_calltree_new(&t), 0);
    t->mode = CULPRIT_CALLTREE_FULL;
    for (size_t d = 0; d < depth; d++) {
        snprintf(name, sizeof(name), d ? "f%zu" : "main", d);
        assert_int_equal(culprit_calltree_function_intern(&fn, t, name, "chain.c", 1, 2), 0);
        assert_int_equal(culprit_calltree_child(&node, t, node, fn), 0);
    }
    for (size_t i = t->nnodes - 1; i > 0; i--) {
        size_t below = t->nnodes - 1 - i;
        timed(t, i, 10, leaf_ns + 100.0 * (double)below);
        t->nodes[i].exclusive_ns = 10 * (below ? 100.0 : leaf_ns);
    }
    return t;
}

static void a_chain_150000_calls_deep_is_diffed_down_to_its_leaf(void **state)
{
    culprit_calltree *base = chain(DEEP_DIFF, 100), *test = chain(DEEP_DIFF, 1e6);
    culprit_calltree_diff d;
    const culprit_calltree_function *fn;
    (void)state;

    assert_int_equal(culprit_calltree_diff_trees(&d, base, test, NULL), 0);
    assert_int_equal(d.npairs, DEEP_DIFF + 1);
    assert_true(d.nsuspects >= 1);
    fn = culprit_calltree_diff_function(&d, d.suspects[0].path[d.suspects[0].npath - 1]);
    assert_non_null(fn);
    assert_string_equal(fn->name, "f149999");
    culprit_calltree_diff_dispose(&d);
    culprit_calltree_free(base);
    culprit_calltree_free(test);
}

/* main calling `width` functions once each; w<slow> adds half of its time. */
static culprit_calltree *wide(size_t width, size_t slow)
{
    culprit_calltree *t = NULL;
    size_t main_node, node, fn;
    char name[32];
    double total = 0;

    assert_int_equal(culprit_calltree_new(&t), 0);
    t->mode = CULPRIT_CALLTREE_FULL;
    assert_int_equal(culprit_calltree_function_intern(&fn, t, "main", "wide.c", 1, 2), 0);
    assert_int_equal(culprit_calltree_child(&main_node, t, 0, fn), 0);
    for (size_t i = 0; i < width; i++) {
        double ns = i == slow ? 1e8 : 1e3;
        snprintf(name, sizeof(name), "w%zu", i);
        assert_int_equal(culprit_calltree_function_intern(&fn, t, name, "wide.c", 3, 4), 0);
        assert_int_equal(culprit_calltree_child(&node, t, main_node, fn), 0);
        timed(t, node, 10, ns);
        t->nodes[node].exclusive_ns = 10 * ns;
        total += 10 * ns;
    }
    timed(t, main_node, 1, total);
    t->nodes[main_node].exclusive_ns = 0;
    assert_int_equal(t->nodes[main_node].nchildren, width);
    assert_true(culprit_calltree_check(t));
    return t;
}

static void a_node_with_200000_children_is_built_folded_and_diffed(void **state)
{
    culprit_calltree *base = wide(WIDE, WIDE), *test = wide(WIDE, 123456), *back = NULL;
    culprit_buf text = CULPRIT_BUF_INIT;
    culprit_calltree_diff d;
    size_t again;
    (void)state;

    /* Adding a child that exists finds it instead of adding another. */
    assert_int_equal(culprit_calltree_child(&again, test, 1, test->nodes[2].function), 0);
    assert_int_equal(again, 2);
    assert_int_equal(culprit_calltree_write_folded(&text, test), 0);
    assert_int_equal(culprit_calltree_parse_folded(&back, text.ptr, text.size, "wide.folded"), 0);
    assert_int_equal(back->nodes[1].nchildren, WIDE);

    assert_int_equal(culprit_calltree_diff_trees(&d, base, test, NULL), 0);
    assert_int_equal(d.npairs, WIDE + 2);
    assert_true(d.nsuspects >= 1);
    assert_string_equal(
        culprit_calltree_diff_function(&d, d.suspects[0].path[d.suspects[0].npath - 1])->name,
        "w123456");
    culprit_calltree_diff_dispose(&d);
    culprit_buf_dispose(&text);
    culprit_calltree_free(back);
    culprit_calltree_free(base);
    culprit_calltree_free(test);
}

static void names_cannot_break_a_folded_line(void **state)
{
    culprit_calltree *t = NULL;
    culprit_buf text = CULPRIT_BUF_INIT;
    size_t fn, node;
    (void)state;

    assert_int_equal(culprit_calltree_new(&t), 0);
    t->mode = CULPRIT_CALLTREE_STRUCTURE;
    assert_int_equal(culprit_calltree_function_intern(&fn, t, "main", NULL, 0, 0), 0);
    assert_int_equal(culprit_calltree_child(&node, t, 0, fn), 0);
    assert_int_equal(culprit_calltree_function_intern(&fn, t, "a;b\nevil 99\r\x1b", NULL, 0, 0), 0);
    assert_int_equal(culprit_calltree_child(&node, t, node, fn), 0);
    t->nodes[node].calls = 3;
    assert_int_equal(culprit_calltree_write_folded(&text, t), 0);
    assert_string_equal(culprit_buf_cstr(&text), "main;a,b?evil 99?? 3\n");
    /* Bytes that are not UTF-8 and C1 controls: '?' a byte; valid UTF-8 kept. */
    assert_int_equal(
        culprit_calltree_function_intern(&fn, t, "x\xff\xc3y\xc2\x9b\xc3\xa9", NULL, 0, 0), 0);
    assert_int_equal(culprit_calltree_child(&node, t, 0, fn), 0);
    t->nodes[node].calls = 2;
    culprit_buf_clear(&text);
    assert_int_equal(culprit_calltree_write_folded(&text, t), 0);
    assert_non_null(strstr(culprit_buf_cstr(&text), "\nx??y??\xc3\xa9 2\n"));
    culprit_buf_dispose(&text);
    culprit_calltree_free(t);
}

static void text_output_escapes_control_characters(void **state)
{
    culprit_buf text = CULPRIT_BUF_INIT;
    (void)state;

    assert_int_equal(culprit_buf_put_text(&text, "t\x1b[31mred\r\nfake row\x7f caf\xc3\xa9"), 0);
    assert_string_equal(culprit_buf_cstr(&text),
                        "t\\x1b[31mred\\x0d\\x0afake row\\x7f caf\xc3\xa9");
    culprit_buf_dispose(&text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_stack_500000_frames_deep_folds_back_as_it_was),
        cmocka_unit_test(a_chain_150000_calls_deep_is_diffed_down_to_its_leaf),
        cmocka_unit_test(a_node_with_200000_children_is_built_folded_and_diffed),
        cmocka_unit_test(names_cannot_break_a_folded_line),
        cmocka_unit_test(text_output_escapes_control_characters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
