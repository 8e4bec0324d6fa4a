/* The call-tree file: round trip, the runtime's raw form, and every bad input
 * reported with the file and the line. */
#include "support/test.h"

#include "culprit/calltree.h"
#include "support/tmpdir.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A raw file as the runtime writes it: two objects, a function seen through two
 * paths, a structure-mode node (times "-"). */
static const char raw[] = "culprit-calltree 1\n"
                          "binary /opt/prog\n"
                          "command /opt/prog --size 3\n"
                          "pid 42\n"
                          "mode full\n"
                          "level 0\n"
                          "clock tsc\n"
                          "overhead-ns 12.5\n"
                          "threads 2\n"
                          "objects 2\n"
                          "object 0 0x55d000000000 0123abcd /opt/prog\n"
                          "object 1 0x7f0000000000 - /opt/lib%20dir/libx.so\n"
                          "functions 3\n"
                          "function 0 0 0x1139 - - 0 0\n"
                          "function 1 0 0x1200 - - 0 0\n"
                          "function 2 1 0x40 - - 0 0\n"
                          "nodes 5\n"
                          "node 0 - - 0 0 - - -\n"
                          "node 1 0 0 1 1 1000 1000000 400\n"
                          "node 2 1 1 2 3 300 30000 200\n"
                          "node 3 2 2 3 3 100 3400 100\n"
                          "node 4 1 2 2 2 - - -\n"
                          "end\n";

static culprit_calltree *read_string(const char *text)
{
    culprit_calltree *t = NULL;
    assert_int_equal(culprit_calltree_read_buffer(&t, text, strlen(text), "t.calltree"), 0);
    assert_true(culprit_calltree_check(t));
    return t;
}

static void a_raw_file_reads_into_the_model(void **state)
{
    culprit_calltree *t = read_string(raw);
    (void)state;

    assert_string_equal(t->binary, "/opt/prog");
    assert_string_equal(t->command, "/opt/prog --size 3");
    assert_int_equal(t->mode, CULPRIT_CALLTREE_FULL);
    assert_true(fabs(t->overhead_ns - 12.5) < 1e-12);
    assert_int_equal(t->nfunctions, 3);
    assert_int_equal(t->nnodes, 5);
    /* Unsymbolized names are addresses, relative to their object. */
    assert_string_equal(t->functions[0].name, "0x1139");
    assert_string_equal(t->functions[2].name, "libx.so+0x40");
    assert_string_equal(t->functions[2].object, "/opt/lib dir/libx.so");
    assert_int_equal(t->functions[2].address, 0x40);
    assert_null(t->functions[2].build_id);
    assert_string_equal(t->functions[0].build_id, "0123abcd");
    assert_true(culprit_calltree_function_is_raw(t, 2));
    assert_int_equal(t->nodes[2].calls, 3);
    assert_int_equal(t->nodes[2].depth, 2);
    assert_true(fabs(t->nodes[2].inclusive_sq_ns2 - 30000) < 1e-9);
    assert_true(isnan(t->nodes[4].inclusive_ns)); /* not timed stays NaN, not 0 */
    assert_int_equal(t->nodes[4].calls, 2);
    /* One run: the timed calls are the samples; none for an untimed node. */
    assert_int_equal(t->nodes[2].samples, 3);
    assert_int_equal(t->nodes[4].samples, 0);
    culprit_calltree_free(t);
}

/* The run's costs in the header: three keys, each into its own field (two of them
 * begin with "ru"). */
static void the_run_costs_read_into_their_fields(void **state)
{
    culprit_calltree *t = read_string("culprit-calltree 1\nmode level\nwall-ns 9000\n"
                                      "run-delay-ns 3000\nruntime-cpu-ns 700\nobjects 0\n"
                                      "functions 0\nnodes 1\nnode 0 - - 0 0 - - -\nend\n");
    (void)state;

    assert_true(t->wall_ns == 9000);
    assert_true(t->run_delay_ns == 3000);
    assert_true(t->runtime_cpu_ns == 700);
    culprit_calltree_free(t);
}

static void writing_then_reading_gives_the_same_file(void **state)
{
    culprit_calltree *t = read_string(raw), *u;
    culprit_buf a = CULPRIT_BUF_INIT, b = CULPRIT_BUF_INIT;
    size_t f;
    (void)state;

    /* Samples from repeated runs (a last field, written only then). */
    t->nodes[3].samples = 12;
    /* A symbolized function with a name that needs escaping. */
    free(t->functions[1].name);
    t->functions[1].name = strdup("operator new");
    t->functions[1].file = strdup("/src/my file.c");
    t->functions[1].line_low = 10;
    t->functions[1].line_high = 20;
    assert_int_equal(culprit_calltree_write_buf(&a, t), 0);
    u = read_string(a.ptr);
    assert_int_equal(culprit_calltree_write_buf(&b, u), 0);
    assert_string_equal(a.ptr, b.ptr);
    assert_string_equal(u->functions[1].name, "operator new");
    assert_string_equal(u->functions[1].file, "/src/my file.c");
    assert_int_equal(u->functions[1].line_high, 20);
    assert_false(culprit_calltree_function_is_raw(u, 1));
    assert_int_equal(
        culprit_calltree_function_intern(&f, u, "operator new", "/src/my file.c", 0, 0), 0);
    assert_int_equal(f, 1);
    assert_string_equal(u->command, "/opt/prog --size 3");
    assert_int_equal(u->nodes[3].samples, 12);
    assert_int_equal(u->nodes[2].samples, 3);
    assert_non_null(strstr(a.ptr, " 100 12\n"));    /* node 3: EXCLUSIVE SAMPLES */
    assert_non_null(strstr(a.ptr, " 30000 200\n")); /* node 2: no SAMPLES field */
    culprit_calltree_free(t);
    culprit_calltree_free(u);
    culprit_buf_dispose(&a);
    culprit_buf_dispose(&b);
}

static void the_file_functions_write_atomically_and_read_back(void **state)
{
    char dir[256], path[300];
    culprit_calltree *t = read_string(raw), *u = NULL;
    (void)state;

    assert_int_equal(test_tmpdir_make(dir, sizeof(dir), "calltree"), 0);
    snprintf(path, sizeof(path), "%s/a.calltree", dir);
    assert_int_equal(culprit_calltree_write_file(t, path), 0);
    assert_int_equal(culprit_calltree_read_file(&u, path), 0);
    assert_int_equal(u->nnodes, t->nnodes);
    culprit_calltree_free(u);
    unlink(path);
    assert_int_equal(culprit_calltree_read_file(&u, path), CULPRIT_ENOTFOUND);
    assert_null(u);
    rmdir(dir);
    culprit_calltree_free(t);
}

/* Paths that become identical once named (two copies of a static inline function
 * from a header) merge, their statistics added. */
static void identical_paths_merge(void **state)
{
    const char *text = "culprit-calltree 1\nbinary /p\nmode full\nobjects 0\nfunctions 3\n"
                       "function 0 - 0x10 main m.c 1 9\n"
                       "function 1 - 0x20 inl h.h 3 4\n"
                       "function 2 - 0x30 inl h.h 3 4\n"
                       "nodes 4\nnode 0 - - 0 0 - - -\n"
                       "node 1 0 0 1 1 100 10000 40\n"
                       "node 2 1 1 2 2 30 450 30\n"
                       "node 3 1 2 2 1 30 900 30\nend\n";
    culprit_calltree *t = read_string(text);
    (void)state;

    assert_int_equal(t->nfunctions, 2);
    assert_int_equal(t->nnodes, 3);
    assert_int_equal(t->nodes[2].calls, 3);
    assert_true(fabs(t->nodes[2].inclusive_ns - 60) < 1e-9);
    assert_true(fabs(t->nodes[2].inclusive_sq_ns2 - 1350) < 1e-9);
    culprit_calltree_free(t);
}

static void expect_error(const char *text, const char *message)
{
    culprit_calltree *t = (culprit_calltree *)1;
    assert_int_equal(culprit_calltree_read_buffer(&t, text, strlen(text), "t.calltree"),
                     CULPRIT_EINVALID);
    assert_null(t);
    if (!strstr(culprit_error_last(), message))
        fail_msg("expected '%s' in '%s'", message, culprit_error_last());
}

static void bad_files_are_named_with_their_line(void **state)
{
    char cut[sizeof(raw)];
    (void)state;

    expect_error("", "t.calltree:1: empty file");
    expect_error("<?xml version='1.0'?>\n<testsuite/>\n",
                 "t.calltree:1: not a culprit call-tree file");
    expect_error("culprit-calltree 2\n", "t.calltree:1: format 2 is not supported");
    /* Cut after the second node: the file ends in its node list. */
    memcpy(cut, raw, sizeof(raw));
    *strstr(cut, "node 3") = '\0';
    expect_error(cut, "t.calltree:20: truncated: 3 of 5 nodes");
    memcpy(cut, raw, sizeof(raw));
    *strstr(cut, "end\n") = '\0';
    expect_error(cut, "t.calltree:22: truncated: the file ends without its 'end' line");
    memcpy(cut, raw, sizeof(raw));
    *strstr(cut, "function 1") = '\0';
    expect_error(cut, "t.calltree:14: truncated: 1 of 3 functions");
    expect_error("culprit-calltree 1\nmode full\n", "t.calltree:2: truncated: the file ends in");
    expect_error("culprit-calltree 1\nmode fast\nobjects 0\n", "t.calltree:2: unknown mode 'fast'");
    expect_error("culprit-calltree 1\nobjects 0\nfunctions 1\nfunction 0 - 0x1 f - 0 0\nnodes 2\n"
                 "node 0 - - 0 0 - - -\nnode 1 0 7 1 1 - - -\nend\n",
                 "t.calltree:7: node 1 names function 7, but there are 1");
    expect_error("culprit-calltree 1\nobjects 0\nfunctions 1\nfunction 0 - 0x1 f - 0 0\nnodes 2\n"
                 "node 0 - - 0 0 - - -\nnode 1 0 0 3 1 - - -\nend\n",
                 "t.calltree:7: node 1: depth 3 is not its parent's plus one");
    expect_error("culprit-calltree 1\nobjects 0\nfunctions 1\nfunction 0 - 0x1 f - 0 0\nnodes 2\n"
                 "node 0 - - 0 0 - - -\nnode 1 0 0 1 x - - -\nend\n",
                 "t.calltree:7: bad call count 'x'");
    expect_error("culprit-calltree 1\nobjects 0\nfunctions 1\nfunction 0 - 0x1 f%zz - 0 0\n",
                 "t.calltree:4: bad escape");
    expect_error("culprit-calltree 1\nobjects 0\nfunctions 1\nfunction 0 - 0x1 f%00g - 0 0\n",
                 "t.calltree:4: 'f%00g' holds %00");
    expect_error(
        "culprit-calltree 1\nobjects 0\nfunctions 1\nfunction 0 - 0x1 f - 0 0\nnodes 2\n"
        "node 0 - - 0 0 - - -\nnode 1 0 0 1 1 - - -\nend\n\n# fine\nnode 2 1 0 2 1 - - -\n",
        "t.calltree:11: a record after the 'end' line");
    expect_error("culprit-calltree 1\nobjects 1\nobject 0 0x0 XYZ /p\n",
                 "t.calltree:3: bad build-id");
    expect_error("culprit-calltree 1\nobjects 1\nobject 0 0x0 /p\n",
                 "t.calltree:3: expected 'object INDEX LOAD-ADDRESS BUILD-ID PATH'");
}

/* A file names its objects; one that is a FIFO (or any non-regular file) is not
 * opened to symbolize it: the function stays an address, and nothing waits for a
 * writer that never comes (an alarm fails the test instead of hanging it). */
static void an_object_that_is_no_regular_file_is_not_opened(void **state)
{
    char *dir = test_tmpdir_new("calltree-fifo"), fifo[600], text[1600];
    culprit_calltree *t;
    size_t missing = 0;
    (void)state;

    snprintf(fifo, sizeof(fifo), "%s/obj", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    snprintf(text, sizeof(text),
             "culprit-calltree 1\nbinary %s\nmode structure\nlevel 0\nclock none\n"
             "overhead-ns 0\nthreads 1\nobjects 1\nobject 0 0x1000 - %s\nfunctions 1\n"
             "function 0 0 0x13cc - - 0 0\nnodes 2\nnode 0 - - 0 0 - - -\n"
             "node 1 0 0 1 1 - - -\nend\n",
             fifo, fifo);
    t = read_string(text);
    alarm(20);
    assert_int_equal(culprit_calltree_symbolize(t, &missing), 0);
    alarm(0);
    assert_int_equal(missing, 1);
    assert_string_equal(t->functions[0].name, "0x13cc");
    culprit_calltree_free(t);
    test_tmpdir_remove(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_raw_file_reads_into_the_model),
        cmocka_unit_test(the_run_costs_read_into_their_fields),
        cmocka_unit_test(writing_then_reading_gives_the_same_file),
        cmocka_unit_test(the_file_functions_write_atomically_and_read_back),
        cmocka_unit_test(identical_paths_merge),
        cmocka_unit_test(bad_files_are_named_with_their_line),
        cmocka_unit_test(an_object_that_is_no_regular_file_is_not_opened),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
