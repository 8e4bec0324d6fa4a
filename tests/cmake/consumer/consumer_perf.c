/* The perf tests of the tiny consumer project: two cheap tests, a few repetitions. */
#include <culprit/culprit.h>

static unsigned long sum_to(unsigned long n)
{
    volatile unsigned long s = 0;
    for (unsigned long i = 1; i <= n; i++)
        s += i;
    return s;
}

static void sum_small(void **state)
{
    (void)state;
    assert_int_equal(sum_to(1000), 500500);
}

static void sum_large(void **state)
{
    (void)state;
    assert_int_equal(sum_to(20000), 200010000);
}

int main(int argc, char **argv)
{
    static const culprit_perf_test tests[] = {
        culprit_perf_test(sum_small, .repetitions = 5),
        culprit_perf_test(sum_large, .repetitions = 5, .category = "fast"),
    };
    return culprit_run_group(tests, argc, argv);
}
