/*
 * culprit_history_source (framework/history/source.c): the history every reader
 * loads, the store directory and the shared ref refs/culprit/history. A run only in
 * the ref is loaded beside the directory's; a run in both is loaded once; the
 * source reads what it was configured to read; a ref file over
 * CULPRIT_SHARED_FILE_MAX is skipped with a warning naming it; neither directory
 * nor ref is CULPRIT_ENOTFOUND.
 */
#include "support/test.h"
#include "support/cli_fixture.h"
#include "support/git_fixture.h"
#include "support/tmpdir.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "culprit/history.h"
#include "culprit/vcs.h"

static const synthetic_test tests[] = {{"t", 100000, 1000, 30, "fast", CULPRIT_STATUS_PASS}};

/* Stores a run of `commit` in `dir`, and with `ref` also into the shared ref. */
static void store(culprit_vcs *repo, const char *dir, const char *commit, const char *stamp,
                  int ref)
{
    char *scratch = test_tmpdir_new("source-run"), path[1200], refpath[600];
    struct dirent *e;
    DIR *d;

    fixture_store(scratch, fixture_run("s", commit, stamp, "m", tests, 1));
    assert_non_null(d = opendir(scratch));
    while ((e = readdir(d)) && !strstr(e->d_name, ".xml"))
        ;
    assert_non_null(e);
    snprintf(path, sizeof(path), "%s/%s", scratch, e->d_name);
    snprintf(refpath, sizeof(refpath), "runs/%.2s/%s", commit, e->d_name);
    if (ref) {
        char *data = read_text(path);
        culprit_vcs_file f = {refpath, data, strlen(data), NULL};
        assert_int_equal(culprit_vcs_ref_add(NULL, repo, CULPRIT_VCS_HISTORY_REF, &f, 1, "t"), 0);
        free(data);
    }
    if (dir) {
        run("mkdir -p '%s' && cp '%s' '%s/'", dir, path, dir);
    }
    closedir(d);
    test_tmpdir_remove(scratch);
    free(scratch);
}

typedef struct {
    repo_fixture repo;
    culprit_vcs *vcs;
} world;

/* c[1]: a run in the directory and the ref; c[2]: a run only in the ref. */
static void make(world *w)
{
    fixture_repo(&w->repo);
    assert_int_equal(culprit_vcs_open(&w->vcs, w->repo.dir), 0);
    store(w->vcs, w->repo.history, w->repo.sha[1], "2026-11-20T10:00:00Z", 1);
    store(w->vcs, NULL, w->repo.sha[2], "2026-11-21T10:00:00Z", 1);
}

static void unmake(world *w)
{
    culprit_vcs_free(w->vcs);
    fixture_remove(&w->repo);
}

static size_t count(world *w, unsigned int from, int expect_error)
{
    culprit_history_source *src = NULL;
    culprit_history_runs runs;
    size_t n;

    assert_int_equal(culprit_history_source_open(&src, w->repo.history, w->vcs, from), 0);
    assert_int_equal(culprit_history_source_load(&runs, src, NULL, NULL, NULL), expect_error);
    n = runs.nruns;
    culprit_history_runs_dispose(&runs);
    culprit_history_source_free(src);
    return n;
}

static void test_both_and_each(void **state)
{
    world w;

    (void)state;
    make(&w);
    assert_int_equal(count(&w, CULPRIT_HISTORY_FROM_BOTH, 0), 2); /* c[1] once */
    assert_int_equal(count(&w, CULPRIT_HISTORY_FROM_DIR, 0), 1);
    assert_int_equal(count(&w, CULPRIT_HISTORY_FROM_SHARED, 0), 2);
    unmake(&w);
}

static void test_query_commits(void **state)
{
    world w;
    culprit_history_source *src = NULL;
    culprit_history_runs runs;
    const char *commits[1];
    culprit_history_query q = {.commits = commits, .ncommits = 1};

    (void)state;
    make(&w);
    commits[0] = w.repo.sha[2];
    assert_int_equal(
        culprit_history_source_open(&src, w.repo.history, w.vcs, CULPRIT_HISTORY_FROM_BOTH), 0);
    assert_int_equal(culprit_history_source_load(&runs, src, &q, NULL, NULL), 0);
    assert_int_equal(runs.nruns, 1);
    assert_string_equal(runs.runs[0]->commit, w.repo.sha[2]);
    culprit_history_runs_dispose(&runs);
    culprit_history_source_free(src);
    unmake(&w);
}

static char warned[1024];

static void warn(const char *path, const char *message, void *payload)
{
    (void)payload;
    snprintf(warned, sizeof(warned), "%s: %s", path, message);
}

static void test_size_limit(void **state)
{
    world w;
    culprit_history_source *src = NULL;
    culprit_history_runs runs;

    (void)state;
    make(&w);
    setenv("CULPRIT_SHARED_FILE_MAX", "10", 1);
    assert_int_equal(
        culprit_history_source_open(&src, w.repo.history, w.vcs, CULPRIT_HISTORY_FROM_BOTH), 0);
    warned[0] = '\0';
    assert_int_equal(culprit_history_source_load(&runs, src, NULL, warn, NULL), 0);
    assert_int_equal(runs.nruns, 1); /* the directory's; the ref's c[2] unread */
    assert_int_equal(runs.nskipped, 1);
    assert_non_null(strstr(warned, "refs/culprit/history:runs/"));
    assert_non_null(strstr(warned, "CULPRIT_SHARED_FILE_MAX"));
    culprit_history_runs_dispose(&runs);
    setenv("CULPRIT_SHARED_FILE_MAX", "ten", 1);
    assert_int_equal(culprit_history_source_load(&runs, src, NULL, warn, NULL), CULPRIT_EINVALID);
    unsetenv("CULPRIT_SHARED_FILE_MAX");
    culprit_history_source_free(src);
    unmake(&w);
}

static void test_nothing(void **state)
{
    world w;
    culprit_history_source *src = NULL;
    culprit_history_runs runs;
    char dir[600];

    (void)state;
    make(&w);
    snprintf(dir, sizeof(dir), "%s/none", w.repo.dir);
    /* the directory alone, absent: not found, naming it */
    assert_int_equal(culprit_history_source_open(&src, dir, NULL, CULPRIT_HISTORY_FROM_BOTH), 0);
    assert_int_equal(culprit_history_source_load(&runs, src, NULL, NULL, NULL), CULPRIT_ENOTFOUND);
    assert_non_null(strstr(culprit_error_last(), dir));
    culprit_history_source_free(src);
    assert_int_equal(culprit_history_source_open(&src, dir, w.vcs, 0), CULPRIT_EINVALID);
    unmake(&w);
}

int main(void)
{
    const struct CMUnitTest t[] = {
        cmocka_unit_test(test_both_and_each),
        cmocka_unit_test(test_query_commits),
        cmocka_unit_test(test_size_limit),
        cmocka_unit_test(test_nothing),
    };
    return cmocka_run_group_tests(t, NULL, NULL);
}
