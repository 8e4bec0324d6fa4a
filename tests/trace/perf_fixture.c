/* An instrumented perf-test binary: with CULPRIT_TRACE_DIR set, the runner writes
 * one call tree per perf test, holding only that test's calls. */
#include <culprit/culprit.h>

#include <stdlib.h>

static volatile long sink;

static void helper(int i)
{
    sink += i;
}

static void hot(void **state)
{
    (void)state;
    for (int i = 0; i < 100; i++)
        helper(i);
}

static void cold(void **state)
{
    (void)state;
    helper(1);
}

/* Fails: CMocka longjmps out of it, past its instrumented frames. */
static void fails(void **state)
{
    (void)state;
    helper(2);
    assert_true(sink < 0);
}

int main(int argc, char **argv)
{
    static const culprit_perf_test failing[] = {
        culprit_perf_test(fails, .repetitions = 5),
        culprit_perf_test(cold, .repetitions = 5),
    };
    if (getenv("PERF_FIXTURE_FAIL"))
        return culprit_run_group_name("perf", failing, argc, argv);
    static const culprit_perf_test tests[] = {
        culprit_perf_test(hot, .repetitions = 5),
        culprit_perf_test(cold, .repetitions = 5),
    };
    return culprit_run_group_name("perf", tests, argc, argv);
}
