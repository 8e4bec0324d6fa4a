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
            return CULPRIT_ERROR_NOMEM();
        if (stat(path, &st) == 0)
            error = loaders[i](report, path);
        free(path);
    }
    return error;
}

/*
 * The report's model: the history (`runs`, loaded here and owned by the caller)
 * judged along the window, the title, the documents of the results directory and
 * the sources their call tree points at.
 */
static int build(culprit_report *report, culprit_history_runs *runs, const report_args *a,
                 const cli_judge *judge, const cli_env *env)
{
    const char *workdir = culprit_vcs_workdir(env->repo), *slash;
    char *results = NULL;
    int error;

    if ((error = culprit_report_set_categories(
             report, culprit_detect_project_categories(env->project))) < 0 ||
        (error = cli_load_history_window(report, runs, env, a->rev, a->limit, &judge->check,
                                         culprit_detect_check_load_flags(&judge->check))) < 0)
        return error;
    if (a->title)
        error = culprit_report_set_title(report, a->title);
    else if (workdir) {
        slash = strrchr(workdir, '/');
        error = culprit_report_set_title(report, slash ? slash + 1 : workdir);
    }
    if (error < 0)
        return error;
    results = a->results_dir ? culprit_strdup(a->results_dir)
                             : culprit_fs_join(workdir ? workdir : ".", ".culprit/results");
    if (!results)
        return CULPRIT_ERROR_NOMEM();
    if ((error = load_results(report, a, results)) == 0)
        error = culprit_report_add_sources(report, env->repo);
    free(results);
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
        error = CULPRIT_ERROR_NOMEM();
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
        (error = build(report, &runs, &a, &judge, &env)) < 0 ||
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
    culprit_history_runs_dispose(&runs);
    culprit_report_free(report);
    cli_env_dispose(&env);
    return error < 0 ? CLI_EXIT_ERROR : CLI_EXIT_OK;
}
