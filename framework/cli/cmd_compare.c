/*
 * `culprit compare A B`: judges B against A, each a history or JUnit file written
 * by culprit, or a revision whose runs are in the history store. Two revisions are
 * a check of B with A as its only baseline commit (culprit_detect_check), so suites
 * and fingerprints are matched run by run; a file on either side is compared run
 * to run (culprit_detect_compare_runs), a revision on the other side standing for
 * the newest result of each of its tests.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The options of culprit compare (the judge's), its --help too. */
#define COMPARE_OPTIONS(judge, help)                                                               \
    {                                                                                              \
        CLI_JUDGE_OPTIONS(judge), CLI_OPT_HELP(help), CULPRIT_OPT_END_ROW                          \
    }

static void usage(FILE *out)
{
    cli_judge judge;
    int help;
    const culprit_opt options[] = COMPARE_OPTIONS(&judge, &help);

    cli_usage(out,
              "usage: culprit compare A B [--fail-on LEVEL] [--json] [--junit FILE] [--test NAME]\n"
              "                           [...]\n"
              "Judges B against A. Each is a history or JUnit file written by culprit, or a\n"
              "revision whose runs are in the history (the newest run of each test).\n"
              "\n",
              options, 24,
              "\nExit status: 0 clean, 1 a regression according to --fail-on, 2 usage or I/O\n"
              "error (neither a file nor a revision, no run at a revision, unreadable file).\n");
}

typedef struct {
    const char *arg;
    culprit_run *run; /* a file's run, or the merged run of a revision (owned) */
    int is_rev;
    char sha[41];
} side;

static int merge_runs(culprit_run **out, const culprit_history_runs *runs, const char *sha);

/* A file's run from the runs read of it: a history file's or a --junit report's one
 * run, or the newest result of each test in a report that `culprit junit` merged from
 * several runs (the CI artifact). */
static int take_runs(side *s, culprit_history_runs *runs)
{
    if (runs->nruns == 1) {
        s->run = runs->runs[0];
        runs->runs[0] = NULL;
        return 0;
    }
    return merge_runs(&s->run, runs, NULL);
}

static int open_file(side *s, const char *path)
{
    culprit_history_runs runs;
    int error;

    if ((error = culprit_history_read_report(&runs, path, CULPRIT_HISTORY_LOAD_NO_SERIES)) < 0)
        return error;
    error = take_runs(s, &runs);
    culprit_history_runs_dispose(&runs);
    return error;
}

static int is_file(const char *arg)
{
    struct stat st;

    return stat(arg, &st) == 0 && S_ISREG(st.st_mode);
}

static int open_side(side *s, const char *arg, cli_env *env)
{
    int error;

    s->arg = arg;
    if (is_file(arg))
        return open_file(s, arg);
    if (!env->repo)
        return culprit_error_set(CULPRIT_ENOTFOUND,
                                 "'%s' is not a file, and this is not a git repository", arg);
    if ((error = culprit_vcs_resolve(s->sha, env->repo, arg)) < 0) {
        char *why = culprit_strdup(culprit_error_last());
        error = culprit_error_set(error, "%s (and there is no file '%s')", why ? why : "", arg);
        free(why);
        return error;
    }
    s->is_rev = 1;
    return 0;
}

/* Both sides: two files are read at once (culprit_history_read_reports), anything
 * else side by side as before. */
static int open_sides(side sides[2], const char *const args[2], cli_env *env)
{
    culprit_history_runs runs[2];
    int error;

    if (!is_file(args[0]) || !is_file(args[1])) {
        if ((error = open_side(&sides[0], args[0], env)) < 0)
            return error;
        return open_side(&sides[1], args[1], env);
    }
    if ((error = culprit_history_read_reports(runs, args, 2, CULPRIT_HISTORY_LOAD_NO_SERIES)) < 0)
        return error;
    for (int i = 0; i < 2 && error == 0; i++) {
        sides[i].arg = args[i];
        error = take_runs(&sides[i], &runs[i]);
    }
    culprit_history_runs_dispose(&runs[0]);
    culprit_history_runs_dispose(&runs[1]);
    return error;
}

static int has_runs_at(const culprit_history_runs *runs, const char *sha)
{
    for (size_t i = 0; i < runs->nruns; i++)
        if (runs->runs[i]->commit && strcmp(runs->runs[i]->commit, sha) == 0)
            return 1;
    return 0;
}

/* The tests of a merged run by "<length of the class>:<class><name>" (owned keys). */
typedef struct {
    culprit_strmap index;
    char **keys;
    size_t n, alloc;
} merged_keys;

/* The test of `merged` with the name and class of `src` (from a run of `suite`), or a
 * new one. */
static int merged_test(culprit_test_result **out, culprit_run *merged, merged_keys *keys,
                       const culprit_test_result *src, const char *suite)
{
    const char *cls = src->classname ? src->classname : suite ? suite : "";
    culprit_buf key = CULPRIT_BUF_INIT;
    size_t k;
    int error;

    if ((error = culprit_buf_printf(&key, "%zu:%s%s", strlen(cls), cls, src->name)) < 0)
        return error;
    if (culprit_strmap_get(&keys->index, key.ptr, &k)) {
        culprit_buf_dispose(&key);
        *out = &merged->tests[k];
        return 0;
    }
    if ((error = culprit_array_grow(&keys->keys, &keys->alloc, keys->n, sizeof(*keys->keys), 64)) <
            0 ||
        (error = culprit_strmap_put(&keys->index, key.ptr, merged->ntests, NULL)) < 0) {
        culprit_buf_dispose(&key);
        return error;
    }
    keys->keys[keys->n++] = culprit_buf_detach(&key);
    return culprit_history_run_add_test(out, merged);
}

static void merged_keys_dispose(merged_keys *keys)
{
    culprit_strmap_dispose(&keys->index);
    for (size_t i = 0; i < keys->n; i++)
        free(keys->keys[i]);
    free(keys->keys);
}

/* The newest result of each test at `sha` (NULL: in all runs) as one run (runs are
 * sorted by time). */
static int merge_runs(culprit_run **out, const culprit_history_runs *runs, const char *sha)
{
    culprit_run *merged = NULL;
    const culprit_run *newest = NULL;
    merged_keys keys = {CULPRIT_STRMAP_INIT, NULL, 0, 0};
    int error;

    *out = NULL;
    if ((error = culprit_history_run_new(&merged)) < 0)
        return error;
    for (size_t r = 0; r < runs->nruns; r++) {
        const culprit_run *run = runs->runs[r];
        if (sha && (!run->commit || strcmp(run->commit, sha) != 0))
            continue;
        newest = run;
        for (size_t t = 0; t < run->ntests; t++) {
            culprit_test_result *dst = NULL;
            if ((error = merged_test(&dst, merged, &keys, &run->tests[t], run->suite)) < 0 ||
                (error = cli_copy_test(dst, &run->tests[t], run->suite)) < 0)
                goto cleanup;
        }
    }
    if (!newest) {
        error = culprit_error_set(CULPRIT_ENOTFOUND, "no run in the history at commit %.12s",
                                  sha ? sha : "");
        goto cleanup;
    }
    /* The fingerprints of the newest run stand for the commit. */
    if ((error = culprit_str_set(&merged->suite, newest->suite)) < 0 ||
        (error = culprit_str_set(&merged->commit, sha ? sha : newest->commit)) < 0 ||
        (error = culprit_str_set(&merged->machine, newest->machine)) < 0 ||
        (error = culprit_str_set(&merged->compiler, newest->compiler)) < 0 ||
        (error = culprit_str_set(&merged->flags, newest->flags)) < 0 ||
        (error = culprit_str_set(&merged->host, newest->host)) < 0)
        goto cleanup;
    *out = merged;
    merged = NULL;
cleanup:
    merged_keys_dispose(&keys);
    culprit_history_run_free(merged);
    return error;
}

static const char *label_of(const side *s)
{
    return s->is_rev ? s->sha : s->arg;
}

static const char *commit_of(const side *s)
{
    return s->is_rev ? s->sha : s->run ? s->run->commit : NULL;
}

static int print_json(const cli_judge *judge, const culprit_check_result *result, const side *a,
                      const side *b, int exit_code)
{
    json_t *doc = cli_json_document("compare");

    if (doc) {
        json_object_set_new(doc, "a", json_string(a->arg));
        json_object_set_new(doc, "b", json_string(b->arg));
        json_object_set_new(doc, "commit", cli_json_string(commit_of(b)));
        json_object_set_new(doc, "baseline", cli_json_string(commit_of(a)));
        cli_json_add_judged(doc, result, judge->fail_on, exit_code);
    }
    return cli_json_print(doc);
}

/*
 * The verdicts of B against A: two commits are judged as `culprit check` judges a
 * commit against one baseline (culprit_detect_check); otherwise the runs of each
 * side (a commit's merged, or a file's) are compared (culprit_detect_compare_runs).
 */
static int judge_sides(culprit_check_result *result, const culprit_history_runs *runs,
                       side sides[2], const cli_judge *judge, const cli_env *env)
{
    culprit_run *both[2];
    culprit_history_runs pair = {2, both, 0};
    int error;

    if (sides[0].is_rev && sides[1].is_rev) {
        const char *bases[1] = {sides[0].sha};
        if (!has_runs_at(runs, sides[0].sha))
            return culprit_error_set(CULPRIT_ENOTFOUND, "no run in the history at commit %.12s",
                                     sides[0].sha);
        if (judge->check.test && (error = culprit_history_require_test(
                                      runs, judge->check.test, env->settings.history_dir)) < 0)
            return error;
        return culprit_detect_check(result, runs, sides[1].sha, bases, 1, &judge->check);
    }
    for (int i = 0; i < 2; i++)
        if (sides[i].is_rev && (error = merge_runs(&sides[i].run, runs, sides[i].sha)) < 0)
            return error;
    both[0] = sides[0].run;
    both[1] = sides[1].run;
    if (judge->check.test &&
        (error = culprit_history_require_test(&pair, judge->check.test, "A or B")) < 0)
        return error;
    return culprit_detect_compare_runs(result, sides[0].run, sides[1].run, &judge->check);
}

static void print_text(FILE *out, const culprit_check_result *result, const side sides[2])
{
    culprit_buf line = CULPRIT_BUF_INIT;

    cli_print_verdicts(out, result, cli_color_for(out));
    culprit_buf_printf(&line, "culprit compare %.*s against %.*s: ", sides[1].is_rev ? 12 : -1,
                       label_of(&sides[1]), sides[0].is_rev ? 12 : -1, label_of(&sides[0]));
    cli_put_counts(&line, result);
    fprintf(out, "%s\n", culprit_buf_cstr(&line));
    culprit_buf_dispose(&line);
}

int cli_compare(int argc, char **argv)
{
    cli_judge judge;
    int help = 0;
    const culprit_opt options[] = COMPARE_OPTIONS(&judge, &help);
    culprit_opt_parser p;
    cli_env env;
    side sides[2];
    const char *positional[2] = {NULL, NULL};
    culprit_history_runs runs = {0, NULL, 0};
    culprit_check_result result = {0, NULL, NULL, NULL, 0, NULL, NULL};
    size_t npositional = 0;
    int kind, exit_code = CLI_EXIT_ERROR, error = 0;

    memset(&env, 0, sizeof(env));
    memset(sides, 0, sizeof(sides));
    cli_judge_init(&judge);
    culprit_opt_parser_init(&p, "compare", options, argc, argv);
    while ((kind = culprit_opt_next(&p)) != CULPRIT_OPT_END) {
        if (kind < 0)
            return cli_usage_error("compare");
        if (kind == CULPRIT_OPT_POSITIONAL) {
            if (npositional == 2) {
                culprit_error_set(CULPRIT_EINVALID, "compare: unexpected argument '%s'", p.value);
                return cli_usage_error("compare");
            }
            positional[npositional++] = p.value;
        }
    }
    if (help) {
        usage(stdout);
        return CLI_EXIT_OK;
    }
    if (npositional != 2) {
        culprit_error_set(CULPRIT_EINVALID, "compare: needs two arguments, A and B");
        return cli_usage_error("compare");
    }

    if ((error = cli_env_open(&env, judge.project_file, judge.history_dir, 0)) < 0 ||
        (error = open_sides(sides, positional, &env)) < 0)
        goto cleanup;
    cli_judge_project_fail_on(&judge, env.project);
    if ((sides[0].is_rev || sides[1].is_rev) && (error = cli_load_history(&runs, &env)) < 0)
        goto cleanup;
    if ((error = judge_sides(&result, &runs, sides, &judge, &env)) < 0)
        goto cleanup;
    exit_code = cli_judge_exit_code(&result, judge.fail_on);
    if (judge.junit && (error = cli_write_junit(judge.junit, &result, "culprit.compare",
                                                commit_of(&sides[1]), judge.fail_on)) < 0)
        goto cleanup;
    /* Under --json the readable lines go to stderr, so a CI log still shows them. */
    print_text(judge.json ? stderr : stdout, &result, sides);
    if (judge.json)
        error = print_json(&judge, &result, &sides[0], &sides[1], exit_code);
cleanup:
    if (error < 0) {
        cli_error(NULL);
        exit_code = CLI_EXIT_ERROR;
    }
    culprit_detect_check_result_dispose(&result);
    culprit_history_runs_dispose(&runs);
    culprit_history_run_free(sides[0].run);
    culprit_history_run_free(sides[1].run);
    cli_env_dispose(&env);
    return exit_code;
}
