/*
 * Change correlation (Heger et al. 2013, section 4.3): which functions of the
 * suspect paths the culprit commit changed. The paper, on Java byte code without
 * static analysis, could only tell that a function's class was touched; the
 * symbolized tree knows each function's source file and line range, so a hunk of
 * the commit's diff (new side, no context, as `git diff -U0`) is matched against
 * the function's own lines.
 */
#include "calltree_internal.h"

#include <stdlib.h>
#include <string.h>

static const char *const change_names[] = {"no", "lines", "file"};

const char *culprit_calltree_change_name(culprit_calltree_change change)
{
    return (unsigned)change < 3 ? change_names[change] : "unknown";
}

/* 1 when `a` ends with `b` at a '/' boundary, or the reverse: the tree holds the
 * compiler's path (absolute, or relative to the build directory), the change
 * set the path in the repository. */
static int same_source(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);

    while (la > 2 && strncmp(a, "./", 2) == 0)
        a += 2, la -= 2;
    while (lb > 2 && strncmp(b, "./", 2) == 0)
        b += 2, lb -= 2;
    if (la < lb) {
        const char *t = a;
        size_t l = la;
        a = b, la = lb;
        b = t, lb = l;
    }
    return strcmp(a + la - lb, b) == 0 && (la == lb || a[la - lb - 1] == '/');
}

static int mark_function(culprit_calltree_mark *mark, const culprit_calltree_function *fn,
                         const culprit_vcs_changeset *changes)
{
    culprit_vcs_range *lines = NULL;
    size_t n = 0;

    memset(mark, 0, sizeof(*mark));
    if (!fn || !fn->file)
        return 0;
    for (size_t f = 0; f < changes->nfiles; f++) {
        const culprit_vcs_file_change *fc = &changes->files[f];
        if (fc->status == CULPRIT_VCS_DELETED || !same_source(fn->file, fc->path))
            continue;
        if (fn->line_low == 0 || fn->line_high < fn->line_low) {
            mark->change = CULPRIT_CALLTREE_FILE_CHANGED;
            continue;
        }
        for (size_t r = 0; r < fc->nranges; r++) {
            const culprit_vcs_range *h = &fc->ranges[r];
            culprit_vcs_range clip;
            if (h->lines == 0) {
                /* Lines deleted after `start`: inside the function when both
                 * neighbours of the cut are its lines. */
                if (!(h->start >= fn->line_low && h->start < fn->line_high))
                    continue;
                clip = *h;
            } else {
                size_t end = h->start + h->lines - 1;
                size_t lo = h->start > fn->line_low ? h->start : fn->line_low;
                size_t hi = end < fn->line_high ? end : fn->line_high;
                if (lo > hi)
                    continue;
                clip.start = lo;
                clip.lines = hi - lo + 1;
            }
            culprit_vcs_range *grown = realloc(lines, (n + 1) * sizeof(*lines));
            if (!grown) {
                free(lines);
                return culprit_error_set(CULPRIT_ERROR, "out of memory correlating changes");
            }
            lines = grown;
            lines[n++] = clip;
        }
    }
    if (n > 0)
        mark->change = CULPRIT_CALLTREE_LINES_CHANGED;
    mark->lines = lines;
    mark->nlines = n;
    return 0;
}

/* What the commit changed of every function of the test tree (the answer looks past
 * the suspect paths: a changed caller is often on none). */
static int mark_functions(culprit_calltree_diff *diff, const culprit_vcs_changeset *changes)
{
    const culprit_calltree *t = diff->test;
    int error;

    free(diff->changes);
    if (!(diff->changes = calloc(t->nfunctions ? t->nfunctions : 1, sizeof(*diff->changes))))
        return culprit_error_set(CULPRIT_ERROR, "out of memory correlating changes");
    for (size_t f = 0; f < t->nfunctions; f++) {
        culprit_calltree_mark mark;
        if ((error = mark_function(&mark, &t->functions[f], changes)) < 0)
            return error;
        diff->changes[f] = mark.change;
        free(mark.lines);
    }
    return 0;
}

int culprit_calltree_correlate(culprit_calltree_diff *diff, const culprit_vcs_changeset *changes)
{
    int error;

    if ((error = mark_functions(diff, changes)) < 0)
        return error;

    for (size_t i = 0; i < diff->nsuspects; i++) {
        culprit_calltree_suspect *s = &diff->suspects[i];
        if (s->marks) { /* correlated before: against another commit now */
            for (size_t k = 0; k < s->npath; k++)
                free(s->marks[k].lines);
            free(s->marks);
        }
        if (!(s->marks = calloc(s->npath ? s->npath : 1, sizeof(*s->marks))))
            return culprit_error_set(CULPRIT_ERROR, "out of memory correlating changes");
        for (size_t k = 0; k < s->npath; k++)
            if ((error = mark_function(
                     &s->marks[k], culprit_calltree_diff_function(diff, s->path[k]), changes)) < 0)
                return error;
        /* A function without line information falls back to the paper's coarser
         * level: its file changed. */
        s->changed = s->npath > 0 && s->marks[s->npath - 1].change != CULPRIT_CALLTREE_NOT_CHANGED;
    }
    diff->correlated = 1;
    culprit_calltree__rank_suspects(diff);
    return 0;
}
