/*
 * Child processes: the one place culprit starts a program and waits for it. The
 * bisection builds and times the user's commands (a shell command line, a deadline,
 * the tail of its output for the reason a commit is skipped, a process group of its
 * own so that a timeout or a Ctrl-C ends everything the command started), `check
 * --confirm` re-runs a test binary (no shell: names go to exec as they are), and the
 * call-tree recorder runs a program under the trace runtime's environment.
 *
 * A failed exec is told from a program that exits 127 through a close-on-exec pipe:
 * the child writes its errno there when exec fails, and the parent reads either
 * that or end-of-file (exec succeeded), as posix_spawn implementations do.
 */
#define _GNU_SOURCE /* execvpe, pipe2, strsignal */
#include "culprit/core.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The bytes of output kept by default: enough for a compiler's last error. */
#define DEFAULT_TAIL 600

/* The group of the child running with own_group (0: none), for the signal handler. */
static volatile sig_atomic_t running_group;

void culprit_process_interrupt(void)
{
    pid_t group = (pid_t)running_group;

    if (group > 0)
        kill(-group, SIGKILL);
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/*
 * waitpid that also keeps the child's CPU time (user + system, of the child and of
 * the descendants it waited for: wait4's rusage) in out->cpu_ns when it reaps it.
 */
static pid_t reap(culprit_process_result *out, pid_t pid, int *status, int flags)
{
    struct rusage ru;
    pid_t done = wait4(pid, status, flags, &ru);

    if (done == pid)
        out->cpu_ns = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 +
                      (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3;
    return done;
}

/* In the child: set up, exec, and on failure report errno through `report`. */
static void child(const culprit_process_options *o, int out_fd, int report)
{
    int err, null_fd;

    if (o->own_group)
        setpgid(0, 0);
    switch (o->output) {
    case CULPRIT_PROCESS_TO_STDERR:
        dup2(STDERR_FILENO, STDOUT_FILENO);
        break;
    case CULPRIT_PROCESS_QUIET:
        if ((null_fd = open("/dev/null", O_WRONLY)) >= 0) {
            dup2(null_fd, STDOUT_FILENO);
            dup2(null_fd, STDERR_FILENO);
        }
        break;
    case CULPRIT_PROCESS_CAPTURE:
        dup2(out_fd, STDOUT_FILENO);
        dup2(out_fd, STDERR_FILENO);
        break;
    default:
        break;
    }
    if (o->dir && chdir(o->dir) < 0)
        goto failed;
    for (size_t i = 0; o->env && o->env[i]; i++)
        putenv((char *)o->env[i]);
    if (o->shell)
        execl("/bin/sh", "sh", "-c", o->shell, (char *)NULL);
    else
        execvp(o->argv[0], (char *const *)o->argv);
failed:
    err = errno;
    if (write(report, &err, sizeof(err)) < 0) {
        /* nothing more to say: the parent sees end-of-file and the exit status */
    }
    _exit(127);
}

/* Appends a chunk to the kept tail of `cap` bytes. */
static void keep_tail(char *tail, size_t *kept, size_t cap, const char *chunk, size_t n)
{
    if (n >= cap) {
        memcpy(tail, chunk + n - cap, cap);
        *kept = cap;
        return;
    }
    if (*kept + n > cap) {
        size_t drop = *kept + n - cap;
        memmove(tail, tail + drop, *kept - drop);
        *kept -= drop;
    }
    memcpy(tail + *kept, chunk, n);
    *kept += n;
}

/*
 * The same without a pidfd (kernels before 5.3): the output is read to its end,
 * and without captured output the exit is polled at the pace of the deadline.
 * Returns 1 when the child was reaped here, 0 when the caller must still wait.
 */
static int poll_waitpid(culprit_process_result *out, const culprit_process_options *o, pid_t pid,
                        int out_fd, double deadline, char *tail, size_t *kept, size_t cap,
                        int *status)
{
    for (;;) {
        char chunk[4096];
        double left = (deadline - now_ns()) / 1e6;
        int ready;
        if (left <= 0) {
            out->timed_out = 1;
            kill(o->own_group ? -pid : pid, SIGKILL);
            return 0;
        }
        if (out_fd < 0) {
            pid_t done = reap(out, pid, status, isinf(deadline) ? 0 : WNOHANG);
            if (done == pid)
                return 1;
            if (done < 0 && errno != EINTR)
                return culprit_error_set_os("cannot wait for a child process");
            if (done == 0) {
                struct timespec nap = {0, 2000000}; /* 2 ms */
                nanosleep(&nap, NULL);
            }
            continue;
        }
        struct pollfd p = {out_fd, POLLIN, 0};
        ready = poll(&p, 1, left > 1e6 ? 1000000 : (int)left + 1);
        if (ready <= 0)
            continue; /* EINTR or the time is up: checked above */
        ssize_t got = read(out_fd, chunk, sizeof(chunk));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return 0; /* end of output: the child is exiting */
        keep_tail(tail, kept, cap, chunk, (size_t)got);
    }
}

/* Reads what is left in the output pipe without waiting (the child has exited;
 * a background process may still hold the pipe open). */
static void drain(int out_fd, char *tail, size_t *kept, size_t cap)
{
    char chunk[4096];
    ssize_t got;

    if (out_fd < 0)
        return;
    fcntl(out_fd, F_SETFL, fcntl(out_fd, F_GETFL) | O_NONBLOCK);
    while ((got = read(out_fd, chunk, sizeof(chunk))) > 0 || (got < 0 && errno == EINTR))
        if (got > 0)
            keep_tail(tail, kept, cap, chunk, (size_t)got);
}

/*
 * Polls the output pipe and the child's exit (a pidfd) until the child exits or the
 * deadline passes. A run ends when its main process exits, not when its output
 * closes: `sleep 2 & sh work.sh` held the pipe for 2 s, so every run of a bisection
 * measured the sleep ("+0.0%, nothing to bisect"). Sets *status, or out->timed_out.
 */
static int poll_child(culprit_process_result *out, const culprit_process_options *o, pid_t pid,
                      int out_fd, int pidfd, double deadline, char *tail, size_t *kept, size_t cap,
                      int *status)
{
    for (;;) {
        char chunk[4096];
        double left = (deadline - now_ns()) / 1e6;
        struct pollfd p[2] = {{out_fd, POLLIN, 0}, {pidfd, POLLIN, 0}};
        if (left <= 0) {
            out->timed_out = 1;
            kill(o->own_group ? -pid : pid, SIGKILL);
            return 0;
        }
        if (poll(p, 2, left > 1e6 ? 1000000 : (int)left + 1) <= 0)
            continue; /* EINTR or the time is up: checked above */
        if (p[1].revents) {
            while (reap(out, pid, status, 0) < 0)
                if (errno != EINTR)
                    return culprit_error_set_os("cannot wait for a child process");
            out->elapsed_ns = now_ns(); /* made relative by the caller */
            drain(out_fd, tail, kept, cap);
            return 1;
        }
        ssize_t got = read(out_fd, chunk, sizeof(chunk));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            out_fd = -1; /* closed: poll ignores it, the exit is still awaited */
        else
            keep_tail(tail, kept, cap, chunk, (size_t)got);
    }
}

/* Waits for the child, reading its output (when captured) until the deadline. */
static int wait_child(culprit_process_result *out, const culprit_process_options *o, pid_t pid,
                      int out_fd, double start)
{
    size_t cap = o->tail ? o->tail : DEFAULT_TAIL, kept = 0;
    double deadline = o->timeout_s > 0 ? start + o->timeout_s * 1e9 : INFINITY;
    char *tail = NULL;
    int status = 0, pidfd = -1, reaped = 0;

    if (out_fd >= 0 && !(tail = malloc(cap + 1)))
        return culprit_error_set(CULPRIT_ERROR, "out of memory");
    /* Linux 5.3 and later; before it, the child is awaited by polling waitpid. */
    pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (pidfd >= 0)
        reaped = poll_child(out, o, pid, out_fd, pidfd, deadline, tail, &kept, cap, &status);
    else
        reaped = poll_waitpid(out, o, pid, out_fd, deadline, tail, &kept, cap, &status);
    if (pidfd >= 0)
        close(pidfd);
    if (reaped < 0) {
        free(tail);
        return reaped;
    }
    while (!reaped && reap(out, pid, &status, 0) < 0)
        if (errno != EINTR) {
            free(tail);
            return culprit_error_set_os("cannot wait for a child process");
        }
    /* What the command left running in its group is ended with it, and said. */
    if (o->own_group && kill(-pid, 0) == 0) {
        out->background = 1;
        kill(-pid, SIGKILL);
    }
    if (WIFEXITED(status)) {
        out->exited = 1;
        out->status = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        out->signal = WTERMSIG(status);
    }
    if (tail) {
        tail[kept] = '\0';
        out->output = tail;
    }
    return 0;
}

int culprit_process_options_init(culprit_process_options *opts, unsigned int version)
{
    culprit_process_options defaults = CULPRIT_PROCESS_OPTIONS_INIT;

    if (version != CULPRIT_PROCESS_OPTIONS_VERSION)
        return culprit_error_set(CULPRIT_EINVALID, "process options version %u is not %d", version,
                                 CULPRIT_PROCESS_OPTIONS_VERSION);
    *opts = defaults;
    return 0;
}

int culprit_process_run(culprit_process_result *out, const culprit_process_options *o)
{
    int out_pipe[2] = {-1, -1}, report[2] = {-1, -1}, err = 0, error = 0;
    const char *what;
    ssize_t got;
    double start;
    pid_t pid;

    memset(out, 0, sizeof(*out));
    if (!o || o->version != CULPRIT_PROCESS_OPTIONS_VERSION || !o->shell == !o->argv ||
        (o->argv && !o->argv[0]))
        return culprit_error_set(CULPRIT_EINVALID,
                                 "a process needs either a program with its arguments or a "
                                 "shell command");
    what = o->shell ? "/bin/sh" : o->argv[0];
    if (pipe2(report, O_CLOEXEC) < 0 ||
        (o->output == CULPRIT_PROCESS_CAPTURE && pipe2(out_pipe, O_CLOEXEC) < 0)) {
        error = culprit_error_set_os("cannot create a pipe to run '%s'", what);
        goto cleanup;
    }
    fflush(stdout);
    fflush(stderr);
    start = now_ns();
    if ((pid = fork()) < 0) {
        error = culprit_error_set_os("cannot start '%s'", what);
        goto cleanup;
    }
    if (pid == 0)
        child(o, out_pipe[1], report[1]);
    if (o->own_group) {
        setpgid(pid, pid); /* as the child does: whichever runs first */
        running_group = pid;
    }
    close(report[1]);
    report[1] = -1;
    if (out_pipe[1] >= 0) {
        close(out_pipe[1]);
        out_pipe[1] = -1;
    }
    while ((got = read(report[0], &err, sizeof(err))) < 0 && errno == EINTR)
        ;
    if (got == (ssize_t)sizeof(err)) { /* exec failed: reap the child and say why */
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        running_group = 0;
        if (o->dir && err == ENOENT && access(o->dir, X_OK) != 0)
            error = culprit_error_set(CULPRIT_ENOTFOUND, "cannot enter '%s' to run '%s': %s",
                                      o->dir, what, strerror(err));
        else
            error =
                culprit_error_set(CULPRIT_ENOTFOUND, "cannot run '%s': %s", what, strerror(err));
        goto cleanup;
    }
    error = wait_child(out, o, pid, out_pipe[0], start);
    running_group = 0;
    /* At the exit itself when it was seen (not after draining the output). */
    out->elapsed_ns = (out->elapsed_ns > 0 ? out->elapsed_ns : now_ns()) - start;
cleanup:
    for (int i = 0; i < 2; i++) {
        if (report[i] >= 0)
            close(report[i]);
        if (out_pipe[i] >= 0)
            close(out_pipe[i]);
    }
    return error;
}

void culprit_process_result_dispose(culprit_process_result *result)
{
    if (!result)
        return;
    free(result->output);
    memset(result, 0, sizeof(*result));
}

int culprit_process_succeeded(const culprit_process_result *result)
{
    return result->exited && result->status == 0;
}

int culprit_process_describe(culprit_buf *out, const culprit_process_result *r, const char *what,
                             double timeout_s)
{
    int error;

    if (r->timed_out)
        error = culprit_buf_printf(out, "%s timed out after %g s", what, timeout_s);
    else if (r->signal)
        error = culprit_buf_printf(out, "%s was killed by signal %d (%s)", what, r->signal,
                                   strsignal(r->signal));
    else
        error = culprit_buf_printf(out, "%s exited with status %d", what, r->status);
    if (error == 0 && r->background)
        error = culprit_buf_puts(out, " (processes it left in the background were killed)");
    if (error == 0 && r->output && r->output[0])
        error = culprit_buf_printf(out, ": ...%s", r->output);
    return error;
}
