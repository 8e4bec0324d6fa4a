/*
 * What a commit changed, as files and line ranges on the new side: the input of
 * change correlation (a function of the call tree that got slower and whose lines
 * a commit touched is the first suspect) and of relevance skipping in bisection
 * (a commit that touches none of the test's files need not be built). The diff is
 * libgit2's tree-to-tree diff with no context lines and git's rename detection, so
 * the ranges are exactly the `+start,lines` of `git diff -U0 -M`.
 */
#include "vcs_internal.h"

#include "culprit/core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static culprit_vcs_change_status status_of(git_delta_t status)
{
    switch (status) {
    case GIT_DELTA_ADDED:
    case GIT_DELTA_COPIED: /* copies are not searched for; kept for completeness */
        return CULPRIT_VCS_ADDED;
    case GIT_DELTA_DELETED:
        return CULPRIT_VCS_DELETED;
    case GIT_DELTA_RENAMED:
        return CULPRIT_VCS_RENAMED;
    case GIT_DELTA_TYPECHANGE:
        return CULPRIT_VCS_TYPECHANGE;
    default:
        return CULPRIT_VCS_MODIFIED;
    }
}

/* One delta of the diff, with its hunks, into `file`. */
static int fill_file(culprit_vcs_file_change *file, git_diff *diff, size_t idx)
{
    git_patch *patch = NULL;
    const git_diff_delta *delta;
    const git_diff_hunk *hunk;
    size_t h, nhunks, lines;
    int error = 0;

    if (git_patch_from_diff(&patch, diff, idx) < 0 || !patch) {
        error = culprit_vcs__git_error(CULPRIT_ERROR, "cannot compute the diff of a file");
        goto cleanup;
    }
    delta = git_patch_get_delta(patch);
    file->status = status_of(delta->status);
    /* A deleted file is known by its old path: the new side has none. */
    if (!(file->path = culprit_strdup(delta->status == GIT_DELTA_DELETED ? delta->old_file.path
                                                                         : delta->new_file.path))) {
        error = CULPRIT_ERROR;
        goto cleanup;
    }
    if (delta->status == GIT_DELTA_RENAMED &&
        !(file->old_path = culprit_strdup(delta->old_file.path))) {
        error = CULPRIT_ERROR;
        goto cleanup;
    }
    file->binary = (delta->flags & GIT_DIFF_FLAG_BINARY) != 0;
    nhunks = file->binary ? 0 : git_patch_num_hunks(patch);
    if (nhunks > 0 && !(file->ranges = calloc(nhunks, sizeof(*file->ranges)))) {
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    for (h = 0; h < nhunks; h++) {
        if (git_patch_get_hunk(&hunk, &lines, patch, h) < 0) {
            error = culprit_vcs__git_error(CULPRIT_ERROR, "cannot read a hunk of the diff");
            goto cleanup;
        }
        file->ranges[h].start = (size_t)hunk->new_start;
        file->ranges[h].lines = (size_t)hunk->new_lines;
    }
    file->nranges = nhunks;
cleanup:
    git_patch_free(patch);
    return error;
}

int culprit_vcs_changes(culprit_vcs_changeset *out, culprit_vcs *repo, const char *sha,
                        size_t parent)
{
    git_commit *commit = NULL, *base = NULL;
    git_tree *new_tree = NULL, *old_tree = NULL;
    git_diff *diff = NULL;
    git_diff_options diff_opts;
    git_diff_find_options find_opts;
    size_t i, n, count;
    int error = 0;

    memset(out, 0, sizeof(*out));
    /* The functions rather than the _INIT macros: those leave fields out and
     * -Wmissing-field-initializers rejects them. */
    git_diff_options_init(&diff_opts, GIT_DIFF_OPTIONS_VERSION);
    git_diff_find_options_init(&find_opts, GIT_DIFF_FIND_OPTIONS_VERSION);
    if ((error = culprit_vcs__lookup_commit(&commit, repo, sha)) < 0)
        goto cleanup;
    git_oid_tostr(out->sha, sizeof(out->sha), git_commit_id(commit));
    count = git_commit_parentcount(commit);
    if (parent >= count && !(count == 0 && parent == 0)) {
        error = culprit_error_set(CULPRIT_EINVALID,
                                  "commit %s has %zu parent%s: no parent number %zu (0-based)",
                                  out->sha, count, count == 1 ? "" : "s", parent);
        goto cleanup;
    }
    if (count > 0) {
        if (git_commit_parent(&base, commit, (unsigned int)parent) < 0 ||
            git_commit_tree(&old_tree, base) < 0) {
            error = culprit_vcs__git_error(CULPRIT_ERROR, "cannot read the parent of a commit");
            goto cleanup;
        }
        git_oid_tostr(out->parent_sha, sizeof(out->parent_sha), git_commit_id(base));
    }
    if (git_commit_tree(&new_tree, commit) < 0) {
        error = culprit_vcs__git_error(CULPRIT_ERROR, "cannot read the tree of a commit");
        goto cleanup;
    }

    /* No context and no merging of close hunks: each range is a change, as -U0.
     * The indent heuristic is git's default since 2.14; without it some hunks
     * slide by a line against what `git diff` shows. */
    diff_opts.context_lines = 0;
    diff_opts.interhunk_lines = 0;
    diff_opts.flags |= GIT_DIFF_INDENT_HEURISTIC;
    if (git_diff_tree_to_tree(&diff, repo->git, old_tree, new_tree, &diff_opts) < 0) {
        error = culprit_vcs__git_error(CULPRIT_ERROR, "cannot diff a commit against its parent");
        goto cleanup;
    }
    /* Renames only, at git's default threshold (50%): copy detection would call a
     * new file a copy of an old one and hide that it was added. */
    find_opts.flags = GIT_DIFF_FIND_RENAMES;
    if (git_diff_find_similar(diff, &find_opts) < 0) {
        error = culprit_vcs__git_error(CULPRIT_ERROR, "cannot detect renames");
        goto cleanup;
    }

    n = git_diff_num_deltas(diff);
    if (n > 0 && !(out->files = calloc(n, sizeof(*out->files)))) {
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    for (i = 0; i < n; i++) {
        out->nfiles = i + 1; /* so that dispose frees a half-filled entry */
        if ((error = fill_file(&out->files[i], diff, i)) < 0)
            goto cleanup;
    }
cleanup:
    git_diff_free(diff);
    git_tree_free(old_tree);
    git_tree_free(new_tree);
    git_commit_free(base);
    git_commit_free(commit);
    if (error < 0)
        culprit_vcs_changeset_dispose(out);
    return error;
}

void culprit_vcs_changeset_dispose(culprit_vcs_changeset *changes)
{
    size_t i;

    if (!changes)
        return;
    for (i = 0; i < changes->nfiles; i++) {
        free(changes->files[i].path);
        free(changes->files[i].old_path);
        free(changes->files[i].ranges);
    }
    free(changes->files);
    changes->files = NULL;
    changes->nfiles = 0;
}
