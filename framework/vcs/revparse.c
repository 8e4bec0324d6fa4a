/*
 * Revisions: from what a user types (a branch, a tag, HEAD~3, an abbreviated id)
 * to a commit id, through libgit2's git rev-parse. The work here is in the errors:
 * an unknown name lists the branches and tags it is close to, the way git suggests
 * a command for a mistyped one ("did you mean"), so `culprit check --baseline mian`
 * says what to type instead.
 *
 * Closeness is the optimal-string-alignment distance (Levenshtein plus swaps of
 * neighbouring characters, ignoring case), because the usual typo swaps two
 * letters ("mian"), which plain Levenshtein counts twice.
 */
#include "vcs_internal.h"

#include "culprit/core.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Longest name part compared by edit distance; longer ones only by prefix. A typed
 * revision is short, and the bound keeps the quadratic distance cheap. */
#define NAME_MAX_EDIT 255
/* How many suggestions an "unknown revision" message lists. */
#define SUGGESTIONS_SHOWN 5

/* The namespaces whose short names users type; others (notes, stash, culprit's
 * own refs if any) are not revisions anyone means by a short name. */
static const char *const ref_namespaces[] = {"refs/heads/", "refs/tags/", "refs/remotes/"};

/* ------------------------------------------------------------------------------
 * Near matches
 * --------------------------------------------------------------------------- */

/* Length of the name part of `rev`: what precedes ~ ^ : or @{ (HEAD~3, main^2,
 * v1:path, main@{1}). */
static size_t name_part(const char *rev)
{
    size_t i;

    for (i = 0; rev[i]; i++) {
        if (rev[i] == '~' || rev[i] == '^' || rev[i] == ':')
            break;
        if (rev[i] == '@' && rev[i + 1] == '{')
            break;
    }
    return i;
}

typedef struct {
    char *name;
    size_t distance;
} candidate;

typedef struct {
    char *base; /* the name part of the revision (a copy, NUL-terminated) */
    size_t len;
    int full;   /* the user typed a full ref name: compare full names */
    int failed; /* out of memory in the callback; the message is set */
    candidate *items;
    size_t n, alloc;
} near_search;

static int consider_ref(const char *refname, void *payload)
{
    near_search *s = payload;
    const char *name = NULL;
    size_t i, n, d, gap;

    for (i = 0; i < sizeof(ref_namespaces) / sizeof(ref_namespaces[0]) && !name; i++)
        if (strncmp(refname, ref_namespaces[i], strlen(ref_namespaces[i])) == 0)
            name = refname + strlen(ref_namespaces[i]);
    if (!name)
        return 0;
    /* origin/HEAD is an alias of a remote branch that is listed anyway. */
    n = strlen(name);
    if (n >= 5 && strcmp(name + n - 5, "/HEAD") == 0)
        return 0;
    if (s->full) {
        name = refname;
        n = strlen(name);
    }

    /* A name that starts with what was typed is at distance n - len exactly (the
     * missing tail); it is suggested at any distance, as completion would. */
    gap = n > s->len ? n - s->len : s->len - n;
    if (n > s->len && strncasecmp(name, s->base, s->len) == 0)
        d = gap;
    else if (s->len <= NAME_MAX_EDIT && gap <= culprit_suggest_max_distance(s->len) &&
             (d = culprit_edit_distance(s->base, name)) <= culprit_suggest_max_distance(s->len))
        ; /* a typo away */
    else
        return 0;

    if (culprit_array_grow(&s->items, &s->alloc, s->n, sizeof(*s->items), 16) < 0) {
        s->failed = 1;
        return CULPRIT_ERROR;
    }
    if (!(s->items[s->n].name = culprit_strdup(name))) {
        s->failed = 1;
        return CULPRIT_ERROR;
    }
    s->items[s->n++].distance = d;
    return 0;
}

static int by_distance_then_name(const void *pa, const void *pb)
{
    const candidate *a = pa, *b = pb;

    if (a->distance != b->distance)
        return a->distance < b->distance ? -1 : 1;
    return strcmp(a->name, b->name);
}

int culprit_vcs_near_refs(char ***names_out, size_t *n_out, culprit_vcs *repo, const char *rev,
                          size_t max)
{
    near_search s = {0};
    char **names = NULL;
    size_t i, n = 0;
    int error = 0, rc;

    *names_out = NULL;
    *n_out = 0;
    if (!rev)
        return culprit_error_set(CULPRIT_EINVALID, "no revision to find near matches of");
    s.len = name_part(rev);
    if (!(s.base = strndup(rev, s.len)))
        return CULPRIT_ERROR_NOMEM();
    s.full = strncmp(rev, "refs/", 5) == 0;
    if (s.len > 0) {
        rc = git_reference_foreach_name(repo->git, consider_ref, &s);
        if (rc < 0) {
            /* Our callback's own failure has set the message already. */
            error = s.failed ? CULPRIT_ERROR
                             : culprit_vcs__git_error(CULPRIT_ERROR, "cannot list the references");
            goto cleanup;
        }
    }
    if (s.n > 1) /* qsort(NULL, 0, ...) is undefined */
        qsort(s.items, s.n, sizeof(*s.items), by_distance_then_name);

    if (!(names = calloc(s.n + 1, sizeof(*names)))) {
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    for (i = 0; i < s.n && (max == 0 || n < max); i++) {
        /* A branch and a tag of the same name sort next to each other: one suffices. */
        if (n > 0 && strcmp(names[n - 1], s.items[i].name) == 0)
            continue;
        names[n++] = s.items[i].name;
        s.items[i].name = NULL;
    }
    *names_out = names;
    *n_out = n;
    names = NULL;
cleanup:
    for (i = 0; i < s.n; i++)
        free(s.items[i].name);
    free(s.items);
    free(s.base);
    culprit_vcs_names_free(names);
    return error;
}

void culprit_vcs_names_free(char **names)
{
    size_t i;

    if (!names)
        return;
    for (i = 0; names[i]; i++)
        free(names[i]);
    free(names);
}

/* ------------------------------------------------------------------------------
 * Resolution
 * --------------------------------------------------------------------------- */

/* The message for a revision libgit2 did not find, built in the order a reader
 * needs it: an empty repository, a known name with a suffix leading nowhere
 * (HEAD~99 past the root, main^2 of a commit with one parent), or an unknown name
 * with its near matches. */
static int unknown_revision(culprit_vcs *repo, const char *rev)
{
    /* A shallow clone (CI's default checkout) lacks every commit older than its
     * boundary: a good end of a bisection, HEAD~5, a sha from a colleague. */
    const char *shallow = culprit_vcs_is_shallow(repo)
                              ? " (this clone is shallow: fetch the older commits with `git "
                                "fetch --deepen=N` or `git fetch --unshallow`)"
                              : "";
    culprit_buf msg = CULPRIT_BUF_INIT;
    git_object *obj = NULL;
    char *base = NULL, **names = NULL;
    size_t len = name_part(rev), n = 0, i;
    int error, rc;

    if (!(base = strndup(rev, len))) {
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    if ((strcmp(base, "HEAD") == 0 || strcmp(base, "@") == 0 || len == 0) &&
        git_repository_head_unborn(repo->git) == 1) {
        error = culprit_error_set(CULPRIT_ENOTFOUND,
                                  "unknown revision '%s': the repository has no commit yet", rev);
        goto cleanup;
    }
    if (len > 0 && rev[len] != '\0' && git_revparse_single(&obj, repo->git, base) == 0) {
        error = culprit_error_set(
            CULPRIT_ENOTFOUND,
            "unknown revision '%s': '%s' exists, but '%s' names nothing from it%s", rev, base,
            rev + len, shallow);
        goto cleanup;
    }
    if ((rc = culprit_vcs_near_refs(&names, &n, repo, rev, SUGGESTIONS_SHOWN)) < 0) {
        error = rc;
        goto cleanup;
    }
    rc = culprit_buf_printf(&msg, "unknown revision '%s'", rev);
    if (n == 0)
        rc = rc < 0 ? rc : culprit_buf_puts(&msg, ": no commit, branch or tag of that name");
    else
        rc = rc < 0 ? rc
                    : culprit_buf_puts(&msg, n == 1 ? "; did you mean " : "; did you mean one of ");
    for (i = 0; i < n && rc >= 0; i++)
        rc = culprit_buf_printf(&msg, "%s'%s'", i > 0 ? ", " : "", names[i]);
    if (n > 0 && rc >= 0)
        rc = culprit_buf_puts(&msg, "?");
    if (rc >= 0)
        rc = culprit_buf_puts(&msg, shallow);
    if (rc < 0) {
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    error = culprit_error_set(CULPRIT_ENOTFOUND, "%s", culprit_buf_cstr(&msg));
cleanup:
    git_object_free(obj);
    culprit_vcs_names_free(names);
    culprit_buf_dispose(&msg);
    free(base);
    return error;
}

int culprit_vcs_resolve(char sha_out[41], culprit_vcs *repo, const char *rev)
{
    git_object *obj = NULL, *target = NULL, *commit = NULL;
    int error = 0, rc;

    sha_out[0] = '\0';
    if (!rev || !*rev)
        return culprit_error_set(CULPRIT_EINVALID, "empty revision");
    /* libgit2 calls a range an invalid pattern; say what is wrong with it. */
    if (strstr(rev, ".."))
        return culprit_error_set(CULPRIT_EINVALID, "'%s' is a range, not a single revision", rev);
    rc = git_revparse_single(&obj, repo->git, rev);
    if (rc == GIT_ENOTFOUND) {
        error = unknown_revision(repo, rev);
        goto cleanup;
    } else if (rc == GIT_EAMBIGUOUS) {
        error = culprit_error_set(CULPRIT_EINVALID,
                                  "ambiguous revision '%s': several objects have ids starting "
                                  "with it; give more hex digits",
                                  rev);
        goto cleanup;
    } else if (rc == GIT_EINVALIDSPEC) {
        const git_error *e = git_error_last();
        error = culprit_error_set(CULPRIT_EINVALID, "'%s' is not a single revision: %s", rev,
                                  e && e->message ? e->message : "invalid syntax");
        goto cleanup;
    } else if (rc < 0) {
        error = culprit_vcs__git_error(CULPRIT_ERROR, "cannot resolve a revision");
        goto cleanup;
    }
    if (git_object_peel(&commit, obj, GIT_OBJECT_COMMIT) < 0) {
        /* Name what it is instead: for a tag, what the tag points to. */
        git_object_t type = git_object_type(obj);
        if (type == GIT_OBJECT_TAG && git_object_peel(&target, obj, GIT_OBJECT_ANY) == 0)
            type = git_object_type(target);
        error = culprit_error_set(CULPRIT_EINVALID, "revision '%s' names a %s, not a commit", rev,
                                  git_object_type2string(type));
        goto cleanup;
    }
    git_oid_tostr(sha_out, GIT_OID_HEXSZ + 1, git_object_id(commit));
cleanup:
    git_object_free(commit);
    git_object_free(target);
    git_object_free(obj);
    return error;
}
