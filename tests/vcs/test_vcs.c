/* Tests of framework/vcs: HEAD's sha, branch and dirty flag, read from throw-away
 * repositories made with the git command line, and the not-a-repository cases. */
#include "support/test.h"

#include <git2.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "culprit/core.h"
#include "culprit/vcs.h"
#include "support/git_fixture.h"
#include "support/tmpdir.h"

static char repo[PATH_MAX];

/* A fresh repository with one commit on "main", in a directory of its own. */
static int setup_repo(void **state)
{
    (void)state;
    if (test_tmpdir_make(repo, sizeof(repo), "vcs") < 0)
        return -1;
    run(GIT " init -q '%s'", repo);
    run("mkdir -p '%s/src/deep'", repo);
    write_file(repo, "src/a.c", "int a;\n");
    run(GIT " -C '%s' add src/a.c && " GIT " -C '%s' commit -q -m first", repo, repo);
    return 0;
}

static int teardown_repo(void **state)
{
    (void)state;
    return test_tmpdir_remove(repo);
}

static void head_of_a_clean_tree(void **state)
{
    culprit_vcs_head head;
    char sha[64], sub[PATH_MAX + 64];
    (void)state;

    output_of(sha, sizeof(sha), "git -C '%s' rev-parse HEAD", repo);
    /* Found from a subdirectory, as git finds it. */
    snprintf(sub, sizeof(sub), "%s/src/deep", repo);
    assert_int_equal(culprit_vcs_head_describe(&head, sub), 0);
    assert_string_equal(head.sha, sha);
    assert_int_equal(strlen(head.sha), 40);
    assert_string_equal(head.branch, "main");
    assert_int_equal(head.dirty, 0);
    assert_string_equal(head.workdir, repo);
    culprit_vcs_head_dispose(&head);
    culprit_vcs_head_dispose(&head); /* twice is harmless */
    culprit_vcs_head_dispose(NULL);
}

static void dirty_when_tracked_files_change(void **state)
{
    culprit_vcs_head head;
    (void)state;

    write_file(repo, "src/a.c", "int a = 1;\n"); /* modified, not staged */
    assert_int_equal(culprit_vcs_head_describe(&head, repo), 0);
    assert_int_equal(head.dirty, 1);
    culprit_vcs_head_dispose(&head);

    run(GIT " -C '%s' add src/a.c", repo); /* staged */
    assert_int_equal(culprit_vcs_head_describe(&head, repo), 0);
    assert_int_equal(head.dirty, 1);
    culprit_vcs_head_dispose(&head);

    run(GIT " -C '%s' reset -q --hard", repo); /* clean again */
    assert_int_equal(culprit_vcs_head_describe(&head, repo), 0);
    assert_int_equal(head.dirty, 0);
    culprit_vcs_head_dispose(&head);

    /* Untracked files do not count (docs: culprit's own history dir would otherwise). */
    write_file(repo, "untracked.txt", "x\n");
    assert_int_equal(culprit_vcs_head_describe(&head, repo), 0);
    assert_int_equal(head.dirty, 0);
    culprit_vcs_head_dispose(&head);
    run("rm -f '%s/untracked.txt'", repo);
}

static void index_on_disk_is_not_written(void **state)
{
    culprit_vcs_head head;
    char index[PATH_MAX + 64];
    struct stat before, after;
    (void)state;

    /* A touched file makes a refreshing status rewrite the index; ours must not. */
    snprintf(index, sizeof(index), "%s/.git/index", repo);
    sleep(1);
    run("touch '%s/src/a.c'", repo);
    assert_int_equal(stat(index, &before), 0);
    assert_int_equal(culprit_vcs_head_describe(&head, repo), 0);
    assert_int_equal(head.dirty, 0);
    culprit_vcs_head_dispose(&head);
    assert_int_equal(stat(index, &after), 0);
    assert_int_equal(before.st_mtim.tv_sec, after.st_mtim.tv_sec);
    assert_int_equal(before.st_mtim.tv_nsec, after.st_mtim.tv_nsec);
    assert_int_equal(before.st_ino, after.st_ino);
}

static void detached_head_has_no_branch(void **state)
{
    culprit_vcs_head head;
    (void)state;

    run(GIT " -C '%s' checkout -q --detach", repo);
    assert_int_equal(culprit_vcs_head_describe(&head, repo), 0);
    assert_null(head.branch);
    assert_int_equal(strlen(head.sha), 40);
    culprit_vcs_head_dispose(&head);
    run(GIT " -C '%s' checkout -q main", repo);
}

/* With the commit given ($CULPRIT_COMMIT), a run needs only the work tree and the
 * branch: read from .git and HEAD as describe finds them, without libgit2. */
static void located_as_described_without_libgit2(void **state)
{
    culprit_vcs_head head, described;
    char sub[PATH_MAX + 128], wt[PATH_MAX + 64];
    (void)state;

    snprintf(sub, sizeof(sub), "%s/src/deep", repo);
    assert_int_equal(culprit_vcs_head_locate(&head, sub), 0);
    assert_int_equal(culprit_vcs_head_describe(&described, sub), 0);
    assert_string_equal(head.workdir, described.workdir);
    assert_string_equal(head.branch, described.branch);
    assert_string_equal(head.sha, ""); /* given, not read */
    assert_int_equal(head.dirty, 0);
    culprit_vcs_head_dispose(&head);
    culprit_vcs_head_dispose(&described);

    run(GIT " -C '%s' checkout -q --detach", repo);
    assert_int_equal(culprit_vcs_head_locate(&head, repo), 0);
    assert_null(head.branch);
    culprit_vcs_head_dispose(&head);
    run(GIT " -C '%s' checkout -q main", repo);

    /* A linked worktree: its .git is a file naming its git directory. */
    snprintf(wt, sizeof(wt), "%s/wt", repo);
    run(GIT " -C '%s' worktree add -q -b side '%s'", repo, wt);
    snprintf(sub, sizeof(sub), "%s/src", wt);
    assert_int_equal(culprit_vcs_head_locate(&head, sub), 0);
    assert_string_equal(head.workdir, wt);
    assert_string_equal(head.branch, "side");
    culprit_vcs_head_dispose(&head);
    run(GIT " -C '%s' worktree remove --force '%s'", repo, wt);
}

/* A repository with an extension libgit2 does not know (worktreeConfig for
 * libgit2 1.5) cannot be described, but a run whose commit is given still finds its
 * work tree (its culprit.json). */
static void located_where_libgit2_cannot_open(void **state)
{
    culprit_vcs_head head;
    char other[PATH_MAX], sub[PATH_MAX + 16];
    (void)state;

    assert_int_equal(test_tmpdir_make(other, sizeof(other), "vcs-ext"), 0);
    run(GIT " init -q -b trunk '%s' && mkdir '%s/build'", other, other);
    write_file(other, "a.c", "int a;\n");
    run(GIT " -C '%s' add a.c && " GIT " -C '%s' commit -q -m first", other, other);
    /* libgit2 1.5 refuses it ("unsupported extension name"); git takes it. */
    run(GIT " -C '%s' config core.repositoryformatversion 1 && " GIT
            " -C '%s' config extensions.worktreeConfig true",
        other, other);
    snprintf(sub, sizeof(sub), "%s/build", other);
    assert_int_not_equal(culprit_vcs_head_describe(&head, sub), 0);
    assert_int_equal(culprit_vcs_head_locate(&head, sub), 0);
    assert_string_equal(head.workdir, other);
    assert_string_equal(head.branch, "trunk");
    culprit_vcs_head_dispose(&head);
    assert_int_equal(test_tmpdir_remove(other), 0);
}

static void outside_a_repository_is_not_found(void **state)
{
    culprit_vcs_head head;
    char tmpl[PATH_MAX];
    (void)state;

    assert_int_equal(test_tmpdir_make(tmpl, sizeof(tmpl), "vcs-none"), 0);
    assert_int_equal(culprit_vcs_head_describe(&head, tmpl), CULPRIT_ENOTFOUND);
    assert_non_null(strstr(culprit_error_last(), tmpl));
    assert_null(head.branch);
    assert_int_equal(culprit_vcs_head_locate(&head, tmpl), CULPRIT_ENOTFOUND);
    assert_non_null(strstr(culprit_error_last(), tmpl));
    assert_null(head.workdir);

    /* A repository without a commit has no HEAD to record either. */
    run(GIT " init -q '%s'", tmpl);
    assert_int_equal(culprit_vcs_head_describe(&head, tmpl), CULPRIT_ENOTFOUND);
    assert_non_null(strstr(culprit_error_last(), "no commit"));
    assert_int_equal(test_tmpdir_remove(tmpl), 0);
}

/* libgit2's start parses the system's CA certificates: it is started once for the
 * process, and neither a handle's release nor a describe of HEAD shuts it down (before,
 * the last release did, and the next open started it again). */
static void libgit2_is_started_once(void **state)
{
    culprit_vcs *vcs;
    culprit_vcs_head head;
    int starts;
    (void)state;

    assert_int_equal(culprit_vcs_open(&vcs, repo), 0);
    culprit_vcs_free(vcs);
    assert_int_equal(culprit_vcs_head_describe(&head, repo), 0);
    culprit_vcs_head_dispose(&head);
    /* libgit2 counts its starts: this one and culprit's, still held. */
    starts = git_libgit2_init();
    git_libgit2_shutdown();
    assert_true(starts >= 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(head_of_a_clean_tree),
        cmocka_unit_test(dirty_when_tracked_files_change),
        cmocka_unit_test(index_on_disk_is_not_written),
        cmocka_unit_test(detached_head_has_no_branch),
        cmocka_unit_test(located_as_described_without_libgit2),
        cmocka_unit_test(located_where_libgit2_cannot_open),
        cmocka_unit_test(outside_a_repository_is_not_found),
        cmocka_unit_test(libgit2_is_started_once),
    };
    return cmocka_run_group_tests(tests, setup_repo, teardown_repo);
}
