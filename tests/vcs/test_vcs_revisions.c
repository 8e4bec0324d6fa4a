/* Tests of the repository handle of framework/vcs: revision resolution (every kind
 * git rev-parse accepts, and the errors that suggest near names), first-parent
 * history, ancestry and commit facts, on a throw-away repository with a merge,
 * lightweight and annotated tags and several branches. Expected values come from
 * the git command line, not from libgit2. Last, a check that none of it wrote to
 * the repository. */
#include "support/test.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "culprit/core.h"
#include "culprit/vcs.h"
#include "support/git_fixture.h"
#include "support/tmpdir.h"

/*
 * The repository (newest on top; HEAD is main):
 *
 *   c4  "fourth"            main, tag v1.0 (annotated)
 *   m   merge of feature    (first parent c3, second parent f2)
 *   |\
 *   | f2 "feature two"     feature
 *   | f1 "feature one"
 *   c3 |  "third"           maint; author date 1700000000 -0530
 *   |/
 *   c2  "second: ..."       tag v0.1 (lightweight), release/1.x; by Ada Lovelace
 *   c1  "first"
 *
 * plus "treetag", a lightweight tag of c4's tree. Part of the refs are packed, part
 * loose, as in a real repository after a gc.
 */
static char repo[PATH_MAX];
static char c1[41], c2[41], c3[41], f1[41], f2[41], m[41], c4[41];

static void rev_parse(char *out, const char *rev)
{
    /* Peeled in a second step: ":/text^{commit}" would search for "text^{commit}". */
    output_of(
        out, 41,
        "git -C '%s' rev-parse --verify -q \"$(git -C '%s' rev-parse --verify -q '%s')^{commit}\"",
        repo, repo, rev);
}

static void commit_file(const char *file, const char *text, const char *args)
{
    write_file(repo, file, text);
    run(GIT " -C '%s' add '%s' && " GIT " -C '%s' commit -q %s", repo, file, repo, args);
}

static int setup_repo(void **state)
{
    (void)state;
    if (test_tmpdir_make(repo, sizeof(repo), "vcs-revs") < 0)
        return -1;
    run(GIT " init -q '%s'", repo);
    run("mkdir -p '%s/src/deep'", repo);
    commit_file("a.c", "int a;\n", "-m first");
    commit_file("a.c", "int a = 2;\n",
                "--author='Ada Lovelace <ada@example.org>' "
                "--date='1709287200 +0200' -m 'second: faster loop' -m 'The body.'");
    run(GIT " -C '%s' tag v0.1 && " GIT " -C '%s' branch release/1.x", repo, repo);
    run(GIT " -C '%s' pack-refs --all", repo);

    run(GIT " -C '%s' checkout -q -b feature", repo);
    commit_file("f.c", "int f;\n", "-m 'feature one'");
    commit_file("f.c", "int f = 2;\n", "-m 'feature two'");
    run(GIT " -C '%s' checkout -q main", repo);
    commit_file("a.c", "int a = 3;\n", "--date='1700000000 -0530' -m 'third  ' ");
    run(GIT " -C '%s' branch maint", repo);
    run(GIT " -C '%s' merge -q --no-ff -m \"Merge branch 'feature'\" feature", repo);
    commit_file("a.c", "int a = 4;\n", "-m fourth");
    run(GIT " -C '%s' tag -a v1.0 -m 'release 1.0'", repo);
    run(GIT " -C '%s' tag treetag 'HEAD^{tree}'", repo);

    rev_parse(c1, "main~4");
    rev_parse(c2, "main~3");
    rev_parse(c3, "main~2");
    rev_parse(f1, "feature~1");
    rev_parse(f2, "feature");
    rev_parse(m, "main~1");
    rev_parse(c4, "main");
    return 0;
}

static int teardown_repo(void **state)
{
    (void)state;
    return test_tmpdir_remove(repo);
}

static culprit_vcs *open_repo(void)
{
    culprit_vcs *vcs = NULL;
    assert_int_equal(culprit_vcs_open(&vcs, repo), 0);
    assert_non_null(vcs);
    return vcs;
}

/* ------------------------------------------------------------------------------
 * Opening
 * --------------------------------------------------------------------------- */

static void open_finds_the_repository_from_a_subdirectory(void **state)
{
    culprit_vcs *vcs = NULL;
    char sub[PATH_MAX + 32];
    (void)state;

    snprintf(sub, sizeof(sub), "%s/src/deep", repo);
    assert_int_equal(culprit_vcs_open(&vcs, sub), 0);
    assert_string_equal(culprit_vcs_workdir(vcs), repo);
    culprit_vcs_free(vcs);
    culprit_vcs_free(NULL); /* harmless */
}

static void open_outside_a_repository_is_not_found(void **state)
{
    culprit_vcs *vcs = (culprit_vcs *)&vcs; /* must be reset to NULL */
    char dir[PATH_MAX];
    (void)state;

    assert_int_equal(test_tmpdir_make(dir, sizeof(dir), "vcs-none"), 0);
    assert_int_equal(culprit_vcs_open(&vcs, dir), CULPRIT_ENOTFOUND);
    assert_null(vcs);
    assert_non_null(strstr(culprit_error_last(), dir));
    assert_non_null(strstr(culprit_error_last(), "not in a git repository"));
    assert_int_equal(test_tmpdir_remove(dir), 0);
}

static void empty_and_bare_repositories_open(void **state)
{
    culprit_vcs *vcs = NULL;
    char dir[PATH_MAX], sha[41], bare[PATH_MAX + 16];
    (void)state;

    /* A repository without a commit opens; HEAD names nothing yet. */
    assert_int_equal(test_tmpdir_make(dir, sizeof(dir), "vcs-empty"), 0);
    run(GIT " init -q '%s'", dir);
    assert_int_equal(culprit_vcs_open(&vcs, dir), 0);
    assert_int_equal(culprit_vcs_resolve(sha, vcs, "HEAD"), CULPRIT_ENOTFOUND);
    assert_string_equal(culprit_error_last(),
                        "unknown revision 'HEAD': the repository has no commit yet");
    culprit_vcs_free(vcs);

    /* A bare repository has revisions but no working tree. */
    snprintf(bare, sizeof(bare), "%s/bare.git", dir);
    run(GIT " clone -q --bare '%s' '%s'", repo, bare);
    assert_int_equal(culprit_vcs_open(&vcs, bare), 0);
    assert_null(culprit_vcs_workdir(vcs));
    assert_int_equal(culprit_vcs_resolve(sha, vcs, "v1.0"), 0);
    assert_string_equal(sha, c4);
    culprit_vcs_free(vcs);
    assert_int_equal(test_tmpdir_remove(dir), 0);
}

/* ------------------------------------------------------------------------------
 * Resolution
 * --------------------------------------------------------------------------- */

static void resolves_every_kind_of_revision(void **state)
{
    /* Not ":/text": it works, but libgit2 1.5 leaks a pcre2 match block for every
     * commit it does not match (libgit2 PR #6382), which fails the ASan build. */
    static const char *const revs[] = {
        "HEAD",          "@",           "main",      "refs/heads/main", "heads/main", "feature",
        "maint",         "release/1.x", "v0.1",      "refs/tags/v0.1",  "v1.0",       "v1.0^{}",
        "v1.0^{commit}", "v1.0~1",      "HEAD^",     "HEAD~1",          "HEAD~3",     "main^1",
        "main~1^2",      "main~1^2~1",  "HEAD~1^2^", "main@{0}",        "HEAD@{1}",   "feature^0",
    };
    culprit_vcs *vcs = open_repo();
    char expected[41], sha[41], describe[128], abbrev[41];
    size_t i;
    (void)state;

    for (i = 0; i < sizeof(revs) / sizeof(revs[0]); i++) {
        rev_parse(expected, revs[i]);
        if (culprit_vcs_resolve(sha, vcs, revs[i]) != 0)
            fail_msg("'%s': %s", revs[i], culprit_error_last());
        if (strcmp(sha, expected) != 0)
            fail_msg("'%s' resolved to %s, git says %s", revs[i], sha, expected);
    }

    /* Full and abbreviated ids. */
    assert_int_equal(culprit_vcs_resolve(sha, vcs, c3), 0);
    assert_string_equal(sha, c3);
    snprintf(abbrev, sizeof(abbrev), "%.12s", f1);
    assert_int_equal(culprit_vcs_resolve(sha, vcs, abbrev), 0);
    assert_string_equal(sha, f1);
    snprintf(abbrev, sizeof(abbrev), "%.7s~1", m);
    assert_int_equal(culprit_vcs_resolve(sha, vcs, abbrev), 0);
    assert_string_equal(sha, c3);

    /* What git describe prints names a commit too. */
    output_of(describe, sizeof(describe), "git -C '%s' describe --tags --long feature", repo);
    assert_int_equal(culprit_vcs_resolve(sha, vcs, describe), 0);
    assert_string_equal(sha, f2);
    culprit_vcs_free(vcs);
}

static void unknown_revision_names_it_and_suggests_near_names(void **state)
{
    culprit_vcs *vcs = open_repo();
    char sha[41];
    (void)state;

    /* The motivating typo: two letters swapped. */
    assert_int_equal(culprit_vcs_resolve(sha, vcs, "mian"), CULPRIT_ENOTFOUND);
    assert_string_equal(sha, "");
    assert_string_equal(culprit_error_last(), "unknown revision 'mian'; did you mean 'main'?");

    /* The name part is what is compared; the message still names what was typed. */
    assert_int_equal(culprit_vcs_resolve(sha, vcs, "mian~2"), CULPRIT_ENOTFOUND);
    assert_string_equal(culprit_error_last(), "unknown revision 'mian~2'; did you mean 'main'?");

    /* A prefix completes; several matches are listed closest first. */
    assert_int_equal(culprit_vcs_resolve(sha, vcs, "featur"), CULPRIT_ENOTFOUND);
    assert_string_equal(culprit_error_last(), "unknown revision 'featur'; did you mean 'feature'?");
    assert_int_equal(culprit_vcs_resolve(sha, vcs, "v1.1"), CULPRIT_ENOTFOUND);
    assert_string_equal(culprit_error_last(),
                        "unknown revision 'v1.1'; did you mean one of 'v0.1', 'v1.0'?");

    /* Nothing close. */
    assert_int_equal(culprit_vcs_resolve(sha, vcs, "zzzzzzzz"), CULPRIT_ENOTFOUND);
    assert_string_equal(culprit_error_last(),
                        "unknown revision 'zzzzzzzz': no commit, branch or tag of that name");

    /* A known name whose suffix leads past the root, or to a parent it lacks. */
    assert_int_equal(culprit_vcs_resolve(sha, vcs, "main~99"), CULPRIT_ENOTFOUND);
    assert_string_equal(
        culprit_error_last(),
        "unknown revision 'main~99': 'main' exists, but '~99' names nothing from it");
    assert_int_equal(culprit_vcs_resolve(sha, vcs, "maint^2"), CULPRIT_ENOTFOUND);
    assert_non_null(strstr(culprit_error_last(), "'maint' exists"));
    culprit_vcs_free(vcs);
}

static void near_refs_lists_close_names_closest_first(void **state)
{
    culprit_vcs *vcs = open_repo();
    char **names = NULL;
    size_t n = 99;
    (void)state;

    assert_int_equal(culprit_vcs_near_refs(&names, &n, vcs, "mian", 0), 0);
    assert_int_equal(n, 1);
    assert_string_equal(names[0], "main");
    assert_null(names[1]);
    culprit_vcs_names_free(names);

    /* "ma" completes to both; "main" needs fewer letters. */
    assert_int_equal(culprit_vcs_near_refs(&names, &n, vcs, "ma", 0), 0);
    assert_int_equal(n, 2);
    assert_string_equal(names[0], "main");
    assert_string_equal(names[1], "maint");
    culprit_vcs_names_free(names);
    assert_int_equal(culprit_vcs_near_refs(&names, &n, vcs, "ma", 1), 0);
    assert_int_equal(n, 1);
    assert_string_equal(names[0], "main");
    culprit_vcs_names_free(names);

    /* Case is ignored; full ref names are compared with full names; packed refs
     * (release/1.x) count as loose ones do. */
    assert_int_equal(culprit_vcs_near_refs(&names, &n, vcs, "MAIN", 1), 0);
    assert_int_equal(n, 1);
    assert_string_equal(names[0], "main");
    culprit_vcs_names_free(names);
    assert_int_equal(culprit_vcs_near_refs(&names, &n, vcs, "refs/heads/mian", 0), 0);
    assert_int_equal(n, 2); /* a long name allows more typos */
    assert_string_equal(names[0], "refs/heads/main");
    assert_string_equal(names[1], "refs/heads/maint");
    culprit_vcs_names_free(names);
    assert_int_equal(culprit_vcs_near_refs(&names, &n, vcs, "release/1.y", 0), 0);
    assert_int_equal(n, 1);
    assert_string_equal(names[0], "release/1.x");
    culprit_vcs_names_free(names);

    /* Nothing close: an empty, NULL-terminated array. */
    assert_int_equal(culprit_vcs_near_refs(&names, &n, vcs, "~3", 0), 0);
    assert_int_equal(n, 0);
    assert_null(names[0]);
    culprit_vcs_names_free(names);
    culprit_vcs_names_free(NULL);
    culprit_vcs_free(vcs);
}

static void non_commits_and_ranges_are_invalid(void **state)
{
    culprit_vcs *vcs = open_repo();
    char sha[41];
    (void)state;

    assert_int_equal(culprit_vcs_resolve(sha, vcs, "treetag"), CULPRIT_EINVALID);
    assert_string_equal(culprit_error_last(), "revision 'treetag' names a tree, not a commit");
    assert_int_equal(culprit_vcs_resolve(sha, vcs, "HEAD:a.c"), CULPRIT_EINVALID);
    assert_string_equal(culprit_error_last(), "revision 'HEAD:a.c' names a blob, not a commit");
    assert_int_equal(culprit_vcs_resolve(sha, vcs, "main..feature"), CULPRIT_EINVALID);
    assert_string_equal(culprit_error_last(), "'main..feature' is a range, not a single revision");
    assert_int_equal(culprit_vcs_resolve(sha, vcs, ""), CULPRIT_EINVALID);
    culprit_vcs_free(vcs);
}

/* Enough objects that two ids share their first four hex digits (libgit2's shortest
 * abbreviation). The blob contents are fixed, so the collision found is the same on
 * every run; 2000 objects make one all but certain (birthday bound: 1 - e^-30). */
static void ambiguous_abbreviation_is_invalid(void **state)
{
    char dir[PATH_MAX], path[PATH_MAX + 16], prefix[16];
    culprit_vcs *vcs = NULL;
    char sha[41];
    (void)state;

    assert_int_equal(test_tmpdir_make(dir, sizeof(dir), "vcs-ambiguous"), 0);
    run(GIT " init -q '%s/repo' && mkdir '%s/blobs' && cd '%s/blobs' && "
            "for i in $(seq 2000); do echo \"blob $i\" > $i; done && "
            "ls | " GIT " --git-dir=../repo/.git hash-object -w --stdin-paths > ../ids",
        dir, dir, dir);
    output_of(prefix, sizeof(prefix), "cut -c1-4 '%s/ids' | sort | uniq -d | head -n 1", dir);
    assert_int_equal(strlen(prefix), 4);

    snprintf(path, sizeof(path), "%s/repo", dir);
    assert_int_equal(culprit_vcs_open(&vcs, path), 0);
    assert_int_equal(culprit_vcs_resolve(sha, vcs, prefix), CULPRIT_EINVALID);
    assert_non_null(strstr(culprit_error_last(), "ambiguous"));
    assert_non_null(strstr(culprit_error_last(), prefix));
    culprit_vcs_free(vcs);
    assert_int_equal(test_tmpdir_remove(dir), 0);
}

/* ------------------------------------------------------------------------------
 * History
 * --------------------------------------------------------------------------- */

static void first_parents_follow_the_mainline_newest_first(void **state)
{
    culprit_vcs *vcs = open_repo();
    char(*shas)[41] = NULL;
    char *git_list;
    size_t n = 0;
    (void)state;

    assert_int_equal(culprit_vcs_first_parents(&shas, &n, vcs, c4, 0), 0);
    assert_int_equal(n, 5);
    assert_string_equal(shas[0], c4);
    assert_string_equal(shas[1], m);
    assert_string_equal(shas[2], c3); /* not f2: the merged branch is left out */
    assert_string_equal(shas[3], c2);
    assert_string_equal(shas[4], c1);
    free(shas);

    /* The same list as git's, which the full history (7 commits) is not. */
    git_list = all_output_of("git -C '%s' rev-list --first-parent %s", repo, c4);
    {
        char expected[5 * 41 + 1];
        snprintf(expected, sizeof(expected), "%s\n%s\n%s\n%s\n%s\n", c4, m, c3, c2, c1);
        assert_string_equal(git_list, expected);
    }
    free(git_list);
    git_list = all_output_of("git -C '%s' rev-list --count %s", repo, c4);
    assert_string_equal(git_list, "7\n");
    free(git_list);

    /* At most max, from the start. */
    assert_int_equal(culprit_vcs_first_parents(&shas, &n, vcs, c4, 2), 0);
    assert_int_equal(n, 2);
    assert_string_equal(shas[0], c4);
    assert_string_equal(shas[1], m);
    free(shas);
    assert_int_equal(culprit_vcs_first_parents(&shas, &n, vcs, c4, 100), 0);
    assert_int_equal(n, 5);
    free(shas);

    /* From a side branch: its own chain down to where it forked, then below. */
    assert_int_equal(culprit_vcs_first_parents(&shas, &n, vcs, f2, 0), 0);
    assert_int_equal(n, 4);
    assert_string_equal(shas[0], f2);
    assert_string_equal(shas[1], f1);
    assert_string_equal(shas[2], c2);
    assert_string_equal(shas[3], c1);
    free(shas);
    assert_int_equal(culprit_vcs_first_parents(&shas, &n, vcs, c1, 0), 0);
    assert_int_equal(n, 1);
    free(shas);
    culprit_vcs_free(vcs);
}

/* A depth-2 clone of the mainline (c4, m) is cut at m: the walk stops there and
 * says so, the strict walk names the boundary and the fetch, a full clone is not
 * cut, and a max that stops before the boundary is no cut. */
static void first_parents_stop_at_a_shallow_boundary(void **state)
{
    char shallow[PATH_MAX + 16], (*shas)[41] = NULL;
    culprit_vcs *vcs = open_repo(), *clone = NULL;
    size_t n = 0;
    int cut = -1;
    (void)state;

    snprintf(shallow, sizeof(shallow), "%s-shallow", repo);
    run("rm -rf '%s' && git clone -q --depth 2 --branch main 'file://%s' '%s'", shallow, repo,
        shallow);
    assert_int_equal(culprit_vcs_open(&clone, shallow), 0);
    assert_int_equal(culprit_vcs_is_shallow(clone), 1);
    assert_int_equal(culprit_vcs_is_shallow(vcs), 0);

    assert_int_equal(culprit_vcs_first_parents_cut(&shas, &n, &cut, clone, c4, 0), 0);
    assert_int_equal(n, 2);
    assert_int_equal(cut, 1);
    assert_string_equal(shas[0], c4);
    assert_string_equal(shas[1], m);
    free(shas);
    assert_int_equal(culprit_vcs_first_parents_cut(&shas, &n, &cut, clone, c4, 1), 0);
    assert_int_equal(cut, 0);
    free(shas);
    assert_int_equal(culprit_vcs_first_parents(&shas, &n, clone, c4, 0), CULPRIT_ERROR);
    assert_null(shas);
    assert_non_null(strstr(culprit_error_last(), "shallow"));
    assert_non_null(strstr(culprit_error_last(), "git fetch --deepen=N"));
    assert_null(strstr(culprit_error_last(), "object not found"));

    assert_int_equal(culprit_vcs_first_parents_cut(&shas, &n, &cut, vcs, c4, 0), 0);
    assert_int_equal(n, 5);
    assert_int_equal(cut, 0);
    free(shas);
    culprit_vcs_free(clone);
    culprit_vcs_free(vcs);
    run("rm -rf '%s'", shallow);
}

static void history_functions_want_full_ids_of_commits(void **state)
{
    culprit_vcs *vcs = open_repo();
    char(*shas)[41] = (char(*)[41])1;
    char tree[41], abbrev[16];
    size_t n = 1;
    int is = -1;
    culprit_vcs_commit info;
    (void)state;

    snprintf(abbrev, sizeof(abbrev), "%.12s", c4);
    assert_int_equal(culprit_vcs_first_parents(&shas, &n, vcs, abbrev, 0), CULPRIT_EINVALID);
    assert_null(shas);
    assert_int_equal(n, 0);
    assert_non_null(strstr(culprit_error_last(), abbrev));
    assert_int_equal(culprit_vcs_first_parents(&shas, &n, vcs, "main", 0), CULPRIT_EINVALID);
    assert_int_equal(
        culprit_vcs_first_parents(&shas, &n, vcs, "0123456789012345678901234567890123456789", 0),
        CULPRIT_ENOTFOUND);
    assert_non_null(strstr(culprit_error_last(), "0123456789012345678901234567890123456789"));

    /* A tree's id is well formed but not a commit's. */
    output_of(tree, sizeof(tree), "git -C '%s' rev-parse 'HEAD^{tree}'", repo);
    assert_int_equal(culprit_vcs_first_parents(&shas, &n, vcs, tree, 0), CULPRIT_ENOTFOUND);
    assert_int_equal(culprit_vcs_is_ancestor(&is, vcs, tree, c4), CULPRIT_ENOTFOUND);
    assert_int_equal(culprit_vcs_is_ancestor(&is, vcs, c4, "xyz"), CULPRIT_EINVALID);
    assert_int_equal(culprit_vcs_commit_info(&info, vcs, tree), CULPRIT_ENOTFOUND);
    assert_null(info.subject);
    culprit_vcs_free(vcs);
}

static void is_ancestor_through_any_parent_and_of_itself(void **state)
{
    culprit_vcs *vcs = open_repo();
    int is = -1;
    (void)state;

    assert_int_equal(culprit_vcs_is_ancestor(&is, vcs, c1, c4), 0);
    assert_int_equal(is, 1);
    assert_int_equal(culprit_vcs_is_ancestor(&is, vcs, c4, c1), 0);
    assert_int_equal(is, 0);
    /* Through the merge's second parent, off the first-parent chain. */
    assert_int_equal(culprit_vcs_is_ancestor(&is, vcs, f1, c4), 0);
    assert_int_equal(is, 1);
    /* Siblings are not ancestors of each other. */
    assert_int_equal(culprit_vcs_is_ancestor(&is, vcs, f1, c3), 0);
    assert_int_equal(is, 0);
    assert_int_equal(culprit_vcs_is_ancestor(&is, vcs, c3, f1), 0);
    assert_int_equal(is, 0);
    /* A commit counts as its own ancestor, as with git merge-base --is-ancestor. */
    assert_int_equal(culprit_vcs_is_ancestor(&is, vcs, m, m), 0);
    assert_int_equal(is, 1);
    culprit_vcs_free(vcs);
}

/* ------------------------------------------------------------------------------
 * Commit facts
 * --------------------------------------------------------------------------- */

static void commit_info_has_subject_author_and_date(void **state)
{
    culprit_vcs *vcs = open_repo();
    culprit_vcs_commit info;
    char iso[64], epoch[32];
    (void)state;

    assert_int_equal(culprit_vcs_commit_info(&info, vcs, c2), 0);
    assert_string_equal(info.sha, c2);
    assert_string_equal(info.subject, "second: faster loop"); /* not the body */
    assert_string_equal(info.author_name, "Ada Lovelace");
    assert_string_equal(info.author_email, "ada@example.org");
    assert_int_equal(info.author_time, 1709287200);
    assert_int_equal(info.author_offset, 120);
    assert_string_equal(info.author_date, "2024-03-01T12:00:00+02:00");
    culprit_vcs_commit_dispose(&info);
    culprit_vcs_commit_dispose(&info); /* twice is harmless */
    culprit_vcs_commit_dispose(NULL);

    /* A zone west of UTC with minutes; trailing blanks of the subject dropped. */
    assert_int_equal(culprit_vcs_commit_info(&info, vcs, c3), 0);
    assert_string_equal(info.subject, "third");
    assert_string_equal(info.author_name, "culprit");
    assert_string_equal(info.author_email, "culprit@example.invalid");
    output_of(iso, sizeof(iso), "git -C '%s' log -1 --format=%%aI %s", repo, c3);
    output_of(epoch, sizeof(epoch), "git -C '%s' log -1 --format=%%at %s", repo, c3);
    assert_string_equal(info.author_date, iso);
    assert_string_equal(info.author_date, "2023-11-14T16:43:20-05:30");
    assert_int_equal(info.author_time, strtoll(epoch, NULL, 10));
    assert_int_equal(info.author_offset, -330);
    culprit_vcs_commit_dispose(&info);

    assert_int_equal(culprit_vcs_commit_info(&info, vcs, m), 0);
    assert_string_equal(info.subject, "Merge branch 'feature'");
    culprit_vcs_commit_dispose(&info);
    culprit_vcs_free(vcs);
}

/* ------------------------------------------------------------------------------
 * Read-only
 * --------------------------------------------------------------------------- */

/* Every file of the repository but the objects, with its checksum, plus the index's
 * inode and modification time: what a write of the index, HEAD, a ref, a reflog or
 * the working tree would change. */
static char *snapshot(void)
{
    return all_output_of("cd '%s' && find . -path ./.git/objects -prune -o -type f -print | "
                         "LC_ALL=C sort | xargs sha1sum && stat -c '%%n %%i %%Y %%y' .git/index",
                         repo);
}

static void read_file_gives_the_content_a_commit_has(void **state)
{
    culprit_vcs *vcs = open_repo();
    culprit_buf text = CULPRIT_BUF_INIT;
    (void)state;

    assert_int_equal(culprit_vcs_read_file(&text, vcs, c2, "a.c"), 0);
    assert_string_equal(culprit_buf_cstr(&text), "int a = 2;\n"); /* not the working tree's */
    culprit_buf_clear(&text);
    assert_int_equal(culprit_vcs_read_file(&text, vcs, c2, "f.c"), CULPRIT_ENOTFOUND);
    assert_non_null(strstr(culprit_error_last(), "no file 'f.c' in commit"));
    assert_int_equal(culprit_vcs_read_file(&text, vcs, c2, "src"), CULPRIT_ENOTFOUND);
    assert_int_equal(culprit_vcs_read_file(&text, vcs, "nothex", "a.c"), CULPRIT_EINVALID);
    assert_int_equal(text.size, 0);
    culprit_buf_dispose(&text);
    culprit_vcs_free(vcs);
}

static void nothing_is_written_to_the_repository(void **state)
{
    static const char *const revs[] = {"HEAD", "main",    "v1.0",   "HEAD~1^2",
                                       "mian", "main~99", "treetag"};
    culprit_vcs *vcs = NULL;
    culprit_vcs_commit info;
    char(*shas)[41];
    char sha[41], **names, *before, *after;
    size_t i, n;
    int is;
    (void)state;

    /* A file whose stat data no longer matches the index: an operation that
     * refreshed the index would now rewrite it. */
    run("sleep 1 && touch '%s/a.c'", repo);
    before = snapshot();

    assert_int_equal(culprit_vcs_open(&vcs, repo), 0);
    for (i = 0; i < sizeof(revs) / sizeof(revs[0]); i++)
        (void)culprit_vcs_resolve(sha, vcs, revs[i]);
    assert_int_equal(culprit_vcs_near_refs(&names, &n, vcs, "ma", 0), 0);
    culprit_vcs_names_free(names);
    assert_int_equal(culprit_vcs_first_parents(&shas, &n, vcs, c4, 0), 0);
    free(shas);
    assert_int_equal(culprit_vcs_is_ancestor(&is, vcs, f1, c4), 0);
    assert_int_equal(culprit_vcs_commit_info(&info, vcs, m), 0);
    culprit_vcs_commit_dispose(&info);
    culprit_vcs_free(vcs);

    after = snapshot();
    assert_string_equal(before, after);
    free(before);
    free(after);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(open_finds_the_repository_from_a_subdirectory),
        cmocka_unit_test(open_outside_a_repository_is_not_found),
        cmocka_unit_test(empty_and_bare_repositories_open),
        cmocka_unit_test(resolves_every_kind_of_revision),
        cmocka_unit_test(unknown_revision_names_it_and_suggests_near_names),
        cmocka_unit_test(near_refs_lists_close_names_closest_first),
        cmocka_unit_test(non_commits_and_ranges_are_invalid),
        cmocka_unit_test(ambiguous_abbreviation_is_invalid),
        cmocka_unit_test(first_parents_follow_the_mainline_newest_first),
        cmocka_unit_test(first_parents_stop_at_a_shallow_boundary),
        cmocka_unit_test(history_functions_want_full_ids_of_commits),
        cmocka_unit_test(is_ancestor_through_any_parent_and_of_itself),
        cmocka_unit_test(commit_info_has_subject_author_and_date),
        cmocka_unit_test(read_file_gives_the_content_a_commit_has),
        cmocka_unit_test(nothing_is_written_to_the_repository),
    };
    return cmocka_run_group_tests(tests, setup_repo, teardown_repo);
}
