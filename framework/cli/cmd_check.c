/*
 * `culprit check`: judges every test measured at a commit against its baseline
 * (the newest earlier data on the commit's first-parent history, a named commit,
 * or the pooled last K commits) and exits 1 on a regression according to
 * --fail-on. The check is culprit_detect_check_commit() (reading, metric selection,
 * judging, re-judging after a re-run); this file parses the options, resolves the
 * revisions, gives the re-run hook of --confirm (one trusted re-run against
 * history) or applies the paired runs of --confirm --build --run, optionally
 * investigates each regression down to the commit and the function
 * (--investigate, cmd_check_investigate.c) and prints.
 */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    cli_judge judge;
    const char *commit_rev;
    const char *baseline_rev;
    int confirm;
    double confirm_budget_s; /* --confirm-budget: per test, of the paired runs */
    int confirm_budget_given;
    const char *build_dir;       /* --build-dir: a trusted build tree beside the work tree */
    culprit_bisect_options pair; /* --confirm with --build and --run: the paired A/B */
    cli_investigate investigate;
} check_args;

/* The options of culprit check, their values going into `a`; its --help too. */
#define CHECK_OPTIONS(a, help)                                                                     \
    {                                                                                              \
        CULPRIT_OPT("--commit", 0, CULPRIT_OPT_STRING, &(a)->commit_rev, "REV",                    \
                    "the commit judged (default HEAD)"),                                           \
            CULPRIT_OPT("--baseline", 0, CULPRIT_OPT_STRING, &(a)->baseline_rev, "REV",            \
                        "compare with exactly this commit (default: the newest\n"                  \
                        "earlier data on the commit's first-parent history)"),                     \
            CULPRIT_OPT("--pool", 0, CULPRIT_OPT_SIZE, &(a)->judge.check.pool, "K",                \
                        "pool the runs of the last K earlier commits with data", .min = 1),        \
            CULPRIT_OPT("--metric", 0, CULPRIT_OPT_STRING, &(a)->judge.check.metric, "NAME",       \
                        "judge this series of each run (instructions, cpu_ns, ...)\n"              \
                        "instead of the metric it was measured for"),                              \
            CULPRIT_OPT("--confirm", 0, CULPRIT_OPT_FLAG, &(a)->confirm, NULL,                     \
                        "confirm each flagged test: with --build and --run, paired\n"              \
                        "runs of its baseline commit and this one, built in temporary\n"           \
                        "checkouts; without them, re-run it once against history"),                \
            CULPRIT_OPT("--confirm-budget", 0, CULPRIT_OPT_CALLBACK, &(a)->confirm_budget_s,       \
                        "TIME",                                                                    \
                        "paired runs of one test stop after this long (default\n"                  \
                        "60 s; 0 no limit) or --max-runs pairs, judged so far",                    \
                        .set = cli_set_budget, .given = &(a)->confirm_budget_given),               \
            CULPRIT_OPT("--build-dir", 0, CULPRIT_OPT_STRING, &(a)->build_dir, "DIR",              \
                        "with --confirm: a build tree outside the work tree whose\n"               \
                        "test binaries a re-run may use (also $CULPRIT_BUILD_DIR;\n"               \
                        "docs/security.md)"),                                                      \
            CULPRIT_OPT("--investigate", 0, CULPRIT_OPT_FLAG, &(a)->investigate.enabled, NULL,     \
                        "then find the commit and the function of each regression:\n"              \
                        "bisect its range (one commit: not needed), diff the call\n"               \
                        "trees of the culprit and its parent (docs/investigate.md)"),              \
            CULPRIT_OPT("--investigate-budget", 0, CULPRIT_OPT_CALLBACK,                           \
                        &(a)->investigate.budget_s, "TIME",                                        \
                        "wall time for all investigations: seconds, or 30m, 2h\n"                  \
                        "(default 30m; 0 no limit)",                                               \
                        .set = cli_set_budget),                                                    \
            CULPRIT_OPT("--results", 0, CULPRIT_OPT_STRING, &(a)->investigate.results_dir, "DIR",  \
                        "where --investigate writes bisect.json and calltree.json\n"               \
                        "(default .culprit/results, read by culprit report)"),                     \
            CULPRIT_OPT("--calltree-build", 0, CULPRIT_OPT_STRING,                                 \
                        &(a)->investigate.calltree_build, "CMD",                                   \
                        "with --investigate: builds a checkout for the call trees\n"               \
                        "(instrumented, e.g. CC=culprit-cc) while --build makes the\n"             \
                        "plain build; default: \"calltree_build\" of culprit.json"),               \
            CLI_OPT_BUILD(&(a)->pair),                                                             \
            CULPRIT_OPT("--run", 0, CULPRIT_OPT_STRING, &(a)->pair.perf.run, "CMD",                \
                        "with --confirm or --investigate: runs the test binary in a\n"             \
                        "checkout (as for culprit bisect: $CULPRIT_CHECKOUT,\n"                    \
                        "$CULPRIT_HISTORY_DIR); default: \"run\" of culprit.json"),                \
            CLI_OPT_RUNS(&(a)->pair), CLI_OPT_TIMEOUT(&(a)->pair),                                 \
            CLI_DETECTOR_OPTIONS(&(a)->judge.check), CLI_JUDGE_OPTIONS(&(a)->judge),               \
            CLI_OPT_HELP(help), CULPRIT_OPT_END_ROW                                                \
    }

static void usage(FILE *out)
{
    check_args a;
    int help;
    const culprit_opt options[] = CHECK_OPTIONS(&a, &help);

    cli_usage(out,
              "usage: culprit check [--commit REV] [--baseline REV | --pool K] [--fail-on LEVEL]\n"
              "                     [--json] [--junit FILE] [--test NAME]\n"
              "                     [--confirm [--confirm-budget TIME] [--build-dir DIR]]\n"
              "                     [--investigate [--investigate-budget TIME]\n"
              "                      [--calltree-build CMD]]\n"
              "                     [--build CMD] [--run CMD] [...]\n"
              "Judges every test measured at a commit against its baseline and reports major\n"
              "and minor regressions, improvements and undecided tests.\n"
              "\n",
              options, 24,
              "\nExit status: 0 clean, 1 a regression according to --fail-on, 2 usage or I/O\n"
              "error (unknown revision, no history at the commit, unreadable history).\n");
}

static int parse(check_args *a, int argc, char **argv, int *help)
{
    const culprit_opt options[] = CHECK_OPTIONS(a, help);
    culprit_opt_parser p;
    int kind;

    memset(a, 0, sizeof(*a));
    cli_judge_init(&a->judge);
    culprit_bisect_options_init(&a->pair, CULPRIT_BISECT_OPTIONS_VERSION);
    a->commit_rev = "HEAD";
    a->investigate.budget_s = 1800;
    a->confirm_budget_s = CULPRIT_CONFIRM_BUDGET_S;
    culprit_opt_parser_init(&p, "check", options, argc, argv);
    while ((kind = culprit_opt_next(&p)) != CULPRIT_OPT_END) {
        if (kind < 0)
            return kind;
        if (kind == CULPRIT_OPT_POSITIONAL)
            return culprit_error_set(CULPRIT_EINVALID, "check: unexpected argument '%s'", p.value);
    }
    if ((a->pair.measure.build || a->pair.perf.run) && !a->confirm && !a->investigate.enabled)
        return culprit_error_set(CULPRIT_EINVALID,
                                 "check: --build and --run go with --confirm or --investigate");
    if (a->confirm_budget_given && !a->confirm && !a->investigate.enabled)
        return culprit_error_set(CULPRIT_EINVALID,
                                 "check: --confirm-budget goes with --confirm or --investigate");
    if (a->build_dir && !a->confirm)
        return culprit_error_set(CULPRIT_EINVALID, "check: --build-dir goes with --confirm");
    if (a->investigate.results_dir && !a->investigate.enabled)
        return culprit_error_set(CULPRIT_EINVALID, "check: --results goes with --investigate");
    if (a->investigate.calltree_build && !a->investigate.enabled)
        return culprit_error_set(CULPRIT_EINVALID,
                                 "check: --calltree-build goes with --investigate");
    if (a->baseline_rev && a->judge.check.pool > 1)
        return culprit_error_set(CULPRIT_EINVALID,
                                 "check: --baseline names one commit; --pool cannot apply");
    return 0;
}

/* ---------------------------------------------------------------- --confirm --- */

/* --confirm without --build and --run: what each re-run needs (confirm_one). */
typedef struct {
    const char *dir; /* the history directory the re-run records into */
    const char *sha;
    const char *const *trees; /* the trusted build trees (docs/security.md) */
    size_t ntrees;
} rerun_context;

/*
 * culprit_detect_check_commit()'s re-run hook: re-runs flagged test i once, so that the
 * library judges again with the re-run as the newest run at the commit. The binary
 * a run recorded is only a hint: it is re-run only when it resolves to a test
 * binary of a trusted build tree that lists the test (culprit_runner_trusted_binary,
 * docs/security.md); other tests keep their verdict, and the message says why. For
 * the counter clusters the re-run also makes an A/A pair at the commit, which
 * calibrates their thresholds.
 */
static int confirm_one(void *payload, const culprit_check_result *result, size_t i)
{
    const rerun_context *c = payload;
    const culprit_verdict *v = &result->verdicts[i];
    const char *hint = result->now_runs[i]->binary;
    char *binary = NULL;
    int error;

    if (!hint) {
        fprintf(stderr,
                "culprit: cannot confirm %s: the run does not record its test binary; "
                "keeping the verdict\n",
                v->test);
        return 0;
    }
    if (culprit_runner_trusted_binary(&binary, hint, result->now[i]->name, c->trees, c->ntrees) <
        0) {
        fprintf(stderr,
                "culprit: cannot confirm %s: %s; not re-run: a re-run uses only a test binary "
                "of a trusted build tree (docs/security.md); keeping the verdict\n",
                v->test, culprit_error_last());
        return 0;
    }
    fprintf(stderr, "culprit: confirming %s: re-running it once\n", v->test);
    error = culprit_runner_rerun(binary, result->now[i]->name, c->dir, c->sha);
    free(binary);
    if (error < 0) {
        fprintf(stderr, "culprit: cannot confirm %s: %s; keeping the verdict\n", v->test,
                culprit_error_last());
        return 0;
    }
    return 1;
}

static void say_unconfirmed(void *payload, const culprit_verdict *v)
{
    (void)payload;
    fprintf(stderr, "culprit: %s: not confirmed by the re-run (%s now)\n", v->test,
            culprit_detect_verdict_name(v->kind));
}

/* A paired confirmation's progress and answer, on stderr; `payload` the options. */
static void say_confirm(const culprit_confirm_progress *p, void *payload)
{
    const culprit_confirm_options *o = payload;
    culprit_buf line = CULPRIT_BUF_INIT;

    culprit_buf_printf(&line, "culprit: %s %s: ",
                       p->event == CULPRIT_CONFIRM_FAILED ? "cannot confirm" : "confirming",
                       p->test);
    if (p->event == CULPRIT_CONFIRM_START) {
        culprit_buf_printf(&line,
                           "paired runs of %.12s and %.12s, this test alone, up to %zu "
                           "pairs",
                           p->good, p->bad, p->max_pairs);
        if (p->budget_s > 0)
            culprit_buf_printf(&line, " or %.0f s", p->budget_s);
    } else if (p->event == CULPRIT_CONFIRM_FAILED) {
        culprit_buf_printf(&line, "%s; keeping the verdict%s", p->error,
                           o->which == CULPRIT_CONFIRM_UNCONFIRMED ? " (not bisected)" : "");
    } else {
        if (p->event == CULPRIT_CONFIRM_PAIR)
            culprit_buf_printf(&line, "pair %zu of %zu, %.0f s: ", p->pairs, p->max_pairs,
                               p->elapsed_s);
        else
            culprit_buf_printf(&line, "%s after %zu pairs, %.0f s: ",
                               p->result->slower == 1   ? "slower"
                               : p->result->slower == 0 ? "not slower"
                                                        : "still unknown",
                               p->pairs, p->elapsed_s);
        if (isfinite(p->change_low))
            culprit_buf_printf(&line, "%+.1f%% (CI %+.1f%% to %+.1f%%)", 100 * p->change,
                               100 * p->change_low, 100 * p->change_high);
        else if (isfinite(p->change)) /* the sign test's bounds need more pairs */
            culprit_buf_printf(&line, "%+.1f%% (too few pairs for an interval)", 100 * p->change);
        else
            culprit_buf_puts(&line, "too few pairs to judge");
        if (p->event == CULPRIT_CONFIRM_PAIR)
            culprit_buf_puts(&line, p->cpu ? " on CPU floors" : "");
        else if (o->pair.perf.metric)
            culprit_buf_printf(&line, "; judged on %s (--metric)", o->pair.perf.metric);
        else if (p->result->cpu)
            culprit_buf_printf(&line,
                               "; judged on CPU time, each run's floor (fastest sample), by the "
                               "sign test: %zu of %zu runs were preempted",
                               p->result->preempted, 2 * p->result->runs);
        else
            culprit_buf_puts(&line, "; judged on time: no run was preempted");
        if (p->event == CULPRIT_CONFIRM_DONE && p->result->below)
            culprit_buf_printf(&line,
                               "; stopped early: below the threshold (one-sided 80%% upper bound "
                               "%+.1f%%)",
                               100 * p->result->below_high);
        else if (p->event == CULPRIT_CONFIRM_DONE && p->result->out_of_time) {
            culprit_buf_printf(&line, "; stopped by the time budget (--confirm-budget %.0f)",
                               p->budget_s);
            if (p->result->decide_pairs && p->result->decide_budget_s > 0)
                culprit_buf_printf(&line,
                                   ": the next look that could decide is at %zu pairs, about "
                                   "--confirm-budget %.0f at this pace",
                                   p->result->decide_pairs, p->result->decide_budget_s);
        }
        /* --investigate bisects only what the pairs confirmed. */
        if (p->event == CULPRIT_CONFIRM_DONE && o->which == CULPRIT_CONFIRM_UNCONFIRMED)
            culprit_buf_puts(&line, p->result->slower == 1 ? "; confirmed: investigating it"
                                                           : "; not confirmed: not bisected");
    }
    fprintf(stderr, "%s\n", culprit_buf_cstr(&line));
    culprit_buf_dispose(&line);
}

/*
 * Paired runs of the baseline commit and the commit judged for the verdicts `which`
 * selects (culprit_bisect_confirm_check(): --confirm --build --run, and the
 * unconfirmed minors of --investigate); the verdicts then rest on the pairs.
 */
static int confirm_paired(culprit_check_result *result, const culprit_history_runs *runs,
                          const char *sha, const char *const *bases, size_t nbases,
                          const check_args *a, culprit_confirm_which which)
{
    culprit_confirm_options o = CULPRIT_CONFIRM_OPTIONS_INIT;

    o.pair = a->pair;
    o.pair.perf.metric = a->judge.check.metric; /* the series the check judged */
    o.which = which;
    o.budget_s = a->confirm_budget_s;
    o.confidence = a->judge.check.detect.confidence;
    o.allow_mixed = a->judge.check.detect.allow_mixed;
    o.progress = say_confirm;
    o.payload = &o;
    cli_clean_up_on_signals();
    return culprit_bisect_confirm_check(result, runs, sha, bases, nbases, &o);
}

/* ------------------------------------------------------------ --investigate --- */

/* The investigations of a check (--investigate): NULL/0 without. */
typedef struct {
    culprit_investigation *items;
    size_t n;
} investigations;

/* Investigates the regressions of `result`, then writes the documents the report
 * reads into the results directory. */
static int investigate(investigations *iv, const check_args *a, const cli_env *env,
                       culprit_check_result *result, const culprit_history_runs *runs,
                       const char *sha, const char *const *bases, size_t nbases)
{
    const char *workdir = culprit_vcs_workdir(env->repo);
    char *results;
    int error;

    culprit_bisect_options pair = a->pair;

    pair.perf.metric = a->judge.check.metric; /* the series the check judged is bisected */
    /* An unconfirmed minor is confirmed by pairs first: only confirmed ones are
     * bisected (docs/investigate.md). */
    if ((error = confirm_paired(result, runs, sha, bases, nbases, a, CULPRIT_CONFIRM_UNCONFIRMED)) <
        0)
        return error;
    cli_clean_up_on_signals();
    if ((error = cli_investigate_run(&iv->items, &iv->n, &a->investigate, &pair, result, runs,
                                     bases, nbases)) < 0)
        return error;
    results = a->investigate.results_dir
                  ? culprit_strdup(a->investigate.results_dir)
                  : culprit_fs_join(workdir ? workdir : ".", ".culprit/results");
    if (!results)
        return CULPRIT_ERROR_NOMEM();
    error = cli_investigate_write_results(results, iv->items, iv->n);
    free(results);
    return error;
}

/* ------------------------------------------------------------------- output --- */

/* Each test's answer, "investigated: SHA "subject" — function()", for the JUnit
 * failure; `notes` has result->n entries (NULL: none). */
static char **junit_notes(const culprit_check_result *result, const investigations *iv)
{
    char **notes = calloc(result->n ? result->n : 1, sizeof(*notes));
    culprit_buf b = CULPRIT_BUF_INIT;

    for (size_t i = 0; notes && i < result->n; i++) {
        const culprit_investigation *one =
            culprit_bisect_investigation_of(iv->items, iv->n, result->verdicts[i].test);
        if (!one)
            continue;
        culprit_buf_clear(&b);
        culprit_buf_puts(&b, "investigated: ");
        cli_investigation_answer(&b, one);
        notes[i] = culprit_strdup(culprit_buf_cstr(&b));
    }
    culprit_buf_dispose(&b);
    return notes;
}

static int write_junit(const check_args *a, const culprit_check_result *result, const char *sha,
                       const investigations *iv)
{
    char **notes = iv->n ? junit_notes(result, iv) : NULL;
    int error;

    if (iv->n && !notes)
        return CULPRIT_ERROR_NOMEM();
    error = cli_write_junit_notes(a->judge.junit, result, "culprit.check", sha, a->judge.fail_on,
                                  (const char *const *)notes);
    for (size_t i = 0; notes && i < result->n; i++)
        free(notes[i]);
    free(notes);
    return error;
}

static int print_json(const check_args *a, const culprit_check_result *result, const char *sha,
                      const char *base_sha, int exit_code, const investigations *iv)
{
    json_t *doc = cli_json_document("check");

    if (doc) {
        json_object_set_new(doc, "commit", json_string(sha));
        json_object_set_new(doc, "baseline", json_string(base_sha ? base_sha : "first-parent"));
        json_object_set_new(doc, "pool", json_integer((json_int_t)a->judge.check.pool));
        cli_json_add_judged(doc, result, a->judge.fail_on, exit_code);
        if (a->investigate.enabled)
            json_object_set_new(
                doc, "investigations",
                cli_json_investigations(iv->items, iv->n, &a->investigate, &a->pair, &a->judge));
    }
    return cli_json_print(doc);
}

static void print_text(FILE *out, const check_args *a, const culprit_check_result *result,
                       const char *sha, const char *base_sha, const investigations *iv)
{
    culprit_buf line = CULPRIT_BUF_INIT;

    /* The answer first: test — commit — function. */
    cli_print_investigations(out, iv->items, iv->n, &a->investigate, &a->pair, &a->judge);
    cli_print_verdicts(out, result, cli_color_for(out));
    culprit_buf_printf(&line, "culprit check at %.12s against ", sha);
    if (base_sha)
        culprit_buf_printf(&line, "%.12s", base_sha);
    else if (a->judge.check.pool > 1)
        culprit_buf_printf(&line, "the last %zu commits with data", a->judge.check.pool);
    else
        culprit_buf_puts(&line, "the previous commit with data");
    culprit_buf_puts(&line, ": ");
    cli_put_counts(&line, result);
    fprintf(out, "%s\n", culprit_buf_cstr(&line));
    culprit_buf_dispose(&line);
}

int cli_check(int argc, char **argv)
{
    check_args a;
    cli_env env;
    culprit_history_runs runs = {0, NULL, 0};
    culprit_check_result result = {0, NULL, NULL, NULL, 0, NULL, NULL};
    char sha[41], base_sha[41], (*parents)[41] = NULL;
    const char **bases = NULL;
    investigations iv = {NULL, 0};
    size_t nparents = 0, nbases = 0;
    int help = 0, exit_code = CLI_EXIT_ERROR, error;
    culprit_check_commit_options o = {.version = CULPRIT_CHECK_COMMIT_OPTIONS_VERSION};
    /* The trusted build trees of a re-run (docs/security.md): the user's, never the
     * data's. */
    const char *trees[3] = {NULL, NULL, getenv("CULPRIT_BUILD_DIR")};
    rerun_context rerun = {NULL, NULL, trees, 3};

    memset(&env, 0, sizeof(env));
    if ((error = parse(&a, argc, argv, &help)) < 0)
        return cli_usage_error("check");
    if (help) {
        usage(stdout);
        return CLI_EXIT_OK;
    }
    if ((error = cli_env_open(&env, a.judge.project_file, a.judge.history_dir, 1)) < 0 ||
        (error = cli_investigate_prepare(&a.investigate, &a.pair, &env)) < 0 ||
        (error = culprit_vcs_resolve(sha, env.repo, a.commit_rev)) < 0)
        goto cleanup;
    cli_judge_project_fail_on(&a.judge, env.project);
    trees[0] = culprit_vcs_workdir(env.repo);
    trees[1] = a.build_dir;
    rerun.dir = env.settings.history_dir;
    rerun.sha = sha;
    if (a.confirm && a.pair.measure.build && !a.pair.perf.run) {
        error = culprit_error_set(CULPRIT_EINVALID,
                                  "check: --confirm --build needs --run (the command running "
                                  "the test binary), or \"run\" in culprit.json");
        goto cleanup;
    }
    if (a.baseline_rev) {
        if ((error = culprit_vcs_resolve(base_sha, env.repo, a.baseline_rev)) < 0)
            goto cleanup;
        if (!(bases = calloc(1, sizeof(*bases))))
            goto oom;
        bases[nbases++] = base_sha;
    } else {
        /* The first-parent ancestors, the commit itself left out. */
        /* Cut at a shallow clone's boundary: what the clone has is judged, and
         * cli_note_shallow() says what it lacks. */
        if ((error = culprit_vcs_first_parents_cut(&parents, &nparents, NULL, env.repo, sha, 0)) <
            0)
            goto cleanup;
        if (!(bases = calloc(nparents ? nparents : 1, sizeof(*bases))))
            goto oom;
        for (size_t i = 1; i < nparents; i++)
            bases[nbases++] = parents[i];
    }
    /* An explicit baseline, or a shallow clone (whose note counts the runs it cannot
     * place), reads the whole store; otherwise only what the check needs. */
    o.check = &a.judge.check;
    o.commit = sha;
    o.bases = bases;
    o.nbases = nbases;
    o.read_all = a.baseline_rev || culprit_vcs_is_shallow(env.repo);
    if (a.confirm && !a.pair.perf.run) {
        o.rerun = confirm_one;
        o.unconfirmed = say_unconfirmed;
        o.payload = &rerun;
    }
    error = culprit_detect_check_commit(&result, &runs, env.history, &o);
    if (o.read_all && !a.baseline_rev && runs.nruns)
        cli_note_shallow(env.repo, sha, &runs);
    if (error < 0)
        goto cleanup;
    if (a.confirm && a.pair.perf.run &&
        (error = confirm_paired(&result, &runs, sha, bases, nbases, &a, CULPRIT_CONFIRM_WANTED)) <
            0)
        goto cleanup;

    if (a.investigate.enabled &&
        (error = investigate(&iv, &a, &env, &result, &runs, sha, bases, nbases)) < 0)
        goto cleanup;

    exit_code = cli_judge_exit_code(&result, a.judge.fail_on);
    if (a.judge.junit && (error = write_junit(&a, &result, sha, &iv)) < 0)
        goto cleanup;
    /* Under --json the readable lines go to stderr, so a CI log still shows them. */
    print_text(a.judge.json ? stderr : stdout, &a, &result, sha, a.baseline_rev ? base_sha : NULL,
               &iv);
    if (a.judge.json)
        error = print_json(&a, &result, sha, a.baseline_rev ? base_sha : NULL, exit_code, &iv);
    goto cleanup;
oom:
    error = CULPRIT_ERROR_NOMEM();
cleanup:
    if (error < 0) {
        cli_error(NULL);
        exit_code = CLI_EXIT_ERROR;
    }
    culprit_bisect_investigations_free(iv.items, iv.n);
    culprit_detect_check_result_dispose(&result);
    culprit_history_runs_dispose(&runs);
    free(bases);
    free(parents);
    cli_env_dispose(&env);
    return exit_code;
}
