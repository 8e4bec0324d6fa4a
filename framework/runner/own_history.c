/*
 * A test binary compares each recorded test with its own history (docs/runner.md,
 * "History in the test output"). After the run is stored, every test that passed its
 * category is judged by the library's check of a commit, culprit_detect_check_commit(): what
 * `culprit check --test suite.test` says at that moment (the same baseline, noise
 * model, evidence and rules; one implementation). It reads only a window of the
 * history: the runs of the commit and of its newest first-parent ancestors (the
 * check's own incremental reading, within the last RUNNER_WINDOW commits). A minor
 * regression prints a MINOR line with the check's figures (and a CTest label under
 * --ctest, so plain `ctest` lists it); under --fail-on minor a minor with the evidence
 * to fail (culprit_detect_check_counts_as()) fails the test.
 */
#include "runner_internal.h"

#include "culprit/detect.h"
#include "culprit/vcs.h"

#include <stdlib.h>
#include <string.h>

/* The first-parent commits a test binary looks back over at most (its baseline and
 * noise history); `culprit check` walks the whole chain. */
#define RUNNER_WINDOW 256

/* The verdict's figures in a CTest label, short: ctest pads every line of its "Label
 * Time Summary" to the longest label, so the whole message (above the label, and
 * under -V) would widen them all. */
static void ctest_label(FILE *out, const culprit_verdict *v)
{
    culprit_buf now = CULPRIT_BUF_INIT, base = CULPRIT_BUF_INIT, line = CULPRIT_BUF_INIT;
    culprit_buf label = CULPRIT_BUF_INIT;

    culprit_buf_put_duration(&now, v->now_mean);
    culprit_buf_put_duration(&base, v->base_mean);
    culprit_buf_printf(
        &line, "%s: minor regression: %s now, %s at %.12s: %+.1f%% (99%% CI %+.1f%% to %+.1f%%)%s",
        v->test, culprit_buf_cstr(&now), culprit_buf_cstr(&base), v->baseline ? v->baseline : "?",
        100 * v->change, 100 * v->change_low, 100 * v->change_high,
        culprit_detect_verdict_confirmed(v) ? "" : ", unconfirmed");
    culprit_buf_put_text(&label, culprit_buf_cstr(&line));
    fprintf(out, "<CTestLabel>MINOR %s</CTestLabel>\n", culprit_buf_cstr(&label));
    culprit_buf_dispose(&now);
    culprit_buf_dispose(&base);
    culprit_buf_dispose(&line);
    culprit_buf_dispose(&label);
}

/* What one test's check found: its MINOR line, and the failure under hc->fail_on. */
static int report_minor(culprit_test_result *t, const culprit_check_result *result,
                        const culprit_runner_history_check *hc, size_t *nfailed)
{
    const culprit_verdict *v = &result->verdicts[0];
    const char *label = getenv("CULPRIT_CTEST_LABEL");
    culprit_buf text = CULPRIT_BUF_INIT;
    int fails = culprit_detect_check_test_fails(result, 0, hc->fail_on);
    int error;

    if ((error = culprit_str_set(&t->verdict, "minor")) < 0 ||
        (error = culprit_str_set(&t->verdict_message, v->message)) < 0)
        return error;
    culprit_buf_put_text(&text, v->message ? v->message : v->test);
    /* The check's verdict line (`culprit check` prints the same tag and message). */
    fprintf(hc->text, "%-11s %s%s\n", "MINOR", culprit_buf_cstr(&text),
            fails                                 ? ""
            : culprit_detect_verdict_confirmed(v) ? " (--fail-on minor fails it)"
                                                  : "");
    if (hc->ctest && !(label && !strcmp(label, "0")))
        ctest_label(hc->text, v);
    fflush(hc->text);
    culprit_buf_dispose(&text);
    if (!fails)
        return 0;
    t->status = CULPRIT_STATUS_FAILURE;
    (*nfailed)++;
    return culprit_str_set(&t->message, v->message);
}

/* Test t of the run against its history; a reading error only costs the comparison. */
static int judge_one(culprit_test_result *t, const culprit_history_source *src, const char *sha,
                     const char *const *bases, size_t nbases, int shallow,
                     const culprit_runner_history_check *hc, size_t *nfailed)
{
    culprit_check_options check = CULPRIT_CHECK_OPTIONS_INIT;
    culprit_check_commit_options o = {.version = CULPRIT_CHECK_COMMIT_OPTIONS_VERSION};
    culprit_check_result result;
    culprit_history_runs runs;
    char key[512];
    int error;

    snprintf(key, sizeof(key), "%s.%s", t->classname, t->name);
    check.test = key;
    o.check = &check;
    o.commit = sha;
    o.bases = bases;
    o.nbases = nbases;
    o.read_all = shallow; /* as culprit check: a shallow clone's runs are all read */
    if ((error = culprit_detect_check_commit(&result, &runs, src, &o)) < 0) {
        fflush(stdout);
        fprintf(stderr, "culprit: warning: %s not compared with its history: ", key);
        culprit_runner__text_line(stderr, "", culprit_error_last());
        error = 0;
    } else if (result.n == 1 && result.verdicts[0].kind == CULPRIT_VERDICT_MINOR) {
        error = report_minor(t, &result, hc, nfailed);
    }
    culprit_detect_check_result_dispose(&result);
    culprit_history_runs_dispose(&runs);
    return error;
}

int culprit_runner__judge_history(culprit_run *run, const culprit_runner_history_check *hc,
                                  size_t *nfailed)
{
    culprit_vcs *repo = NULL;
    culprit_history_source *src = NULL;
    char sha[41], (*parents)[41] = NULL;
    const char **bases = NULL;
    size_t nparents = 0;
    int error = 0;

    *nfailed = 0;
    /* Outside a repository there are no earlier commits to compare with. */
    if (!hc->repository || !run->commit || culprit_vcs_open(&repo, hc->repository) < 0 ||
        culprit_vcs_resolve(sha, repo, run->commit) < 0 ||
        culprit_vcs_first_parents_cut(&parents, &nparents, NULL, repo, sha, RUNNER_WINDOW + 1) <
            0 ||
        nparents < 2)
        goto cleanup;
    if (!(bases = calloc(nparents, sizeof(*bases)))) {
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    for (size_t i = 1; i < nparents; i++)
        bases[i - 1] = parents[i];
    if ((error = culprit_history_source_open(&src, hc->history_dir, repo,
                                             CULPRIT_HISTORY_FROM_BOTH)) < 0)
        goto cleanup;
    for (size_t i = 0; i < run->ntests && error == 0; i++)
        if (run->tests[i].status == CULPRIT_STATUS_PASS)
            error = judge_one(&run->tests[i], src, sha, bases, nparents - 1,
                              culprit_vcs_is_shallow(repo), hc, nfailed);
cleanup:
    culprit_history_source_free(src);
    free(bases);
    free(parents);
    culprit_vcs_free(repo);
    return error;
}
