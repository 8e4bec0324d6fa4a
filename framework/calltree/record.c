/*
 * Recording a command's call tree the paper's way (Heger et al. 2013, section 4.2):
 * "we use a full instrumentation of the test case to retrieve the structure of a
 * call tree and the number of method calls", then "in each step, PRCA instruments
 * only the methods on one level of the call tree". The command is run once with
 * CULPRIT_TRACE_MODE=structure, then once per depth with CULPRIT_TRACE_MODE=level;
 * the trace runtime linked into it writes one file per run into a temporary
 * directory, and the runs are merged here into one tree, then symbolized while the
 * binary is still there. `culprit calltree record` and `culprit bisect --calltree`
 * (in a checkout directory, with its own environment) are built on this. The times
 * are corrected as each run comes in and once all are merged (record_correct.c).
 */
#define _GNU_SOURCE /* asprintf */
#include "calltree_internal.h"
#include "culprit/calltree.h"

#include <math.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int culprit_calltree_record_options_init(culprit_calltree_record_options *opts,
                                         unsigned int version)
{
    static const culprit_calltree_record_options defaults = CULPRIT_CALLTREE_RECORD_OPTIONS_INIT;

    return culprit_options_init_from(opts, &defaults, sizeof(defaults), version,
                                     CULPRIT_CALLTREE_RECORD_OPTIONS_VERSION, "record");
}

/* Runs the command once, under the runtime's variables for this run; 0 when it ran
 * to an exit (any status). The caller's environment is inherited, with every
 * CULPRIT_TRACE_* variable of this run set after the options' extra entries: a
 * variable left over from the user's shell must not redirect the files, and an
 * inherited CULPRIT_TRACE_DIR is emptied (the runtime and the runner take an empty
 * value for unset), so the runs write nothing but this file. */
/* The CPU time (user + system) of the children waited for so far, in ns. */
static double children_cpu_ns(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_CHILDREN, &ru) != 0)
        return 0;
    return ((double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec) * 1e9 +
           ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) * 1e3;
}

/* What record keeps of a run: its CPU time (its children's included) and exit status. */
typedef struct {
    double cpu_ns;
    int status;
} run_info;

/* An empty `path` and `mode` run a program with the runtime off (the uninstrumented
 * baseline). */
static int run_once(const char *const *argv, const culprit_calltree_record_options *opts,
                    const char *path, const char *mode, unsigned int level, run_info *info)
{
    culprit_process_options po = CULPRIT_PROCESS_OPTIONS_INIT;
    culprit_process_result result;
    culprit_buf vars = CULPRIT_BUF_INIT, msg = CULPRIT_BUF_INIT;
    const char **env = NULL;
    size_t nextra = 0, k = 0;
    int error;

    while (opts->env && opts->env[nextra])
        nextra++;
    /* One buffer, four NUL-separated entries. */
    if ((error = culprit_buf_printf(&vars, "CULPRIT_TRACE_OUT=%s", path)) < 0 ||
        (error = culprit_buf_put(&vars, "", 1)) < 0 ||
        (error = culprit_buf_printf(&vars, "CULPRIT_TRACE_MODE=%s", mode)) < 0 ||
        (error = culprit_buf_put(&vars, "", 1)) < 0 ||
        (error = level ? culprit_buf_printf(&vars, "CULPRIT_TRACE_LEVEL=%u", level)
                       : culprit_buf_puts(&vars, "CULPRIT_TRACE_LEVEL=")) < 0 ||
        (error = culprit_buf_put(&vars, "", 1)) < 0 ||
        (error = culprit_buf_puts(&vars, "CULPRIT_TRACE_DIR=")) < 0)
        goto cleanup;
    if (!(env = calloc(nextra + 5, sizeof(*env)))) {
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    for (size_t i = 0; i < nextra; i++)
        env[k++] = opts->env[i];
    for (const char *v = vars.ptr; k < nextra + 4; v += strlen(v) + 1)
        env[k++] = v;
    po.argv = argv;
    po.dir = opts->workdir;
    po.env = env;
    po.output = opts->quiet ? CULPRIT_PROCESS_QUIET : CULPRIT_PROCESS_INHERIT;
    info->cpu_ns = children_cpu_ns();
    error = culprit_process_run(&result, &po);
    info->cpu_ns = children_cpu_ns() - info->cpu_ns;
    info->status = error < 0 ? -1 : result.status;
    if (error < 0) {
        /* Not found means "not instrumented" to our callers; this is another error. */
        error = culprit_error_recode(CULPRIT_ERROR);
        goto cleanup;
    }
    if (!result.exited) {
        char *what = NULL;
        if (asprintf(&what, "'%s'", argv[0]) >= 0)
            culprit_process_describe(&msg, &result, what, 0);
        free(what);
        error = culprit_error_set(CULPRIT_ERROR, "%s while recorded", culprit_buf_cstr(&msg));
    }
    culprit_process_result_dispose(&result);
cleanup:
    free(env);
    culprit_buf_dispose(&vars);
    culprit_buf_dispose(&msg);
    return error;
}

static void command_line(culprit_buf *out, const char *const *argv)
{
    for (size_t i = 0; argv[i]; i++) {
        if (i)
            culprit_buf_puts(out, " ");
        culprit_buf_puts(out, argv[i]);
    }
}

/* The command recorded nothing: why, and the fix (diagnose.c). */
static int not_instrumented(const char *const *argv, const culprit_calltree_record_options *opts,
                            const char *what)
{
    return culprit_calltree__explain_empty(argv, opts->workdir, what);
}

static int same_function(const culprit_calltree *a, size_t fa, const culprit_calltree *b, size_t fb)
{
    const culprit_calltree_function *x = &a->functions[fa], *y = &b->functions[fb];
    return strcmp(x->name, y->name) == 0 &&
           ((!x->file && !y->file) || (x->file && y->file && strcmp(x->file, y->file) == 0));
}

/* Adds the times of a level run's nodes at depth `depth` into the structure tree,
 * matched by call path, the timed calls counted in `samples`; finish_level() then
 * scales them. Paths the structure run did not see are left out. */
static int merge_level(culprit_calltree *s, const culprit_calltree *l, size_t depth)
{
    size_t *map = malloc(l->nnodes * sizeof(*map));

    if (!map)
        return culprit_error_set(CULPRIT_ERROR, "out of memory merging call trees");
    map[0] = 0;
    for (size_t i = 1; i < l->nnodes; i++) {
        const culprit_calltree_node *n = &l->nodes[i];
        size_t p = map[n->parent], found = CULPRIT_CALLTREE_NONE;
        map[i] = CULPRIT_CALLTREE_NONE;
        if (p == CULPRIT_CALLTREE_NONE || n->depth > depth)
            continue;
        for (size_t c = 0; c < s->nodes[p].nchildren && found == CULPRIT_CALLTREE_NONE; c++)
            if (same_function(s, s->nodes[s->nodes[p].children[c]].function, l, n->function))
                found = s->nodes[p].children[c];
        map[i] = found;
        if (found != CULPRIT_CALLTREE_NONE && n->depth == depth && n->calls > 0 &&
            !isnan(n->inclusive_ns)) {
            culprit_calltree_node *t = &s->nodes[found];
            if (t->samples == 0)
                t->inclusive_ns = t->inclusive_sq_ns2 = 0;
            t->inclusive_ns += n->inclusive_ns;
            t->inclusive_sq_ns2 += n->inclusive_sq_ns2;
            t->samples += n->calls;
        }
    }
    free(map);
    return 0;
}

/* The sums of depth `depth`, over `samples` timed calls from all its runs, scaled to
 * the structure run's call count: the mean and the mean square per call are kept
 * (a nondeterministic program may call a node more or less often in a timing run),
 * and `samples` stays the n of the statistics. */
static void finish_level(culprit_calltree *s, size_t depth)
{
    for (size_t i = 1; i < s->nnodes; i++) {
        culprit_calltree_node *t = &s->nodes[i];
        if (t->depth == depth && t->samples > 0) {
            double scale = (double)t->calls / (double)t->samples;
            t->inclusive_ns *= scale;
            t->inclusive_sq_ns2 *= scale;
        }
    }
}

/* The CPU times of the runs: the baseline's (NAN: none), and per depth the least
 * over its runs (noise only adds) and the calls its runs timed. */
typedef struct {
    double baseline_ns;
    double *cpu_ns, *ntimed;
    double ncalls;
    int status; /* the structure run's exit status */
} run_costs;

/* The uninstrumented baseline, run three times: the least CPU time. It must end as
 * the instrumented command did: a baseline that fails at once (a wrong path: sh
 * exits 127) would make the instrumentation look expensive. */
static int run_baseline(run_costs *rc, const culprit_calltree_record_options *opts)
{
    rc->baseline_ns = NAN;
    for (int k = 0; opts->baseline && k < 3; k++) {
        run_info run;
        if (run_once(opts->baseline, opts, "", "", 0, &run) < 0)
            return culprit_error_prefix("the uninstrumented baseline: ");
        if (run.status != rc->status)
            return culprit_error_set(CULPRIT_ERROR,
                                     "the uninstrumented baseline exited with status %d, the "
                                     "instrumented command with %d: they do not do the same work",
                                     run.status, rc->status);
        if (isnan(rc->baseline_ns) || run.cpu_ns < rc->baseline_ns)
            rc->baseline_ns = run.cpu_ns;
    }
    return 0;
}

/*
 * The baseline profiled by `perf record` (three runs in one profile, so that a
 * function of 1% of the time has hundreds of samples); *report gets `perf report`'s
 * table of each symbol's share, or stays NULL when perf is not there or may not
 * profile (perf_event_paranoid, a container's seccomp): the times then come from
 * the level runs alone, and *why says why, for the caller to report.
 */
static int sample_baseline(char **report, char **why, const culprit_calltree_record_options *opts,
                           const char *dir)
{
    culprit_buf data = CULPRIT_BUF_INIT;
    culprit_process_options po = CULPRIT_PROCESS_OPTIONS_INIT;
    culprit_process_result result = {0};
    const char *head[] = {"perf",
                          "record",
                          "-q",
                          "-F",
                          "20000",
                          "-e",
                          "cpu-clock",
                          "-o",
                          NULL,
                          "--",
                          "/bin/sh",
                          "-c",
                          "\"$@\"; \"$@\"; \"$@\"",
                          "sh"};
    const size_t nhead = sizeof(head) / sizeof(head[0]);
    const char **argv = NULL;
    size_t n = 0;
    run_info run;
    int error;

    *report = NULL;
    while (opts->baseline[n])
        n++;
    if ((error = culprit_buf_printf(&data, "%s/perf.data", dir)) < 0)
        return error;
    if (!(argv = calloc(nhead + n + 1, sizeof(*argv)))) {
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    head[8] = data.ptr;
    memcpy(argv, head, sizeof(head));
    memcpy(argv + nhead, opts->baseline, n * sizeof(*argv));
    if (run_once(argv, opts, "", "", 0, &run) < 0) {
        /* no perf: not an error of the recording */
        if (asprintf(why, "perf did not run (%s)", culprit_error_last()) < 0)
            *why = NULL;
        culprit_error_clear();
        goto cleanup;
    }
    if (run.status != 0) {
        if (asprintf(why,
                     "perf record exited with status %d (perf_event_paranoid above 2, a "
                     "container that forbids perf_event_open, or the baseline failing)",
                     run.status) < 0)
            *why = NULL;
        goto cleanup;
    }
    {
        const char *rep[] = {"perf",   "report", "-i", data.ptr,       "--stdio", "--no-children",
                             "--sort", "sym",    "-F", "overhead,sym", "-q",      NULL};
        po.argv = rep;
        po.output = CULPRIT_PROCESS_CAPTURE;
        po.tail = 4u << 20;
        if (culprit_process_run(&result, &po) < 0)
            culprit_error_clear();
        else if (culprit_process_succeeded(&result))
            *report = result.output, result.output = NULL;
        if (!*report && asprintf(why, "perf report could not read the profile") < 0)
            *why = NULL;
    }
cleanup:
    culprit_process_result_dispose(&result);
    free(argv);
    culprit_buf_dispose(&data);
    return error;
}

/* `repeat` timing runs per depth, each corrected (record_correct.c) and merged into
 * the structure tree `s`; their CPU times go into `rc`. */
static int record_levels(culprit_calltree *s, const char *const *argv,
                         const culprit_calltree_record_options *opts, const char *path,
                         size_t nlevels, run_costs *rc)
{
    culprit_calltree *l = NULL;
    int error = 0;

    for (size_t d = 1; d <= nlevels; d++) {
        if (opts->progress)
            opts->progress((unsigned int)d, (unsigned int)nlevels, opts->payload);
        rc->cpu_ns[d - 1] = INFINITY;
        for (unsigned int k = 0; k < (opts->repeat ? opts->repeat : 1); k++) {
            run_info run;
            if ((error = run_once(argv, opts, path, "level", (unsigned int)d, &run)) < 0)
                goto cleanup;
            if (access(path, F_OK) != 0) {
                error = culprit_error_set(CULPRIT_ERROR,
                                          "'%s' wrote no call tree in its level-%zu run, "
                                          "although its structure run did",
                                          argv[0], d);
                goto cleanup;
            }
            if ((error = culprit_calltree_read_file(&l, path)) < 0 ||
                (error = culprit_calltree__level_raw(l, d)) < 0 ||
                (error = merge_level(s, l, d)) < 0)
                goto cleanup;
            /* The runtime's own set-up, calibration and write are no call's cost. */
            if (run.cpu_ns - l->runtime_cpu_ns < rc->cpu_ns[d - 1])
                rc->cpu_ns[d - 1] = run.cpu_ns - l->runtime_cpu_ns;
            s->overhead_ns = l->overhead_ns;
            culprit_calltree_free(l);
            l = NULL;
            unlink(path);
        }
        finish_level(s, d);
    }
cleanup:
    culprit_calltree_free(l);
    return error;
}

/* The descendants' cost taken out of the merged times: fitted against the baseline
 * when there is one, the runtime's calibration otherwise; then the tree made
 * consistent. */
static int correct(culprit_calltree *s, const run_costs *rc, size_t nlevels)
{
    double measured;
    int error = 0;

    /* The calls' cost must stand out of the run's for the fit to measure it: a program
     * of a few hundred calls costs microseconds in hooks against milliseconds of
     * noise, and a fit there would take noise for a per-call cost and subtract it
     * hundredfold. Then the runtime's estimate stays. */
    if (!isnan(rc->baseline_ns) &&
        culprit_calltree__fit_resolves(rc->ncalls, s->overhead_ns, rc->baseline_ns)) {
        for (size_t d = 0; d < nlevels; d++)
            rc->cpu_ns[d] -= rc->baseline_ns;
        s->overhead_ns = culprit_calltree__fit_cost(rc->cpu_ns, rc->ntimed, nlevels, rc->ncalls);
        s->fitted = 1;
    }
    if ((error = culprit_calltree__subtract_cost(s, s->overhead_ns)) < 0)
        return error;
    measured = culprit_calltree__total(s);
    if ((error = culprit_calltree__reconcile(s)) < 0)
        return error;
    /* Raising the callers to their callees' total adds what the deeper runs' own
     * clock reads cost them; when the total the depth-1 run measured lies nearer the
     * plain build's CPU time, the tree keeps its shares at that total. */
    if (!isnan(rc->baseline_ns))
        culprit_calltree__anchor_total(s, measured, rc->baseline_ns);
    return 0;
}

/* Exclusive time: the node's own minus its children's, each from its own run. */
static void exclusive_times(culprit_calltree *s)
{
    s->mode = CULPRIT_CALLTREE_LEVEL;
    for (size_t i = 1; i < s->nnodes; i++) {
        culprit_calltree_node *n = &s->nodes[i];
        double x = n->inclusive_ns;
        for (size_t c = 0; c < n->nchildren && !isnan(x); c++)
            x -= s->nodes[n->children[c]].inclusive_ns;
        n->exclusive_ns = isnan(x) ? NAN : x < 0 ? 0 : x;
    }
}

/* The recorded tree named (symbolized), its own times from the profile `report`
 * when there is one that fits, else the reason (*why, taken), and whether the
 * correction holds on this program (the total against the baseline's CPU time). */
static int finish_tree(culprit_calltree *s, const culprit_calltree_record_options *opts,
                       const char *report, char **why, double baseline_ns)
{
    int error;

    /* The profile names functions: after symbolization. */
    if ((error = culprit_calltree_symbolize(s, NULL)) < 0 ||
        (report && (error = culprit_calltree__apply_samples(s, report, &s->sampled)) < 0))
        return error;
    if (*why) /* perf gave no profile (apply_samples says why a profile went unused) */
        s->unsampled = *why, *why = NULL;
    exclusive_times(s);
    if (opts->baseline) {
        s->baseline_excess = culprit_calltree__baseline_excess(s, baseline_ns);
        /* Scaled without a profile: the excess the callees' times had (bias note). */
        if (s->scaled > 0 && !s->sampled)
            s->baseline_excess = (1 + s->baseline_excess) / s->scaled - 1;
    }
    return 0;
}

int culprit_calltree_record(culprit_calltree **out, const char *const *argv,
                            const culprit_calltree_record_options *opts)
{
    culprit_calltree_record_options defaults = CULPRIT_CALLTREE_RECORD_OPTIONS_INIT;
    culprit_calltree *s = NULL;
    culprit_buf dir = CULPRIT_BUF_INIT, path = CULPRIT_BUF_INIT, cmd = CULPRIT_BUF_INIT;
    run_costs rc = {NAN, NULL, NULL, 0, 0};
    char *report = NULL, *why = NULL;
    size_t depth = 0, nlevels;
    run_info run;
    int error;

    *out = NULL;
    if (!opts)
        opts = &defaults;
    if (opts->version != CULPRIT_CALLTREE_RECORD_OPTIONS_VERSION)
        return culprit_options_check_version(opts->version, CULPRIT_CALLTREE_RECORD_OPTIONS_VERSION,
                                             "record");
    if (!argv || !argv[0])
        return culprit_error_set(CULPRIT_EINVALID, "no command to record");
    if (opts->baseline && !opts->baseline[0])
        return culprit_error_set(CULPRIT_EINVALID, "an empty baseline command");
    if (opts->metric && strcmp(opts->metric, "time") != 0) /* "instructions" */
        return culprit_calltree__record_callgrind(out, argv, opts);
    if ((error = culprit_fs_make_temp(&dir, NULL, "record", 1)) < 0) {
        culprit_buf_clear(&dir);
        goto cleanup;
    }
    if ((error = culprit_buf_printf(&path, "%s/run.calltree", dir.ptr)) < 0)
        goto cleanup;

    /* The structure run. */
    if (opts->progress)
        opts->progress(0, 0, opts->payload);
    if ((error = run_once(argv, opts, path.ptr, "structure", 0, &run)) < 0)
        goto cleanup;
    rc.status = run.status;
    if (access(path.ptr, F_OK) != 0) {
        error = not_instrumented(argv, opts, "wrote no call tree");
        goto cleanup;
    }
    if ((error = culprit_calltree_read_file(&s, path.ptr)) < 0)
        goto cleanup;
    unlink(path.ptr);
    if (s->nnodes <= 1) {
        error = not_instrumented(argv, opts, "recorded no instrumented call");
        goto cleanup;
    }
    for (size_t i = 1; i < s->nnodes; i++)
        if (s->nodes[i].depth > depth)
            depth = s->nodes[i].depth;
    nlevels = opts->max_levels && opts->max_levels < depth ? opts->max_levels : depth;
    if (!(rc.cpu_ns = calloc(nlevels, sizeof(double))) ||
        !(rc.ntimed = calloc(nlevels, sizeof(double)))) {
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    for (size_t i = 1; i < s->nnodes; i++) {
        rc.ncalls += (double)s->nodes[i].calls;
        if (s->nodes[i].depth <= nlevels)
            rc.ntimed[s->nodes[i].depth - 1] += (double)s->nodes[i].calls;
    }

    if ((error = run_baseline(&rc, opts)) < 0 ||
        (opts->baseline && (error = sample_baseline(&report, &why, opts, dir.ptr)) < 0) ||
        (error = record_levels(s, argv, opts, path.ptr, nlevels, &rc)) < 0 ||
        (error = correct(s, &rc, nlevels)) < 0)
        goto cleanup;
    command_line(&cmd, argv);
    free(s->command);
    if (!(s->command = culprit_buf_detach(&cmd))) {
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    if ((error = finish_tree(s, opts, report, &why, rc.baseline_ns)) < 0)
        goto cleanup;
    *out = s;
    s = NULL;
cleanup:
    free(report);
    free(why);
    free(rc.cpu_ns);
    free(rc.ntimed);
    culprit_calltree_free(s);
    if (dir.size) {
        culprit_error_state saved;
        culprit_error_save(&saved);
        (void)culprit_fs_remove_tree(dir.ptr); /* best effort: the result is in memory */
        culprit_error_restore(&saved);
    }
    culprit_buf_dispose(&dir);
    culprit_buf_dispose(&path);
    culprit_buf_dispose(&cmd);
    return error;
}
