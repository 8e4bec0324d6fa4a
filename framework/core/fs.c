/*
 * File-system helpers. History files are written once and never rewritten in
 * place: culprit_fs_write_atomic() writes a temporary file next to the target,
 * syncs it and renames it (or, with no_replace, hard-links it so an existing
 * file is never clobbered), so a reader sees either nothing or the whole file,
 * even when the writer is killed half-way. The temporary file carries its owner
 * in its name (fs_temp.c), so that the next writer can tell a leftover of a killed
 * one from a live writer's file.
 *
 * Temporary entries and their owners are in fs_temp.c, removing trees in
 * fs_remove.c, copying them in fs_copy.c.
 */
#include "culprit/core.h"
#include "core_internal.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

char *culprit_fs_join(const char *dir, const char *name)
{
    culprit_buf buf = CULPRIT_BUF_INIT;
    size_t len = strlen(dir);

    if (culprit_buf_put(&buf, dir, len) < 0)
        goto fail;
    while (*name == '/')
        name++;
    if (len && dir[len - 1] != '/' && culprit_buf_puts(&buf, "/") < 0)
        goto fail;
    if (culprit_buf_puts(&buf, name) < 0)
        goto fail;
    return culprit_buf_detach(&buf);
fail:
    culprit_buf_dispose(&buf);
    return NULL;
}

int culprit_fs_mkdir_p(const char *path)
{
    char *copy, *p;
    int error = 0;
    struct stat st;

    if (!path || !*path)
        return culprit_error_set(CULPRIT_EINVALID, "empty directory path");
    if (!(copy = culprit_strdup(path)))
        return CULPRIT_ERROR;
    for (p = copy + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char saved = *p;
        *p = '\0';
        if (mkdir(copy, 0777) < 0 && errno != EEXIST) {
            error = culprit_error_set_os("cannot create directory '%s'", copy);
            goto cleanup;
        }
        *p = saved;
        if (saved == '\0')
            break;
    }
    if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode)) {
        error = culprit_error_set(CULPRIT_EIO, "'%s' exists and is not a directory", path);
        goto cleanup;
    }
cleanup:
    free(copy);
    return error;
}

int culprit_fs__write_all(int fd, const void *data, size_t len)
{
    const char *p = data;

    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/*
 * What writing `path` replaces. A named output (--junit FILE, --out FILE) can be a
 * symbolic link or a device the user pointed it at; renaming a temporary file over
 * it replaced the link with a regular file (its target kept the old content) and,
 * run as root, `--junit /dev/full` replaced the device node. So: a symbolic link is
 * followed (the file it points to is replaced, the link stays; *target is set), a
 * character device or a FIFO is written through (*through = 1: /dev/stdout,
 * /dev/null, a pipe; a FIFO without a reader is an error, never a hang), and any
 * other kind of file (a directory, a socket, a block device) is refused.
 */
static int output_kind(const char *path, char **target, int *through)
{
    struct stat st;

    *target = NULL;
    *through = 0;
    if (lstat(path, &st) < 0)
        return errno == ENOENT ? 0 : culprit_error_set_os("cannot write '%s'", path);
    if (S_ISLNK(st.st_mode)) {
        if (!(*target = realpath(path, NULL)))
            return culprit_error_set_os("cannot write '%s': cannot follow the symbolic link", path);
        if (stat(*target, &st) < 0)
            return culprit_error_set_os("cannot write '%s'", *target);
    }
    if (S_ISREG(st.st_mode))
        return 0;
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
        *through = 1;
        return 0;
    }
    return culprit_error_set(CULPRIT_ERROR, "cannot write '%s': %s", path,
                             S_ISDIR(st.st_mode) ? "it is a directory"
                                                 : "it is not a regular file, a device or a FIFO");
}

/* Writes a device or a FIFO in place (output_kind()). */
static int write_through(const char *path, const void *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC), error = 0;

    if (fd < 0)
        return culprit_error_set_os("cannot write '%s'%s", path,
                                    errno == ENXIO ? " (a FIFO without a reader)" : "");
    /* Blocking again for the data: O_NONBLOCK was only for the open of a FIFO. */
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    if (culprit_fs__write_all(fd, data, len) < 0)
        error = culprit_error_set_os("cannot write '%s'", path);
    if (close(fd) < 0 && error == 0)
        error = culprit_error_set_os("cannot write '%s'", path);
    return error;
}

int culprit_fs_write_atomic(const char *path, const void *data, size_t len, int flags)
{
    culprit_buf tmp = CULPRIT_BUF_INIT;
    char *target = NULL;
    int fd = -1, error = 0, through = 0, sync = !(flags & CULPRIT_FS_NO_SYNC);
    int no_replace = (flags & CULPRIT_FS_NO_REPLACE) != 0;

    /* With no_replace, link() below never replaces anything, whatever it is. */
    if (!no_replace && (error = output_kind(path, &target, &through)) < 0)
        goto cleanup;
    if (through) {
        error = write_through(target ? target : path, data, len);
        goto cleanup;
    }
    if (target)
        path = target;
    /* <path>.tmp.<host>-<pid>.<start>-XXXXXX, beside the target (a rename is atomic
     * within one file system only): a writer killed before the rename leaves it, and
     * the next store or compaction of the history removes it once its writer is gone
     * (culprit_fs_remove_stale()). */
    if ((error = culprit_buf_printf(&tmp, "%s.tmp.", path)) < 0 ||
        (error = culprit_fs_owner_tag(&tmp)) < 0 || (error = culprit_buf_puts(&tmp, "XXXXXX")) < 0)
        goto cleanup;
    if ((fd = mkstemp(tmp.ptr)) < 0) {
        error = culprit_error_set_os("cannot create a temporary file for '%s'", path);
        goto cleanup;
    }
    /* mkstemp creates 0600; history is shared with the user's other tools. */
    {
        mode_t mask = umask(0);
        umask(mask);
        fchmod(fd, 0666 & ~mask);
    }
    if (culprit_fs__write_all(fd, data, len) < 0 || (sync && fsync(fd) < 0)) {
        error = culprit_error_set_os("cannot write '%s'", tmp.ptr);
        goto cleanup;
    }
    if (close(fd) < 0) {
        fd = -1;
        error = culprit_error_set_os("cannot write '%s'", tmp.ptr);
        goto cleanup;
    }
    fd = -1;
    if (no_replace) {
        /* link() fails with EEXIST instead of replacing: the target is never clobbered. */
        if (link(tmp.ptr, path) < 0) {
            if (errno == EEXIST)
                error = culprit_error_set(CULPRIT_EEXISTS, "'%s' already exists; not overwritten",
                                          path);
            else
                error = culprit_error_set_os("cannot create '%s'", path);
            goto cleanup;
        }
    } else if (rename(tmp.ptr, path) < 0) {
        error = culprit_error_set_os("cannot rename '%s' to '%s'", tmp.ptr, path);
        goto cleanup;
    }
cleanup:
    if (fd >= 0)
        close(fd);
    if (tmp.ptr && (error < 0 || no_replace))
        unlink(tmp.ptr);
    culprit_buf_dispose(&tmp);
    free(target);
    return error;
}

int culprit_fs_lock(int *fd, const char *path, double timeout_s)
{
    culprit_buf lock = CULPRIT_BUF_INIT;
    struct timespec pause = {0, 10 * 1000 * 1000};
    double waited = 0;
    int error = 0;

    *fd = -1;
    if ((error = culprit_buf_printf(&lock, "%s.lock", path)) < 0)
        return error;
    if ((*fd = open(lock.ptr, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666)) < 0) {
        error = culprit_error_set_os("cannot open the lock file '%s'", lock.ptr);
        goto cleanup;
    }
    /* Polled, not blocking, so that a stuck holder is an error naming the file. */
    while (flock(*fd, LOCK_EX | LOCK_NB) < 0) {
        if ((errno != EWOULDBLOCK && errno != EINTR) || waited >= timeout_s) {
            error = errno == EWOULDBLOCK
                        ? culprit_error_set(CULPRIT_ERROR,
                                            "'%s' is still locked after %.0f s by another process",
                                            lock.ptr, timeout_s)
                        : culprit_error_set_os("cannot lock '%s'", lock.ptr);
            close(*fd);
            *fd = -1;
            goto cleanup;
        }
        nanosleep(&pause, NULL);
        waited += 0.01;
    }
cleanup:
    culprit_buf_dispose(&lock);
    return error;
}

void culprit_fs_unlock(int fd)
{
    if (fd >= 0)
        close(fd); /* closing the only descriptor releases the flock */
}

/* Reads up to `size` bytes of `fd` into `out` without an intermediate copy.
 * Returns 1 when the file may hold more (it grew: the caller reads on), 0 at its
 * end, or an error. */
static int read_regular(culprit_buf *out, int fd, size_t size, const char *path)
{
    size_t got = 0;
    int error;

    if ((error = culprit_buf_grow(out, size)) < 0)
        return error;
    while (got < size) {
        ssize_t n = read(fd, out->ptr + out->size + got, size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            out->ptr[out->size] = '\0';
            return culprit_error_set_os("cannot read '%s'", path);
        }
        if (n == 0)
            break;
        got += (size_t)n;
    }
    out->size += got;
    out->ptr[out->size] = '\0';
    return got == size ? 1 : 0;
}

int culprit_fs_read_file(culprit_buf *out, const char *path)
{
    int fd, error = 0;
    struct stat st;
    char chunk[65536];

    /* Opened non-blocking, as a FIFO without a writer made open() wait forever; then
     * blocking again, so a FIFO with a writer (`<(command)`) is read to its end and
     * one without reads as empty. */
    if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0) {
        if (errno == ENOENT)
            return culprit_error_set(CULPRIT_ENOTFOUND, "'%s' does not exist", path);
        return culprit_error_set_os("cannot open '%s'", path);
    }
    if (fstat(fd, &st) < 0 || S_ISDIR(st.st_mode)) {
        error = S_ISDIR(st.st_mode)
                    ? culprit_error_set(CULPRIT_EINVALID, "'%s' is a directory", path)
                    : culprit_error_set_os("cannot read '%s'", path);
        close(fd);
        return error;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    /* A regular file is read straight into a buffer of its size: read in chunks and
     * appended, a 100 MB run file was copied twice more (the chunks, the buffer's
     * growth), a fifth of `culprit compare`'s time at 100,000 tests. */
    if (S_ISREG(st.st_mode) && st.st_size > 0 &&
        (error = read_regular(out, fd, (size_t)st.st_size, path)) != 1) {
        close(fd);
        return error;
    }
    error = 0;
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            error = culprit_error_set_os("cannot read '%s'", path);
            break;
        }
        if (n == 0)
            break;
        if ((error = culprit_buf_put(out, chunk, (size_t)n)) < 0)
            break;
    }
    close(fd);
    return error;
}
