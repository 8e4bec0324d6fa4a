/* Shell commands for the tests on throw-away repositories made with the git command
 * line, their output, and files written into them (the vcs, call-tree and command
 * tests). A failing command fails the current test. Temporary directories are
 * support/tmpdir.h's. */
#ifndef CULPRIT_TESTS_SUPPORT_GIT_FIXTURE_H
#define CULPRIT_TESTS_SUPPORT_GIT_FIXTURE_H

#include <stddef.h>

/* git with an identity and settings of its own, so the user's configuration
 * (signing, default branch, hooks paths) cannot change what the tests build. */
#define GIT                                                                                        \
    "git -c user.name=culprit -c user.email=culprit@example.invalid -c init.defaultBranch=main "   \
    "-c commit.gpgsign=false -c tag.gpgsign=false"

/* Runs a shell command; fails the test when it exits non-zero. */
void run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The first line of a command's output, without the line break. */
void output_of(char *out, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The whole output of a command; the caller frees it. */
char *all_output_of(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Writes `text` to dir/name. */
void write_file(const char *dir, const char *name, const char *text);

/* Writes "line 1" to "line `n`", one a line, to dir/name: a source file whose lines
 * a test then rewrites or deletes by number (the Fig. 5 repositories). */
void write_numbered_lines(const char *dir, const char *name, int n);

#endif
