/*
 * Running one perf test. The test body is a CMocka test function, so the sampling
 * loop runs *inside* a one-test CMocka group: a failed assertion longjmps out of
 * the loop to CMocka, which fails the test and so stops its repetitions.
 *
 * By default each test runs in a child process (as Criterion does): a crash or a
 * hang kills only that test, which is then reported as an error while the other
 * tests' results are kept. The child hands its result back as a one-test history
 * document in a temporary file, so the result crosses the process boundary in the
 * same format it is stored in, and its output is captured and shown on failure.
 */
#define _GNU_SOURCE /* memmem, strsignal */
#include "runner_internal.h"

#include "culprit/history.h"
#include "culprit/stats.h"
/* Weak: the runtime is linked only into instrumented binaries (see below). */
#define CULPRIT_TRACE_WEAK 1
#include "culprit/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Valgrind's client requests (Debian's valgrind package): no-ops outside Valgrind. */
#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HAVE_CALLGRIND 1
#endif
#endif

/* The trace runtime (framework/trace), when the test binary was built with
 * culprit_instrument(): weak references (CULPRIT_TRACE_WEAK, see trace.h), so that
 * libculprit neither depends on it nor needs it linked; they are NULL in a binary
 * without it. */

/* With CULPRIT_TRACE_DIR set, a call tree per perf test: <dir>/<suite>.<test>.calltree,
 * holding only the calls made while the test ran (docs/calltree.md). */
static void trace_begin(void)
{
    const char *dir = getenv("CULPRIT_TRACE_DIR");
    if (culprit_trace_reset && dir && *dir)
        culprit_trace_reset();
}

static void trace_end(const culprit_runner_job *job)
{
    const char *dir = getenv("CULPRIT_TRACE_DIR");
    culprit_buf key = CULPRIT_BUF_INIT, name = CULPRIT_BUF_INIT;
    char *path = NULL;

    if (!culprit_trace_dump || !dir || !*dir)
        return;
    /* Names are data: "<suite>.<test>" made one file name by core's one function (the
     * name is cut and hashed only beyond CULPRIT_FS_NAME_MAX bytes). */
    if (culprit_buf_printf(&key, "%s.%s", job->suite, job->test->name) == 0 &&
        culprit_fs_name(&name, key.ptr, CULPRIT_FS_NAME_MAX) == 0 &&
        culprit_buf_puts(&name, ".calltree") == 0 && culprit_fs_mkdir_p(dir) == 0 &&
        (path = culprit_fs_join(dir, name.ptr)) && culprit_trace_dump(path) < 0)
        fprintf(stderr, "culprit: cannot write the call tree '%s': %s\n", path, strerror(errno));
    free(path);
    culprit_buf_dispose(&key);
    culprit_buf_dispose(&name);
}

/* The test being run in this process; CMocka's trampoline reaches it through here. */
static struct {
    const culprit_runner_job *job;
    void **state;
    culprit_samples *samples;
    int finished; /* the sampling loop returned (no assertion longjmp'd out) */
    int restore_crash_signals;
    int counting; /* under Valgrind's callgrind (valgrind.c): count the body only */
} current;

/*
 * One call of the test body. When its instructions are counted, callgrind collects
 * around the body alone (not setup, fixtures, the sampling loop or CMocka) and
 * writes one dump per call, read back by valgrind.c.
 */
static int body(void *payload)
{
    (void)payload;
#ifdef HAVE_CALLGRIND
    if (current.counting)
        CALLGRIND_TOGGLE_COLLECT;
#endif
    current.job->test->test_func(current.state);
#ifdef HAVE_CALLGRIND
    if (current.counting) {
        CALLGRIND_TOGGLE_COLLECT;
        CALLGRIND_DUMP_STATS;
    }
#endif
    return 0;
}

static int rep_setup(void *payload)
{
    (void)payload;
    return current.job->test->rep_setup(current.state);
}

static int rep_teardown(void *payload)
{
    (void)payload;
    return current.job->test->rep_teardown(current.state);
}

static void trampoline(void **state)
{
    const culprit_perf_test *t = current.job->test;
    culprit_measure_callbacks cb = {body, t->rep_setup ? rep_setup : NULL,
                                    t->rep_teardown ? rep_teardown : NULL, NULL};

    /* CMocka turns SIGSEGV and friends into a failed assertion; in a child we want
     * the signal to kill the process so the parent reports a crash, not a failure. */
    if (current.restore_crash_signals) {
        signal(SIGSEGV, SIG_DFL);
        signal(SIGBUS, SIG_DFL);
        signal(SIGFPE, SIG_DFL);
        signal(SIGILL, SIG_DFL);
        signal(SIGABRT, SIG_DFL);
    }
    current.state = state;
    int rc = culprit_measure_run(&current.samples, &current.job->measure, &cb);
    if (rc == CULPRIT_ESKIP)
        fail_msg("a per-repetition setup or teardown of %s failed", t->name);
    else if (rc < 0) /* bad options: say so rather than pass without samples */
        fail_msg("%s: %s", t->name, culprit_error_last());
    current.finished = 1;
}

static const char *series_name(unsigned int i)
{
    return culprit_measure_counter_name((culprit_counter_id)i);
}

/* Turns the sampling loop's output into the result model. */
static int fill_result(culprit_test_result *r, const culprit_runner_job *job,
                       const culprit_samples *s)
{
    const char *metric = culprit_runner__metric(job);
    const culprit_series *m;
    int error;

    r->batch = s->batch;
    r->warmup = s->warmup;
    r->timer_overhead_ns = s->timer_overhead_ns;
    r->preempted = s->preempted;
    r->preempted_kept = (unsigned int)s->preempted_kept;
    r->region = (unsigned int)s->used_region;
    if (s->stop == CULPRIT_STOP_DURATION) {
        r->load_calls = (size_t)s->calls.n;
        r->load_call_mean = s->calls.mean;
        r->load_call_sd = culprit_stats_welford_sd(&s->calls);
        r->load_call_min = s->calls.min;
        r->load_call_max = s->calls.max;
        r->load_warmup_intervals = s->warmup_intervals;
        r->load_interval_s = s->interval_s;
    }
    if ((error = culprit_str_set(&r->stop, culprit_measure_stop_reason_name(s->stop))) < 0 ||
        (error = culprit_str_set(&r->metric, metric)) < 0 ||
        (error = culprit_history_test_result_add_series(r, "wall_ns", s->wall_ns, s->n, 0)) < 0 ||
        (error = culprit_history_test_result_add_series(r, "cpu_ns", s->cpu_ns, s->n, 0)) < 0)
        return error;
    for (unsigned int i = 0; i < CULPRIT_COUNTER__COUNT; i++)
        if ((error = culprit_history_test_result_add_series(r, series_name(i), s->counters[i],
                                                            s->counters[i] ? s->n : 0,
                                                            s->counters[i] == NULL)) < 0)
            return error;
    /* Counted in the parent from callgrind's dumps (valgrind.c): time stands in here. */
    if (strcmp(metric, "instructions") == 0 && current.counting)
        metric = "wall_ns";
    if (!(m = culprit_history_test_result_series(r, metric)) || m->absent)
        return culprit_error_set(CULPRIT_EINVALID,
                                 "test %s: metric '%s' is %s (use wall_ns, cpu_ns, user_ns, "
                                 "sys_ns, minflt, ... see docs/runner.md)",
                                 job->test->name, metric, m ? "not available here" : "unknown");
    if ((error = culprit_stats_summarize(&r->summary, m->values, m->n, job->measure.confidence)) <
            0 ||
        (error = culprit_stats_outliers(&r->outliers, m->values, m->n)) < 0 ||
        (error = culprit_stats_summarize_within(&r->judged, m->values, m->n, r->outliers.low_severe,
                                                r->outliers.high_severe, job->measure.confidence)) <
            0)
        return error;
    return 0;
}

/* Runs the test under CMocka in this process; returns 1 when it failed. */
static int run_here(culprit_test_result *r, const culprit_runner_job *job, int in_child)
{
    const culprit_perf_test *t = job->test;
    struct CMUnitTest ct = {t->name, trampoline, t->setup, t->teardown, t->initial_state};
    int failed, error = 0;
    unsigned int depth;
    struct timespec t0, t1;

    int counting = current.counting;

    memset(&current, 0, sizeof(current));
    current.counting = counting;
    current.job = job;
    current.restore_crash_signals = in_child;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    trace_begin();
    depth = culprit_trace_depth ? culprit_trace_depth() : 0;
    failed = _cmocka_run_group_tests(job->suite, &ct, 1, NULL, NULL);
    /* A failed assertion longjmp'd out of the test body: close its frames. */
    if (culprit_trace_unwind)
        culprit_trace_unwind(depth);
    trace_end(job);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    r->elapsed_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    failed = failed || !current.finished;
    r->status = failed ? CULPRIT_STATUS_FAILURE : CULPRIT_STATUS_PASS;
    if (!failed && current.samples)
        error = fill_result(r, job, current.samples);
    if (error < 0) {
        r->status = CULPRIT_STATUS_ERROR;
        culprit_str_set(&r->message, culprit_error_last());
    }
    culprit_measure_samples_free(current.samples);
    current.samples = NULL;
    return failed || error < 0;
}

/* CMocka prints "[  ERROR   ] --- msg" and "[   LINE   ] --- file:line: error: Failure!"
 * for a failed assertion; those lines are the message a developer needs. */
static char *failure_message(const char *output)
{
    culprit_buf msg = CULPRIT_BUF_INIT;
    const char *line = output;

    while (line && *line) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        const char *marker = NULL;
        if (len > 16 && (strncmp(line, "[  ERROR   ] ---", 16) == 0 ||
                         strncmp(line, "[   LINE   ] ---", 16) == 0))
            marker = line + 16;
        else if (len > 7 && strncmp(line, "ERROR: ", 7) == 0)
            marker = line + 7;
        if (marker) {
            while (*marker == ' ')
                marker++;
            if (msg.size)
                culprit_buf_puts(&msg, " at ");
            culprit_buf_put(&msg, marker, len - (size_t)(marker - line));
        }
        line = nl ? nl + 1 : NULL;
    }
    if (!msg.size)
        culprit_buf_puts(&msg, "the test failed (see its output)");
    return culprit_buf_detach(&msg);
}

/* The test's own output without CMocka's framing ("[ RUN      ] ...", the tallies,
 * and the assertion lines already in the message); NULL when nothing is left. */
static char *own_output(const char *output)
{
    static const char *const framing[] = {"[==========]", "[ RUN      ]", "[       OK ]",
                                          "[  PASSED  ]", "[  FAILED  ]", "[  ERROR   ]",
                                          "[   LINE   ]", "[  SKIPPED ]"};
    culprit_buf kept = CULPRIT_BUF_INIT;
    const char *line = output;

    while (line && *line) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line + 1) : strlen(line);
        /* blank lines and CMocka's closing " N FAILED TEST(S)" tally */
        int drop = strspn(line, " \n") >= len ||
                   (len > 16 && memmem(line, len, "FAILED TEST(S)", 14) != NULL);
        for (size_t i = 0; !drop && i < sizeof(framing) / sizeof(framing[0]); i++)
            drop = strncmp(line, framing[i], strlen(framing[i])) == 0;
        if (!drop)
            culprit_buf_put(&kept, line, len);
        line = nl ? nl + 1 : NULL;
    }
    if (!kept.size) {
        culprit_buf_dispose(&kept);
        return NULL;
    }
    return culprit_buf_detach(&kept);
}

/* Measures the test here and writes its one-test result document to `path`, the way
 * a result crosses a process boundary. Returns 0 passed, 1 failed, 3 not written. */
static int hand_back(const culprit_runner_job *job, const char *path)
{
    culprit_run *run = NULL;
    culprit_test_result *r;
    int failed = 1;

    if (culprit_history_run_new(&run) == 0 && culprit_history_run_add_test(&r, run) == 0 &&
        culprit_str_set(&r->name, job->test->name) == 0 &&
        culprit_str_set(&run->suite, job->suite) == 0) {
        failed = run_here(r, job, 1);
        /* read by the runner at once, then deleted: no fsync (core.h) */
        if (culprit_history_write_file(run, path, CULPRIT_FS_NO_SYNC) < 0) {
            fprintf(stderr, "culprit: cannot hand the result back: %s\n", culprit_error_last());
            failed = 3;
        }
    }
    culprit_history_run_free(run);
    return failed;
}

/* Child side: measure, write the one-test result document, exit. */
static void child_main(const culprit_runner_job *job, const char *result_path, int out_fd)
{
    int failed;

    dup2(out_fd, STDOUT_FILENO);
    dup2(out_fd, STDERR_FILENO);
    close(out_fd);
    failed = hand_back(job, result_path);
    fflush(stdout);
    fflush(stderr);
    /* _exit: no atexit handlers or stdio flushes inherited from the parent. */
    _exit(failed);
}

static int make_result_path(culprit_buf *path)
{
    return culprit_fs_make_temp(path, NULL, "result", 0);
}

/* Reads the child's output until EOF or the deadline; 1 when the deadline passed. */
/* How often the spinner is redrawn, and after how long it first shows: a test done
 * sooner gets its result line without a flicker before it. */
#define SPIN_MS    100
#define SPIN_AFTER 0.3

/* The spinner line while the child measures: drawn by the parent, which otherwise
 * sleeps in poll(), so the child's measurements see one short wake-up per tick. */
static void spin(const culprit_runner_job *job, double start, unsigned int *tick)
{
    double elapsed = culprit_time_now_s() - start;

    if (!job->progress || elapsed < SPIN_AFTER)
        return;
    fprintf(job->progress, "\r[ %c RUN  ] %-28s %5.1f s\033[K", culprit_progress_frame((*tick)++),
            job->test->name, elapsed);
    fflush(job->progress);
}

/*
 * Reads the child's output until the child exits or the deadline passes: 0 exited
 * (reaped into *status), 1 timed out. The end is the child's exit, seen through a
 * pidfd, not the end of its output: a test body that starts a process in the
 * background hands it the output pipe, and waiting for the pipe to close hung the
 * runner (or, with --timeout, reported a test that returned at once as timed out).
 * Without a pidfd (kernels before 5.3) the pipe's end is awaited, as before.
 */
static int collect_output(culprit_buf *output, int fd, pid_t pid, int *status, double deadline,
                          const culprit_runner_job *job, double start)
{
    char chunk[4096];
    unsigned int tick = 0;
    int timed_out = -1, pidfd = (int)syscall(SYS_pidfd_open, pid, 0);

    while (timed_out < 0) {
        int wait_ms = -1;
        struct pollfd p[2] = {{fd, POLLIN, 0}, {pidfd, POLLIN, 0}};
        if (deadline > 0) {
            double left = deadline - culprit_time_now_s();
            if (left <= 0) {
                timed_out = 1;
                break;
            }
            wait_ms = (int)(left * 1000) + 1;
        }
        if (job->progress && (wait_ms < 0 || wait_ms > SPIN_MS))
            wait_ms = SPIN_MS;
        int n = poll(p, 2, wait_ms);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0) {
            spin(job, start, &tick);
            continue; /* the deadline check above ends it */
        }
        if (p[1].revents) { /* exited: what it wrote is in the pipe already */
            while (waitpid(pid, status, 0) < 0 && errno == EINTR)
                ;
            fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
            while ((n = (int)read(fd, chunk, sizeof(chunk))) > 0)
                culprit_buf_put(output, chunk, (size_t)n);
            timed_out = 0;
            pid = 0;
            break;
        }
        ssize_t got = read(fd, chunk, sizeof(chunk));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0 && pidfd < 0)
            timed_out = 0;
        else if (got <= 0)
            fd = -1; /* closed: the exit is still awaited through the pidfd */
        else
            culprit_buf_put(output, chunk, (size_t)got);
    }
    if (pidfd >= 0)
        close(pidfd);
    if (pid && timed_out == 0) /* no pidfd: the pipe closed, now reap */
        while (waitpid(pid, status, 0) < 0 && errno == EINTR)
            ;
    if (job->progress && tick) { /* the result line takes the spinner's place */
        fputs("\r\033[K", job->progress);
        fflush(job->progress);
    }
    return timed_out;
}

/* The group of the test child being run, for the signal handler: Ctrl-C reaches
 * only the foreground group, and the child has a group of its own. */
static volatile sig_atomic_t child_group;

static void end_child_group(int sig)
{
    if (child_group > 0)
        kill(-(pid_t)child_group, SIGKILL);
    /* A counted run's valgrind (culprit_process_run(): SIGTERM, grace, SIGKILL). */
    culprit_process_interrupt();
    /* The result file the child was to write, with the process's other temporaries. */
    culprit_fs_temp_dir_remove_signal_safe();
    signal(sig, SIG_DFL);
    raise(sig);
}

static const int end_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define NSIGNALS (sizeof(end_signals) / sizeof(end_signals[0]))

/* end_child_group() for the end signals while a test runs; `old` keeps what was. */
static void catch_end_signals(struct sigaction old[NSIGNALS])
{
    for (size_t i = 0; i < NSIGNALS; i++)
        sigaction(end_signals[i], &(struct sigaction){.sa_handler = end_child_group}, &old[i]);
}

static void restore_end_signals(const struct sigaction old[NSIGNALS])
{
    for (size_t i = 0; i < NSIGNALS; i++)
        sigaction(end_signals[i], &old[i], NULL);
}

static int run_forked(culprit_test_result *r, const culprit_runner_job *job)
{
    struct sigaction old[NSIGNALS];
    sigset_t block, mask;
    culprit_buf path = CULPRIT_BUF_INIT, output = CULPRIT_BUF_INIT;
    int fds[2] = {-1, -1}, status = 0, timed_out, error;
    double start = culprit_time_now_s();
    pid_t pid;

    if ((error = make_result_path(&path)) < 0)
        goto cleanup;
    if (pipe(fds) < 0) {
        error = culprit_error_set_os("cannot create a pipe");
        goto cleanup;
    }
    fflush(stdout);
    fflush(stderr);
    /* Blocked until the handler knows the child: a SIGTERM just after fork() killed
     * the runner and left the child measuring in its own group, out of reach. */
    sigemptyset(&block);
    for (size_t i = 0; i < NSIGNALS; i++)
        sigaddset(&block, end_signals[i]);
    sigprocmask(SIG_BLOCK, &block, &mask);
    if ((pid = fork()) < 0) {
        sigprocmask(SIG_SETMASK, &mask, NULL);
        error = culprit_error_set_os("cannot fork");
        goto cleanup;
    }
    if (pid == 0) {
        /* A group of its own, so that what the test starts ends with it. */
        setpgid(0, 0);
        sigprocmask(SIG_SETMASK, &mask, NULL);
        close(fds[0]);
        child_main(job, path.ptr, fds[1]);
    }
    setpgid(pid, pid); /* as the child does: whichever runs first */
    child_group = pid;
    catch_end_signals(old);
    sigprocmask(SIG_SETMASK, &mask, NULL);
    close(fds[1]);
    fds[1] = -1;
    timed_out = collect_output(&output, fds[0], pid, &status,
                               job->timeout_s > 0 ? start + job->timeout_s : 0, job, start);
    if (timed_out) {
        kill(-pid, SIGKILL);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
    } else if (kill(-pid, 0) == 0) {
        /* The test returned, but processes it started still run: ended with it. */
        kill(-pid, SIGKILL);
        fprintf(stderr, "culprit: %s left processes running when it returned; they were killed\n",
                job->test->name);
    }
    child_group = 0;
    restore_end_signals(old);
    if (!timed_out && WIFEXITED(status) && culprit_runner__adopt(r, path.ptr) == 0) {
        if (r->status == CULPRIT_STATUS_FAILURE && !r->message)
            r->message = failure_message(culprit_buf_cstr(&output));
    } else {
        r->status = CULPRIT_STATUS_ERROR;
        r->elapsed_s = culprit_time_now_s() - start;
        culprit_buf msg = CULPRIT_BUF_INIT;
        if (timed_out)
            culprit_buf_printf(&msg, "timed out after %g s and was killed", job->timeout_s);
        else if (WIFSIGNALED(status))
            culprit_buf_printf(&msg, "crashed: killed by signal %d (%s)", WTERMSIG(status),
                               strsignal(WTERMSIG(status)));
        else
            culprit_buf_printf(&msg, "exited with status %d without a result",
                               WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        r->message = culprit_buf_detach(&msg);
    }
    if (output.size && (r->status != CULPRIT_STATUS_PASS || job->verbose))
        r->output = job->verbose ? culprit_buf_detach(&output) : own_output(output.ptr);
    error = 0;
cleanup:
    if (fds[0] >= 0)
        close(fds[0]);
    if (fds[1] >= 0)
        close(fds[1]);
    if (path.ptr)
        unlink(path.ptr);
    culprit_buf_dispose(&path);
    culprit_buf_dispose(&output);
    return error;
}

/* Recording the whole run's tree (CULPRIT_TRACE_OUT, as `culprit calltree record`
 * does) needs the tests in this process: a forked child's calls would stay in the
 * child, which does not write the file. */
static int trace_whole_run(void)
{
    const char *out = getenv("CULPRIT_TRACE_OUT");
    return culprit_trace_dump && out && *out;
}

/* Already under Valgrind, not started by valgrind.c: a whole run counted from
 * outside (`calltree record --metric instructions`), where a Valgrind inside
 * Valgrind cannot start. The test is then run as any other; the outer one counts. */
static int counted_from_outside(const char *count_result)
{
#ifdef HAVE_CALLGRIND
    return RUNNING_ON_VALGRIND && !(count_result && *count_result);
#else
    (void)count_result;
    return 0;
#endif
}

int culprit_runner__run_job(culprit_test_result *r, const culprit_runner_job *job)
{
    const char *count_result = getenv(CULPRIT_RUNNER__COUNT_RESULT);

    if (strcmp(culprit_runner__metric(job), "instructions") == 0 &&
        !counted_from_outside(count_result)) {
        struct sigaction old[NSIGNALS];
        int failed;
        if (!count_result || !*count_result) {
            /* Ctrl-C or SIGTERM ends valgrind's group too, and removes its files. */
            catch_end_signals(old);
            failed = culprit_runner__run_counted(r, job);
            restore_end_signals(old);
            return failed;
        }
        /* The counted process itself (valgrind.c started it under callgrind): one
         * body call per sample, so that each dump is one repetition. */
        culprit_runner_job one = *job;
        one.measure.batch = 1;
        one.measure.keep_preempted = 1; /* one dump per repetition asked for, no more */
        current.counting = 1;
        failed = hand_back(&one, count_result);
        current.counting = 0;
        r->status = failed ? CULPRIT_STATUS_FAILURE : CULPRIT_STATUS_PASS;
        return 0;
    }
    if (job->no_fork || trace_whole_run()) {
        run_here(r, job, 0);
        if (r->status == CULPRIT_STATUS_FAILURE && !r->message)
            r->message = culprit_strdup("the test failed (see its output above)");
        return 0;
    }
    return run_forked(r, job);
}
