/*
 * `culprit report [--out DIR] [--format html|markdown|json]`: the feedback page of
 * Heger et al. 2013, section 4.4, from the history store (judged commit by commit
 * as `culprit check` does) and the JSON documents of `culprit bisect`, `culprit
 * calltree diff` and `culprit overweight` (named with --bisect / --calltree /
 * --overweight, or found as bisect.json, calltree.json and overweight.json in the
 * results directory, .culprit/results by default). The model and its renderings
 * live in framework/report (include/culprit/report.h); this file only resolves
 * where things are and writes the file atomically.
 */
#include "cli.h"

#include "culprit/report.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
    const char *out_dir, *results_dir, *title, *rev;
    const char *files[3]; /* bisect, calltree, overweight */
    size_t limit;
    culprit_report_format format;
} report_args;

/* --format: the report module knows the names (and "md" for markdown). */
static int set_format(const culprit_opt *opt, const char *value)
{
    return culprit_report_format_parse(opt->target, value);
}

/* The options of culprit report, their values going into `a` and `judge`; its
 * --help too. */
#define REPORT_OPTIONS(a, judge, help)                                                             \
    {                                                                                              \
        CULPRIT_OPT("--format", 0, CULPRIT_OPT_CALLBACK, &(a)->format, "FORMAT",                   \
                    "html (default): one self-contained page, DIR/index.html,\n"                   \
                    "and a summary block on stdout ending with its path;\n"                        \
                    "markdown: a short summary for CI and pull requests;\n"                        \
                    "json: the report's data; text: the summary block\n"                           \
                    "(these go to stdout unless --out is given: DIR/report.md,\n"                  \
                    "DIR/report.json, DIR/report.txt)",                                            \
                    .set = set_format),                                                            \
            CULPRIT_OPT("--out", 0, CULPRIT_OPT_STRING, &(a)->out_dir, "DIR",                      \
                        "where to write (default .culprit/report)"),                               \
            CULPRIT_OPT("--commit", 0, CULPRIT_OPT_STRING, &(a)->rev, "REV",                       \
                        "the commit reported on (default HEAD)"),                                  \
            CULPRIT_OPT("--limit", 0, CULPRIT_OPT_SIZE, &(a)->limit, "N",                          \
                        "first-parent commits shown (default 30)", .min = 1),                      \
            CULPRIT_OPT("--bisect", 0, CULPRIT_OPT_STRING, &(a)->files[0], "FILE",                 \
                        "the output of `culprit bisect --json`"),                                  \
            CULPRIT_OPT("--calltree", 0, CULPRIT_OPT_STRING, &(a)->files[1], "FILE",               \
                        "the output of `culprit calltree diff --json`"),                           \
            CULPRIT_OPT("--overweight", 0, CULPRIT_OPT_STRING, &(a)->files[2], "FILE",             \
                        "the output of `culprit overweight --json`"),                              \
            CULPRIT_OPT("--results", 0, CULPRIT_OPT_STRING, &(a)->results_dir, "DIR",              \
                        "where bisect.json, calltree.json and overweight.json are\n"               \
                        "looked for when not named (default .culprit/results)"),                   \
            CULPRIT_OPT("--title", 0, CULPRIT_OPT_STRING, &(a)->title, "TEXT",                     \
                        "the name in the page header (default: the repository's)"),                \
            CLI_JUDGE_STATS_OPTIONS(judge), CLI_OPT_NOISE_WINDOW(judge),                           \
            CLI_DETECTOR_OPTIONS(&(judge)->check), CLI_OPT_HELP(help), CULPRIT_OPT_END_ROW         \
    }

static void usage(FILE *out)
{
    report_args a;
    cli_judge judge;
    int help;
    const culprit_opt options[] = REPORT_OPTIONS(&a, &judge, &help);

    cli_usage(
        out,
        "usage: culprit report [--out DIR] [--format html|markdown|json|text] [--commit REV]\n"
        "                      [--bisect FILE] [--calltree FILE] [--overweight FILE]\n"
        "                      [--results DIR] [--limit N] [--test NAME] [--title TEXT]\n"
        "Writes the feedback for a commit: each test's time along first-parent history\n"
        "with its verdicts and category limits, the bisection's culprit, the culprit's\n"
        "call tree and the overweight table. The counter detectors' lines show under\n"
        "each test.\n"
        "\n",
        options, 24,
        "\nExit status: 0 written, 2 usage or I/O error (a named file that is missing or\n"
        "not the right document, no history).\n");
}

static const char *const result_names[3] = {"bisect.json", "calltree.json", "overweight.json"};

/* Loads each JSON document: a named one must exist; one found in the results
 * directory is optional. */
static int load_results(culprit_report *report, const report_args *a, const char *results_dir)
{
    static int (*const loaders[3])(culprit_report *, const char *) = {
        culprit_report_load_bisect, culprit_report_load_calltree, culprit_report_load_overweight};
    int error = 0;

    for (int i = 0; i < 3 && error == 0; i++) {
        char *path = NULL;
        struct stat st;
        if (a->files[i]) {
            error = loaders[i](report, a->files[i]);
            continue;
        }
        if (!(path = culprit_fs_join(results_dir, result_names[i])))
            return culprit_error_set(CULPRIT_ERROR, "out of memory");
        if (stat(path, &st) == 0)
            error = loaders[i](report, path);
        free(path);
    }
    return error;
}

/* The window's commits (newest first) with their subjects and dates. */
static int window_commits(culprit_report_commit **out, culprit_vcs *repo, char (*shas)[41],
                          size_t n)
{
    culprit_report_commit *c = calloc(n ? n : 1, sizeof(*c));
    int error = 0;

    *out = c;
    if (!c)
        return culprit_error_set(CULPRIT_ERROR, "out of memory");
    for (size_t i = 0; i < n && error == 0; i++) {
        culprit_vcs_commit info;
        memcpy(c[i].sha, shas[i], 41);
        if ((error = culprit_vcs_commit_info(&info, repo, shas[i])) < 0)
            break;
        if ((info.subject && !(c[i].subject = culprit_strdup(info.subject))) ||
            !(c[i].date = culprit_strdup(info.author_date)))
            error = CULPRIT_ERROR;
        culprit_vcs_commit_dispose(&info);
    }
    return error;
}

static void commits_free(culprit_report_commit *c, size_t n)
{
    for (size_t i = 0; c && i < n; i++) {
        free(c[i].subject);
        free(c[i].date);
    }
    free(c);
}

int cli_report_history(culprit_report *report, culprit_vcs *repo, const culprit_history_runs *runs,
                       const char *rev, size_t limit, const culprit_check_options *check)
{
    culprit_report_commit *commits = NULL;
    char sha[41], (*shas)[41] = NULL;
    const char **chain = NULL;
    size_t nshas = 0, window = 0;
    int error;

    if ((error = culprit_vcs_resolve(sha, repo, rev)) < 0 ||
        /* All of the chain: the oldest point shown still has its baseline. */
        (error = culprit_vcs_first_parents(&shas, &nshas, repo, sha, 0)) < 0)
        goto cleanup;
    window = limit < nshas ? limit : nshas;
    if (!(chain = calloc(nshas, sizeof(*chain)))) {
        error = culprit_error_set(CULPRIT_ERROR, "out of memory");
        goto cleanup;
    }
    for (size_t i = 0; i < nshas; i++)
        chain[i] = shas[i];
    if ((error = window_commits(&commits, repo, shas, window)) < 0)
        goto cleanup;
    error = culprit_report_add_history(report, runs, commits, window, chain, nshas, check);
cleanup:
    commits_free(commits, window);
    free(chain);
    free(shas);
    return error;
}

/* The changed lines of the call tree's changed functions, as the culprit commit has
 * them (a file the commit does not have, or a path from another build directory,
 * is left with its line numbers only). */
static int add_sources(culprit_report *report, culprit_vcs *repo)
{
    const culprit_report_calltree *c = report->calltree;
    const char *sha = c && c->commit                                 ? c->commit
                      : report->bisect && report->bisect->culprit[0] ? report->bisect->culprit
                                                                     : NULL;
    char full[41];
    int error = 0;

    if (!c || !sha || culprit_vcs_resolve(full, repo, sha) < 0) {
        culprit_error_clear();
        return 0;
    }
    for (size_t i = 0; i < c->nnodes && error == 0; i++) {
        culprit_buf text = CULPRIT_BUF_INIT;
        if (!c->nodes[i].nchanged || !c->nodes[i].file)
            continue;
        if (culprit_vcs_read_file(&text, repo, full, c->nodes[i].file) == 0)
            error = culprit_report_set_source(report, i, text.ptr ? text.ptr : "", text.size);
        else
            culprit_error_clear();
        culprit_buf_dispose(&text);
    }
    return error;
}

static int write_output(const report_args *a, const culprit_buf *text, const culprit_buf *summary,
                        const char *workdir)
{
    static const char *const names[] = {"index.html", "report.md", "report.json", "report.txt"};
    char *dir = NULL, *path = NULL;
    int error;

    if (a->format != CULPRIT_REPORT_HTML && !a->out_dir) {
        if (fwrite(text->ptr, 1, text->size, stdout) != text->size || fflush(stdout) != 0)
            return culprit_error_set(CULPRIT_EIO, "cannot write the report to stdout");
        return 0;
    }
    dir = a->out_dir ? culprit_strdup(a->out_dir) : culprit_fs_join(workdir, ".culprit/report");
    if (!dir || !(path = culprit_fs_join(dir, names[a->format]))) {
        error = culprit_error_set(CULPRIT_ERROR, "out of memory");
        goto cleanup;
    }
    if ((error = culprit_fs_mkdir_p(dir)) < 0 ||
        (error = culprit_fs_write_atomic(path, text->ptr, text->size, 0)) < 0)
        goto cleanup;
    /* The page: the summary block, then where it is (the last line, for scripts). */
    if (a->format == CULPRIT_REPORT_HTML) {
        fwrite(summary->ptr, 1, summary->size, stdout);
        printf("  %-10s %s\n", "report", path);
    } else {
        printf("%s\n", path);
    }
cleanup:
    free(dir);
    free(path);
    return error;
}

int cli_report(int argc, char **argv)
{
    report_args a = {NULL, NULL, NULL, "HEAD", {NULL, NULL, NULL}, 30, CULPRIT_REPORT_HTML};
    cli_judge judge;
    culprit_opt_parser p;
    cli_env env;
    culprit_report *report = NULL;
    culprit_history_runs runs = {0, NULL, 0};
    culprit_buf text = CULPRIT_BUF_INIT, summary = CULPRIT_BUF_INIT;
    char *results = NULL;
    const char *slash;
    int kind, help = 0, error = 0;
    const culprit_opt options[] = REPORT_OPTIONS(&a, &judge, &help);

    memset(&env, 0, sizeof(env));
    cli_judge_init(&judge);
    culprit_opt_parser_init(&p, "report", options, argc, argv);
    while ((kind = culprit_opt_next(&p)) != CULPRIT_OPT_END) {
        if (kind < 0)
            return cli_usage_error("report");
        if (kind == CULPRIT_OPT_POSITIONAL) {
            culprit_error_set(CULPRIT_EINVALID, "report: unexpected argument '%s'", p.value);
            return cli_usage_error("report");
        }
    }
    if (help) {
        usage(stdout);
        return CLI_EXIT_OK;
    }

    if ((error = cli_env_open(&env, judge.project_file, judge.history_dir, 1)) < 0)
        goto cleanup;
    if (!culprit_vcs_workdir(env.repo) && !a.out_dir && a.format == CULPRIT_REPORT_HTML) {
        error = culprit_error_set(CULPRIT_EINVALID, "report: a bare repository has no working "
                                                    "tree to write the page in; use --out");
        goto cleanup;
    }
    if ((error = culprit_report_new(&report)) < 0 ||
        (error = cli_load_history_flags(&runs, env.settings.history_dir,
                                        cli_history_flags(&judge.check))) < 0)
        goto cleanup;
    if (judge.check.test &&
        (error = cli_require_test(&runs, judge.check.test, env.settings.history_dir)) < 0)
        goto cleanup;
    if ((error = culprit_report_set_categories(report, culprit_project_categories(env.project))) <
            0 ||
        (error = cli_report_history(report, env.repo, &runs, a.rev, a.limit, &judge.check)) < 0)
        goto cleanup;
    if (a.title)
        error = culprit_report_set_title(report, a.title);
    else if (culprit_vcs_workdir(env.repo)) {
        slash = strrchr(culprit_vcs_workdir(env.repo), '/');
        error = culprit_report_set_title(report, slash ? slash + 1 : culprit_vcs_workdir(env.repo));
    }
    if (error < 0)
        goto cleanup;
    results =
        a.results_dir
            ? culprit_strdup(a.results_dir)
            : culprit_fs_join(culprit_vcs_workdir(env.repo) ? culprit_vcs_workdir(env.repo) : ".",
                              ".culprit/results");
    if (!results) {
        error = culprit_error_set(CULPRIT_ERROR, "out of memory");
        goto cleanup;
    }
    if ((error = load_results(report, &a, results)) < 0 ||
        (error = add_sources(report, env.repo)) < 0 ||
        (error = culprit_report_render(&text, report, a.format)) < 0 ||
        (a.format == CULPRIT_REPORT_HTML &&
         (error = culprit_report_render(&summary, report, CULPRIT_REPORT_TEXT)) < 0))
        goto cleanup;
    error = write_output(&a, &text, &summary, culprit_vcs_workdir(env.repo));
cleanup:
    if (error < 0)
        cli_error(NULL);
    culprit_buf_dispose(&text);
    culprit_buf_dispose(&summary);
    free(results);
    culprit_history_runs_dispose(&runs);
    culprit_report_free(report);
    cli_env_dispose(&env);
    return error < 0 ? CLI_EXIT_ERROR : CLI_EXIT_OK;
}
