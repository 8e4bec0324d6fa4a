/*
 * Temporary checkouts: the files of a commit written into a fresh directory outside
 * the user's working tree, so bisection can build old versions while the developer's
 * checkout, index, HEAD, refs and stash stay exactly as they were.
 *
 * Why blobs are written here rather than by git_checkout_tree(): libgit2's checkout
 * always works against an index (the repository's, unless one is swapped in) and a
 * baseline, and decides what to write from the stat data of that index; pointed at
 * another directory, it compares that directory with the user's index. Writing the
 * tree ourselves reads only objects, never the index, and switching in place is a
 * tree-to-tree diff of the two commits: exactly the files that differ are replaced,
 * the others keep their modification times, so make and ninja rebuild only what
 * changed. `git worktree add` is ruled out because it registers the worktree in .git.
 *
 * Live checkouts are kept in a process-wide registry of fixed-size slots, so that a
 * signal handler can remove them without allocating or locking (see
 * culprit_vcs_checkout_remove_all()).
 */
#define _GNU_SOURCE /* renameat2 */
#include "vcs_internal.h"

#include "culprit/core.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

struct culprit_vcs_checkout {
    culprit_vcs *repo;
    char *path;
    char sha[41];
    git_oid tree;
    size_t submodules;
    int slot;
    int allow_submodules;
};

/* ---------------------------------------------------------------------------------
 * The registry
 *
 * A slot's path is written while its flag is 0 and published by setting the flag
 * with release order; the remover reads flags with acquire order, so it never sees
 * a half-written path. Claiming and freeing slots takes a mutex (threads); the
 * remover takes none (signal handlers may not).
 * ------------------------------------------------------------------------------ */

static struct {
    char path[PATH_MAX];
    int live;
} registry[CULPRIT_VCS_MAX_CHECKOUTS];
_Static_assert(CULPRIT_VCS_MAX_CHECKOUTS <= CULPRIT_FS_SIGNAL_SAFE_MAX,
               "culprit_vcs_checkout_remove_all() removes every checkout in one call");
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static int registry_claimed[CULPRIT_VCS_MAX_CHECKOUTS];

static int registry_add(const char *path)
{
    int i, slot = -1;

    if (strlen(path) >= PATH_MAX)
        return culprit_error_set(CULPRIT_EINVALID, "checkout path too long: %s", path);
    pthread_mutex_lock(&registry_lock);
    for (i = 0; i < CULPRIT_VCS_MAX_CHECKOUTS && slot < 0; i++)
        if (!registry_claimed[i])
            slot = i;
    if (slot >= 0) {
        registry_claimed[slot] = 1;
        strcpy(registry[slot].path, path);
        __atomic_store_n(&registry[slot].live, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&registry_lock);
    if (slot < 0)
        return culprit_error_set(CULPRIT_ERROR, "more than %d temporary checkouts at once",
                                 CULPRIT_VCS_MAX_CHECKOUTS);
    return slot;
}

static void registry_remove(int slot)
{
    if (slot < 0)
        return;
    pthread_mutex_lock(&registry_lock);
    __atomic_store_n(&registry[slot].live, 0, __ATOMIC_RELEASE);
    registry_claimed[slot] = 0;
    pthread_mutex_unlock(&registry_lock);
}

int culprit_vcs_checkout_remove_all(void)
{
    char *paths[CULPRIT_VCS_MAX_CHECKOUTS];
    int i, n = 0;

    for (i = 0; i < CULPRIT_VCS_MAX_CHECKOUTS; i++)
        if (__atomic_load_n(&registry[i].live, __ATOMIC_ACQUIRE))
            paths[n++] = registry[i].path;
    /* From a signal handler: rm -rf run by fork and execve, the safe calls. */
    if (culprit_fs_remove_trees_signal_safe(paths, n) < 0)
        return -1;
    /* The slots stay claimed: their handles still point at them, and freeing a
     * slot from a handler could race with a thread claiming it. */
    for (i = 0; i < CULPRIT_VCS_MAX_CHECKOUTS; i++)
        __atomic_store_n(&registry[i].live, 0, __ATOMIC_RELEASE);
    return n;
}

/* ---------------------------------------------------------------------------------
 * Files
 * ------------------------------------------------------------------------------ */

/* Removes `rel` from the checkout and the directories it leaves empty. */
static int remove_path(const char *root, const char *rel)
{
    char *full = culprit_fs_join(root, rel), *slash;
    int error = 0;

    if (!full)
        return CULPRIT_ERROR;
    if (unlink(full) < 0 && errno != ENOENT) {
        if (errno == EISDIR || errno == EPERM) /* a submodule's empty directory */
            (void)rmdir(full);
        else
            error = culprit_error_set_os("cannot delete '%s'", full);
    }
    /* Parents left empty go too, as git does; stop at the first one that is not
     * empty (ENOTEMPTY, EEXIST) and never go above the checkout's root. */
    while (error == 0 && (slash = strrchr(full, '/')) != NULL &&
           (size_t)(slash - full) > strlen(root)) {
        *slash = '\0';
        if (rmdir(full) < 0)
            break;
    }
    free(full);
    return error;
}

static int write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, data, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        data += w;
        len -= (size_t)w;
    }
    return 0;
}

/* Writes one blob to root/rel, replacing whatever is there by a rename. */
static int write_blob(culprit_vcs_checkout *co, const char *rel, const git_oid *id,
                      git_filemode_t mode)
{
    git_blob *blob = NULL;
    char *full = NULL, *tmp = NULL, *slash;
    const char *data;
    size_t len;
    int error = 0, fd = -1;

    if (!(full = culprit_fs_join(co->path, rel)) || !(tmp = malloc(strlen(full) + 16))) {
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    if (git_blob_lookup(&blob, co->repo->git, id) < 0) {
        error = culprit_vcs__git_error(CULPRIT_ERROR, "cannot read a file of the commit");
        goto cleanup;
    }
    slash = strrchr(full, '/');
    *slash = '\0';
    error = culprit_fs_mkdir_p(full);
    *slash = '/';
    if (error < 0)
        goto cleanup;
    data = git_blob_rawcontent(blob);
    len = (size_t)git_blob_rawsize(blob);
    sprintf(tmp, "%s.culprit-tmp", full);
    (void)unlink(tmp);
    if (mode == GIT_FILEMODE_LINK) {
        char *target = strndup(data, len);
        if (!target) {
            error = CULPRIT_ERROR_NOMEM();
            goto cleanup;
        }
        if (symlink(target, tmp) < 0)
            error = culprit_error_set_os("cannot create the symlink '%s'", full);
        free(target);
        if (error < 0)
            goto cleanup;
    } else {
        fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                  mode == GIT_FILEMODE_BLOB_EXECUTABLE ? 0777 : 0666);
        if (fd < 0 || write_all(fd, data, len) < 0) {
            error = culprit_error_set_os("cannot write '%s'", full);
            goto cleanup;
        }
        if (close(fd) < 0) {
            fd = -1;
            error = culprit_error_set_os("cannot write '%s'", full);
            goto cleanup;
        }
        fd = -1;
    }
    if (rename(tmp, full) < 0) {
        error = culprit_error_set_os("cannot write '%s'", full);
        goto cleanup;
    }
cleanup:
    if (fd >= 0)
        close(fd);
    if (error < 0 && tmp)
        (void)unlink(tmp);
    git_blob_free(blob);
    free(tmp);
    free(full);
    return error;
}

/* A gitlink: not checked out (its commit is in another repository); an empty
 * directory stands for it, as after `git clone` without --recurse-submodules. */
static int place_submodule(culprit_vcs_checkout *co, const char *rel)
{
    char *full;
    int error;

    if (!co->allow_submodules)
        return culprit_error_set(CULPRIT_EINVALID,
                                 "commit %s has a submodule at '%s': temporary checkouts do "
                                 "not check out submodules (allow_submodules leaves it empty)",
                                 co->sha, rel);
    co->submodules++;
    if (!(full = culprit_fs_join(co->path, rel)))
        return CULPRIT_ERROR;
    error = culprit_fs_mkdir_p(full);
    free(full);
    return error;
}

static int place_entry(culprit_vcs_checkout *co, const char *rel, const git_oid *id,
                       git_filemode_t mode)
{
    if (mode == GIT_FILEMODE_COMMIT)
        return place_submodule(co, rel);
    return write_blob(co, rel, id, mode);
}

typedef struct {
    culprit_vcs_checkout *co;
    int error;
} walk_payload;

static int write_tree_entry(const char *root, const git_tree_entry *entry, void *payload)
{
    walk_payload *p = payload;
    git_filemode_t mode = git_tree_entry_filemode(entry);
    char *rel;

    if (mode == GIT_FILEMODE_TREE)
        return 0;
    if (!(rel = malloc(strlen(root) + strlen(git_tree_entry_name(entry)) + 1))) {
        p->error = CULPRIT_ERROR_NOMEM();
        return -1;
    }
    sprintf(rel, "%s%s", root, git_tree_entry_name(entry));
    p->error = place_entry(p->co, rel, git_tree_entry_id(entry), mode);
    free(rel);
    return p->error < 0 ? -1 : 0;
}

/* The tree of commit `sha`, its id, and the commit's id in `sha_out`. */
static int tree_of(git_tree **out, git_oid *tree_id, char sha_out[41], culprit_vcs *repo,
                   const char *sha)
{
    git_commit *commit = NULL;
    int error;

    *out = NULL;
    if ((error = culprit_vcs__lookup_commit(&commit, repo, sha)) < 0)
        return error;
    if (git_commit_tree(out, commit) < 0)
        error = culprit_vcs__git_error(CULPRIT_ERROR, "cannot read the tree of a commit");
    else {
        git_oid_cpy(tree_id, git_commit_tree_id(commit));
        git_oid_tostr(sha_out, 41, git_commit_id(commit));
    }
    git_commit_free(commit);
    return error;
}

/* The parent directory must not lie in the working tree or the git directory:
 * a checkout there would show up in `git status` or be taken for repository data. */
static int check_outside(culprit_vcs *repo, const char *real_parent)
{
    const char *roots[2];
    size_t i, len;

    roots[0] = repo->workdir;
    roots[1] = git_repository_path(repo->git);
    for (i = 0; i < 2; i++) {
        char real_root[PATH_MAX];
        if (!roots[i] || !realpath(roots[i], real_root))
            continue;
        len = strlen(real_root);
        while (len > 1 && real_root[len - 1] == '/')
            real_root[--len] = '\0';
        if (strncmp(real_parent, real_root, len) == 0 &&
            (real_parent[len] == '\0' || real_parent[len] == '/'))
            return culprit_error_set(CULPRIT_EINVALID,
                                     "temporary checkouts go outside the repository, "
                                     "not in '%s' (inside '%s')",
                                     real_parent, real_root);
    }
    return 0;
}

/* ---------------------------------------------------------------------------------
 * Public
 * ------------------------------------------------------------------------------ */

int culprit_vcs_checkout_options_init(culprit_vcs_checkout_options *opts, unsigned int version)
{
    static const culprit_vcs_checkout_options defaults = CULPRIT_VCS_CHECKOUT_OPTIONS_INIT;

    return culprit_options_init_from(opts, &defaults, sizeof(defaults), version,
                                     CULPRIT_VCS_CHECKOUT_OPTIONS_VERSION, "checkout");
}

/* A new, empty, registered checkout directory under opts' parent (*out owns it). */
static int new_checkout(culprit_vcs_checkout **out, culprit_vcs *repo,
                        const culprit_vcs_checkout_options *opts)
{
    culprit_vcs_checkout_options defaults = CULPRIT_VCS_CHECKOUT_OPTIONS_INIT;
    culprit_vcs_checkout *co;
    culprit_buf dir = CULPRIT_BUF_INIT;
    const char *parent;
    char real_parent[PATH_MAX];
    int error;

    *out = NULL;
    opts = opts ? opts : &defaults;
    if (opts->version != CULPRIT_VCS_CHECKOUT_OPTIONS_VERSION)
        return culprit_options_check_version(opts->version, CULPRIT_VCS_CHECKOUT_OPTIONS_VERSION,
                                             "checkout");
    /* By default in the process's temporary directory, removed with it. */
    if (!(parent = opts->parent_dir) && (error = culprit_fs_temp_dir(&parent)) < 0)
        return error;
    if (!realpath(parent, real_parent))
        return culprit_error_set_os("cannot use '%s' for temporary checkouts", parent);
    if ((error = check_outside(repo, real_parent)) < 0)
        return error;
    if (!(co = calloc(1, sizeof(*co))))
        return CULPRIT_ERROR_NOMEM();
    co->repo = repo;
    co->slot = -1;
    co->allow_submodules = opts->allow_submodules;
    /* checkout-XXXXXX in the process's directory; in a parent of the caller's,
     * culprit-checkout-<host>-<pid>.<start>-XXXXXX: either way the checkouts of a
     * bisection killed with SIGKILL (no handler runs) are removed by the next one. */
    if ((error = culprit_fs_make_temp(&dir, opts->parent_dir ? real_parent : NULL, "checkout", 1)) <
        0) {
        culprit_buf_dispose(&dir);
        free(co);
        return error;
    }
    co->path = culprit_buf_detach(&dir);
    /* Registered before the first file is written: a signal from here on finds it. */
    if ((co->slot = registry_add(co->path)) < 0) {
        error = co->slot;
        (void)rmdir(co->path);
        free(co->path);
        free(co);
        return error;
    }
    *out = co;
    return 0;
}

/* Removes a checkout that failed half-way, keeping the failure's message. */
static void discard(culprit_vcs_checkout *co)
{
    culprit_error_state saved;

    if (!co)
        return;
    culprit_error_save(&saved);
    (void)culprit_vcs_checkout_remove(co);
    culprit_error_restore(&saved);
}

int culprit_vcs_checkout_create(culprit_vcs_checkout **out, culprit_vcs *repo, const char *sha,
                                const culprit_vcs_checkout_options *opts)
{
    culprit_vcs_checkout *co = NULL;
    git_tree *tree = NULL;
    walk_payload payload;
    int error;

    *out = NULL;
    if ((error = new_checkout(&co, repo, opts)) < 0)
        return error;
    if ((error = tree_of(&tree, &co->tree, co->sha, repo, sha)) < 0)
        goto cleanup;
    payload.co = co;
    payload.error = 0;
    if (git_tree_walk(tree, GIT_TREEWALK_PRE, write_tree_entry, &payload) < 0) {
        error = payload.error < 0
                    ? payload.error
                    : culprit_vcs__git_error(CULPRIT_ERROR, "cannot read the tree of a commit");
        goto cleanup;
    }
    *out = co;
    co = NULL;
cleanup:
    git_tree_free(tree);
    discard(co);
    return error;
}

int culprit_vcs_checkout_copy(culprit_vcs_checkout **out, const culprit_vcs_checkout *src,
                              const char *sha, const culprit_vcs_checkout_options *opts)
{
    culprit_vcs_checkout *co = NULL;
    int error;

    *out = NULL;
    if ((error = new_checkout(&co, src->repo, opts)) < 0)
        return error;
    if ((error = culprit_fs_copy_tree(src->path, co->path)) < 0) {
        culprit_error_prefix("cannot copy the checkout '%s': ", src->path);
        goto cleanup;
    }
    /* The copy holds src's commit; switching writes only what differs from it. */
    memcpy(co->sha, src->sha, sizeof(co->sha));
    git_oid_cpy(&co->tree, &src->tree);
    co->submodules = src->submodules;
    if ((error = culprit_vcs_checkout_switch(co, sha)) < 0)
        goto cleanup;
    *out = co;
    co = NULL;
cleanup:
    discard(co);
    return error;
}

int culprit_vcs_checkout_exchange(culprit_vcs_checkout *a, culprit_vcs_checkout *b)
{
    char *path;
    int slot;

    if (renameat2(AT_FDCWD, a->path, AT_FDCWD, b->path, RENAME_EXCHANGE) < 0) {
        int unsupported = errno == EINVAL || errno == ENOSYS || errno == ENOTSUP;
        culprit_error_set_os("cannot exchange the checkouts '%s' and '%s'", a->path, b->path);
        return unsupported ? culprit_error_recode(CULPRIT_ESKIP) : CULPRIT_EIO;
    }
    /* Each handle follows its files; the registry still lists both paths. */
    path = a->path, a->path = b->path, b->path = path;
    slot = a->slot, a->slot = b->slot, b->slot = slot;
    return 0;
}

int culprit_vcs_checkout_switch(culprit_vcs_checkout *co, const char *sha)
{
    git_tree *old_tree = NULL, *new_tree = NULL;
    git_diff *diff = NULL;
    git_diff_options diff_opts;
    git_oid new_id;
    char new_sha[41];
    size_t i, n, submodules;
    int error = 0, pass;

    git_diff_options_init(&diff_opts, GIT_DIFF_OPTIONS_VERSION);
    if ((error = tree_of(&new_tree, &new_id, new_sha, co->repo, sha)) < 0)
        goto cleanup;
    if (git_tree_lookup(&old_tree, co->repo->git, &co->tree) < 0 ||
        git_diff_tree_to_tree(&diff, co->repo->git, old_tree, new_tree, &diff_opts) < 0) {
        error = culprit_vcs__git_error(CULPRIT_ERROR, "cannot compare the trees of two commits");
        goto cleanup;
    }
    /* The commit is what later errors name. */
    memcpy(co->sha, new_sha, sizeof(co->sha));
    submodules = co->submodules;
    n = git_diff_num_deltas(diff);
    /* Deletions first, writes second: "a/x" must be gone before the file "a" is
     * written, and deltas come sorted by path ("a" before "a/x"). */
    for (pass = 0; pass < 2; pass++) {
        for (i = 0; i < n; i++) {
            const git_diff_delta *d = git_diff_get_delta(diff, i);
            int removes = d->status == GIT_DELTA_DELETED || d->status == GIT_DELTA_TYPECHANGE;
            int writes = d->status != GIT_DELTA_DELETED;

            if (pass == 0 && removes) {
                if (d->old_file.mode == GIT_FILEMODE_COMMIT && submodules > 0)
                    submodules--;
                if ((error = remove_path(co->path, d->old_file.path)) < 0)
                    goto cleanup;
            } else if (pass == 1 && writes) {
                if ((error = place_entry(co, d->new_file.path, &d->new_file.id, d->new_file.mode)) <
                    0)
                    goto cleanup;
            }
        }
        if (pass == 0)
            co->submodules = submodules;
    }
    git_oid_cpy(&co->tree, &new_id);
cleanup:
    git_diff_free(diff);
    git_tree_free(old_tree);
    git_tree_free(new_tree);
    return error;
}

const char *culprit_vcs_checkout_path(const culprit_vcs_checkout *co)
{
    return co ? co->path : NULL;
}

const char *culprit_vcs_checkout_sha(const culprit_vcs_checkout *co)
{
    return co ? co->sha : NULL;
}

size_t culprit_vcs_checkout_submodules(const culprit_vcs_checkout *co)
{
    return co ? co->submodules : 0;
}

int culprit_vcs_checkout_remove(culprit_vcs_checkout *co)
{
    int error = 0;

    if (!co)
        return 0;
    /* The core's walk: build outputs may hold read-only directories and deep
     * trees, and it opens the former up and keeps one descriptor per level. */
    if (co->path && (error = culprit_fs_remove_tree(co->path)) < 0)
        error = culprit_error_prefix("cannot delete the temporary checkout '%s': ", co->path);
    registry_remove(co->slot);
    free(co->path);
    free(co);
    return error;
}
