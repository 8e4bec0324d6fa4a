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

/* The options of culprit calltree diff; --threshold and --confidence parse as
 * detection's (into `judge`); its --help too. */
#define DIFF_OPTIONS(judge, repo_dir, rev, help)                                                   \
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
            CULPRIT_OPT("--json", 0, CULPRIT_OPT_FLAG, &(judge)->json, NULL,                       \
                        "print the result as JSON on stdout"),                                     \
            CLI_OPT_HELP(help), CULPRIT_OPT_END_ROW                                                \
    }

static void usage(FILE *out)
{
    cli_judge judge;
    const char *repo_dir, *rev;
    int help;
    const culprit_opt options[] = DIFF_OPTIONS(&judge, &repo_dir, &rev, &help);

    cli_usage(out,
              "usage: culprit calltree diff BASE TEST [--repo DIR --commit REV] [--json]\n"
              "                              [--threshold PERCENT] [--confidence C]\n"
              "Names the functions behind a slowdown: each node of TEST's call tree is compared\n"
              "with BASE's (Welch's test on the per-call times), the search descends only into\n"
              "significantly slower nodes, and the lowest slower node of each chain is a\n"
              "suspect (a slower node whose callees changed is one and is not descended).\n"
              "BASE and TEST are call-tree files (culprit calltree record).\n"
              "\n",
              options, 24,
              "\n"
              "Exit status: 0 the trees were compared (with or without suspects), 2 usage or\n"
              "I/O error (unreadable or foreign file, a tree without per-call times).\n");
}

/* ------------------------------------------------------------------ rendering --- */

static void put_path(culprit_buf *b, const culprit_calltree_diff *d,
                     const culprit_calltree_suspect *s)
{
    for (size_t k = 0; k < s->npath; k++)
        culprit_buf_printf(b, "%s%s", k ? " \u2192 " : "",
                           culprit_calltree_diff_function(d, s->path[k])->name);
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

void cli_print_calltree_diff(FILE *out, const culprit_calltree_diff *d)
{
    static const char *const why[] = {"the lowest slower node of its chain",
                                      "slower, and its calls changed shape",
                                      "slower below a caller that is not"};

    for (size_t i = 0; i < d->nsuspects; i++) {
        const culprit_calltree_suspect *s = &d->suspects[i];
        culprit_buf b = CULPRIT_BUF_INIT;
        culprit_buf_printf(&b, "suspect %zu: ", i + 1);
        put_path(&b, d, s);
        culprit_buf_printf(&b, "  (%s%s)\n", why[s->kind],
                           !d->correlated ? ""
                           : s->changed   ? "; CHANGED in the commit"
                                          : "; not changed in the commit");
        /* The suspect first, then its callers up the path. */
        for (size_t k = s->npath; k-- > 0;) {
            const culprit_calltree_pair *p = &d->pairs[s->path[k]];
            const culprit_calltree_function *f = culprit_calltree_diff_function(d, s->path[k]);
            culprit_buf_printf(&b, "  %-20s ", f->name);
            culprit_buf_put_duration(&b, p->base_mean);
            culprit_buf_puts(&b, " -> ");
            culprit_buf_put_duration(&b, p->test_mean);
            culprit_buf_puts(&b, " per call, ");
            put_percent(&b, p->change);
            if (p->tested) {
                culprit_buf_printf(&b, " (%g%% CI ", 100 * d->options.confidence);
                put_percent(&b, p->change_low);
                culprit_buf_puts(&b, " to ");
                put_percent(&b, p->change_high);
                culprit_buf_puts(&b, ")");
            } else {
                culprit_buf_puts(&b, " (untested: one call)");
            }
            culprit_buf_printf(&b, ", %llu calls, ", (unsigned long long)p->test_calls);
            if (p->total_delta >= 0)
                culprit_buf_puts(&b, "+");
            culprit_buf_put_duration(&b, p->total_delta);
            culprit_buf_puts(&b, " in total");
            if (p->shape_changed)
                culprit_buf_printf(&b, "; callees: %zu added, %zu removed, %zu with other counts",
                                   p->added, p->removed, p->calls_changed);
            if (s->marks && s->marks[k].change == CULPRIT_CALLTREE_LINES_CHANGED) {
                culprit_buf_printf(&b, "\n  %-20s changed: %s:", "", f->file);
                put_lines(&b, &s->marks[k]);
            } else if (s->marks && s->marks[k].change == CULPRIT_CALLTREE_FILE_CHANGED) {
                culprit_buf_printf(&b, "\n  %-20s its file %s changed (its lines are unknown)", "",
                                   f->file);
            }
            culprit_buf_puts(&b, "\n");
        }
        fputs(culprit_buf_cstr(&b), out);
        culprit_buf_dispose(&b);
    }
}

/* ----------------------------------------------------------------- command --- */

int cli_calltree_diff(int argc, char **argv)
{
    cli_judge judge;
    culprit_opt_parser p;
    const char *positional[2] = {NULL, NULL}, *repo_dir = NULL, *rev = NULL;
    culprit_calltree *trees[2] = {NULL, NULL};
    culprit_calltree_diff diff;
    culprit_calltree_diff_options opts = CULPRIT_CALLTREE_DIFF_OPTIONS_INIT;
    culprit_vcs *repo = NULL;
    culprit_vcs_changeset changes;
    char sha[41] = "";
    size_t npositional = 0;
    int kind, help = 0, error = 0;
    const culprit_opt options[] = DIFF_OPTIONS(&judge, &repo_dir, &rev, &help);

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

    for (int i = 0; i < 2; i++)
        if ((error = culprit_calltree_load(&trees[i], positional[i])) < 0)
            goto cleanup;
    if ((error = culprit_calltree_diff_trees(&diff, trees[0], trees[1], &opts)) < 0)
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
    return error < 0 ? CLI_EXIT_ERROR : CLI_EXIT_OK;
}
