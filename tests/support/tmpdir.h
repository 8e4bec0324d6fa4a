/*
 * Temporary directories for the tests: a fresh directory under $TMPDIR (or /tmp)
 * per group or per test, removed with everything in it afterwards, so no test
 * writes into the source tree, the build tree or another test's files.
 */
#ifndef CULPRIT_TESTS_SUPPORT_TMPDIR_H
#define CULPRIT_TESTS_SUPPORT_TMPDIR_H

#include <stddef.h>

/*
 * Creates a fresh directory $TMPDIR/culprit-<tag>-XXXXXX and writes its real path
 * to `out` (`size` bytes): the real path, because git and the tools the tests run
 * report real paths, and a test compares them. Returns 0 or -1.
 */
int test_tmpdir_make(char *out, size_t size, const char *tag);

/* The same as a malloc'd string; fails the test when it cannot. */
char *test_tmpdir_new(const char *tag);

/* Removes `path` and everything below it (links are removed, not followed).
 * Returns 0 or -1. */
int test_tmpdir_remove(const char *path);

/* The group's directory while test_tmpdir_setup's group runs, "" outside it. */
extern char test_tmpdir[];

/* cmocka group setup and teardown: one directory for the whole group, named after
 * the program, in test_tmpdir and as *state; the teardown removes it. */
int test_tmpdir_setup(void **state);
int test_tmpdir_teardown(void **state);

#endif
