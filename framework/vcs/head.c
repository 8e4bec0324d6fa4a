/*
 * The commit a run measures. History is keyed by commit, so every run records
 * HEAD's sha, the branch and a dirty flag (a dirty tree measures code that no
 * commit holds; later comparisons can tell). Status is read without refreshing
 * the index, so running tests never modifies the user's repository.
 *
 * A run whose commit is given ($CULPRIT_COMMIT) needs only the work tree and the
 * branch: culprit_vcs_head_locate() reads them from .git and HEAD without starting
 * libgit2 (whose start parses the system's CA certificates) or scanning the status.
 */
#include "vcs_internal.h"

#include "culprit/core.h"

#include <git2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
    culprit_vcs__start();
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
    if (error < 0)
        culprit_vcs_head_dispose(out);
    return error;
}

/* ---------------------------------------------------------------------------------
 * Locating HEAD without libgit2 (a run whose commit is given)
 * ------------------------------------------------------------------------------ */

/* A small file's first line, without its line break; NULL when it cannot be read. */
static char *first_line(const char *path)
{
    culprit_buf text = CULPRIT_BUF_INIT;
    const char *t;
    char *line = NULL;

    if (culprit_fs_read_file(&text, path) == 0) {
        t = culprit_buf_cstr(&text);
        line = strndup(t, strcspn(t, "\r\n"));
    }
    culprit_buf_dispose(&text);
    culprit_error_clear();
    return line;
}

/* The git directory of the working tree at `dir`: its `.git` directory, or what a
 * `.git` file names ("gitdir: PATH", a linked worktree or a submodule; PATH relative
 * to `dir` unless absolute). NULL when `dir` has no `.git`. */
static char *git_dir_at(const char *dir)
{
    char *dotgit = culprit_fs_join(dir, ".git"), *line = NULL, *out = NULL;
    struct stat st;

    if (!dotgit || stat(dotgit, &st) < 0)
        goto cleanup;
    if (S_ISDIR(st.st_mode)) {
        out = dotgit;
        dotgit = NULL;
    } else if (S_ISREG(st.st_mode) && (line = first_line(dotgit)) &&
               !strncmp(line, "gitdir: ", 8) && line[8]) {
        out = line[8] == '/' ? culprit_strdup(line + 8) : culprit_fs_join(dir, line + 8);
    }
cleanup:
    free(dotgit);
    free(line);
    return out;
}

/* The branch HEAD names in `git_dir` ("ref: refs/heads/NAME"), NULL when detached. */
static int head_branch(char **out, const char *git_dir)
{
    char *path = culprit_fs_join(git_dir, "HEAD"), *line = path ? first_line(path) : NULL;
    int error = 0;

    *out = NULL;
    if (!path)
        error = CULPRIT_ERROR_NOMEM();
    else if (line && !strncmp(line, "ref: refs/heads/", 16) && line[16] &&
             !(*out = culprit_strdup(line + 16)))
        error = CULPRIT_ERROR;
    free(path);
    free(line);
    return error;
}

int culprit_vcs_head_locate(culprit_vcs_head *out, const char *path)
{
    char *dir, *git_dir = NULL;
    struct stat st;
    dev_t dev;
    int error = 0;

    memset(out, 0, sizeof(*out));
    /* Upwards (realpath: absolute), as git and libgit2 search, not across a file
     * system's boundary. */
    if ((dir = realpath(path, NULL)) && stat(dir, &st) == 0) {
        dev = st.st_dev;
        while (!(git_dir = git_dir_at(dir)) && strcmp(dir, "/") != 0) {
            char *slash = strrchr(dir, '/');
            slash[slash == dir] = '\0'; /* "/a/b" -> "/a", "/a" -> "/" */
            if (stat(dir, &st) < 0 || st.st_dev != dev)
                break;
        }
    }
    if (!git_dir) {
        error = culprit_error_set(CULPRIT_ENOTFOUND, "'%s' is not in a git working tree", path);
        goto cleanup;
    }
    if ((error = head_branch(&out->branch, git_dir)) < 0)
        goto cleanup;
    out->workdir = dir;
    dir = NULL;
cleanup:
    free(dir);
    free(git_dir);
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
