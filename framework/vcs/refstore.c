/*
 * A store of files kept in a git ref of the user's repository (culprit's shared
 * history lives in refs/culprit/history): each version of the store is a commit
 * whose tree holds the files, so the store travels with `git fetch` and `git push`
 * and needs no server of its own. Everything is written through the object
 * database and the ref alone: the working tree, the index and HEAD are never
 * touched.
 *
 * The store is append-only and its names are unique, so two versions merge by
 * taking the union of their trees; no three-way merge is needed and no conflict
 * can lose a file. A path both sides hold with different contents (which unique
 * names make a corruption, not an edit) keeps our version and is counted. Ref
 * updates are compare-and-swap (git_reference_create_matching), so two writers in
 * one repository cannot drop each other's commit: the loser builds again.
 */
#include "vcs_internal.h"

#include "culprit/core.h"

#include <stdlib.h>
#include <string.h>

/* How often a write is rebuilt when another writer moved the ref meanwhile. */
#define REF_ATTEMPTS 8

/* The commit a ref points at; *out NULL when the ref does not exist. */
int culprit_vcs__ref_commit(git_commit **out, culprit_vcs *repo, const char *ref)
{
    git_oid oid;
    int rc;

    *out = NULL;
    rc = git_reference_name_to_id(&oid, repo->git, ref);
    if (rc == GIT_ENOTFOUND)
        return 0;
    if (rc < 0)
        return culprit_vcs__git_error(CULPRIT_ERROR, "cannot read the ref of the history store");
    if (git_commit_lookup(out, repo->git, &oid) < 0)
        return culprit_vcs__git_error(CULPRIT_ERROR, "cannot read the history store's commit");
    return 0;
}

int culprit_vcs_ref_resolve(char sha[41], culprit_vcs *repo, const char *ref)
{
    git_commit *commit = NULL;
    int error;

    sha[0] = '\0';
    if ((error = culprit_vcs__ref_commit(&commit, repo, ref)) < 0)
        return error;
    if (!commit)
        return culprit_error_set(CULPRIT_ENOTFOUND, "no ref %s in the repository", ref);
    git_oid_tostr(sha, 41, git_commit_id(commit));
    git_commit_free(commit);
    return 0;
}

/* ------------------------------------------------------------------- list --- */

typedef struct {
    culprit_vcs_ref_files *files;
    size_t alloc;
    const char *under;
} list_state;

static int list_entry(const char *root, const git_tree_entry *entry, void *payload)
{
    list_state *s = payload;
    culprit_vcs_ref_entry *e;
    culprit_buf path = CULPRIT_BUF_INIT;

    if (git_tree_entry_type(entry) != GIT_OBJECT_BLOB)
        return 0;
    if (culprit_array_grow(&s->files->entries, &s->alloc, s->files->n, sizeof(*e), 256) < 0 ||
        culprit_buf_printf(&path, "%s%s%s%s", s->under ? s->under : "", s->under ? "/" : "", root,
                           git_tree_entry_name(entry)) < 0) {
        culprit_buf_dispose(&path);
        return -1;
    }
    e = &s->files->entries[s->files->n++];
    e->path = culprit_buf_detach(&path);
    git_oid_tostr(e->oid, sizeof(e->oid), git_tree_entry_id(entry));
    return 0;
}

int culprit_vcs_ref_list(culprit_vcs_ref_files *out, culprit_vcs *repo, const char *ref,
                         const char *under)
{
    git_commit *commit = NULL;
    git_tree *tree = NULL, *sub = NULL;
    git_tree_entry *entry = NULL;
    list_state s = {out, 0, under};
    int error = 0;

    memset(out, 0, sizeof(*out));
    if ((error = culprit_vcs__ref_commit(&commit, repo, ref)) < 0 || !commit)
        return error;
    if (git_commit_tree(&tree, commit) < 0) {
        error = culprit_vcs__git_error(CULPRIT_ERROR, "cannot read the history store's tree");
        goto cleanup;
    }
    if (under && *under) {
        if (git_tree_entry_bypath(&entry, tree, under) < 0 ||
            git_tree_entry_type(entry) != GIT_OBJECT_TREE)
            goto cleanup; /* nothing under that path */
        if (git_tree_lookup(&sub, repo->git, git_tree_entry_id(entry)) < 0) {
            error = culprit_vcs__git_error(CULPRIT_ERROR, "cannot read the history store's tree");
            goto cleanup;
        }
    } else {
        s.under = NULL;
    }
    if (git_tree_walk(sub ? sub : tree, GIT_TREEWALK_PRE, list_entry, &s) < 0)
        error = culprit_error_set(CULPRIT_ERROR, "cannot list the history store (out of memory "
                                                 "or an unreadable tree)");
cleanup:
    if (error < 0)
        culprit_vcs_ref_files_dispose(out);
    git_tree_entry_free(entry);
    git_tree_free(sub);
    git_tree_free(tree);
    git_commit_free(commit);
    return error;
}

void culprit_vcs_ref_files_dispose(culprit_vcs_ref_files *files)
{
    if (!files)
        return;
    for (size_t i = 0; i < files->n; i++)
        free(files->entries[i].path);
    free(files->entries);
    memset(files, 0, sizeof(*files));
}

int culprit_vcs__blob_size(size_t *out, culprit_vcs *repo, const git_oid *oid)
{
    git_odb *odb = NULL;
    git_object_t type = GIT_OBJECT_INVALID;
    int rc;

    *out = 0;
    if ((rc = git_repository_odb(&odb, repo->git)) == 0)
        rc = git_odb_read_header(out, &type, odb, oid);
    git_odb_free(odb);
    if (rc < 0 || type != GIT_OBJECT_BLOB)
        return culprit_vcs__git_error(CULPRIT_ERROR, "cannot read a file of the history store");
    return 0;
}

int culprit_vcs_blob_read(culprit_buf *out, culprit_vcs *repo, const char *oid_hex, size_t max)
{
    git_oid oid;
    git_blob *blob = NULL;
    size_t size = 0;
    int error;

    if (git_oid_fromstrp(&oid, oid_hex) < 0)
        return culprit_error_set(CULPRIT_EINVALID, "'%s' is not an object id", oid_hex);
    /* The size from the object's header before its content is loaded: a blob of
     * hundreds of MB pulled from another machine is refused without reading it. */
    if (max && (error = culprit_vcs__blob_size(&size, repo, &oid)) < 0)
        return error;
    if (max && size > max)
        return culprit_error_set(CULPRIT_EINVALID, "%zu bytes, over the limit of %zu bytes", size,
                                 max);
    if (git_blob_lookup(&blob, repo->git, &oid) < 0)
        return culprit_vcs__git_error(CULPRIT_ERROR, "cannot read a file of the history store");
    error = culprit_buf_put(out, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
    git_blob_free(blob);
    return error;
}

/* ------------------------------------------------------------------ write --- */

int culprit_vcs_blob_write(char oid[41], culprit_vcs *repo, const char *data, size_t len)
{
    git_oid id;

    oid[0] = '\0';
    if (git_blob_create_from_buffer(&id, repo->git, data, len) < 0)
        return culprit_vcs__git_error(CULPRIT_ERROR, "cannot write a file of the history store");
    git_oid_tostr(oid, 41, &id);
    return 0;
}

static int empty_tree(git_tree **out, git_repository *git)
{
    git_treebuilder *tb = NULL;
    git_oid oid;
    int rc;

    if ((rc = git_treebuilder_new(&tb, git, NULL)) == 0 &&
        (rc = git_treebuilder_write(&oid, tb)) == 0)
        rc = git_tree_lookup(out, git, &oid);
    git_treebuilder_free(tb);
    return rc;
}

/* Commits `tree` with `parents` and moves `ref` from `old` (NULL: absent) to it.
 * CULPRIT_EEXISTS when another writer moved the ref first. */
static int commit_and_swap(culprit_vcs *repo, const char *ref, const git_oid *tree_oid,
                           git_commit **parents, size_t nparents, const char *message)
{
    git_signature *sig = NULL;
    git_tree *tree = NULL;
    git_reference *out_ref = NULL;
    git_oid commit_oid;
    int rc, error = 0;

    /* A fixed identity: the store's commits must not depend on the user's git
     * configuration (a CI runner often has none). */
    if (git_signature_now(&sig, "culprit", "culprit@localhost") < 0 ||
        git_tree_lookup(&tree, repo->git, tree_oid) < 0 ||
        git_commit_create(&commit_oid, repo->git, NULL, sig, sig, NULL, message, tree, nparents,
                          (const git_commit **)parents) < 0) {
        error = culprit_vcs__git_error(CULPRIT_ERROR, "cannot write the history store's commit");
        goto cleanup;
    }
    if (nparents)
        rc = git_reference_create_matching(&out_ref, repo->git, ref, &commit_oid, 1,
                                           git_commit_id(parents[0]), message);
    else
        rc = git_reference_create(&out_ref, repo->git, ref, &commit_oid, 0, message);
    if (rc == GIT_EMODIFIED || rc == GIT_EEXISTS || rc == GIT_ELOCKED)
        error = culprit_error_set(CULPRIT_EEXISTS, "%s moved while it was written", ref);
    else if (rc < 0)
        error = culprit_vcs__git_error(CULPRIT_ERROR, "cannot update the history store's ref");
cleanup:
    git_reference_free(out_ref);
    git_tree_free(tree);
    git_signature_free(sig);
    return error;
}

static int compare_updates(const void *a, const void *b)
{
    return strcmp(((const git_tree_update *)a)->path, ((const git_tree_update *)b)->path);
}

/* The updates adding those of `files` that `tree` lacks (each path once). */
static int new_updates(git_tree_update **out, size_t *n_out, culprit_vcs *repo, git_tree *tree,
                       const culprit_vcs_file *files, size_t n)
{
    git_tree_update *u = calloc(n ? n : 1, sizeof(*u));
    git_tree_entry *entry = NULL;
    size_t k = 0;

    *out = u;
    *n_out = 0;
    if (!u)
        return CULPRIT_ERROR_NOMEM();
    for (size_t i = 0; i < n; i++) {
        if (git_tree_entry_bypath(&entry, tree, files[i].path) == 0) {
            git_tree_entry_free(entry); /* append-only: a name is never written twice */
            continue;
        }
        if (files[i].oid
                ? git_oid_fromstr(&u[k].id, files[i].oid) < 0
                : git_blob_create_from_buffer(&u[k].id, repo->git, files[i].data, files[i].len) < 0)
            return culprit_vcs__git_error(CULPRIT_ERROR,
                                          "cannot write a file of the history store");
        u[k].action = GIT_TREE_UPDATE_UPSERT;
        u[k].filemode = GIT_FILEMODE_BLOB;
        u[k].path = files[i].path;
        k++;
    }
    qsort(u, k, sizeof(*u), compare_updates);
    *n_out = 0;
    for (size_t i = 0; i < k; i++)
        if (*n_out == 0 || strcmp(u[*n_out - 1].path, u[i].path) != 0)
            u[(*n_out)++] = u[i];
    return 0;
}

/* One attempt of culprit_vcs_ref_add(). */
static int add_once(size_t *added, culprit_vcs *repo, const char *ref,
                    const culprit_vcs_file *files, size_t n, const char *message)
{
    git_commit *parent = NULL;
    git_tree *tree = NULL;
    git_tree_update *updates = NULL;
    git_oid tree_oid;
    size_t nupdates = 0;
    int error;

    if ((error = culprit_vcs__ref_commit(&parent, repo, ref)) < 0)
        return error;
    if ((parent ? git_commit_tree(&tree, parent) : empty_tree(&tree, repo->git)) < 0) {
        error = culprit_vcs__git_error(CULPRIT_ERROR, "cannot read the history store's tree");
        goto cleanup;
    }
    if ((error = new_updates(&updates, &nupdates, repo, tree, files, n)) < 0 || nupdates == 0)
        goto cleanup;
    if (git_tree_create_updated(&tree_oid, repo->git, tree, nupdates, updates) < 0) {
        error = culprit_vcs__git_error(CULPRIT_ERROR, "cannot write the history store's tree");
        goto cleanup;
    }
    error = commit_and_swap(repo, ref, &tree_oid, &parent, parent ? 1 : 0, message);
cleanup:
    if (error == 0)
        *added = nupdates;
    free(updates);
    git_tree_free(tree);
    git_commit_free(parent);
    return error;
}

/* A relative path of non-empty components, none "." or "..". */
static int valid_path(const char *path)
{
    if (!path || !*path)
        return 0;
    for (const char *p = path;;) {
        size_t len = strcspn(p, "/");
        if (len == 0 || (len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
            return 0;
        if (!p[len])
            return 1;
        p += len + 1;
    }
}

int culprit_vcs_ref_add(size_t *added, culprit_vcs *repo, const char *ref,
                        const culprit_vcs_file *files, size_t n, const char *message)
{
    int error = CULPRIT_EEXISTS;
    size_t dummy;

    added = added ? added : &dummy;
    *added = 0;
    if (!git_reference_is_valid_name(ref))
        return culprit_error_set(CULPRIT_EINVALID, "'%s' is not a valid ref name", ref);
    for (size_t i = 0; i < n; i++)
        if (!valid_path(files[i].path))
            return culprit_error_set(CULPRIT_EINVALID, "'%s' cannot be a path in the store",
                                     files[i].path ? files[i].path : "");
    for (int attempt = 0; attempt < REF_ATTEMPTS && error == CULPRIT_EEXISTS; attempt++)
        error = add_once(added, repo, ref, files, n, message ? message : "culprit: add runs");
    return error;
}

/* ------------------------------------------------------------------ merge --- */

/* The union of two trees into `out`: entries of either side; a path both hold
 * differently is merged again when both are trees, else ours is kept. */
static int union_trees(git_oid *out, size_t *conflicts, git_repository *git, git_tree *ours,
                       git_tree *theirs)
{
    git_treebuilder *tb = NULL;
    int rc = 0;

    if ((rc = git_treebuilder_new(&tb, git, ours)) < 0)
        return rc;
    for (size_t i = 0; rc == 0 && i < git_tree_entrycount(theirs); i++) {
        const git_tree_entry *t = git_tree_entry_byindex(theirs, i);
        const git_tree_entry *o = git_treebuilder_get(tb, git_tree_entry_name(t));
        git_tree *a = NULL, *b = NULL;
        git_oid merged;

        if (!o) {
            rc = git_treebuilder_insert(NULL, tb, git_tree_entry_name(t), git_tree_entry_id(t),
                                        git_tree_entry_filemode(t));
        } else if (git_oid_equal(git_tree_entry_id(o), git_tree_entry_id(t))) {
            continue;
        } else if (git_tree_entry_type(o) == GIT_OBJECT_TREE &&
                   git_tree_entry_type(t) == GIT_OBJECT_TREE) {
            if ((rc = git_tree_lookup(&a, git, git_tree_entry_id(o))) == 0 &&
                (rc = git_tree_lookup(&b, git, git_tree_entry_id(t))) == 0 &&
                (rc = union_trees(&merged, conflicts, git, a, b)) == 0)
                rc = git_treebuilder_insert(NULL, tb, git_tree_entry_name(t), &merged,
                                            GIT_FILEMODE_TREE);
        } else {
            (*conflicts)++;
        }
        git_tree_free(a);
        git_tree_free(b);
    }
    if (rc == 0)
        rc = git_treebuilder_write(out, tb);
    git_treebuilder_free(tb);
    return rc;
}

/* Moves `ref` (at `ours`, or absent) forward to `theirs`. */
static int fast_forward(culprit_vcs *repo, const char *ref, git_commit *ours, git_commit *theirs)
{
    git_reference *r = NULL;
    int rc;

    rc = ours ? git_reference_create_matching(&r, repo->git, ref, git_commit_id(theirs), 1,
                                              git_commit_id(ours), "culprit: fast-forward")
              : git_reference_create(&r, repo->git, ref, git_commit_id(theirs), 0,
                                     "culprit: fast-forward");
    git_reference_free(r);
    if (rc == GIT_EMODIFIED || rc == GIT_EEXISTS || rc == GIT_ELOCKED)
        return culprit_error_set(CULPRIT_EEXISTS, "%s moved while it was written", ref);
    return rc < 0 ? culprit_vcs__git_error(CULPRIT_ERROR, "cannot update the history store's ref")
                  : 0;
}

/* The files under `under` that `after` has and `before` (NULL: none) lacks, appended
 * to `out`: a diff of the two trees, which skips the subtrees they share, so its
 * cost is that of what was added, not of the store. */
static int files_added(culprit_vcs_ref_files *out, git_repository *git, git_tree *before,
                       git_tree *after, const char *under)
{
    git_diff *diff = NULL;
    git_diff_options o;
    char *paths[1];
    size_t alloc = out->n;
    int error = 0;

    git_diff_options_init(&o, GIT_DIFF_OPTIONS_VERSION);
    paths[0] = (char *)under;
    o.pathspec.strings = paths;
    o.pathspec.count = under && *under ? 1 : 0;
    if (git_diff_tree_to_tree(&diff, git, before, after, &o) < 0)
        return culprit_vcs__git_error(CULPRIT_ERROR, "cannot compare two versions of the store");
    for (size_t i = 0; error == 0 && i < git_diff_num_deltas(diff); i++) {
        const git_diff_delta *d = git_diff_get_delta(diff, i);
        culprit_vcs_ref_entry *e;
        if (d->status != GIT_DELTA_ADDED)
            continue;
        if ((error = culprit_array_grow(&out->entries, &alloc, out->n, sizeof(*e), 64)) < 0)
            break;
        e = &out->entries[out->n];
        if (!(e->path = culprit_strdup(d->new_file.path))) {
            error = CULPRIT_ERROR_NOMEM();
            break;
        }
        git_oid_tostr(e->oid, sizeof(e->oid), &d->new_file.id);
        out->n++;
    }
    git_diff_free(diff);
    return error;
}

/* How many run files (under runs/) `after` has and `before` lacks. */
static size_t runs_added(git_repository *git, git_tree *before, git_tree *after)
{
    culprit_vcs_ref_files added = {NULL, 0};
    size_t n;

    if (files_added(&added, git, before, after, "runs") < 0)
        culprit_error_clear();
    n = added.n;
    culprit_vcs_ref_files_dispose(&added);
    return n;
}

int culprit_vcs_ref_list_added(culprit_vcs_ref_files *out, culprit_vcs *repo, const char *ref,
                               const char *since, const char *under)
{
    git_commit *now = NULL, *before = NULL;
    git_tree *a = NULL, *b = NULL;
    int error;

    memset(out, 0, sizeof(*out));
    if ((error = culprit_vcs__ref_commit(&now, repo, ref)) < 0 || !now)
        return error;
    if (since && *since && (error = culprit_vcs__lookup_commit(&before, repo, since)) < 0)
        goto cleanup;
    if ((before && git_commit_tree(&a, before) < 0) || git_commit_tree(&b, now) < 0) {
        error = culprit_vcs__git_error(CULPRIT_ERROR, "cannot read the history store's tree");
        goto cleanup;
    }
    error = files_added(out, repo->git, a, b, under);
cleanup:
    if (error < 0)
        culprit_vcs_ref_files_dispose(out);
    git_tree_free(a);
    git_tree_free(b);
    git_commit_free(before);
    git_commit_free(now);
    return error;
}

static int merge_once(culprit_vcs_merge_result *out, culprit_vcs *repo, const char *ref,
                      const char *other)
{
    git_commit *ours = NULL, *theirs = NULL, *parents[2];
    git_tree *a = NULL, *b = NULL, *merged = NULL;
    git_oid tree_oid;
    int error;

    if ((error = culprit_vcs__ref_commit(&theirs, repo, other)) < 0 || !theirs ||
        (error = culprit_vcs__ref_commit(&ours, repo, ref)) < 0)
        goto cleanup;
    if (ours &&
        (git_oid_equal(git_commit_id(ours), git_commit_id(theirs)) ||
         git_graph_descendant_of(repo->git, git_commit_id(ours), git_commit_id(theirs)) == 1))
        goto cleanup; /* we have it all */
    if ((ours && git_commit_tree(&a, ours) < 0) || git_commit_tree(&b, theirs) < 0) {
        error = culprit_vcs__git_error(CULPRIT_ERROR, "cannot read the history stores");
        goto cleanup;
    }
    if (!ours ||
        git_graph_descendant_of(repo->git, git_commit_id(theirs), git_commit_id(ours)) == 1) {
        if ((error = fast_forward(repo, ref, ours, theirs)) == 0) {
            out->changed = 1;
            out->added = runs_added(repo->git, a, b);
        }
        goto cleanup;
    }
    if (union_trees(&tree_oid, &out->conflicts, repo->git, a, b) < 0 ||
        git_tree_lookup(&merged, repo->git, &tree_oid) < 0) {
        error = culprit_vcs__git_error(CULPRIT_ERROR, "cannot merge the history stores");
        goto cleanup;
    }
    parents[0] = ours;
    parents[1] = theirs;
    if ((error = commit_and_swap(repo, ref, &tree_oid, parents, 2, "culprit: merge runs")) == 0) {
        out->changed = 1;
        out->added = runs_added(repo->git, a, merged);
    }
cleanup:
    git_tree_free(merged);
    git_tree_free(a);
    git_tree_free(b);
    git_commit_free(ours);
    git_commit_free(theirs);
    return error;
}

int culprit_vcs_ref_merge(culprit_vcs_merge_result *out, culprit_vcs *repo, const char *ref,
                          const char *other_ref)
{
    int error = CULPRIT_EEXISTS;

    for (int attempt = 0; attempt < REF_ATTEMPTS && error == CULPRIT_EEXISTS; attempt++) {
        memset(out, 0, sizeof(*out));
        error = merge_once(out, repo, ref, other_ref);
    }
    return error;
}
