/*
 * Child processes: the one place culprit starts a program and waits for it. The
 * bisection builds and times the user's commands (a shell command line, a deadline,
 * the tail of its output for the reason a commit is skipped, a process group of its
 * own so that a timeout or a Ctrl-C ends everything the command started), `check
 * --confirm` re-runs a test binary (no shell: names go to exec as they are), and the
 * call-tree recorder runs a program under the trace runtime's environment.
 *
 * A child is ended, at a timeout or a Ctrl-C, as systemd and docker stop do: SIGTERM,
 * a grace period for it to exit (a compiler removes its temporary files, a test
 * binary its result), then SIGKILL (end_child()). Its $TMPDIR is our process's
 * temporary directory, so whatever it leaves there goes with ours.
 *
 * The child is started with posix_spawn, not fork: glibc's shares our memory until
 * the exec (no copy of culprit's page tables, which fork makes and then pays for
 * again in copy-on-write faults: on a VM that shadows page tables, a fork of
 * culprit cost more CPU time than the short program it ran), and returns the exec's
 * errno when it fails, which tells a program that cannot start from one that exits
 * 127.
 */
#define _GNU_SOURCE /* asprintf, pipe2, strsignal, posix_spawn_file_actions_addchdir_np */
#include "culprit/core.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The bytes of output kept by default: enough for a compiler's last error. */
#define DEFAULT_TAIL 600

/* The child running now (0: none), whether it leads a group of its own, and its grace
 * period in ms: for culprit_process_interrupt() in a signal handler. */
static volatile sig_atomic_t running_pid, running_group, running_grace_ms;
/* Set while culprit_process_interrupt() waits: called again, it kills at once. */
static volatile sig_atomic_t interrupting;
/* The signals that end culprit, blocked while a child is started and registered. */
static const int ending[] = {SIGINT, SIGTERM, SIGHUP};
#define NENDING (sizeof(ending) / sizeof(*ending))

static double now_ns(void)
{
    return culprit_time_now_s() * 1e9;
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

static double grace_of(const culprit_process_options *o)
{
    return o->grace_s > 0 ? o->grace_s : CULPRIT_PROCESS_GRACE_S;
}

/*
 * Ends the child `pid` (our child) and, with `group`, its process group: SIGTERM and
 * SIGCONT, so that a compiler removes its temporary files and a test binary its
 * result, up to `grace_s` for them to exit, then SIGKILL and up to a second more.
 * The group is gone when its leader has been reaped and kill(-pid, 0) finds no one.
 * Returns 1 when it reaped the child here (into *status, out->cpu_ns), 0 when the
 * caller still must. Async-signal-safe (kill, wait4, clock_gettime, nanosleep).
 */
static int end_child(culprit_process_result *out, pid_t pid, int group, double grace_s, int *status)
{
    pid_t target = group ? -pid : pid;
    double deadline = now_ns() + grace_s * 1e9;
    int reaped = 0, killed = 0;

    kill(target, SIGTERM);
    kill(target, SIGCONT);
    for (;;) {
        struct timespec nap = {0, 5 * 1000 * 1000};
        pid_t done = reaped ? 0 : reap(out, pid, status, WNOHANG);
        if (done == pid || (done < 0 && errno == ECHILD))
            reaped = done == pid ? 1 : -1; /* -1: reaped elsewhere */
        /* The group's orphans are ours to reap (a subreaper, see culprit_process_run):
         * a zombie still answers kill(-pid, 0). */
        while (reaped && group && waitpid(-pid, NULL, WNOHANG) > 0)
            ;
        if (reaped && (!group || (kill(target, 0) < 0 && errno == ESRCH)))
            break;
        if (interrupting > 1 || now_ns() >= deadline) {
            if (killed++)
                break;
            kill(target, SIGKILL);
            deadline = now_ns() + 1e9;
        }
        nanosleep(&nap, NULL);
    }
    return reaped == 1;
}

void culprit_process_interrupt(void)
{
    culprit_process_result ignored;
    pid_t pid = (pid_t)running_pid;
    int status;

    if (pid <= 0)
        return;
    if (interrupting) { /* again while the first call waits: no more grace */
        interrupting = 2;
        kill(running_group ? -pid : pid, SIGKILL);
        return;
    }
    interrupting = 1;
    end_child(&ignored, pid, running_group, running_grace_ms / 1000.0, &status);
    interrupting = 0;
}

extern char **environ;

/* Sets `entry` ("NAME=value") in the `*n` entries of `envp`, over an entry of the same
 * name, as putenv does; "NAME" alone removes it. */
static void env_put(char **envp, size_t *n, char *entry)
{
    const char *eq = strchr(entry, '=');
    size_t len = eq ? (size_t)(eq - entry) : strlen(entry), i = 0;

    while (i < *n && !(strncmp(envp[i], entry, len) == 0 && envp[i][len] == '='))
        i++;
    if (!eq) {
        if (i < *n)
            memmove(envp + i, envp + i + 1, (*n - i) * sizeof(*envp)); /* and its NULL */
        *n -= i < *n;
        return;
    }
    envp[i] = entry;
    *n += i == *n;
}

/* The child's environment: ours, then its $TMPDIR (`tmpdir_env`), then o->env. The
 * strings are ours and the caller's (only the array is malloc'd); NULL: no memory. */
static char **child_env(const culprit_process_options *o, char *tmpdir_env)
{
    size_t n = 0, extra = 1;
    char **envp;

    while (environ && environ[n])
        n++;
    for (size_t i = 0; o->env && o->env[i]; i++)
        extra++;
    if (!(envp = calloc(n + extra + 1, sizeof(*envp))))
        return NULL;
    if (n)
        memcpy(envp, environ, n * sizeof(*envp));
    if (tmpdir_env)
        env_put(envp, &n, tmpdir_env); /* before o->env, which may set its own */
    for (size_t i = 0; o->env && o->env[i]; i++)
        env_put(envp, &n, (char *)o->env[i]);
    return envp;
}

/* o->argv[0], which is no executable format, run by /bin/sh with its arguments. */
static int spawn_script(pid_t *pid, const culprit_process_options *o,
                        const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *attr,
                        char **envp)
{
    size_t n = 0;
    char **argv;
    int err;

    while (o->argv[n])
        n++;
    if (!(argv = calloc(n + 2, sizeof(*argv))))
        return ENOMEM;
    argv[0] = "/bin/sh";
    memcpy(argv + 1, o->argv, n * sizeof(*argv));
    err = posix_spawn(pid, "/bin/sh", fa, attr, argv, envp);
    free(argv);
    return err;
}

/*
 * Starts the child: the signals culprit handles back to their default, `mask` (the
 * mask from before we blocked them) as its signal mask, its own process group, its
 * output, its directory, `envp`. Returns posix_spawn's error (0: started, *pid set).
 */
static int spawn_child(pid_t *pid, const culprit_process_options *o, int out_fd, char **envp,
                       const sigset_t *mask)
{
    char *shell_argv[] = {"/bin/sh", "-c", (char *)o->shell, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    short flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK;
    sigset_t handled;
    int err;

    /* The parent's handlers are not ours (they would remove its checkouts). */
    sigemptyset(&handled);
    for (size_t i = 0; i < NENDING; i++) {
        struct sigaction sa;
        if (sigaction(ending[i], NULL, &sa) == 0 && sa.sa_handler != SIG_IGN &&
            sa.sa_handler != SIG_DFL)
            sigaddset(&handled, ending[i]);
    }
    if ((err = posix_spawnattr_init(&attr)) != 0)
        return err;
    if ((err = posix_spawn_file_actions_init(&fa)) != 0) {
        posix_spawnattr_destroy(&attr);
        return err;
    }
    posix_spawnattr_setsigdefault(&attr, &handled);
    posix_spawnattr_setsigmask(&attr, mask);
    if (o->own_group) {
        flags |= POSIX_SPAWN_SETPGROUP;
        posix_spawnattr_setpgroup(&attr, 0);
    }
    posix_spawnattr_setflags(&attr, flags);
    if (o->output == CULPRIT_PROCESS_TO_STDERR)
        err = posix_spawn_file_actions_adddup2(&fa, STDERR_FILENO, STDOUT_FILENO);
    else if (o->output == CULPRIT_PROCESS_QUIET &&
             (err = posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY,
                                                     0)) == 0)
        err = posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
    else if (o->output == CULPRIT_PROCESS_CAPTURE &&
             (err = posix_spawn_file_actions_adddup2(&fa, out_fd, STDOUT_FILENO)) == 0)
        err = posix_spawn_file_actions_adddup2(&fa, out_fd, STDERR_FILENO);
    if (err == 0 && o->dir)
        err = posix_spawn_file_actions_addchdir_np(&fa, o->dir);
    if (err == 0 && o->shell)
        err = posix_spawn(pid, "/bin/sh", &fa, &attr, shell_argv, envp);
    else if (err == 0)
        err = posix_spawnp(pid, o->argv[0], &fa, &attr, (char *const *)o->argv, envp);
    if (err == ENOEXEC && !o->shell) /* a script without #!: to /bin/sh, as execvp does */
        err = spawn_script(pid, o, &fa, &attr, envp);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    return err;
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
            return end_child(out, pid, o->own_group, grace_of(o), status);
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
            return end_child(out, pid, o->own_group, grace_of(o), status);
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
        return CULPRIT_ERROR_NOMEM();
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
        end_child(out, pid, 1, grace_of(o), &status);
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
    static const culprit_process_options defaults = CULPRIT_PROCESS_OPTIONS_INIT;

    return culprit_options_init_from(opts, &defaults, sizeof(defaults), version,
                                     CULPRIT_PROCESS_OPTIONS_VERSION, "process");
}

int culprit_process_run(culprit_process_result *out, const culprit_process_options *o)
{
    int out_pipe[2] = {-1, -1}, err = 0, error = 0;
    const char *what, *tmpdir;
    char *tmpdir_env = NULL, **envp = NULL;
    sigset_t block, mask;
    double start;
    pid_t pid;

    memset(out, 0, sizeof(*out));
    if (!o || o->version != CULPRIT_PROCESS_OPTIONS_VERSION || !o->shell == !o->argv ||
        (o->argv && !o->argv[0]))
        return culprit_error_set(CULPRIT_EINVALID,
                                 "a process needs either a program with its arguments or a "
                                 "shell command");
    what = o->shell ? "/bin/sh" : o->argv[0];
    if (o->output == CULPRIT_PROCESS_CAPTURE && pipe2(out_pipe, O_CLOEXEC) < 0) {
        error = culprit_error_set_os("cannot create a pipe to run '%s'", what);
        goto cleanup;
    }
    /* Its temporary files go into ours (culprit_fs_temp_dir()), removed with it. */
    if (culprit_fs_temp_dir(&tmpdir) < 0 || asprintf(&tmpdir_env, "TMPDIR=%s", tmpdir) < 0) {
        culprit_error_clear(); /* then the child has our $TMPDIR */
        tmpdir_env = NULL;
    }
    if (!(envp = child_env(o, tmpdir_env))) {
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    fflush(stdout);
    fflush(stderr);
    start = now_ns();
    /* What a group leaves orphaned is reparented to us, not to init, so that
     * end_child() reaps it and sees the group gone at once (init may reap late). */
    if (o->own_group)
        prctl(PR_SET_CHILD_SUBREAPER, 1);
    /* A signal between the start and the registration below would miss the child. */
    sigemptyset(&block);
    for (size_t i = 0; i < NENDING; i++)
        sigaddset(&block, ending[i]);
    sigprocmask(SIG_BLOCK, &block, &mask);
    err = spawn_child(&pid, o, out_pipe[1], envp, &mask);
    if (err != 0) { /* nothing started: say why */
        sigprocmask(SIG_SETMASK, &mask, NULL);
        if (o->dir && err == ENOENT && access(o->dir, X_OK) != 0)
            error = culprit_error_set(CULPRIT_ENOTFOUND, "cannot enter '%s' to run '%s': %s",
                                      o->dir, what, strerror(err));
        else
            error =
                culprit_error_set(CULPRIT_ENOTFOUND, "cannot run '%s': %s", what, strerror(err));
        goto cleanup;
    }
    running_group = o->own_group;
    running_grace_ms = (sig_atomic_t)(grace_of(o) * 1000);
    running_pid = pid;
    sigprocmask(SIG_SETMASK, &mask, NULL);
    if (out_pipe[1] >= 0) {
        close(out_pipe[1]);
        out_pipe[1] = -1;
    }
    error = wait_child(out, o, pid, out_pipe[0], start);
    running_pid = 0;
    /* At the exit itself when it was seen (not after draining the output). */
    out->elapsed_ns = (out->elapsed_ns > 0 ? out->elapsed_ns : now_ns()) - start;
cleanup:
    for (int i = 0; i < 2; i++)
        if (out_pipe[i] >= 0)
            close(out_pipe[i]);
    free(envp);
    free(tmpdir_env);
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
