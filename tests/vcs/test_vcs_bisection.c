/* Tests of what framework/vcs gives bisection: the DAG between good and bad commits
 * (linear and merged histories, several good commits, the errors), the files and
 * line ranges a commit changed (checked against `git diff -U0 -M`, merges against
 * each parent, renames, deletions, binary files, the root commit), and temporary
 * checkouts (contents equal to `git archive`, switching in place, removal, submodules,
 * the signal-handler cleanup). Last, the property all of it rests on: the user's
 * working tree, with a dirty file and an untracked one, the index, HEAD, refs and
 * the stash are byte-for-byte unchanged. */
#include "support/test.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "culprit/core.h"
#include "culprit/vcs.h"
#include "support/git_fixture.h"
#include "support/tmpdir.h"

/*
 * The repository (newest on top; HEAD is main):
 *
 *   c4  "fourth"          main: a.c gets a first line
 *   m   merge of side     (first parent c3, second parent s2)
 *   |\
 *   | s2 "side two"      side.c changed
 *   | s1 "side one"      side.c added
 *   c3 |  "third"         sub/x.c deleted, c.txt and bin.dat changed
 *   |/
 *   c2  "second"          a.c: a line changed, two deleted, two added; b.txt
 *   |                     renamed to c.txt and changed; bin.dat (binary) added
 *   c1  "first"           a.c, b.txt, sub/x.c, run.sh (executable), link -> a.c
 *
 * plus branch "withsub": c4 and a submodule (gitlink) at "mod", made without
 * touching the index. Then the user's state: a stash, a modified tracked file, an
 * untracked file, a file whose stat data no longer matches the index.
 */
static char repo[PATH_MAX], scratch[PATH_MAX];
static char c1[41], c2[41], c3[41], s1[41], s2[41], m[41], c4[41], withsub[41];
static char *before;

static void rev_parse(char *out, const char *rev)
{
    output_of(out, 41, "git -C '%s' rev-parse --verify -q '%s^{commit}'", repo, rev);
}

static void commit_all(const char *msg)
{
    run(GIT " -C '%s' add -A && " GIT " -C '%s' commit -q -m '%s'", repo, repo, msg);
}

/* Every file of the working tree and .git but the objects with its checksum, and
 * the index's inode and times: what a write to any of them would change. */
static char *snapshot(void)
{
    return all_output_of("cd '%s' && find . -path ./.git/objects -prune -o -type f -print | "
                         "LC_ALL=C sort | xargs sha1sum && stat -c '%%n %%i %%Y %%y' .git/index "
                         "&& find . -path ./.git/objects -prune -o -print | LC_ALL=C sort",
                         repo);
}

static int setup_repo(void **state)
{
    (void)state;
    if (test_tmpdir_make(repo, sizeof(repo), "vcs-bisect") < 0 ||
        test_tmpdir_make(scratch, sizeof(scratch), "vcs-scratch") < 0)
        return -1;
    run(GIT " init -q '%s' && mkdir -p '%s/sub'", repo, repo);
    write_file(repo, "a.c",
               "line 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\nline 9\nline 10\n");
    write_file(repo, "b.txt", "alpha\nbeta\ngamma\ndelta\nepsilon\nzeta\neta\ntheta\n");
    write_file(repo, "sub/x.c", "int x;\n");
    write_file(repo, "run.sh", "#!/bin/sh\necho run\n");
    run("chmod 755 '%s/run.sh' && ln -s a.c '%s/link'", repo, repo);
    commit_all("first");

    write_file(repo, "a.c",
               "line 1\nline 2\nline THREE\nline 4\nline 5\nline 8\nline 9\nnew a\nnew b\n"
               "line 10\n");
    run(GIT " -C '%s' mv b.txt c.txt", repo);
    write_file(repo, "c.txt", "alpha\nbeta\ngamma\nDELTA\nepsilon\nzeta\neta\ntheta\n");
    run("printf 'bin\\000ary\\001\\002' > '%s/bin.dat'", repo);
    commit_all("second");

    run(GIT " -C '%s' checkout -q -b side", repo);
    write_file(repo, "side.c", "int side;\n");
    commit_all("side one");
    write_file(repo, "side.c", "int side;\nint side2;\n");
    commit_all("side two");
    run(GIT " -C '%s' checkout -q main", repo);
    run("rm '%s/sub/x.c' && printf 'x\\000y' > '%s/bin.dat'", repo, repo);
    write_file(repo, "c.txt", "alpha\nbeta\ngamma\nDELTA\nepsilon\nzeta\neta\ntheta\nomega\n");
    commit_all("third");
    run(GIT " -C '%s' merge -q --no-ff -m 'Merge side' side", repo);
    write_file(repo, "a.c",
               "line 0\nline 1\nline 2\nline THREE\nline 4\nline 5\nline 8\nline 9\nnew a\n"
               "new b\nline 10\n");
    commit_all("fourth");

    rev_parse(c1, "main~4");
    rev_parse(c2, "main~3");
    rev_parse(c3, "main~2");
    rev_parse(s1, "side~1");
    rev_parse(s2, "side");
    rev_parse(m, "main~1");
    rev_parse(c4, "main");
    run("cd '%s' && t=$( (git ls-tree HEAD; printf '160000 commit %s\\tmod\\n') | git mktree) && "
        "c=$(" GIT " commit-tree \"$t\" -p HEAD -m withsub) && git branch withsub \"$c\"",
        repo, c1);
    rev_parse(withsub, "withsub");

    /* The user's state: a stash, a dirty tracked file, an untracked file, and a
     * stat-dirty file, so that any refresh of the index would rewrite it. */
    run("echo stashed >> '%s/a.c' && " GIT " -C '%s' stash -q", repo, repo);
    run("echo dirty >> '%s/c.txt' && echo untracked > '%s/untracked.txt'", repo, repo);
    run("sleep 1 && touch '%s/a.c'", repo);
    before = snapshot();
    return 0;
}

static int teardown_repo(void **state)
{
    int error;

    (void)state;
    free(before);
    error = test_tmpdir_remove(repo);
    return test_tmpdir_remove(scratch) < 0 ? -1 : error;
}

static culprit_vcs *open_repo(void)
{
    culprit_vcs *vcs = NULL;
    assert_int_equal(culprit_vcs_open(&vcs, repo), 0);
    return vcs;
}

/* ------------------------------------------------------------------------------
 * The DAG
 * --------------------------------------------------------------------------- */

/* The DAG's ids, sorted, one per line; and `git rev-list` of the same range. */
static char *dag_ids(const culprit_vcs_dag *dag)
{
    char *sorted, path[PATH_MAX + 16];
    FILE *f;
    size_t i;

    snprintf(path, sizeof(path), "%s/ids", scratch);
    assert_non_null(f = fopen(path, "w"));
    for (i = 0; i < dag->n; i++)
        fprintf(f, "%s\n", dag->nodes[i].sha);
    fclose(f);
    sorted = all_output_of("LC_ALL=C sort '%s'", path);
    return sorted;
}

static void assert_dag_is_rev_list(const culprit_vcs_dag *dag, const char *range)
{
    char *expected = all_output_of("git -C '%s' rev-list %s | LC_ALL=C sort", repo, range);
    char *actual = dag_ids(dag);
    assert_string_equal(actual, expected);
    free(expected);
    free(actual);
}

static void linear_history_is_a_chain_from_good_to_bad(void **state)
{
    culprit_vcs *vcs = open_repo();
    culprit_vcs_dag dag;
    const char *good[] = {"main~4"};
    (void)state;

    assert_int_equal(culprit_vcs_dag_between(&dag, vcs, good, 1, "main~2"), 0);
    assert_true(culprit_vcs_dag_is_valid(&dag));
    assert_int_equal(dag.n, 2);
    assert_string_equal(dag.nodes[0].sha, c2);
    assert_string_equal(dag.nodes[0].subject, "second");
    assert_int_equal(dag.nodes[0].nparents, 0);
    assert_int_equal(dag.nodes[0].noutside, 1);
    assert_string_equal(dag.nodes[1].sha, c3);
    assert_int_equal(dag.nodes[1].nparents, 1);
    assert_int_equal(dag.nodes[1].parents[0], 0);
    assert_int_equal(dag.nodes[1].noutside, 0);
    culprit_vcs_dag_dispose(&dag);
    culprit_vcs_dag_dispose(&dag); /* twice: harmless */
    culprit_vcs_free(vcs);
}

static void merge_dag_holds_both_branches_in_topological_order(void **state)
{
    culprit_vcs *vcs = open_repo();
    culprit_vcs_dag dag;
    const char *good[] = {c2};
    size_t im, ic3, is2;
    (void)state;

    assert_int_equal(culprit_vcs_dag_between(&dag, vcs, good, 1, "main"), 0);
    assert_true(culprit_vcs_dag_is_valid(&dag));
    assert_int_equal(dag.n, 5);
    assert_dag_is_rev_list(&dag, "main ^main~3");
    assert_string_equal(dag.nodes[dag.n - 1].sha, c4);
    assert_int_equal(culprit_vcs_dag_find(&dag, c1), (size_t)-1);
    assert_int_equal(culprit_vcs_dag_find(&dag, c2), (size_t)-1);

    /* The merge: both parents inside, in parent order. */
    im = culprit_vcs_dag_find(&dag, m);
    ic3 = culprit_vcs_dag_find(&dag, c3);
    is2 = culprit_vcs_dag_find(&dag, s2);
    assert_int_equal(dag.nodes[im].nparents, 2);
    assert_int_equal(dag.nodes[im].noutside, 0);
    assert_int_equal(dag.nodes[im].parents[0], ic3);
    assert_int_equal(dag.nodes[im].parents[1], is2);
    assert_string_equal(dag.nodes[im].subject, "Merge side");
    culprit_vcs_dag_dispose(&dag);
    culprit_vcs_free(vcs);
}

static void commits_reachable_from_a_good_one_are_left_out(void **state)
{
    culprit_vcs *vcs = open_repo();
    culprit_vcs_dag dag;
    const char *good[] = {"side~1"};
    const char *goods[] = {"side~1", "main~2"};
    size_t is2, ic3;
    (void)state;

    /* s1 good: c2 below it is out, c3 on the other branch is in. */
    assert_int_equal(culprit_vcs_dag_between(&dag, vcs, good, 1, c4), 0);
    assert_true(culprit_vcs_dag_is_valid(&dag));
    assert_dag_is_rev_list(&dag, "main ^side~1");
    assert_int_equal(dag.n, 4);
    assert_int_equal(culprit_vcs_dag_find(&dag, s1), (size_t)-1);
    assert_int_equal(culprit_vcs_dag_find(&dag, c2), (size_t)-1);
    is2 = culprit_vcs_dag_find(&dag, s2);
    ic3 = culprit_vcs_dag_find(&dag, c3);
    assert_int_equal(dag.nodes[is2].noutside, 1);
    assert_int_equal(dag.nodes[is2].nparents, 0);
    assert_int_equal(dag.nodes[ic3].noutside, 1);
    culprit_vcs_dag_dispose(&dag);

    /* Two good commits: only the merge's side s2, the merge and c4 remain. */
    assert_int_equal(culprit_vcs_dag_between(&dag, vcs, goods, 2, c4), 0);
    assert_true(culprit_vcs_dag_is_valid(&dag));
    assert_dag_is_rev_list(&dag, "main ^side~1 ^main~2");
    assert_int_equal(dag.n, 3);
    assert_int_equal(dag.nodes[culprit_vcs_dag_find(&dag, m)].noutside, 1);
    culprit_vcs_dag_dispose(&dag);
    culprit_vcs_free(vcs);
}

static void dag_errors_name_the_revisions(void **state)
{
    culprit_vcs *vcs = open_repo();
    culprit_vcs_dag dag;
    const char *unknown[] = {"nosuchrev"}, *same[] = {"main"}, *later[] = {"main"},
               *tree[] = {"HEAD^{tree}"}, *side[] = {"side"};
    (void)state;

    assert_int_equal(culprit_vcs_dag_between(&dag, vcs, unknown, 1, "main"), CULPRIT_ENOTFOUND);
    assert_non_null(strstr(culprit_error_last(), "nosuchrev"));
    assert_null(dag.nodes);
    assert_int_equal(dag.n, 0);
    assert_int_equal(culprit_vcs_dag_between(&dag, vcs, same, 1, "main"), CULPRIT_EINVALID);
    assert_non_null(strstr(culprit_error_last(), "same commit"));
    assert_int_equal(culprit_vcs_dag_between(&dag, vcs, later, 1, "main~2"), CULPRIT_EINVALID);
    assert_non_null(strstr(culprit_error_last(), "is not an ancestor of bad 'main~2'"));
    assert_non_null(strstr(culprit_error_last(), "good 'main'"));
    /* A side branch that is not below bad either. */
    assert_int_equal(culprit_vcs_dag_between(&dag, vcs, side, 1, "main~2"), CULPRIT_EINVALID);
    assert_int_equal(culprit_vcs_dag_between(&dag, vcs, tree, 1, "main"), CULPRIT_EINVALID);
    assert_int_equal(culprit_vcs_dag_between(&dag, vcs, same, 1, "nosuchrev"), CULPRIT_ENOTFOUND);
    assert_int_equal(culprit_vcs_dag_between(&dag, vcs, same, 0, "main"), CULPRIT_EINVALID);
    culprit_vcs_free(vcs);
}

static void invariant_checker_rejects_broken_dags(void **state)
{
    culprit_vcs *vcs = open_repo();
    culprit_vcs_dag dag, empty = {NULL, 0};
    const char *good[] = {c2};
    size_t im, saved;
    char c;
    (void)state;

    assert_int_equal(culprit_vcs_dag_between(&dag, vcs, good, 1, c4), 0);
    assert_true(culprit_vcs_dag_is_valid(&dag));
    assert_false(culprit_vcs_dag_is_valid(&empty));
    assert_false(culprit_vcs_dag_is_valid(NULL));
    im = culprit_vcs_dag_find(&dag, m);

    saved = dag.nodes[im].parents[0]; /* a parent after its child */
    dag.nodes[im].parents[0] = im;
    assert_false(culprit_vcs_dag_is_valid(&dag));
    dag.nodes[im].parents[0] = dag.nodes[im].parents[1]; /* a parent twice */
    assert_false(culprit_vcs_dag_is_valid(&dag));
    dag.nodes[im].parents[0] = saved;
    assert_true(culprit_vcs_dag_is_valid(&dag));

    memcpy(dag.nodes[0].sha, dag.nodes[1].sha, 41); /* an id twice */
    assert_false(culprit_vcs_dag_is_valid(&dag));
    memcpy(dag.nodes[0].sha, dag.nodes[1].sha, 41);
    c = dag.nodes[1].sha[0];
    dag.nodes[1].sha[0] = 'g'; /* not hex */
    assert_false(culprit_vcs_dag_is_valid(&dag));
    dag.nodes[1].sha[0] = c;
    culprit_vcs_dag_dispose(&dag);

    /* A node that leads nowhere: bad not last. */
    assert_int_equal(culprit_vcs_dag_between(&dag, vcs, good, 1, c4), 0);
    dag.n--;
    assert_true(culprit_vcs_dag_is_valid(&dag)); /* m is now the only sink */
    dag.n++;
    dag.nodes[dag.n - 1].nparents = 0;
    assert_false(culprit_vcs_dag_is_valid(&dag));
    culprit_vcs_dag_dispose(&dag);
    culprit_vcs_free(vcs);
}

/* ------------------------------------------------------------------------------
 * Changes
 * --------------------------------------------------------------------------- */

/* The changes as text: "path [<- old] [binary] start,lines ..." per file. */
static char *format_changes(const culprit_vcs_changeset *cs)
{
    culprit_buf buf = CULPRIT_BUF_INIT;
    size_t i, j;

    for (i = 0; i < cs->nfiles; i++) {
        const culprit_vcs_file_change *f = &cs->files[i];
        culprit_buf_puts(&buf, f->path);
        if (f->old_path)
            culprit_buf_printf(&buf, " <- %s", f->old_path);
        if (f->binary)
            culprit_buf_puts(&buf, " binary");
        for (j = 0; j < f->nranges; j++)
            culprit_buf_printf(&buf, " %zu,%zu", f->ranges[j].start, f->ranges[j].lines);
        culprit_buf_puts(&buf, "\n");
    }
    return buf.ptr ? culprit_buf_detach(&buf) : strdup("");
}

/* The same text from `git diff -U0 -M old new`. */
static char *git_changes(const char *old_rev, const char *new_rev)
{
    char *diff = all_output_of("git -C '%s' diff --no-color --no-ext-diff -U0 -M '%s' '%s'", repo,
                               old_rev, new_rev);
    culprit_buf buf = CULPRIT_BUF_INIT;
    char *line, *save = NULL, oldp[1024] = "", newp[1024] = "";
    int open_file = 0, renamed = 0;

    for (line = strtok_r(diff, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        unsigned long c, d;
        if (strncmp(line, "diff --git a/", 13) == 0) {
            char *sep = strstr(line, " b/");
            if (open_file)
                culprit_buf_puts(&buf, "\n");
            snprintf(oldp, sizeof(oldp), "%.*s", (int)(sep - line - 13), line + 13);
            snprintf(newp, sizeof(newp), "%s", sep + 3);
            culprit_buf_puts(&buf, newp);
            open_file = 1;
            renamed = 0;
        } else if (strncmp(line, "rename from ", 12) == 0 && !renamed) {
            culprit_buf_printf(&buf, " <- %s", oldp);
            renamed = 1;
        } else if (strncmp(line, "Binary files ", 13) == 0) {
            culprit_buf_puts(&buf, " binary");
        } else if (strncmp(line, "@@ -", 4) == 0) {
            char *plus = strstr(line, " +");
            c = strtoul(plus + 2, &plus, 10);
            d = *plus == ',' ? strtoul(plus + 1, NULL, 10) : 1;
            culprit_buf_printf(&buf, " %lu,%lu", c, d);
        }
    }
    if (open_file)
        culprit_buf_puts(&buf, "\n");
    free(diff);
    return buf.ptr ? culprit_buf_detach(&buf) : strdup("");
}

static void assert_changes_match_git(culprit_vcs *vcs, const char *sha, size_t parent,
                                     const char *parent_rev)
{
    culprit_vcs_changeset cs;
    char *expected = git_changes(parent_rev, sha), *actual;

    assert_int_equal(culprit_vcs_changes(&cs, vcs, sha, parent), 0);
    assert_string_equal(cs.sha, sha);
    actual = format_changes(&cs);
    assert_string_equal(actual ? actual : "", expected);
    culprit_vcs_changeset_dispose(&cs);
    free(actual);
    free(expected);
}

static void changes_match_git_diff_U0(void **state)
{
    culprit_vcs *vcs = open_repo();
    (void)state;

    assert_changes_match_git(vcs, c2, 0, c1);
    assert_changes_match_git(vcs, c3, 0, c2);
    assert_changes_match_git(vcs, s1, 0, c2);
    assert_changes_match_git(vcs, s2, 0, s1);
    assert_changes_match_git(vcs, c4, 0, m);
    /* A merge against each of its parents. */
    assert_changes_match_git(vcs, m, 0, c3);
    assert_changes_match_git(vcs, m, 1, s2);
    /* The root commit against the empty tree. */
    assert_changes_match_git(vcs, c1, 0, "4b825dc642cb6eb9a060e54bf8d69288fbee4904");
    culprit_vcs_free(vcs);
}

static void changes_name_renames_deletions_and_binaries(void **state)
{
    culprit_vcs *vcs = open_repo();
    culprit_vcs_changeset cs;
    const culprit_vcs_file_change *f;
    (void)state;

    /* c2: a.c line 3 changed, lines 6-7 deleted (after new line 5), 2 added after 7. */
    assert_int_equal(culprit_vcs_changes(&cs, vcs, c2, 0), 0);
    assert_string_equal(cs.parent_sha, c1);
    assert_int_equal(cs.nfiles, 3);
    f = &cs.files[0];
    assert_string_equal(f->path, "a.c");
    assert_null(f->old_path);
    assert_int_equal(f->status, CULPRIT_VCS_MODIFIED);
    assert_int_equal(f->nranges, 3);
    assert_int_equal(f->ranges[0].start, 3);
    assert_int_equal(f->ranges[0].lines, 1);
    assert_int_equal(f->ranges[1].start, 5);
    assert_int_equal(f->ranges[1].lines, 0);
    assert_int_equal(f->ranges[2].start, 8);
    assert_int_equal(f->ranges[2].lines, 2);
    f = &cs.files[1];
    assert_string_equal(f->path, "bin.dat");
    assert_int_equal(f->status, CULPRIT_VCS_ADDED);
    assert_true(f->binary);
    assert_int_equal(f->nranges, 0);
    f = &cs.files[2];
    assert_string_equal(f->path, "c.txt");
    assert_string_equal(f->old_path, "b.txt");
    assert_int_equal(f->status, CULPRIT_VCS_RENAMED);
    assert_int_equal(f->nranges, 1);
    assert_int_equal(f->ranges[0].start, 4);
    assert_int_equal(f->ranges[0].lines, 1);
    culprit_vcs_changeset_dispose(&cs);
    culprit_vcs_changeset_dispose(&cs);

    /* c3: a deletion is listed by its old path with the range {0, 0}. */
    assert_int_equal(culprit_vcs_changes(&cs, vcs, c3, 0), 0);
    f = &cs.files[cs.nfiles - 1];
    assert_string_equal(f->path, "sub/x.c");
    assert_int_equal(f->status, CULPRIT_VCS_DELETED);
    assert_int_equal(f->nranges, 1);
    assert_int_equal(f->ranges[0].start, 0);
    assert_int_equal(f->ranges[0].lines, 0);
    culprit_vcs_changeset_dispose(&cs);

    /* The root commit. */
    assert_int_equal(culprit_vcs_changes(&cs, vcs, c1, 0), 0);
    assert_string_equal(cs.parent_sha, "");
    assert_int_equal(cs.nfiles, 5);
    culprit_vcs_changeset_dispose(&cs);
    culprit_vcs_free(vcs);
}

static void changes_reject_a_missing_parent_and_bad_ids(void **state)
{
    culprit_vcs *vcs = open_repo();
    culprit_vcs_changeset cs;
    (void)state;

    assert_int_equal(culprit_vcs_changes(&cs, vcs, m, 2), CULPRIT_EINVALID);
    assert_non_null(strstr(culprit_error_last(), "has 2 parents"));
    assert_null(cs.files);
    assert_int_equal(culprit_vcs_changes(&cs, vcs, c2, 1), CULPRIT_EINVALID);
    assert_int_equal(culprit_vcs_changes(&cs, vcs, c1, 1), CULPRIT_EINVALID);
    assert_int_equal(culprit_vcs_changes(&cs, vcs, "main", 0), CULPRIT_EINVALID);
    assert_int_equal(culprit_vcs_changes(&cs, vcs, "0123456789012345678901234567890123456789", 0),
                     CULPRIT_ENOTFOUND);
    culprit_vcs_free(vcs);
}

/* ------------------------------------------------------------------------------
 * Checkouts
 * --------------------------------------------------------------------------- */

/* Fails unless `dir` holds exactly what `git archive sha` holds: the same paths,
 * types and permission bits (the archive extracted with the process umask, which the
 * checkout applies too), the same bytes, symlinks as symlinks. */
static void assert_same_as_archive(const char *dir, const char *sha)
{
    char *listing, *expected;

    run("rm -rf '%s/archive' && mkdir '%s/archive' && git -C '%s' -c tar.umask=$(umask) archive "
        "'%s' | tar -x -C "
        "'%s/archive'",
        scratch, scratch, repo, sha, scratch);
    run("diff -r --no-dereference '%s/archive' '%s'", scratch, dir);
    expected = all_output_of("cd '%s/archive' && find . -mindepth 1 -printf '%%P %%y %%m\\n' | "
                             "LC_ALL=C sort",
                             scratch);
    listing = all_output_of(
        "cd '%s' && find . -mindepth 1 -printf '%%P %%y %%m\\n' | LC_ALL=C sort", dir);
    assert_string_equal(listing, expected);
    free(listing);
    free(expected);
    run("rm -rf '%s/archive'", scratch);
}

static culprit_vcs_checkout *checkout_in(culprit_vcs *vcs, const char *sha, const char *parent)
{
    culprit_vcs_checkout_options opts;
    culprit_vcs_checkout *co = NULL;

    culprit_vcs_checkout_options_init(&opts, CULPRIT_VCS_CHECKOUT_OPTIONS_VERSION);
    opts.parent_dir = parent;
    assert_int_equal(culprit_vcs_checkout_create(&co, vcs, sha, &opts), 0);
    assert_non_null(co);
    return co;
}

static void checkout_options_init_refuses_other_versions(void **state)
{
    culprit_vcs_checkout_options o;
    (void)state;
    memset(&o, 0xff, sizeof(o));
    assert_int_equal(culprit_vcs_checkout_options_init(&o, CULPRIT_VCS_CHECKOUT_OPTIONS_VERSION),
                     0);
    assert_int_equal(o.version, CULPRIT_VCS_CHECKOUT_OPTIONS_VERSION);
    assert_null(o.parent_dir);
    assert_int_equal(culprit_vcs_checkout_options_init(&o, 0), CULPRIT_EINVALID);
    assert_non_null(strstr(culprit_error_last(), "checkout options version 0"));
}

static void checkout_equals_git_archive(void **state)
{
    culprit_vcs *vcs = open_repo();
    culprit_vcs_checkout *co;
    char parent[PATH_MAX + 16], *left;
    const char *shas[] = {c1, c2, c3, m, c4};
    size_t i;
    (void)state;

    snprintf(parent, sizeof(parent), "%s/co", scratch);
    run("mkdir -p '%s'", parent);
    for (i = 0; i < sizeof(shas) / sizeof(shas[0]); i++) {
        co = checkout_in(vcs, shas[i], parent);
        assert_string_equal(culprit_vcs_checkout_sha(co), shas[i]);
        assert_int_equal(strncmp(culprit_vcs_checkout_path(co), parent, strlen(parent)), 0);
        assert_same_as_archive(culprit_vcs_checkout_path(co), shas[i]);
        assert_int_equal(culprit_vcs_checkout_submodules(co), 0);
        assert_int_equal(culprit_vcs_checkout_remove(co), 0);
    }
    left = all_output_of("ls -A '%s'", parent);
    assert_string_equal(left, "");
    free(left);
    culprit_vcs_free(vcs);
}

/* By default a checkout is made in the process's temporary directory (in $TMPDIR,
 * removed with it: culprit_fs_temp_dir()). */
static void checkout_goes_to_TMPDIR_by_default_and_never_inside_the_repository(void **state)
{
    culprit_vcs *vcs = open_repo();
    culprit_vcs_checkout *co = NULL;
    culprit_vcs_checkout_options opts = CULPRIT_VCS_CHECKOUT_OPTIONS_INIT;
    char parent[PATH_MAX + 16], *old = getenv("TMPDIR"), *saved = old ? strdup(old) : NULL;
    const char *own;
    struct stat st;
    (void)state;

    snprintf(parent, sizeof(parent), "%s/tmpdir", scratch);
    run("mkdir -p '%s'", parent);
    setenv("TMPDIR", parent, 1);
    assert_int_equal(culprit_vcs_checkout_create(&co, vcs, c4, NULL), 0);
    assert_int_equal(culprit_fs_temp_dir(&own), 0);
    assert_int_equal(strncmp(culprit_vcs_checkout_path(co), own, strlen(own)), 0);
    assert_non_null(strstr(culprit_vcs_checkout_path(co) + strlen(own), "/checkout-"));
    assert_non_null(strstr(own, "/culprit-"));
    assert_int_equal(stat(culprit_vcs_checkout_path(co), &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    assert_int_equal(culprit_vcs_checkout_remove(co), 0);
    if (saved)
        setenv("TMPDIR", saved, 1);
    else
        unsetenv("TMPDIR");
    free(saved);

    opts.parent_dir = repo;
    assert_int_equal(culprit_vcs_checkout_create(&co, vcs, c4, &opts), CULPRIT_EINVALID);
    assert_null(co);
    assert_non_null(strstr(culprit_error_last(), "outside the repository"));
    snprintf(parent, sizeof(parent), "%s/.git", repo);
    opts.parent_dir = parent;
    assert_int_equal(culprit_vcs_checkout_create(&co, vcs, c4, &opts), CULPRIT_EINVALID);
    opts.parent_dir = NULL;
    assert_int_equal(culprit_vcs_checkout_create(&co, vcs, "main", &opts), CULPRIT_EINVALID);
    opts.version = 99;
    assert_int_equal(culprit_vcs_checkout_create(&co, vcs, c4, &opts), CULPRIT_EINVALID);
    assert_int_equal(culprit_vcs_checkout_remove(NULL), 0);
    culprit_vcs_free(vcs);
}

static void switching_in_place_rewrites_only_what_changed(void **state)
{
    culprit_vcs *vcs = open_repo();
    culprit_vcs_checkout *co;
    char path[PATH_MAX + 64];
    const char *dir;
    struct stat run_before, run_after, a_before, a_after;
    (void)state;

    co = checkout_in(vcs, c1, scratch);
    dir = culprit_vcs_checkout_path(co);
    run("echo object > '%s/build.o'", dir); /* a build output */
    snprintf(path, sizeof(path), "%s/run.sh", dir);
    assert_int_equal(stat(path, &run_before), 0);
    snprintf(path, sizeof(path), "%s/a.c", dir);
    assert_int_equal(stat(path, &a_before), 0);

    /* c1 -> c3: a.c and b.txt change, c.txt and bin.dat come, sub/x.c goes. */
    assert_int_equal(culprit_vcs_checkout_switch(co, c3), 0);
    assert_string_equal(culprit_vcs_checkout_sha(co), c3);
    snprintf(path, sizeof(path), "%s/run.sh", dir);
    assert_int_equal(stat(path, &run_after), 0);
    assert_int_equal(run_after.st_ino, run_before.st_ino); /* untouched */
    assert_int_equal(run_after.st_mtime, run_before.st_mtime);
    snprintf(path, sizeof(path), "%s/a.c", dir);
    assert_int_equal(stat(path, &a_after), 0);
    assert_int_not_equal(a_after.st_ino, a_before.st_ino); /* replaced */
    snprintf(path, sizeof(path), "%s/sub", dir);
    assert_int_not_equal(stat(path, &a_after), 0); /* left empty, so removed */
    snprintf(path, sizeof(path), "%s/build.o", dir);
    assert_int_equal(stat(path, &a_after), 0); /* not ours: kept */
    run("rm '%s'", path);
    assert_same_as_archive(dir, c3);

    /* Through a merge and back down to the root. */
    run("echo object > '%s/build.o'", dir);
    assert_int_equal(culprit_vcs_checkout_switch(co, c4), 0);
    run("rm '%s/build.o'", dir);
    assert_same_as_archive(dir, c4);
    assert_int_equal(culprit_vcs_checkout_switch(co, c1), 0);
    assert_same_as_archive(dir, c1);
    assert_int_equal(culprit_vcs_checkout_switch(co, c1), 0); /* no change */
    assert_same_as_archive(dir, c1);

    /* A failed switch leaves the checkout where it was. */
    assert_int_equal(culprit_vcs_checkout_switch(co, "nope"), CULPRIT_EINVALID);
    assert_string_equal(culprit_vcs_checkout_sha(co), c1);

    snprintf(path, sizeof(path), "%s", dir);
    run("echo object > '%s/build.o'", dir);
    assert_int_equal(culprit_vcs_checkout_remove(co), 0);
    assert_int_not_equal(stat(path, &a_after), 0); /* the directory is gone */
    culprit_vcs_free(vcs);
}

/* A checkout seeded from another: its build outputs copied with their times, then
 * switched, so only the files that differ are newer than the outputs; exchanged,
 * the two handles keep their files at each other's path. */
static void a_copy_keeps_outputs_and_exchanges_places(void **state)
{
    culprit_vcs *vcs = open_repo();
    culprit_vcs_checkout *a, *b;
    char pa[PATH_MAX], pb[PATH_MAX], path[PATH_MAX + 64];
    struct stat out_a, out_b, run_a, run_b, changed;
    (void)state;

    a = checkout_in(vcs, c1, scratch);
    run("echo object > '%s/build.o' && touch -d '2001-01-01 00:00:00' '%s/build.o'",
        culprit_vcs_checkout_path(a), culprit_vcs_checkout_path(a));
    assert_int_equal(culprit_vcs_checkout_copy(&b, a, c3, NULL), 0);
    snprintf(pa, sizeof(pa), "%s", culprit_vcs_checkout_path(a));
    snprintf(pb, sizeof(pb), "%s", culprit_vcs_checkout_path(b));
    assert_string_not_equal(pa, pb);
    assert_string_equal(culprit_vcs_checkout_sha(b), c3);
    assert_string_equal(culprit_vcs_checkout_sha(a), c1);
    snprintf(path, sizeof(path), "%s/build.o", pa);
    assert_int_equal(stat(path, &out_a), 0);
    snprintf(path, sizeof(path), "%s/build.o", pb);
    assert_int_equal(stat(path, &out_b), 0);
    assert_int_equal(out_b.st_mtim.tv_sec, out_a.st_mtim.tv_sec); /* the output's time */
    snprintf(path, sizeof(path), "%s/run.sh", pa);
    assert_int_equal(stat(path, &run_a), 0);
    snprintf(path, sizeof(path), "%s/run.sh", pb);
    assert_int_equal(stat(path, &run_b), 0);
    assert_int_equal(run_b.st_mtim.tv_sec, run_a.st_mtim.tv_sec); /* unchanged: not newer */
    assert_int_equal(run_b.st_mtim.tv_nsec, run_a.st_mtim.tv_nsec);
    snprintf(path, sizeof(path), "%s/a.c", pb);
    assert_int_equal(stat(path, &changed), 0);
    assert_true(changed.st_mtim.tv_sec > out_b.st_mtim.tv_sec); /* changed: rebuilt */
    run("rm '%s/build.o'", pb);
    assert_same_as_archive(pb, c3);

    assert_int_equal(culprit_vcs_checkout_exchange(a, b), 0);
    assert_string_equal(culprit_vcs_checkout_path(a), pb);
    assert_string_equal(culprit_vcs_checkout_path(b), pa);
    assert_same_as_archive(pa, c3);
    run("rm '%s/build.o'", pb);
    assert_same_as_archive(pb, c1);
    /* Switching follows the files to their new place. */
    assert_int_equal(culprit_vcs_checkout_switch(a, c4), 0);
    assert_same_as_archive(pb, c4);
    assert_int_equal(culprit_vcs_checkout_remove(a), 0);
    assert_int_equal(culprit_vcs_checkout_remove(b), 0);
    assert_int_not_equal(stat(pa, &changed), 0);
    assert_int_not_equal(stat(pb, &changed), 0);
    culprit_vcs_free(vcs);
}

static void submodules_are_refused_or_left_empty(void **state)
{
    culprit_vcs *vcs = open_repo();
    culprit_vcs_checkout *co = NULL;
    culprit_vcs_checkout_options opts = CULPRIT_VCS_CHECKOUT_OPTIONS_INIT;
    char parent[PATH_MAX + 16], path[PATH_MAX + 64], *left;
    struct stat st;
    (void)state;

    snprintf(parent, sizeof(parent), "%s/sub", scratch);
    run("mkdir -p '%s'", parent);
    opts.parent_dir = parent;
    /* A failure half-way through the tree: nothing may be left behind. */
    assert_int_equal(culprit_vcs_checkout_create(&co, vcs, withsub, &opts), CULPRIT_EINVALID);
    assert_null(co);
    assert_non_null(strstr(culprit_error_last(), "submodule at 'mod'"));
    left = all_output_of("ls -A '%s'", parent);
    assert_string_equal(left, "");
    free(left);

    opts.allow_submodules = 1;
    assert_int_equal(culprit_vcs_checkout_create(&co, vcs, withsub, &opts), 0);
    assert_int_equal(culprit_vcs_checkout_submodules(co), 1);
    snprintf(path, sizeof(path), "%s/mod", culprit_vcs_checkout_path(co));
    assert_int_equal(stat(path, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(culprit_vcs_checkout_switch(co, c4), 0);
    assert_int_equal(culprit_vcs_checkout_submodules(co), 0);
    assert_int_not_equal(stat(path, &st), 0);
    assert_same_as_archive(culprit_vcs_checkout_path(co), c4);
    assert_int_equal(culprit_vcs_checkout_remove(co), 0);
    culprit_vcs_free(vcs);
}

/* The child's handler: remove the checkouts, then die of the signal as it would. */
static void on_term(int sig)
{
    culprit_vcs_checkout_remove_all();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void checkouts_abandoned_by_a_killed_process_are_removed(void **state)
{
    char path[PATH_MAX + 64] = "";
    int fds[2], status;
    struct stat st;
    ssize_t got;
    pid_t pid;
    (void)state;

    assert_int_equal(pipe(fds), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        culprit_vcs *vcs = NULL;
        culprit_vcs_checkout *a = NULL, *b = NULL;
        culprit_vcs_checkout_options opts = CULPRIT_VCS_CHECKOUT_OPTIONS_INIT;

        close(fds[0]);
        signal(SIGTERM, on_term);
        opts.parent_dir = scratch;
        if (culprit_vcs_open(&vcs, repo) < 0 ||
            culprit_vcs_checkout_create(&a, vcs, c2, &opts) < 0 ||
            culprit_vcs_checkout_create(&b, vcs, c4, &opts) < 0)
            _exit(1);
        dprintf(fds[1], "%s\n%s\n", culprit_vcs_checkout_path(a), culprit_vcs_checkout_path(b));
        close(fds[1]);
        for (;;)
            pause(); /* a build in progress, until Ctrl-C */
    }
    close(fds[1]);
    got = read(fds[0], path, sizeof(path) - 1);
    close(fds[0]);
    assert_true(got > 0);
    path[got] = '\0';
    assert_non_null(strchr(path, '\n'));
    *strchr(path, '\n') = '\0';
    assert_int_equal(stat(path, &st), 0);
    kill(pid, SIGTERM);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
    assert_int_not_equal(stat(path, &st), 0);
    path[strlen(scratch)] = '\0';
    {
        char *left = all_output_of("ls -A '%s' | grep culprit-checkout || true", path);
        assert_string_equal(left, "");
        free(left);
    }
}

static void remove_all_empties_the_registry_and_handles_stay_removable(void **state)
{
    culprit_vcs *vcs = open_repo();
    culprit_vcs_checkout *a = checkout_in(vcs, c1, scratch), *b = checkout_in(vcs, c4, scratch);
    char pa[PATH_MAX + 64];
    struct stat st;
    (void)state;

    snprintf(pa, sizeof(pa), "%s", culprit_vcs_checkout_path(a));
    assert_int_equal(culprit_vcs_checkout_remove_all(), 2);
    assert_int_not_equal(stat(pa, &st), 0);
    assert_int_not_equal(stat(culprit_vcs_checkout_path(b), &st), 0);
    assert_int_equal(culprit_vcs_checkout_remove_all(), 0);
    assert_int_equal(culprit_vcs_checkout_remove(a), 0);
    assert_int_equal(culprit_vcs_checkout_remove(b), 0);
    culprit_vcs_free(vcs);
}

/* ------------------------------------------------------------------------------
 * The user's repository
 * --------------------------------------------------------------------------- */

static void the_users_repository_is_unchanged_byte_for_byte(void **state)
{
    char *after;
    (void)state;

    /* Every test above ran on this repository; each also read its history. */
    after = snapshot();
    assert_string_equal(before, after);
    free(after);
    after = all_output_of("git -C '%s' status --porcelain && git -C '%s' stash list | wc -l && "
                          "git -C '%s' worktree list | wc -l",
                          repo, repo, repo);
    assert_string_equal(after, " M c.txt\n?? untracked.txt\n1\n1\n");
    free(after);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(linear_history_is_a_chain_from_good_to_bad),
        cmocka_unit_test(merge_dag_holds_both_branches_in_topological_order),
        cmocka_unit_test(commits_reachable_from_a_good_one_are_left_out),
        cmocka_unit_test(dag_errors_name_the_revisions),
        cmocka_unit_test(invariant_checker_rejects_broken_dags),
        cmocka_unit_test(changes_match_git_diff_U0),
        cmocka_unit_test(changes_name_renames_deletions_and_binaries),
        cmocka_unit_test(changes_reject_a_missing_parent_and_bad_ids),
        cmocka_unit_test(checkout_options_init_refuses_other_versions),
        cmocka_unit_test(checkout_equals_git_archive),
        cmocka_unit_test(checkout_goes_to_TMPDIR_by_default_and_never_inside_the_repository),
        cmocka_unit_test(switching_in_place_rewrites_only_what_changed),
        cmocka_unit_test(a_copy_keeps_outputs_and_exchanges_places),
        cmocka_unit_test(submodules_are_refused_or_left_empty),
        cmocka_unit_test(checkouts_abandoned_by_a_killed_process_are_removed),
        cmocka_unit_test(remove_all_empties_the_registry_and_handles_stay_removable),
        cmocka_unit_test(the_users_repository_is_unchanged_byte_for_byte),
    };
    return cmocka_run_group_tests(tests, setup_repo, teardown_repo);
}
