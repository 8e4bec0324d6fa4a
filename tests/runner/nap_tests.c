/*
 * A culprit test binary whose one test sleeps $CULPRIT_TEST_NAP_MS milliseconds (20
 * by default) per repetition: a duration that CPU hogs beside it barely move (a
 * sleep never ends early; its late wake-ups are small beside a 2x change), in the
 * category "medium" (1 to 100 ms) whether it naps 20 or 40 ms. test_ctest_minor.c
 * runs it through ctest against a synthetic history.
 */
#include <culprit/culprit.h>

#include <stdlib.h>
#include <time.h>

static void nap(void **state)
{
    const char *env = getenv("CULPRIT_TEST_NAP_MS");
    long ms = env && *env ? strtol(env, NULL, 10) : 20;
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    (void)state;
    while (nanosleep(&ts, &ts) != 0) {
    }
}

int main(int argc, char **argv)
{
    static const culprit_perf_test tests[] = {
        culprit_perf_test(nap, .repetitions = 10, .warmup = 1, .category = "medium"),
    };
    return culprit_run_group_name("napper", tests, argc, argv);
}
