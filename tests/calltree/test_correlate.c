/*
 * Change correlation (Heger et al. 2013, section 4.3, at function level) against a
 * real temporary git repository: the culprit commit's hunks (culprit_vcs_changes)
 * intersected with the line ranges of the functions on the suspect paths, the
 * changed lines kept, and changed suspects ranked first.
 */
#include "support/test.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/tree_fixture.h"
#include "support/git_fixture.h"
#include "support/tmpdir.h"

typedef struct {
    char dir[PATH_MAX];
    char culprit[41];
} repo;

/* src/fig5.c of 60 numbered lines, then the culprit commit: lines 23-24 (in fem)
 * rewritten, line 33 (in doo) deleted, another file touched. */
static int setup(void **state)
{
    static repo r;

    if (test_tmpdir_make(r.dir, sizeof(r.dir), "correlate") < 0)
        return -1;
    run("mkdir -p '%s/src'", r.dir);
    write_numbered_lines(r.dir, "src/fig5.c", 60);
    write_file(r.dir, "README", "fig5\n");
    run("cd '%s' && " GIT " init -q && " GIT " add -A && " GIT " commit -qm base", r.dir);
    run("cd '%s' && sed -i -e 's/^line 23$/slower 23/' -e 's/^line 24$/slower 24/' -e '/^line "
        "33$/d' "
        "src/fig5.c && echo more >> README && " GIT " commit -qam culprit",
        r.dir);
    output_of(r.culprit, sizeof(r.culprit), "cd '%s' && git rev-parse HEAD", r.dir);
    *state = &r;
    return 0;
}

static int teardown(void **state)
{
    repo *r = *state;
    return test_tmpdir_remove(r->dir);
}

static void changes_of(culprit_vcs_changeset *out, const repo *r)
{
    culprit_vcs *vcs;

    assert_int_equal(culprit_vcs_open(&vcs, r->dir), 0);
    assert_int_equal(culprit_vcs_changes(out, vcs, r->culprit, 0), 0);
    culprit_vcs_free(vcs);
}

static void the_changed_function_of_the_path_is_marked_with_its_lines(void **state)
{
    culprit_calltree *base = fixture_fig5(20, 1000), *test = fixture_fig5(20, 6000);
    culprit_calltree_diff d;
    culprit_vcs_changeset changes;
    const culprit_calltree_suspect *s;

    changes_of(&changes, *state);
    assert_int_equal(culprit_calltree_diff_trees(&d, base, test, NULL), 0);
    assert_int_equal(d.nsuspects, 1);
    assert_null(d.suspects[0].marks);
    assert_int_equal(culprit_calltree_correlate(&d, &changes), 0);
    assert_true(d.correlated);
    s = &d.suspects[0];
    assert_int_equal(s->npath, 3);
    assert_true(s->changed);
    /* foo: untouched. */
    assert_int_equal(s->marks[0].change, CULPRIT_CALLTREE_NOT_CHANGED);
    assert_int_equal(s->marks[0].nlines, 0);
    /* doo (lines 31-38): line 33 deleted, i.e. lines removed after line 32. */
    assert_int_equal(s->marks[1].change, CULPRIT_CALLTREE_LINES_CHANGED);
    assert_int_equal(s->marks[1].nlines, 1);
    assert_int_equal(s->marks[1].lines[0].start, 32);
    assert_int_equal(s->marks[1].lines[0].lines, 0);
    /* fem (lines 21-28): 23 and 24 rewritten. */
    assert_int_equal(s->marks[2].change, CULPRIT_CALLTREE_LINES_CHANGED);
    assert_int_equal(s->marks[2].nlines, 1);
    assert_int_equal(s->marks[2].lines[0].start, 23);
    assert_int_equal(s->marks[2].lines[0].lines, 2);
    /* Correlating again (another commit) replaces the marks. */
    assert_int_equal(culprit_calltree_correlate(&d, &changes), 0);
    assert_int_equal(d.suspects[0].marks[2].nlines, 1);
    culprit_calltree_diff_dispose(&d);
    culprit_vcs_changeset_dispose(&changes);
    culprit_calltree_free(base);
    culprit_calltree_free(test);
}

static void changed_suspects_rank_first(void **state)
{
    culprit_calltree *base = fixture_fig5(20, 1000), *test = fixture_fig5(20, 6000);
    culprit_calltree_diff d;
    culprit_vcs_changeset changes;
    const char *file = "/home/dev/fig5/src/fig5.c";

    /* bar is also slower, and by more than fem, but its lines did not change. */
    fixture_node(test, "foo;bar", file, 20, 30000, 600);
    fixture_node(test, "foo", file, 20, 100 + 30000 + 11500, 800);
    fixture_finish(test);
    changes_of(&changes, *state);
    assert_int_equal(culprit_calltree_diff_trees(&d, base, test, NULL), 0);
    assert_int_equal(d.nsuspects, 2);
    assert_string_equal(culprit_calltree_diff_function(&d, d.suspects[0].path[1])->name, "bar");
    assert_int_equal(culprit_calltree_correlate(&d, &changes), 0);
    assert_string_equal(culprit_calltree_diff_function(&d, d.suspects[0].path[2])->name, "fem");
    assert_true(d.suspects[0].changed);
    assert_string_equal(culprit_calltree_diff_function(&d, d.suspects[1].path[1])->name, "bar");
    assert_false(d.suspects[1].changed);
    assert_int_equal(d.suspects[1].marks[1].change, CULPRIT_CALLTREE_NOT_CHANGED);
    culprit_calltree_diff_dispose(&d);
    culprit_vcs_changeset_dispose(&changes);
    culprit_calltree_free(base);
    culprit_calltree_free(test);
}

static void files_match_at_a_directory_boundary_and_without_lines_by_file(void **state)
{
    culprit_calltree *base, *test;
    culprit_calltree_diff d;
    culprit_vcs_changeset changes;
    const char *paths[] = {"/elsewhere/xsrc/fig5.c", "fig5.c", "src/fig5.c", "./src/fig5.c"};
    /* A bare "fig5.c" is what a compiler records for a file compiled in src/. */
    const culprit_calltree_change want[] = {
        CULPRIT_CALLTREE_NOT_CHANGED, CULPRIT_CALLTREE_FILE_CHANGED, CULPRIT_CALLTREE_FILE_CHANGED,
        CULPRIT_CALLTREE_FILE_CHANGED};

    changes_of(&changes, *state);
    for (size_t i = 0; i < 4; i++) {
        /* A function without a line range: no debug information for its lines. */
        assert_int_equal(culprit_calltree_new(&base), 0);
        assert_int_equal(culprit_calltree_new(&test), 0);
        base->mode = test->mode = CULPRIT_CALLTREE_FULL;
        fixture_node(base, "zap", paths[i], 10, 100, 1);
        fixture_node(test, "zap", paths[i], 10, 900, 9);
        test->functions[0].line_low = test->functions[0].line_high = 0;
        fixture_finish(base);
        fixture_finish(test);
        assert_int_equal(culprit_calltree_diff_trees(&d, base, test, NULL), 0);
        assert_int_equal(d.nsuspects, 1);
        assert_int_equal(culprit_calltree_correlate(&d, &changes), 0);
        assert_int_equal(d.suspects[0].marks[0].change, want[i]);
        assert_int_equal(d.suspects[0].changed, want[i] != CULPRIT_CALLTREE_NOT_CHANGED);
        culprit_calltree_diff_dispose(&d);
        culprit_calltree_free(base);
        culprit_calltree_free(test);
    }
    culprit_vcs_changeset_dispose(&changes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_changed_function_of_the_path_is_marked_with_its_lines),
        cmocka_unit_test(changed_suspects_rank_first),
        cmocka_unit_test(files_match_at_a_directory_boundary_and_without_lines_by_file),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
