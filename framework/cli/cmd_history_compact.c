/*
 * `culprit history compact` and `culprit history prune`: bounded storage for the
 * history directory (docs/cli.md, docs/history-format.md "Compaction"). compact
 * writes every run file again with its samples packed, losslessly; prune also
 * drops the raw samples of all but the newest K runs of each test, keeping every
 * summary. The work is culprit_history_compact(); this file parses and prints.
 */
#include "cli.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* prune's default: the counter detectors mine the samples of the newest 10 runs
 * (rules.history) beside the baseline's; twice that leaves room to re-judge. */
#define PRUNE_KEEP_DEFAULT 20

typedef struct {
    culprit_history_compact_options opts;
    const char *history_dir;
    const char *project_file;
    int json;
} compact_args;

#define COMPACT_OPTIONS(a, help)                                                                   \
    {                                                                                              \
        CULPRIT_OPT("--keep-samples", 0, CULPRIT_OPT_SIZE, &(a)->opts.keep_samples, "K",           \
                    "keep the raw samples of the newest K runs of each test\n"                     \
                    "only; older runs keep their summaries (prune: 20)"),                          \
            CULPRIT_OPT("--dry-run", 0, CULPRIT_OPT_FLAG, &(a)->opts.dry_run, NULL,                \
                        "say what would change, write nothing"),                                   \
            CLI_OPT_HISTORY(&(a)->history_dir), CLI_OPT_PROJECT(&(a)->project_file),               \
            CLI_OPT_JSON(&(a)->json), CLI_OPT_HELP(help), CULPRIT_OPT_END_ROW                      \
    }

static void usage(FILE *out, int prune)
{
    compact_args a;
    int help;
    const culprit_opt options[] = COMPACT_OPTIONS(&a, &help);

    cli_usage(out,
              prune ? "usage: culprit history prune [--keep-samples K] [--dry-run] [--json]\n"
                      "Drops the raw samples of all but the newest K runs of each test (20 by\n"
                      "default) and packs the rest; every summary stays, so check, history and\n"
                      "report give the same verdicts. Files are replaced atomically.\n"
                      "\n"
                    : "usage: culprit history compact [--keep-samples K] [--dry-run] [--json]\n"
                      "Writes every run file of the history again with its raw samples packed\n"
                      "(lossless: the same values, bit for bit, in about a fifth of the bytes).\n"
                      "Files are replaced atomically, and only when smaller.\n"
                      "\n",
              options, 24, "\nExit status: 0, or 2 on a usage or I/O error.\n");
}

static int print(const compact_args *a, const culprit_history_compact_stats *st, const char *dir,
                 int prune)
{
    double per = st->test_runs ? (double)st->bytes_before / (double)st->test_runs : 0;
    double per_after = st->test_runs ? (double)st->bytes_after / (double)st->test_runs : 0;

    if (a->json) {
        json_t *doc = cli_json_document(prune ? "history prune" : "history compact");
        if (doc) {
            json_object_set_new(doc, "history", json_string(dir));
            json_object_set_new(doc, "dry_run", json_boolean(a->opts.dry_run));
            json_object_set_new(doc, "keep_samples",
                                json_integer((json_int_t)a->opts.keep_samples));
            json_object_set_new(doc, "files", json_integer((json_int_t)st->files));
            json_object_set_new(doc, "rewritten", json_integer((json_int_t)st->rewritten));
            json_object_set_new(doc, "skipped", json_integer((json_int_t)st->skipped));
            json_object_set_new(doc, "test_runs", json_integer((json_int_t)st->test_runs));
            json_object_set_new(doc, "pruned", json_integer((json_int_t)st->pruned));
            json_object_set_new(doc, "bytes_before", json_integer((json_int_t)st->bytes_before));
            json_object_set_new(doc, "bytes_after", json_integer((json_int_t)st->bytes_after));
        }
        return cli_json_print(doc);
    }
    printf("culprit history %s%s: %zu run files, %zu test runs: %" PRIu64 " -> %" PRIu64
           " bytes (%.0f -> %.0f bytes per test run); %zu files %s, %zu test runs' samples "
           "%s%s\n",
           prune ? "prune" : "compact", a->opts.dry_run ? " (dry run)" : "", st->files,
           st->test_runs, st->bytes_before, st->bytes_after, per, per_after, st->rewritten,
           a->opts.dry_run ? "would be rewritten" : "rewritten", st->pruned,
           a->opts.dry_run ? "would be dropped" : "dropped",
           st->skipped ? " (unreadable files left as they are)" : "");
    return 0;
}

int cli_history_compact(int argc, char **argv)
{
    compact_args a;
    culprit_opt_parser p;
    cli_env env;
    culprit_history *history = NULL;
    culprit_history_compact_stats st;
    int prune = strcmp(argv[0], "prune") == 0, kind, help = 0, error = 0;
    const culprit_opt options[] = COMPACT_OPTIONS(&a, &help);

    memset(&a, 0, sizeof(a));
    memset(&env, 0, sizeof(env));
    culprit_history_compact_options_init(&a.opts, CULPRIT_HISTORY_COMPACT_OPTIONS_VERSION);
    if (prune)
        a.opts.keep_samples = PRUNE_KEEP_DEFAULT;
    culprit_opt_parser_init(&p, prune ? "history prune" : "history compact", options, argc, argv);
    while ((kind = culprit_opt_next(&p)) != CULPRIT_OPT_END) {
        if (kind < 0)
            return cli_usage_error(prune ? "history prune" : "history compact");
        if (kind == CULPRIT_OPT_POSITIONAL) {
            culprit_error_set(CULPRIT_EINVALID, "history %s: unexpected argument '%s'", argv[0],
                              p.value);
            return cli_usage_error(prune ? "history prune" : "history compact");
        }
    }
    if (help) {
        usage(stdout, prune);
        return CLI_EXIT_OK;
    }
    if (prune && a.opts.keep_samples == 0) {
        culprit_error_set(CULPRIT_EINVALID, "history prune: --keep-samples must be at least 1 "
                                            "(compact keeps every sample)");
        return cli_usage_error(prune ? "history prune" : "history compact");
    }
    if ((error = cli_env_open(&env, a.project_file, a.history_dir, 0)) < 0 ||
        (error = culprit_history_open(&history, env.settings.history_dir, 0)) < 0 ||
        (error = culprit_history_compact(&st, history, &a.opts, NULL, NULL)) < 0)
        goto cleanup;
    error = print(&a, &st, env.settings.history_dir, prune);
cleanup:
    if (error < 0)
        cli_error(NULL);
    culprit_history_free(history);
    cli_env_dispose(&env);
    return error < 0 ? CLI_EXIT_ERROR : CLI_EXIT_OK;
}
