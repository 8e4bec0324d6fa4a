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
