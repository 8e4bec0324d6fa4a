/*
 * culprit vcs: what culprit needs from git, through libgit2: the commit a run
 * measures (HEAD of the working tree, its branch, whether the tree is dirty), and
 * on an open repository handle: revisions, first-parent history, ancestry and the
 * facts a report shows about a commit; for bisection, the DAG between a good and a
 * bad commit, the files and lines each commit changed, and temporary checkouts of
 * any commit in a directory outside the working tree.
 * Nothing here writes to the repository: not the index, not HEAD, not refs, not
 * the working tree.
 *
 * Threads: the last error is thread-local (culprit_error_last()). A culprit_vcs
 * handle may be used by one thread at a time (libgit2's rule for git_repository);
 * distinct handles, even on the same repository, may be used concurrently.
 */
#ifndef CULPRIT_VCS_H
#define CULPRIT_VCS_H

#include <stddef.h>
#include <stdint.h>
#include "culprit/core.h"

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
/**
 * The working tree containing `path` and the branch HEAD names, for a run whose commit
 * is given ($CULPRIT_COMMIT): `workdir` and `branch` as culprit_vcs_head_describe()
 * gives them, `sha` empty and `dirty` 0 (a given commit is taken as clean), found by
 * reading `.git` and HEAD as git's discovery does (upwards, a `.git` directory or a
 * `gitdir:` file, not across file systems), without libgit2: no library start, no
 * status scan. A repository libgit2 cannot open (an extension it does not know, such
 * as worktreeConfig for libgit2 1.5) is still located. CULPRIT_ENOTFOUND outside a
 * working tree. Thread-safe.
 */
int culprit_vcs_head_locate(culprit_vcs_head *out, const char *path);
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
 * The full id of the commit whose id starts with `prefix` (4 to 40 hex digits), for
 * an id abbreviated in a file name: no revision syntax, no suggestions, nothing but
 * the object database. CULPRIT_ENOTFOUND when the repository has no such commit,
 * CULPRIT_EINVALID when the prefix is no id or names several objects.
 */
int culprit_vcs_commit_by_prefix(char sha_out[41], culprit_vcs *repo, const char *prefix);

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
 * CULPRIT_ERROR (an object on the way is missing or unreadable; on a shallow clone
 * whose boundary cuts the chain, a message naming the boundary commit and the
 * `git fetch --deepen=N` / `--unshallow` to run: callers that need the whole chain,
 * as bisection, stop there). culprit_vcs_first_parents_cut() judges what is there.
 */
int culprit_vcs_first_parents(char (**shas_out)[41], size_t *n_out, culprit_vcs *repo,
                              const char *start_sha, size_t max);

/**
 * As culprit_vcs_first_parents(), but on a shallow clone (culprit_vcs_is_shallow())
 * the chain ends cleanly at the boundary: the last commit in `*shas_out` is the
 * oldest the clone has, and `*cut_out` (may be NULL) is set to 1 to tell "the history
 * was cut by a shallow clone" from "the history ends at a root commit" (0). A chain
 * stopped by `max` is not cut. Errors as culprit_vcs_first_parents(), without the
 * shallow one.
 */
int culprit_vcs_first_parents_cut(char (**shas_out)[41], size_t *n_out, int *cut_out,
                                  culprit_vcs *repo, const char *start_sha, size_t max);

/**
 * 1 when the repository is a shallow clone (`git clone --depth N`, the default of
 * CI checkouts such as GitHub's actions/checkout): its history stops at the commits
 * listed in .git/shallow, whose parents it does not have. 0 otherwise.
 */
int culprit_vcs_is_shallow(culprit_vcs *repo);

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

/**
 * Appends the content of file `path` (relative to the repository's root) as commit
 * `sha` has it to `out`, from the object database (nothing is checked out).
 * Errors: CULPRIT_EINVALID, CULPRIT_ENOTFOUND for a bad or unknown commit, or no
 * such file in it; CULPRIT_ERROR when unreadable.
 */
int culprit_vcs_read_file(culprit_buf *out, culprit_vcs *repo, const char *sha, const char *path);

/* ---------------------------------------------------------------------------------
 * The DAG of a bisection
 * ------------------------------------------------------------------------------ */

/** One commit of a bisection DAG. */
typedef struct {
    char sha[41];    /**< 40 hex digits */
    char *subject;   /**< first line of the message, as culprit_vcs_commit_info() */
    size_t *parents; /**< indices in the DAG of the parents that lie inside it, in
                          the commit's parent order (first parent first); each is
                          smaller than this node's own index. NULL when none. */
    size_t nparents; /**< how many parents lie inside the DAG */
    size_t noutside; /**< how many parents lie outside it (ancestors of a good commit) */
} culprit_vcs_dag_node;

/** The commits a bisection chooses from, parents before children. */
typedef struct {
    culprit_vcs_dag_node *nodes; /**< `n` nodes in a topological order; the last is bad */
    size_t n;
} culprit_vcs_dag;

/**
 * The DAG of the bisection between the `ngood` revisions `good` and the revision
 * `bad` (`git rev-list bad ^good...`): the commits that are ancestors of bad, bad
 * included, and ancestors of none of the good commits, merges and both sides of
 * them included. Revisions are anything culprit_vcs_resolve() accepts.
 * `out->nodes` is in a topological order: every parent inside the DAG comes before
 * its children, so bad, the only commit without a child inside, comes last. Among
 * the orders possible the one of libgit2's topological walk is taken; it is
 * deterministic for a given repository.
 *
 * Errors (the message names the revisions):
 * - CULPRIT_ENOTFOUND: an unknown revision;
 * - CULPRIT_EINVALID: a revision that is not a commit, no good revision at all,
 *   a good commit equal to bad, or a good commit that is not an ancestor of bad
 *   ("good 'v1' (abc...) is not an ancestor of bad 'main' (def...)");
 * - CULPRIT_ERROR: the history cannot be read.
 * Free with culprit_vcs_dag_dispose(); on failure `*out` is empty.
 * Not thread-safe on one `repo` (see the top of this file).
 */
int culprit_vcs_dag_between(culprit_vcs_dag *out, culprit_vcs *repo, const char *const *good,
                            size_t ngood, const char *bad);

/** Frees the nodes of `dag`; it is left empty. Twice or NULL is harmless. */
void culprit_vcs_dag_dispose(culprit_vcs_dag *dag);

/**
 * The index of the node with id `sha` in `dag`, or (size_t)-1 when none. Linear
 * in the size of the DAG. Thread-safe.
 */
size_t culprit_vcs_dag_find(const culprit_vcs_dag *dag, const char *sha);

/**
 * Invariant checker, for assert(): 1 when `dag` is well formed, else 0. Well
 * formed: at least one node; ids of 40 hex digits, all distinct; every parent
 * index smaller than its node's (a topological order), none repeated within a
 * node; every node but the last a parent of some later node (everything leads to
 * bad). Allocates (O(n) memory, O(n log n) time); returns 0 when out of memory.
 * Thread-safe.
 */
int culprit_vcs_dag_is_valid(const culprit_vcs_dag *dag);

/* ---------------------------------------------------------------------------------
 * What a commit changed
 * ------------------------------------------------------------------------------ */

/** How a file changed. */
typedef enum {
    CULPRIT_VCS_ADDED,
    CULPRIT_VCS_DELETED,
    CULPRIT_VCS_MODIFIED,
    CULPRIT_VCS_RENAMED,   /**< possibly modified too; `old_path` is set */
    CULPRIT_VCS_TYPECHANGE /**< a file became a symlink or a submodule, or back */
} culprit_vcs_change_status;

/** A range of lines on the new side of a diff, as in `@@ -a,b +start,lines @@`. */
typedef struct {
    size_t start; /**< first changed line, 1-based; for a pure deletion (lines == 0)
                       the line after which lines were removed (0: at the top), as
                       `git diff -U0` prints it */
    size_t lines; /**< number of lines; 0 for a pure deletion */
} culprit_vcs_range;

/** One changed file. */
typedef struct {
    char *path;     /**< the new path; the old one for a deletion */
    char *old_path; /**< the old path for a rename, else NULL */
    culprit_vcs_change_status status;
    int binary;                /**< 1: binary content, `ranges` is empty */
    culprit_vcs_range *ranges; /**< hunks with no context, in order */
    size_t nranges;
} culprit_vcs_file_change;

/** What a commit changed against one of its parents. */
typedef struct {
    char sha[41];                   /**< the commit */
    char parent_sha[41];            /**< the parent compared with; "" for a root commit */
    culprit_vcs_file_change *files; /**< in the diff's order (by path, as git diff lists them) */
    size_t nfiles;
} culprit_vcs_changeset;

/**
 * The files and line ranges commit `sha` changed against its parent number
 * `parent` (0-based, as git_commit_parent(): 0 is the first parent, `sha^1`; a
 * merge's other sides are 1, 2...). A root commit is compared with the empty tree
 * (`parent` must be 0). Like `git diff -U0 -M parent sha`: no context lines, renames
 * found at git's default 50% similarity, the indent heuristic on, no filters or
 * whitespace options. Deleted files list one range {0, 0}; binary files none.
 * Free with culprit_vcs_changeset_dispose(); on failure `*out` is empty.
 * Errors: CULPRIT_EINVALID (not a full id, or `parent` out of range: the message
 * says how many parents the commit has), CULPRIT_ENOTFOUND (no such commit),
 * CULPRIT_ERROR (unreadable objects). Not thread-safe on one `repo`.
 */
int culprit_vcs_changes(culprit_vcs_changeset *out, culprit_vcs *repo, const char *sha,
                        size_t parent);

/** Frees what `changes` holds; it is left empty. Twice or NULL is harmless. */
void culprit_vcs_changeset_dispose(culprit_vcs_changeset *changes);

/* ---------------------------------------------------------------------------------
 * Temporary checkouts
 *
 * The files of a commit written into a fresh directory outside the working tree,
 * for building and running an old version. The repository is only read: no index
 * is written, HEAD and refs do not move, no worktree is registered in .git (this
 * is not `git worktree add`), the user's working tree is not touched. Blobs are
 * written as stored: no checkout filters (CRLF conversion, ident, LFS smudge).
 * Submodules are NOT checked out: see `allow_submodules`.
 * ------------------------------------------------------------------------------ */

/** A temporary checkout. Opaque. */
typedef struct culprit_vcs_checkout culprit_vcs_checkout;

/** Options of culprit_vcs_checkout_create(). */
typedef struct {
    unsigned int version;   /**< CULPRIT_VCS_CHECKOUT_OPTIONS_VERSION */
    const char *parent_dir; /**< where the checkout directory is created; NULL:
                                 the process's temporary directory in $TMPDIR
                                 (culprit_fs_temp_dir()). Must lie outside the
                                 repository's working tree and .git. */
    int allow_submodules;   /**< 0 (default): a commit whose tree has a submodule
                                 (gitlink) is refused with CULPRIT_EINVALID naming it;
                                 1: its directory is left empty and counted in
                                 culprit_vcs_checkout_submodules() */
} culprit_vcs_checkout_options;

#define CULPRIT_VCS_CHECKOUT_OPTIONS_VERSION 1
#define CULPRIT_VCS_CHECKOUT_OPTIONS_INIT                                                          \
    {                                                                                              \
        CULPRIT_VCS_CHECKOUT_OPTIONS_VERSION, NULL, 0                                              \
    }

/** Sets `opts` to the defaults of `version` (CULPRIT_VCS_CHECKOUT_OPTIONS_VERSION).
 * Returns 0, or CULPRIT_EINVALID for another version. */
int culprit_vcs_checkout_options_init(culprit_vcs_checkout_options *opts, unsigned int version);

/**
 * Writes the tree of commit `sha` into a new directory
 * `<parent_dir>/culprit-checkout-XXXXXX` (mode 0700) and registers it in a
 * process-wide registry of live checkouts (at most CULPRIT_VCS_MAX_CHECKOUTS at a
 * time), so culprit_vcs_checkout_remove_all() can delete it. Regular files get
 * mode 0666 or 0777 minus the umask, symlinks are symlinks. `opts` NULL means
 * defaults. `repo` must outlive the checkout.
 * On any failure nothing is left behind: the directory is removed.
 * Errors: CULPRIT_EINVALID (not a full id, a parent directory inside the working
 * tree, a bad options version, a submodule without `allow_submodules`: the message
 * names its path), CULPRIT_ENOTFOUND (no such commit), CULPRIT_EIO (the file
 * system), CULPRIT_ERROR (unreadable objects, the registry full).
 * The caller owns `*out` and ends it with culprit_vcs_checkout_remove().
 * Thread-safe for distinct `repo` handles (the registry is locked).
 */
int culprit_vcs_checkout_create(culprit_vcs_checkout **out, culprit_vcs *repo, const char *sha,
                                const culprit_vcs_checkout_options *opts);

/**
 * Switches the checkout to commit `sha` in place: only the files that differ
 * between the two commits' trees are rewritten (each replaced by a rename, so a
 * file being read keeps its old content), files the new tree lacks are deleted
 * along with directories they leave empty, the others keep their bytes and
 * modification times, so an incremental build in the directory rebuilds only what
 * changed. Files that are not in either tree (build outputs) are left alone; a
 * tracked file edited inside the checkout is only restored when it differs
 * between the two commits. Same errors as culprit_vcs_checkout_create(); after a
 * failure the directory is half-switched: switch again or remove it.
 */
int culprit_vcs_checkout_switch(culprit_vcs_checkout *checkout, const char *sha);

/**
 * A new checkout (as culprit_vcs_checkout_create() makes one, under `opts`'s parent
 * directory) seeded from `src`: everything in src's directory, build outputs
 * included, is copied with its modes and times (culprit_fs_copy_tree()), then the
 * copy is switched to `sha` (culprit_vcs_checkout_switch()), so the files that
 * differ are newer than the copied outputs and an incremental build in the copy
 * rebuilds only what changed. Build outputs that name src's directory (a CMake
 * cache, dependency files with absolute paths) still name it: build the copy at
 * src's path (culprit_vcs_checkout_exchange()). `src` is only read. Errors as
 * culprit_vcs_checkout_create(); nothing is left behind on failure.
 */
int culprit_vcs_checkout_copy(culprit_vcs_checkout **out, const culprit_vcs_checkout *src,
                              const char *sha, const culprit_vcs_checkout_options *opts);

/**
 * Exchanges the directories of two checkouts atomically (Linux renameat2 with
 * RENAME_EXCHANGE): each handle keeps its files, which now sit at the other's
 * path, and culprit_vcs_checkout_path() says so. Two checkouts can so take turns
 * at one path, where their builds were made. CULPRIT_ESKIP when the file system
 * cannot exchange directories (nothing changed), CULPRIT_EIO otherwise.
 */
int culprit_vcs_checkout_exchange(culprit_vcs_checkout *a, culprit_vcs_checkout *b);

/** The checkout's directory (absolute, no trailing '/'); borrowed from `checkout`. */
const char *culprit_vcs_checkout_path(const culprit_vcs_checkout *checkout);

/** The commit the checkout holds (40 hex digits); borrowed from `checkout`. */
const char *culprit_vcs_checkout_sha(const culprit_vcs_checkout *checkout);

/** How many submodules of the current commit were left as empty directories. */
size_t culprit_vcs_checkout_submodules(const culprit_vcs_checkout *checkout);

/**
 * Deletes the checkout's directory with everything in it (build outputs too),
 * unregisters it and frees `checkout`, which is freed even on failure. NULL is a
 * harmless no-op. CULPRIT_EIO when something could not be deleted (the message
 * names it).
 */
int culprit_vcs_checkout_remove(culprit_vcs_checkout *checkout);

/** The most checkouts that may be live at one time in a process. */
#define CULPRIT_VCS_MAX_CHECKOUTS 64

/**
 * Deletes the directories of every live checkout of the process, for a signal
 * handler (SIGINT, SIGTERM, SIGHUP) or an atexit() function: culprit installs
 * neither; the caller does. ASYNC-SIGNAL-SAFE: it only reads the registry (a static
 * array of fixed-size paths published with atomic flags), fork()s, execve()s
 * `/bin/rm -rf -- <dirs>` in the child and waitpid()s for it, saving errno; no
 * allocation, no lock, no stdio. The handles stay allocated (the process is
 * expected to exit next); culprit_vcs_checkout_remove() on them afterwards is
 * still safe. Returns the number of directories handed to rm, or -1 when fork
 * failed or rm reported an error.
 * Not to be called while another thread is creating a checkout in the same
 * process except from a handler about to end the process.
 */
int culprit_vcs_checkout_remove_all(void);

/* ---------------------------------------------------------------------------------
 * The shared history: files in a git ref (docs/history-format.md, "Shared history")
 * ------------------------------------------------------------------------------ */

/** The ref of the user's repository that holds the shared history. */
#define CULPRIT_VCS_HISTORY_REF "refs/culprit/history"

/** One file for culprit_vcs_ref_add(): its path in the store's tree and content
 * (borrowed). */
typedef struct {
    const char *path; /**< e.g. "runs/ab/<run id>.xml"; '/' separates directories */
    const char *data;
    size_t len;
    const char *oid; /**< NULL, or the blob culprit_vcs_blob_write() wrote with the
                          content (40 hex digits): `data` and `len` are then not read,
                          so a caller adding many files need not hold them all */
} culprit_vcs_file;

/** One file listed by culprit_vcs_ref_list(). */
typedef struct {
    char *path;   /**< its full path in the store's tree (owned) */
    char oid[41]; /**< its blob, for culprit_vcs_blob_read() */
} culprit_vcs_ref_entry;

typedef struct {
    culprit_vcs_ref_entry *entries;
    size_t n;
} culprit_vcs_ref_files;

/**
 * Lists the files of the tree `ref` points at, under the directory `under` (NULL or
 * "": all), in tree order (sorted by path). A ref or directory that does not exist
 * is an empty list, not an error. Free with culprit_vcs_ref_files_dispose().
 * Errors: CULPRIT_ERROR when the ref or a tree cannot be read.
 */
int culprit_vcs_ref_list(culprit_vcs_ref_files *out, culprit_vcs *repo, const char *ref,
                         const char *under);
void culprit_vcs_ref_files_dispose(culprit_vcs_ref_files *files);

/**
 * Lists the files under `under` (NULL or "": all) of the tree `ref` points at that
 * the tree of commit `since` (a full sha; NULL or "": an empty store) lacks, sorted
 * by path: what a pull added. Its cost is that of the difference (the subtrees both
 * share are skipped), not of the store. A missing ref is an empty list. Free with
 * culprit_vcs_ref_files_dispose(). Errors: CULPRIT_ERROR.
 */
int culprit_vcs_ref_list_added(culprit_vcs_ref_files *out, culprit_vcs *repo, const char *ref,
                               const char *since, const char *under);

/**
 * Appends the content of the blob `oid` (40 hex digits) to `out`. With `max` > 0, a
 * blob larger than `max` bytes is refused from its header, before its content is
 * read (the store's files come from other machines): CULPRIT_EINVALID, "N bytes, over
 * the limit of M bytes", `out` unchanged. Errors: CULPRIT_EINVALID (a bad id, too
 * large), CULPRIT_ERROR (unreadable).
 */
int culprit_vcs_blob_read(culprit_buf *out, culprit_vcs *repo, const char *oid, size_t max);

/**
 * Writes `len` bytes of `data` as a blob of the repository's object database and its
 * id (40 hex digits) into `oid`, for a culprit_vcs_file's `oid`. Errors: CULPRIT_ERROR.
 */
int culprit_vcs_blob_write(char oid[41], culprit_vcs *repo, const char *data, size_t len);

/** Blobs being written into one pack file (culprit_vcs_blobs_begin()). */
typedef struct culprit_vcs_blobs culprit_vcs_blobs;

/**
 * Starts a pack of blobs in the repository's object database: many files written
 * at once (a push of 1,000 runs) cost one compression each and become one pack that
 * `git push` sends as it is, where loose objects were compressed twice and inflated
 * in between (docs/history-format.md, "Shared history"). The blobs are readable once
 * culprit_vcs_blobs_finish() returned. Free with culprit_vcs_blobs_free(), which
 * removes an unfinished pack. Errors: CULPRIT_ERROR.
 */
int culprit_vcs_blobs_begin(culprit_vcs_blobs **out, culprit_vcs *repo);

/**
 * Adds `len` bytes of `data` as a blob and gives its id (40 hex digits) in `oid`, for
 * a culprit_vcs_file's `oid`. A blob the database or this pack holds already is not
 * written again. Errors: CULPRIT_ERROR (out of memory, I/O).
 */
int culprit_vcs_blobs_add(char oid[41], culprit_vcs_blobs *w, const char *data, size_t len);

/**
 * Adds the `n` blobs data[i] (len[i] bytes each) as culprit_vcs_blobs_add() adds
 * one, their ids in oids[i], hashing and compressing them on up to
 * culprit_parallel_threads() threads at once (core.h): what most of a push's own CPU
 * time is. They are written to the pack in their order, as when added one by one.
 * Errors: CULPRIT_ERROR (out of memory, I/O), CULPRIT_EINVALID (a bad CULPRIT_THREADS).
 */
int culprit_vcs_blobs_add_many(char (*oids)[41], culprit_vcs_blobs *w, const char *const *data,
                               const size_t *len, size_t n);

/**
 * Closes the pack (its checksum, its index) and moves it into the object database,
 * which then reads its blobs. A pack with no new blob leaves no file. Errors:
 * CULPRIT_ERROR (I/O).
 */
int culprit_vcs_blobs_finish(culprit_vcs_blobs *w);
void culprit_vcs_blobs_free(culprit_vcs_blobs *w);

/** The commit `ref` points at; CULPRIT_ENOTFOUND when there is no such ref. */
int culprit_vcs_ref_resolve(char sha[41], culprit_vcs *repo, const char *ref);

/**
 * Adds `files` to the store in `ref` (created when absent) as one new commit, from
 * the object database alone: the working tree, index and HEAD are not touched. The
 * store is append-only: a path it holds already is skipped, whatever its content.
 * `*added` (may be NULL) says how many were written; none written, no commit. The
 * ref moves by compare-and-swap: when another writer moved it meanwhile, the commit
 * is built again on top of theirs. Errors: CULPRIT_EINVALID (a bad ref name or path:
 * empty, absolute, an empty, "." or ".." component), CULPRIT_ERROR.
 */
int culprit_vcs_ref_add(size_t *added, culprit_vcs *repo, const char *ref,
                        const culprit_vcs_file *files, size_t n, const char *message);

/** What a merge of two stores did. */
typedef struct {
    int changed;      /**< 1: `ref` moved (fast-forward or a merge commit) */
    size_t conflicts; /**< paths both sides held with different contents (ours kept) */
    size_t added;     /**< run files (under runs/) that `ref` did not hold before */
} culprit_vcs_merge_result;

/**
 * Merges the store `other_ref` into `ref`: nothing when `ref` has it all, a
 * fast-forward when `ref` is behind (or absent), else a merge commit whose tree is
 * the union of both (a path both hold differently keeps `ref`'s file and is counted
 * in `conflicts`). A missing `other_ref` is nothing to merge.
 */
int culprit_vcs_ref_merge(culprit_vcs_merge_result *out, culprit_vcs *repo, const char *ref,
                          const char *other_ref);

/**
 * The ancestry records (docs/history-format.md) to store beside runs at the commits
 * `shas`: for each commit the repository has, and its first-parent ancestors up to
 * `depth` commits (0: 1), a file "commits/ab/cdef..." with its first parent, author
 * date and subject, unless CULPRIT_VCS_HISTORY_REF has it already. With them the
 * first-parent walk (culprit_vcs_first_parents_cut) of a shallow clone continues
 * past its boundary, and culprit_vcs_commit_info() knows the commits it lacks.
 * Free `*out` with culprit_vcs_files_free().
 */
int culprit_vcs_ancestry_files(culprit_vcs_file **out, size_t *n_out, culprit_vcs *repo,
                               const char *const *shas, size_t nshas, size_t depth);
/** Frees `n` files whose path, data and oid were each allocated, and the array. */
void culprit_vcs_files_free(culprit_vcs_file *files, size_t n);

/**
 * `git fetch REMOTE` of the remote's CULPRIT_VCS_HISTORY_REF into a tracking ref
 * (refs/culprit/remotes/<remote>/history), merged into the local one
 * (culprit_vcs_ref_merge). REMOTE is a remote's name or a URL. The network is the
 * user's `git` program, so credential helpers and CI tokens work as for `git fetch`.
 * A remote without the ref is nothing to pull. Errors: CULPRIT_EINVALID (no remote),
 * CULPRIT_ENOTFOUND (no git program), CULPRIT_ERROR (git failed: its message).
 */
int culprit_vcs_history_pull(culprit_vcs_merge_result *out, culprit_vcs *repo, const char *remote);

/** What a push did. */
typedef struct {
    unsigned int attempts; /**< rounds of fetch, merge and push (1: no one pushed between) */
    size_t conflicts;      /**< as culprit_vcs_merge_result */
} culprit_vcs_push_result;

/**
 * Pushes the local CULPRIT_VCS_HISTORY_REF to REMOTE, never by force: each round
 * pulls first (fetch + union merge), then pushes; when the remote refuses because
 * another job pushed meanwhile (git's "fetch first", "non-fast-forward", or the
 * remote's "failed to update ref" / "failed to lock"), it waits a random, growing
 * moment (exponential backoff with jitter, at most 2 s) and goes round again, up to
 * 50 rounds, so concurrent pushers all keep their runs. Any other refusal (a hook
 * declined, a protected ref, no permission) will not change: it ends the push at
 * once, after one round. `out->attempts` says how many rounds ran, also on error.
 * Errors as culprit_vcs_history_pull(); CULPRIT_ERROR when git refuses (its
 * message, with the remote's, in culprit_error_last()).
 */
int culprit_vcs_history_push(culprit_vcs_push_result *out, culprit_vcs *repo, const char *remote);

#ifdef __cplusplus
}
#endif

#endif
