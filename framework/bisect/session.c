/*
 * A bisection session on a real repository (Heger et al. 2013, section 4.1): the
 * algorithm of bisect.c picks the commit, this file builds it in a temporary
 * checkout, measures it against the good end and marks it.
 *
 * Measuring: after one warm-up run of each (the first run after a build is disturbed
 * by it), the good end and the candidate are run in pairs, back to back, every other
 * pair with the candidate first, and the step is judged on the pairs' differences, in
 * which the slow drift of a shared machine's speed cancels (judge()). Each run of the
 * command is one sample, so the interval includes what makes one run differ from the
 * next (the noise a within-run interval misses). A candidate is bad when it is
 * significantly slower at `confidence` by more than `threshold`, good when its
 * interval rules such a slowdown out, and when the runs cannot tell,
 * more runs are taken, up to max_runs (Pinpoint-style adaptive sampling); still
 * undecided, it counts as good, and the step says so. Such a step may be wrong: the
 * culprit found is then no slower than its parent, and the search starts again below
 * it or above it, where the slowdown is measured to be (search_again, BACKTRACK_MAX
 * times).
 *
 * Two checkouts are kept: the good end's and the candidate's. When a candidate
 * turns out good it becomes the new good end, and the two checkouts trade roles,
 * so each commit is built once and a build directory is reused incrementally.
 */
#define _GNU_SOURCE /* asprintf */
#include "bisect_internal.h"
#include "culprit/core.h"
#include "culprit/history.h"
#include "culprit/stats.h"
#include "culprit/vcs.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The last bytes of a failing command's output, for the skip reason. */
#define OUTPUT_TAIL 600

typedef struct {
    const culprit_bisect_options *opts;
    culprit_vcs *repo;
    culprit_vcs_checkout *good_ck, *cand_ck;
    culprit_bisect_result *result;
    size_t failures;
    /* Which commit each checkout holds a successful build of ("" none): a commit is
     * never built twice in the same checkout. */
    struct {
        const culprit_vcs_checkout *ck;
        char sha[41];
    } built[2];
    char good_sha[41]; /* the good end the next comparison measures against */
    int good_failed;   /* the last comparison failed on its good end, not its candidate */
    /* History (--run/--test with a history store): runs of a commit measured before
     * this session on the same machine and build are reused as samples; runs this
     * session makes are recorded (opts->record). The store's runs are read once, when
     * the session starts (`past`), so the runs it records never count as reused and
     * steps do not read the store again. The build fingerprint is that of the first
     * run the session makes itself. */
    culprit_history *history;
    culprit_history_runs past;
    char *fp_machine, *fp_compiler, *fp_flags;
    int fp_known;
} session;

/* The commits between one good and one bad end, as the algorithm's DAG. */
typedef struct {
    culprit_vcs_dag dag;
    culprit_bisect_dag view;
    size_t *nparents;
    const size_t **parents;
} range;

/* --all: a range with no overall slowdown is scanned commit by commit (along the
 * first-parent chain) up to this many commits, to find a regression hidden behind
 * an improvement (the paper's oscillation); longer ones are reported unsearched. */
#define SCAN_MAX 16
/* How many times a culprit not slower than its parent sends the search into the range
 * below or above it (search_again): a bound, so that a machine too noisy to decide
 * anything still ends. */
#define BACKTRACK_MAX 2

/*
 * Runs `command` with /bin/sh in `dir` ($CULPRIT_CHECKOUT = dir), in its own process
 * group so a timeout (or culprit_process_interrupt() on Ctrl-C) ends everything it
 * started. *elapsed_ns gets the wall time from start to exit. Returns 0 when it
 * exited 0; CULPRIT_ESKIP with the reason (exit status or signal, and the tail of
 * its output) otherwise.
 */
static int run_command(double *elapsed_ns, const char *command, const char *dir, double timeout_s,
                       const char *const *env, culprit_buf *reason)
{
    culprit_process_options o = CULPRIT_PROCESS_OPTIONS_INIT;
    culprit_process_result r;
    const char *all_env[8] = {NULL};
    char checkout[PATH_MAX + 32], *what = NULL;
    size_t n = 0;
    int error;

    snprintf(checkout, sizeof(checkout), "CULPRIT_CHECKOUT=%s", dir);
    all_env[n++] = checkout;
    for (size_t i = 0; env && env[i] && n + 1 < sizeof(all_env) / sizeof(*all_env); i++)
        all_env[n++] = env[i];
    o.shell = command;
    o.dir = dir;
    o.env = all_env;
    o.timeout_s = timeout_s;
    o.output = CULPRIT_PROCESS_CAPTURE;
    o.tail = OUTPUT_TAIL;
    o.own_group = 1;
    if ((error = culprit_process_run(&r, &o)) < 0)
        return error;
    *elapsed_ns = r.elapsed_ns;
    if (!culprit_process_succeeded(&r)) {
        culprit_buf_clear(reason);
        if (asprintf(&what, "'%s'", command) < 0)
            what = NULL;
        culprit_process_describe(reason, &r, what ? what : command, timeout_s);
        free(what);
        error = CULPRIT_ESKIP;
    }
    culprit_process_result_dispose(&r);
    return error;
}

/* Puts `sha` into checkout *ck (created on first use) and builds it. */
static int prepare(session *s, culprit_vcs_checkout **ck, const char *sha, culprit_buf *reason)
{
    culprit_vcs_checkout_options o;
    double elapsed;
    int error, slot = -1;

    for (int i = 0; i < 2; i++)
        if (*ck && s->built[i].ck == *ck) {
            if (!strcmp(s->built[i].sha, sha))
                return 0; /* already built there */
            slot = i;
        }

    if (!*ck) {
        culprit_vcs_checkout_options_init(&o);
        o.parent_dir = s->opts->checkout_parent;
        if ((error = culprit_vcs_checkout_create(ck, s->repo, sha, &o)) < 0)
            return error;
    } else if ((error = culprit_vcs_checkout_switch(*ck, sha)) < 0) {
        return error;
    }
    if (slot < 0) /* a new checkout takes the free record */
        slot = !s->built[0].ck ? 0 : 1;
    s->built[slot].ck = *ck;
    s->built[slot].sha[0] = '\0';
    if (s->opts->build) {
        s->result->builds++;
        if ((error = run_command(&elapsed, s->opts->build, culprit_vcs_checkout_path(*ck),
                                 s->opts->timeout_s, NULL, reason)) < 0)
            return error;
    }
    memcpy(s->built[slot].sha, sha, 41);
    return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
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
 * judged summary, inside the severe fences, when recorded). */
static double run_value(const culprit_test_result *t)
{
    return t->judged.n >= 2 ? t->judged.mean : t->summary.mean;
}

static int same_string(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

/* Keeps the fingerprint of the session's first run and stores the run in history. */
static int record_run(session *s, const culprit_run *run)
{
    if (!s->fp_known) {
        s->fp_machine = run->machine ? culprit_strdup(run->machine) : NULL;
        s->fp_compiler = run->compiler ? culprit_strdup(run->compiler) : NULL;
        s->fp_flags = run->flags ? culprit_strdup(run->flags) : NULL;
        s->fp_known = 1;
    }
    if (!s->history || !s->opts->record)
        return 0;
    return culprit_history_store(s->history, run, NULL);
}

/*
 * Appends to x[*n..cap) the samples history already holds for `sha`: runs of the
 * test that passed, at that commit with a clean tree, on this machine with this
 * build (compiler and flags), newest first, none of them made by this session.
 */
static void reuse_history(session *s, const char *sha, double *x, size_t *n, size_t cap)
{
    if (!s->fp_known)
        return;
    for (size_t r = s->past.nruns; r-- > 0 && *n < cap;) {
        const culprit_run *run = s->past.runs[r];
        const culprit_test_result *t;
        if (run->dirty || !run->commit || strcmp(run->commit, sha) != 0 ||
            !same_string(run->machine, s->fp_machine) ||
            !same_string(run->compiler, s->fp_compiler) || !same_string(run->flags, s->fp_flags))
            continue;
        if ((t = test_in_run(run, s->opts->test)) && culprit_test_result_measured(t)) {
            x[(*n)++] = run_value(t);
            s->result->reused++;
        }
    }
}

/*
 * One run in checkout `ck`, its value in *value (ns): the command's whole run time,
 * or, with --run/--test, the test's mean as the test binary measured it (its judged
 * summary, inside the severe fences), read from a history directory of its own and
 * recorded into the session's history.
 */
static int measure_once(session *s, culprit_vcs_checkout *ck, double *value, culprit_buf *reason)
{
    const culprit_bisect_options *o = s->opts;
    char dir[PATH_MAX], env_dir[PATH_MAX + 32], env_commit[64];
    const char *env[] = {env_dir, env_commit, "CULPRIT_FAIL_ON=none", NULL};
    culprit_history *h = NULL;
    culprit_history_runs runs = {0, NULL, 0};
    const culprit_test_result *t = NULL;
    culprit_history_query q = {NULL, NULL, NULL, 0};
    double elapsed;
    int error;

    if (!o->run)
        return run_command(value, o->command, culprit_vcs_checkout_path(ck), o->timeout_s, NULL,
                           reason);
    snprintf(dir, sizeof(dir), "%s/culprit-bisect-run-XXXXXX", culprit_fs_tmpdir());
    if (!mkdtemp(dir))
        return culprit_error_set_os("cannot create a directory for the test's results in '%s'",
                                    culprit_fs_tmpdir());
    snprintf(env_dir, sizeof(env_dir), "CULPRIT_HISTORY_DIR=%s", dir);
    snprintf(env_commit, sizeof(env_commit), "CULPRIT_COMMIT=%s", culprit_vcs_checkout_sha(ck));
    if ((error = run_command(&elapsed, o->run, culprit_vcs_checkout_path(ck), o->timeout_s, env,
                             reason)) < 0)
        goto cleanup;
    /* Samples are loaded only to be recorded: the step needs the summary alone. */
    q.flags = s->history && o->record ? CULPRIT_HISTORY_LOAD_SAMPLES : 0;
    if ((error = culprit_history_open(&h, dir, 0)) < 0 ||
        (error = culprit_history_load(&runs, h, &q, NULL, NULL)) < 0)
        goto cleanup;
    for (size_t r = 0; r < runs.nruns; r++) {
        const culprit_test_result *x = test_in_run(runs.runs[r], o->test);
        if (x)
            t = x;
        if ((error = record_run(s, runs.runs[r])) < 0)
            goto cleanup;
    }
    if (!t || !culprit_test_result_measured(t)) {
        culprit_buf_clear(reason);
        culprit_buf_printf(reason, "'%s' %s test '%s'", o->run,
                           t ? "ran but did not pass" : "did not measure", o->test);
        error = CULPRIT_ESKIP;
        goto cleanup;
    }
    *value = run_value(t);
cleanup:
    culprit_history_runs_dispose(&runs);
    culprit_history_free(h);
    nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
    return error;
}

/*
 * Runs (or differences of pairs of runs) as a step judges them: inside Tukey's severe
 * fences, as verdicts judge samples (docs/detection.md), so that a stall of the
 * machine that makes a few runs several times longer does not decide a step; but
 * only from FENCE_MIN_N values on. With fewer, the quartiles come from a handful of
 * values, the fences set aside values that only look extreme, and the interval of
 * the rest is too narrow: replayed on this machine's runs, unchanged commits were
 * judged slower 1.1% of the time with fences on 5 to 10 pairs, 0.1% without
 * (docs/bisect.md).
 */
#define FENCE_MIN_N 20
static int judged_runs(culprit_summary *out, const double *x, size_t n, double confidence)
{
    culprit_outliers f;
    int error;

    if (n < FENCE_MIN_N)
        return culprit_stats_summarize(out, x, n, confidence);
    if ((error = culprit_stats_outliers(&f, x, n)) < 0)
        return error;
    return culprit_stats_summarize_within(out, x, n, f.low_severe, f.high_severe, confidence);
}

/*
 * One more run of a side: its commit built in its checkout (once: a commit whose
 * samples all came from history is never built), then measured. A failure of the
 * good end is CULPRIT_ESKIP too, with s->good_failed set and the message saying so.
 */
static int run_side(session *s, int good, const char *sha, double *x, size_t *n,
                    culprit_buf *reason)
{
    culprit_vcs_checkout **ck = good ? &s->good_ck : &s->cand_ck;
    int error, built;

    built = (error = prepare(s, ck, sha, reason)) == 0;
    if (built && (error = measure_once(s, *ck, &x[*n], reason)) == 0) {
        (*n)++;
        s->result->runs++;
    }
    if (error == CULPRIT_ESKIP) {
        s->good_failed = good;
        culprit_error_set(CULPRIT_ESKIP, "%s%.12s %s: %s", good ? "the good end " : "", sha,
                          built ? "fails" : "does not build", culprit_buf_cstr(reason));
    }
    return error;
}

/*
 * One run of each side that needs runs in this step, not kept: the first run after a
 * build is disturbed by it (measured on this machine, docs/bisect.md: a quarter
 * slower on average), and a candidate is built just before its first run. The
 * candidate goes first, so that its build comes before both kept runs.
 */
static int warm_up(session *s, int good, int cand, const char *sha, culprit_buf *reason)
{
    double scratch[1];
    size_t n = 0;
    int error = 0;

    if (cand && (error = run_side(s, 0, sha, scratch, &n, reason)) < 0)
        return error;
    n = 0;
    if (good && (error = run_side(s, 1, s->good_sha, scratch, &n, reason)) < 0)
        return error;
    return 0;
}

/*
 * The step's change and its interval from the runs of the two sides. Runs made in
 * pairs (good end, then candidate, back to back) are compared pair by pair: the
 * machine's speed drifts slowly on a shared VM (successive runs are correlated), and
 * each pair's difference cancels what the two runs shared, so the interval of the
 * mean difference is far narrower than Welch's over the two sides as independent
 * samples (measured in docs/bisect.md). Differences are judged as single runs are
 * (judged_runs). Samples reused from history were not made in pairs:
 * with any of them, Welch's interval over the two sides is used.
 */
static int judge(culprit_bisect_step *step, const double *xg, size_t ng, const double *xc,
                 size_t nc, const double *dx, size_t np, double confidence)
{
    culprit_summary g, c;
    culprit_welford wg, wc;
    culprit_welch w;
    int error;

    if ((error = judged_runs(&g, xg, ng, confidence)) < 0 ||
        (error = judged_runs(&c, xc, nc, confidence)) < 0)
        return error;
    culprit_welford_from_summary(&wg, &g);
    culprit_welford_from_summary(&wc, &c);
    step->good_mean_ns = wg.mean;
    step->mean_ns = wc.mean;
    if (dx && np >= 2) {
        culprit_summary d;
        if ((error = judged_runs(&d, dx, np, confidence)) < 0)
            return error;
        step->change = d.mean / wg.mean;
        step->change_low = d.ci_low / wg.mean;
        step->change_high = d.ci_high / wg.mean;
        step->paired = d.n;
        return 0;
    }
    if ((error = culprit_stats_welch(&w, &wg, &wc, confidence)) < 0)
        return error;
    step->change = w.diff / wg.mean;
    step->change_low = w.low / wg.mean;
    step->change_high = w.high / wg.mean;
    step->paired = 0;
    return 0;
}

/*
 * Measures the candidate `sha` against the good end, runs interleaved, and decides.
 * Samples already in history count first (reuse_history); runs are added, good end
 * and candidate alternately, until each side has the runs the decision needs.
 * Returns CULPRIT_ESKIP (with reason) when a side cannot be built or measured.
 */
static int compare(session *s, culprit_bisect_step *step, const char *sha, size_t max_runs,
                   culprit_buf *reason)
{
    const culprit_bisect_options *o = s->opts;
    size_t target = o->min_runs, ng = 0, nc = 0, np = 0, reused = s->result->reused;
    double *xg = calloc(max_runs, sizeof(*xg)), *xc = calloc(max_runs, sizeof(*xc));
    double *dx = calloc(max_runs, sizeof(*dx));
    int error = 0, paired, warm_g = 0, warm_c = 0;

    s->good_failed = 0;
    if (!xg || !xc || !dx) {
        error = culprit_error_set(CULPRIT_ERROR, "out of memory");
        goto cleanup;
    }
    /* History matches on this build's fingerprint: known after one run of our own. */
    if (s->history && !s->fp_known && (error = run_side(s, 1, s->good_sha, xg, &ng, reason)) < 0)
        goto cleanup;
    reuse_history(s, s->good_sha, xg, &ng, max_runs);
    reuse_history(s, sha, xc, &nc, max_runs);
    paired = s->result->reused == reused;
    for (;;) {
        while (ng < target || nc < target) {
            int need_g = ng < target, need_c = nc < target;
            if ((need_g && !warm_g) || (need_c && !warm_c)) {
                if ((error = warm_up(s, need_g && !warm_g, need_c && !warm_c, sha, reason)) < 0)
                    goto cleanup;
                warm_g |= need_g;
                warm_c |= need_c;
            }
            /* Every other pair runs the candidate first: a drift of the machine within
             * a pair then adds to half the differences and takes from the others. */
            if (need_g && need_c && np % 2) {
                if ((error = run_side(s, 0, sha, xc, &nc, reason)) < 0 ||
                    (error = run_side(s, 1, s->good_sha, xg, &ng, reason)) < 0)
                    goto cleanup;
            } else if ((need_g && (error = run_side(s, 1, s->good_sha, xg, &ng, reason)) < 0) ||
                       (need_c && (error = run_side(s, 0, sha, xc, &nc, reason)) < 0)) {
                goto cleanup;
            }
            if (need_g && need_c)
                dx[np++] = xc[nc - 1] - xg[ng - 1];
        }
        if ((error = judge(step, xg, ng, xc, nc, paired ? dx : NULL, np, o->confidence)) < 0)
            goto cleanup;
        step->runs = nc < ng ? nc : ng;
        step->reused = s->result->reused - reused;
        if (step->change_low > 0 && step->change > o->threshold) {
            step->verdict = CULPRIT_BISECT_BAD;
            goto cleanup;
        }
        /* Good once a slowdown beyond the threshold is ruled out, or when more runs
         * are not allowed: the paper's rule, "otherwise good". */
        if (step->change_high < o->threshold || step->runs >= max_runs) {
            step->verdict = CULPRIT_BISECT_GOOD;
            step->undecided = step->change_high >= o->threshold;
            goto cleanup;
        }
        target = step->runs * 2 < max_runs ? step->runs * 2 : max_runs;
    }
cleanup:
    free(xg);
    free(xc);
    free(dx);
    return error;
}

static int add_step(culprit_bisect_step **out, session *s, const char *sha)
{
    culprit_bisect_result *r = s->result;
    culprit_bisect_step *steps = realloc(r->steps, (r->nsteps + 1) * sizeof(*steps));
    culprit_vcs_commit info;

    if (!steps)
        return culprit_error_set(CULPRIT_ERROR, "out of memory");
    r->steps = steps;
    *out = &steps[r->nsteps++];
    memset(*out, 0, sizeof(**out));
    memcpy((*out)->sha, sha, 41);
    memcpy((*out)->good, s->good_sha, 41);
    (*out)->change = (*out)->change_low = (*out)->change_high = NAN;
    (*out)->good_mean_ns = (*out)->mean_ns = NAN;
    if (culprit_vcs_commit_info(&info, s->repo, sha) == 0) {
        (*out)->subject = culprit_strdup(info.subject);
        culprit_vcs_commit_dispose(&info);
    }
    return 0;
}

/* Does `sha` touch one of the relevant paths (a path, a directory prefix, or a
 * glob)? Without paths everything is relevant. */
static int relevant(session *s, const char *sha, int *out)
{
    culprit_vcs_changeset cs;
    int error;

    *out = 1;
    if (!s->opts->npaths)
        return 0;
    if ((error = culprit_vcs_changes(&cs, s->repo, sha, 0)) < 0)
        return error;
    *out = 0;
    for (size_t f = 0; f < cs.nfiles && !*out; f++)
        for (size_t p = 0; p < s->opts->npaths && !*out; p++) {
            const char *want = s->opts->paths[p],
                       *files[2] = {cs.files[f].path, cs.files[f].old_path};
            size_t len = strlen(want);
            for (int k = 0; k < 2 && files[k]; k++)
                if (fnmatch(want, files[k], 0) == 0 ||
                    (strncmp(files[k], want, len) == 0 &&
                     (files[k][len] == '/' || (len && want[len - 1] == '/'))))
                    *out = 1;
        }
    culprit_vcs_changeset_dispose(&cs);
    return 0;
}

/* One bisection step on DAG node `index`: build, compare, mark. */
static int step_on(session *s, const range *rg, culprit_bisect *b, size_t index)
{
    const char *sha = rg->dag.nodes[index].sha;
    culprit_buf reason = CULPRIT_BUF_INIT;
    culprit_bisect_step *step;
    int error;

    if ((error = add_step(&step, s, sha)) < 0)
        goto cleanup;
    if (index + 1 < rg->dag.n) { /* the bad end is measured whatever it touches */
        int is_relevant;
        if ((error = relevant(s, sha, &is_relevant)) < 0)
            goto cleanup;
        if (!is_relevant) {
            step->verdict = CULPRIT_BISECT_SKIP;
            step->skip_reason = culprit_strdup("touches none of the relevant paths: not built");
            s->result->nirrelevant++;
            error = culprit_bisect_mark(b, index, CULPRIT_BISECT_SKIP);
            goto cleanup;
        }
    }
    error = compare(s, step, sha, s->opts->max_runs, &reason);
    if (error == CULPRIT_ESKIP && s->good_failed) /* the good end was measured before */
        error = culprit_error_recode(CULPRIT_ERROR);
    if (error == CULPRIT_ESKIP) {
        step->verdict = CULPRIT_BISECT_SKIP;
        step->skip_reason = culprit_buf_detach(&reason);
        if (++s->failures >= s->opts->max_failures) {
            error = culprit_error_set(CULPRIT_ERROR,
                                      "%zu commits could not be built or measured; the last, "
                                      "%.12s: %s",
                                      s->failures, sha, step->skip_reason);
            goto cleanup;
        }
        error = 0;
    }
    if (error < 0)
        goto cleanup;
    if ((error = culprit_bisect_mark(b, index, step->verdict)) < 0)
        goto cleanup;
    if (step->verdict == CULPRIT_BISECT_GOOD) {
        /* The candidate is the new good end: trade checkouts. */
        culprit_vcs_checkout *t = s->good_ck;
        memcpy(s->good_sha, sha, 41);
        s->good_ck = s->cand_ck;
        s->cand_ck = t;
    }
    if (s->opts->progress)
        s->opts->progress(step, s->result->nsteps - 1, culprit_bisect_ncandidates(b),
                          s->opts->payload);
cleanup:
    culprit_buf_dispose(&reason);
    return error;
}

static void range_dispose(range *rg)
{
    free(rg->nparents);
    free((void *)rg->parents);
    culprit_vcs_dag_dispose(&rg->dag);
    memset(rg, 0, sizeof(*rg));
}

static int range_open(range *rg, session *s, const char *good, const char *bad)
{
    const char *goods[1] = {good};
    size_t n;
    int error;

    memset(rg, 0, sizeof(*rg));
    if ((error = culprit_vcs_dag_between(&rg->dag, s->repo, goods, 1, bad)) < 0)
        return error;
    n = rg->dag.n;
    rg->nparents = calloc(n ? n : 1, sizeof(*rg->nparents));
    rg->parents = calloc(n ? n : 1, sizeof(*rg->parents));
    if (!rg->nparents || !rg->parents) {
        range_dispose(rg);
        return culprit_error_set(CULPRIT_ERROR, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        rg->nparents[i] = rg->dag.nodes[i].nparents;
        rg->parents[i] = rg->dag.nodes[i].parents;
    }
    rg->view.n = n;
    rg->view.nparents = rg->nparents;
    rg->view.parents = rg->parents;
    return 0;
}

/*
 * Times `bad` against `good` (good in the good checkout, bad in the candidate's), up
 * to `max_runs` runs of each. *slower: bad is significantly slower; *step_out
 * (optional) the step recorded.
 */
static int check_pair_upto(session *s, const char *good, const char *bad, size_t max_runs,
                           int *slower, culprit_bisect_step **step_out)
{
    culprit_buf reason = CULPRIT_BUF_INIT;
    culprit_bisect_step *step;
    int error;

    /* A side that cannot be built or run is CULPRIT_ESKIP, with the message set: the
     * initial check turns it into an error, the scans step over the commit. */
    memcpy(s->good_sha, good, 41);
    if ((error = add_step(&step, s, bad)) < 0)
        goto cleanup;
    error = compare(s, step, bad, max_runs, &reason);
    if (error == CULPRIT_ESKIP && !s->good_failed) {
        step->verdict = CULPRIT_BISECT_SKIP;
        step->skip_reason = culprit_buf_detach(&reason);
    }
    if (error < 0)
        goto cleanup;
    *slower = step->verdict == CULPRIT_BISECT_BAD;
    if (step_out)
        *step_out = step;
    if (s->opts->progress)
        s->opts->progress(step, s->result->nsteps - 1, 0, s->opts->payload);
cleanup:
    culprit_buf_dispose(&reason);
    return error;
}

/* check_pair_upto with the runs a step may take. */
static int check_pair(session *s, const char *good, const char *bad, int *slower,
                      culprit_bisect_step **step_out)
{
    return check_pair_upto(s, good, bad, s->opts->max_runs, slower, step_out);
}

/*
 * check_pair_upto for the checks every later answer rests on (the ends, the culprit
 * against its parent, the parent against the good end): up to twice the runs a step
 * may, so that noise leaves them undecided less often.
 */
static int check_pair_patient(session *s, const char *good, const char *bad, int *slower,
                              culprit_bisect_step **step_out)
{
    return check_pair_upto(s, good, bad, 2 * (size_t)s->opts->max_runs, slower, step_out);
}

/* Records a culprit found with the measurement `step` made of it. */
static int add_culprit(session *s, const char *sha, const culprit_bisect_step *step)
{
    culprit_bisect_result *r = s->result;
    culprit_bisect_culprit *c = realloc(r->culprits, (r->nculprits + 1) * sizeof(*c));

    if (!c)
        return culprit_error_set(CULPRIT_ERROR, "out of memory");
    r->culprits = c;
    c = &c[r->nculprits++];
    memset(c, 0, sizeof(*c));
    memcpy(c->sha, sha, 41);
    c->subject = step && step->subject ? culprit_strdup(step->subject) : NULL;
    c->change = step ? step->change : NAN;
    c->change_low = step ? step->change_low : NAN;
    c->change_high = step ? step->change_high : NAN;
    return 0;
}

/* The newest step that measured `sha` (how much slower it was than its good end). */
static const culprit_bisect_step *step_of(const culprit_bisect_result *r, const char *sha)
{
    for (size_t i = r->nsteps; i-- > 0;)
        if (!strcmp(r->steps[i].sha, sha) && r->steps[i].verdict == CULPRIT_BISECT_BAD)
            return &r->steps[i];
    return NULL;
}

/*
 * Bisects (good, bad], whose bad end is known to be slower. *found: 1 with the
 * culprit in `culprit`, 0 when skips left a range (recorded in the result).
 */
static int bisect_range(session *s, const char *good, const char *bad, char culprit[41], int *found)
{
    culprit_bisect_result *r = s->result;
    culprit_bisect *b = NULL;
    range rg;
    size_t *ids = NULL, n = 0;
    int error;

    *found = 0;
    if ((error = range_open(&rg, s, good, bad)) < 0)
        return error;
    /* The good end is built when a step first needs a run of it. */
    memcpy(s->good_sha, good, 41);
    if ((error = culprit_bisect_new(&b, &rg.view, rg.dag.n - 1)) < 0)
        goto cleanup;
    for (;;) {
        size_t next;
        error = culprit_bisect_next(&next, b);
        if (error == CULPRIT_ENOTFOUND) {
            error = 0;
            break;
        }
        if (error < 0 || (error = step_on(s, &rg, b, next)) < 0)
            goto cleanup;
    }
    if (culprit_bisect_status_get(b) == CULPRIT_BISECT_FOUND) {
        memcpy(culprit, rg.dag.nodes[culprit_bisect_bad(b)].sha, 41);
        *found = 1;
        goto cleanup;
    }
    if ((error = culprit_bisect_range(&ids, &n, b)) < 0)
        goto cleanup;
    if (s->opts->npaths) {
        /* Skips for irrelevance leave a range; the one relevant commit in it is the
         * answer (confirmed against its parent by the caller). */
        size_t relevant_at = SIZE_MAX, nrelevant = 0;
        for (size_t i = 0; i < n; i++) {
            int is_relevant;
            if ((error = relevant(s, rg.dag.nodes[ids[i]].sha, &is_relevant)) < 0)
                goto cleanup;
            if (is_relevant) {
                relevant_at = ids[i];
                nrelevant++;
            }
        }
        if (nrelevant == 1) {
            memcpy(culprit, rg.dag.nodes[relevant_at].sha, 41);
            *found = 1;
            goto cleanup;
        }
    }
    free(r->range);
    if (!(r->range = calloc(n ? n : 1, sizeof(*r->range)))) {
        error = culprit_error_set(CULPRIT_ERROR, "out of memory");
        goto cleanup;
    }
    for (size_t i = 0; i < n; i++)
        memcpy(r->range[i], rg.dag.nodes[ids[i]].sha, 41);
    r->nrange = n;
cleanup:
    free(ids);
    culprit_bisect_free(b);
    range_dispose(&rg);
    return error;
}

/* The first-parent chain from good (excluded) to bad (included), oldest first;
 * n = 0 when good is not on bad's first-parent line or the chain is too long. */
static int chain_between(char (**out)[41], size_t *n, session *s, const char *good, const char *bad)
{
    char(*fp)[41] = NULL;
    size_t k = 0, i;
    int error;

    *out = NULL;
    *n = 0;
    if ((error = culprit_vcs_first_parents(&fp, &k, s->repo, bad, SCAN_MAX + 1)) < 0)
        return error;
    for (i = 0; i < k && strcmp(fp[i], good) != 0; i++)
        ;
    if (i < k && i > 0) {
        /* fp[0..i) is bad back to just after good: reverse it. */
        for (size_t a = 0, z = i - 1; a < z; a++, z--) {
            char t[41];
            memcpy(t, fp[a], 41);
            memcpy(fp[a], fp[z], 41);
            memcpy(fp[z], t, 41);
        }
        *out = fp;
        *n = i;
        return 0;
    }
    free(fp);
    return 0;
}

/*
 * --all (the paper's section 6, limitation 3): every commit in (good, bad] that
 * made the command significantly slower than the commit before it. A range whose
 * bad end is slower is bisected, and the ranges below and above the culprit are
 * searched again; a range without an overall slowdown is scanned commit by commit
 * when short (an improvement can hide a later regression), else counted unsearched.
 */
static int search_all(session *s, const char *good, const char *bad, int known_slower)
{
    const char *last;
    culprit_bisect_step *step = NULL;
    char culprit[41], (*chain)[41] = NULL, (*fp)[41] = NULL;
    size_t n = 0, k = 0;
    int slower = known_slower, found, error = 0;

    if (!strcmp(good, bad))
        return 0;
    if (!known_slower && (error = check_pair(s, good, bad, &slower, &step)) < 0) {
        if (error != CULPRIT_ESKIP)
            return error;
        s->result->nunsearched++; /* an end that cannot be measured: not searchable */
        return 0;
    }
    if (slower) {
        if ((error = bisect_range(s, good, bad, culprit, &found)) < 0 || !found)
            return error;
        if ((error = add_culprit(s, culprit, step_of(s->result, culprit))) < 0 ||
            (error = culprit_vcs_first_parents(&fp, &k, s->repo, culprit, 2)) < 0)
            goto cleanup;
        if (k == 2 && (error = search_all(s, good, fp[1], 0)) < 0)
            goto cleanup;
        error = search_all(s, culprit, bad, 0);
        goto cleanup;
    }
    if ((error = chain_between(&chain, &n, s, good, bad)) < 0)
        goto cleanup;
    last = good;
    if (n == 0 || n > SCAN_MAX) {
        s->result->nunsearched++;
        goto cleanup;
    }
    for (size_t i = 0; i < n; i++) {
        if (i == n - 1 && n == 1)
            break; /* (good, bad] with bad measured just now: nothing in between */
        if ((error = check_pair(s, last, chain[i], &slower, &step)) == CULPRIT_ESKIP) {
            error = 0; /* unbuildable: the next commit is compared with `last` */
            continue;
        }
        if (error < 0 || (slower && (error = add_culprit(s, chain[i], step)) < 0))
            goto cleanup;
        last = chain[i];
    }
cleanup:
    free(chain);
    free(fp);
    return error;
}

/*
 * Slow decay: the range is slower overall, but the culprit bisection found is not
 * slower than its own parent. Rather than name a false single culprit, time each
 * commit of the first-parent chain against the one before it and report what each
 * contributes (up to 2 SCAN_MAX commits; a longer range is reported by its ends).
 */
static int slow_decay(session *s)
{
    culprit_bisect_result *r = s->result;
    culprit_bisect_step *step;
    char(*chain)[41] = NULL, (*fp)[41] = NULL;
    size_t n = 0, k = 0, i;
    int slower, error;

    r->outcome = CULPRIT_BISECT_RESULT_SLOW_DECAY;
    if ((error = culprit_vcs_first_parents(&fp, &k, s->repo, r->bad, 2 * SCAN_MAX + 1)) < 0)
        return error;
    for (i = 0; i < k && strcmp(fp[i], r->good) != 0; i++)
        ;
    if (i == k) { /* too long, or good is off bad's first-parent line */
        free(fp);
        return 0;
    }
    n = i;
    chain = fp;
    const char *last = r->good;    /* the newest commit measured so far */
    for (size_t j = n; j-- > 0;) { /* oldest first */
        if ((error = check_pair(s, last, chain[j], &slower, &step)) == CULPRIT_ESKIP) {
            error = 0; /* unbuildable: its change is counted with the next commit's */
            continue;
        }
        if (error < 0 || (error = add_culprit(s, chain[j], step)) < 0)
            break;
        last = chain[j];
    }
    free(chain);
    return error;
}

/* The culprit's details for the result. */
static void describe(session *s, const char *sha)
{
    culprit_bisect_result *r = s->result;
    const culprit_bisect_step *step = step_of(r, sha);
    culprit_vcs_commit info;

    r->outcome = CULPRIT_BISECT_RESULT_FOUND;
    memcpy(r->culprit, sha, 41);
    if (culprit_vcs_commit_info(&info, s->repo, sha) == 0) {
        r->subject = culprit_strdup(info.subject);
        r->author = culprit_strdup(info.author_name);
        r->date = culprit_strdup(info.author_date);
        culprit_vcs_commit_dispose(&info);
    }
    if (step) {
        r->change = step->change;
        r->change_low = step->change_low;
        r->change_high = step->change_high;
    }
}

/* --calltree: the culprit and its first parent, built in the two checkouts (a
 * commit already built there is not built again), then recorded and diffed. */
static int calltree_step(session *s, const char *culprit)
{
    culprit_bisect_result *out = s->result;
    culprit_buf reason = CULPRIT_BUF_INIT;
    char(*fp)[41] = NULL;
    size_t k = 0;
    int error;

    if ((error = culprit_vcs_first_parents(&fp, &k, s->repo, culprit, 2)) < 0) {
        /* the message says why */
    } else if (k < 2) {
        error = culprit_error_set(CULPRIT_ENOTFOUND,
                                  "the culprit %.12s has no parent to compare "
                                  "its call tree with",
                                  culprit);
    } else {
        memcpy(out->parent, fp[1], 41);
        if ((error = prepare(s, &s->good_ck, out->parent, &reason)) < 0 ||
            (error = prepare(s, &s->cand_ck, culprit, &reason)) < 0) {
            if (error == CULPRIT_ESKIP)
                culprit_error_set(error, "building for the call trees: %s",
                                  culprit_buf_cstr(&reason));
        } else {
            error = culprit_bisect__calltree(out, s->repo, s->opts,
                                             culprit_vcs_checkout_path(s->good_ck),
                                             culprit_vcs_checkout_path(s->cand_ck));
        }
    }
    free(fp);
    culprit_buf_dispose(&reason);
    /* The culprit stands: what went wrong with its call trees is reported beside it. */
    if (error < 0 && !out->calltree_error) {
        if (!(out->calltree_error = culprit_strdup(culprit_error_last())))
            return culprit_error_set(CULPRIT_ERROR, "out of memory");
        culprit_error_clear();
    }
    return 0;
}

/*
 * The culprit against its own first parent (check_pair_patient), always in runs of its
 * own: the step that marked it bad compared it with the good end of that time, which
 * may lie several commits back (with relevance skipping, Vogel 2017, 4.4.4, the
 * commits in between were assumed to change nothing; in a slow decay each adds a
 * little), and when that good end was the parent, noise that made the step wrong
 * would make the same runs confirm it: a fresh comparison is independent evidence.
 * *confirmed: 1 slower, 0 not shown slower, -1 unchecked (no parent, or it cannot
 * be measured); *decided: the check ruled a slowdown beyond the threshold out;
 * parent: the first parent ("" if none).
 */
static int confirm(session *s, const char *culprit, int *confirmed, int *decided, char parent[41])
{
    culprit_bisect_step *check = NULL;
    char(*fp)[41] = NULL;
    size_t k = 0;
    int slower = 1, error;

    *confirmed = 1;
    *decided = 0;
    parent[0] = '\0';
    if ((error = culprit_vcs_first_parents(&fp, &k, s->repo, culprit, 2)) < 0)
        return error;
    if (k == 2)
        memcpy(parent, fp[1], 41);
    free(fp);
    if (k < 2)
        return 0;
    error = check_pair_patient(s, parent, culprit, &slower, &check);
    if (error == CULPRIT_ESKIP) { /* the parent cannot be measured: keep the culprit */
        *confirmed = -1;
        return 0;
    }
    if (error < 0)
        return error;
    *confirmed = slower;
    *decided = !slower && !check->undecided;
    return 0;
}

/*
 * After a culprit that is not slower than its parent, within the range (lo, hi]: when
 * the parent is in the range and significantly slower than lo, the culprit lies in
 * (lo, parent], and hi becomes the parent; else, when hi is significantly slower than
 * the culprit, it lies in (culprit, hi], and lo becomes the culprit. *again: one of
 * them. A side that cannot be measured counts as not slower.
 */
static int search_again(session *s, char lo[41], char hi[41], const char *culprit,
                        const char *parent, int *again)
{
    int in_range = 0, slower = 0, error;

    *again = 0;
    if (parent[0] && strcmp(parent, lo) != 0 &&
        (error = culprit_vcs_is_ancestor(&in_range, s->repo, lo, parent)) < 0)
        return error;
    if (in_range) {
        if ((error = check_pair_patient(s, lo, parent, &slower, NULL)) < 0 &&
            error != CULPRIT_ESKIP)
            return error;
        if (slower) {
            memcpy(hi, parent, 41);
            *again = 1;
            return 0;
        }
    }
    if (strcmp(culprit, hi) != 0) {
        slower = 0;
        if ((error = check_pair_patient(s, culprit, hi, &slower, NULL)) < 0 &&
            error != CULPRIT_ESKIP)
            return error;
        if (slower) {
            memcpy(lo, culprit, 41);
            *again = 1;
        }
    }
    return 0;
}

int culprit_bisect_session(culprit_bisect_result *out, const culprit_bisect_options *opts)
{
    session s;
    range whole;
    char culprit[41], lo[41], hi[41], parent[41];
    int error, slower = 0, found = 0;

    memset(out, 0, sizeof(*out));
    memset(&s, 0, sizeof(s));
    memset(&whole, 0, sizeof(whole));
    out->change = out->change_low = out->change_high = NAN;
    out->confirmed = -1;
    if (!opts || !opts->good || !opts->bad || (!opts->command == !opts->run) ||
        (opts->run && !opts->test))
        return culprit_error_set(CULPRIT_EINVALID,
                                 "a bisection needs good, bad, and either a command to time or "
                                 "a run command with the test it measures");
    if (!(opts->confidence > 0 && opts->confidence < 1) || opts->min_runs < 2 ||
        opts->max_runs < opts->min_runs || !(opts->timeout_s > 0))
        return culprit_error_set(CULPRIT_EINVALID,
                                 "bisection options out of range (confidence in (0,1), "
                                 "2 <= min_runs <= max_runs, timeout > 0)");
    s.opts = opts;
    s.result = out;
    if (opts->run && opts->history_dir) {
        /* A store that does not exist yet is created only when runs are recorded. */
        struct stat st;
        if ((opts->record || stat(opts->history_dir, &st) == 0) &&
            ((error = culprit_history_open(&s.history, opts->history_dir, opts->record)) < 0 ||
             (error = culprit_history_load(&s.past, s.history, NULL, NULL, NULL)) < 0)) {
            culprit_history_free(s.history);
            return error;
        }
    }
    /* The whole range first: it validates the revisions (unknown, not an ancestor,
     * equal) before anything is built. */
    if ((error = culprit_vcs_open(&s.repo, opts->repository ? opts->repository : ".")) < 0 ||
        (error = range_open(&whole, &s, opts->good, opts->bad)) < 0 ||
        (error = culprit_vcs_resolve(out->good, s.repo, opts->good)) < 0)
        goto cleanup;
    memcpy(out->bad, whole.dag.nodes[whole.dag.n - 1].sha, 41);
    out->ncommits = whole.dag.n;

    if ((error = check_pair_patient(&s, out->good, out->bad, &slower, NULL)) < 0) {
        if (error == CULPRIT_ESKIP) { /* an end must be measurable: say which */
            char message[1024];
            snprintf(message, sizeof(message), "%s", culprit_error_last());
            error = culprit_error_set(CULPRIT_ERROR, "%s%s", s.good_failed ? "" : "the bad end ",
                                      message);
        }
        goto cleanup;
    }
    if (!slower) {
        out->outcome = CULPRIT_BISECT_RESULT_NO_REGRESSION;
        goto cleanup;
    }
    if (opts->all) {
        if ((error = search_all(&s, out->good, out->bad, 1)) < 0)
            goto cleanup;
        if (out->nculprits) {
            describe(&s, out->culprits[0].sha);
            if (opts->calltree)
                error = calltree_step(&s, out->culprits[0].sha);
        } else
            out->outcome = CULPRIT_BISECT_RESULT_AMBIGUOUS;
        goto cleanup;
    }
    memcpy(lo, out->good, 41);
    memcpy(hi, out->bad, 41);
    for (;;) {
        int confirmed, decided, again = 0;
        if ((error = bisect_range(&s, lo, hi, culprit, &found)) < 0)
            goto cleanup;
        if (!found)
            break;
        if ((error = confirm(&s, culprit, &confirmed, &decided, parent)) < 0)
            goto cleanup;
        out->confirmed = confirmed;
        if (confirmed != 0)
            break;
        /* Not slower than its parent: a step misjudged a commit (a slowdown its runs
         * could not tell from noise counts as good; rarely, noise makes an unchanged
         * commit look slower), or the range decays slowly. Searching again where the
         * slowdown must be tells them apart: below the culprit when its parent is
         * slower than the good end, above it when the bad end is slower than it. */
        if (!opts->npaths && out->backtracks < BACKTRACK_MAX &&
            (error = search_again(&s, lo, hi, culprit, parent, &again)) < 0)
            goto cleanup;
        if (again) {
            out->backtracks++;
            continue;
        }
        if (!opts->npaths && decided) {
            /* A decay only when the parent check ruled out a slowdown beyond the
             * threshold; runs that could not tell leave the culprit named, not
             * confirmed (a noise burst may have misjudged the step that marked it). */
            out->confirmed = -1;
            error = slow_decay(&s);
            goto cleanup;
        }
        break;
    }
    if (found) {
        describe(&s, culprit);
        if ((error = add_culprit(&s, culprit, step_of(out, culprit))) == 0 && opts->calltree)
            error = calltree_step(&s, culprit);
    } else {
        out->outcome = CULPRIT_BISECT_RESULT_AMBIGUOUS;
    }
cleanup:
    culprit_vcs_checkout_remove(s.good_ck);
    culprit_vcs_checkout_remove(s.cand_ck);
    culprit_history_free(s.history);
    free(s.fp_machine);
    free(s.fp_compiler);
    free(s.fp_flags);
    culprit_history_runs_dispose(&s.past);
    range_dispose(&whole);
    culprit_vcs_free(s.repo);
    if (error < 0) {
        /* Keep the message of the failure through the disposals. */
        char message[1024];
        snprintf(message, sizeof(message), "%s", culprit_error_last());
        culprit_bisect_result_dispose(out);
        culprit_error_set(error, "%s", message);
    }
    return error;
}

void culprit_bisect_result_dispose(culprit_bisect_result *result)
{
    if (!result)
        return;
    for (size_t i = 0; i < result->nsteps; i++) {
        free(result->steps[i].subject);
        free(result->steps[i].skip_reason);
    }
    free(result->steps);
    free(result->subject);
    free(result->author);
    free(result->date);
    free(result->range);
    for (size_t i = 0; i < result->nculprits; i++)
        free(result->culprits[i].subject);
    free(result->culprits);
    culprit_calltree_diff_dispose(&result->calltree);
    culprit_calltree_free(result->parent_tree);
    culprit_calltree_free(result->culprit_tree);
    culprit_vcs_changeset_dispose(&result->changes);
    free(result->calltree_error);
    memset(result, 0, sizeof(*result));
}
