/*
 * Re-running a recorded test (`culprit check --confirm` without --build and --run).
 * A run names the binary that measured it (its culprit.binary property), but a run
 * may come from anyone who can push to refs/culprit/history, so that path is only a
 * hint and never chooses a program (docs/security.md). It is used only when it
 * resolves, symbolic links followed, to a file inside one of the trusted build
 * trees the caller names (the work tree, --build-dir, $CULPRIT_BUILD_DIR), outside
 * any .git directory, that is a regular ELF executable linking culprit's runner,
 * owned by the user or root and not writable by others, in directories below the
 * tree that others cannot write either, and when that binary's --list names the
 * test. The re-run executes the resolved path, never the hint, and passes every
 * name as the value of an `--option=` argument (the test's with its glob characters
 * escaped), so no name from a run is ever read as an option.
 */
#define _GNU_SOURCE /* O_NOFOLLOW, O_CLOEXEC */
#include "culprit/runner.h"
#include "culprit/core.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* How long `BINARY --list` may take before the binary is not trusted to re-run. */
#define LIST_TIMEOUT_S 60
/* The bytes of --list output kept (its tail): a binary listing more tests than
 * that may not find the test, and its verdict is then kept. */
#define LIST_MAX (4u << 20)
/* The largest binary searched for culprit's runner (larger ones are not re-run). */
#define MAP_MAX (4ull << 30)

/* The tree (a real path) holding the real path `path`, or NULL. */
static const char *tree_of(const char *path, char *const *trees, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(trees[i]);
        while (len > 1 && trees[i][len - 1] == '/')
            len--;
        if (len == 1 && trees[i][0] == '/')
            return trees[i]; /* "/" holds everything */
        if (strncmp(path, trees[i], len) == 0 && path[len] == '/')
            return trees[i];
    }
    return NULL;
}

/* Writable by others, and not a sticky directory where only owners rename. */
static int others_write(const struct stat *st)
{
    return (st->st_mode & S_IWOTH) && !(S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX));
}

/* The directories from `tree` down to the parent of `path` (both real paths, `path`
 * inside `tree`): none a .git directory, none writable by others. */
static int check_dirs(const char *path, const char *tree, const char *hint)
{
    char dir[PATH_MAX];
    size_t len = strlen(tree);
    struct stat st;

    while (len > 1 && tree[len - 1] == '/')
        len--;
    for (const char *p = path + len; (p = strchr(p + 1, '/'));) {
        snprintf(dir, sizeof(dir), "%.*s", (int)(p - path), path);
        if (stat(dir[0] ? dir : "/", &st) < 0)
            return culprit_error_set(CULPRIT_ESKIP, "test binary '%s': cannot read '%s': %s", hint,
                                     dir, strerror(errno));
        if (others_write(&st))
            return culprit_error_set(
                CULPRIT_ESKIP, "test binary '%s': directory '%s' is writable by others", hint, dir);
    }
    if (strstr(path + len, "/.git/"))
        return culprit_error_set(CULPRIT_ESKIP, "test binary '%s' is inside a .git directory",
                                 hint);
    if (stat(tree, &st) == 0 && others_write(&st))
        return culprit_error_set(CULPRIT_ESKIP,
                                 "test binary '%s': the build tree '%s' is writable by others",
                                 hint, tree);
    return 0;
}

/* 1 when the ELF file `fd` (`size` bytes) links culprit's runner: it names
 * culprit_run_perf_tests (the symbol a test binary imports from a shared libculprit,
 * or its own symbol table), or holds the runner's CULPRIT_FAIL_ON (a stripped static
 * binary). Any other program of the build tree (a tool, a compiler's probe) is never
 * run, not even with --list. */
static int links_runner(int fd, off_t size)
{
    static const char *const needles[] = {"culprit_run_perf_tests", "CULPRIT_FAIL_ON"};
    void *map;
    int found = 0;

    if (size <= 0 || (uint64_t)size > MAP_MAX ||
        (map = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED)
        return 0;
    for (size_t i = 0; i < sizeof(needles) / sizeof(*needles) && !found; i++)
        found = memmem(map, (size_t)size, needles[i], strlen(needles[i])) != NULL;
    munmap(map, (size_t)size);
    return found;
}

/* The file itself, opened without following a link: regular, executable, ours or
 * root's, not writable by others, an ELF file (a test binary the build made; a
 * script is not one). */
static int check_file(const char *path, const char *hint)
{
    struct stat st;
    unsigned char magic[4] = {0};
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK), error = 0;

    if (fd < 0)
        return culprit_error_set(CULPRIT_ESKIP, "test binary '%s': cannot open '%s': %s", hint,
                                 path, strerror(errno));
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
        error = culprit_error_set(CULPRIT_ESKIP, "test binary '%s' is not a regular file", hint);
    else if (!(st.st_mode & S_IXUSR) || access(path, X_OK) != 0)
        error = culprit_error_set(CULPRIT_ESKIP, "test binary '%s' is not executable", hint);
    else if (st.st_uid != geteuid() && st.st_uid != 0)
        error = culprit_error_set(CULPRIT_ESKIP,
                                  "test binary '%s' is owned by uid %u, neither you nor root", hint,
                                  (unsigned)st.st_uid);
    else if (others_write(&st))
        error =
            culprit_error_set(CULPRIT_ESKIP, "test binary '%s' is writable by others (mode %04o)",
                              hint, (unsigned)(st.st_mode & 07777));
    else if (read(fd, magic, sizeof(magic)) != (ssize_t)sizeof(magic) ||
             memcmp(magic, "\177ELF", 4) != 0)
        error = culprit_error_set(CULPRIT_ESKIP,
                                  "test binary '%s' is not an ELF executable (a script or other "
                                  "file is never re-run)",
                                  hint);
    else if (!links_runner(fd, st.st_size))
        error = culprit_error_set(CULPRIT_ESKIP,
                                  "test binary '%s' is not a culprit test binary (it does not "
                                  "link culprit's runner)",
                                  hint);
    close(fd);
    return error;
}

/* `path --list` names `test` on a line of its own. */
static int lists_test(const char *path, const char *test, const char *hint, const char *shown)
{
    const char *argv[] = {path, "--list", NULL};
    culprit_process_options o = CULPRIT_PROCESS_OPTIONS_INIT;
    culprit_process_result r = {0};
    size_t len = strlen(test);
    int error, found = 0;

    o.argv = argv;
    o.output = CULPRIT_PROCESS_CAPTURE;
    o.tail = LIST_MAX;
    o.timeout_s = LIST_TIMEOUT_S;
    o.own_group = 1;
    if ((error = culprit_process_run(&r, &o)) < 0)
        return culprit_error_recode(CULPRIT_ESKIP);
    for (const char *line = r.output ? r.output : ""; *line && !found;) {
        const char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        found = n == len && memcmp(line, test, len) == 0;
        line += n + (nl != NULL);
    }
    if (!culprit_process_succeeded(&r)) {
        culprit_buf why = CULPRIT_BUF_INIT, what = CULPRIT_BUF_INIT;
        culprit_buf_printf(&what, "'%s --list'", path);
        culprit_process_describe(&why, &r, culprit_buf_cstr(&what), LIST_TIMEOUT_S);
        error =
            culprit_error_set(CULPRIT_ESKIP, "test binary '%s': %s", hint, culprit_buf_cstr(&why));
        culprit_buf_dispose(&why);
        culprit_buf_dispose(&what);
    } else if (!found) {
        error = culprit_error_set(CULPRIT_ESKIP, "test binary '%s' does not list test '%s'", hint,
                                  shown);
    }
    culprit_process_result_dispose(&r);
    return error;
}

/* The real paths of the trees that exist, in `out` (n entries, each malloc'd). */
static size_t real_trees(char **out, const char *const *trees, size_t ntrees)
{
    size_t n = 0;

    for (size_t i = 0; i < ntrees; i++)
        if (trees[i] && *trees[i] && (out[n] = realpath(trees[i], NULL)))
            n++;
    return n;
}

/* "A, B and C" of the trees as given, for the message. */
static void describe_trees(culprit_buf *out, const char *const *trees, size_t ntrees)
{
    size_t shown = 0;

    for (size_t i = 0; i < ntrees; i++)
        if (trees[i] && *trees[i])
            culprit_buf_printf(out, "%s'%s'", shown++ ? ", " : "", trees[i]);
    if (!shown)
        culprit_buf_puts(out, "none");
}

int culprit_runner_trusted_binary(char **resolved, const char *hint, const char *test,
                                  const char *const *trees, size_t ntrees)
{
    char **real = calloc(ntrees ? ntrees : 1, sizeof(*real)), *path = NULL;
    culprit_buf shown = CULPRIT_BUF_INIT, name = CULPRIT_BUF_INIT;
    const char *tree, *h = NULL;
    size_t n = 0;
    int error = 0;

    *resolved = NULL;
    /* The names from the run, escaped for the message (they may hold any byte). */
    if (!real || culprit_buf_put_text(&shown, hint ? hint : "") < 0 ||
        culprit_buf_put_text(&name, test) < 0) {
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    n = real_trees(real, trees, ntrees);
    h = culprit_buf_cstr(&shown);
    if (!hint || hint[0] != '/') {
        error = culprit_error_set(CULPRIT_ESKIP, "test binary '%s' is not an absolute path", h);
    } else if (!(path = realpath(hint, NULL))) {
        error = errno == ENOENT || errno == ENOTDIR
                    ? culprit_error_set(CULPRIT_ESKIP, "test binary '%s' is missing", h)
                    : culprit_error_set(CULPRIT_ESKIP, "test binary '%s': %s", h, strerror(errno));
    } else if (!(tree = tree_of(path, real, n))) {
        culprit_buf msg = CULPRIT_BUF_INIT;
        culprit_buf_printf(&msg, "test binary '%s'", h);
        if (strcmp(path, hint) != 0) {
            culprit_buf_puts(&msg, " resolves to '");
            culprit_buf_put_text(&msg, path);
            culprit_buf_puts(&msg, "',");
        } else {
            culprit_buf_puts(&msg, " is");
        }
        culprit_buf_puts(&msg, " outside the trusted build trees (");
        describe_trees(&msg, trees, ntrees);
        culprit_buf_puts(&msg, ")");
        error = culprit_error_set(CULPRIT_ESKIP, "%s", culprit_buf_cstr(&msg));
        culprit_buf_dispose(&msg);
    } else if ((error = check_dirs(path, tree, h)) == 0 && (error = check_file(path, h)) == 0 &&
               (error = lists_test(path, test, h, culprit_buf_cstr(&name))) == 0) {
        *resolved = path;
        path = NULL;
    }
cleanup:
    culprit_buf_dispose(&shown);
    culprit_buf_dispose(&name);
    for (size_t i = 0; i < n; i++)
        free(real[i]);
    free(real);
    free(path);
    return error;
}

/* "--filter=" and `test` with fnmatch's special characters escaped: the pattern
 * matches that name alone. */
static int filter_arg(culprit_buf *out, const char *test)
{
    int error = culprit_buf_puts(out, "--filter=");

    return error < 0 ? error : culprit_buf_put_glob_literal(out, test);
}

int culprit_runner_rerun(const char *binary, const char *test, const char *history_dir,
                         const char *commit)
{
    culprit_buf filter = CULPRIT_BUF_INIT, history = CULPRIT_BUF_INIT, at = CULPRIT_BUF_INIT;
    const char *argv[] = {binary, NULL, NULL, NULL, "--quiet", NULL};
    culprit_process_options o = CULPRIT_PROCESS_OPTIONS_INIT;
    culprit_process_result r = {0};
    int error;

    if ((error = filter_arg(&filter, test)) < 0 ||
        (error = culprit_buf_printf(&history, "--history=%s", history_dir)) < 0 ||
        (error = culprit_buf_printf(&at, "--commit=%s", commit)) < 0)
        goto cleanup;
    argv[1] = filter.ptr;
    argv[2] = history.ptr;
    argv[3] = at.ptr;
    o.argv = argv;
    o.output = CULPRIT_PROCESS_TO_STDERR;
    if ((error = culprit_process_run(&r, &o)) < 0)
        goto cleanup;
    /* 0 or 1 (a failing test): the run was recorded either way. */
    if (!r.exited || (r.status != 0 && r.status != 1)) {
        culprit_buf why = CULPRIT_BUF_INIT;
        culprit_process_describe(&why, &r, binary, 0);
        error = culprit_error_set(CULPRIT_ERROR, "%s", culprit_buf_cstr(&why));
        culprit_buf_dispose(&why);
    }
cleanup:
    culprit_process_result_dispose(&r);
    culprit_buf_dispose(&filter);
    culprit_buf_dispose(&history);
    culprit_buf_dispose(&at);
    return error;
}
