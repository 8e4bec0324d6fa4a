/*
 * Writing the ancestry records of the shared history (their format and their
 * readers are in ancestry_read.c): when runs are pushed, each commit they were
 * measured at, and its first-parent ancestors the clone has, get a record unless
 * the store has one already. A depth-1 clone records its one commit, whose first
 * parent id it knows from the commit object even without the parent; a full clone
 * records up to `depth` commits back, which fills the gaps left by commits no
 * runner measured.
 */
#include "vcs_internal.h"

#include "culprit/core.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    culprit_vcs_file *files;
    size_t n, alloc;
    git_oid *seen; /* the commits recorded, open addressing (a zero id: free) */
    size_t nseen, aseen;
} file_list;

/* A commit id is uniformly random: its first bytes are its hash. */
static size_t slot_of(const git_oid *oid, size_t cap)
{
    size_t h = 0;
    memcpy(&h, oid->id, sizeof(h));
    return h & (cap - 1);
}

/* 1 when the list records `oid` already: a hash set, so recording the ancestry of
 * many commits stays linear (a scan of the list made it quadratic). */
static int listed(const file_list *l, const git_oid *oid)
{
    for (size_t i = l->aseen ? slot_of(oid, l->aseen) : 0;
         l->aseen && !git_oid_is_zero(&l->seen[i]); i = (i + 1) & (l->aseen - 1))
        if (git_oid_equal(&l->seen[i], oid))
            return 1;
    return 0;
}

/* Adds `oid` to the set, growing it to keep it at most half full. */
static int remember(file_list *l, const git_oid *oid)
{
    size_t i;

    if (2 * (l->nseen + 1) > l->aseen) {
        size_t cap = l->aseen ? 2 * l->aseen : 64;
        git_oid *old = l->seen, *grown = calloc(cap, sizeof(*grown));
        if (!grown)
            return CULPRIT_ERROR_NOMEM();
        l->seen = grown;
        l->aseen = cap;
        l->nseen = 0;
        for (size_t i = 0; old && i < cap / 2; i++)
            if (!git_oid_is_zero(&old[i]))
                remember(l, &old[i]);
        free(old);
    }
    i = slot_of(oid, l->aseen);
    while (!git_oid_is_zero(&l->seen[i]))
        i = (i + 1) & (l->aseen - 1);
    git_oid_cpy(&l->seen[i], oid);
    l->nseen++;
    return 0;
}

/* Appends the record of `commit` to the list. */
static int add_record(file_list *l, culprit_vcs *repo, git_commit *commit, const char *path)
{
    culprit_vcs_commit info;
    culprit_buf text = CULPRIT_BUF_INIT;
    char sha[41], parent[41] = "";
    int error;

    git_oid_tostr(sha, sizeof(sha), git_commit_id(commit));
    if (git_commit_parentcount(commit) > 0)
        git_oid_tostr(parent, sizeof(parent), git_commit_parent_id(commit, 0));
    if ((error = culprit_vcs_commit_info(&info, repo, sha)) < 0)
        return error;
    if ((error = culprit_buf_puts(&text, "culprit-commit 1\n")) < 0 ||
        (*parent && (error = culprit_buf_printf(&text, "parent %s\n", parent)) < 0) ||
        (error = culprit_buf_printf(&text, "date %s\nsubject %s\n", info.author_date,
                                    info.subject)) < 0 ||
        (error = culprit_array_grow(&l->files, &l->alloc, l->n, sizeof(*l->files), 16)) < 0)
        goto cleanup;
    l->files[l->n].oid = NULL;
    l->files[l->n].len = text.size;
    l->files[l->n].data = culprit_buf_detach(&text);
    if (!(l->files[l->n].path = culprit_strdup(path))) {
        free((char *)l->files[l->n].data);
        error = CULPRIT_ERROR;
        goto cleanup;
    }
    l->n++;
cleanup:
    culprit_buf_dispose(&text);
    culprit_vcs_commit_dispose(&info);
    return error;
}

/* Records the first-parent chain from `sha` until a commit already recorded, one
 * the clone lacks, a root, or `depth` commits. */
static int record_chain(file_list *l, culprit_vcs *repo, git_tree *tree, const char *sha,
                        size_t depth)
{
    git_commit *commit = NULL, *parent = NULL;
    char path[64], id[41];
    int error = 0;

    if (culprit_vcs__lookup_commit(&commit, repo, sha) < 0) {
        culprit_error_clear(); /* a run at a commit this clone lacks: nothing to record */
        return 0;
    }
    for (size_t k = 0; k < depth; k++) {
        culprit_vcs__record rec;
        git_oid_tostr(id, sizeof(id), git_commit_id(commit));
        culprit_vcs__record_path(path, id);
        if (listed(l, git_commit_id(commit)) ||
            culprit_vcs__record_get(&rec, repo, tree, id) == 0) {
            culprit_vcs__record_dispose(&rec);
            break;
        }
        if ((error = add_record(l, repo, commit, path)) < 0 ||
            (error = remember(l, git_commit_id(commit))) < 0)
            break;
        if (git_commit_parentcount(commit) == 0 || git_commit_parent(&parent, commit, 0) < 0)
            break; /* a root, or the boundary of a shallow clone */
        git_commit_free(commit);
        commit = parent;
        parent = NULL;
    }
    git_error_clear();
    git_commit_free(commit);
    return error;
}

int culprit_vcs_ancestry_files(culprit_vcs_file **out, size_t *n_out, culprit_vcs *repo,
                               const char *const *shas, size_t nshas, size_t depth)
{
    file_list l = {NULL, 0, 0, NULL, 0, 0};
    git_tree *tree = NULL;
    int error;

    *out = NULL;
    *n_out = 0;
    if ((error = culprit_vcs__records_tree(&tree, repo)) < 0)
        return error;
    for (size_t i = 0; i < nshas && error == 0; i++)
        error = record_chain(&l, repo, tree, shas[i], depth ? depth : 1);
    git_tree_free(tree);
    free(l.seen);
    if (error < 0) {
        culprit_vcs_files_free(l.files, l.n);
        return error;
    }
    *out = l.files;
    *n_out = l.n;
    return 0;
}

void culprit_vcs_files_free(culprit_vcs_file *files, size_t n)
{
    for (size_t i = 0; files && i < n; i++) {
        free((char *)files[i].path);
        free((char *)files[i].data);
        free((char *)files[i].oid);
    }
    free(files);
}
