/*
 * Semi-private helpers shared by the files of framework/vcs: the repository handle
 * and the lookups every function taking a commit id starts with. Not part of the
 * public API.
 */
#ifndef CULPRIT_VCS_INTERNAL_H
#define CULPRIT_VCS_INTERNAL_H

#include "culprit/vcs.h"

#include <git2.h>
#include <mbedtls/md.h>

struct culprit_vcs {
    git_repository *git;
    char *workdir; /* NULL for a bare repository; no trailing '/' */
};

/*
 * Starts libgit2 once for the process's life (repo.c): its start parses the system's
 * CA certificates with mbed TLS, about 240 page faults and 3.6 ms of CPU on a KVM
 * machine, a quarter of a short test binary's run. Each handle used to hold a reference and
 * release it, so that the last release shut libgit2 down and the next open (the
 * runner's describe of HEAD, then its history check; every handle a command opens
 * after another) paid the start again. Thread-safe; never shut down.
 */
void culprit_vcs__start(void);

/*
 * Sets the last error to "<what>: <libgit2's message>" with `code` and returns
 * `code`. For failures libgit2 explains better than we can (I/O, corrupt objects).
 */
int culprit_vcs__git_error(int code, const char *what);

/*
 * Looks up the commit with the full 40-hex id `sha`. CULPRIT_EINVALID when `sha`
 * is not 40 hex digits, CULPRIT_ENOTFOUND when the repository has no such commit
 * (including an id of a tree, blob or tag), CULPRIT_ERROR when it cannot be read.
 * The caller frees `*out` with git_commit_free().
 */
int culprit_vcs__lookup_commit(git_commit **out, culprit_vcs *repo, const char *sha);

/*
 * The subject of a commit message: its first line without trailing blanks or CR
 * (not git's first paragraph: a subject wrapped by hand stays one line in a
 * report). Returns a malloc'd string, or NULL with the last error set.
 */
char *culprit_vcs__subject(const char *message);

/* The commit `ref` points at (refstore.c); *out NULL, and 0, when there is no such
 * ref. The caller frees it with git_commit_free(). */
int culprit_vcs__ref_commit(git_commit **out, culprit_vcs *repo, const char *ref);
/* The size of the blob `oid` from its header alone (the content is not read, so a
 * huge blob from another machine costs nothing to measure). CULPRIT_ERROR when it
 * cannot be read or is no blob. */
int culprit_vcs__blob_size(size_t *out, culprit_vcs *repo, const git_oid *oid);

/* What the shared history recorded of a commit (ancestry_read.c): its first
 * parent ("" for a root), author date (ISO 8601, as culprit_vcs_commit) and subject. */
typedef struct {
    char parent[41];
    char date[32];
    char *subject; /* malloc'd */
} culprit_vcs__record;

/* The tree of CULPRIT_VCS_HISTORY_REF (NULL and 0 when there is none): the records
 * are looked up in it, once per walk. Free with git_tree_free(). */
int culprit_vcs__records_tree(git_tree **out, culprit_vcs *repo);

/* The record of `sha` in `tree` (NULL: none). CULPRIT_ENOTFOUND when there is none
 * or it is malformed (data from other machines is untrusted: nothing half-read is
 * used). Free with culprit_vcs__record_dispose(). */
int culprit_vcs__record_get(culprit_vcs__record *out, culprit_vcs *repo, git_tree *tree,
                            const char *sha);
void culprit_vcs__record_dispose(culprit_vcs__record *record);

/* The path of the record of `sha` in the store: "commits/ab/cdef...". */
void culprit_vcs__record_path(char out[64], const char *sha);

/* SHA-1 over a stream (sha1.c, mbed TLS's), for the checksums of the packs
 * packwrite.c writes. _final returns 0, or CULPRIT_ERROR when the hash failed. */
typedef struct {
    mbedtls_md_context_t md;
    int ok;
} culprit_vcs__sha1;

void culprit_vcs__sha1_init(culprit_vcs__sha1 *s);
void culprit_vcs__sha1_update(culprit_vcs__sha1 *s, const void *data, size_t len);
int culprit_vcs__sha1_final(unsigned char out[20], culprit_vcs__sha1 *s);

#endif
