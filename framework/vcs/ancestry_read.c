/*
 * Ancestry recorded in the shared history: for every commit a run was pushed at,
 * the history ref (refs/culprit/history) holds a small record, "commits/ab/cdef...",
 * with the commit's first parent, author date and subject. A depth-1 CI checkout
 * has only its own commit; with these records the first-parent walk goes on past
 * the clone's boundary to the commits other runners measured, so a shallow clone
 * finds the same baselines as a full one without fetching a single commit.
 *
 * The record is text, one "key value" per line after a version line:
 *
 *     culprit-commit 1
 *     parent <40 hex>        (absent for a root commit)
 *     date 2026-11-22T13:05:00+01:00
 *     subject <first line of the message>
 *
 * Records come from other machines: anything malformed is no record at all.
 */
#include "vcs_internal.h"

#include "culprit/core.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RECORD_MAGIC "culprit-commit 1\n"
/* A record is a few hundred bytes; anything far larger is not one. */
#define RECORD_MAX 4096

void culprit_vcs__record_path(char out[64], const char *sha)
{
    snprintf(out, 64, "commits/%.2s/%.38s", sha, sha + 2);
}

int culprit_vcs__records_tree(git_tree **out, culprit_vcs *repo)
{
    git_commit *commit = NULL;
    int error;

    *out = NULL;
    if ((error = culprit_vcs__ref_commit(&commit, repo, CULPRIT_VCS_HISTORY_REF)) < 0 || !commit)
        return error;
    if (git_commit_tree(out, commit) < 0)
        error = culprit_vcs__git_error(CULPRIT_ERROR, "cannot read the history store's tree");
    git_commit_free(commit);
    return error;
}

static int is_hex40(const char *s, size_t len)
{
    if (len != 40)
        return 0;
    for (size_t i = 0; i < 40; i++)
        if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
            return 0;
    return 1;
}

/* "2026-11-22T13:05:00+01:00": digits where digits belong, nothing else. */
static int is_date(const char *s, size_t len)
{
    static const char shape[] = "dddd-dd-ddTdd:dd:dd+dd:dd";

    if (len != sizeof(shape) - 1)
        return 0;
    for (size_t i = 0; i < len; i++) {
        char want = shape[i];
        if (want == 'd' ? !isdigit((unsigned char)s[i])
                        : (want == '+' ? s[i] != '+' && s[i] != '-' : s[i] != want))
            return 0;
    }
    return 1;
}

static int parse_record(culprit_vcs__record *out, const char *p, size_t len)
{
    const char *end = p + len;
    int have_date = 0;

    if (len > RECORD_MAX || len < sizeof(RECORD_MAGIC) - 1 ||
        memcmp(p, RECORD_MAGIC, sizeof(RECORD_MAGIC) - 1) != 0)
        return -1;
    p += sizeof(RECORD_MAGIC) - 1;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)), *sp;
        size_t n;
        if (!nl || !(sp = memchr(p, ' ', (size_t)(nl - p))))
            return -1;
        n = (size_t)(nl - sp - 1);
        if (sp - p == 6 && !memcmp(p, "parent", 6) && is_hex40(sp + 1, n) && !out->parent[0])
            memcpy(out->parent, sp + 1, 40);
        else if (sp - p == 4 && !memcmp(p, "date", 4) && is_date(sp + 1, n) && !have_date)
            memcpy(out->date, sp + 1, n), have_date = 1;
        else if (sp - p == 7 && !memcmp(p, "subject", 7) && !out->subject &&
                 memchr(sp + 1, '\0', n) == NULL) {
            if (!(out->subject = strndup(sp + 1, n)))
                return -1;
        } else {
            return -1; /* a key of a newer format, or a repeated one: not trusted */
        }
        p = nl + 1;
    }
    return have_date && out->subject ? 0 : -1;
}

int culprit_vcs__record_get(culprit_vcs__record *out, culprit_vcs *repo, git_tree *tree,
                            const char *sha)
{
    git_tree_entry *entry = NULL;
    git_blob *blob = NULL;
    char path[64];
    size_t size = 0;
    int error = CULPRIT_ENOTFOUND;

    memset(out, 0, sizeof(*out));
    if (!tree || !is_hex40(sha, strlen(sha)))
        return CULPRIT_ENOTFOUND;
    culprit_vcs__record_path(path, sha);
    if (git_tree_entry_bypath(&entry, tree, path) < 0 ||
        git_tree_entry_type(entry) != GIT_OBJECT_BLOB ||
        culprit_vcs__blob_size(&size, repo, git_tree_entry_id(entry)) < 0 ||
        size > RECORD_MAX || /* not loaded: records come from other machines */
        git_blob_lookup(&blob, repo->git, git_tree_entry_id(entry)) < 0)
        goto cleanup;
    if (parse_record(out, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob)) == 0)
        error = 0;
cleanup:
    if (error < 0)
        culprit_vcs__record_dispose(out);
    git_blob_free(blob);
    git_tree_entry_free(entry);
    git_error_clear();
    return error;
}

void culprit_vcs__record_dispose(culprit_vcs__record *record)
{
    if (!record)
        return;
    free(record->subject);
    memset(record, 0, sizeof(*record));
}
