/*
 * The trust boundary of a re-run (framework/runner/rerun.c, docs/security.md): a
 * run's recorded test binary is a hint that is executed only when it resolves to a
 * test binary of a trusted build tree that lists the test. Every other hint (a path
 * outside the trees, a link out of a tree, a script, a file others can write, a
 * .git directory) is refused with a message naming the path and the rule, and
 * nothing is executed: each refused hint is a script that would leave a marker.
 */
#include "support/test.h"
#include "support/git_fixture.h"
#include "support/tmpdir.h"

#include "culprit/core.h"
#include "culprit/runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A tree with a copy of the sample test binary (ELF, lists its tests) and, outside
 * it, a script that leaves `marker` when run. */
typedef struct {
    char *root;                  /* the temporary directory */
    char tree[600], bin[700];    /* the trusted tree, the binary in it */
    char evil[700], marker[700]; /* outside the tree */
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    char text[2000];

    f->root = test_tmpdir_new("rerun");
    snprintf(f->tree, sizeof(f->tree), "%s/tree", f->root);
    snprintf(f->bin, sizeof(f->bin), "%s/build/sample", f->tree);
    snprintf(f->evil, sizeof(f->evil), "%s/evil.sh", f->root);
    snprintf(f->marker, sizeof(f->marker), "%s/marker", f->root);
    run("mkdir -p '%s/build' && cp '%s' '%s' && chmod 755 '%s'", f->tree, SAMPLE_BIN, f->bin,
        f->bin);
    snprintf(text, sizeof(text), "#!/bin/sh\ntouch '%s'\necho busy_fast\n", f->marker);
    write_file(f->root, "evil.sh", text);
    chmod(f->evil, 0755);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    test_tmpdir_remove(f->root);
    free(f->root);
    free(f);
    return 0;
}

/* Asserts that `hint` is refused for test busy_fast with a message holding `why`,
 * and that nothing ran. */
static void refused(const fixture *f, const char *hint, const char *why)
{
    const char *trees[] = {f->tree, NULL, ""};
    char *resolved = (char *)"unset";

    assert_int_equal(culprit_runner_trusted_binary(&resolved, hint, "busy_fast", trees, 3),
                     CULPRIT_ESKIP);
    assert_null(resolved);
    if (!strstr(culprit_error_last(), why))
        fail_msg("'%s' not in: %s", why, culprit_error_last());
    assert_int_equal(access(f->marker, F_OK), -1);
}

static void takes_a_test_binary_of_the_tree_that_lists_the_test(void **state)
{
    fixture *f = *state;
    const char *trees[] = {"/nonexistent/tree", f->tree};
    char *resolved = NULL, hint[800];

    assert_int_equal(culprit_runner_trusted_binary(&resolved, f->bin, "busy_fast", trees, 2), 0);
    assert_string_equal(resolved, f->bin);
    free(resolved);
    /* A hint through ".." and a link that stay inside resolve to the real path. */
    snprintf(hint, sizeof(hint), "%s/build/../build/sample", f->tree);
    run("ln -s build/sample '%s/link'", f->tree);
    assert_int_equal(culprit_runner_trusted_binary(&resolved, hint, "busy_fast", trees, 2), 0);
    assert_string_equal(resolved, f->bin);
    free(resolved);
    snprintf(hint, sizeof(hint), "%s/link", f->tree);
    assert_int_equal(culprit_runner_trusted_binary(&resolved, hint, "busy_fast", trees, 2), 0);
    assert_string_equal(resolved, f->bin);
    free(resolved);
    run("rm '%s/link'", f->tree);
}

static void refuses_what_is_outside_the_trees(void **state)
{
    fixture *f = *state;
    char hint[800];

    refused(f, f->evil, "is outside the trusted build trees");
    refused(f, f->evil, f->tree); /* the trees are named */
    /* A link inside the tree that points out of it. */
    run("ln -s '%s' '%s/build/linked'", f->evil, f->tree);
    snprintf(hint, sizeof(hint), "%s/build/linked", f->tree);
    refused(f, hint, "resolves to");
    refused(f, hint, "outside the trusted build trees");
    run("rm '%s/build/linked'", f->tree);
    /* ".." out of the tree. */
    snprintf(hint, sizeof(hint), "%s/build/../../evil.sh", f->tree);
    refused(f, hint, "outside the trusted build trees");
    refused(f, "evil.sh", "not an absolute path");
    refused(f, "--help", "not an absolute path");
    refused(f, "/nonexistent/perf_tests", "is missing");
    /* No tree at all: nothing is trusted. */
    {
        char *resolved = NULL;
        assert_int_equal(culprit_runner_trusted_binary(&resolved, f->bin, "busy_fast", NULL, 0),
                         CULPRIT_ESKIP);
        assert_non_null(strstr(culprit_error_last(), "trusted build trees (none)"));
    }
}

static void refuses_scripts_and_files_others_can_change(void **state)
{
    fixture *f = *state;
    char hint[800], text[1000];

    /* A script inside the tree (a checked-in file, not a build output). */
    snprintf(text, sizeof(text), "#!/bin/sh\ntouch '%s'\necho busy_fast\n", f->marker);
    write_file(f->tree, "script.sh", text);
    snprintf(hint, sizeof(hint), "%s/script.sh", f->tree);
    chmod(hint, 0755);
    refused(f, hint, "is not an ELF executable");
    /* An ELF program of the build tree that is not a test binary (no culprit runner):
     * not run, not even with --list. */
    snprintf(hint, sizeof(hint), "%s/build/true", f->tree);
    run("cp /bin/true '%s'", hint);
    refused(f, hint, "is not a culprit test binary");
    /* Writable by others. */
    chmod(f->bin, 0757);
    refused(f, f->bin, "is writable by others");
    chmod(f->bin, 0755);
    /* In a directory others can write. */
    chmod(f->tree, 0777);
    refused(f, f->bin, "writable by others");
    chmod(f->tree, 0755);
    /* Not executable, not a regular file. */
    chmod(f->bin, 0644);
    refused(f, f->bin, "is not executable");
    chmod(f->bin, 0755);
    snprintf(hint, sizeof(hint), "%s/build", f->tree);
    refused(f, hint, "is not a regular file");
    /* Inside a .git directory. */
    run("mkdir -p '%s/.git/hooks' && cp '%s' '%s/.git/hooks/sample'", f->tree, f->bin, f->tree);
    snprintf(hint, sizeof(hint), "%s/.git/hooks/sample", f->tree);
    refused(f, hint, "inside a .git directory");
}

static void refuses_a_binary_that_does_not_list_the_test(void **state)
{
    fixture *f = *state;
    const char *trees[] = {f->tree};
    char *resolved = NULL;

    assert_int_equal(culprit_runner_trusted_binary(&resolved, f->bin, "no_such_test", trees, 1),
                     CULPRIT_ESKIP);
    assert_non_null(strstr(culprit_error_last(), "does not list test 'no_such_test'"));
    /* A name that is an option, or a glob, is compared as a name, not run as one. */
    assert_int_equal(culprit_runner_trusted_binary(&resolved, f->bin, "--help", trees, 1),
                     CULPRIT_ESKIP);
    assert_int_equal(culprit_runner_trusted_binary(&resolved, f->bin, "busy_*", trees, 1),
                     CULPRIT_ESKIP);
    /* A name with control bytes is escaped in the message. */
    assert_int_equal(culprit_runner_trusted_binary(&resolved, f->bin, "x\033[2Jy", trees, 1),
                     CULPRIT_ESKIP);
    assert_null(strchr(culprit_error_last(), '\033'));
    assert_null(resolved);
}

/* The re-run's arguments: every value joined to its option, the test's glob
 * characters escaped, so that no name is ever read as an option. */
static void rerun_passes_names_as_values(void **state)
{
    fixture *f = *state;
    char script[800], args[800], text[1200];
    culprit_buf got = CULPRIT_BUF_INIT;

    snprintf(args, sizeof(args), "%s/args", f->root);
    snprintf(text, sizeof(text), "#!/bin/sh\nfor a in \"$@\"; do echo \"$a\"; done > '%s'\n", args);
    write_file(f->root, "args.sh", text);
    snprintf(script, sizeof(script), "%s/args.sh", f->root);
    chmod(script, 0755);
    assert_int_equal(culprit_runner_rerun(script, "--junit=/x*y", "-h", "0123"), 0);
    assert_int_equal(culprit_fs_read_file(&got, args), 0);
    assert_string_equal(culprit_buf_cstr(&got),
                        "--filter=--junit=/x\\*y\n--history=-h\n--commit=0123\n--quiet\n");
    culprit_buf_dispose(&got);
}

/* The real sample binary re-run: one run of the test recorded at the commit. */
static void rerun_records_one_run_of_the_test(void **state)
{
    fixture *f = *state;
    char dir[800];
    culprit_history *h = NULL;
    culprit_history_runs runs = {0, NULL, 0};

    snprintf(dir, sizeof(dir), "%s/history", f->root);
    assert_int_equal(
        culprit_runner_rerun(f->bin, "busy_fast", dir, "0123456789abcdef0123456789abcdef01234567"),
        0);
    assert_int_equal(culprit_history_open(&h, dir, 0), 0);
    assert_int_equal(culprit_history_load(&runs, h, NULL, NULL, NULL), 0);
    assert_int_equal(runs.nruns, 1);
    assert_int_equal(runs.runs[0]->ntests, 1);
    assert_string_equal(runs.runs[0]->tests[0].name, "busy_fast");
    assert_string_equal(runs.runs[0]->commit, "0123456789abcdef0123456789abcdef01234567");
    culprit_history_runs_dispose(&runs);
    culprit_history_free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(takes_a_test_binary_of_the_tree_that_lists_the_test, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(refuses_what_is_outside_the_trees, setup, teardown),
        cmocka_unit_test_setup_teardown(refuses_scripts_and_files_others_can_change, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(refuses_a_binary_that_does_not_list_the_test, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(rerun_passes_names_as_values, setup, teardown),
        cmocka_unit_test_setup_teardown(rerun_records_one_run_of_the_test, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
