/*
 * What the report takes from the repository: the first-parent window of commits
 * it covers, each judged as `culprit check --commit C` judges it, and the source
 * lines the call-tree excerpts show. These are decisions of the library (which
 * commits, how far back the baselines reach, which revision's text is shown), so
 * `culprit report` and `culprit history` only name the revision and the window's
 * length; the model itself (model.c) stays free of git.
 */
#include "culprit/report.h"
#include "culprit/vcs.h"

#include <stdlib.h>
#include <string.h>

/* The window's commits (newest first) with their subjects and dates. */
static int window_commits(culprit_report_commit **out, culprit_vcs *repo, char (*shas)[41],
                          size_t n)
{
    culprit_report_commit *c = calloc(n ? n : 1, sizeof(*c));
    int error = 0;

    *out = c;
    if (!c)
        return culprit_error_set(CULPRIT_ERROR, "out of memory");
    for (size_t i = 0; i < n && error == 0; i++) {
        culprit_vcs_commit info;
        memcpy(c[i].sha, shas[i], 41);
        if ((error = culprit_vcs_commit_info(&info, repo, shas[i])) < 0)
            break;
        if ((info.subject && !(c[i].subject = culprit_strdup(info.subject))) ||
            !(c[i].date = culprit_strdup(info.author_date)))
            error = CULPRIT_ERROR;
        culprit_vcs_commit_dispose(&info);
    }
    return error;
}

static void commits_free(culprit_report_commit *c, size_t n)
{
    for (size_t i = 0; c && i < n; i++) {
        free(c[i].subject);
        free(c[i].date);
    }
    free(c);
}

int culprit_report_add_history_window(culprit_report *report, culprit_vcs *repo,
                                      const culprit_history_runs *runs, const char *rev,
                                      size_t limit, const culprit_check_options *opts)
{
    culprit_report_commit *commits = NULL;
    char sha[41], (*shas)[41] = NULL;
    const char **chain = NULL;
    size_t nshas = 0, window = 0;
    int error;

    if ((error = culprit_vcs_resolve(sha, repo, rev)) < 0 ||
        /* All of the chain: the oldest point shown still has its baseline. On a
         * shallow clone, all the clone has (the command says what it lacks). */
        (error = culprit_vcs_first_parents_cut(&shas, &nshas, NULL, repo, sha, 0)) < 0)
        goto cleanup;
    window = limit < nshas ? limit : nshas;
    if (!(chain = calloc(nshas, sizeof(*chain)))) {
        error = culprit_error_set(CULPRIT_ERROR, "out of memory");
        goto cleanup;
    }
    for (size_t i = 0; i < nshas; i++)
        chain[i] = shas[i];
    if ((error = window_commits(&commits, repo, shas, window)) < 0)
        goto cleanup;
    error = culprit_report_add_history(report, runs, commits, window, chain, nshas, opts);
cleanup:
    commits_free(commits, window);
    free(chain);
    free(shas);
    return error;
}

/* The changed lines of the call tree's changed functions, as the culprit commit has
 * them (a file the commit does not have, or a path from another build directory,
 * is left with its line numbers only). */
int culprit_report_add_sources(culprit_report *report, culprit_vcs *repo)
{
    const culprit_report_calltree *c = report->calltree;
    const char *sha = c && c->commit                                 ? c->commit
                      : report->bisect && report->bisect->culprit[0] ? report->bisect->culprit
                                                                     : NULL;
    char full[41];
    int error = 0;

    if (!c || !sha || culprit_vcs_resolve(full, repo, sha) < 0) {
        culprit_error_clear();
        return 0;
    }
    for (size_t i = 0; i < c->nnodes && error == 0; i++) {
        culprit_buf text = CULPRIT_BUF_INIT;
        if (!c->nodes[i].nchanged || !c->nodes[i].file)
            continue;
        if (culprit_vcs_read_file(&text, repo, full, c->nodes[i].file) == 0)
            error = culprit_report_set_source(report, i, text.ptr ? text.ptr : "", text.size);
        else
            culprit_error_clear();
        culprit_buf_dispose(&text);
    }
    return error;
}
