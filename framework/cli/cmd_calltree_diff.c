/*
 * `culprit calltree diff BASE TEST [--repo DIR --commit REV] [--json]`: the BFS
 * diff of two call trees (culprit_calltree_diff_trees), the suspect paths ranked,
 * and with a commit, each function of the paths marked when the commit changed
 * its own lines (culprit_calltree_correlate). The text rendering of a diff lives
 * here too, for `culprit bisect --calltree`; the JSON document is the library's
 * (culprit_calltree_diff_to_json), this file only prints it.
 */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The search's options (docs/calltree.md, "The search"). */
typedef struct {
    int rule; /* culprit_calltree_rule */
    double min_share;
    const char *root;
    const char *again[2]; /* second recordings of BASE's and TEST's builds (NULL none) */
} diff_search;

static const char *const rule_names[] = {"reach", "paper", NULL};

/* The options of culprit calltree diff; --threshold and --confidence parse as
 * detection's (into `judge`); its --help too. */
#define DIFF_OPTIONS(judge, search, repo_dir, rev, help)                                           \
    {                                                                                              \
        CULPRIT_OPT("--commit", 0, CULPRIT_OPT_STRING, (rev), "REV",                               \
                    "mark the functions whose own lines REV changed (against\n"                    \
                    "its first parent) and rank those suspects first"),                            \
            CULPRIT_OPT("--repo", 0, CULPRIT_OPT_STRING, (repo_dir), "DIR",                        \
                        "the repository of REV (default: the current directory)"),                 \
            CLI_OPT_THRESHOLD(&(judge)->check.detect.threshold,                                    \
                              "smallest per-call slowdown that counts (default 2)"),               \
            CLI_OPT_CONFIDENCE(&(judge)->check.detect.confidence,                                  \
                               "of each node's test (default 0.99)"),                              \
            CULPRIT_OPT("--rule", 0, CULPRIT_OPT_ENUM, &(search)->rule, "RULE",                    \
                        "reach (default): descend through changed shapes and new\n"                \
                        "functions, rank by the time a node adds itself; paper:\n"                 \
                        "Heger et al. 2013, stop at the first slower node whose\n"                 \
                        "calls changed shape",                                                     \
                        .choices = rule_names, .what = "reach or paper"),                          \
            CULPRIT_OPT("--min-share", 0, CULPRIT_OPT_DOUBLE, &(search)->min_share, "PERCENT",     \
                        "reach: count, do not list, suspects adding less than\n"                   \
                        "PERCENT of the regression (default 5)",                                   \
                        .max = 100, .scale = 0.01, .what = "a percentage (0 to 100)"),             \
            CULPRIT_OPT("--root", 0, CULPRIT_OPT_STRING, &(search)->root, "FUNCTION",              \
                        "compare the subtrees of FUNCTION (its topmost node), per\n"               \
                        "call of it: a perf test's body",                                          \
                        .flags = CULPRIT_OPT_NONEMPTY),                                            \
            CULPRIT_OPT("--base-again", 0, CULPRIT_OPT_STRING, &(search)->again[0], "FILE",        \
                        "a second recording of BASE's build: leave out suspects\n"                 \
                        "whose functions vary as much between the two (a program\n"                \
                        "whose work varies from run to run)",                                      \
                        .flags = CULPRIT_OPT_NONEMPTY),                                            \
            CULPRIT_OPT("--test-again", 0, CULPRIT_OPT_STRING, &(search)->again[1], "FILE",        \
                        "the same for TEST's build", .flags = CULPRIT_OPT_NONEMPTY),               \
            CULPRIT_OPT("--json", 0, CULPRIT_OPT_FLAG, &(judge)->json, NULL,                       \
                        "print the result as JSON on stdout"),                                     \
            CLI_OPT_HELP(help), CULPRIT_OPT_END_ROW                                                \
    }

static void usage(FILE *out)
{
    cli_judge judge;
    diff_search search;
    const char *repo_dir, *rev;
    int help;
    const culprit_opt options[] = DIFF_OPTIONS(&judge, &search, &repo_dir, &rev, &help);

    cli_usage(out,
              "usage: culprit calltree diff BASE TEST [--repo DIR --commit REV] [--json]\n"
              "                              [--threshold PERCENT] [--confidence C]\n"
              "                              [--rule reach|paper] [--min-share PERCENT]\n"
              "                              [--root FUNCTION]\n"
              "                              [--base-again FILE] [--test-again FILE]\n"
              "Names the functions behind a slowdown: each node of TEST's call tree is compared\n"
              "with BASE's (Welch's test on the per-call times), the search descends into slower\n"
              "and new nodes and those that add time, each node's added time is split between\n"
              "its own code and its callees, and the nodes adding at least 5% of the regression\n"
              "themselves are the suspects, ranked by that time. With --commit, the answer is\n"
              "the function REV changed that explains the most of the regression.\n"
              "BASE and TEST are call-tree files (culprit calltree record).\n"
              "\n",
              options, 24,
              "\n"
              "Exit status: 0 the trees were compared (with or without suspects), 2 usage or\n"
              "I/O error (unreadable or foreign file, a tree without per-call times).\n");
}

/* ------------------------------------------------------------------ rendering --- */
/* Function and file names come from call trees and folded stacks (data): every one is
 * written through culprit_buf_put_text(), control bytes as \xNN. */

static void put_path(culprit_buf *b, const culprit_calltree_diff *d,
                     const culprit_calltree_suspect *s)
{
    for (size_t k = 0; k < s->npath; k++) {
        culprit_buf_puts(b, k ? " \u2192 " : "");
        culprit_buf_put_text(b, culprit_calltree_diff_function(d, s->path[k])->name);
    }
}

static void put_percent(culprit_buf *b, double x)
{
    if (isfinite(x))
        culprit_buf_printf(b, "%+.1f%%", 100 * x);
    else
        culprit_buf_puts(b, "-");
}

static void put_lines(culprit_buf *b, const culprit_calltree_mark *m)
{
    for (size_t i = 0; i < m->nlines; i++) {
        const culprit_vcs_range *r = &m->lines[i];
        culprit_buf_puts(b, i ? ", " : " ");
        if (r->lines == 0)
            culprit_buf_printf(b, "deleted after %zu", r->start);
        else if (r->lines == 1)
            culprit_buf_printf(b, "%zu", r->start);
        else
            culprit_buf_printf(b, "%zu-%zu", r->start, r->start + r->lines - 1);
    }
}

/* A cost: a duration ("1.2 ms"), or instructions ("1.20 M instr"). */
/* counted: the costs are instructions (callgrind), not ns. */
static void put_cost(culprit_buf *b, int counted, double x)
{
    static const char *const si[] = {"", " k", " M", " G", " T"};
    size_t k = 0;

    if (!counted) {
        culprit_buf_put_duration(b, x);
        return;
    }
    while (k < 4 && fabs(x) >= 1000)
        x /= 1000, k++;
    culprit_buf_printf(b, k ? "%.3g%s instr" : "%.0f instr", x, si[k]);
}

/* A signed cost: "+1.2 ms", "-185.2 us", "+1.20 M instr". */
static void put_signed(culprit_buf *b, int counted, double ns)
{
    culprit_buf_puts(b, ns < 0 ? "-" : "+");
    put_cost(b, counted, fabs(ns));
}

/* An amount of the diff's time: per call of the root when it has one. */
static void put_amount(culprit_buf *b, const culprit_calltree_diff *d, double ns)
{
    if (d->root_calls > 0) {
        put_signed(b, d->test->instructions, ns / (double)d->root_calls);
        culprit_buf_puts(b, " per call of ");
        culprit_buf_put_text(b, d->options.root);
    } else {
        put_signed(b, d->test->instructions, ns);
    }
}

/* "; callees added: a, b; removed: c; other counts: d" (up to 4 names each). */
static void put_callees(culprit_buf *b, const culprit_calltree_diff *d, size_t pair)
{
    static const char *const what[] = {"added", "removed", "other counts"};
    const char *names[4];
    int first = 1;

    for (int w = 0; w < 3; w++) {
        size_t n = culprit_calltree_diff_callees(d, pair, (culprit_calltree_callees)w, names, 4);
        if (n == 0)
            continue;
        culprit_buf_printf(b, "%s%s: ", first ? "; callees " : "; ", what[w]);
        first = 0;
        for (size_t i = 0; i < n && i < 4; i++) {
            culprit_buf_puts(b, i ? ", " : "");
            culprit_buf_put_text(b, names[i]);
        }
        if (n > 4)
            culprit_buf_printf(b, " and %zu more", n - 4);
    }
}

/* One node of a suspect path: its per-call times, calls, added time, callees. */
static void put_node(culprit_buf *b, const culprit_calltree_diff *d, size_t pair,
                     const culprit_calltree_mark *m)
{
    const culprit_calltree_pair *p = &d->pairs[pair];
    const culprit_calltree_function *f = culprit_calltree_diff_function(d, pair);
    size_t mark;

    culprit_buf_puts(b, "  ");
    mark = b->size;
    culprit_buf_put_text(b, f->name);
    while (b->size - mark < 20)
        culprit_buf_puts(b, " ");
    culprit_buf_puts(b, " ");
    if (p->verdict == CULPRIT_CALLTREE_ADDED) {
        culprit_buf_puts(b, "new: ");
        put_cost(b, d->test->instructions, p->test_mean);
        culprit_buf_puts(b, " per call");
    } else {
        put_cost(b, d->test->instructions, p->base_mean);
        culprit_buf_puts(b, " -> ");
        put_cost(b, d->test->instructions, p->test_mean);
        culprit_buf_puts(b, " per call, ");
        put_percent(b, p->change);
        if (p->tested) {
            culprit_buf_printf(b, " (%g%% CI ", 100 * d->options.confidence);
            put_percent(b, p->change_low);
            culprit_buf_puts(b, " to ");
            put_percent(b, p->change_high);
            culprit_buf_puts(b, ")");
        } else {
            culprit_buf_puts(b,
                             d->test->instructions ? " (exact counts)" : " (untested: one call)");
        }
    }
    culprit_buf_printf(b, ", %llu calls", (unsigned long long)p->test_calls);
    if (d->root_calls == 0) {
        culprit_buf_puts(b, ", ");
        put_signed(b, d->test->instructions, p->total_delta);
        culprit_buf_puts(b, " in total");
    }
    if (p->shape_changed)
        put_callees(b, d, pair);
    if (m && m->change == CULPRIT_CALLTREE_LINES_CHANGED) {
        culprit_buf_printf(b, "\n  %-20s changed: ", "");
        culprit_buf_put_text(b, f->file);
        culprit_buf_puts(b, ":");
        put_lines(b, m);
    } else if (m && m->change == CULPRIT_CALLTREE_FILE_CHANGED) {
        culprit_buf_printf(b, "\n  %-20s its file ", "");
        culprit_buf_put_text(b, f->file);
        culprit_buf_puts(b, " changed (its lines are unknown)");
    }
    culprit_buf_puts(b, "\n");
}

void cli_print_calltree_answer(FILE *out, const culprit_calltree_diff *d)
{
    culprit_calltree_answer a;
    culprit_buf b = CULPRIT_BUF_INIT;

    if (culprit_calltree_diff_answer(&a, d) == 0 && a.kind != CULPRIT_CALLTREE_ANSWER_NONE &&
        culprit_buf_puts(&b, "answer: ") == 0 && culprit_calltree_answer_text(&b, d, &a) == 0)
        fprintf(out, "%s\n", culprit_buf_cstr(&b));
    culprit_error_clear();
    culprit_buf_dispose(&b);
}

void cli_print_calltree_diff(FILE *out, const culprit_calltree_diff *d)
{
    static const char *const why[] = {"the lowest slower node of its chain",
                                      "slower, and its calls changed shape",
                                      "slower below a caller that is not", "adds", "new, adds"};

    /* Without memory the callers are simply repeated. */
    unsigned char *shown = d->npairs ? calloc(d->npairs, 1) : NULL;

    cli_print_calltree_answer(out, d);

    for (size_t i = 0; i < d->nsuspects; i++) {
        const culprit_calltree_suspect *s = &d->suspects[i];
        const culprit_calltree_pair *last = &d->pairs[s->path[s->npath - 1]];
        culprit_buf b = CULPRIT_BUF_INIT;
        culprit_buf_printf(&b, "suspect %zu: ", i + 1);
        put_path(&b, d, s);
        culprit_buf_printf(&b, "  (%s", why[s->kind]);
        if (s->kind == CULPRIT_CALLTREE_OWN || s->kind == CULPRIT_CALLTREE_NEW) {
            culprit_buf_puts(&b, " ");
            put_amount(&b, d, last->own_ns);
            culprit_buf_printf(&b, " itself, %.1f%% of the regression", 100 * last->share);
            /* The share is capped (docs/calltree.md): say why it reads 100%. */
            if (last->own_ns > d->regression_ns)
                culprit_buf_puts(&b, " (more than all of it: other calls got faster)");
            if (s->function_own_ns > last->own_ns * 1.001 && d->regression_ns > 0)
                culprit_buf_printf(&b, "; %.1f%% at all its call paths",
                                   100 * fmin(1, s->function_own_ns / d->regression_ns));
        }
        culprit_buf_printf(&b, "%s)\n",
                           !d->correlated ? ""
                           : s->changed   ? "; CHANGED in the commit"
                                          : "; not changed in the commit");
        /* The suspect first, then its callers up the path: those an earlier
         * suspect's block showed are not repeated (the output stays short). */
        for (size_t k = s->npath; k-- > 0;) {
            if (k + 1 < s->npath && shown && shown[s->path[k]])
                continue;
            put_node(&b, d, s->path[k], s->marks ? &s->marks[k] : NULL);
            if (shown)
                shown[s->path[k]] = 1;
        }
        fputs(culprit_buf_cstr(&b), out);
        culprit_buf_dispose(&b);
    }
    free(shown);
    if (d->nvarying > 0)
        fprintf(out,
                "and %zu left out: what %s add%s is within what %s between two "
                "recordings of one build\n",
                d->nvarying, d->nvarying == 1 ? "its function" : "their functions",
                d->nvarying == 1 ? "s" : "", d->nvarying == 1 ? "it varies" : "they vary");
    if (d->nsmaller > 0) {
        culprit_buf b = CULPRIT_BUF_INIT;
        culprit_buf_printf(&b, "and %zu smaller (each under %g%% of the regression, ", d->nsmaller,
                           100 * d->options.min_share);
        put_amount(&b, d, d->smaller_ns);
        culprit_buf_puts(&b, " together)\n");
        fputs(culprit_buf_cstr(&b), out);
        culprit_buf_dispose(&b);
    }
}

/* ----------------------------------------------------------------- command --- */

int cli_calltree_diff(int argc, char **argv)
{
    cli_judge judge;
    diff_search search = {CULPRIT_CALLTREE_RULE_REACH, 0.05, NULL, {NULL, NULL}};
    culprit_opt_parser p;
    const char *positional[2] = {NULL, NULL}, *repo_dir = NULL, *rev = NULL;
    culprit_calltree *trees[2] = {NULL, NULL}, *again[2] = {NULL, NULL};
    culprit_calltree_diff diff;
    culprit_calltree_diff_options opts = CULPRIT_CALLTREE_DIFF_OPTIONS_INIT;
    culprit_vcs *repo = NULL;
    culprit_vcs_changeset changes;
    char sha[41] = "";
    size_t npositional = 0;
    int kind, help = 0, error = 0;
    const culprit_opt options[] = DIFF_OPTIONS(&judge, &search, &repo_dir, &rev, &help);

    memset(&diff, 0, sizeof(diff));
    memset(&changes, 0, sizeof(changes));
    cli_judge_init(&judge);
    culprit_opt_parser_init(&p, "calltree diff", options, argc, argv);
    while ((kind = culprit_opt_next(&p)) != CULPRIT_OPT_END) {
        if (kind < 0)
            return cli_usage_error("calltree diff");
        if (kind == CULPRIT_OPT_POSITIONAL) {
            if (npositional == 2) {
                culprit_error_set(CULPRIT_EINVALID, "calltree diff: unexpected argument '%s'",
                                  p.value);
                return cli_usage_error("calltree diff");
            }
            positional[npositional++] = p.value;
        }
    }
    if (help) {
        usage(stdout);
        return CLI_EXIT_OK;
    }
    if (npositional != 2) {
        culprit_error_set(CULPRIT_EINVALID, "calltree diff: needs two call trees, BASE and TEST");
        return cli_usage_error("calltree diff");
    }
    if (repo_dir && !rev) {
        culprit_error_set(CULPRIT_EINVALID, "calltree diff: --repo needs --commit REV");
        return cli_usage_error("calltree diff");
    }
    /* The options detection shares (--threshold, --confidence) parse as theirs. */
    opts.confidence = judge.check.detect.confidence;
    opts.threshold = judge.check.detect.threshold;
    opts.rule = (culprit_calltree_rule)search.rule;
    opts.min_share = search.min_share;
    opts.root = search.root;

    for (int i = 0; i < 2; i++)
        if ((error = culprit_calltree_load(&trees[i], positional[i])) < 0)
            goto cleanup;
    for (int i = 0; i < 2; i++)
        if (search.again[i] && (error = culprit_calltree_load(&again[i], search.again[i])) < 0)
            goto cleanup;
    if ((error = culprit_calltree_diff_trees(&diff, trees[0], trees[1], &opts)) < 0 ||
        (error = culprit_calltree_diff_band(&diff, again[0], again[1])) < 0)
        goto cleanup;
    if (rev) {
        if ((error = culprit_vcs_open(&repo, repo_dir ? repo_dir : ".")) < 0 ||
            (error = culprit_vcs_resolve(sha, repo, rev)) < 0 ||
            (error = culprit_vcs_changes(&changes, repo, sha, 0)) < 0 ||
            (error = culprit_calltree_correlate(&diff, &changes)) < 0)
            goto cleanup;
    }
    {
        /* Under --json the readable lines go to stderr, so a CI log still shows them. */
        FILE *out = judge.json ? stderr : stdout;
        cli_print_calltree_diff(out, &diff);
        fprintf(out,
                "culprit calltree diff %s against %s: %zu suspect%s among %zu functions compared",
                positional[1], positional[0], diff.nsuspects, diff.nsuspects == 1 ? "" : "s",
                diff.npairs - 1);
        if (rev)
            fprintf(out, ", changes of %.12s", sha);
        fprintf(out, "\n");
    }
    if (judge.json) {
        culprit_buf doc = CULPRIT_BUF_INIT;
        if ((error = culprit_calltree_diff_to_json(&doc, &diff, positional[0], positional[1],
                                                   rev ? sha : NULL)) == 0)
            error = cli_print_document(&doc);
        culprit_buf_dispose(&doc);
    }
cleanup:
    if (error < 0)
        cli_error(NULL);
    culprit_calltree_diff_dispose(&diff);
    culprit_vcs_changeset_dispose(&changes);
    culprit_vcs_free(repo);
    culprit_calltree_free(trees[0]);
    culprit_calltree_free(trees[1]);
    culprit_calltree_free(again[0]);
    culprit_calltree_free(again[1]);
    return error < 0 ? CLI_EXIT_ERROR : CLI_EXIT_OK;
}
