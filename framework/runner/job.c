/*
 * What the two ways of running a test share (execute.c forks, valgrind.c runs the
 * binary again under callgrind): the series a job judges, and taking over the
 * one-test result document a child process handed back.
 */
#include "runner_internal.h"

#include "culprit/core.h"
#include "culprit/history.h"

#include <stdlib.h>
#include <string.h>

int culprit_runner__adopt(culprit_test_result *r, const char *path)
{
    culprit_run *child_run = NULL;
    char *name = r->name, *classname = r->classname;
    int error;

    if ((error = culprit_history_read_file(&child_run, path, CULPRIT_HISTORY_LOAD_SAMPLES)) < 0)
        return error;
    if (child_run->ntests != 1) {
        culprit_history_run_free(child_run);
        return culprit_error_set(CULPRIT_EINVALID, "%s: not a one-test result", path);
    }
    /* Move the child's result into ours; the child run keeps nothing to free. */
    free(child_run->tests[0].name);
    free(child_run->tests[0].classname);
    *r = child_run->tests[0];
    r->name = name;
    r->classname = classname;
    memset(&child_run->tests[0], 0, sizeof(child_run->tests[0]));
    child_run->ntests = 0;
    culprit_history_run_free(child_run);
    return 0;
}

const char *culprit_runner__metric(const culprit_runner_job *job)
{
    return job->metric ? job->metric : job->test->metric ? job->test->metric : "wall_ns";
}
