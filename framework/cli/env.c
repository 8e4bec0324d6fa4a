/*
 * Where a subcommand finds its inputs: the repository of the current directory,
 * the project file and history directory (resolved by culprit_runner_settings_resolve(),
 * exactly as the test binaries resolve them, so the tool reads where the tests
 * wrote), and the runs of the store. Plus the test-name check with its "did you
 * mean" and the copy of a result the JUnit and compare paths build runs from.
 */
#include "cli.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

int cli_env_open(cli_env *env, const char *project_file, const char *history_dir, int need_repo)
{
    int error;

    memset(env, 0, sizeof(*env));
    if ((error = culprit_vcs_open(&env->repo, ".")) < 0) {
        env->repo = NULL;
        if (need_repo)
            return error;
        culprit_error_clear();
    }
    error = culprit_runner_settings_resolve(&env->settings, &env->project,
                                            env->repo ? culprit_vcs_workdir(env->repo) : NULL,
                                            project_file, history_dir);
    if (error < 0) {
        culprit_vcs_free(env->repo);
        env->repo = NULL;
        return error;
    }
    /* The history every reader loads: the directory and the repository's shared ref. */
    if ((error = culprit_history_source_open(&env->history, env->settings.history_dir, env->repo,
                                             CULPRIT_HISTORY_FROM_BOTH)) < 0)
        cli_env_dispose(env);
    return error;
}

void cli_env_dispose(cli_env *env)
{
    if (!env)
        return;
    culprit_history_source_free(env->history);
    culprit_vcs_free(env->repo);
    culprit_runner_settings_dispose(&env->settings);
    culprit_detect_project_free(env->project);
    memset(env, 0, sizeof(*env));
}

/* Set once the first signal is being handled. */
static volatile sig_atomic_t ending;

static void on_signal(int sig)
{
    /* A second signal while the first waits for the children: no more grace. */
    if (ending) {
        culprit_process_interrupt();
        return;
    }
    ending = 1;
    /* Async-signal-safe: ends the build or run in progress (it is in a process group
     * of its own, out of the terminal's reach: SIGTERM, then SIGKILL after the grace
     * period), removes the temporary checkouts and the process's temporary directory,
     * then dies of the signal (status 128 + its number: 130, 143). */
    culprit_process_interrupt();
    culprit_vcs_checkout_remove_all();
    culprit_fs_temp_dir_remove_signal_safe();
    signal(sig, SIG_DFL);
    raise(sig);
}

void cli_clean_up_on_signals(void)
{
    /* SA_NODEFER: a second Ctrl-C reaches on_signal while the first one waits. */
    struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_NODEFER};
    int signals[] = {SIGINT, SIGTERM, SIGHUP};

    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof(signals) / sizeof(*signals); i++)
        sigaction(signals[i], &sa, NULL);
}

int cli_project_commands(culprit_bisect_options *o, char *owned[2])
{
    cli_env env;
    const char *build, *run;
    int error;

    owned[0] = owned[1] = NULL;
    if ((error = cli_env_open(&env, NULL, NULL, 0)) < 0)
        return error;
    build = culprit_detect_project_command(env.project, CULPRIT_PROJECT_BUILD);
    run = culprit_detect_project_command(env.project, CULPRIT_PROJECT_RUN);
    if (!o->measure.build && build && !(o->measure.build = owned[0] = culprit_strdup(build)))
        error = CULPRIT_ERROR_NOMEM();
    if (!o->perf.run && !o->command.line && run && !(o->perf.run = owned[1] = culprit_strdup(run)))
        error = CULPRIT_ERROR_NOMEM();
    cli_env_dispose(&env);
    return error;
}

int cli_load_history(culprit_history_runs *out, const cli_env *env)
{
    return cli_load_history_flags(out, env, 0);
}

int cli_load_history_flags(culprit_history_runs *out, const cli_env *env, unsigned int flags)
{
    culprit_history_query query = {.flags = flags};

    return culprit_history_source_load(out, env->history, &query, NULL, NULL);
}

/* Where culprit_report_add_history_read() reads from: the environment's history
 * source, with the command's CULPRIT_HISTORY_LOAD_* flags. */
typedef struct {
    const culprit_history_source *history;
    unsigned int flags;
} window_source;

static int load_commits(culprit_history_runs *out, const char *const *commits, size_t ncommits,
                        void *payload)
{
    const window_source *src = payload;
    culprit_history_query query = {.flags = src->flags};

    query.commits = commits;
    query.ncommits = ncommits;
    return culprit_history_source_load(out, src->history, &query, NULL, NULL);
}

int cli_load_history_window(culprit_report *report, culprit_history_runs *runs, const cli_env *env,
                            const char *rev, size_t limit, const culprit_check_options *opts,
                            unsigned int flags)
{
    window_source src = {env->history, flags};
    const char *dir = env->settings.history_dir;
    culprit_history_runs all = {0, NULL, 0};
    int error;

    if (culprit_vcs_is_shallow(env->repo)) {
        /* The note counts the runs the clone cannot place: it reads them all. */
        if ((error = cli_load_history_flags(runs, env, flags)) < 0 ||
            (opts->test && (error = culprit_history_require_test(runs, opts->test, dir)) < 0) ||
            (error = culprit_report_add_history_window(report, env->repo, runs, rev, limit, opts)) <
                0)
            return error;
        cli_note_shallow(env->repo, rev, runs);
        return 0;
    }
    if ((error = culprit_report_add_history_read(report, runs, env->repo, rev, limit, opts,
                                                 load_commits, &src)) < 0)
        return error;
    if (!opts->test || culprit_history_require_test(runs, opts->test, dir) == 0)
        return 0;
    /* Not in what the window read: the whole store says whether the test exists at
     * all, and which names are near. */
    culprit_error_clear();
    if ((error = cli_load_history_flags(&all, env, flags)) == 0)
        error = culprit_history_require_test(&all, opts->test, dir);
    culprit_history_runs_dispose(&all);
    return error;
}

char *cli_test_key(const culprit_run *run, const culprit_test_result *test)
{
    culprit_buf key = CULPRIT_BUF_INIT;

    if (culprit_buf_printf(&key, "%s.%s", run->suite ? run->suite : "",
                           test->name ? test->name : "") < 0)
        return NULL;
    return culprit_buf_detach(&key);
}

int cli_copy_test(culprit_test_result *dst, const culprit_test_result *src, const char *suite)
{
    int error;

    if ((error = culprit_history_test_result_copy_summary(dst, src)) < 0)
        return error;
    return src->classname ? 0 : culprit_str_set(&dst->classname, suite);
}

/* The runs of `runs` at a commit (40 hex digits, not "unknown") outside `chain`. */
static size_t runs_outside(const culprit_history_runs *runs, char (*chain)[41], size_t n)
{
    size_t outside = 0;

    for (size_t r = 0; r < runs->nruns; r++) {
        const char *commit = runs->runs[r]->commit;
        size_t i = 0;
        if (!commit || strlen(commit) != 40)
            continue;
        while (i < n && strcmp(chain[i], commit) != 0)
            i++;
        outside += i == n;
    }
    return outside;
}

void cli_note_shallow(culprit_vcs *repo, const char *rev, const culprit_history_runs *runs)
{
    char sha[41], (*chain)[41] = NULL;
    size_t n = 0, outside;
    int cut = 0;

    /* Only a shallow clone pays for a second walk; the command already judged what
     * the clone has, this only says what it could not see and how to see it. */
    if (!repo || !culprit_vcs_is_shallow(repo) || culprit_vcs_resolve(sha, repo, rev) < 0 ||
        culprit_vcs_first_parents_cut(&chain, &n, &cut, repo, sha, 0) < 0) {
        culprit_error_clear();
        return;
    }
    if (cut && (outside = runs_outside(runs, chain, n)) > 0)
        fprintf(stderr,
                "culprit: this clone is shallow: the first-parent history of %.12s stops after "
                "%zu commit%s, at %.12s, so %zu run%s at commits it does not have could not be "
                "used as baselines. Fetch the older commits with `git fetch --deepen=N` (N more "
                "commits, enough to reach the last measured one) or `git fetch --unshallow`, "
                "then run again.\n",
                sha, n, n == 1 ? "" : "s", chain[n - 1], outside, outside == 1 ? "" : "s");
    free(chain);
}
