/*
 * Perf tests whose metric is "instructions", for test_runner_counted.c: a body that
 * does little after a setup that does much (the count must be the body's alone),
 * and a body that does twice the work.
 */
#include <culprit/culprit.h>

static volatile unsigned long sink;

static void spin(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++)
        sink += i;
}

static int heavy_setup(void **state)
{
    (void)state;
    spin(5000000);
    return 0;
}

static void light_body(void **state)
{
    (void)state;
    spin(10000);
}

static void double_body(void **state)
{
    (void)state;
    spin(20000);
}

int main(int argc, char **argv)
{
    static const culprit_perf_test tests[] = {
        culprit_perf_test(light_body, .setup = heavy_setup, .rep_setup = heavy_setup,
                          .metric = "instructions", .repetitions = 3),
        culprit_perf_test(double_body, .metric = "instructions", .repetitions = 3),
    };
    return culprit_run_group_name("counted", tests, argc, argv);
}
