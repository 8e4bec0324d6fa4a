/*
 * The debugger-friendly mode of a test binary. Under a debugger a perf test is not
 * measured but stepped through: forking would take the code under test out of the
 * debugger's process ("Detaching after fork from child process"), and adaptive
 * sampling would run the body thousands of times, for the whole budget, hitting a
 * breakpoint at every one. So when a tracer is attached (TracerPid in
 * /proc/self/status: gdb, lldb, the IDEs' debuggers, also strace) or the mode is
 * asked for (--debug, CULPRIT_DEBUG=1), each test runs once, in this process, with
 * no warm-up, no batching and no budget, and nothing is recorded: one repetition
 * under a debugger is not a measurement. CULPRIT_DEBUG=0 turns the detection off.
 * The runner says so on stderr, so the choice is never silent (docs/runner.md).
 */
#include "runner_internal.h"

#include <stdlib.h>
#include <string.h>

long culprit_runner__tracer_pid(void)
{
    char line[256];
    long pid = 0;
    FILE *f = fopen("/proc/self/status", "r");

    if (!f)
        return 0;
    while (fgets(line, sizeof(line), f))
        if (strncmp(line, "TracerPid:", 10) == 0) {
            pid = strtol(line + 10, NULL, 10);
            break;
        }
    fclose(f);
    return pid > 0 ? pid : 0;
}

void culprit_runner__debug_mode(culprit_runner_options *o, const char *program)
{
    const char *env = getenv("CULPRIT_DEBUG");
    long tracer = 0;

    if (!o->debug && env && !strcmp(env, "1"))
        o->debug = 1;
    if (!o->debug && !(env && !strcmp(env, "0")) && (tracer = culprit_runner__tracer_pid()) > 0)
        o->debug = 1;
    if (!o->debug)
        return;
    o->no_fork = 1;
    o->no_history = 1;
    o->history_dir = NULL;
    o->fail_on_set = 1;
    o->fail_on = CULPRIT_FAIL_ON_NONE; /* a single timed call under a debugger judges nothing */
    fflush(stdout);
    if (tracer > 0)
        fprintf(stderr, "%s: a debugger is attached (tracer pid %ld): ", program, tracer);
    else
        fprintf(stderr, "%s: debug mode (%s): ", program,
                env && !strcmp(env, "1") ? "CULPRIT_DEBUG=1" : "--debug");
    fprintf(stderr, "each test runs once, in this process, with no warm-up, batching or "
                    "budget; nothing is recorded (CULPRIT_DEBUG=0 measures as usual)\n");
}
