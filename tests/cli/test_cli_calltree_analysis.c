/*
 * `culprit calltree diff`, `culprit calltree fold` and `culprit overweight` on
 * call-tree files written with the library (the paper's Fig. 5, fem 5x slower) and
 * folded stacks, in a throw-away repository whose last commit rewrites fem's
 * lines: golden JSON (docs/cli.md), the text a developer reads, and bad input.
 */
#include "support/test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/tree_fixture.h"
#include "support/cli_fixture.h"
#include "support/git_fixture.h"
#include "support/tmpdir.h"

typedef struct {
    char dir[4096];
    char culprit[41];
} scene;

static void write_tree(const char *dir, const char *name, culprit_calltree *t)
{
    char path[4200];

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    assert_int_equal(culprit_calltree_write_file(t, path), 0);
    culprit_calltree_free(t);
}

static int setup(void **state)
{
    static scene s;

    if (test_tmpdir_make(s.dir, sizeof(s.dir), "cli-calltree") < 0)
        return -1;
    run("mkdir -p '%s/src' '%s/trees'", s.dir, s.dir);
    write_numbered_lines(s.dir, "src/fig5.c", 60);
    run("cd '%s' && " GIT " init -q && " GIT " add src && " GIT " commit -qm base", s.dir);
    run("cd '%s' && sed -i -e 's/^line 23$/slower 23/' -e 's/^line 24$/slower 24/' src/fig5.c "
        "&& " GIT " commit -qam 'fem: slower'",
        s.dir);
    output_of(s.culprit, sizeof(s.culprit), "cd '%s' && git rev-parse HEAD", s.dir);
    write_tree(s.dir, "trees/base.calltree", fixture_fig5(20, 1000));
    write_tree(s.dir, "trees/test.calltree", fixture_fig5(20, 6000));
    write_file(s.dir, "trees/base.folded", "main;hot 10\nmain;c 40\nmain;d 50\nmain;c;hot 0\n");
    write_file(s.dir, "trees/test.folded", "main;hot 100\nmain;c 80\nmain;d 50\nmain;c;hot 0\n");
    write_file(s.dir, "trees/bad.folded", "main;f 1\nmain;g\n");
    *state = &s;
    return 0;
}

static int teardown(void **state)
{
    scene *s = *state;
    return test_tmpdir_remove(s->dir);
}

static char *normalized(cli_result *r, const scene *s)
{
    char *text = replace_all(r->out, s->dir, "<TMP>");
    r->out = NULL;
    return replace_all(text, s->culprit, "<culprit>");
}

static void diff_json_matches_golden(void **state)
{
    scene *s = *state;
    cli_result r =
        run_culprit(s->dir, NULL,
                    "calltree diff trees/base.calltree trees/test.calltree --commit HEAD "
                    "--json");
    char *out;

    assert_int_equal(r.status, 0);
    out = normalized(&r, s);
    assert_json_golden(out, "calltree_diff.json", "calltree diff --json");
    free(out);
    cli_result_dispose(&r);
}

static void diff_text_names_the_path_and_the_changed_lines(void **state)
{
    static const char answer[] = "answer: fem (/home/dev/fig5/src/fig5.c:21), changed by the "
                                 "commit, explains 100% of the regression\nsuspect 1: ";
    scene *s = *state;
    cli_result r = run_culprit(s->dir, NULL,
                               "calltree diff trees/base.calltree trees/test.calltree --repo '%s' "
                               "--commit HEAD",
                               s->dir);

    assert_int_equal(r.status, 0);
    assert_contains(r.out, "suspect 1: foo \u2192 doo \u2192 fem  (adds +100.0 us itself, 100.0% "
                           "of the regression; CHANGED in the commit)");
    assert_contains(r.out, "changed: /home/dev/fig5/src/fig5.c: 23-24");
    /* The one answer first (culprit_calltree_diff_answer()). */
    assert_true(strncmp(r.out, answer, strlen(answer)) == 0);
    assert_contains(r.out, "1 suspect among 6 functions compared");
    assert_lacks(r.out, "suspect 2");
    assert_lacks(r.out, "  bar ");
    assert_lacks(r.out, "  qux ");
    assert_lacks(r.out, "  wug ");
    cli_result_dispose(&r);
}

static void overweight_json_matches_golden(void **state)
{
    scene *s = *state;
    cli_result r = run_culprit(s->dir, NULL,
                               "overweight trees/base.folded trees/test.folded --recurse 3 --json");
    char *out;

    assert_int_equal(r.status, 0);
    out = normalized(&r, s);
    assert_json_golden(out, "overweight.json", "overweight --json");
    free(out);
    cli_result_dispose(&r);
}

static void overweight_compares_a_tree_with_folded_stacks(void **state)
{
    scene *s = *state;
    cli_result r;

    /* The base as folded stacks of the tree itself: the same profile, in ns. */
    r = run_culprit(s->dir, NULL, "calltree fold trees/base.calltree");
    assert_int_equal(r.status, 0);
    assert_contains(r.out, "foo;doo;fem 20000\n");
    write_file(s->dir, "trees/base-from-tree.folded", r.out);
    cli_result_dispose(&r);
    r = run_culprit(s->dir, NULL, "overweight trees/base-from-tree.folded trees/test.calltree");
    assert_int_equal(r.status, 0);
    /* fem grew most against its share: first line after the header. */
    assert_contains(r.out, "function\n      ");
    assert_contains(strstr(r.out, "function\n"), "fem (/home/dev/fig5/src/fig5.c)");
    assert_true(strstr(r.out, " fem ") < strstr(r.out, " doo "));
    cli_result_dispose(&r);
}

static void diff_rules_roots_and_shares_from_the_command_line(void **state)
{
    scene *s = *state;

    /* The paper's rule: the lowest slower node of its chain. */
    expect_culprit(s->dir, 0,
                   "suspect 1: foo \u2192 doo \u2192 fem  (the lowest slower node of its chain)",
                   "calltree diff trees/base.calltree trees/test.calltree --rule paper");
    /* Rooted at doo: the path starts there, amounts per call of it. */
    expect_culprit(s->dir, 0,
                   "suspect 1: doo \u2192 fem  (adds +5.0 us per call of doo itself, 100.0% of "
                   "the regression)",
                   "calltree diff trees/base.calltree trees/test.calltree --root doo");
}

/* Function names are data (issue 23): an escape sequence or a line break in one reaches
 * neither the text nor the readable lines --json prints on stderr, nor overweight's
 * table; all show it as \xNN. */
static void diff_escapes_control_bytes_in_function_names(void **state)
{
    scene *s = *state;
    culprit_calltree *trees[2];
    cli_result r;

    for (int i = 0; i < 2; i++) {
        assert_int_equal(culprit_calltree_new(&trees[i]), 0);
        trees[i]->mode = CULPRIT_CALLTREE_FULL;
        fixture_node(trees[i], "main", "src/evil.c", 20, i ? 9000 : 2000, 20);
        fixture_node(trees[i], "main;ev\x1b[31mil\nsuspect 9: fake", "src/evil.c", 20,
                     i ? 8000 : 1000, 10);
        fixture_finish(trees[i]);
    }
    write_tree(s->dir, "trees/evil-base.calltree", trees[0]);
    write_tree(s->dir, "trees/evil-test.calltree", trees[1]);
    for (int json = 0; json < 2; json++) {
        r = run_culprit(s->dir, NULL,
                        "calltree diff trees/evil-base.calltree "
                        "trees/evil-test.calltree%s",
                        json ? " --json" : "");
        assert_int_equal(r.status, 0);
        assert_contains(json ? r.err : r.out, "ev\\x1b[31mil\\x0asuspect 9: fake");
        assert_null(strchr(r.out, '\x1b'));
        assert_null(strchr(r.err, '\x1b'));
        assert_lacks(json ? r.err : r.out, "\nsuspect 9");
        cli_result_dispose(&r);
    }
    /* overweight's table too, from folded stacks. */
    write_file(s->dir, "trees/evil-base.folded", "main;ev\x1b[31mil 100\nmain;ok 100\n");
    write_file(s->dir, "trees/evil-test.folded", "main;ev\x1b[31mil 400\nmain;ok 100\n");
    r = run_culprit(s->dir, NULL, "overweight trees/evil-base.folded trees/evil-test.folded");
    assert_int_equal(r.status, 0);
    assert_contains(r.out, "ev\\x1b[31mil");
    assert_null(strchr(r.out, '\x1b'));
    cli_result_dispose(&r);
    /* A name that is not UTF-8 stays in --json, escaped (jansson refused it: the
     * "function" key went missing). */
    write_file(s->dir, "trees/bad-base.folded", "main;bad\xff 100\nmain;ok 100\n");
    write_file(s->dir, "trees/bad-test.folded", "main;bad\xff 400\nmain;ok 100\n");
    r = run_culprit(s->dir, NULL, "overweight --json trees/bad-base.folded trees/bad-test.folded");
    assert_int_equal(r.status, 0);
    assert_contains(r.out, "\"function\": \"bad\\\\xff\"");
    cli_result_dispose(&r);
}

static void bad_input_is_named_with_exit_2(void **state)
{
    scene *s = *state;

    expect_culprit(s->dir, 2, "trees/bad.folded:2: not a folded stack: no weight",
                   "overweight trees/bad.folded trees/test.folded");
    expect_culprit(s->dir, 2, "trees/nothing.calltree",
                   "calltree diff trees/nothing.calltree "
                   "trees/test.calltree");
    expect_culprit(s->dir, 2, "folded-stack weights, not per-call times",
                   "calltree diff trees/base.folded trees/test.folded");
    expect_culprit(s->dir, 2, "--repo needs --commit",
                   "calltree diff trees/base.calltree trees/test.calltree --repo .");
    expect_culprit(s->dir, 2, "unknown revision",
                   "calltree diff trees/base.calltree trees/test.calltree --commit nope");
    expect_culprit(s->dir, 2, "reach or paper",
                   "calltree diff trees/base.calltree trees/test.calltree --rule bfs");
    expect_culprit(s->dir, 2, "--min-share",
                   "calltree diff trees/base.calltree trees/test.calltree --min-share 150");
    expect_culprit(s->dir, 2, "no function 'nobody' in the base call tree",
                   "calltree diff trees/base.calltree trees/test.calltree --root nobody");
    expect_culprit(s->dir, 2, "did you mean 'diff'", "calltree dif");
    expect_culprit(s->dir, 2, "--recurse", "overweight a b --recurse x");
    expect_culprit(s->dir, 2, "needs two profiles", "overweight trees/base.folded");
    expect_culprit(s->dir, 0, "usage: culprit calltree fold", "calltree fold --help");
    expect_culprit(s->dir, 0, "responsibility = 100", "help overweight");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(diff_json_matches_golden),
        cmocka_unit_test(diff_text_names_the_path_and_the_changed_lines),
        cmocka_unit_test(diff_rules_roots_and_shares_from_the_command_line),
        cmocka_unit_test(diff_escapes_control_bytes_in_function_names),
        cmocka_unit_test(overweight_json_matches_golden),
        cmocka_unit_test(overweight_compares_a_tree_with_folded_stacks),
        cmocka_unit_test(bad_input_is_named_with_exit_2),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
