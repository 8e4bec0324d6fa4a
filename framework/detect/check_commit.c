/*
 * culprit_detect_check_commit(): a whole `culprit check` of one commit through the library
 * alone. It reads the history source incrementally (the commit and as many
 * first-parent ancestors as a test measured at every commit needs,
 * culprit_detect_check_history_need(); CHECK_GROWTH times more while a test may lack
 * its baseline or its noise history: culprit_detect_check_wants_more()), selects the
 * judged metric in every run it read, judges (culprit_detect_check()), and with a
 * re-run hook re-judges the flagged tests (culprit_detect_check_flagged()) after their
 * re-runs. The tool (framework/cli/cmd_check.c) parses options and prints.
 */
#include "culprit/detect.h"

#include <stdlib.h>
#include <string.h>

/* How many times more commits a check reads while a test may lack history. */
#define CHECK_GROWTH 8

unsigned int culprit_detect_check_load_flags(const culprit_check_options *opts)
{
    return (opts->detectors & (CULPRIT_DETECTOR_CLUSTERS | CULPRIT_DETECTOR_RULES)) ||
                   opts->metric /* its summaries are recomputed from the series */
               ? CULPRIT_HISTORY_LOAD_SAMPLES
               : CULPRIT_HISTORY_LOAD_NO_SERIES; /* a time verdict reads summaries only */
}

int culprit_detect_check_load(culprit_history_runs *out, const culprit_history_source *src,
                              const culprit_check_options *opts, const char *const *commits,
                              size_t ncommits, culprit_history_warn_fn warn, void *payload)
{
    culprit_history_query query = {.flags = culprit_detect_check_load_flags(opts)};
    int error;

    query.commits = commits;
    query.ncommits = ncommits;
    if ((error = culprit_history_source_load(out, src, &query, warn, payload)) < 0)
        return error;
    for (size_t i = 0; opts->metric && i < out->nruns; i++)
        if ((error = culprit_detect_select_metric(out->runs[i], opts->metric,
                                                  opts->detect.confidence)) < 0) {
            culprit_history_runs_dispose(out);
            return error;
        }
    return 0;
}

/* One read and judgement: the runs of `commits` (all when n is 0) added to `runs`,
 * which holds those of the commits before them (or none). */
static int judge(culprit_check_result *result, culprit_history_runs *runs,
                 const culprit_history_source *src, const char *const *commits, size_t n,
                 const culprit_check_commit_options *o)
{
    const culprit_check_options *opts = o->check;
    culprit_history_runs more = {0, NULL, 0};
    int error;

    culprit_detect_check_result_dispose(result);
    if ((error = culprit_detect_check_load(&more, src, opts, commits, n, o->warn, o->payload)) <
            0 ||
        (error = culprit_history_runs_take(runs, &more)) < 0)
        return error;
    if (opts->test && (error = culprit_history_require_test(runs, opts->test,
                                                            culprit_history_source_dir(src))) < 0) {
        culprit_history_runs_dispose(runs);
        return error;
    }
    return culprit_detect_check(result, runs, o->commit, o->bases, o->nbases, opts);
}

/* Reads the newest ancestors a test measured at every commit needs (11 by default:
 * reading 32 tripled the cost of a check at 100,000 tests, issue 23), then
 * CHECK_GROWTH times more while a test may lack history (the whole store under
 * o->read_all). */
static int judge_along(culprit_check_result *result, culprit_history_runs *runs,
                       const culprit_history_source *src, const culprit_check_commit_options *o)
{
    const char **commits;
    size_t nbases = o->nbases, k = culprit_detect_check_history_need(o->check);
    int error = 0, more = 1;

    if (o->read_all)
        return judge(result, runs, src, NULL, 0, o);
    /* Each round reads only the commits the last one did not: runs already read are
     * kept, not read again. */
    k = k < nbases ? k : nbases;
    if (!(commits = malloc((nbases + 1) * sizeof(*commits))))
        return CULPRIT_ERROR_NOMEM();
    commits[0] = o->commit;
    memcpy(commits + 1, o->bases, nbases * sizeof(*commits));
    for (size_t read = 0; more && error == 0;) {
        more = 0;
        if ((error = judge(result, runs, src, commits + read, k + 1 - read, o)) < 0)
            break;
        read = k + 1;
        for (size_t i = 0; k < nbases && !more && i < result->n; i++)
            more = culprit_detect_check_wants_more(result, i, runs, o->check);
        k = k * CHECK_GROWTH < nbases ? k * CHECK_GROWTH : nbases;
    }
    free(commits);
    return error;
}

/* The re-runs of the flagged tests through o->rerun, then the whole store judged
 * again; o->unconfirmed hears of each test no longer flagged. */
static int rejudge(culprit_check_result *result, culprit_history_runs *runs,
                   const culprit_history_source *src, const culprit_check_commit_options *o)
{
    size_t n = result->n, reran = 0;
    char **keys = calloc(n ? n : 1, sizeof(*keys));
    int error = 0;

    if (!keys)
        return CULPRIT_ERROR_NOMEM();
    for (size_t i = 0; i < n && error == 0; i++) {
        if (!culprit_detect_check_flagged(result, i))
            continue;
        if (!(keys[i] = culprit_strdup(result->verdicts[i].test)))
            error = CULPRIT_ERROR;
        else if ((error = o->rerun(o->payload, result, i)) > 0)
            reran++;
        error = error < 0 ? error : 0; /* 1 (re-ran) goes on to the next test */
    }
    if (error < 0 || reran == 0)
        goto cleanup;
    culprit_history_runs_dispose(runs); /* read again, the re-runs with them */
    if ((error = judge(result, runs, src, NULL, 0, o)) < 0)
        goto cleanup;
    for (size_t i = 0; i < result->n; i++)
        for (size_t k = 0; k < n; k++)
            if (keys[k] && strcmp(keys[k], result->verdicts[i].test) == 0 &&
                !culprit_detect_check_flagged(result, i) && o->unconfirmed)
                o->unconfirmed(o->payload, &result->verdicts[i]);
cleanup:
    for (size_t i = 0; i < n; i++)
        free(keys[i]);
    free(keys);
    return error < 0 ? error : 0;
}

int culprit_detect_check_commit(culprit_check_result *result, culprit_history_runs *runs,
                                const culprit_history_source *src,
                                const culprit_check_commit_options *o)
{
    int error;

    memset(result, 0, sizeof(*result));
    memset(runs, 0, sizeof(*runs));
    if (!o || o->version != CULPRIT_CHECK_COMMIT_OPTIONS_VERSION || !o->check || !o->commit)
        return culprit_error_set(
            CULPRIT_EINVALID, "culprit_detect_check_commit: options of another version, or without "
                              "the check's options or the commit");
    if ((error = judge_along(result, runs, src, o)) < 0 || !o->rerun)
        return error;
    return rejudge(result, runs, src, o);
}
