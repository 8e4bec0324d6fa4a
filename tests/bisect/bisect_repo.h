/*
 * A tiny repository for the bisection tests (test_bisect_session.c,
 * test_bisect_fanout.c), made with libgit2 in a temporary directory: each commit
 * has its parents and writes one file, so that the DAG, the first parents and the
 * changed files (--paths) are what a test plants.
 */
#ifndef CULPRIT_TESTS_BISECT_REPO_H
#define CULPRIT_TESTS_BISECT_REPO_H

#include <limits.h>
#include <stddef.h>

#define MAXC 48

/* One commit of a fixture: its parents (-1 none) and the file it writes. */
typedef struct {
    int p0, p1;
    const char *path;
} spec;

typedef struct {
    char dir[PATH_MAX];
    size_t n;
    char sha[MAXC][41];
} repo_fixture;

/* Makes a repository in a temporary directory with the commits of `specs` (each
 * writing "c<i>" to its path on top of its first parent's tree), one minute apart. */
void repo_make(repo_fixture *f, const spec *specs, size_t n);
void repo_remove(repo_fixture *f);

#endif
