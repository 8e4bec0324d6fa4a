/* Tests of the shared history's store in a git ref (framework/vcs/refstore.c,
 * remote.c, ancestry.c): files written and read back without touching the working
 * tree, index or HEAD; append-only names (a duplicate is not written twice); the
 * union merge of two diverged stores; a push that the remote rejects because
 * another job pushed first, merged and pushed again with no run lost; and a
 * depth-1 clone whose first-parent walk continues through recorded ancestry.
 * Expected values come from the git command line. */
#include "support/test.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "culprit/core.h"
#include "culprit/vcs.h"
#include "support/git_fixture.h"
#include "support/tmpdir.h"

#define REF CULPRIT_VCS_HISTORY_REF

static char dir[PATH_MAX], repo[PATH_MAX + 8], remote[PATH_MAX + 16];
static char c1[41], c2[41], c3[41];

static int setup(void **state)
{
    (void)state;
    if (test_tmpdir_make(dir, sizeof(dir), "refstore") < 0)
        return -1;
    snprintf(repo, sizeof(repo), "%s/repo", dir);
    snprintf(remote, sizeof(remote), "%s/remote.git", dir);
    run(GIT " init -q '%s' && " GIT " init -q --bare '%s'", repo, remote);
    write_file(repo, "a.c", "int a;\n");
    run(GIT " -C '%s' add a.c && " GIT " -C '%s' commit -q -m first", repo, repo);
    output_of(c1, sizeof(c1), "git -C '%s' rev-parse HEAD", repo);
    run(GIT " -C '%s' commit -q --allow-empty -m second", repo);
    output_of(c2, sizeof(c2), "git -C '%s' rev-parse HEAD", repo);
    run(GIT " -C '%s' commit -q --allow-empty -m 'third: the one measured'", repo);
    output_of(c3, sizeof(c3), "git -C '%s' rev-parse HEAD", repo);
    run(GIT " -C '%s' remote add origin '%s' && " GIT " -C '%s' push -q origin main", repo, remote,
        repo);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_tmpdir_remove(dir);
    return 0;
}

static culprit_vcs *open_at(const char *path)
{
    culprit_vcs *vcs = NULL;
    assert_int_equal(culprit_vcs_open(&vcs, path), 0);
    return vcs;
}

/* The content of `path` in the ref of `where`, as git shows it. */
static char *git_show(const char *where, const char *ref, const char *path)
{
    return all_output_of("git -C '%s' show '%s:%s'", where, ref, path);
}

static void files_are_written_and_read_without_touching_the_checkout(void **state)
{
    culprit_vcs *vcs = open_at(repo);
    const culprit_vcs_file files[] = {{"runs/aa/one.xml", "<one/>", 6, NULL},
                                      {"runs/bb/two.xml", "<two/>", 6, NULL}};
    culprit_vcs_ref_files list;
    culprit_buf data = CULPRIT_BUF_INIT;
    char head[41], *shown, *status;
    size_t added = 0;
    (void)state;

    write_file(repo, "a.c", "int a; /* an edit in progress */\n");
    run("git -C '%s' add a.c", repo);
    assert_int_equal(culprit_vcs_ref_add(&added, vcs, REF, files, 2, "test"), 0);
    assert_int_equal(added, 2);
    shown = git_show(repo, REF, "runs/bb/two.xml");
    assert_string_equal(shown, "<two/>");
    free(shown);

    assert_int_equal(culprit_vcs_ref_list(&list, vcs, REF, "runs"), 0);
    assert_int_equal(list.n, 2);
    assert_string_equal(list.entries[0].path, "runs/aa/one.xml");
    assert_string_equal(list.entries[1].path, "runs/bb/two.xml");
    assert_int_equal(culprit_vcs_blob_read(&data, vcs, list.entries[0].oid, 0), 0);
    assert_int_equal(data.size, 6);
    assert_memory_equal(data.ptr, "<one/>", 6);
    /* A limit: at the size read, one byte below refused from the header. */
    assert_int_equal(culprit_vcs_blob_read(&data, vcs, list.entries[1].oid, 6), 0);
    assert_int_equal(data.size, 12);
    assert_int_equal(culprit_vcs_blob_read(&data, vcs, list.entries[1].oid, 5), CULPRIT_EINVALID);
    assert_non_null(strstr(culprit_error_last(), "6 bytes, over the limit of 5 bytes"));
    assert_int_equal(data.size, 12);
    culprit_vcs_ref_files_dispose(&list);
    culprit_buf_dispose(&data);

    /* HEAD, the index (a staged edit) and the working tree are as they were. */
    output_of(head, sizeof(head), "git -C '%s' rev-parse HEAD", repo);
    assert_string_equal(head, c3);
    status = all_output_of("git -C '%s' status --porcelain", repo);
    assert_string_equal(status, "M  a.c\n");
    free(status);
    run("git -C '%s' reset -q --hard", repo);

    /* A ref that does not exist lists nothing; a bad path is refused. */
    assert_int_equal(culprit_vcs_ref_list(&list, vcs, "refs/culprit/none", NULL), 0);
    assert_int_equal(list.n, 0);
    assert_int_equal(culprit_vcs_ref_add(&added, vcs, REF,
                                         &(culprit_vcs_file){"runs/../x.xml", "x", 1, NULL}, 1,
                                         NULL),
                     CULPRIT_EINVALID);
    assert_int_equal(culprit_vcs_ref_add(&added, vcs, REF,
                                         &(culprit_vcs_file){"runs//x.xml", "x", 1, NULL}, 1, NULL),
                     CULPRIT_EINVALID);
    /* ".." inside a name is a name (a host called "a..b"), not a way up. */
    assert_int_equal(culprit_vcs_ref_add(&added, vcs, REF,
                                         &(culprit_vcs_file){"runs/zz/a..b.xml", "x", 1, NULL}, 1,
                                         NULL),
                     0);
    assert_int_equal(added, 1);
    culprit_vcs_free(vcs);
}

static void a_duplicate_name_is_not_written_twice(void **state)
{
    culprit_vcs *vcs = open_at(repo);
    const culprit_vcs_file files[] = {{"runs/cc/three.xml", "<three/>", 8, NULL},
                                      {"runs/cc/three.xml", "<three/>", 8, NULL},
                                      {"runs/aa/one.xml", "<changed/>", 10, NULL}};
    char before[41], after[41], *shown;
    size_t added = 9;
    (void)state;

    assert_int_equal(culprit_vcs_ref_resolve(before, vcs, REF), 0);
    /* One new file, though named twice; one already there, never rewritten. */
    assert_int_equal(culprit_vcs_ref_add(&added, vcs, REF, files, 3, NULL), 0);
    assert_int_equal(added, 1);
    shown = git_show(repo, REF, "runs/aa/one.xml");
    assert_string_equal(shown, "<one/>");
    free(shown);
    /* Nothing new: no commit. */
    assert_int_equal(culprit_vcs_ref_resolve(before, vcs, REF), 0);
    assert_int_equal(culprit_vcs_ref_add(&added, vcs, REF, files, 3, NULL), 0);
    assert_int_equal(added, 0);
    assert_int_equal(culprit_vcs_ref_resolve(after, vcs, REF), 0);
    assert_string_equal(before, after);
    culprit_vcs_free(vcs);
}

static void diverged_stores_merge_into_their_union(void **state)
{
    culprit_vcs *vcs = open_at(repo);
    culprit_vcs_merge_result res;
    culprit_vcs_ref_files list;
    char *parents;
    (void)state;

    /* refs/culprit/other branches off the store, then both sides add files, and
     * one path is held with two contents (a corruption: ours is kept). */
    run("git -C '%s' update-ref refs/culprit/other %s", repo, REF);
    assert_int_equal(culprit_vcs_ref_add(NULL, vcs, REF,
                                         &(culprit_vcs_file){"runs/dd/ours.xml", "o", 1, NULL}, 1,
                                         NULL),
                     0);
    assert_int_equal(culprit_vcs_ref_add(NULL, vcs, REF,
                                         &(culprit_vcs_file){"runs/ee/both.xml", "1", 1, NULL}, 1,
                                         NULL),
                     0);
    assert_int_equal(culprit_vcs_ref_add(NULL, vcs, "refs/culprit/other",
                                         &(culprit_vcs_file){"runs/dd/theirs.xml", "t", 1, NULL}, 1,
                                         NULL),
                     0);
    assert_int_equal(culprit_vcs_ref_add(NULL, vcs, "refs/culprit/other",
                                         &(culprit_vcs_file){"runs/ee/both.xml", "2", 1, NULL}, 1,
                                         NULL),
                     0);
    assert_int_equal(culprit_vcs_ref_merge(&res, vcs, REF, "refs/culprit/other"), 0);
    assert_int_equal(res.changed, 1);
    assert_int_equal(res.conflicts, 1);
    assert_int_equal(res.added, 1); /* theirs.xml: both.xml was there */
    assert_int_equal(culprit_vcs_ref_list(&list, vcs, REF, "runs"), 0);
    assert_int_equal(list.n, 7); /* one, two, three, a..b, ours, theirs, both */
    culprit_vcs_ref_files_dispose(&list);
    parents = all_output_of("git -C '%s' log -1 --format=%%p %s", repo, REF);
    assert_non_null(strchr(parents, ' ')); /* a merge commit: two parents */
    free(parents);
    /* Merged again: nothing to do. The other side behind: nothing either. */
    assert_int_equal(culprit_vcs_ref_merge(&res, vcs, REF, "refs/culprit/other"), 0);
    assert_int_equal(res.changed, 0);
    /* A store behind fast-forwards. */
    assert_int_equal(culprit_vcs_ref_merge(&res, vcs, "refs/culprit/other", REF), 0);
    assert_int_equal(res.changed, 1);
    assert_int_equal(res.conflicts, 0);
    assert_int_equal(res.added, 1); /* ours.xml */
    run("git -C '%s' update-ref -d refs/culprit/other", repo);
    culprit_vcs_free(vcs);
}

/* What a pull added, by a diff; pre-written blobs; a commit from its abbreviation. */
#define SCRATCH "refs/culprit/scratch"

static void added_files_blobs_and_abbreviated_commits(void **state)
{
    culprit_vcs *vcs = open_at(repo);
    culprit_vcs_ref_files added;
    char before[41], oid[41], sha[41], c12[13];
    culprit_vcs_file file = {"runs/ff/written.xml", NULL, 0, oid};
    (void)state;

    /* On a ref of its own: the push tests below push REF as it is. */
    run("git -C '%s' update-ref " SCRATCH " %s", repo, REF);
    assert_int_equal(culprit_vcs_ref_resolve(before, vcs, SCRATCH), 0);
    assert_int_equal(culprit_vcs_blob_write(oid, vcs, "<w/>", 4), 0);
    assert_int_equal(culprit_vcs_ref_add(NULL, vcs, SCRATCH, &file, 1, NULL), 0);
    assert_int_equal(culprit_vcs_ref_add(NULL, vcs, SCRATCH,
                                         &(culprit_vcs_file){"commits/ff/x", "r", 1, NULL}, 1,
                                         NULL),
                     0);
    assert_int_equal(culprit_vcs_ref_list_added(&added, vcs, SCRATCH, before, "runs"), 0);
    assert_int_equal(added.n, 1);
    assert_string_equal(added.entries[0].path, "runs/ff/written.xml");
    assert_string_equal(added.entries[0].oid, oid);
    culprit_vcs_ref_files_dispose(&added);
    assert_int_equal(culprit_vcs_ref_list_added(&added, vcs, SCRATCH, NULL, NULL), 0);
    assert_true(added.n >= 2); /* from an empty store: everything */
    culprit_vcs_ref_files_dispose(&added);

    memcpy(c12, c3, 12);
    c12[12] = '\0';
    assert_int_equal(culprit_vcs_commit_by_prefix(sha, vcs, c12), 0);
    assert_string_equal(sha, c3);
    assert_int_equal(culprit_vcs_commit_by_prefix(sha, vcs, "0000000000ab"), CULPRIT_ENOTFOUND);
    assert_int_equal(culprit_vcs_commit_by_prefix(sha, vcs, "xyz"), CULPRIT_EINVALID);
    run("git -C '%s' update-ref -d " SCRATCH, repo);
    culprit_vcs_free(vcs);
}

/* The remote's pre-receive hook plays a job that pushes first: the first time, it
 * adds a run of its own to the remote's store, between the remote's advertisement
 * and its update of the ref, so that the remote refuses ours ("failed to update
 * ref"), as it does when two pushes race. */
static void a_rejected_push_is_merged_and_pushed_again(void **state)
{
    culprit_vcs *vcs = open_at(repo);
    culprit_vcs_push_result res;
    culprit_vcs_ref_files list;
    char hook[PATH_MAX + 64], *names;
    (void)state;

    assert_int_equal(culprit_vcs_history_push(&res, vcs, "origin"), 0);
    assert_int_equal(res.attempts, 1);
    snprintf(hook, sizeof(hook), "%s/hooks/pre-receive", remote);
    write_file(
        remote, "hooks/pre-receive",
        "#!/bin/sh\n"
        "cat > /dev/null\n"
        "[ -f other-job ] && exit 0\n"
        "touch other-job\n"
        "unset GIT_QUARANTINE_PATH GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES\n"
        "old=$(git rev-parse " REF ")\n"
        "blob=$(echo '<other/>' | git hash-object -w --stdin)\n"
        "GIT_INDEX_FILE=other.idx git read-tree $old\n"
        "GIT_INDEX_FILE=other.idx git update-index --add --cacheinfo "
        "100644,$blob,runs/ff/other.xml\n"
        "tree=$(GIT_INDEX_FILE=other.idx git write-tree)\n"
        "new=$(echo other | git -c user.name=o -c user.email=o@o commit-tree $tree -p $old)\n"
        "git update-ref " REF " $new $old\n"
        "echo 'another job pushed first' >&2\n"
        "exit 0\n");
    run("chmod +x '%s'", hook);
    assert_int_equal(culprit_vcs_ref_add(NULL, vcs, REF,
                                         &(culprit_vcs_file){"runs/gg/mine.xml", "m", 1, NULL}, 1,
                                         NULL),
                     0);
    assert_int_equal(culprit_vcs_history_push(&res, vcs, "origin"), 0);
    assert_int_equal(res.attempts, 2);
    names = all_output_of("git --git-dir='%s' ls-tree -r --name-only " REF, remote);
    assert_non_null(strstr(names, "runs/ff/other.xml"));
    assert_non_null(strstr(names, "runs/gg/mine.xml"));
    assert_non_null(strstr(names, "runs/aa/one.xml"));
    free(names);
    /* Locally too: the other job's run was merged in. */
    assert_int_equal(culprit_vcs_ref_list(&list, vcs, REF, "runs/ff"), 0);
    assert_int_equal(list.n, 1);
    culprit_vcs_ref_files_dispose(&list);
    /* A remote that is not there is git's error, named. */
    assert_int_equal(culprit_vcs_history_push(&res, vcs, "/nonexistent/remote.git"), CULPRIT_ERROR);
    assert_non_null(strstr(culprit_error_last(), "git fetch"));
    culprit_vcs_free(vcs);
}

/* A remote that refuses for good (its pre-receive hook declines every push): one
 * round, the hook's message in the error, no retry (issue 23: 100 rounds, 58-78 s). */
static void a_declining_hook_stops_the_push_at_once(void **state)
{
    culprit_vcs *vcs = open_at(repo);
    culprit_vcs_push_result res;
    char hook[PATH_MAX + 64], *count;
    (void)state;

    snprintf(hook, sizeof(hook), "%s/hooks/pre-receive", remote);
    write_file(remote, "hooks/pre-receive",
               "#!/bin/sh\n"
               "cat > /dev/null\n"
               "echo x >> declined\n"
               "echo 'pushes to refs/culprit are not allowed here' >&2\n"
               "exit 1\n");
    run("chmod +x '%s'", hook);
    assert_int_equal(culprit_vcs_ref_add(NULL, vcs, REF,
                                         &(culprit_vcs_file){"runs/hh/refused.xml", "r", 1, NULL},
                                         1, NULL),
                     0);
    assert_int_equal(culprit_vcs_history_push(&res, vcs, "origin"), CULPRIT_ERROR);
    assert_int_equal(res.attempts, 1);
    assert_non_null(strstr(culprit_error_last(), "pushes to refs/culprit are not allowed here"));
    assert_non_null(strstr(culprit_error_last(), "pre-receive hook declined"));
    count = all_output_of("wc -l < '%s/declined'", remote);
    assert_int_equal(atoi(count), 1);
    free(count);
    run("rm -f '%s' '%s/declined'", hook, remote);
    culprit_vcs_free(vcs);
}

/* A push whose ref holds what its last fetch brought (no other job pushed since) goes
 * first, without a `git fetch` of its own (issue 23: a fetch's processes were most of a
 * 1-run push's wall time); the remote gets the run all the same. */
static void a_push_holding_the_last_fetch_does_not_fetch_again(void **state)
{
    culprit_vcs *vcs = open_at(repo);
    culprit_vcs_push_result res;
    char trace[PATH_MAX + 32], fresh[PATH_MAX + 32], *traced, *names;
    (void)state;

    assert_int_equal(culprit_vcs_history_push(&res, vcs, "origin"), 0);
    assert_int_equal(culprit_vcs_ref_add(NULL, vcs, REF,
                                         &(culprit_vcs_file){"runs/jj/first.xml", "f", 1, NULL}, 1,
                                         NULL),
                     0);
    snprintf(trace, sizeof(trace), "%s/git.trace", remote);
    setenv("GIT_TRACE", trace, 1);
    assert_int_equal(culprit_vcs_history_push(&res, vcs, "origin"), 0);
    unsetenv("GIT_TRACE");
    assert_int_equal(res.attempts, 1);
    traced = all_output_of("cat '%s'", trace);
    assert_null(strstr(traced, "git fetch"));
    assert_non_null(strstr(traced, "git push"));
    free(traced);
    names = all_output_of("git --git-dir='%s' ls-tree -r --name-only " REF, remote);
    assert_non_null(strstr(names, "runs/jj/first.xml"));
    free(names);
    run("rm -f '%s'", trace);

    /* A remote without the ref: the first push fetches nothing, and records what it
     * pushed as the remote's, so that the next push goes first too. */
    snprintf(fresh, sizeof(fresh), "%s-fresh.git", remote);
    run("git init -q --bare '%s'", fresh);
    assert_int_equal(culprit_vcs_history_push(&res, vcs, fresh), 0);
    assert_int_equal(culprit_vcs_ref_add(NULL, vcs, REF,
                                         &(culprit_vcs_file){"runs/kk/second.xml", "s", 1, NULL}, 1,
                                         NULL),
                     0);
    setenv("GIT_TRACE", trace, 1);
    assert_int_equal(culprit_vcs_history_push(&res, vcs, fresh), 0);
    unsetenv("GIT_TRACE");
    traced = all_output_of("cat '%s'", trace);
    assert_null(strstr(traced, "git fetch"));
    free(traced);
    names = all_output_of("git --git-dir='%s' ls-tree -r --name-only " REF, fresh);
    assert_non_null(strstr(names, "runs/kk/second.xml"));
    free(names);
    run("rm -rf '%s' '%s'", trace, fresh);
    culprit_vcs_free(vcs);
}

static void a_depth_1_clone_walks_through_recorded_ancestry(void **state)
{
    culprit_vcs *vcs = open_at(repo), *clone;
    culprit_vcs_file *records = NULL;
    culprit_vcs_commit info;
    culprit_vcs_merge_result res;
    const char *at[] = {c3}, *again[] = {c2, c3, c2};
    char shallow[PATH_MAX + 16], (*shas)[41] = NULL;
    size_t n = 0, added = 0;
    int cut = -1;
    (void)state;

    snprintf(shallow, sizeof(shallow), "%s/shallow", dir);
    run("git clone -q --depth 1 'file://%s' '%s'", remote, shallow);
    clone = open_at(shallow);
    /* Without the shared history: cut at the clone's one commit. */
    assert_int_equal(culprit_vcs_first_parents_cut(&shas, &n, &cut, clone, c3, 0), 0);
    assert_int_equal(n, 1);
    assert_int_equal(cut, 1);
    free(shas);
    assert_int_equal(culprit_vcs_commit_info(&info, clone, c2), CULPRIT_ENOTFOUND);

    /* Each commit is recorded once, however many runs or chains reach it. */
    assert_int_equal(culprit_vcs_ancestry_files(&records, &n, vcs, again, 3, 100), 0);
    assert_int_equal(n, 3);
    culprit_vcs_files_free(records, n);
    /* The full clone records c3's chain (down to the root) and pushes it. */
    assert_int_equal(culprit_vcs_ancestry_files(&records, &n, vcs, at, 1, 100), 0);
    assert_int_equal(n, 3);
    assert_int_equal(culprit_vcs_ref_add(&added, vcs, REF, records, n, NULL), 0);
    culprit_vcs_files_free(records, n);
    assert_int_equal(culprit_vcs_ancestry_files(&records, &n, vcs, at, 1, 100), 0);
    assert_int_equal(n, 0); /* all recorded already */
    culprit_vcs_files_free(records, n);
    run("git -C '%s' push -q origin " REF, repo);

    assert_int_equal(culprit_vcs_history_pull(&res, clone, "origin"), 0);
    assert_int_equal(res.changed, 1);
    assert_int_equal(res.added, 10); /* the runs of the tests before; records are not runs */
    assert_int_equal(culprit_vcs_first_parents_cut(&shas, &n, &cut, clone, c3, 0), 0);
    assert_int_equal(n, 3);
    assert_int_equal(cut, 0); /* the recorded chain reaches the root */
    assert_string_equal(shas[1], c2);
    assert_string_equal(shas[2], c1);
    free(shas);
    assert_int_equal(culprit_vcs_commit_info(&info, clone, c2), 0);
    assert_string_equal(info.subject, "second");
    culprit_vcs_commit_dispose(&info);
    /* The clone is still a depth-1 clone: nothing was fetched of the mainline. */
    assert_int_equal(culprit_vcs_is_shallow(clone), 1);
    culprit_vcs_free(clone);
    culprit_vcs_free(vcs);
}

/* A record: "commits/<ab>/<rest>" for `sha` naming `parent`. */
static void add_record(culprit_vcs *vcs, const char *sha, const char *parent_line)
{
    char path[64], text[256];
    snprintf(path, sizeof(path), "commits/%.2s/%s", sha, sha + 2);
    snprintf(text, sizeof(text),
             "culprit-commit 1\n%sdate 2026-01-01T00:00:00+00:00\nsubject recorded\n", parent_line);
    assert_int_equal(culprit_vcs_ref_add(NULL, vcs, REF,
                                         &(culprit_vcs_file){path, text, strlen(text), NULL}, 1,
                                         NULL),
                     0);
}

/* Records come from other machines: a malformed one is no record, and records that
 * loop (c2 -> c1 -> c2) end the walk instead of running forever. */
static void hostile_records_stop_the_walk(void **state)
{
    culprit_vcs *clone;
    char shallow[PATH_MAX + 16], line[64], (*shas)[41] = NULL;
    size_t n = 0;
    int cut = -1;
    (void)state;

    snprintf(shallow, sizeof(shallow), "%s/hostile", dir);
    run("git clone -q --depth 1 'file://%s' '%s'", remote, shallow);
    clone = open_at(shallow);
    add_record(clone, c2, "parent NOT-A-SHA\n");
    assert_int_equal(culprit_vcs_first_parents_cut(&shas, &n, &cut, clone, c3, 0), 0);
    assert_int_equal(n, 1);
    assert_int_equal(cut, 1);
    free(shas);
    culprit_vcs_free(clone);

    run("rm -rf '%s' && git clone -q --depth 1 'file://%s' '%s'", shallow, remote, shallow);
    clone = open_at(shallow);
    snprintf(line, sizeof(line), "parent %s\n", c1);
    add_record(clone, c2, line);
    snprintf(line, sizeof(line), "parent %s\n", c2);
    add_record(clone, c1, line);
    assert_int_equal(culprit_vcs_first_parents_cut(&shas, &n, &cut, clone, c3, 0), 0);
    assert_in_range(n, 3, 6);
    assert_int_equal(cut, 1);
    assert_string_equal(shas[1], c2);
    assert_string_equal(shas[2], c1);
    free(shas);
    culprit_vcs_free(clone);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(files_are_written_and_read_without_touching_the_checkout),
        cmocka_unit_test(a_duplicate_name_is_not_written_twice),
        cmocka_unit_test(diverged_stores_merge_into_their_union),
        cmocka_unit_test(added_files_blobs_and_abbreviated_commits),
        cmocka_unit_test(a_rejected_push_is_merged_and_pushed_again),
        cmocka_unit_test(a_declining_hook_stops_the_push_at_once),
        cmocka_unit_test(a_depth_1_clone_walks_through_recorded_ancestry),
        cmocka_unit_test(hostile_records_stop_the_walk),
        cmocka_unit_test(a_push_holding_the_last_fetch_does_not_fetch_again),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
