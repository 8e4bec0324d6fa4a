/*
 * History files on disk: opened, checked to be a non-empty regular file, and
 * mapped rather than read (no copy). Every page is read (the skip of a summaries-only
 * read looks for '<' among the samples), so the mapping is populated at once
 * (MAP_POPULATE): a page fault per page cost more than the copy would have. The path
 * is kept in the run, for messages and for the store.
 */
#include "history_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int culprit_history_read_file(culprit_run **out, const char *path, unsigned int flags)
{
    culprit_history_query query = {.flags = flags};
    culprit_run *run = NULL;
    int error;

    *out = NULL;
    if ((error = culprit_history__load_file(&run, path, &query)) < 0 || !run)
        return error;
    *out = run;
    return 0;
}

int culprit_history__load_file(culprit_run **out, const char *path,
                               const culprit_history_query *query)
{
    struct stat st;
    void *map = MAP_FAILED;
    int fd = -1, error = 0;

    *out = NULL;
    /* Non-blocking: a FIFO in the store (anyone can put files there) made open()
     * wait for a writer forever; it is opened at once and refused below. */
    if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0) {
        if (errno == ENOENT)
            return culprit_error_set(CULPRIT_ENOTFOUND, "%s: no such history file", path);
        return culprit_error_set_os("cannot open history file '%s'", path);
    }
    if (fstat(fd, &st) < 0) {
        error = culprit_error_set_os("cannot stat history file '%s'", path);
        goto cleanup;
    }
    if (!S_ISREG(st.st_mode)) {
        error = culprit_error_set(CULPRIT_EINVALID, "%s: not a regular file", path);
        goto cleanup;
    }
    if (st.st_size == 0) {
        error = culprit_error_set(CULPRIT_EINVALID, "%s: empty file", path);
        goto cleanup;
    }
    map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (map == MAP_FAILED) {
        error = culprit_error_set_os("cannot map history file '%s'", path);
        goto cleanup;
    }
    madvise(map, (size_t)st.st_size,
            (query && (query->flags & CULPRIT_HISTORY_LOAD_SAMPLES)) ? MADV_SEQUENTIAL
                                                                     : MADV_RANDOM);
    if ((error = culprit_history__read(out, map, (size_t)st.st_size, path, query)) < 0)
        goto cleanup;
    if (*out && culprit_str_set(&(*out)->path, path) < 0) {
        culprit_history_run_free(*out);
        *out = NULL;
        error = CULPRIT_ERROR;
    }
cleanup:
    if (map != MAP_FAILED)
        munmap(map, (size_t)st.st_size);
    if (fd >= 0)
        close(fd);
    return error;
}
