/*
 * Removing trees, here and nowhere else (as libgit2 does through
 * git_futils_rmdir_r): culprit_fs_remove_tree() for ordinary code, and
 * culprit_fs_remove_trees_signal_safe() for the signal handlers that remove
 * temporary checkouts and the process's temporary directory (fs_temp.c).
 */
#include "culprit/core.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * Removes `name` in the directory `dirfd`; `path` holds its full path, for the
 * messages, and is restored before returning. Entries are reached through their
 * parent's descriptor (openat, unlinkat) with O_NOFOLLOW, so a symbolic link is
 * removed and never followed, even if it replaces a directory during the walk.
 * One descriptor is open per level of depth.
 */
static int remove_at(int dirfd, const char *name, culprit_buf *path)
{
    size_t len = path->size;
    struct stat st;
    struct dirent *entry;
    DIR *dir;
    int fd, error = 0;

    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return errno == ENOENT ? 0 : culprit_error_set_os("cannot remove '%s'", path->ptr);
    if (!S_ISDIR(st.st_mode)) {
        if (unlinkat(dirfd, name, 0) < 0 && errno != ENOENT)
            return culprit_error_set_os("cannot remove '%s'", path->ptr);
        return 0;
    }
    /* Build outputs may hold read-only directories: we need to list and empty them. */
    if ((st.st_mode & 0700) != 0700)
        (void)fchmodat(dirfd, name, st.st_mode | 0700, 0);
    if ((fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
        return culprit_error_set_os("cannot open '%s'", path->ptr);
    if (!(dir = fdopendir(fd))) {
        close(fd);
        return culprit_error_set_os("cannot open '%s'", path->ptr);
    }
    while (!error && (errno = 0, entry = readdir(dir)) != NULL) {
        if (!strcmp(entry->d_name, ".") || !strcmp(entry->d_name, ".."))
            continue;
        if ((error = culprit_buf_printf(path, "/%s", entry->d_name)) < 0)
            break;
        error = remove_at(fd, entry->d_name, path);
        path->size = len;
        path->ptr[len] = '\0';
    }
    if (!error && errno != 0)
        error = culprit_error_set_os("cannot read '%s'", path->ptr);
    closedir(dir);
    if (!error && unlinkat(dirfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
        error = culprit_error_set_os("cannot remove '%s'", path->ptr);
    return error;
}

int culprit_fs_remove_tree(const char *path)
{
    culprit_buf buf = CULPRIT_BUF_INIT;
    int error;

    if (!path || !*path)
        return culprit_error_set(CULPRIT_EINVALID, "empty path to remove");
    if ((error = culprit_buf_puts(&buf, path)) < 0)
        return error;
    error = remove_at(AT_FDCWD, path, &buf);
    culprit_buf_dispose(&buf);
    return error;
}

/* Async-signal-safe: fork, execve, waitpid and _exit only; argv on the stack. */
int culprit_fs_remove_trees_signal_safe(char *const *paths, int n)
{
    static char rm_arg0[] = "rm", rm_rf[] = "-rf", rm_end[] = "--";
    char *argv[CULPRIT_FS_SIGNAL_SAFE_MAX + 4];
    char *envp[] = {NULL};
    int i, status = 0, saved = errno, result = 0;
    pid_t pid;

    if (n <= 0)
        return 0;
    if (n > CULPRIT_FS_SIGNAL_SAFE_MAX)
        return -1;
    argv[0] = rm_arg0;
    argv[1] = rm_rf;
    argv[2] = rm_end;
    for (i = 0; i < n; i++)
        argv[3 + i] = paths[i];
    argv[3 + n] = NULL;
    pid = fork();
    if (pid < 0) {
        result = -1;
    } else if (pid == 0) {
        execve("/bin/rm", argv, envp);
        execve("/usr/bin/rm", argv, envp);
        _exit(127);
    } else {
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            result = -1;
    }
    errno = saved;
    return result;
}
