/*
 * `culprit junit [--output FILE] PATH...`: one JUnit report out of many runs. ctest
 * runs a test binary once per perf test, so `--junit FILE` alone would keep the last
 * test; with `--junit DIR/` (or CULPRIT_JUNIT=DIR/) each run adds a file to DIR, and
 * this command merges them into one document for the CI server: a <testsuite> per
 * run, in file-name order, in the report form (CULPRIT_HISTORY_REPORT: the mean of
 * one repetition as `time`, the runner's line first, failure bodies with figures).
 * History files merge the same way. Every input is read as untrusted (the history
 * reader's checks); nothing is written when one is unreadable.
 */
#include "cli.h"

#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void usage(FILE *out, const culprit_opt *options)
{
    cli_usage(out,
              "usage: culprit junit [--output FILE] PATH...\n"
              "Merges the runs in PATH (JUnit reports of --junit, history files, or directories\n"
              "of them: every *.xml inside) into one JUnit report, valid against junit-10.xsd,\n"
              "on stdout or in FILE. For ctest: CULPRIT_JUNIT=junit/ ctest -L perf, then\n"
              "culprit junit junit/ --output report.xml (docs/cli.md#culprit-junit).\n",
              options, 0, "\nExit status: 0 written, 2 usage or I/O error (nothing written).\n");
}

typedef struct {
    culprit_run **items;
    size_t n, alloc;
} run_list;

/* Reads the run(s) at `path` (a file, or the *.xml of a directory) into `runs`. */
static int add_path(run_list *runs, const char *path)
{
    struct stat st;
    culprit_run *run = NULL;
    glob_t g;
    int error = 0;

    if (stat(path, &st) != 0)
        return culprit_error_set(CULPRIT_ENOTFOUND, "'%s': no such file or directory", path);
    if (S_ISDIR(st.st_mode)) {
        char *pattern = culprit_fs_join(path, "*.xml");
        int rc = pattern ? glob(pattern, 0, NULL, &g) : GLOB_NOSPACE;
        free(pattern);
        if (rc == GLOB_NOMATCH)
            return culprit_error_set(CULPRIT_ENOTFOUND, "no *.xml file in '%s'", path);
        if (rc != 0)
            return culprit_error_set(CULPRIT_EIO, "cannot list '%s'", path);
        for (size_t i = 0; i < g.gl_pathc && error == 0; i++)
            error = add_path(runs, g.gl_pathv[i]);
        globfree(&g);
        return error;
    }
    if ((error = culprit_history_read_file(&run, path, CULPRIT_HISTORY_LOAD_SAMPLES)) < 0)
        return error;
    if ((error = culprit_array_grow(&runs->items, &runs->alloc, runs->n, sizeof(*runs->items), 0)) <
        0) {
        culprit_history_run_free(run);
        return error;
    }
    runs->items[runs->n++] = run;
    return 0;
}

int cli_junit(int argc, char **argv)
{
    const char *output = NULL;
    run_list runs = {NULL, 0, 0};
    culprit_buf doc = CULPRIT_BUF_INIT;
    int kind, help = 0, error = 0, nargs = 0;
    const culprit_opt options[] = {
        CULPRIT_OPT("--output", 'o', CULPRIT_OPT_STRING, &output, "FILE",
                    "write the report to FILE (replaced atomically) instead\nof stdout"),
        CLI_OPT_HELP(&help),
        CULPRIT_OPT_END_ROW,
    };
    culprit_opt_parser p;

    culprit_opt_parser_init(&p, "junit", options, argc, argv);
    while ((kind = culprit_opt_next(&p)) != CULPRIT_OPT_END) {
        if (kind < 0) {
            error = cli_usage_error("junit");
            goto done;
        }
        if (help) {
            usage(stdout, options);
            goto done;
        }
        if (kind != CULPRIT_OPT_POSITIONAL)
            continue;
        nargs++;
        if ((error = add_path(&runs, p.value)) < 0) {
            cli_error(NULL);
            error = CLI_EXIT_ERROR;
            goto done;
        }
    }
    if (nargs == 0) {
        culprit_error_set(CULPRIT_EINVALID, "junit: needs a PATH (a report, history file or "
                                            "directory of them)");
        error = cli_usage_error("junit");
        goto done;
    }
    if (output)
        error =
            culprit_history_write_report((const culprit_run *const *)runs.items, runs.n, output, 0);
    else if ((error = culprit_history_format_runs(&doc, (const culprit_run *const *)runs.items,
                                                  runs.n, CULPRIT_HISTORY_REPORT)) == 0 &&
             fwrite(doc.ptr, 1, doc.size, stdout) != doc.size)
        error = culprit_error_set(CULPRIT_EIO, "cannot write the report");
    if (error < 0) {
        cli_error(NULL);
        error = CLI_EXIT_ERROR;
    }
done:
    for (size_t i = 0; i < runs.n; i++)
        culprit_history_run_free(runs.items[i]);
    free(runs.items);
    culprit_buf_dispose(&doc);
    return error;
}
