/*
 * A stand-in for a culprit test binary, for `culprit check --confirm`: given
 * --filter=TEST --history=DIR --commit=SHA (as the re-run passes them), it records
 * one run of suite "perf" with TEST measured at $CULPRIT_FAKE_MEAN_NS (30 samples,
 * sd 1%), dated $CULPRIT_FAKE_TIMESTAMP (default now) so it is the newest run at the
 * commit. --list names the tests a re-run looks for (the trust check, rerun.c).
 */
#include "culprit/history.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The re-run's trust check takes only a binary linking culprit's runner (rerun.c,
 * links_runner): this stand-in has none, so it carries the runner's mark. */
static const char runner_mark[] __attribute__((used)) = "CULPRIT_FAIL_ON";

int main(int argc, char **argv)
{
    const char *test = NULL, *dir = NULL, *commit = NULL, *env = getenv("CULPRIT_FAKE_MEAN_NS");
    double mean = env ? atof(env) : 1e5;
    culprit_history *history = NULL;
    culprit_run *run = NULL;
    culprit_test_result *t;
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    int error;

    /* --list: the tests it has, $CULPRIT_FAKE_TESTS (default "major"), one a line. */
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        printf("%s\n", getenv("CULPRIT_FAKE_TESTS") ? getenv("CULPRIT_FAKE_TESTS") : "major");
        return 0;
    }
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--filter=", 9) == 0)
            test = argv[i] + 9;
        else if (strncmp(argv[i], "--history=", 10) == 0)
            dir = argv[i] + 10;
        else if (strncmp(argv[i], "--commit=", 9) == 0)
            commit = argv[i] + 9;
    }
    if (!test || !dir || !commit) {
        fprintf(stderr, "fake_test_binary: needs --filter=, --history= and --commit=\n");
        return 2;
    }
    strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    if (getenv("CULPRIT_FAKE_TIMESTAMP"))
        snprintf(stamp, sizeof(stamp), "%s", getenv("CULPRIT_FAKE_TIMESTAMP"));
    if ((error = culprit_history_run_new(&run)) < 0 ||
        (error = culprit_history_run_add_test(&t, run)) < 0)
        goto cleanup;
    culprit_str_set(&run->suite, "perf");
    culprit_str_set(&run->commit, commit);
    culprit_str_set(&run->timestamp, stamp);
    culprit_str_set(&run->host, "testhost");
    culprit_str_set(&run->machine, "test machine");
    culprit_str_set(&run->compiler, "cc 1.0");
    culprit_str_set(&run->flags, "-O2");
    culprit_str_set(&run->binary, argv[0]); /* as the runner records it */
    culprit_str_set(&t->name, test);
    culprit_str_set(&t->classname, "perf");
    culprit_str_set(&t->category, "fast");
    culprit_str_set(&t->category_source, "assigned");
    t->category_high_ns = 1e6;
    t->status = CULPRIT_STATUS_PASS;
    t->summary = (culprit_summary){30,          mean,        mean / 100,  mean, mean * 0.98,
                                   mean * 1.02, mean * 0.99, mean * 1.01, 0.99};
    if ((error = culprit_history_open(&history, dir, 1)) < 0)
        goto cleanup;
    error = culprit_history_store(history, run, NULL);
cleanup:
    if (error < 0)
        fprintf(stderr, "fake_test_binary: %s\n", culprit_error_last());
    culprit_history_free(history);
    culprit_history_run_free(run);
    return error < 0 ? 2 : 0;
}
