/* Valgrind's callgrind output as a call tree (callgrind.c): a small hand-made dump
 * (tests/calltree/data/small.callgrind) read into the model, its totals alone, two
 * dumps adding up, and bad input named with its line. */
#include "support/test.h"

#include "culprit/calltree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SMALL CULPRIT_SOURCE_DIR "/tests/calltree/data/small.callgrind"

/* The node of the path "a;b;c" (names from the top), or NONE. */
static size_t node_at(const culprit_calltree *t, const char *path)
{
    size_t node = 0;
    char *copy = strdup(path), *save = NULL;

    for (char *name = strtok_r(copy, ";", &save); name && node != CULPRIT_CALLTREE_NONE;
         name = strtok_r(NULL, ";", &save)) {
        size_t next = CULPRIT_CALLTREE_NONE;
        for (size_t c = 0; c < t->nodes[node].nchildren; c++)
            if (strcmp(t->functions[t->nodes[t->nodes[node].children[c]].function].name, name) == 0)
                next = t->nodes[node].children[c];
        node = next;
    }
    free(copy);
    return node;
}

static void check_node(const culprit_calltree *t, const char *path, uint64_t calls, double incl,
                       double excl)
{
    size_t n = node_at(t, path);
    assert_int_not_equal(n, CULPRIT_CALLTREE_NONE);
    assert_int_equal(t->nodes[n].calls, calls);
    assert_true(fabs(t->nodes[n].inclusive_ns - incl) < 1e-9);
    assert_true(fabs(t->nodes[n].exclusive_ns - excl) < 1e-9);
    assert_true(isnan(t->nodes[n].inclusive_sq_ns2));
}

static const culprit_calltree_function *function_named(const culprit_calltree *t, const char *name)
{
    for (size_t i = 0; i < t->nfunctions; i++)
        if (strcmp(t->functions[i].name, name) == 0)
            return &t->functions[i];
    fail_msg("no function %s", name);
    return NULL;
}

static void the_graph_unrolls_into_a_tree(void **state)
{
    culprit_calltree *t = NULL;
    double total = 0;
    (void)state;

    assert_int_equal(culprit_calltree_read_callgrind(&t, &total, SMALL), 0);
    assert_true(culprit_calltree_check(t));
    assert_true(total == 450);
    assert_true(t->instructions);
    assert_int_equal(t->mode, CULPRIT_CALLTREE_FULL);
    assert_string_equal(t->command, "./prog 3");
    assert_string_equal(t->binary, "./prog");
    /* main is the only function nobody calls: the one top. */
    assert_int_equal(t->nodes[0].nchildren, 1);
    check_node(t, "main", 1, 450, 10);
    check_node(t, "main;work", 2, 380, 100); /* its recursive call stays in its own cost */
    check_node(t, "main;work;helper", 4, 240, 240);
    check_node(t, "main;work;memset", 1, 40, 40);
    check_node(t, "main;helper", 1, 60, 60);
    assert_int_equal(node_at(t, "main;work;work"), CULPRIT_CALLTREE_NONE);
    assert_int_equal(t->nnodes, 6);
    /* Files and the lines that ran in them (not the inlined header's). */
    assert_string_equal(function_named(t, "helper")->file, "prog.c");
    assert_int_equal(function_named(t, "helper")->line_low, 30);
    assert_int_equal(function_named(t, "helper")->line_high, 33);
    assert_int_equal(function_named(t, "work")->line_low, 20);
    assert_int_equal(function_named(t, "work")->line_high, 22);
    assert_null(function_named(t, "memset")->file);
    assert_string_equal(function_named(t, "memset")->object, "/lib/libc.so.6");
    culprit_calltree_free(t);
}

/* A callee of a function reached through two paths is split in proportion. */
static void a_shared_caller_splits_its_callees_by_cost(void **state)
{
    static const char text[] = "events: Ir\n"
                               "fn=a\n1 10\ncfn=c\ncalls=1 1\n1 30\ncfn=d\ncalls=1 1\n1 10\n"
                               "fn=d\n1 10\ncfn=c\ncalls=2 1\n1 0\n"
                               "fn=c\n1 10\ncfn=leaf\ncalls=4 1\n1 20\n"
                               "fn=leaf\n1 20\n";
    culprit_calltree *t = NULL;
    (void)state;

    assert_int_equal(culprit_calltree_new(&t), 0);
    assert_int_equal(culprit_calltree_add_callgrind(t, NULL, text, strlen(text), "x"), 0);
    check_node(t, "a", 1, 50, 10);
    check_node(t, "a;c", 1, 30, 10);
    check_node(t, "a;c;leaf", 4, 20, 20);
    check_node(t, "a;d", 1, 10, 10);
    /* d's calls of c cost nothing: no path below half an instruction. */
    assert_int_equal(node_at(t, "a;d;c"), CULPRIT_CALLTREE_NONE);
    culprit_calltree_free(t);
}

static void dumps_of_two_processes_add_up(void **state)
{
    culprit_buf text = CULPRIT_BUF_INIT;
    culprit_calltree *t = NULL;
    (void)state;

    assert_int_equal(culprit_fs_read_file(&text, SMALL), 0);
    assert_int_equal(culprit_calltree_new(&t), 0);
    assert_int_equal(culprit_calltree_add_callgrind(t, NULL, text.ptr, text.size, "1"), 0);
    assert_int_equal(culprit_calltree_add_callgrind(t, NULL, text.ptr, text.size, "2"), 0);
    check_node(t, "main;work;helper", 8, 480, 480);
    assert_int_equal(t->nodes[0].calls, 2);
    culprit_calltree_free(t);
    culprit_buf_dispose(&text);
}

static void the_total_alone_reads_the_header(void **state)
{
    static const char totals_only[] = "events: Ir\nfn=a\n1 5\ntotals: 5\n";
    double total = 0;
    (void)state;

    assert_int_equal(culprit_calltree_read_callgrind(NULL, &total, SMALL), 0);
    assert_true(total == 450);
    assert_int_equal(
        culprit_calltree_add_callgrind(NULL, &total, totals_only, strlen(totals_only), "t"), 0);
    assert_true(total == 5);
    assert_int_equal(
        culprit_calltree_add_callgrind(NULL, &total, "events: Ir\nfn=a\n1 5\n", 17, "t"),
        CULPRIT_EINVALID);
    assert_non_null(strstr(culprit_error_last(), "no instruction count"));
}

static void bad_input_is_named_with_its_line(void **state)
{
    static const struct {
        const char *text, *message;
    } cases[] = {
        {"culprit-calltree 1\n", "x:1:"},
        {"events: Ir\nfn=a\ncfn=b\ncalls=1 1\nfn=c\n", "x:5: a 'calls=' line not followed"},
        {"events: Ir\nfn=(3)\n", "x:2: a compressed name used before"},
        {"events: Ir\nfn=a\ncfn=b\ncalls=1 1\n", "the file ends after a 'calls=' line"},
        {"events: Ir\nfn=a\nx1 2\n", "x:3:"},
        {"hello world\n", "x:1:"},
        {"", "no 'events:' line"},
    };
    (void)state;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        culprit_calltree *t = NULL;
        assert_int_equal(culprit_calltree_new(&t), 0);
        assert_int_equal(
            culprit_calltree_add_callgrind(t, NULL, cases[i].text, strlen(cases[i].text), "x"),
            CULPRIT_EINVALID);
        if (!strstr(culprit_error_last(), cases[i].message))
            fail_msg("case %zu: '%s' lacks '%s'", i, culprit_error_last(), cases[i].message);
        culprit_calltree_free(t);
    }
}

static void an_instruction_tree_round_trips_through_its_file(void **state)
{
    culprit_calltree *t = NULL, *back = NULL;
    culprit_buf out = CULPRIT_BUF_INIT;
    (void)state;

    assert_int_equal(culprit_calltree_read_callgrind(&t, NULL, SMALL), 0);
    assert_int_equal(culprit_calltree_write_buf(&out, t), 0);
    assert_non_null(strstr(out.ptr, "\ncost instructions\n"));
    assert_int_equal(culprit_calltree_read_buffer(&back, out.ptr, out.size, "t"), 0);
    assert_true(back->instructions);
    check_node(back, "main;work;helper", 4, 240, 240);
    culprit_calltree_free(t);
    culprit_calltree_free(back);
    culprit_buf_dispose(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_graph_unrolls_into_a_tree),
        cmocka_unit_test(a_shared_caller_splits_its_callees_by_cost),
        cmocka_unit_test(dumps_of_two_processes_add_up),
        cmocka_unit_test(the_total_alone_reads_the_header),
        cmocka_unit_test(bad_input_is_named_with_its_line),
        cmocka_unit_test(an_instruction_tree_round_trips_through_its_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
