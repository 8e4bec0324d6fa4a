/*
 * The real probe of a bisection session (bisect_internal.h): each side of a
 * comparison (the good end, the candidate) has a temporary checkout outside the
 * user's working tree; a commit is put there, built with the build command, and run
 * with the measured command, each in a process group of its own so that a timeout
 * (or culprit_process_interrupt() on Ctrl-C) ends everything it started.
 *
 * When a candidate turns out good it becomes the new good end, and the two
 * checkouts trade roles (swap), so each commit is built once and a build directory
 * is reused incrementally. The second measured checkout is not built from scratch:
 * it is seeded with a copy of the first one's built tree and switched to its commit
 * (an incremental build, as `git bisect` makes in its one worktree), and from then
 * on the two take turns at the first one's path, exchanged before each build and
 * run, so outputs that name their directory (a CMake cache, dependency files, an
 * rpath) always name the right one (docs/bisect.md, "Seeding the second checkout").
 *
 * With --run/--test and a history store, runs of a commit measured before this
 * session that detection would compare with the session's own (detect's one rule,
 * culprit_detect_comparable: the machine class, the build, the metric counted the
 * same way) are reused as samples, and runs this session makes are recorded
 * (opts->perf.record).
 *
 * Each --run measurement goes through a history directory of its own: the JUnit-XML
 * files the run command (a separate process) writes there are the contract between
 * the two, as for culprit check (docs/bisect.md, "What a run returns").
 *
 * With --metric (instructions under Valgrind) the run command gets CULPRIT_METRIC=NAME
 * (the runner's --metric), a run's value is the test's count
 * (culprit_detect_counted_value), and a result not counted with a tool stops the
 * session. A --command's run tells its CPU time beside its wall time; --metric cpu_ns
 * judges that instead.
 */
#define _GNU_SOURCE /* asprintf */
#include "bisect_internal.h"
#include "culprit/calltree.h"
#include "culprit/core.h"
#include "culprit/detect.h"
#include "culprit/history.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
    const culprit_bisect_options *opts;
    culprit_vcs_checkout *ck[CULPRIT_BISECT__NSIDES]; /* indexed by culprit_bisect__side */
    /* Which commit each checkout holds a successful build of ("" none): a commit is
     * never built twice in the same checkout. */
    struct {
        const culprit_vcs_checkout *ck;
        char sha[41];
    } built[CULPRIT_BISECT__NSIDES];
    /* The store's runs are read once, when the session starts (`past`), so the runs
     * it records never count as reused and steps do not read the store again. The
     * fingerprint (`fp`: machine, build, the test's metric and counting) is that of
     * the first run of the test the session measures itself. */
    culprit_history *history;
    culprit_history_runs past;
    /* The path each pair of sides takes turns at once the second one was seeded from
     * the first ([0] the measured sides, [1] the call-tree sides of --calltree-build;
     * NULL: each builds and runs at its own path). */
    char *home[2];
    culprit_run *fp;
    /* With --run/--test: the glob running that test alone ($CULPRIT_FILTER), known
     * from the first run (the name the binary declares); NULL before. */
    char *filter;
    /* What the last run also saw (cpu_of_last): its CPU time (a test's floor), whether
     * samples were preempted; known 0 when not measured. */
    double last_cpu;
    int last_preempted, last_known;
    /* > 0: the runs of a perf test take at most this many samples (max_samples()). */
    unsigned int max_samples;
} probe;

static int measured(culprit_bisect__side side)
{
    return side == CULPRIT_BISECT__GOOD || side == CULPRIT_BISECT__CANDIDATE;
}

/* The other side of a side's pair: the measured sides, or the call-tree ones. */
static culprit_bisect__side partner(culprit_bisect__side side)
{
    switch (side) {
    case CULPRIT_BISECT__GOOD:
        return CULPRIT_BISECT__CANDIDATE;
    case CULPRIT_BISECT__CANDIDATE:
        return CULPRIT_BISECT__GOOD;
    case CULPRIT_BISECT__CT_GOOD:
        return CULPRIT_BISECT__CT_CANDIDATE;
    default:
        return CULPRIT_BISECT__CT_GOOD;
    }
}

/* The command that builds on a side: the call-tree sides with --calltree-build when
 * given (NULL: no build command). */
static const char *build_command(const probe *p, culprit_bisect__side side)
{
    return !measured(side) && p->opts->calltree_build ? p->opts->calltree_build
                                                      : p->opts->measure.build;
}

/* Puts a side's checkout at its pair's shared path before it is built or run. */
static int at_home(probe *p, culprit_bisect__side side)
{
    culprit_bisect__side other = partner(side);
    const char *home = p->home[!measured(side)];

    if (!home || !strcmp(culprit_vcs_checkout_path(p->ck[side]), home))
        return 0;
    if (culprit_vcs_checkout_exchange(p->ck[side], p->ck[other]) < 0)
        return culprit_error_recode(CULPRIT_ERROR);
    return 0;
}

/*
 * The checkout of a side that has none yet, seeded from the other side of its pair
 * (the measured sides, or the call-tree sides of --calltree-build) when that one holds
 * a successful build: a copy of its tree, build outputs and times included, switched
 * to `sha`, then exchanged with it, so the copy is built where the outputs were made.
 * Every build, run and call-tree recording of a side puts its checkout back at that
 * path first (at_home). Where that cannot be done (no build command; a file system
 * that cannot exchange directories) the checkout is made afresh.
 */
static int create_checkout(probe *p, culprit_vcs *repo, culprit_bisect__side side, const char *sha)
{
    culprit_bisect__side other = partner(side);
    culprit_vcs_checkout *from = p->ck[other], *copy = NULL;
    culprit_vcs_checkout_options o;
    char **home = &p->home[!measured(side)];
    int error, seeded = 0;

    culprit_vcs_checkout_options_init(&o, CULPRIT_VCS_CHECKOUT_OPTIONS_VERSION);
    o.parent_dir = p->opts->measure.checkout_parent;
    for (int i = 0; from && i < CULPRIT_BISECT__NSIDES; i++)
        seeded |= p->built[i].ck == from && p->built[i].sha[0];
    if (!build_command(p, side))
        seeded = 0;
    if (!seeded)
        return culprit_vcs_checkout_create(&p->ck[side], repo, sha, &o);
    if ((error = culprit_vcs_checkout_copy(&copy, from, sha, &o)) < 0)
        return error;
    if (!(*home = culprit_strdup(culprit_vcs_checkout_path(from)))) {
        culprit_vcs_checkout_remove(copy);
        return CULPRIT_ERROR;
    }
    if ((error = culprit_vcs_checkout_exchange(copy, from)) < 0) {
        /* Outputs naming the other path would be wrong here: start afresh. */
        free(*home);
        *home = NULL;
        culprit_vcs_checkout_remove(copy);
        if (error != CULPRIT_ESKIP)
            return error;
        culprit_error_clear();
        return culprit_vcs_checkout_create(&p->ck[side], repo, sha, &o);
    }
    p->ck[side] = copy;
    return 0;
}

/* Puts `sha` into the side's checkout (created on first use) and builds it: with
 * opts->measure.build, or on a call-tree side with opts->calltree_build when given. */
static int build(void *payload, culprit_vcs *repo, culprit_bisect__side side, const char *sha,
                 int *built)
{
    probe *p = payload;
    culprit_vcs_checkout **ck = &p->ck[side];
    /* The call-tree sides are built with the instrumented build command. */
    const char *command = build_command(p, side);
    double elapsed;
    int error, slot = -1;

    *built = 0;
    for (int i = 0; i < CULPRIT_BISECT__NSIDES; i++)
        if (*ck && p->built[i].ck == *ck) {
            if (!strcmp(p->built[i].sha, sha))
                return 0; /* already built there */
            slot = i;
        }

    if (!*ck) {
        if ((error = create_checkout(p, repo, side, sha)) < 0)
            return error;
    } else if ((error = culprit_vcs_checkout_switch(*ck, sha)) < 0) {
        return error;
    }
    for (int i = 0; slot < 0 && i < CULPRIT_BISECT__NSIDES; i++)
        if (!p->built[i].ck) /* a new checkout takes a free record */
            slot = i;
    p->built[slot].ck = *ck;
    p->built[slot].sha[0] = '\0';
    if (command) {
        *built = 1;
        if ((error = at_home(p, side)) < 0 ||
            (error = culprit_bisect__run_command(
                 &elapsed, NULL, command, culprit_vcs_checkout_path(*ck),
                 culprit_bisect__build_timeout(p->opts), NULL, "--build-timeout")) < 0)
            return error;
    }
    memcpy(p->built[slot].sha, sha, 41);
    return 0;
}

/* The result of the perf test `test` ("suite.test" or "test") in one run, or NULL. */
static const culprit_test_result *test_in_run(const culprit_run *run, const char *test)
{
    const culprit_test_result *found = NULL;
    const char *suite = run->suite ? run->suite : "";
    size_t len = strlen(suite);

    for (size_t t = 0; t < run->ntests; t++) {
        const culprit_test_result *x = &run->tests[t];
        if (!strcmp(x->name, test) ||
            (!strncmp(test, suite, len) && test[len] == '.' && !strcmp(test + len + 1, x->name)))
            found = x;
    }
    return found;
}

/* The sample a run gives a step: the test's mean as its binary measured it (the
 * judged summary, inside the severe fences, when recorded: its time, or with a
 * time --metric such as cpu_ns that series), or with a counted --metric its count. */
static double run_value(const culprit_test_result *t, const culprit_bisect_options *o)
{
    if (culprit_bisect__counted(o))
        return culprit_detect_counted_value(t);
    return t->judged.n >= 2 ? t->judged.mean : t->summary.mean;
}

/* With --metric: the result judged that metric (CULPRIT_METRIC reached the runner),
 * and a counted one was counted by a tool. */
static int counts(const culprit_test_result *t, const culprit_bisect_options *o)
{
    return !o->perf.metric || (t->metric && strcmp(t->metric, o->perf.metric) == 0 &&
                               (t->counted_by || !culprit_bisect__counted(o)));
}

/* Keeps what past runs must share with the session's runs to stand in for them: the
 * run's machine and build, the test's metric and counting (`t` of `run`). */
static int keep_fingerprint(probe *p, const culprit_run *run, const culprit_test_result *t)
{
    culprit_run *fp = NULL;
    culprit_test_result *ft;
    int error;

    if (p->fp)
        return 0;
    if ((error = culprit_history_run_new(&fp)) < 0 ||
        (error = culprit_history_run_add_test(&ft, fp)) < 0)
        goto cleanup;
    if ((run->machine && !(fp->machine = culprit_strdup(run->machine))) ||
        (run->machine_class && !(fp->machine_class = culprit_strdup(run->machine_class))) ||
        (run->compiler && !(fp->compiler = culprit_strdup(run->compiler))) ||
        (run->flags && !(fp->flags = culprit_strdup(run->flags))) ||
        (t->metric && !(ft->metric = culprit_strdup(t->metric))) ||
        (t->counted_by && !(ft->counted_by = culprit_strdup(t->counted_by)))) {
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    p->fp = fp;
    fp = NULL;
cleanup:
    culprit_history_run_free(fp);
    return error;
}

/* Stores a run of this session in history (opts->perf.record). */
static int record_run(probe *p, const culprit_run *run)
{
    if (!p->history || !p->opts->perf.record)
        return 0;
    return culprit_history_store(p->history, run, NULL);
}

int culprit_bisect__reusable(const culprit_run *fp, const culprit_test_result *fp_test,
                             const culprit_run *past, const culprit_test_result *t, const char *sha)
{
    return t && !past->dirty && past->commit && strcmp(past->commit, sha) == 0 &&
           culprit_history_test_result_measured(t) &&
           culprit_detect_comparable(NULL, fp, fp_test, past, t, 0) == 1;
}

static int history_pending(void *payload)
{
    probe *p = payload;
    return p->history && !p->fp;
}

/*
 * Appends to x[*n..cap) the samples history already holds for `sha`: runs of the
 * test that passed, at that commit with a clean tree, comparable with the session's
 * own (culprit_bisect__reusable), newest first, none of them made by this session.
 */
static void reuse(void *payload, const char *sha, double *x, size_t *n, size_t cap)
{
    probe *p = payload;

    if (!p->fp)
        return;
    for (size_t r = p->past.nruns; r-- > 0 && *n < cap;) {
        const culprit_run *run = p->past.runs[r];
        const culprit_test_result *t = test_in_run(run, p->opts->perf.test);
        if (culprit_bisect__reusable(p->fp, &p->fp->tests[0], run, t, sha))
            x[(*n)++] = run_value(t, p->opts);
    }
}

/* What a run of the test also tells (cpu_of_last): with time judged (no --metric), its
 * CPU floor (the fastest sample of the cpu_ns series inside the severe fences:
 * culprit_detect_select_metric) and whether samples were preempted. `run` is changed
 * (the selected series); the caller reads nothing else of it after. */
static int keep_cpu(probe *p, culprit_run *run, const culprit_test_result *t)
{
    int error;

    p->last_known = 0;
    if (p->opts->perf.metric)
        return 0;
    p->last_preempted = t->preempted > 0;
    if ((error = culprit_detect_select_metric(run, "cpu_ns", p->opts->measure.confidence)) < 0) {
        culprit_error_clear(); /* no CPU series recorded: not known */
        return 0;
    }
    p->last_cpu = t->judged.n >= 1 ? t->judged.min : t->summary.min;
    p->last_known = isfinite(p->last_cpu) && p->last_cpu > 0;
    return 0;
}

static int cpu_of_last(void *payload, double *cpu_ns, int *preempted)
{
    probe *p = payload;

    if (!p->last_known)
        return CULPRIT_ENOTFOUND;
    *cpu_ns = p->last_cpu;
    *preempted = p->last_preempted;
    return 0;
}

/* $CULPRIT_FILTER for the test declared as `name`: the name as a literal glob. */
static int set_filter(probe *p, const char *name)
{
    culprit_buf glob = CULPRIT_BUF_INIT;
    int error;

    free(p->filter);
    p->filter = NULL;
    if ((error = culprit_buf_put_glob_literal(&glob, name)) == 0)
        p->filter = culprit_buf_detach(&glob);
    culprit_buf_dispose(&glob);
    return error;
}

/* The test in the runs a --run wrote, each run recorded into the session's history;
 * learns the test's declared name for $CULPRIT_FILTER. */
static int read_test(probe *p, culprit_history_runs *runs, double *value)
{
    const culprit_bisect_options *o = p->opts;
    const culprit_test_result *t = NULL;
    culprit_run *t_run = NULL;
    int error;

    for (size_t r = 0; r < runs->nruns; r++) {
        const culprit_test_result *x = test_in_run(runs->runs[r], o->perf.test);
        if (x) {
            t = x;
            t_run = runs->runs[r];
        }
        if ((error = record_run(p, runs->runs[r])) < 0)
            return error;
    }
    if (!t || !culprit_history_test_result_measured(t))
        return culprit_error_set(CULPRIT_ESKIP, "'%s' %s test '%s'", o->perf.run,
                                 t ? "ran but did not pass" : "did not measure", o->perf.test);
    if (!counts(t, o))
        return culprit_error_set(
            CULPRIT_ERROR,
            "'%s' measured test '%s' for '%s'%s, not %s '%s': a bisection of a metric needs "
            "the runner to %s",
            o->perf.run, o->perf.test, t->metric ? t->metric : "wall_ns",
            t->counted_by ? "" : " natively", culprit_bisect__counted(o) ? "counted" : "for",
            o->perf.metric,
            culprit_bisect__counted(o) ? "count it (run under Valgrind: install valgrind)"
                                       : "read $CULPRIT_METRIC (a test binary of culprit's)");
    if ((error = keep_fingerprint(p, t_run, t)) < 0)
        return error;
    *value = run_value(t, o);
    if (!p->filter && (error = set_filter(p, t->name)) < 0)
        return error;
    return keep_cpu(p, t_run, t);
}

/*
 * One run in the side's checkout, its value in *value (ns): the command's whole run
 * time, or, with --run/--test, the test's mean as the test binary measured it (its
 * judged summary, inside the severe fences), read from a history directory of its
 * own and recorded into the session's history. Once the test's declared name is
 * known, the run command gets $CULPRIT_FILTER, so a test binary runs that test alone.
 */
static int measure(void *payload, culprit_bisect__side side, const char *sha, double *value)
{
    probe *p = payload;
    const culprit_bisect_options *o = p->opts;
    const char *path;
    char dir[PATH_MAX], env_dir[PATH_MAX + 32], env_commit[64], env_metric[128], env_max[64];
    char *env_filter = NULL;
    /* The run's history is read at once and deleted: no fsync (CULPRIT_HISTORY_SYNC=0). */
    const char *env[] = {
        env_dir, env_commit, "CULPRIT_FAIL_ON=none", "CULPRIT_HISTORY_SYNC=0", NULL, NULL, NULL,
        NULL,    NULL};
    culprit_history *h = NULL;
    culprit_history_runs runs = {0, NULL, 0};
    culprit_history_query q = {.flags = CULPRIT_HISTORY_LOAD_SAMPLES};
    size_t nenv = 4;
    double elapsed;
    int error;

    if ((error = at_home(p, side)) < 0)
        return error;
    path = culprit_vcs_checkout_path(p->ck[side]);
    if (!o->perf.run && o->command.metric && strcmp(o->command.metric, "instructions") == 0)
        return culprit_bisect__count_command(value, o->command.line, path, o->measure.timeout_s);
    if (!o->perf.run) { /* its wall time (and CPU time), or with --metric cpu_ns its CPU time */
        double cpu = 0;
        error = culprit_bisect__run_command(o->command.metric ? &elapsed : value,
                                            o->command.metric ? value : &cpu, o->command.line, path,
                                            o->measure.timeout_s, NULL, "--timeout");
        /* cpu_of_last: a command's preempted samples are not known (nothing judges them) */
        p->last_known = error == 0 && !o->command.metric && cpu > 0;
        p->last_cpu = cpu;
        p->last_preempted = 0;
        return error;
    }
    {
        culprit_buf made = CULPRIT_BUF_INIT;
        error = culprit_fs_make_temp(&made, NULL, "bisect-run", 1);
        snprintf(dir, sizeof(dir), "%s", culprit_buf_cstr(&made));
        culprit_buf_dispose(&made);
        if (error < 0)
            return error;
    }
    snprintf(env_dir, sizeof(env_dir), "CULPRIT_HISTORY_DIR=%s", dir);
    snprintf(env_commit, sizeof(env_commit), "CULPRIT_COMMIT=%s", sha);
    snprintf(env_metric, sizeof(env_metric), "CULPRIT_METRIC=%s",
             o->perf.metric ? o->perf.metric : "");
    if (o->perf.metric)
        env[nenv++] = env_metric;
    snprintf(env_max, sizeof(env_max), "CULPRIT_MAX_REPETITIONS=%u", p->max_samples);
    if (p->max_samples)
        env[nenv++] = env_max;
    if (p->filter && asprintf(&env_filter, "CULPRIT_FILTER=%s", p->filter) < 0) {
        env_filter = NULL;
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    /* The test alone runs in the binary's own process (CULPRIT_NO_FORK=1): its crash
     * fails the run either way, and no child and result file are made for it
     * (docs/detection.md, "Paired confirmation"). Not while every test runs. */
    if (env_filter) {
        env[nenv++] = env_filter;
        env[nenv] = "CULPRIT_NO_FORK=1";
    }
    p->last_known = 0;
    if ((error = culprit_bisect__run_command(&elapsed, NULL, o->perf.run, path,
                                             o->measure.timeout_s, env, "--timeout")) < 0 ||
        (error = culprit_history_open(&h, dir, 0)) < 0 ||
        (error = culprit_history_load(&runs, h, &q, NULL, NULL)) < 0)
        goto cleanup;
    error = read_test(p, &runs, value);
cleanup:
    free(env_filter);
    culprit_history_runs_dispose(&runs);
    culprit_history_free(h);
    culprit_bisect__remove_tree(dir);
    return error;
}

static void swap(void *payload)
{
    probe *p = payload;
    culprit_vcs_checkout *t = p->ck[CULPRIT_BISECT__GOOD];

    p->ck[CULPRIT_BISECT__GOOD] = p->ck[CULPRIT_BISECT__CANDIDATE];
    p->ck[CULPRIT_BISECT__CANDIDATE] = t;
}

static const char *dir_of(void *payload, culprit_bisect__side side)
{
    probe *p = payload;

    if (!p->ck[side]) {
        culprit_error_set(CULPRIT_ENOTFOUND, "no checkout");
        return NULL;
    }
    /* A recording runs the build where it was made (paths in its outputs, RPATHs). */
    if (at_home(p, side) < 0)
        return NULL;
    return culprit_vcs_checkout_path(p->ck[side]);
}

static void dispose(void *payload)
{
    probe *p = payload;

    if (!p)
        return;
    for (int i = 0; i < CULPRIT_BISECT__NSIDES; i++)
        culprit_vcs_checkout_remove(p->ck[i]);
    culprit_history_free(p->history);
    free(p->home[0]);
    free(p->home[1]);
    free(p->filter);
    culprit_history_run_free(p->fp);
    culprit_history_runs_dispose(&p->past);
    free(p);
}

/* The runs a side may reuse: the session's history as check sees it, the store
 * directory and the repository's shared ref (culprit_history_source_load()); none
 * at all is no error. */
static int load_past(probe *p, const culprit_bisect_options *opts)
{
    culprit_vcs *repo = NULL;
    culprit_history_source *src = NULL;
    int error;

    if (culprit_vcs_open(&repo, opts->measure.repository ? opts->measure.repository : ".") < 0) {
        repo = NULL; /* the directory alone */
        culprit_error_clear();
    }
    if ((error = culprit_history_source_open(&src, opts->perf.history_dir, repo,
                                             CULPRIT_HISTORY_FROM_BOTH)) == 0 &&
        (error = culprit_history_source_load(&p->past, src, NULL, NULL, NULL)) ==
            CULPRIT_ENOTFOUND) {
        culprit_error_clear();
        error = 0;
    }
    culprit_history_source_free(src);
    culprit_vcs_free(repo);
    return error;
}

void culprit_bisect__probe_max_samples(culprit_bisect__probe *out, unsigned int samples)
{
    probe *p = out->payload;

    p->max_samples = samples;
}

int culprit_bisect__probe_test_name(culprit_bisect__probe *out, const char *name)
{
    return set_filter(out->payload, name);
}

void culprit_bisect__probe_retarget(culprit_bisect__probe *out, const culprit_bisect_options *opts)
{
    probe *p = out->payload;

    p->opts = opts;
    free(p->filter); /* learned again from the test's first run */
    p->filter = NULL;
    culprit_history_run_free(p->fp);
    p->fp = NULL;
    p->last_known = 0;
}

int culprit_bisect__probe_open(culprit_bisect__probe *out, const culprit_bisect_options *opts)
{
    probe *p = calloc(1, sizeof(*p));
    int error;

    memset(out, 0, sizeof(*out));
    if (!p)
        return CULPRIT_ERROR_NOMEM();
    p->opts = opts;
    if (opts->perf.run && opts->perf.history_dir) {
        /* A store that does not exist yet is created only when runs are recorded. */
        struct stat st;
        if (((opts->perf.record || stat(opts->perf.history_dir, &st) == 0) &&
             (error = culprit_history_open(&p->history, opts->perf.history_dir,
                                           opts->perf.record)) < 0) ||
            (error = load_past(p, opts)) < 0) {
            dispose(p);
            return error;
        }
    }
    out->build = build;
    out->measure = measure;
    out->history_pending = history_pending;
    out->reuse = reuse;
    out->swap = swap;
    out->dir = dir_of;
    out->dispose = dispose;
    out->payload = p;
    out->cpu_of_last = cpu_of_last;
    return 0;
}
