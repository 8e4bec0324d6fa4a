/*
 * The history ref on a remote: fetched into a tracking ref and merged
 * (refstore.c's union of trees), pushed without force and, when the push is
 * rejected because another job pushed first, fetched, merged and pushed again.
 *
 * The network is the user's `git` (culprit_process_run), not libgit2: credential
 * helpers, SSH configuration, `insteadOf` rewrites and the tokens CI systems put
 * into the git configuration (actions/checkout's `http.extraheader`, GitLab's
 * CI_JOB_TOKEN in the remote URL) all work exactly as they do for the user's own
 * `git fetch`, and libgit2 supports neither credential helpers nor extra headers.
 * The local object database and refs stay libgit2's (refstore.c): no working tree,
 * index or HEAD is touched, and `git` is never given a command that touches them.
 */
#include "vcs_internal.h"

#include "culprit/core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

/* A pushed ref a remote refuses for good after this many rounds is an error. */
#define PUSH_ATTEMPTS 100

/* A remote is a name or a URL; its tracking ref keeps [A-Za-z0-9._-] of it. */
static void tracking_ref(char out[256], const char *remote)
{
    size_t k = (size_t)snprintf(out, 256, "refs/culprit/remotes/");

    for (const char *p = remote; *p && k < 256 - 16; p++) {
        char c = *p;
        int keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                   c == '_' || c == '-';
        out[k++] = keep ? c : '-';
    }
    snprintf(out + k, 256 - k, "/history");
}

/* Runs `git --git-dir=<repo> args...` with its output captured. */
static int run_git(culprit_process_result *res, culprit_vcs *repo, const char *const *args,
                   size_t nargs)
{
    const char *argv[16];
    char gitdir[4200];
    culprit_process_options o = CULPRIT_PROCESS_OPTIONS_INIT;
    /* The C locale: messages are searched ("[rejected]" is porcelain anyway), and a
     * terminal prompt would hang a CI job forever. */
    const char *env[] = {"LC_ALL=C", "GIT_TERMINAL_PROMPT=0", NULL};
    size_t k = 0;

    snprintf(gitdir, sizeof(gitdir), "--git-dir=%s", git_repository_path(repo->git));
    argv[k++] = "git";
    argv[k++] = gitdir;
    for (size_t i = 0; i < nargs && k < 15; i++)
        argv[k++] = args[i];
    argv[k] = NULL;
    o.argv = argv;
    o.env = env;
    o.output = CULPRIT_PROCESS_CAPTURE;
    o.tail = 4096;
    return culprit_process_run(res, &o);
}

static int git_failed(const culprit_process_result *res, const char *what)
{
    culprit_buf msg = CULPRIT_BUF_INIT;
    int error;

    culprit_process_describe(&msg, res, what, 0);
    error = culprit_error_set(CULPRIT_ERROR, "%s", culprit_buf_cstr(&msg));
    culprit_buf_dispose(&msg);
    return error;
}

/* Fetches the remote's history ref into the tracking ref. A remote without one
 * is no error (a first push): the pattern refspec then matches nothing. */
static int fetch(culprit_vcs *repo, const char *remote, const char *tracking)
{
    culprit_process_result res = {0};
    char spec[600];
    const char *args[] = {"fetch", "--quiet", "--no-tags", "--no-write-fetch-head", remote, spec};
    int error;

    /* "history*": a pattern, so that a remote without the ref fetches nothing
     * instead of failing with "couldn't find remote ref". */
    snprintf(spec, sizeof(spec), "+%s*:%s*", CULPRIT_VCS_HISTORY_REF, tracking);
    if ((error = run_git(&res, repo, args, 6)) == 0 && !culprit_process_succeeded(&res))
        error = git_failed(&res, "`git fetch` of the shared history");
    culprit_process_result_dispose(&res);
    return error;
}

int culprit_vcs_history_pull(culprit_vcs_merge_result *out, culprit_vcs *repo, const char *remote)
{
    char tracking[256];
    int error;

    memset(out, 0, sizeof(*out));
    if (!remote || !*remote || remote[0] == '-')
        return culprit_error_set(CULPRIT_EINVALID, "'%s' is not a remote", remote ? remote : "");
    tracking_ref(tracking, remote);
    if ((error = fetch(repo, remote, tracking)) < 0)
        return error;
    return culprit_vcs_ref_merge(out, repo, CULPRIT_VCS_HISTORY_REF, tracking);
}

/* 1 when git's porcelain output says the ref was refused because the remote moved
 * ("[rejected] (fetch first)", "non-fast-forward", or a lock another push held). */
static int rejected(const culprit_process_result *res)
{
    const char *out = res->output ? res->output : "";
    return strstr(out, "\t[rejected]") || strstr(out, "\t[remote rejected]") ||
           strstr(out, "non-fast-forward") || strstr(out, "fetch first");
}

/* Sleeps a random 10..(10 + 40 * round) ms, at most a second: concurrent jobs that
 * collided spread out instead of colliding again in step. */
static void back_off(unsigned int round)
{
    unsigned int r = 0;
    unsigned int span = 40 * (round + 1) < 1000 ? 40 * (round + 1) : 1000;
    struct timespec ts;

    if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
        r = (unsigned int)clock();
    ts.tv_sec = 0;
    ts.tv_nsec = (long)(10 + r % span) * 1000000L;
    nanosleep(&ts, NULL);
}

int culprit_vcs_history_push(culprit_vcs_push_result *out, culprit_vcs *repo, const char *remote)
{
    culprit_process_result res = {0};
    culprit_vcs_merge_result merged;
    char spec[300];
    const char *args[] = {"push", "--porcelain", remote, spec};
    int error = 0;

    memset(out, 0, sizeof(*out));
    snprintf(spec, sizeof(spec), "%s:%s", CULPRIT_VCS_HISTORY_REF, CULPRIT_VCS_HISTORY_REF);
    for (unsigned int round = 0; round < PUSH_ATTEMPTS; round++) {
        /* Fetch and merge first: the push is then a fast-forward unless another job
         * pushed in between, and the union never drops a run of either side. */
        if ((error = culprit_vcs_history_pull(&merged, repo, remote)) < 0)
            return error;
        out->conflicts += merged.conflicts;
        out->attempts = round + 1;
        culprit_process_result_dispose(&res);
        if ((error = run_git(&res, repo, args, 4)) < 0)
            return error;
        if (culprit_process_succeeded(&res))
            goto cleanup;
        if (!rejected(&res)) {
            error = git_failed(&res, "`git push` of the shared history");
            goto cleanup;
        }
        back_off(round);
    }
    error = git_failed(&res, "`git push` of the shared history, refused every time");
cleanup:
    culprit_process_result_dispose(&res);
    return error;
}
