/*
 * `culprit history`: each test's series along the first-parent history of a
 * commit, newest first, with the verdict of every point against the previous
 * commit with data. Each point is what `culprit check --commit C` says of it: the
 * same culprit_detect_check(), with the commits older than C as baselines.
 */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const cli_option options[] = {{"--commit", 1},      {"--limit", 1},     {"--test", 1},
                                     {"--json", 0},        {"--history", 1},   {"--project", 1},
                                     {"--allow-mixed", 0}, {"--threshold", 1}, {"--confidence", 1},
                                     {"--fdr", 1},         {"--help", 0},      {NULL, 0}};

static void usage(FILE *out)
{
    fputs("usage: culprit history [--test NAME] [--commit REV] [--limit N] [--json]\n"
          "Shows each test's measurements along the first-parent history of REV, newest\n"
          "first: commit, date, mean with its confidence interval, samples, and the\n"
          "verdict against the previous commit with data.\n"
          "\n"
          "  --commit REV          where the history starts (default HEAD)\n"
          "  --limit N             how many commits back (default 30)\n"
          "  --test NAME           only this test (SUITE.TEST or TEST)\n"
          "  --json                print a JSON document on stdout (docs/cli.md)\n"
          "  --history DIR, --project FILE, --allow-mixed, --threshold PERCENT,\n"
          "  --confidence C, --fdr Q   as for culprit check\n"
          "\nExit status: 0, or 2 on a usage or I/O error.\n",
          out);
}

/* One point of a series: the verdict at commit `commit` (an index into the chain). */
typedef struct {
    size_t commit;
    culprit_verdict_kind kind;
    double mean, low, high, change;
    size_t n;
} point;

typedef struct {
    char *test;
    size_t n, cap;
    point *points;
} series;

typedef struct {
    size_t n, cap;
    series *items;
} series_set;

static int add_point(series_set *set, const culprit_verdict *v, size_t commit)
{
    series *s = NULL;
    point *p;

    for (size_t i = 0; i < set->n && !s; i++)
        if (strcmp(set->items[i].test, v->test) == 0)
            s = &set->items[i];
    if (!s) {
        if (set->n == set->cap) {
            series *grown =
                realloc(set->items, (set->cap = set->cap ? 2 * set->cap : 16) * sizeof(*grown));
            if (!grown)
                return culprit_error_set(CULPRIT_ERROR, "out of memory");
            set->items = grown;
        }
        s = &set->items[set->n];
        memset(s, 0, sizeof(*s));
        if (!(s->test = culprit_strdup(v->test)))
            return CULPRIT_ERROR;
        set->n++;
    }
    if (s->n == s->cap) {
        point *grown = realloc(s->points, (s->cap = s->cap ? 2 * s->cap : 16) * sizeof(*grown));
        if (!grown)
            return culprit_error_set(CULPRIT_ERROR, "out of memory");
        s->points = grown;
    }
    p = &s->points[s->n++];
    p->commit = commit;
    p->kind = v->kind;
    p->mean = v->now_mean;
    p->low = v->now_low;
    p->high = v->now_high;
    p->n = v->now_n;
    p->change = v->change;
    return 0;
}

static int compare_series(const void *a, const void *b)
{
    return strcmp(((const series *)a)->test, ((const series *)b)->test);
}

static void series_set_dispose(series_set *set)
{
    for (size_t i = 0; i < set->n; i++) {
        free(set->items[i].test);
        free(set->items[i].points);
    }
    free(set->items);
    memset(set, 0, sizeof(*set));
}

/* Reads the commit facts of every commit that has a point, once each. */
static int read_commits(culprit_vcs_commit *info, const series_set *set, culprit_vcs *repo,
                        const char (*shas)[41])
{
    int error;

    for (size_t i = 0; i < set->n; i++)
        for (size_t k = 0; k < set->items[i].n; k++) {
            size_t c = set->items[i].points[k].commit;
            if (info[c].sha[0])
                continue;
            if ((error = culprit_vcs_commit_info(&info[c], repo, shas[c])) < 0)
                return error;
        }
    return 0;
}

static int print_json(const series_set *set, const culprit_vcs_commit *info, const char *sha,
                      size_t limit)
{
    json_t *doc = cli_json_document("history"), *tests = json_array();

    if (doc && tests) {
        json_object_set_new(doc, "commit", json_string(sha));
        json_object_set_new(doc, "limit", json_integer((json_int_t)limit));
        json_object_set_new(doc, "tests", tests);
        for (size_t i = 0; i < set->n; i++) {
            json_t *t = json_object(), *points = json_array();
            json_array_append_new(tests, t);
            json_object_set_new(t, "test", json_string(set->items[i].test));
            json_object_set_new(t, "points", points);
            for (size_t k = 0; k < set->items[i].n; k++) {
                const point *p = &set->items[i].points[k];
                json_t *j = json_object();
                json_array_append_new(points, j);
                json_object_set_new(j, "commit", json_string(info[p->commit].sha));
                json_object_set_new(j, "timestamp", json_string(info[p->commit].author_date));
                json_object_set_new(j, "subject", cli_json_string(info[p->commit].subject));
                json_object_set_new(j, "mean_ns", cli_json_number(p->mean));
                json_object_set_new(j, "ci_low_ns", cli_json_number(p->low));
                json_object_set_new(j, "ci_high_ns", cli_json_number(p->high));
                json_object_set_new(j, "n", json_integer((json_int_t)p->n));
                json_object_set_new(j, "verdict", json_string(culprit_verdict_name(p->kind)));
                json_object_set_new(j, "change", cli_json_number(p->change));
            }
        }
    } else {
        json_decref(tests);
    }
    return cli_json_print(doc);
}

static void print_text(const series_set *set, const culprit_vcs_commit *info, size_t limit,
                       const char *sha)
{
    int color = cli_use_color();
    culprit_buf line = CULPRIT_BUF_INIT;

    if (set->n == 0)
        printf("culprit history: no measurements in the %zu first-parent commits from %.12s\n",
               limit, sha);
    for (size_t i = 0; i < set->n; i++) {
        printf("%s%s\n", i ? "\n" : "", set->items[i].test);
        for (size_t k = 0; k < set->items[i].n; k++) {
            const point *p = &set->items[i].points[k];
            const culprit_vcs_commit *c = &info[p->commit];
            const char *col = color ? cli_verdict_color(p->kind) : "";
            culprit_buf_clear(&line);
            culprit_buf_printf(&line, "  %.12s  %.10s  ", c->sha, c->author_date);
            culprit_buf_put_duration(&line, p->mean);
            culprit_buf_puts(&line, " [");
            culprit_buf_put_duration(&line, p->low);
            culprit_buf_puts(&line, ", ");
            culprit_buf_put_duration(&line, p->high);
            culprit_buf_printf(&line, "]  n=%zu  %s%-11s%s", p->n, col, cli_verdict_tag(p->kind),
                               *col ? CLI_COLOR_RESET : "");
            if (isfinite(p->change))
                culprit_buf_printf(&line, " %+6.1f%%", 100 * p->change);
            else
                culprit_buf_puts(&line, "        ");
            culprit_buf_printf(&line, "  %s", c->subject ? c->subject : "");
            printf("%s\n", culprit_buf_cstr(&line));
        }
    }
    culprit_buf_dispose(&line);
}

int cli_history(int argc, char **argv)
{
    cli_judge judge;
    cli_args args;
    cli_env env;
    culprit_history_runs runs = {0, NULL, 0};
    series_set set = {0, 0, NULL};
    culprit_vcs_commit *info = NULL;
    const char *rev = "HEAD";
    const char **chain = NULL;
    char sha[41], (*shas)[41] = NULL;
    size_t nshas = 0, limit = 30, window;
    int kind, help = 0, error = 0;

    memset(&env, 0, sizeof(env));
    cli_judge_init(&judge);
    cli_args_init(&args, "history", argc, argv, options);
    while ((kind = cli_args_next(&args)) != CLI_ARG_END) {
        if (kind < 0 || (error = cli_judge_option(&judge, &args)) < 0)
            return cli_usage_error("history");
        if (kind == CLI_ARG_POSITIONAL) {
            culprit_error_set(CULPRIT_EINVALID, "history: unexpected argument '%s'", args.value);
            return cli_usage_error("history");
        }
        if (cli_is(&args, "--help"))
            help = 1;
        else if (cli_is(&args, "--commit"))
            rev = args.value;
        else if (cli_is(&args, "--limit") && cli_parse_size(&limit, "--limit", args.value, 1) < 0)
            return cli_usage_error("history");
    }
    if (help) {
        usage(stdout);
        return CLI_EXIT_OK;
    }

    if ((error = cli_env_open(&env, judge.project_file, judge.history_dir, 1)) < 0 ||
        (error = culprit_vcs_resolve(sha, env.repo, rev)) < 0 ||
        /* All of the chain: the oldest point shown still has its baseline. */
        (error = culprit_vcs_first_parents(&shas, &nshas, env.repo, sha, 0)) < 0 ||
        (error = cli_load_history(&runs, env.settings.history_dir)) < 0)
        goto cleanup;
    if (judge.check.test &&
        (error = cli_require_test(&runs, judge.check.test, env.settings.history_dir)) < 0)
        goto cleanup;
    if (!(chain = calloc(nshas, sizeof(*chain))) || !(info = calloc(nshas, sizeof(*info)))) {
        error = culprit_error_set(CULPRIT_ERROR, "out of memory");
        goto cleanup;
    }
    for (size_t i = 0; i < nshas; i++)
        chain[i] = shas[i];
    window = limit < nshas ? limit : nshas;
    for (size_t i = 0; i < window; i++) {
        culprit_check_result result;
        error = culprit_detect_check(&result, &runs, chain[i], chain + i + 1, nshas - i - 1,
                                     &judge.check);
        if (error == CULPRIT_ENOTFOUND) { /* no data at this commit */
            culprit_error_clear();
            error = 0;
            continue;
        }
        if (error < 0)
            goto cleanup;
        for (size_t k = 0; k < result.n && error == 0; k++)
            error = add_point(&set, &result.verdicts[k], i);
        culprit_check_result_dispose(&result);
        if (error < 0)
            goto cleanup;
    }
    if (set.n)
        qsort(set.items, set.n, sizeof(*set.items), compare_series);
    if ((error = read_commits(info, &set, env.repo, (const char(*)[41])shas)) < 0)
        goto cleanup;
    if (judge.json)
        error = print_json(&set, info, sha, limit);
    else
        print_text(&set, info, limit, sha);
cleanup:
    if (error < 0)
        cli_error(NULL);
    for (size_t i = 0; info && i < nshas; i++)
        culprit_vcs_commit_dispose(&info[i]);
    free(info);
    free(chain);
    free(shas);
    series_set_dispose(&set);
    culprit_history_runs_dispose(&runs);
    cli_env_dispose(&env);
    return error < 0 ? CLI_EXIT_ERROR : CLI_EXIT_OK;
}
