/*
 * Folded stacks: parsing into the model (weights as exclusive cost, inclusive up
 * the path, repeated stacks adding up), writing a tree back, the round trip, the
 * detection of the format, and malformed lines named by file and line.
 */
#include "support/test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/tmpdir.h"
#include "support/tree_fixture.h"

static culprit_calltree *parse(const char *text)
{
    culprit_calltree *t = NULL;

    assert_int_equal(culprit_calltree_parse_folded(&t, text, strlen(text), "t.folded"), 0);
    assert_true(culprit_calltree_check(t));
    return t;
}

/* A tree of folded-stack weights written as a call-tree file stays one of weights. */
static void weights_keep_their_mode_in_a_call_tree_file(void **state)
{
    culprit_calltree *t = parse("main;foo;bar 10\nmain;baz 2\n"), *back = NULL;
    culprit_buf text = CULPRIT_BUF_INIT;
    (void)state;

    assert_int_equal(culprit_calltree_write_buf(&text, t), 0);
    assert_non_null(strstr(culprit_buf_cstr(&text), "\nmode weights\n"));
    assert_int_equal(culprit_calltree_read_buffer(&back, text.ptr, text.size, "w.calltree"), 0);
    assert_int_equal(back->mode, CULPRIT_CALLTREE_WEIGHTS);
    culprit_calltree_free(back);
    culprit_calltree_free(t);
    culprit_buf_dispose(&text);
}

static void weights_are_exclusive_and_inclusive_adds_up(void **state)
{
    culprit_calltree *t = parse("main;foo;bar 10\n"
                                "main;foo 5\n"
                                "\n"
                                "main;foo;bar 2\r\n"
                                "main;baz   0.5\n"
                                "main;foo;operator new(unsigned long) 3");
    size_t bar = fixture_find(t, "main;foo;bar"), foo = fixture_find(t, "main;foo");
    size_t main_ = fixture_find(t, "main"),
           op = fixture_find(t, "main;foo;operator new(unsigned long)");
    (void)state;

    assert_int_equal(t->mode, CULPRIT_CALLTREE_WEIGHTS);
    assert_int_equal(t->nnodes, 6);
    assert_int_not_equal(op, CULPRIT_CALLTREE_NONE); /* blanks inside a frame are kept */
    assert_true(t->nodes[bar].exclusive_ns == 12 && t->nodes[bar].inclusive_ns == 12);
    assert_true(t->nodes[foo].exclusive_ns == 5 && t->nodes[foo].inclusive_ns == 20);
    assert_true(t->nodes[main_].exclusive_ns == 0 && t->nodes[main_].inclusive_ns == 20.5);
    assert_int_equal(t->nodes[bar].calls, 0);
    assert_true(isnan(t->nodes[bar].inclusive_sq_ns2));
    assert_null(t->functions[t->nodes[bar].function].file);
    culprit_calltree_free(t);
}

static void a_tree_round_trips_through_folded_stacks(void **state)
{
    const char *text = "main;a;b 7\n"
                       "main;a;b;c 1\n"
                       "main;a 2\n"
                       "main;d;a;b 4\n"
                       "main 1\n"
                       "thread_start;work 9\n";
    culprit_calltree *t = parse(text), *again;
    culprit_buf out = CULPRIT_BUF_INIT, out2 = CULPRIT_BUF_INIT;
    (void)state;

    assert_int_equal(culprit_calltree_write_folded(&out, t), 0);
    /* Depth first in the order the stacks first appeared; the parent before its
     * callees. */
    assert_string_equal(culprit_buf_cstr(&out), "main 1\n"
                                                "main;a 2\n"
                                                "main;a;b 7\n"
                                                "main;a;b;c 1\n"
                                                "main;d;a;b 4\n"
                                                "thread_start;work 9\n");
    again = parse(culprit_buf_cstr(&out));
    assert_int_equal(again->nnodes, t->nnodes);
    for (size_t i = 0; i < t->nnodes; i++) {
        assert_true(again->nodes[i].exclusive_ns == t->nodes[i].exclusive_ns ||
                    (i == 0 && isnan(again->nodes[i].exclusive_ns)));
        assert_int_equal(again->nodes[i].parent, t->nodes[i].parent);
    }
    assert_int_equal(culprit_calltree_write_folded(&out2, again), 0);
    assert_string_equal(culprit_buf_cstr(&out2), culprit_buf_cstr(&out));
    culprit_buf_dispose(&out);
    culprit_buf_dispose(&out2);
    culprit_calltree_free(t);
    culprit_calltree_free(again);
}

static void fractional_weights_round_trip_exactly(void **state)
{
    /* Found by fuzz_folded: 9 significant digits turned 19999999990.5 into 2e+10. */
    const char *text = "main;a 19999999990.5\nmain;b 0.1\nmain;c 1e-7\nmain;d 2.5\n";
    culprit_calltree *t = parse(text), *again;
    culprit_buf out = CULPRIT_BUF_INIT;
    (void)state;

    assert_int_equal(culprit_calltree_write_folded(&out, t), 0);
    assert_string_equal(culprit_buf_cstr(&out), "main;a 19999999990.5\nmain;b 0.1\n"
                                                "main;c 1e-07\nmain;d 2.5\n");
    again = parse(culprit_buf_cstr(&out));
    for (size_t i = 1; i < t->nnodes; i++)
        assert_true(again->nodes[i].exclusive_ns == t->nodes[i].exclusive_ns);
    culprit_buf_dispose(&out);
    culprit_calltree_free(t);
    culprit_calltree_free(again);
}

static void the_input_need_not_end_in_a_nul(void **state)
{
    /* Found by fuzz_folded: a last line of blanks was scanned past the buffer. Under
     * the sanitizers (or valgrind) a read beyond these exact bytes fails. */
    static const char text[] = "main;f 3\n  \t";
    char *exact = malloc(sizeof(text) - 1);
    culprit_calltree *t;
    (void)state;

    memcpy(exact, text, sizeof(text) - 1);
    assert_int_equal(culprit_calltree_parse_folded(&t, exact, sizeof(text) - 1, "x"), 0);
    assert_int_equal(t->nnodes, 3);
    assert_true(culprit_calltree_is_folded(exact, sizeof(text) - 1));
    culprit_calltree_free(t);
    free(exact);
}

static void a_timed_tree_writes_its_exclusive_times(void **state)
{
    culprit_calltree *t = fixture_fig5(20, 1000), *back;
    culprit_buf out = CULPRIT_BUF_INIT;
    size_t fem;
    (void)state;

    assert_int_equal(culprit_calltree_write_folded(&out, t), 0);
    /* fem: 6 us per call, less qux's 2 and wug's 3 x 1: 1 us of its own x 20. */
    assert_non_null(strstr(culprit_buf_cstr(&out), "foo;doo;fem 20000\n"));
    assert_non_null(strstr(culprit_buf_cstr(&out), "foo;doo;fem;wug 60000\n"));
    back = parse(culprit_buf_cstr(&out));
    fem = fixture_find(back, "foo;doo;fem");
    assert_true(back->nodes[fem].inclusive_ns ==
                t->nodes[fixture_find(t, "foo;doo;fem")].inclusive_ns);
    culprit_buf_dispose(&out);
    culprit_calltree_free(t);
    culprit_calltree_free(back);
}

static void a_structure_tree_writes_call_counts(void **state)
{
    culprit_calltree *t = fixture_fig5(20, 1000);
    culprit_buf out = CULPRIT_BUF_INIT;
    (void)state;

    t->mode = CULPRIT_CALLTREE_STRUCTURE;
    assert_int_equal(culprit_calltree_write_folded(&out, t), 0);
    assert_non_null(strstr(culprit_buf_cstr(&out), "foo;doo;fem;wug 60\n"));
    culprit_buf_dispose(&out);
    culprit_calltree_free(t);
}

static void expect_error(const char *text, const char *where, const char *why)
{
    culprit_calltree *t = (culprit_calltree *)1;

    assert_int_equal(culprit_calltree_parse_folded(&t, text, strlen(text), "p.folded"),
                     CULPRIT_EINVALID);
    assert_null(t);
    if (!strstr(culprit_error_last(), where) || !strstr(culprit_error_last(), why))
        fail_msg("'%s' and '%s' not in: %s", where, why, culprit_error_last());
}

static void malformed_lines_are_named_by_file_and_line(void **state)
{
    (void)state;
    expect_error("main;f 1\nmain;f\n", "p.folded:2: ", "no weight");
    expect_error("main;;f 3\n", "p.folded:1: ", "empty frame");
    expect_error("main;f; 3\n", "p.folded:1: ", "empty frame");
    expect_error("a 1\n\nmain -3\n", "p.folded:3: ", "negative");
    expect_error("main 3x\n", "p.folded:1: ", "not a number");
    expect_error("main nan\n", "p.folded:1: ", "not a number");
    expect_error("main 1\n 7\n", "p.folded:2: ", "the stack is empty");
    expect_error("", "p.folded", "no stack in it");
    expect_error("\n  \n\r\n", "p.folded", "an empty profile");
}

static void the_format_is_recognized_by_content(void **state)
{
    (void)state;
    assert_true(culprit_calltree_is_folded("\n  \nmain;f 10\n", 14));
    assert_false(culprit_calltree_is_folded("{\"format\": 1}\n", 15));
    assert_false(culprit_calltree_is_folded("", 0));
    assert_false(culprit_calltree_is_folded("culprit-calltree 1\n", 19));
    assert_false(culprit_calltree_is_folded("ma\0in 1\n", 8));
}

static void a_file_is_read_and_a_missing_one_named(void **state)
{
    char path[] = "/tmp/culprit-folded-XXXXXX";
    culprit_calltree *t;
    int fd = mkstemp(path);
    (void)state;

    assert_true(fd >= 0);
    assert_int_equal(write(fd, "main;x 4\nmain;x\n", 16), 16);
    close(fd);
    assert_int_equal(culprit_calltree_read_folded(&t, path), CULPRIT_EINVALID);
    assert_non_null(strstr(culprit_error_last(), path));
    assert_non_null(strstr(culprit_error_last(), ":2: "));
    unlink(path);
    assert_true(culprit_calltree_read_folded(&t, path) < 0);
    assert_null(t);
}

static void either_format_loads_by_content(void **state)
{
    char dir[256], path[300];
    culprit_calltree *t = fixture_fig5(20, 1000), *back;
    FILE *f;
    (void)state;

    assert_int_equal(test_tmpdir_make(dir, sizeof(dir), "load"), 0);
    /* A call-tree file written by the library. */
    snprintf(path, sizeof(path), "%s/a.calltree", dir);
    assert_int_equal(culprit_calltree_write_file(t, path), 0);
    assert_int_equal(culprit_calltree_load(&back, path), 0);
    assert_int_equal(back->mode, CULPRIT_CALLTREE_FULL);
    assert_int_equal(back->nnodes, t->nnodes);
    culprit_calltree_free(back);
    /* Folded stacks. */
    snprintf(path, sizeof(path), "%s/b.folded", dir);
    assert_non_null(f = fopen(path, "w"));
    fputs("main;f 3\n", f);
    fclose(f);
    assert_int_equal(culprit_calltree_load(&back, path), 0);
    assert_int_equal(back->mode, CULPRIT_CALLTREE_WEIGHTS);
    culprit_calltree_free(back);
    /* Neither. */
    assert_non_null(f = fopen(path, "w"));
    fputs("<html>\n", f);
    fclose(f);
    assert_int_equal(culprit_calltree_load(&back, path), CULPRIT_EINVALID);
    assert_non_null(strstr(culprit_error_last(), "neither a call-tree file"));
    assert_non_null(strstr(culprit_error_last(), path));
    assert_int_equal(test_tmpdir_remove(dir), 0);
    culprit_calltree_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(weights_are_exclusive_and_inclusive_adds_up),
        cmocka_unit_test(weights_keep_their_mode_in_a_call_tree_file),
        cmocka_unit_test(a_tree_round_trips_through_folded_stacks),
        cmocka_unit_test(fractional_weights_round_trip_exactly),
        cmocka_unit_test(the_input_need_not_end_in_a_nul),
        cmocka_unit_test(a_timed_tree_writes_its_exclusive_times),
        cmocka_unit_test(a_structure_tree_writes_call_counts),
        cmocka_unit_test(malformed_lines_are_named_by_file_and_line),
        cmocka_unit_test(the_format_is_recognized_by_content),
        cmocka_unit_test(a_file_is_read_and_a_missing_one_named),
        cmocka_unit_test(either_format_loads_by_content),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
