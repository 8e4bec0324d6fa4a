/*
 * What the tool accepts from the shared history (refs/culprit/history), whose files
 * come from other machines: the largest file it reads from the ref or pushes into
 * it, the names a run file there may have, and what a pull added. The readers
 * (env.c) and `history pull`/`push` (cmd_history_sync.c) apply the same rules, so a
 * file pull reports as skipped is one that check would skip too (docs/vcs.md,
 * "Limits").
 */
#define _GNU_SOURCE /* memmem */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

/* At most this many skipped files are named one by one; a remote with thousands of
 * junk files gets a count for the rest, not thousands of lines. */
#define SKIPPED_NAMED 20

/* How far into a file its head is looked for: the culprit.format property follows
 * the <testsuite> element's attributes (a suite name, a host, a timestamp). */
#define RUN_HEAD_MAX 65536

/* Why `data` cannot be a run document, judged from its head as the history reader
 * requires it: XML (a declaration or the root first) whose culprit.format property
 * comes before the first <testcase>; NULL when it can. Only the head: a first pull
 * of a large store must not parse every run (parsing 1,000 runs of 100 tests took
 * 30 s); the readers parse each file they use and skip one that fails later. */
static const char *not_a_run_head(const char *data, size_t len)
{
    size_t n = len < RUN_HEAD_MAX ? len : RUN_HEAD_MAX, skip = 0;
    const char *testcase;

    if (n >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0)
        skip = 3; /* a UTF-8 byte order mark */
    while (skip < n && strchr(" \t\r\n", data[skip]))
        skip++;
    if (n - skip < 11 ||
        (memcmp(data + skip, "<?xml", 5) != 0 && memcmp(data + skip, "<testsuite", 10) != 0))
        return "not an XML run document";
    testcase = memmem(data, n, "<testcase", 9);
    if (!memmem(data, testcase ? (size_t)(testcase - data) : n, "\"culprit.format\"", 16))
        return "not a culprit history file (no culprit.format property in its head)";
    return NULL;
}

/* Why the file `e` a pull added under runs/ is not a run, into `why` as
 * "<ref>:<path>: <reason>" escaped for the terminal (empty when it is one): its
 * name and size as the readers judge them (env.c), its content by its head. */
static int not_a_run(culprit_buf *why, culprit_vcs *repo, const culprit_vcs_ref_entry *e,
                     size_t max)
{
    culprit_buf data = CULPRIT_BUF_INIT, label = CULPRIT_BUF_INIT;
    const char *reason;
    int error;

    culprit_buf_clear(why);
    if ((error = culprit_buf_printf(&label, "%s:%s", CULPRIT_VCS_HISTORY_REF, e->path)) < 0)
        return error;
    if (!culprit_history_shared_run_name(e->path)) {
        error = culprit_error_set(CULPRIT_EINVALID,
                                  "%s: not the name of a run file (runs/<shard>/<name>.xml)",
                                  culprit_buf_cstr(&label));
    } else if ((error = culprit_vcs_blob_read(&data, repo, e->oid, max)) == CULPRIT_EINVALID) {
        /* (the message is copied: culprit_error_set() overwrites the last one) */
        error = culprit_buf_printf(&data, "%s", culprit_error_last()) < 0
                    ? CULPRIT_ERROR
                    : culprit_error_set(CULPRIT_EINVALID, "%s: %s (CULPRIT_SHARED_FILE_MAX)",
                                        culprit_buf_cstr(&label), culprit_buf_cstr(&data));
    } else if (error == 0 && (reason = not_a_run_head(data.ptr ? data.ptr : "", data.size))) {
        error = culprit_error_set(CULPRIT_EINVALID, "%s: %s", culprit_buf_cstr(&label), reason);
    }
    if (error == CULPRIT_EINVALID)
        error = culprit_buf_put_text(why, culprit_error_last());
    culprit_buf_dispose(&data);
    culprit_buf_dispose(&label);
    return error;
}

int cli_shared_count_pulled(size_t *runs, size_t *skipped, culprit_vcs *repo, const char *since)
{
    culprit_vcs_ref_files added = {NULL, 0};
    culprit_buf why = CULPRIT_BUF_INIT;
    size_t max = 0;
    int error;

    *runs = *skipped = 0;
    if ((error = culprit_history_shared_file_max(&max)) < 0 ||
        (error = culprit_vcs_ref_list_added(&added, repo, CULPRIT_VCS_HISTORY_REF, since, "runs")) <
            0)
        return error;
    for (size_t i = 0; i < added.n && error == 0; i++) {
        if ((error = not_a_run(&why, repo, &added.entries[i], max)) < 0 || why.size == 0) {
            *runs += error == 0;
            continue;
        }
        if (++*skipped <= SKIPPED_NAMED)
            fprintf(stderr, "culprit: warning: skipping %s\n", culprit_buf_cstr(&why));
    }
    if (*skipped > SKIPPED_NAMED)
        fprintf(stderr, "culprit: warning: %zu more files of %s skipped, not runs\n",
                *skipped - SKIPPED_NAMED, CULPRIT_VCS_HISTORY_REF);
    culprit_buf_dispose(&why);
    culprit_vcs_ref_files_dispose(&added);
    return error;
}
