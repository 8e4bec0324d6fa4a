/*
 * culprit vcs: what culprit needs from git, through libgit2: the commit a run
 * measures (HEAD of the working tree, its branch, whether the tree is dirty), and
 * on an open repository handle: revisions, first-parent history, ancestry and the
 * facts a report shows about a commit. Later issues add diffs and temporary checkouts.
 * Nothing here writes to the repository: not the index, not HEAD, not refs.
 *
 * Threads: the last error is thread-local (culprit_error_last()). A culprit_vcs
 * handle may be used by one thread at a time (libgit2's rule for git_repository);
 * distinct handles, even on the same repository, may be used concurrently.
 */
#ifndef CULPRIT_VCS_H
#define CULPRIT_VCS_H

#include <stddef.h>
#include <stdint.h>

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

/* ---------------------------------------------------------------------------------
 * Repository handle
 * ------------------------------------------------------------------------------ */

/** An open repository, read-only. Opaque; create with culprit_vcs_open(). */
typedef struct culprit_vcs culprit_vcs;

/**
 * Opens the repository containing `path`, searched upwards from it as git does
 * (`path` may be the working tree, a directory inside it, or a .git directory).
 * Bare repositories open too; their culprit_vcs_workdir() is NULL.
 * CULPRIT_ENOTFOUND, with a message naming `path`, when it is not inside a git
 * repository; CULPRIT_ERROR when it is but cannot be read.
 * The caller owns `*out` (NULL on failure) and frees it with culprit_vcs_free().
 * Thread-safe.
 */
int culprit_vcs_open(culprit_vcs **out, const char *path);

/** Closes the repository. NULL is a harmless no-op. */
void culprit_vcs_free(culprit_vcs *repo);

/**
 * The root of the working tree, without a trailing '/', or NULL for a bare
 * repository. Borrowed from `repo`: valid until culprit_vcs_free().
 */
const char *culprit_vcs_workdir(const culprit_vcs *repo);

/* ---------------------------------------------------------------------------------
 * Revisions
 *
 * Functions that take a `*_sha` argument want a full 40-hex commit id, as
 * culprit_vcs_resolve() returns; anything else is CULPRIT_EINVALID, and a well-formed
 * id that is not a commit of the repository is CULPRIT_ENOTFOUND.
 * ------------------------------------------------------------------------------ */

/**
 * Resolves `rev` to a commit id, as `git rev-parse --verify REV^{commit}` does:
 * full or abbreviated ids, branch, tag and remote-branch names, full ref names,
 * `HEAD`, `@`, `HEAD~3`, `main^2`, `v1.0^{}`, `main@{1}`, `git describe` output...
 * Annotated tags are peeled to the commit they point to.
 * Writes 40 hex digits and a NUL to `sha_out`.
 *
 * Errors (the message names `rev`):
 * - CULPRIT_ENOTFOUND: no such revision. When no branch or tag of that name
 *   exists, the message lists the near matches culprit_vcs_near_refs() finds
 *   ("unknown revision 'mian'; did you mean 'main'?");
 * - CULPRIT_EINVALID: an abbreviated id shared by several objects, a revision that
 *   names a tree or a blob and not a commit, a range ("a..b") or an empty string;
 * - CULPRIT_ERROR: the repository cannot be read.
 */
int culprit_vcs_resolve(char sha_out[41], culprit_vcs *repo, const char *rev);

/**
 * Branch, tag and remote-branch names (short forms: "main", "v1.0", "origin/main")
 * that are close to `rev`, for "did you mean" messages: within a small edit
 * distance (insertions, deletions, substitutions and swaps of neighbours, ignoring
 * case; at most 1 for names up to 4 characters, 2 up to 8, 3 beyond), or starting
 * with `rev`. Only the name part of `rev` is compared: "mian~2" looks for "mian".
 * Closest first, ties in byte order; at most `max` names (0 = no limit).
 *
 * `*names_out` is a NULL-terminated array of `*n_out` strings (an empty array when
 * nothing is close), owned by the caller and freed with culprit_vcs_names_free().
 * Errors: CULPRIT_ERROR when the references cannot be read.
 */
int culprit_vcs_near_refs(char ***names_out, size_t *n_out, culprit_vcs *repo, const char *rev,
                          size_t max);

/** Frees an array from culprit_vcs_near_refs() and its strings. NULL is a no-op. */
void culprit_vcs_names_free(char **names);

/* ---------------------------------------------------------------------------------
 * History
 * ------------------------------------------------------------------------------ */

/**
 * The first-parent history of `start_sha`: the commit itself, its first parent,
 * that one's first parent... down to the root (git log --first-parent), so on a
 * mainline the commits of merged branches are left out. At most `max` commits
 * (0 = all). Order is the chain's, newest first, whatever the commit dates say.
 *
 * `*shas_out` is an array of `*n_out` ids (40 hex digits and a NUL each), owned by
 * the caller and freed with free(). On success it holds at least `start_sha`
 * itself; on failure it is NULL and `*n_out` is 0.
 * Errors: CULPRIT_EINVALID (not a 40-hex id), CULPRIT_ENOTFOUND (no such commit),
 * CULPRIT_ERROR (an object on the way is missing or unreadable, as past the
 * boundary of a shallow clone).
 */
int culprit_vcs_first_parents(char (**shas_out)[41], size_t *n_out, culprit_vcs *repo,
                              const char *start_sha, size_t max);

/**
 * Sets `*out` to 1 when `ancestor_sha` is reachable from `descendant_sha` through
 * parents (any parent, not only the first), else 0. A commit counts as its own
 * ancestor, as with `git merge-base --is-ancestor`, so `*out` is 1 when both are
 * the same commit. Errors: CULPRIT_EINVALID, CULPRIT_ENOTFOUND as above.
 */
int culprit_vcs_is_ancestor(int *out, culprit_vcs *repo, const char *ancestor_sha,
                            const char *descendant_sha);

/* ---------------------------------------------------------------------------------
 * Commits
 * ------------------------------------------------------------------------------ */

/** What a report shows about a commit. */
typedef struct {
    char sha[41];         /**< 40 hex digits */
    char *subject;        /**< first line of the message, without the line break */
    char *author_name;    /**< as recorded, bytes copied unchanged */
    char *author_email;   /**< without the angle brackets */
    int64_t author_time;  /**< author date, seconds since the epoch (UTC) */
    int author_offset;    /**< the author's time zone, minutes east of UTC */
    char author_date[32]; /**< author date in strict ISO 8601 in the author's zone,
                               as `git log --format=%aI`: "2024-03-01T12:00:00+02:00" */
} culprit_vcs_commit;

/**
 * Reads the commit `sha`. Free the strings with culprit_vcs_commit_dispose(); on
 * failure `*out` holds none (its pointers are NULL).
 * Errors: CULPRIT_EINVALID, CULPRIT_ENOTFOUND as above; CULPRIT_ERROR when unreadable.
 */
int culprit_vcs_commit_info(culprit_vcs_commit *out, culprit_vcs *repo, const char *sha);

/** Frees the strings of `commit`; they are left NULL. Twice or NULL is harmless. */
void culprit_vcs_commit_dispose(culprit_vcs_commit *commit);

#ifdef __cplusplus
}
#endif

#endif
