/*
 * `culprit history`: each test's series along the first-parent history of a
 * commit, newest first, with the verdict of every point against the previous
 * commit with data. Each point is what `culprit check --commit C` says of it: the
 * series are the report model's (culprit_report_add_history(), the same points the
 * HTML report plots), printed as text or JSON.
 */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The options of culprit history, their values going into `judge`, `rev` and
 * `limit`; its --help too. */
#define HISTORY_OPTIONS(judge, rev, limit, help)                                                   \
    {                                                                                              \
        CULPRIT_OPT("--commit", 0, CULPRIT_OPT_STRING, (rev), "REV",                               \
                    "where the history starts (default HEAD)"),                                    \
            CULPRIT_OPT("--limit", 0, CULPRIT_OPT_SIZE, (limit), "N",                              \
                        "how many commits back (default 30)", .min = 1),                           \
            CLI_OPT_JSON(&(judge)->json), CLI_JUDGE_STATS_OPTIONS(judge), CLI_OPT_HELP(help),      \
            CULPRIT_OPT_END_ROW                                                                    \
    }

static void usage(FILE *out)
{
    cli_judge judge;
    const char *rev;
    size_t limit;
    int help;
    const culprit_opt options[] = HISTORY_OPTIONS(&judge, &rev, &limit, &help);

    cli_usage(out,
              "usage: culprit history [--test NAME] [--commit REV] [--limit N] [--json]\n"
              "       culprit history push|pull [REMOTE]   (the shared history in git)\n"
              "       culprit history compact|prune [...]  (see culprit history compact --help)\n"
              "Shows each test's measurements along the first-parent history of REV, newest\n"
              "first: commit, date, mean with its confidence interval, samples, and the\n"
              "verdict against the previous commit with data (the means `culprit check`\n"
              "judges: inside the severe fences; a dirty tree's run is no baseline).\n"
              "\n",
              options, 24, "\nExit status: 0, or 2 on a usage or I/O error.\n");
}

static int print_json(const culprit_report *r, size_t limit, int allow_dirty)
{
    json_t *doc = cli_json_document("history"), *tests = json_array();

    if (doc && tests) {
        json_object_set_new(doc, "commit", json_string(r->commit));
        json_object_set_new(doc, "limit", json_integer((json_int_t)limit));
        json_object_set_new(doc, "tests", tests);
        for (size_t i = 0; i < r->nseries; i++) {
            const culprit_report_series *s = &r->series[i];
            json_t *t = json_object(), *points = json_array();
            json_array_append_new(tests, t);
            json_object_set_new(t, "test", json_string(s->test));
            json_object_set_new(t, "points", points);
            for (size_t k = s->npoints; k-- > 0;) { /* newest first */
                const culprit_report_point *p = &s->points[k];
                const culprit_report_commit *c = &r->commits[p->commit];
                json_t *j = json_object();
                json_array_append_new(points, j);
                json_object_set_new(j, "commit", json_string(c->sha));
                json_object_set_new(j, "timestamp", cli_json_string(c->date));
                json_object_set_new(j, "subject", cli_json_string(c->subject));
                json_object_set_new(j, "mean_ns", cli_json_number(p->mean_ns));
                json_object_set_new(j, "ci_low_ns", cli_json_number(p->low_ns));
                json_object_set_new(j, "ci_high_ns", cli_json_number(p->high_ns));
                json_object_set_new(j, "n", json_integer((json_int_t)p->n));
                json_object_set_new(j, "verdict",
                                    json_string(culprit_detect_verdict_name(p->verdict)));
                json_object_set_new(j, "change", cli_json_number(p->change));
                json_object_set_new(j, "dirty", json_boolean(p->dirty));
                json_object_set_new(j, "baseline_eligible", json_boolean(!p->dirty || allow_dirty));
                json_object_set_new(j, "run_id", cli_json_string(p->run_id));
                json_object_set_new(j, "base_mean_ns", cli_json_number(p->base_mean_ns));
                json_object_set_new(j, "base_run_id", cli_json_string(p->base_run_id));
            }
        }
    } else {
        json_decref(tests);
    }
    return cli_json_print(doc);
}

static void print_text(FILE *out, const culprit_report *r, size_t limit, int allow_dirty)
{
    int color = cli_color_for(out);
    culprit_buf line = CULPRIT_BUF_INIT, text = CULPRIT_BUF_INIT;

    if (r->nseries == 0)
        fprintf(out,
                "culprit history: no measurements in the %zu first-parent commits from %.12s\n",
                limit, r->commit);
    for (size_t i = 0; i < r->nseries; i++) {
        const culprit_report_series *s = &r->series[i];
        fprintf(out, "%s%s\n", i ? "\n" : "", cli_text(&text, s->test));
        for (size_t k = s->npoints; k-- > 0;) {
            const culprit_report_point *p = &s->points[k];
            const culprit_report_commit *c = &r->commits[p->commit];
            const char *col = color ? cli_verdict_color(p->verdict) : "";
            culprit_buf_clear(&line);
            culprit_buf_printf(&line, "  %.12s  %.10s  ", c->sha, c->date ? c->date : "");
            culprit_buf_put_duration(&line, p->mean_ns);
            culprit_buf_puts(&line, " [");
            culprit_buf_put_duration(&line, p->low_ns);
            culprit_buf_puts(&line, ", ");
            culprit_buf_put_duration(&line, p->high_ns);
            culprit_buf_printf(&line, "]  n=%zu  %s%-11s%s", p->n, col, cli_verdict_tag(p->verdict),
                               *col ? CLI_COLOR_RESET : "");
            if (isfinite(p->change)) {
                culprit_buf_printf(&line, " %+6.1f%% vs ", 100 * p->change);
                culprit_buf_put_duration(&line, p->base_mean_ns);
            } else {
                culprit_buf_puts(&line, "        ");
            }
            /* A dirty run is shown (check judges it) but no later commit compares with it. */
            culprit_buf_puts(&line, !p->dirty     ? "  "
                                    : allow_dirty ? "  (dirty tree) "
                                                  : "  (dirty tree, not a baseline) ");
            culprit_buf_put_text(&line, c->subject ? c->subject : "");
            fprintf(out, "%s\n", culprit_buf_cstr(&line));
        }
    }
    culprit_buf_dispose(&line);
    culprit_buf_dispose(&text);
}

int cli_history(int argc, char **argv)
{
    cli_judge judge;
    culprit_opt_parser p;
    cli_env env;
    culprit_history_runs runs = {0, NULL, 0};
    culprit_report *report = NULL;
    const char *rev = "HEAD";
    size_t limit = 30;
    int kind, help = 0, error = 0;
    const culprit_opt options[] = HISTORY_OPTIONS(&judge, &rev, &limit, &help);

    /* `culprit history push|pull`: the shared history (cmd_history_sync.c). */
    if (argc > 1 && (strcmp(argv[1], "push") == 0 || strcmp(argv[1], "pull") == 0))
        return cli_history_sync(argc - 1, argv + 1);
    /* Subcommands of the store itself. */
    if (argc > 1 && (strcmp(argv[1], "compact") == 0 || strcmp(argv[1], "prune") == 0))
        return cli_history_compact(argc - 1, argv + 1);
    memset(&env, 0, sizeof(env));
    cli_judge_init(&judge);
    culprit_opt_parser_init(&p, "history", options, argc, argv);
    while ((kind = culprit_opt_next(&p)) != CULPRIT_OPT_END) {
        if (kind < 0)
            return cli_usage_error("history");
        if (kind == CULPRIT_OPT_POSITIONAL) {
            culprit_error_set(CULPRIT_EINVALID, "history: unexpected argument '%s'", p.value);
            return cli_usage_error("history");
        }
    }
    if (help) {
        usage(stdout);
        return CLI_EXIT_OK;
    }

    if ((error = cli_env_open(&env, judge.project_file, judge.history_dir, 1)) < 0 ||
        (error = culprit_report_new(&report)) < 0 ||
        (error = cli_load_history_window(report, &runs, &env, rev, limit, &judge.check,
                                         culprit_detect_check_load_flags(&judge.check))) < 0)
        goto cleanup;
    /* Under --json the readable lines go to stderr, so a CI log still shows them. */
    print_text(judge.json ? stderr : stdout, report, limit, judge.check.detect.allow_dirty);
    if (judge.json)
        error = print_json(report, limit, judge.check.detect.allow_dirty);
cleanup:
    if (error < 0)
        cli_error(NULL);
    culprit_report_free(report);
    culprit_history_runs_dispose(&runs);
    cli_env_dispose(&env);
    return error < 0 ? CLI_EXIT_ERROR : CLI_EXIT_OK;
}
