/*
 * The group runner: what culprit_run_group() does inside a test binary. It parses
 * the options, finds the commit and the project settings, runs each selected perf
 * test (execute.c), assigns categories, prints one line per test and records the
 * run in the history store; --junit and --json give CI the same results.
 *
 * Order of precedence for every setting: command line, then environment, then the
 * project file (culprit.json), then the defaults, as ctest and git do.
 */
#include "runner_internal.h"

#include "culprit/detect.h"
#include "culprit/history.h"
#include "culprit/runner.h"
#include "culprit/vcs.h"
#include "culprit/version.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    culprit_runner_options opt;
    const char *program;
    FILE *text;    /* human-readable output: stdout, or stderr under --json */
    char *workdir; /* root of the git working tree, NULL outside a repository */
    culprit_project *project;
    culprit_settings settings;
    culprit_assignments *assignments;
    char *assignments_path;
    int assignments_changed;
} runner;

static void warn(runner *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(runner *r, const char *fmt, ...)
{
    char text[CULPRIT_ERROR_MESSAGE_MAX];
    va_list ap;
    (void)r;
    fflush(stdout); /* keep the order of the lines when both go to one pipe */
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    culprit_runner__text_line(stderr, "culprit: warning: ", text);
}

/* CPU model, core count, kernel and architecture: the machine part of the build and
 * machine fingerprint; runs on different machines are not silently compared. The
 * kernel release is recorded but is not part of the default machine class
 * (culprit_history_run_machine_class): an image update must not orphan a history. */
static char *machine_fingerprint(void)
{
    culprit_buf out = CULPRIT_BUF_INIT;
    char line[512], model[256] = "unknown cpu";
    struct utsname u;
    FILE *f = fopen("/proc/cpuinfo", "r");

    while (f && fgets(line, sizeof(line), f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon) {
            snprintf(model, sizeof(model), "%s", colon + 2);
            model[strcspn(model, "\n")] = '\0';
            break;
        }
    }
    if (f)
        fclose(f);
    culprit_buf_printf(&out, "%s; %ld cpus", model, sysconf(_SC_NPROCESSORS_ONLN));
    if (uname(&u) == 0)
        culprit_buf_printf(&out, "; %s %s %s", u.sysname, u.release, u.machine);
    return culprit_buf_detach(&out);
}

/* --machine NAME or $CULPRIT_MACHINE: the class this run counts for; else the default
 * class (the fingerprint without the kernel release), written out so readers need
 * not derive it. */
static int machine_class(runner *r, culprit_run *run)
{
    const char *name = r->opt.machine ? r->opt.machine : getenv("CULPRIT_MACHINE");
    char derived[512];

    if (!run->machine)
        return CULPRIT_ERROR_NOMEM();
    if (!name || !*name)
        name = culprit_history_run_machine_class(derived, sizeof(derived), run);
    if (strpbrk(name, "\r\n"))
        return culprit_error_set(CULPRIT_EINVALID, "--machine '%s' contains a line break", name);
    return culprit_str_set(&run->machine_class, name);
}

static int fill_context(runner *r, culprit_run *run, const char *suite,
                        const culprit_build_info *build)
{
    char host[256] = "unknown", stamp[48];
    struct timespec now;
    struct tm tm;
    const char *env_commit = getenv("CULPRIT_COMMIT"), *env_branch = getenv("CULPRIT_BRANCH");
    const char *where = r->opt.repository ? r->opt.repository : ".";
    const char *count_result = getenv(CULPRIT_RUNNER__COUNT_RESULT);
    culprit_vcs_head head;
    int error, have_head, given, counted;

    gethostname(host, sizeof(host) - 1);
    /* Microseconds: runs of one test seconds apart (a confirmation re-run) must still
     * have a defined order, and the fixed width keeps the text sorting like time. */
    clock_gettime(CLOCK_REALTIME, &now);
    gmtime_r(&now.tv_sec, &tm);
    strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(stamp + strlen(stamp), sizeof(stamp) - strlen(stamp), ".%06ldZ", now.tv_nsec / 1000);
    given = r->opt.commit || (env_commit && *env_commit);
    /* The counted process (valgrind.c) reads no repository: its parent records its
     * result (describing HEAD was 83% of what it ran before the body, under callgrind).
     * A given commit is recorded clean: only the work tree and branch are looked up,
     * without libgit2 (13-15% of a paired confirmation's run, docs/runner.md). */
    counted = count_result && *count_result;
    have_head = !counted && (given ? culprit_vcs_head_locate(&head, where)
                                   : culprit_vcs_head_describe(&head, where)) == 0;
    if (!have_head && !counted && !given)
        warn(r,
             "%s (%s); the commit is recorded as unknown (--repository DIR or $CULPRIT_COMMIT "
             "names it)",
             r->opt.repository ? "--repository is not a git repository" : "not in a git repository",
             culprit_error_last());
    if ((error = culprit_runner__set_name(&run->suite, suite)) < 0 ||
        (error = culprit_str_set(&run->timestamp, stamp)) < 0 ||
        (error = culprit_str_set(&run->host, host)) < 0 ||
        (error = culprit_str_set(&run->compiler, build ? build->compiler : NULL)) < 0 ||
        (error = culprit_str_set(&run->flags, build ? build->flags : NULL)) < 0)
        goto cleanup;
    run->machine = machine_fingerprint();
    if ((error = machine_class(r, run)) < 0)
        goto cleanup;
    /* The binary's own path, so `culprit check --confirm` can run a test again. */
    run->binary = realpath("/proc/self/exe", NULL);
    if (given) {
        /* CI checkouts: the given commit wins, and a clean tree is assumed. */
        error = culprit_str_set(&run->commit, r->opt.commit ? r->opt.commit : env_commit);
        run->dirty = 0;
    } else {
        error = culprit_str_set(&run->commit, have_head ? head.sha : "unknown");
        run->dirty = have_head && head.dirty;
    }
    if (error < 0)
        goto cleanup;
    if (r->opt.branch || (env_branch && *env_branch))
        error = culprit_str_set(&run->branch, r->opt.branch ? r->opt.branch : env_branch);
    else if (have_head && head.branch)
        error = culprit_str_set(&run->branch, head.branch);
    if (error < 0)
        goto cleanup;
    if (have_head && head.workdir)
        r->workdir = culprit_strdup(head.workdir);
cleanup:
    if (have_head)
        culprit_vcs_head_dispose(&head);
    return error;
}

/*
 * The category of a measured test, by precedence: declared in the test, named in the
 * project file, assigned by an earlier run, or assigned now from this measurement
 * (Heger et al. 2013 section 3), persisted and warned about when not the fastest.
 */
static int assign_category(runner *r, culprit_test_result *t, const culprit_perf_test *decl)
{
    const culprit_categories *cats = culprit_detect_project_categories(r->project);
    const culprit_category *c = NULL;
    const char *source = NULL;
    char key[512];
    int error;

    snprintf(key, sizeof(key), "%s.%s", t->classname, t->name);
    if (decl->category) {
        c = culprit_detect_categories_find(cats, decl->category);
        source = "explicit";
        if (!c)
            return culprit_error_set(CULPRIT_EINVALID,
                                     "test %s: unknown category '%s' (define it in culprit.json)",
                                     key, decl->category);
    } else if (culprit_detect_project_test_category(r->project, key)) {
        c = culprit_detect_categories_find(cats,
                                           culprit_detect_project_test_category(r->project, key));
        source = "project";
    } else if (r->assignments && culprit_detect_assignments_get(r->assignments, key) &&
               (c = culprit_detect_categories_find(
                    cats, culprit_detect_assignments_get(r->assignments, key)))) {
        source = "assigned";
    } else if (!r->opt.debug && t->status == CULPRIT_STATUS_PASS && t->summary.n > 0 && t->metric &&
               strstr(t->metric, "_ns")) {
        c = culprit_detect_categories_classify(cats, t->summary.mean);
        source = "auto";
        if (r->assignments) {
            if ((error = culprit_detect_assignments_set(r->assignments, key, c->name)) < 0)
                return error;
            r->assignments_changed = 1;
        }
        if (!culprit_detect_categories_is_fastest(cats, c))
            warn(r,
                 "%s was assigned category '%s', not the fastest ('%s'); if that is intended, "
                 "nothing to do, otherwise make the test lighter or set its category",
                 key, c->name, cats->items[0].name);
    }
    if (!c)
        return 0;
    t->category_low_ns = c->low_ns;
    t->category_high_ns = c->high_ns;
    if ((error = culprit_str_set(&t->category, c->name)) < 0 ||
        (error = culprit_str_set(&t->category_source, source)) < 0)
        return error;
    return 0;
}

/*
 * A major regression needs no history: the category is its baseline (Heger et al.
 * 2013, section 3), so the test binary judges it right away and ctest sees it.
 * Minor regressions need history and the false-discovery control across the suite:
 * `culprit check` judges those.
 */
static int judge_category(runner *r, const culprit_run *run, culprit_test_result *t)
{
    culprit_verdict v;
    int error;

    if (t->status != CULPRIT_STATUS_PASS || !t->category)
        return culprit_str_set(&t->verdict, culprit_history_status_name(t->status));
    if ((error = culprit_detect_judge(&v, run, t, NULL, NULL)) < 0)
        return error;
    if (v.kind == CULPRIT_VERDICT_MAJOR) {
        if ((error = culprit_str_set(&t->verdict, "major")) == 0 &&
            (error = culprit_str_set(&t->verdict_message, v.message)) == 0 &&
            r->opt.fail_on != CULPRIT_FAIL_ON_NONE) {
            t->status = CULPRIT_STATUS_FAILURE;
            error = culprit_str_set(&t->message, v.message);
        }
    } else {
        error = culprit_str_set(&t->verdict, "pass");
    }
    culprit_detect_verdict_dispose(&v);
    return error;
}

static void print_result(runner *r, const culprit_test_result *t)
{
    culprit_buf line = CULPRIT_BUF_INIT;

    if (t->status == CULPRIT_STATUS_PASS && r->opt.quiet) {
        if (r->opt.ctest)
            culprit_runner__ctest_report(r->text, t);
        return;
    }
    /* ctest's tags first: the verdict and its explanation are then what a reader of
     * `ctest --output-on-failure` sees last (ctest.c). */
    if (r->opt.ctest)
        culprit_runner__ctest_report(r->text, t);
    /* The same line opens the test's <system-out> in the JUnit report. */
    if (culprit_history_test_result_line(&line, t) == 0)
        fprintf(r->text, "%s\n", culprit_buf_cstr(&line));
    culprit_buf_dispose(&line);
    if (t->status != CULPRIT_STATUS_PASS && t->output && *t->output)
        fprintf(r->text, "%s%s", t->output, t->output[strlen(t->output) - 1] == '\n' ? "" : "\n");
    fflush(r->text);
}

static void job_for(culprit_runner_job *job, const runner *r, const char *suite,
                    const culprit_perf_test *t)
{
    memset(job, 0, sizeof(*job));
    job->suite = suite;
    job->test = t;
    job->no_fork = r->opt.no_fork;
    job->verbose = r->opt.verbose;
    job->metric = r->opt.metric;
    job->project_file = r->settings.project_file;
    /* A spinner while the test measures, on an interactive terminal only. */
    job->progress = !r->opt.quiet && culprit_progress_wanted(fileno(r->text)) ? r->text : NULL;
    culprit_measure_options_init(&job->measure, CULPRIT_MEASURE_OPTIONS_VERSION);
    if (t->repetitions)
        job->measure.repetitions = t->repetitions;
    if (t->warmup)
        job->measure.warmup = t->warmup;
    if (t->min_repetitions)
        job->measure.min_repetitions = t->min_repetitions;
    if (t->max_repetitions)
        job->measure.max_repetitions = t->max_repetitions;
    if (t->budget_s > 0)
        job->measure.budget_s = t->budget_s;
    if (t->target_ci > 0)
        job->measure.target_ci = t->target_ci;
    if (t->batch)
        job->measure.batch = t->batch;
    job->timeout_s = t->timeout_s;
    /* A load test runs for its duration: no repetitions, precision or budget. */
    job->measure.duration_s = t->duration_s;
    job->measure.interval_s = t->interval_s;
    /* The command line overrides the declarations. */
    if (r->opt.repetitions)
        job->measure.repetitions = r->opt.repetitions;
    if (r->opt.warmup_set)
        job->measure.warmup = r->opt.warmup;
    if (r->opt.budget_s > 0)
        job->measure.budget_s = r->opt.budget_s;
    if (r->opt.min_time_set)
        job->measure.min_time_s = r->opt.min_time_s;
    /* A cap, not a count: a run of a paired confirmation needs a floor or a mean, and
     * the pairs, not the samples, carry the run-to-run spread (docs/measure.md). */
    if (r->opt.max_repetitions) {
        unsigned int cap = r->opt.max_repetitions;
        if (!job->measure.max_repetitions || job->measure.max_repetitions > cap)
            job->measure.max_repetitions = cap;
        if (job->measure.repetitions > cap)
            job->measure.repetitions = cap;
        if (job->measure.min_repetitions > cap)
            job->measure.min_repetitions = cap;
    }
    job->measure.keep_preempted = r->opt.keep_preempted;
    if (r->opt.timeout_s > 0)
        job->timeout_s = r->opt.timeout_s;
    if (r->opt.debug) {
        /* Stepping through, not measuring (debugger.c): one call of the body. */
        job->measure.repetitions = 1;
        job->measure.warmup = 0;
        job->measure.batch = 1;
        job->measure.duration_s = 0;
        job->measure.budget_s = 0;       /* none */
        job->measure.keep_preempted = 1; /* the body once, preempted or not */
        job->timeout_s = 0;
    } else if (r->opt.duration_s > 0 && t->duration_s > 0) {
        job->measure.duration_s = r->opt.duration_s;
        if (job->measure.interval_s > r->opt.duration_s)
            job->measure.interval_s = 0;
    }
}

static void runner_dispose(runner *r)
{
    free(r->workdir);
    culprit_detect_project_free(r->project);
    culprit_runner_settings_dispose(&r->settings);
    culprit_detect_assignments_free(r->assignments);
    free(r->assignments_path);
}

/* Checks the declared tests and counts those --filter selects; RUNNER_EXIT_USAGE
 * (with the message printed) when a declaration is wrong. */
static int check_declarations(runner *r, const culprit_perf_test *tests, size_t ntests,
                              size_t *nselected)
{
    *nselected = 0;
    for (size_t i = 0; i < ntests; i++) {
        if (!tests[i].name || !tests[i].test_func) {
            fprintf(stderr, "%s: test #%zu has no name or function\n", r->program, i);
            return RUNNER_EXIT_USAGE;
        }
        if (tests[i].duration_s < 0 || tests[i].interval_s < 0 ||
            (tests[i].duration_s > 0 && tests[i].interval_s > tests[i].duration_s)) {
            fprintf(stderr,
                    "%s: test '%s': .duration_s (%g s) and .interval_s (%g s) must not be "
                    "negative, and the interval must not exceed the duration\n",
                    r->program, tests[i].name, tests[i].duration_s, tests[i].interval_s);
            return RUNNER_EXIT_USAGE;
        }
        for (size_t j = 0; j < i; j++)
            if (strcmp(tests[i].name, tests[j].name) == 0) {
                fprintf(stderr, "%s: test name '%s' is declared twice\n", r->program,
                        tests[i].name);
                return RUNNER_EXIT_USAGE;
            }
        *nselected += culprit_runner__selected(r->opt.filter, &tests[i]);
    }
    return RUNNER_EXIT_OK;
}

/* The run's context (commit, machine, build), the settings and the category
 * assignments; a missing or broken assignments file only costs persistence. */
static int prepare(runner *r, culprit_run *run, const char *suite, const culprit_build_info *build)
{
    int error;

    if ((error = fill_context(r, run, suite, build)) < 0)
        return error;
    if ((error = culprit_runner_settings_resolve(&r->settings, &r->project, r->workdir,
                                                 r->opt.project, r->opt.history_dir)) < 0)
        return error;
    if (!r->opt.fail_on_set && culprit_detect_project_fail_on(r->project)) {
        /* culprit.json's "fail_on" is check's: "uncompared" fails a minor here too (a
         * test binary's first run has no baseline and must not fail for it). */
        culprit_fail_on f = CULPRIT_FAIL_ON_MAJOR;
        culprit_detect_fail_on_parse(culprit_detect_project_fail_on(r->project), &f);
        r->opt.fail_on = f == CULPRIT_FAIL_ON_UNCOMPARED ? CULPRIT_FAIL_ON_MINOR : (int)f;
    }
    if (!r->opt.no_history && !r->workdir && r->settings.history_dir[0] != '/') {
        /* Outside a repository a relative history lands under the current directory,
         * which may be a build tree: say where, so it can be found again. */
        const char *rel = r->settings.history_dir;
        char *where = realpath(".", NULL);
        rel += strncmp(rel, "./", 2) == 0 ? 2 : 0;
        warn(r, "results are recorded in '%s/%s'", where ? where : ".", rel);
        free(where);
    }
    if (!r->opt.no_history) {
        r->assignments_path = culprit_fs_join(r->settings.history_dir, "categories.json");
        if (r->assignments_path &&
            culprit_detect_assignments_load(&r->assignments, r->assignments_path) < 0) {
            warn(r, "%s; automatic categories are not persisted this run", culprit_error_last());
            r->assignments = NULL;
        }
    }
    return 0;
}

/* Runs, judges and prints every selected test, counting failures and errors.
 * Negative only for culprit's own errors. */
static int run_selected(runner *r, culprit_run *run, const char *suite,
                        const culprit_perf_test *tests, size_t ntests, size_t *nfailed,
                        size_t *nerrors)
{
    int error;

    for (size_t i = 0; i < ntests; i++) {
        culprit_runner_job job;
        culprit_test_result *t;

        if (!culprit_runner__selected(r->opt.filter, &tests[i]))
            continue;
        if ((error = culprit_history_run_add_test(&t, run)) < 0 ||
            (error = culprit_runner__set_name(&t->name, tests[i].name)) < 0 ||
            (error = culprit_runner__set_name(&t->classname, suite)) < 0)
            return error;
        job_for(&job, r, suite, &tests[i]);
        if ((error = culprit_runner__run_job(t, &job)) < 0)
            return error;
        if ((error = assign_category(r, t, &tests[i])) < 0) {
            t->status = CULPRIT_STATUS_ERROR;
            culprit_str_set(&t->message, culprit_error_last());
        }
        if ((error = judge_category(r, run, t)) < 0)
            return error;
        *nfailed += t->status == CULPRIT_STATUS_FAILURE;
        *nerrors += t->status == CULPRIT_STATUS_ERROR;
        print_result(r, t);
    }
    return 0;
}

/* Records the run in the history (and the categories). Results are already
 * printed: an I/O error here loses nothing shown. RUNNER_EXIT_USAGE on an error
 * (printed), else RUNNER_EXIT_OK. */
static int record(runner *r, const culprit_run *run, char **history_file)
{
    culprit_history *store = NULL;
    int exit_code = RUNNER_EXIT_OK;

    if (!r->opt.no_history) {
        if (culprit_history_open(&store, r->settings.history_dir, 1) < 0 ||
            culprit_history_store(store, run, history_file) < 0) {
            fprintf(stderr, "%s: error: cannot record the results in '%s': ", r->program,
                    r->settings.history_dir);
            culprit_runner__text_line(stderr, "", culprit_error_last());
            exit_code = RUNNER_EXIT_USAGE;
        } else if (r->assignments_changed &&
                   culprit_detect_assignments_save(r->assignments, r->assignments_path) < 0) {
            fprintf(stderr, "%s: ", r->program);
            culprit_runner__text_line(stderr, "error: ", culprit_error_last());
            exit_code = RUNNER_EXIT_USAGE;
        }
    }
    culprit_history_free(store);
    return exit_code;
}

/* Writes --junit and --json, with the verdicts against history. RUNNER_EXIT_USAGE on
 * an error (printed), else RUNNER_EXIT_OK. */
static int write_reports(runner *r, const culprit_run *run, const char *history_file)
{
    int exit_code = RUNNER_EXIT_OK;

    if (culprit_runner__write_junit(run, r->opt.junit, r->opt.ctest) < 0) {
        fprintf(stderr, "%s: ", r->program);
        culprit_runner__text_line(stderr, "error: --junit: ", culprit_error_last());
        exit_code = RUNNER_EXIT_USAGE;
    }
    if (r->opt.json) {
        char *json = culprit_runner__run_json(run, history_file);
        if (json) {
            printf("%s\n", json);
            free(json);
        } else {
            fprintf(stderr, "%s: error: cannot produce JSON\n", r->program);
            exit_code = RUNNER_EXIT_USAGE;
        }
    }
    return exit_code;
}

/* The recorded run against its history (own_history.c): MINOR lines, and under
 * --fail-on minor the tests that fail for it added to *nfailed. */
static int judge_history(runner *r, culprit_run *run, size_t *nfailed)
{
    culprit_runner_history_check hc = {r->text, r->settings.history_dir,
                                       r->opt.repository ? r->opt.repository : r->workdir,
                                       (culprit_fail_on)r->opt.fail_on, r->opt.ctest};
    size_t n = 0;
    int error = culprit_runner__judge_history(run, &hc, &n);

    *nfailed += n;
    return error;
}

int culprit_run_perf_tests(const char *group, const culprit_perf_test *tests, size_t ntests,
                           int argc, char **argv, const culprit_build_info *build)
{
    runner r;
    culprit_run *run = NULL;
    char *history_file = NULL;
    const char *suite;
    size_t i, nselected = 0, nfailed = 0, nerrors = 0;
    int exit_code = RUNNER_EXIT_OK, error;

    memset(&r, 0, sizeof(r));
    r.program = argc > 0 && argv[0] ? culprit_fs_base_name(argv[0]) : "culprit-tests";
    r.text = stdout;
    suite = group ? group : r.program;
    if (culprit_runner__parse_options(&r.opt, argc, argv) < 0) {
        fprintf(stderr, "%s: %s (see --help)\n", r.program, culprit_error_last());
        return RUNNER_EXIT_USAGE;
    }
    if (r.opt.help) {
        culprit_runner__usage(stdout, r.program);
        return RUNNER_EXIT_OK;
    }
    if (r.opt.version) {
        printf("culprit %s\n", CULPRIT_VERSION);
        return RUNNER_EXIT_OK;
    }
    if ((exit_code = check_declarations(&r, tests, ntests, &nselected)) != RUNNER_EXIT_OK)
        return exit_code;
    if (r.opt.list) {
        for (i = 0; i < ntests; i++)
            if (culprit_runner__selected(r.opt.filter, &tests[i]))
                culprit_runner__text_line(stdout, "", tests[i].name);
        return RUNNER_EXIT_OK;
    }
    if (r.opt.json)
        r.text = stderr;
    culprit_runner__debug_mode(&r.opt, r.program);
    if (nselected == 0 && r.opt.filter_from_env) {
        /* One binary of a run command that runs several: the test is another's. */
        if (!r.opt.quiet)
            fprintf(stderr, "%s: no test matches $CULPRIT_FILTER '%s'; none run\n", r.program,
                    r.opt.filter);
        return RUNNER_EXIT_OK;
    }
    if (nselected == 0) {
        fprintf(stderr, "%s: no test matches --filter '%s' (see --list)\n", r.program,
                r.opt.filter ? r.opt.filter : "");
        return RUNNER_EXIT_USAGE;
    }

    if ((error = culprit_history_run_new(&run)) < 0 || (error = prepare(&r, run, suite, build)) < 0)
        goto fatal;
    if (!r.opt.quiet) {
        culprit_buf label = CULPRIT_BUF_INIT; /* the suite is data: escaped */
        culprit_buf_put_text(&label, suite);
        fprintf(r.text, "[========] %s: %zu perf test%s at %.12s%s%s%s\n", culprit_buf_cstr(&label),
                nselected, nselected == 1 ? "" : "s", run->commit, run->dirty ? " (dirty)" : "",
                run->branch ? " on " : "", run->branch ? run->branch : "");
        culprit_buf_dispose(&label);
    }
    if ((error = run_selected(&r, run, suite, tests, ntests, &nfailed, &nerrors)) < 0)
        goto fatal;
    if (record(&r, run, &history_file) != RUNNER_EXIT_OK)
        exit_code = RUNNER_EXIT_USAGE;
    /* --fail-on none (a bisection's probe, a sanitizer build) judges nothing more. */
    if (history_file && r.opt.fail_on != CULPRIT_FAIL_ON_NONE &&
        (error = judge_history(&r, run, &nfailed)) < 0)
        goto fatal;
    if ((nfailed || nerrors) && exit_code == RUNNER_EXIT_OK)
        exit_code = RUNNER_EXIT_FAILED;
    if (write_reports(&r, run, history_file) != RUNNER_EXIT_OK)
        exit_code = RUNNER_EXIT_USAGE;
    if (!r.opt.quiet || nfailed || nerrors)
        fprintf(r.text, "[========] %zu passed, %zu failed, %zu errors%s%s\n",
                nselected - nfailed - nerrors, nfailed, nerrors, history_file ? "; history: " : "",
                history_file ? history_file : "");
    goto cleanup;

fatal:
    fprintf(stderr, "%s: ", r.program);
    culprit_runner__text_line(stderr, "error: ", culprit_error_last());
    exit_code = RUNNER_EXIT_USAGE;
cleanup:
    free(history_file);
    culprit_history_run_free(run);
    runner_dispose(&r);
    return exit_code;
}
