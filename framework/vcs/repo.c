/*
 * The repository handle: one git_repository opened by discovery (as git finds the
 * repository from the current directory) and kept for many queries, so bisection
 * and `culprit check` do not reopen the object database for every lookup. Also the
 * two helpers the other files share: libgit2 errors turned into culprit errors,
 * and the lookup of a commit by its full id.
 *
 * libgit2's global state is started once and kept for the process's life
 * (culprit_vcs__start()): a handle holds no reference of its own.
 */
#include "vcs_internal.h"

#include "culprit/core.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int culprit_vcs__git_error(int code, const char *what)
{
    const git_error *e = git_error_last();
    return culprit_error_set(code, "%s: %s", what,
                             e && e->message ? e->message : "unknown libgit2 error");
}

static void start_once(void)
{
    git_libgit2_init();
}

void culprit_vcs__start(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, start_once);
}

int culprit_vcs_open(culprit_vcs **out, const char *path)
{
    culprit_vcs *repo = NULL;
    const char *wd;
    int error = 0, rc;

    *out = NULL;
    if (!path || !*path)
        return culprit_error_set(CULPRIT_EINVALID, "no path to look for a git repository in");
    culprit_vcs__start();
    if (!(repo = calloc(1, sizeof(*repo))))
        return CULPRIT_ERROR_NOMEM();
    /* Flags 0: search upwards but stop at file-system boundaries, as git does by
     * default, and ignore GIT_DIR and friends: the path given is what counts. */
    rc = git_repository_open_ext(&repo->git, path, 0, NULL);
    if (rc == GIT_ENOTFOUND) {
        error = culprit_error_set(CULPRIT_ENOTFOUND,
                                  "'%s' is not in a git repository (nor any of its parents)", path);
        goto cleanup;
    } else if (rc < 0) {
        char what[64 + 4096];
        snprintf(what, sizeof(what), "cannot open the git repository of '%s'", path);
        error = culprit_vcs__git_error(CULPRIT_ERROR, what);
        goto cleanup;
    }
    if ((wd = git_repository_workdir(repo->git)) != NULL) {
        size_t len = strlen(wd);
        if (!(repo->workdir = culprit_strdup(wd))) {
            error = CULPRIT_ERROR;
            goto cleanup;
        }
        if (len > 1 && repo->workdir[len - 1] == '/')
            repo->workdir[len - 1] = '\0';
    }
    *out = repo;
    repo = NULL;
cleanup:
    culprit_vcs_free(repo);
    return error;
}

void culprit_vcs_free(culprit_vcs *repo)
{
    if (!repo)
        return;
    git_repository_free(repo->git);
    free(repo->workdir);
    free(repo);
}

const char *culprit_vcs_workdir(const culprit_vcs *repo)
{
    return repo ? repo->workdir : NULL;
}

int culprit_vcs__lookup_commit(git_commit **out, culprit_vcs *repo, const char *sha)
{
    git_oid oid;
    size_t i;
    int rc;

    *out = NULL;
    /* Full ids only: an abbreviation could become ambiguous as the repository
     * grows, and callers hold ids from culprit_vcs_resolve() anyway. */
    for (i = 0; sha && isxdigit((unsigned char)sha[i]); i++)
        ;
    if (!sha || i != GIT_OID_HEXSZ || sha[i] != '\0' || git_oid_fromstr(&oid, sha) < 0)
        return culprit_error_set(CULPRIT_EINVALID, "'%s' is not a full commit id (40 hex digits)",
                                 sha ? sha : "(null)");
    rc = git_commit_lookup(out, repo->git, &oid);
    if (rc == GIT_ENOTFOUND)
        return culprit_error_set(CULPRIT_ENOTFOUND, "no commit %s in the repository", sha);
    if (rc < 0) {
        char what[96];
        snprintf(what, sizeof(what), "cannot read commit %s", sha);
        return culprit_vcs__git_error(CULPRIT_ERROR, what);
    }
    return 0;
}
