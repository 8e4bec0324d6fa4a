/*
 * Where a subcommand finds its inputs: the repository of the current directory,
 * the project file and history directory (resolved by culprit_settings_resolve(),
 * exactly as the test binaries resolve them, so the tool reads where the tests
 * wrote), and the runs of the store. Plus the test-name check with its "did you
 * mean" and the copy of a result the JUnit and compare paths build runs from.
 */
#include "cli.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The repository of the environment opened last: the readers below read its shared
 * history (CULPRIT_VCS_HISTORY_REF) beside the directory. One command, one env. */
static culprit_vcs *shared_repo;

int cli_env_open(cli_env *env, const char *project_file, const char *history_dir, int need_repo)
{
    int error;

    memset(env, 0, sizeof(*env));
    shared_repo = NULL;
    if ((error = culprit_vcs_open(&env->repo, ".")) < 0) {
        env->repo = NULL;
        if (need_repo)
            return error;
        culprit_error_clear();
    }
    error = culprit_settings_resolve(&env->settings, &env->project,
                                     env->repo ? culprit_vcs_workdir(env->repo) : NULL,
                                     project_file, history_dir);
    if (error < 0) {
        culprit_vcs_free(env->repo);
        env->repo = NULL;
    }
    shared_repo = env->repo;
    return error;
}

void cli_env_dispose(cli_env *env)
{
    if (!env)
        return;
    if (shared_repo == env->repo)
        shared_repo = NULL;
    culprit_vcs_free(env->repo);
    culprit_settings_dispose(&env->settings);
    culprit_project_free(env->project);
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
    build = culprit_project_command(env.project, CULPRIT_PROJECT_BUILD);
    run = culprit_project_command(env.project, CULPRIT_PROJECT_RUN);
    if (!o->build && build && !(o->build = owned[0] = culprit_strdup(build)))
        error = culprit_error_set(CULPRIT_ERROR, "out of memory");
    if (!o->run && !o->command && run && !(o->run = owned[1] = culprit_strdup(run)))
        error = culprit_error_set(CULPRIT_ERROR, "out of memory");
    cli_env_dispose(&env);
    return error;
}

static void warn_skipped(const char *path, const char *message, void *payload)
{
    (void)payload;
    fprintf(stderr, "culprit: warning: skipping %s: %s\n", path, message);
}

int cli_load_history(culprit_history_runs *out, const char *dir)
{
    return cli_load_history_flags(out, dir, 0);
}

static int compare_commits(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Adds the runs of the shared history that the directory `dir` does not hold (a
 * pushed run is in both, under the same file name). A file above the size limit
 * (cli_shared_file_max) is skipped with a warning naming it, unread. */
static int load_shared(culprit_history_runs *out, culprit_vcs *repo, const char *dir,
                       const culprit_history_query *query)
{
    culprit_vcs_ref_files files = {NULL, 0};
    culprit_buf data = CULPRIT_BUF_INIT, name = CULPRIT_BUF_INIT;
    size_t max = 0;
    int error;

    if ((error = cli_shared_file_max(&max)) < 0 ||
        (error = culprit_vcs_ref_list(&files, repo, CULPRIT_VCS_HISTORY_REF, "runs")) < 0)
        return error;
    for (size_t i = 0; i < files.n && error == 0; i++) {
        const char *base = cli_shared_run_name(files.entries[i].path);
        char *local;
        struct stat st;
        int here;

        if (!base || !culprit_history_query_wants_name(query, base))
            continue;
        if (!(local = culprit_fs_join(dir, base))) {
            error = CULPRIT_ERROR;
            break;
        }
        here = stat(local, &st) == 0;
        free(local);
        if (here)
            continue;
        culprit_buf_clear(&data);
        culprit_buf_clear(&name);
        if ((error = culprit_buf_printf(&name, "%s:%s", CULPRIT_VCS_HISTORY_REF,
                                        files.entries[i].path)) < 0)
            break;
        if ((error = culprit_vcs_blob_read(&data, repo, files.entries[i].oid, max)) ==
            CULPRIT_EINVALID) {
            fprintf(stderr, "culprit: warning: skipping %s: %s (CULPRIT_SHARED_FILE_MAX)\n",
                    culprit_buf_cstr(&name), culprit_error_last());
            out->nskipped++;
            error = 0;
            continue;
        }
        if (error < 0)
            break;
        error = culprit_history_runs_add_memory(out, data.ptr ? data.ptr : "", data.size,
                                                culprit_buf_cstr(&name), query, warn_skipped, NULL);
    }
    culprit_buf_dispose(&data);
    culprit_buf_dispose(&name);
    culprit_vcs_ref_files_dispose(&files);
    return error < 0 ? error : culprit_history_runs_finish(out);
}

int cli_load_history_flags(culprit_history_runs *out, const char *dir, unsigned int flags)
{
    culprit_history_query query = {.flags = flags};

    return cli_load_history_query(out, dir, &query);
}

int cli_load_history_query(culprit_history_runs *out, const char *dir,
                           const culprit_history_query *query)
{
    culprit_history *history = NULL;
    char shared[41];
    struct stat st;
    int error, have_dir, have_shared;

    memset(out, 0, sizeof(*out));
    have_dir = stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
    have_shared =
        shared_repo && culprit_vcs_ref_resolve(shared, shared_repo, CULPRIT_VCS_HISTORY_REF) == 0;
    culprit_error_clear();
    if (!have_dir && !have_shared)
        return culprit_error_set(CULPRIT_ENOTFOUND,
                                 "no history directory at '%s' and no shared history (run the "
                                 "tests first, name one with --history, or `culprit history "
                                 "pull`)",
                                 dir);
    if (have_dir) {
        if ((error = culprit_history_open(&history, dir, 0)) < 0)
            return error;
        error = culprit_history_load(out, history, query, warn_skipped, NULL);
        culprit_history_free(history);
        if (error < 0)
            return error;
    }
    if (have_shared) {
        /* The ref's files are filtered by a binary search in the wanted commits. */
        culprit_history_query sorted = *query;
        const char **commits = NULL;
        if (query->ncommits) {
            if (!(commits = malloc(query->ncommits * sizeof(*commits))))
                return culprit_error_set(CULPRIT_ERROR, "out of memory");
            memcpy(commits, query->commits, query->ncommits * sizeof(*commits));
            qsort(commits, query->ncommits, sizeof(*commits), compare_commits);
            sorted.commits = commits;
        }
        if ((error = load_shared(out, shared_repo, dir, &sorted)) < 0)
            culprit_history_runs_dispose(out);
        free(commits);
    }
    return have_shared ? error : 0;
}

/* Where culprit_report_add_history_read() reads from: the store of the command. */
typedef struct {
    const char *dir;
    unsigned int flags;
} window_source;

static int load_commits(culprit_history_runs *out, const char *const *commits, size_t ncommits,
                        void *payload)
{
    const window_source *src = payload;
    culprit_history_query query = {.flags = src->flags};

    query.commits = commits;
    query.ncommits = ncommits;
    return cli_load_history_query(out, src->dir, &query);
}

int cli_load_history_window(culprit_report *report, culprit_history_runs *runs, const cli_env *env,
                            const char *rev, size_t limit, const culprit_check_options *opts,
                            unsigned int flags)
{
    window_source src = {env->settings.history_dir, flags};
    culprit_history_runs all = {0, NULL, 0};
    int error;

    if (culprit_vcs_is_shallow(env->repo)) {
        /* The note counts the runs the clone cannot place: it reads them all. */
        if ((error = cli_load_history_flags(runs, src.dir, flags)) < 0 ||
            (opts->test && (error = cli_require_test(runs, opts->test, src.dir)) < 0) ||
            (error = culprit_report_add_history_window(report, env->repo, runs, rev, limit, opts)) <
                0)
            return error;
        cli_note_shallow(env->repo, rev, runs);
        return 0;
    }
    if ((error = culprit_report_add_history_read(report, runs, env->repo, rev, limit, opts,
                                                 load_commits, &src)) < 0)
        return error;
    if (!opts->test || cli_require_test(runs, opts->test, src.dir) == 0)
        return 0;
    /* Not in what the window read: the whole store says whether the test exists at
     * all, and which names are near. */
    culprit_error_clear();
    if ((error = cli_load_history_flags(&all, src.dir, flags)) == 0)
        error = cli_require_test(&all, opts->test, src.dir);
    culprit_history_runs_dispose(&all);
    return error;
}

int cli_load_judged(culprit_history_runs *out, const char *dir, const culprit_check_options *opts,
                    const char *const *commits, size_t ncommits)
{
    culprit_history_query query = {.flags = cli_history_flags(opts)};
    int error;

    query.commits = commits;
    query.ncommits = ncommits;
    if ((error = cli_load_history_query(out, dir, &query)) < 0)
        return error;
    for (size_t i = 0; opts->metric && i < out->nruns; i++)
        if ((error = culprit_detect_select_metric(out->runs[i], opts->metric,
                                                  opts->detect.confidence)) < 0) {
            culprit_history_runs_dispose(out);
            return error;
        }
    return 0;
}

char *cli_test_key(const culprit_run *run, const culprit_test_result *test)
{
    culprit_buf key = CULPRIT_BUF_INIT;

    if (culprit_buf_printf(&key, "%s.%s", run->suite ? run->suite : "",
                           test->name ? test->name : "") < 0)
        return NULL;
    return culprit_buf_detach(&key);
}

/* Adds `s` to the set `names` (an array of owned strings, indexed by `seen`) unless
 * already there. */
static int add_name(char ***names, size_t *n, size_t *cap, culprit_strmap *seen, const char *s)
{
    if (culprit_strmap_get(seen, s, NULL))
        return 0;
    if (culprit_array_grow(names, cap, *n, sizeof(**names), 32) < 0)
        return CULPRIT_ERROR;
    if (!((*names)[*n] = culprit_strdup(s)))
        return CULPRIT_ERROR;
    if (culprit_strmap_put(seen, (*names)[*n], *n, NULL) < 0) {
        free((*names)[*n]);
        return CULPRIT_ERROR;
    }
    (*n)++;
    return 0;
}

int cli_require_test(const culprit_history_runs *runs, const char *name, const char *where)
{
    char **names = NULL;
    const char **near = NULL;
    culprit_strmap seen = CULPRIT_STRMAP_INIT;
    size_t n = 0, cap = 0, nnear = 0;
    culprit_buf msg = CULPRIT_BUF_INIT;
    int error = 0;

    for (size_t r = 0; r < runs->nruns; r++) {
        const culprit_run *run = runs->runs[r];
        for (size_t t = 0; t < run->ntests; t++) {
            char *key = cli_test_key(run, &run->tests[t]);
            if (!key) {
                error = CULPRIT_ERROR;
                goto cleanup;
            }
            if (strcmp(key, name) == 0 || strcmp(run->tests[t].name, name) == 0) {
                free(key);
                goto cleanup; /* found */
            }
            error = add_name(&names, &n, &cap, &seen, key);
            free(key);
            if (error < 0 || (error = add_name(&names, &n, &cap, &seen, run->tests[t].name)) < 0)
                goto cleanup;
        }
    }
    if ((error = culprit_suggest(&near, &nnear, name, (const char *const *)names, n, 5)) < 0)
        goto cleanup;
    culprit_buf_printf(&msg, "no test '%s' in %s", name, where);
    culprit_suggest_format(&msg, near, nnear);
    error = culprit_error_set(CULPRIT_ENOTFOUND, "%s", culprit_buf_cstr(&msg));
cleanup:
    culprit_strmap_dispose(&seen);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    free(near);
    culprit_buf_dispose(&msg);
    return error;
}

int cli_copy_test(culprit_test_result *dst, const culprit_test_result *src, const char *suite)
{
    int error;

    if ((error = culprit_test_result_copy_summary(dst, src)) < 0)
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
