/*
 * `culprit bisect --auto`: the choice of the two ends from the history of a test,
 * so a bisection can start from what `culprit check` already flagged. The choice
 * is a decision of the library (the tool only loads the history and prints the
 * ends): the test's runs are judged commit by commit along first-parent history
 * exactly as `culprit history` judges them (culprit_detect_check, each commit
 * against the ones before it), and the range is the last fine commit and the
 * first flagged one after it.
 */
#include "culprit/bisect.h"
#include "culprit/detect.h"

#include <stdio.h>
#include <stdlib.h>

/* How far back from HEAD --auto looks: the newest 200 first-parent commits, more
 * than a flagged regression is ever left unbisected for, and a bound on the cost
 * (one check per commit with runs). */
#define AUTO_DEPTH 200

/* The verdict of `test` at fp[i] against the commits before it (fp[i+1..n)), or
 * CULPRIT_VERDICT_NOT_RUN when no run of the test is at that commit. */
static int judge_at(culprit_verdict_kind *out, const culprit_history_runs *runs, const char *test,
                    const char *const *fp, size_t i, size_t n)
{
    culprit_check_options o = CULPRIT_CHECK_OPTIONS_INIT;
    culprit_check_result r;
    int error;

    o.test = test;
    *out = CULPRIT_VERDICT_NOT_RUN;
    error = culprit_detect_check(&r, runs, fp[i], fp + i + 1, n - i - 1, &o);
    if (error == CULPRIT_ENOTFOUND) { /* no run of the test at this commit */
        culprit_error_clear();
        return 0;
    }
    if (error < 0)
        return error;
    *out = r.n ? r.verdicts[0].kind : CULPRIT_VERDICT_NOT_RUN;
    culprit_detect_check_result_dispose(&r);
    return 0;
}

int culprit_bisect_auto_range_of(char good[41], char bad[41], const culprit_history_runs *runs,
                                 const char *test, const char *const *first_parents, size_t n)
{
    int error = 0, have_bad = 0;

    good[0] = bad[0] = '\0';
    /* Oldest first: remember the latest fine commit, and the first flagged one after it. */
    for (size_t i = n; i-- > 0;) {
        culprit_verdict_kind k;
        if ((error = judge_at(&k, runs, test, first_parents, i, n)) < 0)
            return error;
        if (k == CULPRIT_VERDICT_MAJOR || k == CULPRIT_VERDICT_MINOR) {
            if (!have_bad && good[0]) {
                snprintf(bad, 41, "%s", first_parents[i]);
                have_bad = 1;
            }
        } else if (k == CULPRIT_VERDICT_UNCHANGED || k == CULPRIT_VERDICT_IMPROVEMENT ||
                   k == CULPRIT_VERDICT_NO_BASELINE) {
            snprintf(good, 41, "%s", first_parents[i]);
            have_bad = 0; /* fine again: a later regression is the one to find */
        }
    }
    if (!good[0] || !have_bad) {
        bad[0] = '\0';
        return culprit_error_set(CULPRIT_ENOTFOUND,
                                 "--auto: the history of '%s' on the first-parent line of HEAD "
                                 "has no flagged commit after one where it was fine",
                                 test);
    }
    return 0;
}

int culprit_bisect_auto_range(char good[41], char bad[41], culprit_vcs *repo,
                              const culprit_history_runs *runs, const char *test)
{
    char head[41], (*fp)[41] = NULL;
    const char **shas = NULL; /* detect takes an array of pointers */
    size_t n = 0;
    int error;

    good[0] = bad[0] = '\0';
    if ((error = culprit_vcs_resolve(head, repo, "HEAD")) < 0 ||
        (error = culprit_vcs_first_parents(&fp, &n, repo, head, AUTO_DEPTH)) < 0)
        goto cleanup;
    if (!(shas = calloc(n ? n : 1, sizeof(*shas)))) {
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    for (size_t i = 0; i < n; i++)
        shas[i] = fp[i];
    error = culprit_bisect_auto_range_of(good, bad, runs, test, shas, n);
cleanup:
    free(shas);
    free(fp);
    return error;
}
