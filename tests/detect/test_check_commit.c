/*
 * culprit_detect_check_commit() (framework/detect/check_commit.c): a whole check driven
 * through the library API alone gives the verdicts `culprit check` gives on the
 * same data. The data is the CLI tests' scenario (one test per verdict) split
 * between the two halves of the history: the baselines' runs only in the shared
 * ref refs/culprit/history, the judged commit's runs in the directory (and in the
 * ref too, read once). Plus the one meaning of "flagged" and the options' version,
 * and what a check reads: the commit and the ancestors a test measured at every commit
 * needs (culprit_detect_check_history_need()), more only while a test lacks them.
 */
#include "support/test.h"
#include "support/cli_fixture.h"
#include "support/git_fixture.h"
#include "support/tmpdir.h"

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "culprit/detect.h"
#include "culprit/vcs.h"

/* Moves every run file of the directory into the ref; keeps in the directory only
 * those of `keep` (a commit). */
static void share(culprit_vcs *repo, const char *dir, const char *keep)
{
    DIR *d = opendir(dir);
    struct dirent *e;

    assert_non_null(d);
    while ((e = readdir(d))) {
        char path[1200], refpath[600];
        char *data;
        culprit_vcs_file f;
        if (!strstr(e->d_name, ".xml"))
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        snprintf(refpath, sizeof(refpath), "runs/xx/%s", e->d_name);
        data = read_text(path);
        f = (culprit_vcs_file){refpath, data, strlen(data), NULL};
        assert_int_equal(culprit_vcs_ref_add(NULL, repo, CULPRIT_VCS_HISTORY_REF, &f, 1, "t"), 0);
        if (!strstr(data, keep))
            assert_int_equal(remove(path), 0);
        free(data);
    }
    closedir(d);
}

/* The verdict the command's --json gives `test`. */
static const char *command_verdict(json_t *doc, const char *test)
{
    json_t *tests = json_object_get(doc, "tests"), *t;
    size_t i;

    json_array_foreach(tests, i, t)
    {
        if (strcmp(json_string_value(json_object_get(t, "test")), test) == 0)
            return json_string_value(json_object_get(t, "verdict"));
    }
    fail_msg("no test %s in the command's document", test);
    return NULL;
}

/* A re-run hook that re-runs nothing but says it did: counts its calls. */
static int count_rerun(void *payload, const culprit_check_result *result, size_t i)
{
    (void)result;
    (void)i;
    ++*(size_t *)payload;
    return 1;
}

static void library_check_equals_command(void **state)
{
    repo_fixture *repo = *state;
    culprit_vcs *vcs = NULL;
    culprit_history_source *src = NULL;
    culprit_history_runs runs;
    culprit_check_result result;
    culprit_check_options check = CULPRIT_CHECK_OPTIONS_INIT;
    culprit_check_commit_options o = {.version = CULPRIT_CHECK_COMMIT_OPTIONS_VERSION};
    char(*parents)[41] = NULL;
    const char *bases[4];
    size_t nparents = 0, nbases = 0;
    cli_result r;
    json_t *doc;

    assert_int_equal(culprit_vcs_open(&vcs, repo->dir), 0);
    share(vcs, repo->history, repo->sha[3]);
    r = run_culprit(repo->dir, NULL, "check --json --fail-on none");
    assert_int_equal(r.status, 0);
    assert_non_null(doc = json_loads(r.out, 0, NULL));

    /* The same check, the library alone: the source, the first-parent bases. */
    assert_int_equal(
        culprit_history_source_open(&src, repo->history, vcs, CULPRIT_HISTORY_FROM_BOTH), 0);
    assert_int_equal(culprit_vcs_first_parents_cut(&parents, &nparents, NULL, vcs, repo->sha[3], 0),
                     0);
    for (size_t i = 1; i < nparents && nbases < 4; i++)
        bases[nbases++] = parents[i];
    o.check = &check;
    o.commit = repo->sha[3];
    o.bases = bases;
    o.nbases = nbases;
    assert_int_equal(culprit_detect_check_commit(&result, &runs, src, &o), 0);
    assert_int_equal(result.n, json_array_size(json_object_get(doc, "tests")));
    assert_true(result.n >= 8);
    for (size_t i = 0; i < result.n; i++)
        assert_string_equal(culprit_detect_verdict_name(result.verdicts[i].kind),
                            command_verdict(doc, result.verdicts[i].test));
    /* A verdict that needs the ref: the baselines are there alone. */
    for (size_t i = 0; i < result.n; i++)
        if (strcmp(result.verdicts[i].test, "perf.major") == 0)
            assert_int_equal(result.verdicts[i].kind, CULPRIT_VERDICT_MAJOR);

    /* One meaning of flagged: a flagged test is what counts; unflagged never does. */
    for (size_t i = 0; i < result.n; i++)
        if (!culprit_detect_check_flagged(&result, i))
            assert_int_equal(culprit_detect_check_counts_as(&result, i), CULPRIT_VERDICT_UNCHANGED);

    /* The re-run hook is called for every flagged test, not only the first that
     * re-ran; then the store is judged again, to the same verdicts. */
    {
        size_t flagged = 0, calls = 0;
        for (size_t i = 0; i < result.n; i++)
            flagged += culprit_detect_check_flagged(&result, i) != 0;
        assert_true(flagged >= 2);
        culprit_detect_check_result_dispose(&result);
        culprit_history_runs_dispose(&runs);
        o.rerun = count_rerun;
        o.payload = &calls;
        assert_int_equal(culprit_detect_check_commit(&result, &runs, src, &o), 0);
        assert_int_equal(calls, flagged);
        for (size_t i = 0; i < result.n; i++)
            assert_string_equal(culprit_detect_verdict_name(result.verdicts[i].kind),
                                command_verdict(doc, result.verdicts[i].test));
    }
    culprit_detect_check_result_dispose(&result);
    culprit_history_runs_dispose(&runs);
    o.version = 99;
    assert_int_equal(culprit_detect_check_commit(&result, &runs, src, &o), CULPRIT_EINVALID);
    json_decref(doc);
    cli_result_dispose(&r);
    free(parents);
    culprit_history_source_free(src);
    culprit_vcs_free(vcs);
}

/* A directory of 20 commits, one run of one test each, the newest judged against the
 * other 19: a check reads the commit and the 11 ancestors the defaults need (the
 * noise window and the pool), not 32; with the newest 11 ancestors measured on
 * another machine (not comparable), it reads on, to all 19. */
static void count_warning(const char *path, const char *message, void *payload)
{
    (void)path, (void)message;
    ++*(int *)payload;
}

static void reads_what_a_test_needs(void **state)
{
    static const synthetic_test t[] = {{"t", 100000, 1000, 30, "fast", CULPRIT_STATUS_PASS}};
    char *dir = test_tmpdir_new("check-reads");
    char sha[20][41], stamp[32];
    const char *bases[19];
    culprit_history_source *src = NULL;
    culprit_history_runs runs;
    culprit_check_result result;
    culprit_check_options check = CULPRIT_CHECK_OPTIONS_INIT;
    culprit_check_commit_options o = {.version = CULPRIT_CHECK_COMMIT_OPTIONS_VERSION};
    int warnings = 0;

    (void)state;
    assert_int_equal(culprit_detect_check_history_need(&check), 11);
    assert_int_equal(culprit_detect_check_history_need(NULL), 11);
    for (int other = 0; other < 2; other++) {
        test_tmpdir_remove(dir);
        for (int i = 0; i < 20; i++) {
            snprintf(sha[i], sizeof(sha[i]), "%02d%038d", i, 0);
            snprintf(stamp, sizeof(stamp), "2026-01-01T00:%02d:00Z", i);
            fixture_store(dir, fixture_run("s", sha[i], stamp,
                                           other && i >= 8 && i < 19 ? "other" : "m", t, 1));
        }
        for (int i = 0; i < 19; i++)
            bases[i] = sha[18 - i];
        { /* a corrupt file at a commit of the first round: warned of once, though the
           * check reads a second round (each run is read once, issue 23) */
            char path[512];
            FILE *f;
            snprintf(path, sizeof(path), "%s/20260101T001700.500000Z_%.12s_host_1_bad.xml", dir,
                     sha[17]);
            assert_non_null(f = fopen(path, "w"));
            fputs("not xml", f);
            fclose(f);
        }
        assert_int_equal(culprit_history_source_open(&src, dir, NULL, CULPRIT_HISTORY_FROM_DIR), 0);
        o.check = &check;
        o.commit = sha[19];
        o.bases = bases;
        o.nbases = 19;
        o.warn = count_warning;
        o.payload = &warnings;
        warnings = 0;
        assert_int_equal(culprit_detect_check_commit(&result, &runs, src, &o), 0);
        assert_int_equal(result.n, 1);
        assert_int_equal(runs.nruns, other ? 20 : 12);
        assert_int_equal(warnings, 1);
        assert_int_equal(runs.nskipped, 1);
        assert_int_not_equal(result.verdicts[0].kind, CULPRIT_VERDICT_NO_BASELINE);
        culprit_detect_check_result_dispose(&result);
        culprit_history_runs_dispose(&runs);
        culprit_history_source_free(src);
    }
    test_tmpdir_remove(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(library_check_equals_command, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test(reads_what_a_test_needs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
