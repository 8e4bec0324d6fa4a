/*
 * `culprit calltree record` and `culprit calltree show` (docs/cli.md): the show
 * output of the paper's Fig. 5 tree against tests/cli/golden/calltree_show.txt
 * (CULPRIT_UPDATE_GOLDEN=1 rewrites it), recording an instrumented fixture of
 * tests/trace, and every bad input with exit status 2 and a message naming it.
 */
#include "support/test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/cli_fixture.h"
#include "support/tmpdir.h"

#define FIG5 CULPRIT_SOURCE_DIR "/tests/calltree/data/fig5.calltree"

/* The group's directory (support/tmpdir.h). */
static const char *const dir = test_tmpdir;

static void show_prints_the_indented_tree(void **state)
{
    char path[1024], *text = read_text(FIG5), *expected;
    cli_result r;
    FILE *f;
    (void)state;

    /* Shown by a relative name, so the golden file holds no machine's path. */
    snprintf(path, sizeof(path), "%s/fig5.calltree", dir);
    assert_non_null(text);
    assert_non_null(f = fopen(path, "w"));
    fputs(text, f);
    fclose(f);
    free(text);
    r = run_culprit(dir, NULL, "calltree show fig5.calltree");

    assert_int_equal(r.status, 0);
    snprintf(path, sizeof(path), "%s/tests/cli/golden/calltree_show.txt", CULPRIT_SOURCE_DIR);
    expected = golden_read(path, r.out);
    assert_string_equal(r.out, expected);
    assert_string_equal(r.err, ""); /* named with files: no hint */
    free(expected);
    cli_result_dispose(&r);
    /* --depth 2: foo, bar, doo only. */
    r = run_culprit(dir, NULL, "calltree show --depth 2 fig5.calltree");
    assert_int_equal(r.status, 0);
    assert_contains(r.out, "    doo  /src/fig5.c:22-25\n");
    assert_lacks(r.out, "fem");
    cli_result_dispose(&r);
}

static void show_names_the_line_of_a_truncated_file(void **state)
{
    char *text = read_text(FIG5), path[600];
    FILE *f;
    (void)state;

    assert_non_null(text);
    *strstr(text, "node 5") = '\0';
    snprintf(path, sizeof(path), "%s/cut.calltree", dir);
    assert_non_null(f = fopen(path, "w"));
    fputs(text, f);
    fclose(f);
    expect_culprit(dir, 2, "cut.calltree:22: truncated: 5 of 7 nodes",
                   "calltree show cut.calltree");
    expect_culprit(dir, 2, "not.calltree' does not exist", "calltree show not.calltree");
    snprintf(path, sizeof(path), "%s/history.xml", dir);
    assert_non_null(f = fopen(path, "w"));
    fputs("<?xml version=\"1.0\"?>\n<testsuites/>\n", f);
    fclose(f);
    expect_culprit(dir, 2, "history.xml:1: not a culprit call-tree file",
                   "calltree show history.xml");
    free(text);
}

static void show_of_an_empty_tree_says_how_to_instrument(void **state)
{
    char path[600];
    FILE *f;
    (void)state;

    snprintf(path, sizeof(path), "%s/empty.calltree", dir);
    assert_non_null(f = fopen(path, "w"));
    fputs("culprit-calltree 1\nbinary /bin/prog\nmode full\nobjects 0\nfunctions 0\nnodes 1\n"
          "node 0 - - 0 0 - - -\nend\n",
          f);
    fclose(f);
    expect_culprit(dir, 2, "the tree is empty: /bin/prog ran no instrumented function",
                   "calltree show empty.calltree");
    expect_culprit(dir, 2, "-finstrument-functions", "calltree show empty.calltree");
}

static void show_hints_at_g_when_functions_stay_addresses(void **state)
{
    char path[600];
    FILE *f;
    cli_result r;
    (void)state;

    snprintf(path, sizeof(path), "%s/raw.calltree", dir);
    assert_non_null(f = fopen(path, "w"));
    fputs("culprit-calltree 1\nbinary /gone/prog\nmode structure\nobjects 1\n"
          "object 0 0x5555 - /gone/prog\nfunctions 1\nfunction 0 0 0x1139 - - 0 0\nnodes 2\n"
          "node 0 - - 0 0 - - -\nnode 1 0 0 1 1 - - -\nend\n",
          f);
    fclose(f);
    r = run_culprit(dir, NULL, "calltree show raw.calltree");
    assert_int_equal(r.status, 0);
    assert_contains(r.out, "0x1139");
    assert_contains(r.err, "1 function(s) are shown by address");
    assert_contains(r.err, "-g");
    cli_result_dispose(&r);
}

static void record_writes_a_symbolized_tree(void **state)
{
    cli_result r;
    (void)state;

    r = run_culprit(dir, NULL,
                    "calltree record --out rec.calltree --repeat 2 --quiet -- '%s' levels",
                    TRACE_FIXTURE);
    assert_int_equal(r.status, 0);
    assert_contains(r.err, "culprit: recording the structure");
    assert_contains(r.err, "culprit: timing depth 4 of 4");
    assert_contains(r.err, "wrote rec.calltree");
    cli_result_dispose(&r);
    r = run_culprit(dir, NULL, "calltree show rec.calltree");
    assert_int_equal(r.status, 0);
    assert_contains(r.out, "mode level (each depth timed in its own run)");
    assert_contains(r.out, "         3 ");
    assert_contains(r.out, "      inner  ");
    assert_contains(r.out, "tests/trace/fixture.c:");
    cli_result_dispose(&r);
}

static void record_of_an_uninstrumented_program_says_how_to_fix_it(void **state)
{
    (void)state;
    expect_culprit(dir, 2, "wrote no call tree: it was not built with instrumentation",
                   "calltree record --quiet '%s'", TRACE_PLAIN);
    expect_culprit(dir, 2, "culprit_instrument(<target>)", "calltree record --quiet '%s'",
                   TRACE_PLAIN);
    expect_culprit(dir, 2, "cannot run '/nonexistent/prog'",
                   "calltree record --quiet /nonexistent/prog");
}

/* Against the same fixture built without instrumentation: the tree is written,
 * and the command says where the own times came from (perf may be missing or
 * forbidden: either way is a tree). A baseline that does not do the same work
 * (here: one that cannot start, sh exits 127) is refused. */
static void record_with_a_baseline(void **state)
{
    cli_result r;
    (void)state;

    r = run_culprit(dir, NULL,
                    "calltree record --out base.calltree --quiet --baseline \"'%s' levels\" -- "
                    "'%s' levels",
                    TRACE_BARE, TRACE_FIXTURE);
    assert_int_equal(r.status, 0);
    assert_contains(r.err, "wrote base.calltree");
    assert_true(strstr(r.err, "own times from perf samples of the baseline") ||
                strstr(r.err, "own times from the timing runs alone, not perf: "));
    cli_result_dispose(&r);
    r = run_culprit(dir, NULL, "calltree show base.calltree");
    assert_int_equal(r.status, 0);
    assert_contains(r.out, "      inner  ");
    cli_result_dispose(&r);
    expect_culprit(dir, 2, "the uninstrumented baseline exited with status 127",
                   "calltree record --quiet --baseline /nonexistent/prog -- '%s' levels",
                   TRACE_FIXTURE);
}

static void usage_errors(void **state)
{
    (void)state;
    expect_culprit(dir, 2, "no command to record", "calltree record --out x");
    expect_culprit(dir, 2, "--levels: '0' is not an integer of at least 1",
                   "calltree record --levels 0 -- true");
    expect_culprit(dir, 2, "--repeat: '0' is not an integer of at least 1",
                   "calltree record --repeat 0 -- true");
    expect_culprit(dir, 2, "which file?", "calltree show");
    expect_culprit(dir, 2, "--depth: '0' is not an integer of at least 1",
                   "calltree show --depth 0 x");
    expect_culprit(dir, 2, "did you mean 'show'", "calltree shwo x");
    expect_culprit(dir, 0, "calltree record [--out FILE]", "calltree record --help");
    expect_culprit(dir, 0, "record", "calltree --help");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(show_prints_the_indented_tree),
        cmocka_unit_test(show_names_the_line_of_a_truncated_file),
        cmocka_unit_test(show_of_an_empty_tree_says_how_to_instrument),
        cmocka_unit_test(show_hints_at_g_when_functions_stay_addresses),
        cmocka_unit_test(record_writes_a_symbolized_tree),
        cmocka_unit_test(record_of_an_uninstrumented_program_says_how_to_fix_it),
        cmocka_unit_test(record_with_a_baseline),
        cmocka_unit_test(usage_errors),
    };
    return cmocka_run_group_tests(tests, test_tmpdir_setup, test_tmpdir_teardown);
}
