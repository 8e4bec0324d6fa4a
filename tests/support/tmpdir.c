/*
 * Temporary directories of the tests (tmpdir.h). Sixteen test files used to make
 * their directories with mkdtemp under a hard-coded /tmp and remove them with
 * `rm -rf` through the shell; here it is done once, under $TMPDIR when it is set,
 * and removed with the library's own remover (culprit_fs_remove_tree: no shell,
 * links never followed, unreadable directories opened up first).
 */
#define _GNU_SOURCE /* program_invocation_short_name */
#include "support/test.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "culprit/core.h"
#include "support/tmpdir.h"

char test_tmpdir[PATH_MAX];

int test_tmpdir_make(char *out, size_t size, const char *tag)
{
    char tmpl[PATH_MAX], real[PATH_MAX];
    int len;

    /* The library's rule for $TMPDIR, so the tests' directories sit beside the
     * checkouts and recordings the library makes. */
    len = snprintf(tmpl, sizeof(tmpl), "%s/culprit-%s-XXXXXX", culprit_fs_tmpdir(), tag);
    if (len < 0 || (size_t)len >= sizeof(tmpl) || !mkdtemp(tmpl))
        return -1;
    if (!realpath(tmpl, real) || strlen(real) >= size) {
        rmdir(tmpl);
        return -1;
    }
    strcpy(out, real);
    return 0;
}

char *test_tmpdir_new(const char *tag)
{
    char dir[PATH_MAX], *copy;

    if (test_tmpdir_make(dir, sizeof(dir), tag) < 0)
        fail_msg("cannot make a temporary directory for %s: %s", tag, strerror(errno));
    assert_non_null(copy = strdup(dir));
    return copy;
}

int test_tmpdir_remove(const char *path)
{
    return culprit_fs_remove_tree(path) < 0 ? -1 : 0;
}

int test_tmpdir_setup(void **state)
{
    if (test_tmpdir_make(test_tmpdir, PATH_MAX, program_invocation_short_name) < 0)
        return -1;
    *state = test_tmpdir;
    return 0;
}

int test_tmpdir_teardown(void **state)
{
    int error = test_tmpdir_remove(test_tmpdir);

    (void)state;
    test_tmpdir[0] = '\0';
    return error;
}

void test_owned_name(char *out, size_t size, const char *dir, const char *name, long pid,
                     long long start)
{
    culprit_buf tag = CULPRIT_BUF_INIT;
    char ours[64];
    const char *at;

    /* Our tag is <host>-<our pid>.<our start>-: the host and start are read from it. */
    assert_int_equal(culprit_fs_owner_tag(&tag), 0);
    snprintf(ours, sizeof(ours), "-%ld.", (long)getpid());
    assert_non_null(at = strstr(tag.ptr, ours));
    if (start == TEST_OWN_START)
        start = strtoll(at + strlen(ours), NULL, 10);
    if (start == TEST_NO_START)
        snprintf(out, size, "%s/%s%.*s-%ld-abcdef", dir, name, (int)(at - tag.ptr), tag.ptr, pid);
    else
        snprintf(out, size, "%s/%s%.*s-%ld.%lld-abcdef", dir, name, (int)(at - tag.ptr), tag.ptr,
                 pid, start);
    culprit_buf_dispose(&tag);
}

long test_dead_pid(void)
{
    pid_t dead = fork();

    assert_true(dead >= 0);
    if (dead == 0)
        _exit(0);
    assert_int_equal(waitpid(dead, NULL, 0), dead);
    return (long)dead;
}
