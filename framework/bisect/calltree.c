/*
 * The call-tree step of a bisection (Heger et al. 2013, sections 4.2-4.3): once
 * the culprit is known, the call trees of the culprit and of its first parent are
 * recorded in their checkouts with the command the bisection timed, compared with
 * the BFS diff, and the suspects are correlated with the culprit's own changes, so
 * the report names the function and the lines, not only the commit.
 *
 * The diff judges with the bisection's confidence and threshold: the threshold is
 * the user's "smallest slowdown that matters", and a node of the tree slower by
 * less is not worth accusing either.
 */
#include "bisect_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Function files as paths in the repository: the checkout's directory is gone when
 * the bisection ends, and "src/fem.c" is what the user's tree calls the file.
 * Files outside the checkout (system headers, libraries) keep their paths.
 */
static int relative_to(culprit_calltree *tree, const char *dir)
{
    size_t n = strlen(dir);

    for (size_t f = 0; f < tree->nfunctions; f++) {
        char *file = tree->functions[f].file, *rel;
        if (!file || strncmp(file, dir, n) != 0 || file[n] != '/')
            continue;
        if (!(rel = culprit_strdup(file + n + 1)))
            return CULPRIT_ERROR;
        free(file);
        tree->functions[f].file = rel;
    }
    return 0;
}

/* The tree of one side; 0, or the error with its message naming the side. With
 * `plain` (the checkout of the same commit built plain), the same command run there
 * is the recording's baseline, and the tree's times are corrected against it. */
static int record(culprit_calltree **out, const culprit_bisect_options *opts, const char *dir,
                  const char *plain, const char *sha, const char *what, unsigned int max_levels)
{
    culprit_calltree_record_options o = CULPRIT_CALLTREE_RECORD_OPTIONS_INIT;
    char env_dir[4200];
    /* As the bisection runs it: /bin/sh in the checkout, $CULPRIT_CHECKOUT naming it;
     * a test binary must not fail on its own verdicts. */
    const char *env[] = {env_dir, "CULPRIT_FAIL_ON=none", NULL, NULL};
    const char *argv[] = {"/bin/sh", "-c", opts->perf.run ? opts->perf.run : opts->command.line,
                          NULL};
    /* The recorder runs the baseline where it runs the command: the baseline moves to
     * the plain checkout itself, and $CULPRIT_CHECKOUT names that one. */
    const char *baseline[] = {"/bin/sh",
                              "-c",
                              "CULPRIT_CHECKOUT=$1; export CULPRIT_CHECKOUT; cd \"$1\" && "
                              "exec /bin/sh -c \"$2\"",
                              "sh",
                              plain,
                              argv[2],
                              NULL};
    int error;

    snprintf(env_dir, sizeof(env_dir), "CULPRIT_CHECKOUT=%s", dir);
    o.workdir = dir;
    o.env = env;
    o.quiet = 1;
    o.baseline = plain ? baseline : NULL;
    /* Three timing runs per depth, as the paper repeats each step: each depth is
     * timed in runs of its own, and on a loaded machine one run can be twice as
     * slow as the next, which the diff would read as the callers' own time (the
     * root-cause cases named a caller so). A function called once gets n = 3. */
    o.repeat = max_levels ? 1 : 3; /* the check before bisecting needs one tree */
    o.max_levels = max_levels;
    if (culprit_bisect__counted_trees(opts)) {
        /* Counted under callgrind: the runner must not start a callgrind of its own. */
        o.metric = "instructions";
        o.baseline = NULL;
        env[2] = "CULPRIT_METRIC=";
    }
    if ((error = culprit_calltree_record(out, argv, &o)) < 0 ||
        (error = relative_to(*out, dir)) < 0) {
        char *why = culprit_strdup(culprit_error_last());
        const char *shell = "'/bin/sh' ", *rest = why ? why : "";
        /* The recorder names the program it ran, the shell: the user's command it is. */
        if (strncmp(rest, shell, strlen(shell)) == 0)
            error = culprit_error_set(error, "recording the call tree of the %s %.12s: '%s' %s",
                                      what, sha, argv[2], rest + strlen(shell));
        else
            error = culprit_error_set(error, "recording the call tree of the %s %.12s: %s", what,
                                      sha, rest);
        free(why);
    }
    return error;
}

/*
 * The diff of the two trees. A perf test's tree is compared from its body down, per
 * call of the body (docs/calltree.md, "Perf tests"): the harness calls the body as
 * often as warm-up, calibration and batching need, which depends on its speed, so
 * the nodes above it always change shape. The body is the function the test is
 * named after (culprit_perf_test(f) names the test "f"); a test named otherwise
 * has no such function, and its trees are compared whole.
 */
static int diff(culprit_bisect_result *out, const culprit_bisect_options *opts)
{
    culprit_calltree_diff_options d = CULPRIT_CALLTREE_DIFF_OPTIONS_INIT;
    const char *dot = opts->perf.run && opts->perf.test ? strrchr(opts->perf.test, '.') : NULL;
    int error;

    d.confidence = opts->measure.confidence;
    d.threshold = opts->measure.threshold;
    d.root = opts->perf.run && opts->perf.test ? (dot ? dot + 1 : opts->perf.test) : NULL;
    error = culprit_calltree_diff_trees(&out->calltree, out->parent_tree, out->culprit_tree, &d);
    if (error == CULPRIT_ENOTFOUND && d.root) {
        culprit_error_clear();
        d.root = NULL;
        error =
            culprit_calltree_diff_trees(&out->calltree, out->parent_tree, out->culprit_tree, &d);
    }
    return error;
}

/* The tree of one side (k 0: the parent, 1: the culprit) into *tree, its directories
 * asked of the probe just before it is recorded. */
static int record_side(culprit_calltree **tree, culprit_bisect_result *out,
                       const culprit_bisect_options *opts, const culprit_bisect__probe *p,
                       culprit_bisect__side side, int plain, int k)
{
    const char *dir = p->dir(p->payload, side), *plain_dir = NULL;

    if (dir && plain)
        plain_dir = p->dir(p->payload, k ? CULPRIT_BISECT__CANDIDATE : CULPRIT_BISECT__GOOD);
    if (!dir || (plain && !plain_dir))
        return culprit_error_prefix("recording the call tree of the %s: ",
                                    k ? "culprit" : "parent");
    return record(tree, opts, dir, plain_dir, k ? out->culprit : out->parent,
                  k ? "culprit" : "parent", 0);
}

/* Whether two recordings of one build counted the same work: every node's calls and
 * cost, in the order the reader made them. */
static int same_counts(const culprit_calltree *a, const culprit_calltree *b)
{
    if (a->nnodes != b->nnodes)
        return 0;
    for (size_t i = 0; i < a->nnodes; i++)
        if (a->nodes[i].calls != b->nodes[i].calls ||
            !(a->nodes[i].inclusive_ns == b->nodes[i].inclusive_ns ||
              (isnan(a->nodes[i].inclusive_ns) && isnan(b->nodes[i].inclusive_ns))))
            return 0;
    return 1;
}

/*
 * Both trees, counted ones with their band (docs/calltree.md, "Programs whose work
 * varies"): the parent is counted twice, and when its two counts differ, the program's
 * work varies from run to run, the culprit is counted twice too, and the diff leaves
 * out the suspects within what a side varies (culprit_calltree_diff_band()). A
 * program that does the same work every time costs one recording more.
 */
static int record_both(culprit_bisect_result *out, const culprit_bisect_options *opts,
                       const culprit_bisect__probe *p, const culprit_bisect__side sides[2],
                       int plain)
{
    culprit_calltree *again[2] = {NULL, NULL};
    int counted = culprit_bisect__counted_trees(opts), varies = 0, error;

    if ((error = record_side(&out->parent_tree, out, opts, p, sides[0], plain, 0)) < 0 ||
        (counted && (error = record_side(&again[0], out, opts, p, sides[0], plain, 0)) < 0))
        goto cleanup;
    varies = counted && !same_counts(out->parent_tree, again[0]);
    if ((error = record_side(&out->culprit_tree, out, opts, p, sides[1], plain, 1)) < 0 ||
        (varies && (error = record_side(&again[1], out, opts, p, sides[1], plain, 1)) < 0) ||
        (error = diff(out, opts)) < 0)
        goto cleanup;
    if (varies)
        error = culprit_calltree_diff_band(&out->calltree, again[0], again[1]);
cleanup:
    culprit_calltree_free(again[0]);
    culprit_calltree_free(again[1]);
    return error;
}

int culprit_bisect__calltree(culprit_bisect_result *out, culprit_vcs *repo,
                             const culprit_bisect_options *opts, const culprit_bisect__probe *p,
                             const culprit_bisect__side sides[2], int plain)
{
    int error;

    /* Both or neither: two trees corrected differently would differ by that alone. */
    out->calltree_corrected = plain;
    if ((error = record_both(out, opts, p, sides, plain)) < 0 ||
        (error = culprit_vcs_changes(&out->changes, repo, out->culprit, 0)) < 0 ||
        (error = culprit_calltree_correlate(&out->calltree, &out->changes)) < 0) {
        if (!(out->calltree_error = culprit_strdup(culprit_error_last())))
            return CULPRIT_ERROR_NOMEM();
        culprit_error_clear();
    }
    return 0;
}

int culprit_bisect__counted_trees(const culprit_bisect_options *opts)
{
    const char *metric = culprit_bisect__metric(opts);

    return metric && strcmp(metric, "instructions") == 0;
}

int culprit_bisect__calltree_check(const culprit_bisect_options *opts, const char *dir,
                                   const char *sha)
{
    culprit_calltree *tree = NULL;
    int error;

    /* The structure and one timed depth: what every later recording needs, at the
     * cost of two runs. */
    if ((error = record(&tree, opts, dir, NULL, sha, "good end", 1)) < 0)
        culprit_error_prefix("--calltree: the bisection stops before it starts, since its call "
                             "trees would be empty: ");
    culprit_calltree_free(tree);
    return error;
}
