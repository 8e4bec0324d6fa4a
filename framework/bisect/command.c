/*
 * The commands a bisection runs in a checkout (probe.c): a build or a measured
 * command, timed, in a process group of its own; a command's instructions counted
 * under callgrind; and the removal of a run's temporary directory.
 */
#define _GNU_SOURCE /* asprintf */
#include "bisect_internal.h"
#include "culprit/calltree.h"
#include "culprit/core.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

/* The last bytes of a failing command's output, for the skip reason. */
#define OUTPUT_TAIL 600

/* What bisect_internal.h says: the reason of a failure is what a skip shows. */
int culprit_bisect__run_command(double *elapsed_ns, double *cpu_ns, const char *command,
                                const char *dir, double timeout_s, const char *const *env,
                                const char *option)
{
    culprit_process_options o = CULPRIT_PROCESS_OPTIONS_INIT;
    culprit_process_result r;
    culprit_buf reason = CULPRIT_BUF_INIT;
    const char *all_env[12] = {NULL}; /* CULPRIT_CHECKOUT, the probe's (up to 8), NULL */
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
    if (cpu_ns)
        *cpu_ns = r.cpu_ns;
    if (!culprit_process_succeeded(&r)) {
        if (asprintf(&what, "'%s'", command) < 0)
            what = NULL;
        culprit_process_describe(&reason, &r, what ? what : command, timeout_s);
        free(what);
        if (r.timed_out) /* which limit it was, and the option that raises it */
            (void)culprit_buf_printf(&reason, " (raise %s)", option);
        error = culprit_error_set(CULPRIT_ESKIP, "%s", culprit_buf_cstr(&reason));
    }
    culprit_buf_dispose(&reason);
    culprit_process_result_dispose(&r);
    return error;
}

/* Removes the directory a test run wrote its results into, keeping the run's own
 * error (if any) as the last one. */
void culprit_bisect__remove_tree(const char *dir)
{
    culprit_error_state saved;

    culprit_error_save(&saved);
    (void)culprit_fs_remove_tree(dir);
    culprit_error_restore(&saved);
}

/* --command with --metric instructions: the command's instructions, every process it
 * starts counted under callgrind (one dump each, added up). */
int culprit_bisect__count_command(double *value, const char *command, const char *dir,
                                  double timeout_s)
{
    culprit_buf tmp = CULPRIT_BUF_INIT, shell = CULPRIT_BUF_INIT, env = CULPRIT_BUF_INIT;
    const char *envp[2] = {NULL, NULL};
    double elapsed;
    int error;

    /* The command through the environment: no quoting of the user's text. */
    if ((error = culprit_fs_make_temp(&tmp, NULL, "count", 1)) == 0 &&
        (error = culprit_buf_printf(&env, "CULPRIT_COUNTED_COMMAND=%s", command)) == 0 &&
        (error = culprit_buf_printf(&shell,
                                    "exec valgrind --tool=callgrind -q --trace-children=yes "
                                    "--dump-instr=no '--callgrind-out-file=%s/cg.%%p' /bin/sh -c "
                                    "\"$CULPRIT_COUNTED_COMMAND\"",
                                    tmp.ptr)) == 0) {
        envp[0] = env.ptr;
        if ((error = culprit_bisect__run_command(&elapsed, NULL, shell.ptr, dir, timeout_s, envp,
                                                 "--timeout")) == 0)
            error = culprit_calltree_read_callgrind_dir(NULL, value, tmp.ptr);
    }
    if (tmp.size)
        culprit_bisect__remove_tree(tmp.ptr);
    culprit_buf_dispose(&tmp);
    culprit_buf_dispose(&shell);
    culprit_buf_dispose(&env);
    return error;
}
