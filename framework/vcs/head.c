/*
 * The commit a run measures. History is keyed by commit, so every run records
 * HEAD's sha, the branch and a dirty flag (a dirty tree measures code that no
 * commit holds; later comparisons can tell). Status is read without refreshing
 * the index, so running tests never modifies the user's repository.
 */
#include "culprit/vcs.h"
#include "culprit/core.h"

#include <git2.h>
#include <stdlib.h>
#include <string.h>

static int git_failure(const char *what, const char *path)
{
    const git_error *e = git_error_last();
    return culprit_error_set(CULPRIT_ERROR, "%s '%s': %s", what, path,
                             e && e->message ? e->message : "unknown libgit2 error");
}

static int is_dirty(int *out, git_repository *repo)
{
    git_status_options opts;
    git_status_list *list = NULL;

    git_status_options_init(&opts, GIT_STATUS_OPTIONS_VERSION);

    /* No GIT_STATUS_OPT_UPDATE_INDEX: the index on disk is never written. */
    opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
    /* As `git describe --dirty`: untracked files do not count, or culprit's own
     * .culprit/history would make every later run dirty. */
    opts.flags = GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
    if (git_status_list_new(&list, repo, &opts) < 0)
        return -1;
    *out = git_status_list_entrycount(list) > 0;
    git_status_list_free(list);
    return 0;
}

int culprit_vcs_head_describe(culprit_vcs_head *out, const char *path)
{
    git_repository *repo = NULL;
    git_reference *head = NULL;
    const git_oid *oid;
    int error = 0, rc;

    memset(out, 0, sizeof(*out));
    git_libgit2_init();
    rc = git_repository_open_ext(&repo, path, 0, NULL);
    if (rc == GIT_ENOTFOUND) {
        error = culprit_error_set(CULPRIT_ENOTFOUND, "'%s' is not in a git working tree", path);
        goto cleanup;
    } else if (rc < 0) {
        error = git_failure("cannot open the repository of", path);
        goto cleanup;
    }
    if (git_repository_is_bare(repo)) {
        error = culprit_error_set(CULPRIT_ENOTFOUND, "'%s' is a bare repository", path);
        goto cleanup;
    }
    rc = git_repository_head(&head, repo);
    if (rc == GIT_EUNBORNBRANCH || rc == GIT_ENOTFOUND) {
        error =
            culprit_error_set(CULPRIT_ENOTFOUND, "the repository of '%s' has no commit yet", path);
        goto cleanup;
    } else if (rc < 0 || !(oid = git_reference_target(head))) {
        error = git_failure("cannot read HEAD of", path);
        goto cleanup;
    }
    git_oid_tostr(out->sha, sizeof(out->sha), oid);
    if (git_reference_is_branch(head) &&
        !(out->branch = culprit_strdup(git_reference_shorthand(head)))) {
        error = CULPRIT_ERROR;
        goto cleanup;
    }
    if (is_dirty(&out->dirty, repo) < 0) {
        error = git_failure("cannot read the status of", path);
        goto cleanup;
    }
    {
        const char *wd = git_repository_workdir(repo);
        size_t len = strlen(wd);
        if (!(out->workdir = culprit_strdup(wd))) {
            error = CULPRIT_ERROR;
            goto cleanup;
        }
        if (len > 1 && out->workdir[len - 1] == '/')
            out->workdir[len - 1] = '\0';
    }
cleanup:
    git_reference_free(head);
    git_repository_free(repo);
    git_libgit2_shutdown();
    if (error < 0)
        culprit_vcs_head_dispose(out);
    return error;
}

void culprit_vcs_head_dispose(culprit_vcs_head *head)
{
    if (!head)
        return;
    free(head->branch);
    free(head->workdir);
    head->branch = head->workdir = NULL;
}
