/*
 * What a report says about a commit: the subject a developer recognises it by,
 * who wrote it and when. The date is the author's, in the author's time zone, as
 * `git log` shows it by default: that is when the change was made, whereas the
 * committer date moves with every rebase.
 */
#include "vcs_internal.h"

#include "culprit/core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Strict ISO 8601 as git's %aI: local time of the zone, then the zone itself. */
static int format_iso8601(char *out, size_t size, int64_t epoch, int offset_minutes)
{
    time_t local = (time_t)(epoch + (int64_t)offset_minutes * 60);
    int abs_offset = offset_minutes < 0 ? -offset_minutes : offset_minutes;
    struct tm tm;
    size_t len;

    if (!gmtime_r(&local, &tm) || !(len = strftime(out, size, "%Y-%m-%dT%H:%M:%S", &tm)))
        return -1;
    snprintf(out + len, size - len, "%c%02d:%02d", offset_minutes < 0 ? '-' : '+', abs_offset / 60,
             abs_offset % 60);
    return 0;
}

/* A commit a shallow clone lacks, as the shared history recorded it (ancestry_read.c):
 * its subject and date; its author is not recorded (empty). */
static int recorded_info(culprit_vcs_commit *out, culprit_vcs *repo, const char *sha)
{
    culprit_vcs__record rec;
    git_tree *tree = NULL;
    int error;

    if ((error = culprit_vcs__records_tree(&tree, repo)) < 0)
        return error;
    error = culprit_vcs__record_get(&rec, repo, tree, sha);
    git_tree_free(tree);
    if (error < 0)
        return culprit_error_set(CULPRIT_ENOTFOUND,
                                 "no commit %s in this shallow clone, nor in the shared history "
                                 "(fetch it with `git fetch --deepen=N`)",
                                 sha);
    memcpy(out->sha, sha, 41);
    memcpy(out->author_date, rec.date, sizeof(out->author_date));
    out->subject = rec.subject;
    rec.subject = NULL;
    if (!(out->author_name = culprit_strdup("")) || !(out->author_email = culprit_strdup(""))) {
        culprit_vcs_commit_dispose(out);
        return CULPRIT_ERROR;
    }
    return 0;
}

int culprit_vcs_commit_info(culprit_vcs_commit *out, culprit_vcs *repo, const char *sha)
{
    git_commit *commit = NULL;
    const git_signature *author;
    int error = 0;

    memset(out, 0, sizeof(*out));
    if ((error = culprit_vcs__lookup_commit(&commit, repo, sha)) == CULPRIT_ENOTFOUND &&
        culprit_vcs_is_shallow(repo))
        return recorded_info(out, repo, sha);
    if (error < 0)
        goto cleanup;
    git_oid_tostr(out->sha, sizeof(out->sha), git_commit_id(commit));

    if (!(out->subject = culprit_vcs__subject(git_commit_message(commit)))) {
        error = CULPRIT_ERROR;
        goto cleanup;
    }

    author = git_commit_author(commit);
    if (!(out->author_name = culprit_strdup(author->name ? author->name : "")) ||
        !(out->author_email = culprit_strdup(author->email ? author->email : ""))) {
        error = CULPRIT_ERROR;
        goto cleanup;
    }
    out->author_time = (int64_t)author->when.time;
    out->author_offset = author->when.offset;
    if (format_iso8601(out->author_date, sizeof(out->author_date), out->author_time,
                       out->author_offset) < 0) {
        error = culprit_error_set(CULPRIT_EINVALID, "commit %s has an author date out of range",
                                  out->sha);
        goto cleanup;
    }
cleanup:
    git_commit_free(commit);
    if (error < 0)
        culprit_vcs_commit_dispose(out);
    return error;
}

char *culprit_vcs__subject(const char *message)
{
    char *subject;
    size_t len;

    /* Trailing blanks and a CR from Windows editors go. */
    message = message ? message : "";
    len = strcspn(message, "\n");
    while (len > 0 &&
           (message[len - 1] == '\r' || message[len - 1] == ' ' || message[len - 1] == '\t'))
        len--;
    if (!(subject = strndup(message, len)))
        CULPRIT_ERROR_NOMEM();
    return subject;
}

void culprit_vcs_commit_dispose(culprit_vcs_commit *commit)
{
    if (!commit)
        return;
    free(commit->subject);
    free(commit->author_name);
    free(commit->author_email);
    commit->subject = commit->author_name = commit->author_email = NULL;
}
