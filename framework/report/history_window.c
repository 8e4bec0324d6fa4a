/*
 * What the report takes from the repository: the first-parent window of commits
 * it covers, each judged as `culprit check --commit C` judges it, and the source
 * lines the call-tree excerpts show. These are decisions of the library (which
 * commits, how far back the baselines reach, which revision's text is shown), so
 * `culprit report` and `culprit history` only name the revision and the window's
 * length; the model itself (model.c) stays free of git. A window can also be read
 * from the store commit by commit, only the runs it needs
 * (culprit_report_add_history_read()), as `culprit check` reads.
 */
#include "culprit/vcs.h"
#include "report_internal.h"

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
        return CULPRIT_ERROR_NOMEM();
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
        error = CULPRIT_ERROR_NOMEM();
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

/* ------------------------------------------------- reading what it needs --- */

/* READ_GROWTH times more commits are read while a point may lack what the older
 * ones hold. */
#define READ_GROWTH 8

/* Reads the runs of chain[from..to) through `load` and adds them to `runs`, kept in
 * the order of culprit_history_load() (time, then id). */
static int read_more(culprit_history_runs *runs, const char *const *chain, size_t from, size_t to,
                     culprit_report_load_fn load, void *payload)
{
    culprit_history_runs more = {0, NULL, 0};
    int error;

    if ((error = load(&more, chain + from, to - from, payload)) < 0)
        return error;
    return culprit_history_runs_take(runs, &more);
}

/* Into `view` (room for all of `runs`), the runs at chain[k..]: what `culprit check
 * --commit chain[k]` reads of them; `at` maps each commit of the chain to its place. */
static void view_at(culprit_history_runs *view, const culprit_history_runs *runs,
                    const culprit_strmap *at, size_t k)
{
    size_t pos;

    view->nruns = 0;
    for (size_t r = 0; r < runs->nruns; r++)
        if (runs->runs[r]->commit && culprit_strmap_get(at, runs->runs[r]->commit, &pos) &&
            pos >= k)
            view->runs[view->nruns++] = runs->runs[r];
}

/* The window's checks, each judged on any thread (culprit_parallel_for): results[k] is
 * the check of chain[k] on its view of `runs`; an error is kept with its message. */
typedef struct {
    culprit_check_result *results;
    const culprit_history_runs *runs;
    const culprit_strmap *at;
    const char *const *chain;
    size_t nchain;
    const culprit_check_options *opts;
    size_t read; /* commits read of the chain: with fewer than all, a point may want more */
    int *errors;
    int *more; /* a point of results[k] may lack what the unread commits hold */
    culprit_error_state **why;
} window_job;

static void judge_commit(size_t k, void *arg)
{
    window_job *job = arg;
    culprit_history_runs view = {0, NULL, 0};
    int error;

    if (!(view.runs = malloc((job->runs->nruns ? job->runs->nruns : 1) * sizeof(*view.runs)))) {
        error = CULPRIT_ERROR_NOMEM();
    } else {
        view_at(&view, job->runs, job->at, k);
        error = culprit_detect_check(&job->results[k], &view, job->chain[k], job->chain + k + 1,
                                     job->nchain - k - 1, job->opts);
    }
    if (error == CULPRIT_ENOTFOUND) /* no data at this commit */
        error = 0;
    for (size_t i = 0;
         error == 0 && job->read < job->nchain && i < job->results[k].n && !job->more[k]; i++)
        job->more[k] = culprit_detect_check_wants_more(&job->results[k], i, &view, job->opts);
    if ((job->errors[k] = error) < 0 && (job->why[k] = malloc(sizeof(**job->why))))
        culprit_error_save(job->why[k]);
    free(view.runs);
}

/*
 * Judges the window's commits, each on its view of `runs`, on several threads: the
 * checks do not depend on each other, and the runs are indexed first so that they
 * can be searched from several threads. With commits left unread, each check also
 * says whether a point may lack what they hold (culprit_detect_check_wants_more()).
 * Then, oldest first as when judged one by one: the first error, or *more set at the
 * first check that wants more (the caller reads more and judges again).
 */
static int judge_window(culprit_check_result *results, int *more, const culprit_history_runs *runs,
                        const culprit_strmap *at, const char *const *chain, size_t nchain,
                        size_t window, size_t read, const culprit_check_options *opts)
{
    window_job job = {results, runs, at, chain, nchain, opts, read, NULL, NULL, NULL};
    int error = 0;

    *more = 0;
    if (!(job.errors = calloc(window ? window : 1, sizeof(*job.errors))) ||
        !(job.more = calloc(window ? window : 1, sizeof(*job.more))) ||
        !(job.why = calloc(window ? window : 1, sizeof(*job.why)))) {
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    if ((error = culprit_history_runs_index(runs)) < 0 ||
        (error = culprit_parallel_for(window, judge_commit, &job)) < 0)
        goto cleanup;
    culprit_error_clear();
    for (size_t k = window; k-- > 0 && !*more && error == 0;) {
        if (job.errors[k] < 0)
            error = job.why[k] ? culprit_error_restore(job.why[k]) : CULPRIT_ERROR_NOMEM();
        *more = job.more[k];
    }
cleanup:
    for (size_t k = 0; job.why && k < window; k++)
        free(job.why[k]);
    free(job.why);
    free(job.more);
    free(job.errors);
    return error;
}

static void results_dispose(culprit_check_result *results, size_t n)
{
    for (size_t k = 0; results && k < n; k++)
        culprit_detect_check_result_dispose(&results[k]);
}

/* The first-parent chain of `rev` (all of it, or all a shallow clone has). */
static int chain_of(char (**shas)[41], size_t *nshas, const char ***chain, culprit_strmap *at,
                    culprit_vcs *repo, const char *rev)
{
    char sha[41];
    int error;

    if ((error = culprit_vcs_resolve(sha, repo, rev)) < 0 ||
        (error = culprit_vcs_first_parents_cut(shas, nshas, NULL, repo, sha, 0)) < 0)
        return error;
    if (!(*chain = calloc(*nshas ? *nshas : 1, sizeof(**chain))) ||
        culprit_strmap_reserve(at, *nshas) < 0)
        return CULPRIT_ERROR_NOMEM();
    for (size_t i = 0; i < *nshas; i++) {
        (*chain)[i] = (*shas)[i];
        if (culprit_strmap_put(at, (*shas)[i], i, NULL) < 0)
            return CULPRIT_ERROR;
    }
    return 0;
}

int culprit_report_add_history_read(culprit_report *report, culprit_history_runs *runs,
                                    culprit_vcs *repo, const char *rev, size_t limit,
                                    const culprit_check_options *opts, culprit_report_load_fn load,
                                    void *payload)
{
    culprit_report_commit *commits = NULL;
    culprit_check_result *results = NULL;
    culprit_strmap at = CULPRIT_STRMAP_INIT;
    char(*shas)[41] = NULL;
    const char **chain = NULL;
    size_t nshas = 0, window = 0, read = 0, want;
    int error, more = 1;

    memset(runs, 0, sizeof(*runs));
    if ((error = chain_of(&shas, &nshas, &chain, &at, repo, rev)) < 0)
        goto cleanup;
    window = limit < nshas ? limit : nshas;
    if (!(results = calloc(window ? window : 1, sizeof(*results)))) {
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    /* First the window and what its oldest point reads of a test measured at every
     * commit, so that a window of 30 reads 41 commits, not more, when nothing is
     * missing. */
    want = window + culprit_detect_check_history_need(opts);
    want = want < nshas ? want : nshas;
    while (more) {
        results_dispose(results, window);
        if ((error = read_more(runs, chain, read, want, load, payload)) < 0 ||
            (error = judge_window(results, &more, runs, &at, chain, nshas, window, want, opts)) < 0)
            goto cleanup;
        read = want;
        want = window + (read - window) * READ_GROWTH;
        want = want < nshas ? want : nshas;
    }
    if ((error = window_commits(&commits, repo, shas, window)) < 0 ||
        (error = culprit_report__set_window(report, commits, window, nshas)) < 0)
        goto cleanup;
    for (size_t k = window; k-- > 0 && error == 0;)
        error = culprit_report__add_points(report, &results[k], k);
cleanup:
    results_dispose(results, window);
    free(results);
    commits_free(commits, window);
    culprit_strmap_dispose(&at);
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
