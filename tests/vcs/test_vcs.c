/* Tests of framework/vcs: HEAD's sha, branch and dirty flag, read from throw-away
 * repositories made with the git command line, and the not-a-repository cases. */
#include "support/test.h"

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

static void outside_a_repository_is_not_found(void **state)
{
    culprit_vcs_head head;
    char tmpl[PATH_MAX];
    (void)state;

    assert_int_equal(test_tmpdir_make(tmpl, sizeof(tmpl), "vcs-none"), 0);
    assert_int_equal(culprit_vcs_head_describe(&head, tmpl), CULPRIT_ENOTFOUND);
    assert_non_null(strstr(culprit_error_last(), tmpl));
    assert_null(head.branch);

    /* A repository without a commit has no HEAD to record either. */
    run(GIT " init -q '%s'", tmpl);
    assert_int_equal(culprit_vcs_head_describe(&head, tmpl), CULPRIT_ENOTFOUND);
    assert_non_null(strstr(culprit_error_last(), "no commit"));
    assert_int_equal(test_tmpdir_remove(tmpl), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(head_of_a_clean_tree),
        cmocka_unit_test(dirty_when_tracked_files_change),
        cmocka_unit_test(index_on_disk_is_not_written),
        cmocka_unit_test(detached_head_has_no_branch),
        cmocka_unit_test(outside_a_repository_is_not_found),
    };
    return cmocka_run_group_tests(tests, setup_repo, teardown_repo);
}
