/* Child processes (framework/core/process.c): statuses, signals, timeouts that end
 * the whole process group, the kept tail of the output, the environment and the
 * working directory, a program that cannot be started, and CPU time against wall time. */
#include "support/test.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "culprit/core.h"
#include "support/tmpdir.h"

static int run_shell(culprit_process_result *r, const char *cmd, culprit_process_output output,
                     double timeout_s, int own_group)
{
    culprit_process_options o = CULPRIT_PROCESS_OPTIONS_INIT;

    o.shell = cmd;
    o.output = output;
    o.timeout_s = timeout_s;
    o.own_group = own_group;
    return culprit_process_run(r, &o);
}

static void exit_status_and_captured_output(void **state)
{
    culprit_process_result r;
    culprit_buf why = CULPRIT_BUF_INIT;
    (void)state;

    assert_int_equal(run_shell(&r, "echo out; echo err >&2; exit 3", CULPRIT_PROCESS_CAPTURE, 0, 0),
                     0);
    assert_true(r.exited);
    assert_int_equal(r.status, 3);
    assert_false(culprit_process_succeeded(&r));
    assert_string_equal(r.output, "out\nerr\n");
    assert_int_equal(culprit_process_describe(&why, &r, "'x'", 0), 0);
    assert_string_equal(culprit_buf_cstr(&why), "'x' exited with status 3: ...out\nerr\n");
    culprit_process_result_dispose(&r);
    culprit_buf_dispose(&why);

    assert_int_equal(run_shell(&r, "true", CULPRIT_PROCESS_QUIET, 0, 0), 0);
    assert_true(culprit_process_succeeded(&r));
    assert_null(r.output);
    assert_true(r.elapsed_ns > 0);
    culprit_process_result_dispose(&r);
}

static void only_the_tail_of_the_output_is_kept(void **state)
{
    culprit_process_options o = CULPRIT_PROCESS_OPTIONS_INIT;
    culprit_process_result r;
    (void)state;

    o.shell = "i=0; while [ $i -lt 3000 ]; do printf 'abcdefghij'; i=$((i+1)); done; printf END";
    o.output = CULPRIT_PROCESS_CAPTURE;
    o.tail = 15;
    assert_int_equal(culprit_process_run(&r, &o), 0);
    assert_string_equal(r.output, "ijabcdefghijEND"); /* the last 15 of 30,003 bytes */
    culprit_process_result_dispose(&r);
}

static void a_signal_is_reported(void **state)
{
    culprit_process_result r;
    culprit_buf why = CULPRIT_BUF_INIT;
    (void)state;

    assert_int_equal(run_shell(&r, "kill -TERM $$", CULPRIT_PROCESS_INHERIT, 0, 0), 0);
    assert_false(r.exited);
    assert_int_equal(r.signal, SIGTERM);
    culprit_process_describe(&why, &r, "it", 0);
    assert_non_null(strstr(culprit_buf_cstr(&why), "killed by signal 15"));
    culprit_process_result_dispose(&r);
    culprit_buf_dispose(&why);
}

/* Running, not a zombie: an orphan killed with its group waits for an init that
 * may not reap it in a container. */
static int alive(long pid)
{
    char path[64], state = 0;
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
    if (!(f = fopen(path, "r")))
        return 0;
    if (fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
        state = 0;
    fclose(f);
    return state != 0 && state != 'Z' && state != 'X';
}

/* The process whose pid the command wrote to `pidfile` is gone (within a second). */
static void assert_gone(const char *pidfile)
{
    culprit_buf pid_text = CULPRIT_BUF_INIT;
    long pid;

    assert_int_equal(culprit_fs_read_file(&pid_text, pidfile), 0);
    pid = strtol(culprit_buf_cstr(&pid_text), NULL, 10);
    assert_true(pid > 0);
    for (int i = 0; i < 100 && alive(pid); i++)
        usleep(10000);
    assert_false(alive(pid));
    culprit_buf_dispose(&pid_text);
}

/* Runs `sleep 60 & echo $! > PIDFILE; THEN` in its own group, capturing, in a fresh
 * directory (written to `dir`, 256 bytes) holding `pidfile` (300 bytes). */
static void run_leaving_a_sleep(culprit_process_result *r, char *dir, char *pidfile,
                                const char *then, double timeout_s)
{
    char cmd[600];

    assert_int_equal(test_tmpdir_make(dir, 256, "process"), 0);
    snprintf(pidfile, 300, "%s/pid", dir);
    snprintf(cmd, sizeof(cmd), "sleep 60 & echo $! > %s; %s", pidfile, then);
    assert_int_equal(run_shell(r, cmd, CULPRIT_PROCESS_CAPTURE, timeout_s, 1), 0);
}

/* A timeout with own_group ends the grandchildren too: a background `sleep` the
 * command started is gone afterwards. */
static void a_timeout_kills_the_whole_group(void **state)
{
    char dir[256], pidfile[300];
    culprit_process_result r;
    (void)state;

    run_leaving_a_sleep(&r, dir, pidfile, "wait", 0.3);
    assert_true(r.timed_out);
    assert_false(r.exited);
    assert_int_equal(r.signal, SIGTERM); /* the shell ends at SIGTERM, before SIGKILL */
    assert_gone(pidfile);
    culprit_process_result_dispose(&r);
    test_tmpdir_remove(dir);
}

/* run_armed(): runs o's command, which writes ARMED once its trap is set, until it
 * did: a timeout that fires before the shell got to its trap (seen once at load 23 to
 * 27 under ASan, 0.3 s after the start) tests nothing, so the run is taken again with
 * twice the timeout, up to 5 times. */
static void run_armed(culprit_process_result *r, culprit_process_options *o, const char *armed)
{
    struct stat st;

    for (int attempt = 0; attempt < 5; attempt++, o->timeout_s *= 2) {
        unlink(armed);
        assert_int_equal(culprit_process_run(r, o), 0);
        if (stat(armed, &st) == 0)
            return;
        culprit_process_result_dispose(r);
    }
    fail_msg("the command never set its trap before its timeout");
}

/* A timed-out group gets SIGTERM first, so a compiler can remove its temporary files:
 * a command that traps TERM does its cleanup (writes a marker) and exits with it; one
 * that ignores TERM gets SIGKILL once the grace period is over. Before, the group got
 * SIGKILL at once and the trap never ran. */
static void a_timeout_sends_sigterm_before_sigkill(void **state)
{
    culprit_process_options o = CULPRIT_PROCESS_OPTIONS_INIT;
    culprit_process_result r;
    char dir[256], cmd[1000], marker[300], armed[300];
    struct stat st;
    (void)state;

    assert_int_equal(test_tmpdir_make(dir, sizeof(dir), "grace"), 0);
    snprintf(marker, sizeof(marker), "%s/cleaned", dir);
    snprintf(armed, sizeof(armed), "%s/armed", dir);
    snprintf(cmd, sizeof(cmd),
             "trap 'echo > %s; exit 3' TERM; echo > %s; while :; do sleep 0.01; done", marker,
             armed);
    o.shell = cmd;
    o.timeout_s = 0.3;
    o.own_group = 1;
    o.output = CULPRIT_PROCESS_QUIET;
    run_armed(&r, &o, armed);
    assert_true(r.timed_out);
    assert_true(r.exited);
    assert_int_equal(r.status, 3);
    assert_int_equal(stat(marker, &st), 0);
    culprit_process_result_dispose(&r);

    /* TERM ignored: SIGKILL after the grace period (0.2 s here; 5 s by default). */
    snprintf(cmd, sizeof(cmd), "trap '' TERM; echo > %s; while :; do sleep 0.01; done", armed);
    o.timeout_s = 0.3;
    o.grace_s = 0.2;
    run_armed(&r, &o, armed);
    assert_true(r.timed_out);
    assert_int_equal(r.signal, SIGKILL);
    assert_true(r.elapsed_ns >= 0.5e9); /* the timeout, then the grace period */
    culprit_process_result_dispose(&r);
    test_tmpdir_remove(dir);
}

/* A handler as culprit's: end the child, then die of the signal. */
static void end_and_die(int sig)
{
    culprit_process_interrupt();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* culprit_process_interrupt() from a handler: SIGTERM, then a grace period (60 s
 * here) for a child that ignores it; a second signal meanwhile kills it at once. */
static void a_second_signal_skips_the_grace_period(void **state)
{
    char dir[256], mark[300], cmd[1200];
    culprit_buf text = CULPRIT_BUF_INIT;
    int status = 0;
    long shell = 0;
    pid_t pid;
    (void)state;

    assert_int_equal(test_tmpdir_make(dir, sizeof(dir), "interrupt"), 0);
    snprintf(mark, sizeof(mark), "%s/pid", dir);
    snprintf(cmd, sizeof(cmd),
             "trap '' TERM; echo $$ > %s.new; mv %s.new %s; while :; do sleep 0.01; done", mark,
             mark, mark);
    if ((pid = fork()) == 0) {
        struct sigaction sa = {.sa_handler = end_and_die, .sa_flags = SA_NODEFER};
        culprit_process_options o = CULPRIT_PROCESS_OPTIONS_INIT;
        culprit_process_result r;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);
        o.shell = cmd;
        o.own_group = 1;
        o.grace_s = 60;
        o.output = CULPRIT_PROCESS_QUIET;
        _exit(culprit_process_run(&r, &o) < 0 ? 1 : 0);
    }
    for (int i = 0; i < 1000 && culprit_fs_read_file(&text, mark) < 0; i++)
        usleep(10000);
    shell = strtol(culprit_buf_cstr(&text), NULL, 10);
    assert_true(shell > 0);
    kill(pid, SIGTERM);
    usleep(200000);
    assert_int_equal(waitpid(pid, &status, WNOHANG), 0); /* in its grace period */
    assert_true(alive(shell));
    kill(pid, SIGINT);
    for (int i = 0; i < 1000 && waitpid(pid, &status, WNOHANG) == 0; i++)
        usleep(10000); /* up to 10 s: far less than the grace period */
    assert_true(WIFSIGNALED(status));
    for (int i = 0; i < 100 && alive(shell); i++)
        usleep(10000);
    assert_false(alive(shell));
    culprit_buf_dispose(&text);
    test_tmpdir_remove(dir);
}

/* A run ends when its main process exits: `sleep 60 & echo done` is done at once
 * (it held the output pipe for the sleep's 60 s), says so, and its background
 * sleep is killed with the group. */
static void background_processes_do_not_lengthen_a_run(void **state)
{
    char dir[256], pidfile[300];
    culprit_process_result r;
    culprit_buf why = CULPRIT_BUF_INIT;
    (void)state;

    run_leaving_a_sleep(&r, dir, pidfile, "echo done", 0);
    assert_true(r.exited);
    assert_int_equal(r.status, 0);
    assert_false(r.timed_out);
    assert_true(r.background);
    assert_non_null(strstr(r.output, "done"));
    assert_int_equal(culprit_process_describe(&why, &r, "'cmd'", 0), 0);
    assert_non_null(strstr(culprit_buf_cstr(&why), "background"));
    assert_gone(pidfile);
    culprit_process_result_dispose(&r);

    /* Without background work, nothing is said. */
    assert_int_equal(run_shell(&r, "echo alone", CULPRIT_PROCESS_CAPTURE, 0, 1), 0);
    assert_false(r.background);
    culprit_process_result_dispose(&r);
    culprit_buf_dispose(&why);
    test_tmpdir_remove(dir);
}

static void environment_and_directory(void **state)
{
    const char *env[] = {"CULPRIT_PROCESS_TEST=hello", NULL};
    const char *argv[] = {"sh", "-c", "printf '%s %s' \"$CULPRIT_PROCESS_TEST\" \"$(pwd)\"", NULL};
    culprit_process_options o = CULPRIT_PROCESS_OPTIONS_INIT;
    culprit_process_result r;
    (void)state;

    o.argv = argv; /* PATH searched */
    o.env = env;
    o.dir = "/";
    o.output = CULPRIT_PROCESS_CAPTURE;
    assert_int_equal(culprit_process_run(&r, &o), 0);
    assert_string_equal(r.output, "hello /");
    assert_null(getenv("CULPRIT_PROCESS_TEST")); /* ours is unchanged */
    culprit_process_result_dispose(&r);
}

/* What the child gets over our environment: a variable given replaces ours (set
 * here, then replaced), "NAME" alone removes it; a script without a #! line runs
 * under /bin/sh with its arguments, as execvp runs it. */
static void environment_overrides_and_scripts_without_interpreter(void **state)
{
    const char *env[] = {"CULPRIT_PROCESS_A=given", "CULPRIT_PROCESS_B", NULL};
    const char *argv[] = {
        "sh", "-c", "printf '%s,%s' \"$CULPRIT_PROCESS_A\" \"${CULPRIT_PROCESS_B-unset}\"", NULL};
    culprit_process_options o = CULPRIT_PROCESS_OPTIONS_INIT;
    culprit_process_result r;
    char *dir, script[4096];
    FILE *f;
    (void)state;

    setenv("CULPRIT_PROCESS_A", "ours", 1);
    setenv("CULPRIT_PROCESS_B", "ours", 1);
    o.argv = argv;
    o.env = env;
    o.output = CULPRIT_PROCESS_CAPTURE;
    assert_int_equal(culprit_process_run(&r, &o), 0);
    assert_string_equal(r.output, "given,unset");
    assert_string_equal(getenv("CULPRIT_PROCESS_A"), "ours");
    culprit_process_result_dispose(&r);
    unsetenv("CULPRIT_PROCESS_A");
    unsetenv("CULPRIT_PROCESS_B");

    assert_non_null(dir = test_tmpdir_new("script"));
    snprintf(script, sizeof(script), "%s/script", dir);
    assert_non_null(f = fopen(script, "w"));
    fputs("echo \"script $1\"\n", f);
    fclose(f);
    assert_int_equal(chmod(script, 0755), 0);
    o.argv = (const char *[]){script, "arg", NULL};
    o.env = NULL;
    assert_int_equal(culprit_process_run(&r, &o), 0);
    assert_true(r.exited && r.status == 0);
    assert_string_equal(r.output, "script arg\n");
    culprit_process_result_dispose(&r);
    test_tmpdir_remove(dir);
    free(dir);
}

static void a_program_that_cannot_start_is_an_error(void **state)
{
    const char *argv[] = {"culprit-no-such-program", "x", NULL};
    culprit_process_options o = CULPRIT_PROCESS_OPTIONS_INIT;
    culprit_process_result r;
    (void)state;

    o.argv = argv;
    assert_int_equal(culprit_process_run(&r, &o), CULPRIT_ENOTFOUND);
    assert_non_null(strstr(culprit_error_last(), "cannot run 'culprit-no-such-program'"));
    o.argv = (const char *[]){"true", NULL};
    o.dir = "/nonexistent-culprit-dir";
    assert_int_equal(culprit_process_run(&r, &o), CULPRIT_ENOTFOUND);
    assert_non_null(strstr(culprit_error_last(), "/nonexistent-culprit-dir"));
    o.dir = NULL;
    o.shell = "true"; /* both: refused */
    assert_int_equal(culprit_process_run(&r, &o), CULPRIT_EINVALID);
}

/* cpu_ns counts work (here in a subshell the command waits for), not waiting: a
 * sleep's CPU time is a small part of its wall time, a busy loop's is many times a
 * sleep's. Relations only: on a loaded machine the busy loop's wall time may be any
 * multiple of its CPU time. */
static void cpu_time_counts_work_not_waiting(void **state)
{
    culprit_process_result sleeping, busy;
    (void)state;

    assert_int_equal(run_shell(&sleeping, "sleep 0.3", CULPRIT_PROCESS_QUIET, 0, 1), 0);
    assert_true(culprit_process_succeeded(&sleeping));
    assert_true(sleeping.cpu_ns >= 0);
    assert_true(sleeping.cpu_ns < sleeping.elapsed_ns / 4);
    assert_int_equal(run_shell(&busy,
                               "(i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done); "
                               "echo done",
                               CULPRIT_PROCESS_CAPTURE, 0, 1),
                     0);
    assert_true(culprit_process_succeeded(&busy));
    assert_string_equal(busy.output, "done\n");
    assert_true(busy.cpu_ns > 5 * sleeping.cpu_ns);
    /* One process at a time: its CPU time cannot exceed the wall time (+ a tick). */
    assert_true(busy.cpu_ns <= busy.elapsed_ns + 10e6);
    culprit_process_result_dispose(&sleeping);
    culprit_process_result_dispose(&busy);
}

static void options_init_sets_defaults_and_refuses_other_versions(void **state)
{
    culprit_process_options o;
    (void)state;
    memset(&o, 0xff, sizeof(o));
    assert_int_equal(culprit_process_options_init(&o, CULPRIT_PROCESS_OPTIONS_VERSION), 0);
    assert_int_equal(o.version, CULPRIT_PROCESS_OPTIONS_VERSION);
    assert_null(o.argv);
    assert_null(o.shell);
    assert_int_equal(o.output, CULPRIT_PROCESS_INHERIT);
    assert_int_equal(culprit_process_options_init(&o, CULPRIT_PROCESS_OPTIONS_VERSION + 1),
                     CULPRIT_EINVALID);
    assert_non_null(strstr(culprit_error_last(), "process options version 2"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(options_init_sets_defaults_and_refuses_other_versions),
        cmocka_unit_test(exit_status_and_captured_output),
        cmocka_unit_test(only_the_tail_of_the_output_is_kept),
        cmocka_unit_test(a_signal_is_reported),
        cmocka_unit_test(a_timeout_kills_the_whole_group),
        cmocka_unit_test(a_timeout_sends_sigterm_before_sigkill),
        cmocka_unit_test(a_second_signal_skips_the_grace_period),
        cmocka_unit_test(background_processes_do_not_lengthen_a_run),
        cmocka_unit_test(environment_and_directory),
        cmocka_unit_test(environment_overrides_and_scripts_without_interpreter),
        cmocka_unit_test(a_program_that_cannot_start_is_an_error),
        cmocka_unit_test(cpu_time_counts_work_not_waiting),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
