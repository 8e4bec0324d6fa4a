/*
 * End-to-end tests of the runner: sample_tests.c is run as ctest and CI run a test
 * binary, and its exit code, output, JSON, JUnit file and history are checked.
 * Timing is never asserted; only counts, statuses and files.
 */
#include "support/test.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "culprit/core.h"
#include "culprit/history.h"
#include "support/tmpdir.h"

#define SCHEMA CULPRIT_SOURCE_DIR "/docs/schemas/junit-10.xsd"

typedef struct {
    char dir[64];
    culprit_buf out, err;
} workspace;

static int setup(void **state)
{
    workspace *w = calloc(1, sizeof(*w));
    if (test_tmpdir_make(w->dir, sizeof(w->dir), "runner") < 0)
        return -1;
    *state = w;
    return 0;
}

static int teardown(void **state)
{
    workspace *w = *state;
    if (test_tmpdir_remove(w->dir) != 0)
        return -1;
    culprit_buf_dispose(&w->out);
    culprit_buf_dispose(&w->err);
    free(w);
    return 0;
}

/* Runs `env SAMPLE_BIN args` in `cwd` (NULL: the workspace); returns its exit code. */
static int run_sample(workspace *w, const char *cwd, const char *env, const char *args)
{
    culprit_buf cmd = CULPRIT_BUF_INIT;
    char out_path[128], err_path[128];
    int status;

    snprintf(out_path, sizeof(out_path), "%s/.out", w->dir);
    snprintf(err_path, sizeof(err_path), "%s/.err", w->dir);
    /* A clean culprit environment: the sanitizer suite sets CULPRIT_FAIL_ON=none for
     * itself, and a developer's shell may carry CULPRIT_* settings. */
    culprit_buf_printf(&cmd,
                       "cd '%s' && env -u CULPRIT_FAIL_ON -u CULPRIT_COMMIT -u CULPRIT_BRANCH "
                       "-u CULPRIT_HISTORY_DIR %s '%s' %s >'%s' 2>'%s'",
                       cwd ? cwd : w->dir, env ? env : "", SAMPLE_BIN, args, out_path, err_path);
    status = system(cmd.ptr);
    culprit_buf_dispose(&cmd);
    culprit_buf_clear(&w->out);
    culprit_buf_clear(&w->err);
    culprit_fs_read_file(&w->out, out_path);
    culprit_fs_read_file(&w->err, err_path);
    unlink(out_path);
    unlink(err_path);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int count_files(const char *dir, const char *suffix)
{
    char cmd[256];
    FILE *p;
    int n = -1;

    snprintf(cmd, sizeof(cmd), "ls '%s' 2>/dev/null | grep -c '%s$'", dir, suffix);
    if ((p = popen(cmd, "r"))) {
        if (fscanf(p, "%d", &n) != 1)
            n = -1;
        pclose(p);
    }
    return n;
}

static char *first_file(const char *dir, const char *suffix)
{
    char cmd[256], line[512];
    FILE *p;

    snprintf(cmd, sizeof(cmd), "ls '%s'/*%s 2>/dev/null | head -1", dir, suffix);
    if (!(p = popen(cmd, "r")))
        return NULL;
    if (!fgets(line, sizeof(line), p))
        line[0] = '\0';
    pclose(p);
    line[strcspn(line, "\n")] = '\0';
    return line[0] ? strdup(line) : NULL;
}

static int schema_valid(const char *file)
{
    char cmd[512];
    if (access(SCHEMA, R_OK) != 0) {
        print_message("schema %s missing: validation skipped\n", SCHEMA);
        return 1;
    }
    snprintf(cmd, sizeof(cmd), "xmllint --noout --schema '%s' '%s' 2>/dev/null", SCHEMA, file);
    return system(cmd) == 0;
}

static json_t *test_in(json_t *doc, const char *name)
{
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(doc, "tests"), i, t)
    {
        if (strcmp(json_string_value(json_object_get(t, "name")), name) == 0)
            return t;
    }
    return NULL;
}

static void list_prints_names_in_declaration_order(void **state)
{
    workspace *w = *state;
    assert_int_equal(run_sample(w, NULL, NULL, "--list"), 0);
    assert_string_equal(w->out.ptr,
                        "busy_fast\nbusy_declared_slow\nfails_third_time\ncrashes\n"
                        "hangs\nsorts_fresh_input\ncpu_busy\nload_spin\nleaves_a_child\n");
    assert_int_equal(run_sample(w, NULL, NULL, "--list --filter 'busy_*'"), 0);
    assert_string_equal(w->out.ptr, "busy_fast\nbusy_declared_slow\n");
}

static void load_test_records_intervals_and_exact_call_statistics(void **state)
{
    workspace *w = *state;
    char hist[128], args[512];
    culprit_run *run = NULL;
    char *file;
    const culprit_test_result *t;

    snprintf(hist, sizeof(hist), "%s/load-history", w->dir);
    snprintf(args, sizeof(args), "--filter load_spin --history '%s'", hist);
    assert_int_equal(run_sample(w, NULL, NULL, args), 0);
    assert_non_null(strstr(w->out.ptr, "duration)"));
    assert_non_null(file = first_file(hist, ".xml"));
    assert_int_equal(culprit_history_read_file(&run, file, CULPRIT_HISTORY_LOAD_SAMPLES), 0);
    free(file);
    t = culprit_history_run_find_test(run, "load_spin");
    assert_non_null(t);
    assert_string_equal(t->stop, "duration");
    assert_int_equal(t->batch, 1);
    /* 0.3 s in 10 ms intervals: at most 30 (an interval ends after the call that
     * crosses 10 ms, so a slow machine makes fewer: at a load of 40 on 2 cores a
     * preempted call crossed the boundary tens of ms late and a run made 2 to 10),
     * at most half cut as warm-up. */
    assert_true(t->load_interval_s == 0.01);
    size_t intervals = t->summary.n + t->load_warmup_intervals;
    assert_true(intervals >= 2 && intervals <= 30);
    assert_true(t->load_warmup_intervals <= intervals / 2);
    /* Every kept call is counted once, and the per-call mean lies between the
     * fastest and the slowest call. */
    assert_true(t->load_calls >= t->summary.n);
    assert_true(t->load_call_min <= t->load_call_mean && t->load_call_mean <= t->load_call_max);
    assert_true(t->load_call_sd >= 0);
    /* The counters are per-interval series of the same length. */
    assert_int_equal(culprit_history_test_result_series(t, "write_bytes")->n, t->summary.n);
    culprit_history_run_free(run);

    /* --duration shortens it. */
    snprintf(args, sizeof(args), "--filter load_spin --duration 0.1 --no-history --json");
    assert_int_equal(run_sample(w, NULL, NULL, args), 0);
    assert_non_null(strstr(w->err.ptr, "duration)"));
}

static void usage_errors_exit_2_naming_the_input(void **state)
{
    workspace *w = *state;
    assert_int_equal(run_sample(w, NULL, NULL, "--bogus"), 2);
    assert_non_null(strstr(w->err.ptr, "--bogus"));
    assert_int_equal(run_sample(w, NULL, NULL, "--repetitions many"), 2);
    assert_non_null(strstr(w->err.ptr, "'many'"));
    assert_int_equal(run_sample(w, NULL, NULL, "--filter nothing_like_this --no-history"), 2);
    assert_non_null(strstr(w->err.ptr, "nothing_like_this"));
    assert_int_equal(run_sample(w, NULL, NULL, "--help"), 0);
    assert_non_null(strstr(w->out.ptr, "--filter GLOB"));
}

static void passing_run_writes_valid_history_junit_and_json(void **state)
{
    workspace *w = *state;
    char hist[128], junit[128], args[512];
    culprit_run *run = NULL;
    json_error_t jerr;
    json_t *doc, *t;
    char *file;

    snprintf(hist, sizeof(hist), "%s/hist", w->dir);
    snprintf(junit, sizeof(junit), "%s/junit.xml", w->dir);
    snprintf(args, sizeof(args), "--filter 'busy_*' --history '%s' --junit '%s' --json", hist,
             junit);
    assert_int_equal(run_sample(w, NULL, NULL, args), 0);
    doc = json_loads(w->out.ptr, 0, &jerr);
    assert_non_null(doc);
    assert_string_equal(json_string_value(json_object_get(doc, "suite")), "sample");
    t = test_in(doc, "busy_fast");
    assert_non_null(t);
    assert_string_equal(json_string_value(json_object_get(t, "status")), "pass");
    assert_int_equal(json_integer_value(json_object_get(t, "n")), 30);
    assert_string_equal(json_string_value(json_object_get(t, "category_source")), "auto");
    assert_true(json_real_value(json_object_get(t, "mean_ns")) > 0);
    /* CPU time beside wall time; preempted samples counted (30 kept whatever their count:
     * a fixed count replaces them, or keeps its first 30 and says so). */
    assert_true(json_real_value(json_object_get(t, "cpu_mean_ns")) > 0);
    assert_true(json_is_integer(json_object_get(t, "preempted")));
    assert_true(json_is_boolean(json_object_get(t, "preempted_kept")));
    t = test_in(doc, "busy_declared_slow");
    assert_string_equal(json_string_value(json_object_get(t, "category")), "slow");
    assert_string_equal(json_string_value(json_object_get(t, "category_source")), "explicit");
    json_decref(doc);

    /* One history file, schema-valid, readable with every raw sample. */
    assert_int_equal(count_files(hist, ".xml"), 1);
    file = first_file(hist, ".xml");
    assert_non_null(file);
    assert_true(schema_valid(file));
    assert_true(schema_valid(junit));
    assert_int_equal(culprit_history_read_file(&run, file, CULPRIT_HISTORY_LOAD_SAMPLES), 0);
    assert_int_equal(run->ntests, 2);
    const culprit_test_result *r = culprit_history_run_find_test(run, "busy_fast");
    assert_non_null(r);
    const culprit_series *wall = culprit_history_test_result_series(r, "wall_ns");
    assert_non_null(wall);
    assert_int_equal(wall->n, 30);
    assert_non_null(culprit_history_test_result_series(r, "minflt"));
    culprit_history_run_free(run);
    free(file);

    /* The automatic category was persisted; the next run is judged against it. */
    snprintf(args, sizeof(args), "%s/categories.json", hist);
    assert_int_equal(access(args, R_OK), 0);
    snprintf(args, sizeof(args), "--filter busy_fast --history '%s' --json", hist);
    assert_int_equal(run_sample(w, NULL, NULL, args), 0);
    doc = json_loads(w->out.ptr, 0, &jerr);
    t = test_in(doc, "busy_fast");
    assert_string_equal(json_string_value(json_object_get(t, "category_source")), "assigned");
    json_decref(doc);
    assert_int_equal(count_files(hist, ".xml"), 2); /* a new file; the first one untouched */
}

/* $CULPRIT_MAX_REPETITIONS (what a paired confirmation sets) caps every test's
 * samples: busy_fast declares 30, and takes 7. */
static void max_repetitions_from_the_environment_caps_the_samples(void **state)
{
    workspace *w = *state;
    json_error_t jerr;
    json_t *doc;

    assert_int_equal(
        run_sample(w, NULL, "CULPRIT_MAX_REPETITIONS=7", "--filter busy_fast --no-history --json"),
        0);
    doc = json_loads(w->out.ptr, 0, &jerr);
    assert_non_null(doc);
    assert_int_equal(json_integer_value(json_object_get(test_in(doc, "busy_fast"), "n")), 7);
    json_decref(doc);
    assert_int_equal(
        run_sample(w, NULL, "CULPRIT_MAX_REPETITIONS=0", "--filter busy_fast --no-history"), 2);
    assert_non_null(strstr(w->err.ptr, "CULPRIT_MAX_REPETITIONS"));
}

/* CULPRIT_NO_FORK=1 (what a paired confirmation sets for its runs of one test) runs the
 * test in the runner's process, as --no-fork: a crash is no longer a child killed by a
 * signal (CMocka turns it into a failure), and "0" keeps the fork. */
static void no_fork_from_the_environment(void **state)
{
    workspace *w = *state;

    assert_int_equal(run_sample(w, NULL, NULL, "--filter crashes --no-history"), 1);
    assert_non_null(strstr(w->out.ptr, "killed by signal"));
    assert_int_equal(run_sample(w, NULL, "CULPRIT_NO_FORK=0", "--filter crashes --no-history"), 1);
    assert_non_null(strstr(w->out.ptr, "killed by signal"));
    assert_int_equal(run_sample(w, NULL, "CULPRIT_NO_FORK=1", "--filter crashes --no-history"), 1);
    assert_null(strstr(w->out.ptr, "killed by signal"));
    assert_non_null(strstr(w->out.ptr, "crashes"));
}

static void failure_crash_and_hang_are_reported_and_others_kept(void **state)
{
    workspace *w = *state;
    char hist[128], args[512];
    culprit_history *h = NULL;
    culprit_history_runs runs = {0};
    json_error_t jerr;
    json_t *doc, *t;

    snprintf(hist, sizeof(hist), "%s/hist2", w->dir);
    snprintf(args, sizeof(args), "--history '%s' --json", hist);
    assert_int_equal(run_sample(w, NULL, NULL, args), 1);
    doc = json_loads(w->out.ptr, 0, &jerr);
    assert_non_null(doc);
    t = test_in(doc, "fails_third_time");
    assert_string_equal(json_string_value(json_object_get(t, "status")), "failure");
    assert_non_null(strstr(json_string_value(json_object_get(t, "message")), "sample_tests.c"));
    t = test_in(doc, "crashes");
    assert_string_equal(json_string_value(json_object_get(t, "status")), "error");
    assert_non_null(strstr(json_string_value(json_object_get(t, "message")), "signal"));
    t = test_in(doc, "hangs");
    assert_string_equal(json_string_value(json_object_get(t, "status")), "error");
    assert_non_null(strstr(json_string_value(json_object_get(t, "message")), "timed out"));
    /* setup counts matched inside the child, or its teardown would have failed it */
    t = test_in(doc, "sorts_fresh_input");
    assert_string_equal(json_string_value(json_object_get(t, "status")), "pass");
    assert_int_equal(json_integer_value(json_object_get(t, "batch")), 1);
    t = test_in(doc, "busy_fast");
    assert_string_equal(json_string_value(json_object_get(t, "status")), "pass");
    /* It returned at once: passed, not timed out, and its leftover was ended. */
    t = test_in(doc, "leaves_a_child");
    assert_string_equal(json_string_value(json_object_get(t, "status")), "pass");
    assert_non_null(strstr(w->err.ptr, "leaves_a_child left processes running"));
    json_decref(doc);

    assert_int_equal(culprit_history_open(&h, hist, 0), 0);
    assert_int_equal(culprit_history_load(&runs, h, NULL, NULL, NULL), 0);
    assert_int_equal(runs.nruns, 1);
    assert_int_equal(runs.runs[0]->ntests, 9);
    assert_int_equal(culprit_history_run_find_test(runs.runs[0], "crashes")->status,
                     CULPRIT_STATUS_ERROR);
    assert_int_equal(culprit_history_run_find_test(runs.runs[0], "busy_fast")->status,
                     CULPRIT_STATUS_PASS);
    char *file = first_file(hist, ".xml");
    assert_true(schema_valid(file));
    free(file);
    culprit_history_runs_dispose(&runs);
    culprit_history_free(h);
}

static void unwritable_history_still_prints_results_and_exits_nonzero(void **state)
{
    workspace *w = *state;
    char args[512], blocker[128];

    snprintf(blocker, sizeof(blocker), "%s/a-file", w->dir);
    assert_int_equal(culprit_fs_write_atomic(blocker, "x", 1, 0), 0);
    snprintf(args, sizeof(args), "--filter busy_fast --history '%s/sub'", blocker);
    assert_int_equal(run_sample(w, NULL, NULL, args), 2);
    assert_non_null(strstr(w->out.ptr, "busy_fast"));
    assert_non_null(strstr(w->err.ptr, "a-file/sub"));
}

static void records_commit_of_the_git_repository(void **state)
{
    workspace *w = *state;
    char cmd[1024], sha[64] = "", args[1200];
    culprit_run *run = NULL;
    FILE *p;
    char *file;

    snprintf(cmd, sizeof(cmd),
             "cd '%s' && git init -q repo && cd repo && echo a > a.txt && git add a.txt && "
             "git -c user.name=t -c user.email=t@e commit -qm first && git rev-parse HEAD",
             w->dir);
    assert_non_null(p = popen(cmd, "r"));
    assert_non_null(fgets(sha, sizeof(sha), p));
    pclose(p);
    sha[strcspn(sha, "\n")] = '\0';
    snprintf(cmd, sizeof(cmd), "%s/repo", w->dir);
    /* default history location: .culprit/history at the repository root */
    assert_int_equal(run_sample(w, cmd, NULL, "--filter busy_fast --repetitions 3"), 0);
    snprintf(args, sizeof(args), "%s/repo/.culprit/history", w->dir);
    file = first_file(args, ".xml");
    assert_non_null(file);
    assert_int_equal(culprit_history_read_file(&run, file, 0), 0);
    assert_string_equal(run->commit, sha);
    assert_false(run->dirty);
    /* a second run: its own untracked .culprit/ does not make the tree dirty */
    assert_int_equal(run_sample(w, cmd, NULL, "--filter busy_fast --repetitions 3"), 0);
    assert_null(strstr(w->out.ptr, "(dirty)"));
    /* a modified tracked file does */
    snprintf(args, sizeof(args), "echo b >> '%s/a.txt'", cmd);
    assert_int_equal(system(args), 0);
    assert_int_equal(run_sample(w, cmd, NULL, "--filter busy_fast --repetitions 3"), 0);
    assert_non_null(strstr(w->out.ptr, "(dirty)"));
    culprit_history_run_free(run);
    free(file);
}

/* Runs busy_fast into the history directory `sub` of the workspace and returns the
 * commit its history file recorded (malloc'd). */
static char *recorded_commit(workspace *w, const char *env, const char *sub)
{
    char args[256], dir[192];
    culprit_run *run = NULL;
    char *file, *commit;

    snprintf(dir, sizeof(dir), "%s/%s", w->dir, sub);
    snprintf(args, sizeof(args), "--filter busy_fast --repetitions 3 --history '%s'", dir);
    assert_int_equal(run_sample(w, NULL, env, args), 0);
    file = first_file(dir, ".xml");
    assert_int_equal(culprit_history_read_file(&run, file, 0), 0);
    commit = strdup(run->commit);
    culprit_history_run_free(run);
    free(file);
    return commit;
}

static void outside_git_records_unknown_commit_with_warning(void **state)
{
    workspace *w = *state;
    char *commit = recorded_commit(w, NULL, "h3");

    assert_string_equal(commit, "unknown");
    assert_non_null(strstr(w->err.ptr, "not in a git repository"));
    free(commit);

    /* CI override */
    commit = recorded_commit(w, "CULPRIT_COMMIT=0123456789abcdef", "h4");
    assert_string_equal(commit, "0123456789abcdef");
    assert_null(strstr(w->err.ptr, "not in a git repository"));
    free(commit);
}

/* A given commit ($CULPRIT_COMMIT, a CI job or a paired confirmation) is recorded
 * without libgit2 describing HEAD: the work tree (where culprit.json and the default
 * history are) and the branch are still found, even in a repository libgit2 cannot
 * open (extensions.worktreeConfig, which libgit2 1.5 refuses), and from a build
 * directory inside it. */
static void given_commit_finds_the_work_tree_without_libgit2(void **state)
{
    workspace *w = *state;
    char cmd[1024], build[256], hist[320];
    culprit_run *run = NULL;
    char *file;

    snprintf(cmd, sizeof(cmd),
             "cd '%s' && git init -q -b trunk ext && cd ext && echo a > a.txt && git add a.txt && "
             "git -c user.name=t -c user.email=t@e commit -qm first && mkdir build && "
             "git config core.repositoryformatversion 1 && "
             "git config extensions.worktreeConfig true",
             w->dir);
    assert_int_equal(system(cmd), 0);
    snprintf(build, sizeof(build), "%s/ext/build", w->dir);
    assert_int_equal(run_sample(w, build, "CULPRIT_COMMIT=0123456789abcdef",
                                "--filter busy_fast --repetitions 3"),
                     0);
    snprintf(hist, sizeof(hist), "%s/ext/.culprit/history", w->dir);
    assert_non_null(file = first_file(hist, ".xml"));
    assert_int_equal(culprit_history_read_file(&run, file, 0), 0);
    assert_string_equal(run->commit, "0123456789abcdef");
    assert_string_equal(run->branch, "trunk");
    snprintf(hist, sizeof(hist), "%s/.culprit", build);
    assert_int_not_equal(access(hist, F_OK), 0); /* not in the build directory */
    assert_null(strstr(culprit_buf_cstr(&w->err), "recorded in"));
    culprit_history_run_free(run);
    free(file);
}

static void project_file_categories_and_warning(void **state)
{
    workspace *w = *state;
    char path[128], args[512];
    const char *project = "{\"categories\": [{\"name\": \"instant\", \"below\": \"1ns\"},"
                          " {\"name\": \"sluggish\"}]}";
    json_error_t jerr;
    json_t *doc;

    snprintf(path, sizeof(path), "%s/culprit.json", w->dir);
    assert_int_equal(culprit_fs_write_atomic(path, project, strlen(project), 0), 0);
    snprintf(args, sizeof(args), "--filter busy_fast --repetitions 3 --no-history --json");
    assert_int_equal(run_sample(w, NULL, NULL, args), 0);
    doc = json_loads(w->out.ptr, 0, &jerr);
    assert_string_equal(json_string_value(json_object_get(test_in(doc, "busy_fast"), "category")),
                        "sluggish");
    json_decref(doc);
    assert_non_null(strstr(w->err.ptr, "not the fastest"));

    /* A broken project file is refused, naming the file. */
    assert_int_equal(culprit_fs_write_atomic(path, "{\"categories\": 3}", 17, 0), 0);
    assert_int_equal(run_sample(w, NULL, NULL, "--filter busy_fast --no-history"), 2);
    assert_non_null(strstr(w->err.ptr, "culprit.json"));
    unlink(path);
}

/* ctest --output-on-failure shows a failed test's output with its <CTestMeasurement>
 * tags raw (ctest strips only <CTestDetails> and <CTestLabel>): they come first, on
 * one line, so the verdict and its explanation are what a reader sees last. */
static void ctest_tags_come_before_the_verdict_on_one_line(void **state)
{
    workspace *w = *state;
    char path[128];
    const char *project = "{\"categories\": [{\"name\": \"instant\", \"below\": \"1ns\"},"
                          " {\"name\": \"sluggish\"}],"
                          " \"tests\": {\"sample.cpu_busy\": {\"category\": \"instant\"}}}";
    const char *verdict, *tags;

    snprintf(path, sizeof(path), "%s/culprit.json", w->dir);
    assert_int_equal(culprit_fs_write_atomic(path, project, strlen(project), 0), 0);
    assert_int_equal(run_sample(w, NULL, NULL, "--filter cpu_busy --no-history --ctest"), 1);
    assert_non_null(verdict = strstr(w->out.ptr, "[ MAJOR  ] cpu_busy"));
    assert_null(strstr(verdict, "<CTest")); /* nothing of ctest's after the verdict */
    assert_non_null(tags = strstr(w->out.ptr, "<CTestMeasurement"));
    assert_true(tags < verdict);
    /* One line: mean, ci_low, ci_high, sd, n, category. */
    assert_non_null(strstr(tags, ".mean\">")); /* cpu_busy judges cpu_ns */
    assert_true(strstr(tags, "name=\"category\">instant</CTestMeasurement>") < strchr(tags, '\n'));
}

static void test_above_its_category_is_a_major_regression(void **state)
{
    workspace *w = *state;
    char path[128], args[512], junit[128];
    const char *project = "{\"categories\": [{\"name\": \"instant\", \"below\": \"1ns\"},"
                          " {\"name\": \"sluggish\"}],"
                          " \"tests\": {\"sample.cpu_busy\": {\"category\": \"instant\"}}}";
    culprit_buf text = CULPRIT_BUF_INIT;
    json_error_t jerr;
    json_t *doc, *t;

    snprintf(path, sizeof(path), "%s/culprit.json", w->dir);
    snprintf(junit, sizeof(junit), "%s/major.xml", w->dir);
    assert_int_equal(culprit_fs_write_atomic(path, project, strlen(project), 0), 0);
    snprintf(args, sizeof(args), "--filter cpu_busy --no-history --json --junit '%s'", junit);
    assert_int_equal(run_sample(w, NULL, NULL, args), 1);
    assert_non_null(strstr(w->err.ptr, "[ MAJOR  ] cpu_busy"));
    doc = json_loads(w->out.ptr, 0, &jerr);
    t = test_in(doc, "cpu_busy");
    assert_string_equal(json_string_value(json_object_get(t, "status")), "failure");
    assert_string_equal(json_string_value(json_object_get(t, "verdict")), "major");
    assert_non_null(
        strstr(json_string_value(json_object_get(t, "message")), "above category 'instant'"));
    json_decref(doc);
    assert_true(schema_valid(junit));
    assert_int_equal(culprit_fs_read_file(&text, junit), 0);
    assert_non_null(strstr(text.ptr, "<failure type=\"culprit.major-regression\""));
    culprit_buf_dispose(&text);

    /* recorded but not failed with --fail-on none */
    assert_int_equal(run_sample(w, NULL, NULL,
                                "--filter cpu_busy --no-history --json "
                                "--fail-on none"),
                     0);
    doc = json_loads(w->out.ptr, 0, &jerr);
    t = test_in(doc, "cpu_busy");
    assert_string_equal(json_string_value(json_object_get(t, "status")), "pass");
    assert_string_equal(json_string_value(json_object_get(t, "verdict")), "major");
    json_decref(doc);
    /* the same from the environment (sanitizer builds), and a bad value named */
    assert_int_equal(run_sample(w, NULL, "CULPRIT_FAIL_ON=none", "--filter cpu_busy --no-history"),
                     0);
    assert_non_null(strstr(w->out.ptr, "cpu_busy"));
    assert_int_equal(run_sample(w, NULL, "CULPRIT_FAIL_ON=sometimes", "--list"), 2);
    assert_non_null(strstr(w->err.ptr, "CULPRIT_FAIL_ON"));
    assert_int_equal(run_sample(w, NULL, "CULPRIT_FAIL_ON=none",
                                "--filter cpu_busy --no-history --fail-on major"),
                     1); /* the command line wins */
    assert_int_equal(run_sample(w, NULL, NULL, "--fail-on sometimes"), 2);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(list_prints_names_in_declaration_order, setup, teardown),
        cmocka_unit_test_setup_teardown(load_test_records_intervals_and_exact_call_statistics,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(usage_errors_exit_2_naming_the_input, setup, teardown),
        cmocka_unit_test_setup_teardown(passing_run_writes_valid_history_junit_and_json, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(max_repetitions_from_the_environment_caps_the_samples,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(failure_crash_and_hang_are_reported_and_others_kept, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(unwritable_history_still_prints_results_and_exits_nonzero,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(records_commit_of_the_git_repository, setup, teardown),
        cmocka_unit_test_setup_teardown(outside_git_records_unknown_commit_with_warning, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(given_commit_finds_the_work_tree_without_libgit2, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(no_fork_from_the_environment, setup, teardown),
        cmocka_unit_test_setup_teardown(project_file_categories_and_warning, setup, teardown),
        cmocka_unit_test_setup_teardown(ctest_tags_come_before_the_verdict_on_one_line, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_above_its_category_is_a_major_regression, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
