/*
 * The history ref on a remote: fetched into a tracking ref and merged
 * (refstore.c's union of trees), pushed without force and, when the push is
 * rejected because another job pushed first, fetched, merged and pushed again.
 * Only such races are retried: a refusal that the next round would meet again (a
 * hook that declined, a protected ref, no permission) stops at once with the
 * remote's message, as `git push` itself does.
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

/* Rounds of fetch, merge and push a push may take when other jobs keep pushing
 * first: N concurrent pushers need up to N rounds (the remote takes one push at a
 * time; 20 pushers took at most 20 in bench_history_sync.sh), so a CI matrix of 50
 * jobs still gets through; with the backoff below, at most about 90 s of waiting in
 * all, half that expected. */
#define PUSH_ATTEMPTS 50

/* The longest wait between two rounds, in ms. */
#define BACKOFF_MAX_MS 2000

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
    /* No auto maintenance: the user's own git commands run it; here it was one more
     * process (about 0.1 s of a 1-run push's wall time at load 17). */
    const char *args[] = {
        "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-auto-maintenance",
        remote,  spec};
    int error;

    /* "history*": a pattern, so that a remote without the ref fetches nothing
     * instead of failing with "couldn't find remote ref". */
    snprintf(spec, sizeof(spec), "+%s*:%s*", CULPRIT_VCS_HISTORY_REF, tracking);
    if ((error = run_git(&res, repo, args, 7)) == 0 && !culprit_process_succeeded(&res))
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

/* The reasons git gives for a refused ref when another push came first: the
 * client saw the remote ahead ("[rejected] (fetch first)", "(non-fast-forward)"),
 * or the remote's ref moved between its advertisement and the update ("[remote
 * rejected] (failed to update ref)", "(failed to lock)", "(cannot lock ref ...)",
 * "(incorrect old value provided)"). Any other reason (a hook declined, a
 * protected or hidden ref, a shallow update, no permission) will not change. */
static const char *const race_reasons[] = {
    "[rejected] (fetch first)", "[rejected] (non-fast-forward)",
    "(failed to update ref)",   "(failed to lock)",
    "(cannot lock ref",         "(incorrect old value provided)",
};

/* 1 when the porcelain status line of the ref (`!\t<src>:<dst>\t<summary> (<reason>)`)
 * says it lost a race. Only that line is read: the remote's own messages (which a
 * hook writes freely) cannot make a refusal look like a race. */
static int lost_race(const culprit_process_result *res, const char *spec)
{
    const char *out = res->output ? res->output : "";

    for (const char *line = out; *line;
         line += strcspn(line, "\n") + (line[strcspn(line, "\n")] != 0)) {
        size_t len = strcspn(line, "\n"), speclen = strlen(spec);
        if (len < 3 + speclen || strncmp(line, "!\t", 2) != 0 ||
            strncmp(line + 2, spec, speclen) != 0 || line[2 + speclen] != '\t')
            continue;
        for (size_t i = 0; i < sizeof(race_reasons) / sizeof(race_reasons[0]); i++) {
            const char *hit = strstr(line, race_reasons[i]);
            if (hit && hit < line + len)
                return 1;
        }
        return 0;
    }
    return 0;
}

/* Sleeps before round `round` + 1: exponential backoff with full jitter (a random
 * 10 ms .. 10 + min(BACKOFF_MAX_MS, 50 * 2^round) ms), so that jobs that collided
 * spread out instead of colliding again in step, and a busy remote is given
 * longer each time. */
static void back_off(unsigned int round)
{
    unsigned int r = 0;
    unsigned int span = round < 6 ? 50u << round : BACKOFF_MAX_MS;
    struct timespec ts;

    if (span > BACKOFF_MAX_MS)
        span = BACKOFF_MAX_MS;
    if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
        r = (unsigned int)clock();
    r = 10 + r % (span + 1);
    ts.tv_sec = r / 1000;
    ts.tv_nsec = (long)(r % 1000) * 1000000L;
    nanosleep(&ts, NULL);
}

/*
 * 1 when the history ref holds what the last fetch from `remote` brought (it is that
 * commit or descends from it): unless another job pushed since, the push is then a
 * fast-forward without fetching first. A fetch is two `git` processes on each side
 * (fetch, upload-pack, rev-list): most of a 1-run push's wall time on a loaded machine
 * (1.3-1.5 s wall for 0.36 s of CPU at load 17). When another job did push, the remote
 * refuses ours before any object is sent ("[rejected] (fetch first)"), a race the loop
 * below answers with a fetch and merge, as `git push` users do with `git pull`.
 */
static int holds_last_fetch(culprit_vcs *repo, const char *remote)
{
    git_commit *mine = NULL, *theirs = NULL;
    char tracking[256];
    int holds = 0;

    tracking_ref(tracking, remote);
    if (culprit_vcs__ref_commit(&mine, repo, CULPRIT_VCS_HISTORY_REF) == 0 && mine &&
        culprit_vcs__ref_commit(&theirs, repo, tracking) == 0 && theirs)
        holds = git_oid_equal(git_commit_id(mine), git_commit_id(theirs)) ||
                git_graph_descendant_of(repo->git, git_commit_id(mine), git_commit_id(theirs)) == 1;
    culprit_error_clear(); /* not known: fetch first, as before */
    git_commit_free(mine);
    git_commit_free(theirs);
    return holds;
}

/* After a push: the remote's ref is what we pushed, as `git push` records it in a
 * remote-tracking ref, so that the next push can go first (best effort: a push that
 * finds it missing fetches first). */
static void record_pushed(culprit_vcs *repo, const char *remote)
{
    git_reference *ref = NULL;
    git_oid oid;
    char tracking[256];

    tracking_ref(tracking, remote);
    if (git_reference_name_to_id(&oid, repo->git, CULPRIT_VCS_HISTORY_REF) == 0)
        (void)git_reference_create(&ref, repo->git, tracking, &oid, 1, "culprit: pushed");
    git_reference_free(ref);
}

int culprit_vcs_history_push(culprit_vcs_push_result *out, culprit_vcs *repo, const char *remote)
{
    culprit_process_result res = {0};
    culprit_vcs_merge_result merged;
    char spec[300];
    /* No delta search: run files differ in their samples, so deltas between them
     * saved nothing (the same 40 MB for 200 runs of 1,000 tests) while the search
     * cost 83 s of the push's 98 s, 1.1 GB through a window of ten. */
    const char *args[] = {"-c", "pack.window=0", "push", "--porcelain", remote, spec};
    int error = 0;

    memset(out, 0, sizeof(*out));
    snprintf(spec, sizeof(spec), "%s:%s", CULPRIT_VCS_HISTORY_REF, CULPRIT_VCS_HISTORY_REF);
    int first = remote && *remote && remote[0] != '-' && holds_last_fetch(repo, remote);

    for (unsigned int round = 0; round < PUSH_ATTEMPTS; round++) {
        /* Fetch and merge first (unless the ref holds the last fetch: above): the push
         * is then a fast-forward unless another job pushed in between, and the union
         * never drops a run of either side. */
        if (!(first && round == 0)) {
            if ((error = culprit_vcs_history_pull(&merged, repo, remote)) < 0)
                return error;
            out->conflicts += merged.conflicts;
        }
        out->attempts = round + 1;
        culprit_process_result_dispose(&res);
        if ((error = run_git(&res, repo, args, 6)) < 0)
            return error;
        if (culprit_process_succeeded(&res)) {
            record_pushed(repo, remote);
            goto cleanup;
        }
        if (!lost_race(&res, spec)) {
            /* Nothing a next round could change: the remote's message, at once. */
            error = git_failed(&res, "`git push` of the shared history (refused, not retried)");
            goto cleanup;
        }
        /* A push that went first lost to a push made before it started: no backoff. */
        if (round + 1 < PUSH_ATTEMPTS && !(first && round == 0))
            back_off(round);
    }
    error = git_failed(&res, "`git push` of the shared history, beaten by other pushes in every "
                             "round");
cleanup:
    culprit_process_result_dispose(&res);
    return error;
}
