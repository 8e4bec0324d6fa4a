/*
 * culprit vcs: what culprit needs from git, through libgit2. For now: the commit a
 * run measures (HEAD of the working tree), its branch and whether the tree is dirty.
 * Later issues add revisions, the commit DAG, diffs and temporary checkouts.
 * Nothing here writes to the repository: not the index, not HEAD, not refs.
 */
#ifndef CULPRIT_VCS_H
#define CULPRIT_VCS_H

#ifdef __cplusplus
extern "C" {
#endif

/** The checked-out commit of a working tree. */
typedef struct {
    char sha[41];  /**< HEAD's commit id, 40 hex digits */
    char *branch;  /**< short branch name, or NULL when HEAD is detached */
    int dirty;     /**< 1: tracked files differ from HEAD, staged or not (untracked files
                        do not count, as with `git describe --dirty`) */
    char *workdir; /**< root of the working tree, without a trailing '/' */
} culprit_vcs_head;

/**
 * Describes HEAD of the repository containing `path` (searched upwards, as git does).
 * CULPRIT_ENOTFOUND when `path` is not in a git working tree or HEAD has no commit
 * yet. Reads only: the index on disk is not refreshed or written.
 * Free with culprit_vcs_head_dispose(). Thread-safe.
 */
int culprit_vcs_head_describe(culprit_vcs_head *out, const char *path);
void culprit_vcs_head_dispose(culprit_vcs_head *head);

#ifdef __cplusplus
}
#endif

#endif
