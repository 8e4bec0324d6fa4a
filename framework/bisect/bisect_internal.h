/*
 * What the bisection session (session.c) hands to its call-tree step (calltree.c):
 * the analysis runs in the checkouts the session built, so nothing is built twice.
 */
#ifndef CULPRIT_BISECT_INTERNAL_H
#define CULPRIT_BISECT_INTERNAL_H

#include "culprit/bisect.h"
#include "culprit/vcs.h"

/*
 * Records the call trees of out->parent (built in `parent_dir`) and out->culprit
 * (built in `culprit_dir`) with the bisection's command, diffs them and correlates
 * the diff with the culprit's changes, filling out's call-tree fields. A failure
 * that is the program's or the build's (not instrumented, the command failed) is
 * kept in out->calltree_error and is not an error of the bisection: returns 0.
 * Returns CULPRIT_ERROR only when out of memory.
 */
int culprit_bisect__calltree(culprit_bisect_result *out, culprit_vcs *repo,
                             const culprit_bisect_options *opts, const char *parent_dir,
                             const char *culprit_dir);

#endif
