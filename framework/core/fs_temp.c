/*
 * Temporary entries and their owners. Every temporary file or directory culprit
 * makes lives in one directory per process, $TMPDIR/culprit-<host>-<pid>.<start>-
 * XXXXXX (culprit_fs_temp_dir()), made on first use; the children culprit starts
 * get it as their $TMPDIR (process.c), so a compiler's or a test binary's files go
 * there too. It goes with the process: removed at exit, by the SIGINT/SIGTERM
 * handler (culprit_fs_temp_dir_remove_signal_safe()), and, when the process was
 * killed with SIGKILL and no handler ran, by the next culprit that makes one
 * (culprit_fs_temp_sweep()).
 *
 * The name says whose it is: the host, the pid and the process's start time (field
 * 22 of /proc/<pid>/stat, clock ticks since boot). A pid alone is reused; a pid with
 * its start time names one process for as long as the machine runs, so a sweep never
 * takes a live process's directory for a dead one's, nor keeps a dead one's because
 * its pid was taken. The temporary files of atomic writes, which must stay beside
 * their target for the rename, carry the same owner tag
 * (<target>.tmp.<host>-<pid>.<start>-XXXXXX) and are swept by the next writer
 * (culprit_fs_remove_stale()). The tag and the test of a leftover's owner are in
 * framework/owner/owner.h, which the trace runtime's writer uses too.
 */
#include "culprit/core.h"
#include "../owner/owner.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------ owners --- */

/* Our own start time (0: unknown), read once per process (a fork reads its own). */
static unsigned long long own_start(void)
{
    static pid_t read_by;
    static unsigned long long start;

    if (read_by != getpid()) {
        if (culprit_owner__start(&start, (long)getpid()) != 0)
            start = 0;
        read_by = getpid();
    }
    return start;
}

int culprit_fs_owner_tag(culprit_buf *out)
{
    char tag[320];

    culprit_owner__tag(tag, sizeof(tag), own_start());
    return culprit_buf_puts(out, tag);
}

/* ---------------------------------------------------------------- leftovers --- */

/* Removes the entries of `dir` that are ours (our user's) and whose name holds one
 * of the markers followed by the owner of a process of this host that has ended. */
static size_t remove_stale_of(const char *dir, const char *const *markers, size_t nmarkers)
{
    char host[256];
    size_t removed = 0;
    culprit_error_state saved;
    struct dirent *e;
    DIR *d;

    culprit_owner__host(host, sizeof(host));
    if (!(d = opendir(dir)))
        return 0;
    culprit_error_save(&saved); /* best effort: the caller's error stays */
    while ((e = readdir(d))) {
        culprit_buf path = CULPRIT_BUF_INIT;
        struct stat st;
        int stale = 0;
        for (size_t m = 0; m < nmarkers && !stale; m++)
            stale = culprit_owner__stale(e->d_name, markers[m], host);
        /* Another user's leftover is theirs to remove (and a sticky /tmp refuses). */
        if (stale && culprit_buf_printf(&path, "%s/%s", dir, e->d_name) == 0 &&
            lstat(path.ptr, &st) == 0 && st.st_uid == geteuid() &&
            culprit_fs_remove_tree(path.ptr) == 0)
            removed++;
        culprit_buf_dispose(&path);
    }
    closedir(d);
    culprit_error_restore(&saved);
    return removed;
}

size_t culprit_fs_remove_stale(const char *dir, const char *marker)
{
    return remove_stale_of(dir, &marker, 1);
}

size_t culprit_fs_temp_sweep(const char *parent)
{
    /* The per-process directories, and what culprit before them left in $TMPDIR. */
    static const char *const markers[] = {
        "culprit-",        "culprit-checkout-", "culprit-bisect-run-",
        "culprit-result-", "culprit-record-",   "culprit-count-"};

    return remove_stale_of(parent ? parent : culprit_fs_tmpdir(), markers,
                           sizeof(markers) / sizeof(*markers));
}

/* ------------------------------------------------- the process's directory --- */

/* Its path, and the process that made it (0: none yet): read by signal handlers, so
 * the path is complete before own_pid names its maker. */
static char own_dir[PATH_MAX];
static volatile sig_atomic_t own_pid;
static pthread_mutex_t own_lock = PTHREAD_MUTEX_INITIALIZER;

static void remove_at_exit(void)
{
    if (own_pid == getpid()) {
        own_pid = 0;
        (void)culprit_fs_remove_tree(own_dir);
    }
}

/* Makes the directory (own_lock held). */
static int make_own_dir(void)
{
    static int registered;
    culprit_buf name = CULPRIT_BUF_INIT;
    const char *parent = culprit_fs_tmpdir();
    int error;

    culprit_fs_temp_sweep(parent);
    if ((error = culprit_buf_printf(&name, "%s/culprit-", parent)) < 0 ||
        (error = culprit_fs_owner_tag(&name)) < 0 ||
        (error = culprit_buf_puts(&name, "XXXXXX")) < 0)
        goto cleanup;
    if (!mkdtemp(name.ptr)) {
        error = culprit_error_set_os("cannot create a temporary directory in '%s'", parent);
        goto cleanup;
    }
    /* Its real path: what builds in it record (a CMake cache) is what they find. */
    if (!realpath(name.ptr, own_dir)) {
        error = culprit_error_set_os("cannot use the temporary directory '%s'", name.ptr);
        (void)rmdir(name.ptr);
        goto cleanup;
    }
    own_pid = getpid();
    if (!registered && atexit(remove_at_exit) == 0)
        registered = 1;
cleanup:
    culprit_buf_dispose(&name);
    return error;
}

int culprit_fs_temp_dir(const char **out)
{
    int error = 0;

    *out = NULL;
    pthread_mutex_lock(&own_lock);
    /* A fork of the process that made it makes its own: the parent removes its. */
    if (own_pid != getpid())
        error = make_own_dir();
    if (error == 0)
        *out = own_dir;
    pthread_mutex_unlock(&own_lock);
    return error;
}

int culprit_fs_temp_dir_remove_signal_safe(void)
{
    char *paths[1] = {own_dir};

    if (own_pid != getpid())
        return 0;
    own_pid = 0;
    return culprit_fs_remove_trees_signal_safe(paths, 1);
}

int culprit_fs_make_temp(culprit_buf *out, const char *dir, const char *kind, int directory)
{
    culprit_buf marker = CULPRIT_BUF_INIT;
    const char *where = dir;
    int fd, error;

    if (!dir) { /* in our own directory, which no other process sweeps */
        if ((error = culprit_fs_temp_dir(&where)) < 0)
            return error;
        error = culprit_buf_printf(out, "%s/%s-XXXXXX", where, kind);
    } else if ((error = culprit_buf_printf(&marker, "culprit-%s-", kind)) == 0) {
        culprit_fs_remove_stale(dir, marker.ptr);
        if ((error = culprit_buf_printf(out, "%s/%s", dir, marker.ptr)) == 0 &&
            (error = culprit_fs_owner_tag(out)) == 0)
            error = culprit_buf_puts(out, "XXXXXX");
    }
    culprit_buf_dispose(&marker);
    if (error < 0)
        return error;
    if (directory ? !mkdtemp(out->ptr) : (fd = mkstemp(out->ptr)) < 0)
        return culprit_error_set_os("cannot create a temporary %s in '%s'",
                                    directory ? "directory" : "file", where);
    if (!directory)
        close(fd);
    return 0;
}

const char *culprit_fs_tmpdir(void)
{
    const char *tmp = getenv("TMPDIR");
    return tmp && *tmp ? tmp : "/tmp";
}
