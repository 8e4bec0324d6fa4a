/*
 * Copying a directory tree as a build directory needs it: every file, directory and
 * symbolic link with its mode and its modification time, so that make or ninja run
 * in the copy sees the same outputs as up to date as in the original. Bisection
 * seeds its second checkout this way (docs/bisect.md, "Seeding the second
 * checkout"): switched to another commit afterwards, the copy rebuilds only the
 * files that commit changes instead of everything.
 */
#define _GNU_SOURCE
#include "culprit/core.h"
#include "core_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int copy_file(const char *src, const char *dst, const struct stat *st)
{
    char buf[65536];
    int in = -1, out = -1, error = 0;
    ssize_t n;

    if ((in = open(src, O_RDONLY | O_CLOEXEC)) < 0)
        return culprit_error_set_os("cannot read '%s'", src);
    if ((out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0) {
        error = culprit_error_set_os("cannot create '%s'", dst);
        goto cleanup;
    }
    while ((n = read(in, buf, sizeof(buf))) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            error = culprit_error_set_os("cannot read '%s'", src);
            goto cleanup;
        }
        if (culprit_fs__write_all(out, buf, (size_t)n) < 0) {
            error = culprit_error_set_os("cannot write '%s'", dst);
            goto cleanup;
        }
    }
    if (fchmod(out, st->st_mode & 07777) < 0)
        error = culprit_error_set_os("cannot set the mode of '%s'", dst);
cleanup:
    if (out >= 0 && close(out) < 0 && !error)
        error = culprit_error_set_os("cannot write '%s'", dst);
    if (in >= 0)
        close(in);
    return error;
}

static int copy_link(const char *src, const char *dst)
{
    char target[PATH_MAX];
    ssize_t n = readlink(src, target, sizeof(target) - 1);

    if (n < 0)
        return culprit_error_set_os("cannot read the link '%s'", src);
    target[n] = '\0';
    if (symlink(target, dst) < 0)
        return culprit_error_set_os("cannot create the link '%s'", dst);
    return 0;
}

/* The times of `st` on `dst` (not following a link): set after a directory's
 * entries are written, as writing them changes its modification time. */
static int copy_times(const char *dst, const struct stat *st)
{
    struct timespec times[2] = {st->st_atim, st->st_mtim};

    if (utimensat(AT_FDCWD, dst, times, AT_SYMLINK_NOFOLLOW) < 0)
        return culprit_error_set_os("cannot set the times of '%s'", dst);
    return 0;
}

static int copy_entry(const char *src, const char *dst, const struct stat *st);

/* The entries of directory `src` into the existing directory `dst`. */
static int copy_entries(const char *src, const char *dst)
{
    DIR *d = opendir(src);
    struct dirent *e;
    int error = 0;

    if (!d)
        return culprit_error_set_os("cannot read the directory '%s'", src);
    while (!error && (errno = 0, e = readdir(d))) {
        char *from, *to;
        struct stat st;
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        from = culprit_fs_join(src, e->d_name);
        to = culprit_fs_join(dst, e->d_name);
        if (!from || !to)
            error = CULPRIT_ERROR_NOMEM();
        else if (lstat(from, &st) < 0)
            error = culprit_error_set_os("cannot read '%s'", from);
        else
            error = copy_entry(from, to, &st);
        free(from);
        free(to);
    }
    if (!error && errno)
        error = culprit_error_set_os("cannot read the directory '%s'", src);
    closedir(d);
    return error;
}

static int copy_entry(const char *src, const char *dst, const struct stat *st)
{
    int error;

    if (S_ISDIR(st->st_mode)) {
        if (mkdir(dst, 0700) < 0 && errno != EEXIST)
            return culprit_error_set_os("cannot create the directory '%s'", dst);
        if ((error = copy_entries(src, dst)) < 0)
            return error;
        if (chmod(dst, st->st_mode & 07777) < 0)
            return culprit_error_set_os("cannot set the mode of '%s'", dst);
    } else if (S_ISLNK(st->st_mode)) {
        if ((error = copy_link(src, dst)) < 0)
            return error;
    } else if (S_ISREG(st->st_mode)) {
        if ((error = copy_file(src, dst, st)) < 0)
            return error;
    } else {
        return 0; /* fifos, sockets, devices: not build outputs */
    }
    return copy_times(dst, st);
}

int culprit_fs_copy_tree(const char *src, const char *dst)
{
    struct stat st;

    if (!src || !*src || !dst || !*dst)
        return culprit_error_set(CULPRIT_EINVALID, "empty path to copy");
    if (stat(src, &st) < 0)
        return culprit_error_set_os("cannot read '%s'", src);
    if (!S_ISDIR(st.st_mode))
        return culprit_error_set(CULPRIT_EINVALID, "'%s' is not a directory", src);
    return copy_entry(src, dst, &st);
}
