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

/*
 * Writes to `out` (`size` bytes) "DIR/NAME<host>-<pid>.<start>-abcdef", the name of
 * a temporary entry of process `pid` started at `start` (culprit_fs_owner_tag()'s
 * form, with this machine's host): `start` TEST_OWN_START for our own start time
 * (so with our pid, a live owner), TEST_NO_START for the older form
 * <host>-<pid>-abcdef, which names no start time.
 */
#define TEST_OWN_START (-1LL)
#define TEST_NO_START  (-2LL)
void test_owned_name(char *out, size_t size, const char *dir, const char *name, long pid,
                     long long start);

/* The pid of a process that has ended (a child forked and reaped here). */
long test_dead_pid(void);

/* The group's directory while test_tmpdir_setup's group runs, "" outside it. */
extern char test_tmpdir[];

/* cmocka group setup and teardown: one directory for the whole group, named after
 * the program, in test_tmpdir and as *state; the teardown removes it. */
int test_tmpdir_setup(void **state);
int test_tmpdir_teardown(void **state);

#endif
