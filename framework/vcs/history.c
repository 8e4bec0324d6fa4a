/*
 * The shape of history that `culprit check` and bisection walk: the first-parent
 * chain of a commit (the mainline, where each merge stands for its whole branch,
 * which is where the baseline of a test is looked for) and ancestry between two
 * commits (is the good commit of a bisection below the bad one?), and the commit an
 * id abbreviated in a run file's name stands for.
 */
#include "vcs_internal.h"

#include "culprit/core.h"

#include <stdlib.h>
#include <string.h>

int culprit_vcs_commit_by_prefix(char sha_out[41], culprit_vcs *repo, const char *prefix)
{
    git_oid oid;
    git_commit *commit = NULL;
    size_t len = prefix ? strspn(prefix, "0123456789abcdef") : 0;
    int rc;

    sha_out[0] = '\0';
    if (len < 4 || len > GIT_OID_HEXSZ || prefix[len] != '\0' ||
        git_oid_fromstrn(&oid, prefix, len) < 0)
        return culprit_error_set(CULPRIT_EINVALID, "'%s' is not an abbreviated commit id",
                                 prefix ? prefix : "");
    rc = git_commit_lookup_prefix(&commit, repo->git, &oid, len);
    git_error_clear();
    if (rc == GIT_ENOTFOUND)
        return culprit_error_set(CULPRIT_ENOTFOUND, "no commit %s in the repository", prefix);
    if (rc < 0)
        return culprit_error_set(CULPRIT_EINVALID, "%s is not one commit of the repository",
                                 prefix);
    git_oid_tostr(sha_out, 41, git_commit_id(commit));
    git_commit_free(commit);
    return 0;
}

int culprit_vcs_is_shallow(culprit_vcs *repo)
{
    return git_repository_is_shallow(repo->git) == 1;
}

/* Appends one id to the growing chain (at most `max` entries, 0 = no limit). */
static int chain_push(char (**shas)[41], size_t *n, size_t *alloc, size_t max, const git_oid *oid)
{
    if (*n == *alloc) {
        size_t grown = *alloc ? 2 * *alloc : 64;
        char(*bigger)[41];
        if (max && grown > max)
            grown = max;
        if (!(bigger = realloc(*shas, grown * sizeof(**shas))))
            return CULPRIT_ERROR_NOMEM();
        *shas = bigger;
        *alloc = grown;
    }
    git_oid_tostr((*shas)[(*n)++], sizeof((*shas)[0]), oid);
    return 0;
}

/* Sanity bound on a walk through records (data from other machines): far beyond
 * any real mainline. */
#define RECORDED_MAX 10000000

/*
 * Past the boundary of a shallow clone, the walk goes on through the ancestry
 * recorded in the shared history (ancestry_read.c): the boundary commit's first
 * parent is known from its commit object even though the clone lacks it, and each
 * record names the next one. Only recorded commits join the chain (a run pushed at
 * a commit always comes with its record), so without records the chain ends at the
 * oldest commit the clone has, as before. The chain is cut where no record goes on.
 */
static int past_boundary(char (**shas)[41], size_t *n, size_t *alloc, size_t max, int *cut,
                         culprit_vcs *repo, const git_oid *parent)
{
    git_tree *tree = NULL;
    culprit_vcs__record rec;
    git_oid oid, tortoise;
    size_t power = 1, steps = 0;
    int error;

    git_error_clear();
    culprit_error_clear();
    if ((error = culprit_vcs__records_tree(&tree, repo)) < 0)
        return error;
    git_oid_cpy(&oid, parent);
    git_oid_cpy(&tortoise, parent);
    *cut = 1;
    while ((max == 0 || *n < max) && *n < RECORDED_MAX) {
        char next[41];
        git_oid_tostr(next, sizeof(next), &oid);
        if (culprit_vcs__record_get(&rec, repo, tree, next) < 0)
            break; /* nothing known beyond: cut */
        if ((error = chain_push(shas, n, alloc, max, &oid)) < 0 || !rec.parent[0] ||
            git_oid_fromstr(&oid, rec.parent) < 0) {
            *cut = error < 0 || rec.parent[0]; /* a root: the chain is whole */
            culprit_vcs__record_dispose(&rec);
            break;
        }
        culprit_vcs__record_dispose(&rec);
        /* Records from other machines may loop: Brent's cycle detection (1980)
         * finds a loop within twice its length, in constant memory. */
        if (git_oid_equal(&oid, &tortoise))
            break;
        if (++steps == power) {
            git_oid_cpy(&tortoise, &oid);
            power *= 2;
            steps = 0;
        }
    }
    if (max && *n >= max)
        *cut = 0;
    git_tree_free(tree);
    return error;
}

int culprit_vcs_first_parents_cut(char (**shas_out)[41], size_t *n_out, int *cut_out,
                                  culprit_vcs *repo, const char *start_sha, size_t max)
{
    git_commit *commit = NULL, *parent = NULL;
    char(*shas)[41] = NULL;
    size_t n = 0, alloc = 0;
    int error = 0, rc;

    *shas_out = NULL;
    *n_out = 0;
    if (cut_out)
        *cut_out = 0;
    if ((error = culprit_vcs__lookup_commit(&commit, repo, start_sha)) < 0)
        goto cleanup;
    /* Parent by parent rather than a git_revwalk: libgit2 (1.5) does not read the
     * grafts of .git/shallow, so a revwalk fails past the boundary of a shallow
     * clone with "object not found" and loses the commits it had already parsed.
     * Here the boundary is exact: the last commit whose first parent is missing in
     * a shallow repository. The walk stays lazy, so `max` stops it early. */
    while ((error = chain_push(&shas, &n, &alloc, max, git_commit_id(commit))) == 0 &&
           (max == 0 || n < max) && git_commit_parentcount(commit) > 0) {
        rc = git_commit_parent(&parent, commit, 0);
        if (rc == GIT_ENOTFOUND && culprit_vcs_is_shallow(repo)) {
            int cut = 0;
            error =
                past_boundary(&shas, &n, &alloc, max, &cut, repo, git_commit_parent_id(commit, 0));
            if (cut_out)
                *cut_out = cut;
            break;
        }
        if (rc < 0) {
            error = culprit_vcs__git_error(CULPRIT_ERROR, "cannot walk the first-parent history");
            goto cleanup;
        }
        git_commit_free(commit);
        commit = parent;
        parent = NULL;
    }
    if (error < 0)
        goto cleanup;
    *shas_out = shas;
    *n_out = n;
    shas = NULL;
cleanup:
    free(shas);
    git_commit_free(parent);
    git_commit_free(commit);
    return error;
}

int culprit_vcs_first_parents(char (**shas_out)[41], size_t *n_out, culprit_vcs *repo,
                              const char *start_sha, size_t max)
{
    int cut = 0, error;

    if ((error = culprit_vcs_first_parents_cut(shas_out, n_out, &cut, repo, start_sha, max)) < 0 ||
        !cut)
        return error;
    error = culprit_error_set(CULPRIT_ERROR,
                              "the first-parent history of %.12s is cut after %zu commit%s, at "
                              "%.12s, by a shallow clone: fetch the older commits with `git "
                              "fetch --deepen=N` (N more commits) or `git fetch --unshallow`",
                              start_sha, *n_out, *n_out == 1 ? "" : "s", (*shas_out)[*n_out - 1]);
    free(*shas_out);
    *shas_out = NULL;
    *n_out = 0;
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
