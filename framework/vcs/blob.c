/*
 * A file's content as a commit has it, read from the object database: what a
 * report shows as the changed lines of a function, without checking anything out
 * (the working tree may hold another version, or be dirty).
 */
#include "vcs_internal.h"

int culprit_vcs_read_file(culprit_buf *out, culprit_vcs *repo, const char *sha, const char *path)
{
    git_commit *commit = NULL;
    git_tree *tree = NULL;
    git_tree_entry *entry = NULL;
    git_blob *blob = NULL;
    int error;

    if ((error = culprit_vcs__lookup_commit(&commit, repo, sha)) < 0)
        goto cleanup;
    if (git_commit_tree(&tree, commit) < 0) {
        error = culprit_vcs__git_error(CULPRIT_ERROR, "cannot read the commit's tree");
        goto cleanup;
    }
    if (git_tree_entry_bypath(&entry, tree, path) < 0 ||
        git_tree_entry_type(entry) != GIT_OBJECT_BLOB) {
        error = culprit_error_set(CULPRIT_ENOTFOUND, "no file '%s' in commit %.12s", path, sha);
        goto cleanup;
    }
    if (git_blob_lookup(&blob, repo->git, git_tree_entry_id(entry)) < 0) {
        error = culprit_vcs__git_error(CULPRIT_ERROR, "cannot read a file of the commit");
        goto cleanup;
    }
    error = culprit_buf_put(out, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
cleanup:
    git_blob_free(blob);
    git_tree_entry_free(entry);
    git_tree_free(tree);
    git_commit_free(commit);
    return error;
}
