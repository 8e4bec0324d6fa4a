/*
 * The DAG a bisection chooses from: the commits that are ancestors of the bad
 * commit and of none of the good ones (`git rev-list bad ^good...`), merges and
 * both sides of them included, parents before children. Bisection weighs each
 * commit by how many of its ancestors lie inside this set, so each node carries
 * the indices of its parents inside it; parents outside (below a good commit) are
 * only counted. An invariant checker guards the shape for assert().
 */
#include "vcs_internal.h"

#include "culprit/core.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* An id and where its node sits, sorted by id for bsearch while building. */
typedef struct {
    git_oid oid;
    size_t index;
} oid_index;

static int compare_oid_index(const void *a, const void *b)
{
    return git_oid_cmp(&((const oid_index *)a)->oid, &((const oid_index *)b)->oid);
}

static int compare_sha_ptr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Resolves every good revision, checks each against bad and hides it in `walk`. */
static int hide_goods(git_revwalk *walk, culprit_vcs *repo, const char *const *good, size_t ngood,
                      const char *bad, const char *bad_sha)
{
    char sha[41];
    git_oid oid;
    size_t i;
    int error, is;

    for (i = 0; i < ngood; i++) {
        if (!good[i])
            return culprit_error_set(CULPRIT_EINVALID, "good revision %zu is NULL", i);
        if ((error = culprit_vcs_resolve(sha, repo, good[i])) < 0)
            return error;
        if (strcmp(sha, bad_sha) == 0)
            return culprit_error_set(CULPRIT_EINVALID,
                                     "good '%s' and bad '%s' are the same commit (%s): "
                                     "nothing to bisect",
                                     good[i], bad, sha);
        if ((error = culprit_vcs_is_ancestor(&is, repo, sha, bad_sha)) < 0)
            return error;
        if (!is)
            return culprit_error_set(CULPRIT_EINVALID,
                                     "good '%s' (%s) is not an ancestor of bad '%s' (%s)", good[i],
                                     sha, bad, bad_sha);
        if (git_oid_fromstr(&oid, sha) < 0 || git_revwalk_hide(walk, &oid) < 0)
            return culprit_vcs__git_error(CULPRIT_ERROR, "cannot walk the history");
    }
    return 0;
}

/* Fills the parents of node `i` from its commit, with `sorted` the DAG's ids. */
static int link_parents(culprit_vcs_dag_node *node, const git_commit *commit,
                        const oid_index *sorted, size_t n)
{
    unsigned int k, count = git_commit_parentcount(commit);
    oid_index key, *hit;

    if (count > 0 && !(node->parents = calloc(count, sizeof(*node->parents))))
        return CULPRIT_ERROR_NOMEM();
    for (k = 0; k < count; k++) {
        git_oid_cpy(&key.oid, git_commit_parent_id(commit, k));
        hit = bsearch(&key, sorted, n, sizeof(*sorted), compare_oid_index);
        if (hit)
            node->parents[node->nparents++] = hit->index;
        else
            node->noutside++;
    }
    return 0;
}

/*
 * A bisection checks out and builds every commit it tests, so recorded ancestry
 * (history.c) is not enough: on a shallow clone that lacks a good end which the
 * first-parent chain of `bad` reaches through the shared history, the error says
 * how far to deepen the clone. Other good ends fail later, as unknown revisions.
 */
static int shallow_needs(culprit_vcs *repo, const char *const *good, size_t ngood,
                         const char *bad_sha)
{
    char(*chain)[41] = NULL;
    size_t n = 0, have = 0, k;
    int cut = 0, error = 0;

    if (!culprit_vcs_is_shallow(repo))
        return 0;
    for (size_t g = 0; g < ngood && error == 0; g++) {
        git_commit *commit = NULL;
        if (culprit_vcs__lookup_commit(&commit, repo, good[g]) != CULPRIT_ENOTFOUND) {
            git_commit_free(commit); /* there, or not a full id: the walk judges it */
            continue;
        }
        if (!chain) {
            if (culprit_vcs_first_parents_cut(&chain, &n, &cut, repo, bad_sha, 0) < 0)
                break;
            while (have < n && culprit_vcs__lookup_commit(&commit, repo, chain[have]) == 0) {
                git_commit_free(commit);
                have++;
            }
        }
        for (k = 0; k < n && strcmp(chain[k], good[g]) != 0; k++)
            ;
        if (k < n)
            error = culprit_error_set(CULPRIT_ENOTFOUND,
                                      "the bisection needs the commits from %.12s (good) to %.12s "
                                      "(bad), %zu first-parent commits, and this shallow clone "
                                      "has the newest %zu of them: fetch the others with `git "
                                      "fetch --deepen=%zu` (or `git fetch --unshallow`)",
                                      good[g], bad_sha, k + 1, have, k + 1 - have);
    }
    free(chain);
    if (error == 0)
        culprit_error_clear();
    git_error_clear();
    return error;
}

int culprit_vcs_dag_between(culprit_vcs_dag *out, culprit_vcs *repo, const char *const *good,
                            size_t ngood, const char *bad)
{
    git_revwalk *walk = NULL;
    git_commit *commit = NULL;
    oid_index *sorted = NULL;
    git_oid *oids = NULL;
    char bad_sha[41];
    size_t n = 0, alloc = 0, i;
    git_oid oid;
    int error = 0, rc;

    memset(out, 0, sizeof(*out));
    if (!bad)
        return culprit_error_set(CULPRIT_EINVALID, "no bad revision to bisect to");
    if (ngood == 0 || !good)
        return culprit_error_set(CULPRIT_EINVALID, "no good revision to bisect from");
    if ((error = culprit_vcs_resolve(bad_sha, repo, bad)) < 0 ||
        (error = shallow_needs(repo, good, ngood, bad_sha)) < 0)
        goto cleanup;
    if (git_revwalk_new(&walk, repo->git) < 0) {
        error = culprit_vcs__git_error(CULPRIT_ERROR, "cannot walk the history");
        goto cleanup;
    }
    /* Topological and reversed: libgit2 yields children before parents, bisection
     * wants parents first. Time order is not used: commit dates lie after rebases. */
    git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
    if ((error = hide_goods(walk, repo, good, ngood, bad, bad_sha)) < 0)
        goto cleanup;
    if (git_oid_fromstr(&oid, bad_sha) < 0 || git_revwalk_push(walk, &oid) < 0) {
        error = culprit_vcs__git_error(CULPRIT_ERROR, "cannot walk the history");
        goto cleanup;
    }

    while ((rc = git_revwalk_next(&oid, walk)) == 0) {
        if ((error = culprit_array_grow(&oids, &alloc, n, sizeof(*oids), 64)) < 0)
            goto cleanup;
        git_oid_cpy(&oids[n++], &oid);
    }
    if (rc != GIT_ITEROVER) {
        error =
            culprit_vcs__git_error(CULPRIT_ERROR, "cannot walk the history between good and bad");
        goto cleanup;
    }

    if (!(out->nodes = calloc(n, sizeof(*out->nodes))) || !(sorted = malloc(n * sizeof(*sorted)))) {
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    out->n = n;
    for (i = 0; i < n; i++) {
        git_oid_cpy(&sorted[i].oid, &oids[i]);
        sorted[i].index = i;
    }
    qsort(sorted, n, sizeof(*sorted), compare_oid_index);

    for (i = 0; i < n; i++) {
        culprit_vcs_dag_node *node = &out->nodes[i];

        git_oid_tostr(node->sha, sizeof(node->sha), &oids[i]);
        if ((error = culprit_vcs__lookup_commit(&commit, repo, node->sha)) < 0)
            goto cleanup;
        if (!(node->subject = culprit_vcs__subject(git_commit_message(commit)))) {
            error = CULPRIT_ERROR;
            goto cleanup;
        }
        if ((error = link_parents(node, commit, sorted, n)) < 0)
            goto cleanup;
        git_commit_free(commit);
        commit = NULL;
    }
cleanup:
    git_commit_free(commit);
    git_revwalk_free(walk);
    free(sorted);
    free(oids);
    if (error < 0)
        culprit_vcs_dag_dispose(out);
    return error;
}

void culprit_vcs_dag_dispose(culprit_vcs_dag *dag)
{
    size_t i;

    if (!dag)
        return;
    for (i = 0; i < dag->n; i++) {
        free(dag->nodes[i].subject);
        free(dag->nodes[i].parents);
    }
    free(dag->nodes);
    dag->nodes = NULL;
    dag->n = 0;
}

size_t culprit_vcs_dag_find(const culprit_vcs_dag *dag, const char *sha)
{
    size_t i;

    for (i = 0; dag && sha && i < dag->n; i++)
        if (strcmp(dag->nodes[i].sha, sha) == 0)
            return i;
    return (size_t)-1;
}

static int is_full_sha(const char *sha)
{
    size_t i;

    for (i = 0; i < 40; i++)
        if (!isxdigit((unsigned char)sha[i]))
            return 0;
    return sha[40] == '\0';
}

int culprit_vcs_dag_is_valid(const culprit_vcs_dag *dag)
{
    const char **shas = NULL;
    unsigned char *has_child = NULL;
    size_t i, j, k;
    int ok = 0;

    if (!dag || dag->n == 0 || !dag->nodes)
        return 0;
    if (!(shas = malloc(dag->n * sizeof(*shas))) || !(has_child = calloc(dag->n, 1)))
        goto cleanup;
    for (i = 0; i < dag->n; i++) {
        const culprit_vcs_dag_node *node = &dag->nodes[i];

        if (!is_full_sha(node->sha) || (node->nparents > 0 && !node->parents))
            goto cleanup;
        shas[i] = node->sha;
        for (j = 0; j < node->nparents; j++) {
            /* Parents first: the order bisection's weights are computed in. */
            if (node->parents[j] >= i)
                goto cleanup;
            for (k = 0; k < j; k++)
                if (node->parents[k] == node->parents[j])
                    goto cleanup;
            has_child[node->parents[j]] = 1;
        }
    }
    /* Everything leads to bad, and bad is the only commit without a child. */
    for (i = 0; i + 1 < dag->n; i++)
        if (!has_child[i])
            goto cleanup;
    qsort(shas, dag->n, sizeof(*shas), compare_sha_ptr);
    for (i = 1; i < dag->n; i++)
        if (strcmp(shas[i - 1], shas[i]) == 0)
            goto cleanup;
    ok = 1;
cleanup:
    free(shas);
    free(has_child);
    return ok;
}
