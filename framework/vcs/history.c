/*
 * The shape of history that `culprit check` and bisection walk: the first-parent
 * chain of a commit (the mainline, where each merge stands for its whole branch,
 * which is where the baseline of a test is looked for) and ancestry between two
 * commits (is the good commit of a bisection below the bad one?).
 */
#include "vcs_internal.h"

#include "culprit/core.h"

#include <stdlib.h>
#include <string.h>

int culprit_vcs_first_parents(char (**shas_out)[41], size_t *n_out, culprit_vcs *repo,
                              const char *start_sha, size_t max)
{
    git_commit *start = NULL;
    git_revwalk *walk = NULL;
    char(*shas)[41] = NULL;
    size_t n = 0, alloc = 0;
    git_oid oid;
    int error = 0, rc;

    *shas_out = NULL;
    *n_out = 0;
    if ((error = culprit_vcs__lookup_commit(&start, repo, start_sha)) < 0)
        goto cleanup;
    if (git_revwalk_new(&walk, repo->git) < 0 || git_revwalk_push(walk, git_commit_id(start)) < 0) {
        error = culprit_vcs__git_error(CULPRIT_ERROR, "cannot walk the history");
        goto cleanup;
    }
    /* No sorting: with only first parents followed, the walk is a single chain and
     * yields it in order, and it stays lazy, so `max` stops it early. Sorting by
     * time or topology would first walk the whole chain. */
    git_revwalk_sorting(walk, GIT_SORT_NONE);
    git_revwalk_simplify_first_parent(walk);

    while (max == 0 || n < max) {
        rc = git_revwalk_next(&oid, walk);
        if (rc == GIT_ITEROVER)
            break;
        if (rc < 0) {
            error = culprit_vcs__git_error(CULPRIT_ERROR, "cannot walk the first-parent history");
            goto cleanup;
        }
        if (n == alloc) {
            size_t grown = alloc ? 2 * alloc : 64;
            char(*bigger)[41];
            if (max && grown > max)
                grown = max;
            if (!(bigger = realloc(shas, grown * sizeof(*shas)))) {
                error = culprit_error_set(CULPRIT_ERROR, "out of memory");
                goto cleanup;
            }
            shas = bigger;
            alloc = grown;
        }
        git_oid_tostr(shas[n++], sizeof(shas[0]), &oid);
    }
    *shas_out = shas;
    *n_out = n;
    shas = NULL;
cleanup:
    free(shas);
    git_revwalk_free(walk);
    git_commit_free(start);
    return error;
}

int culprit_vcs_is_ancestor(int *out, culprit_vcs *repo, const char *ancestor_sha,
                            const char *descendant_sha)
{
    git_commit *ancestor = NULL, *descendant = NULL;
    int error = 0, rc;

    *out = 0;
    if ((error = culprit_vcs__lookup_commit(&ancestor, repo, ancestor_sha)) < 0 ||
        (error = culprit_vcs__lookup_commit(&descendant, repo, descendant_sha)) < 0)
        goto cleanup;
    /* git_graph_descendant_of() says 0 for a commit and itself; git merge-base
     * --is-ancestor, and bisection's "good is below bad", count it. */
    if (git_oid_equal(git_commit_id(ancestor), git_commit_id(descendant))) {
        *out = 1;
        goto cleanup;
    }
    rc = git_graph_descendant_of(repo->git, git_commit_id(descendant), git_commit_id(ancestor));
    if (rc < 0) {
        error = culprit_vcs__git_error(CULPRIT_ERROR, "cannot compare the ancestry of two commits");
        goto cleanup;
    }
    *out = rc;
cleanup:
    git_commit_free(descendant);
    git_commit_free(ancestor);
    return error;
}
