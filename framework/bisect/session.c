/*
 * A bisection session on a real repository (Heger et al. 2013, section 4.1): the
 * algorithm of bisect.c picks the commit, this file builds it in a temporary
 * checkout, measures it against the good end and marks it.
 *
 * Measuring: the candidate and the good end are run alternately (good, candidate,
 * good, candidate, ...), so a drift of the machine's speed during the step touches
 * both alike, and the decision is made on the runs themselves: each run of the
 * command is one sample, so the interval of the difference includes what makes one
 * run differ from the next (the noise a within-run interval misses). A candidate is
 * bad when it is significantly slower at `confidence` by more than `threshold`,
 * good when its interval rules such a slowdown out, and when the runs cannot tell,
 * more runs are taken, up to max_runs (Pinpoint-style adaptive sampling); still
 * undecided, it counts as good, and the step says so.
 *
 * Two checkouts are kept: the good end's and the candidate's. When a candidate
 * turns out good it becomes the new good end, and the two checkouts trade roles,
 * so each commit is built once and a build directory is reused incrementally.
 */
#define _GNU_SOURCE /* strsignal */
#include "culprit/bisect.h"
#include "culprit/core.h"
#include "culprit/stats.h"
#include "culprit/vcs.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The last bytes of a failing command's output, for the skip reason. */
#define OUTPUT_TAIL 600

typedef struct {
    const culprit_bisect_options *opts;
    culprit_vcs *repo;
    culprit_vcs_dag dag;
    culprit_bisect_dag view;
    size_t *nparents;
    const size_t **parents;
    culprit_vcs_checkout *good_ck, *cand_ck;
    culprit_bisect_result *result;
    size_t failures;
} session;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/*
 * Runs `command` with /bin/sh in `dir` ($CULPRIT_CHECKOUT = dir), in its own process
 * group so a timeout kills everything it started. *elapsed_ns gets the wall time
 * from fork to exit. Returns 0 when it exited 0; CULPRIT_ESKIP with the reason (exit
 * status or signal, and the tail of its output) otherwise.
 */
static int run_command(double *elapsed_ns, const char *command, const char *dir, double timeout_s,
                       culprit_buf *reason)
{
    int fds[2], status = 0, timed_out = 0;
    char tail[OUTPUT_TAIL + 1];
    size_t kept = 0;
    double start, deadline;
    pid_t pid;

    if (pipe(fds) < 0)
        return culprit_error_set_os("cannot create a pipe");
    start = now_ns();
    if ((pid = fork()) < 0) {
        close(fds[0]);
        close(fds[1]);
        return culprit_error_set_os("cannot fork");
    }
    if (pid == 0) {
        setpgid(0, 0);
        dup2(fds[1], STDOUT_FILENO);
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        close(fds[1]);
        if (chdir(dir) < 0)
            _exit(126);
        setenv("CULPRIT_CHECKOUT", dir, 1);
        execl("/bin/sh", "sh", "-c", command, (char *)NULL);
        _exit(127);
    }
    setpgid(pid, pid);
    close(fds[1]);
    deadline = start + timeout_s * 1e9;
    for (;;) {
        char chunk[4096];
        struct pollfd p = {fds[0], POLLIN, 0};
        double left = (deadline - now_ns()) / 1e6;
        if (left <= 0) {
            timed_out = 1;
            kill(-pid, SIGKILL);
            break;
        }
        int n = poll(&p, 1, left > 1e6 ? 1000000 : (int)left + 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0)
            continue;
        ssize_t got = read(fds[0], chunk, sizeof(chunk));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        /* Keep only the tail: a build can print megabytes. */
        for (ssize_t i = 0; i < got; i++) {
            if (kept == OUTPUT_TAIL) {
                memmove(tail, tail + 1, OUTPUT_TAIL - 1);
                kept--;
            }
            tail[kept++] = chunk[i];
        }
    }
    close(fds[0]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    *elapsed_ns = now_ns() - start;
    if (!timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    tail[kept] = '\0';
    culprit_buf_clear(reason);
    if (timed_out)
        culprit_buf_printf(reason, "'%s' timed out after %g s", command, timeout_s);
    else if (WIFSIGNALED(status))
        culprit_buf_printf(reason, "'%s' was killed by signal %d (%s)", command, WTERMSIG(status),
                           strsignal(WTERMSIG(status)));
    else
        culprit_buf_printf(reason, "'%s' exited with status %d", command, WEXITSTATUS(status));
    if (kept)
        culprit_buf_printf(reason, ": ...%s", tail);
    return CULPRIT_ESKIP;
}

/* Puts `sha` into checkout *ck (created on first use) and builds it. */
static int prepare(session *s, culprit_vcs_checkout **ck, const char *sha, culprit_buf *reason)
{
    culprit_vcs_checkout_options o;
    double elapsed;
    int error;

    if (!*ck) {
        culprit_vcs_checkout_options_init(&o);
        o.parent_dir = s->opts->checkout_parent;
        if ((error = culprit_vcs_checkout_create(ck, s->repo, sha, &o)) < 0)
            return error;
    } else if ((error = culprit_vcs_checkout_switch(*ck, sha)) < 0) {
        return error;
    }
    if (!s->opts->build)
        return 0;
    s->result->builds++;
    return run_command(&elapsed, s->opts->build, culprit_vcs_checkout_path(*ck), s->opts->timeout_s,
                       reason);
}

/*
 * Measures the candidate against the good end, runs interleaved, and decides.
 * Returns CULPRIT_ESKIP (with reason) when the candidate's command fails, an error
 * when the good end's does.
 */
static int compare(session *s, culprit_bisect_step *step, culprit_buf *reason)
{
    const culprit_bisect_options *o = s->opts;
    culprit_welford wg, wc;
    culprit_welch w;
    unsigned int runs = 0, target = o->min_runs;
    int error;

    culprit_welford_init(&wg);
    culprit_welford_init(&wc);
    for (;;) {
        while (runs < target) {
            double tg, tc;
            if ((error = run_command(&tg, o->command, culprit_vcs_checkout_path(s->good_ck),
                                     o->timeout_s, reason)) < 0) {
                if (error == CULPRIT_ESKIP)
                    error = culprit_error_set(CULPRIT_ERROR, "the good end %.12s fails: %s",
                                              step->good, culprit_buf_cstr(reason));
                return error;
            }
            if ((error = run_command(&tc, o->command, culprit_vcs_checkout_path(s->cand_ck),
                                     o->timeout_s, reason)) < 0)
                return error;
            culprit_welford_add(&wg, tg);
            culprit_welford_add(&wc, tc);
            s->result->runs += 2;
            runs++;
        }
        if ((error = culprit_stats_welch(&w, &wg, &wc, o->confidence)) < 0)
            return error;
        step->runs = runs;
        step->good_mean_ns = wg.mean;
        step->mean_ns = wc.mean;
        step->change = w.diff / wg.mean;
        step->change_low = w.low / wg.mean;
        step->change_high = w.high / wg.mean;
        if (step->change_low > 0 && step->change > o->threshold) {
            step->verdict = CULPRIT_BISECT_BAD;
            return 0;
        }
        /* Good once a slowdown beyond the threshold is ruled out, or when more runs
         * are not allowed: the paper's rule, "otherwise good". */
        if (step->change_high < o->threshold || runs >= o->max_runs) {
            step->verdict = CULPRIT_BISECT_GOOD;
            return 0;
        }
        target = runs * 2 < o->max_runs ? runs * 2 : o->max_runs;
    }
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
    memcpy((*out)->good, culprit_vcs_checkout_sha(s->good_ck), 41);
    (*out)->change = (*out)->change_low = (*out)->change_high = NAN;
    (*out)->good_mean_ns = (*out)->mean_ns = NAN;
    if (culprit_vcs_commit_info(&info, s->repo, sha) == 0) {
        (*out)->subject = culprit_strdup(info.subject);
        culprit_vcs_commit_dispose(&info);
    }
    return 0;
}

/* One bisection step on DAG node `index`: build, compare, mark. */
static int step_on(session *s, culprit_bisect *b, size_t index)
{
    const char *sha = s->dag.nodes[index].sha;
    culprit_buf reason = CULPRIT_BUF_INIT;
    culprit_bisect_step *step;
    int error;

    if ((error = add_step(&step, s, sha)) < 0)
        goto cleanup;
    error = prepare(s, &s->cand_ck, sha, &reason);
    if (error == 0)
        error = compare(s, step, &reason);
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

static int build_view(session *s)
{
    size_t n = s->dag.n;

    s->nparents = calloc(n ? n : 1, sizeof(*s->nparents));
    s->parents = calloc(n ? n : 1, sizeof(*s->parents));
    if (!s->nparents || !s->parents)
        return culprit_error_set(CULPRIT_ERROR, "out of memory");
    for (size_t i = 0; i < n; i++) {
        s->nparents[i] = s->dag.nodes[i].nparents;
        s->parents[i] = s->dag.nodes[i].parents;
    }
    s->view.n = n;
    s->view.nparents = s->nparents;
    s->view.parents = s->parents;
    return 0;
}

/* The initial check: is bad significantly slower than good at all? */
static int check_ends(session *s, int *regressed)
{
    culprit_buf reason = CULPRIT_BUF_INIT;
    culprit_bisect_step *step;
    int error;

    if ((error = prepare(s, &s->good_ck, s->result->good, &reason)) < 0) {
        if (error == CULPRIT_ESKIP)
            error = culprit_error_set(CULPRIT_ERROR, "the good end %.12s does not build: %s",
                                      s->result->good, culprit_buf_cstr(&reason));
        goto cleanup;
    }
    if ((error = add_step(&step, s, s->result->bad)) < 0)
        goto cleanup;
    if ((error = prepare(s, &s->cand_ck, s->result->bad, &reason)) == 0)
        error = compare(s, step, &reason);
    if (error == CULPRIT_ESKIP)
        error = culprit_error_set(CULPRIT_ERROR, "the bad end %.12s cannot be measured: %s",
                                  s->result->bad, culprit_buf_cstr(&reason));
    if (error < 0)
        goto cleanup;
    *regressed = step->verdict == CULPRIT_BISECT_BAD;
    if (s->opts->progress)
        s->opts->progress(step, 0, s->dag.n, s->opts->payload);
cleanup:
    culprit_buf_dispose(&reason);
    return error;
}

static int finish(session *s, culprit_bisect *b)
{
    culprit_bisect_result *r = s->result;
    size_t *range = NULL, n = 0;
    int error = 0;

    if (culprit_bisect_status_get(b) == CULPRIT_BISECT_FOUND) {
        const char *sha = s->dag.nodes[culprit_bisect_bad(b)].sha;
        culprit_vcs_commit info;
        r->outcome = CULPRIT_BISECT_RESULT_FOUND;
        memcpy(r->culprit, sha, 41);
        if (culprit_vcs_commit_info(&info, s->repo, sha) == 0) {
            r->subject = culprit_strdup(info.subject);
            r->author = culprit_strdup(info.author_name);
            r->date = culprit_strdup(info.author_date);
            culprit_vcs_commit_dispose(&info);
        }
        /* The magnitude: the step that found it bad (the newest step on it), or the
         * initial check when the culprit is the bad end itself. */
        for (size_t i = r->nsteps; i-- > 0;)
            if (!strcmp(r->steps[i].sha, sha)) {
                r->change = r->steps[i].change;
                r->change_low = r->steps[i].change_low;
                r->change_high = r->steps[i].change_high;
                break;
            }
        return 0;
    }
    r->outcome = CULPRIT_BISECT_RESULT_AMBIGUOUS;
    if ((error = culprit_bisect_range(&range, &n, b)) < 0)
        return error;
    if (!(r->range = calloc(n ? n : 1, sizeof(*r->range)))) {
        free(range);
        return culprit_error_set(CULPRIT_ERROR, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        memcpy(r->range[i], s->dag.nodes[range[i]].sha, 41);
    r->nrange = n;
    free(range);
    return 0;
}

int culprit_bisect_session(culprit_bisect_result *out, const culprit_bisect_options *opts)
{
    session s;
    culprit_bisect *b = NULL;
    const char *good[1];
    int error, regressed = 0;

    memset(out, 0, sizeof(*out));
    memset(&s, 0, sizeof(s));
    out->change = out->change_low = out->change_high = NAN;
    if (!opts || !opts->good || !opts->bad || !opts->command)
        return culprit_error_set(CULPRIT_EINVALID, "a bisection needs good, bad and a command");
    if (!(opts->confidence > 0 && opts->confidence < 1) || opts->min_runs < 2 ||
        opts->max_runs < opts->min_runs || !(opts->timeout_s > 0))
        return culprit_error_set(CULPRIT_EINVALID,
                                 "bisection options out of range (confidence in (0,1), "
                                 "2 <= min_runs <= max_runs, timeout > 0)");
    s.opts = opts;
    s.result = out;
    good[0] = opts->good;
    if ((error = culprit_vcs_open(&s.repo, opts->repository ? opts->repository : ".")) < 0 ||
        (error = culprit_vcs_dag_between(&s.dag, s.repo, good, 1, opts->bad)) < 0 ||
        (error = culprit_vcs_resolve(out->good, s.repo, opts->good)) < 0 ||
        (error = build_view(&s)) < 0)
        goto cleanup;
    memcpy(out->bad, s.dag.nodes[s.dag.n - 1].sha, 41);
    out->ncommits = s.dag.n;

    if ((error = check_ends(&s, &regressed)) < 0)
        goto cleanup;
    if (!regressed) {
        out->outcome = CULPRIT_BISECT_RESULT_NO_REGRESSION;
        goto cleanup;
    }
    if ((error = culprit_bisect_new(&b, &s.view, s.dag.n - 1)) < 0)
        goto cleanup;
    /* The bad end is known bad from the initial check. */
    for (;;) {
        size_t next;
        error = culprit_bisect_next(&next, b);
        if (error == CULPRIT_ENOTFOUND) {
            error = 0;
            break;
        }
        if (error < 0 || (error = step_on(&s, b, next)) < 0)
            goto cleanup;
    }
    error = finish(&s, b);
cleanup:
    culprit_bisect_free(b);
    culprit_vcs_checkout_remove(s.good_ck);
    culprit_vcs_checkout_remove(s.cand_ck);
    free(s.nparents);
    free((void *)s.parents);
    culprit_vcs_dag_dispose(&s.dag);
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
    memset(result, 0, sizeof(*result));
}
