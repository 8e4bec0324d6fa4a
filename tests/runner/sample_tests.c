/*
 * A culprit test binary exercising the runner's paths: a passing test, a failing
 * assertion, a crash, a hang, per-repetition setup, a test with an explicit
 * category and a load test. test_runner.c runs it the way ctest and CI do and checks what it says.
 */
#include <culprit/culprit.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile unsigned long sink;

/* About 20 us of arithmetic: fast, and long enough to time one by one. */
static void spin(unsigned long n)
{
    unsigned long x = 0;
    for (unsigned long i = 0; i < n; i++)
        x += i * i ^ (x >> 3);
    sink = x;
}

static void busy_fast(void **state)
{
    (void)state;
    spin(20000);
}

/* A load test: the same work called for its duration, one sample per interval. */
static void load_spin(void **state)
{
    (void)state;
    spin(2000);
}

/* The same work judged on CPU time, which preemption on a busy machine does not
 * inflate: the verdict tests use it so that they do not depend on the load. */
static void cpu_busy(void **state)
{
    (void)state;
    spin(20000);
}

static void busy_declared_slow(void **state)
{
    (void)state;
    spin(2000);
}

static int calls;
static void fails_third_time(void **state)
{
    (void)state;
    calls++;
    assert_true(calls < 3);
}

static void crashes(void **state)
{
    (void)state;
    raise(SIGSEGV);
}

static void hangs(void **state)
{
    (void)state;
    for (;;)
        pause();
}

/* Returns at once, leaving a process behind that holds the output pipe: the runner
 * must end the test when its process exits (it waited for the pipe, forever
 * without --timeout, and reported "timed out" with one), and end the leftover. */
static void leaves_a_child(void **state)
{
    (void)state;
    if (system("sleep 60 &") != 0)
        fail_msg("cannot start the background sleep");
}

/* Per-repetition setup fills the input untimed; the body checks it was refreshed. */
static int rep_setups, bodies;
static int fill(void **state)
{
    int *v = *state;
    for (int i = 0; i < 256; i++)
        v[i] = 256 - i;
    rep_setups++;
    return 0;
}

static int alloc_input(void **state)
{
    *state = calloc(256, sizeof(int));
    return *state ? 0 : -1;
}

static int free_input(void **state)
{
    free(*state);
    /* Every body ran after its own setup: the counts match exactly. */
    if (rep_setups != bodies) {
        fprintf(stderr, "rep_setups %d != bodies %d\n", rep_setups, bodies);
        return -1;
    }
    return 0;
}

static int cmp_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

static void sorts_fresh_input(void **state)
{
    int *v = *state;
    assert_int_equal(v[0], 256); /* unsorted: setup ran before this repetition */
    qsort(v, 256, sizeof(int), cmp_int);
    assert_int_equal(v[0], 1);
    bodies++;
}

int main(int argc, char **argv)
{
    static const culprit_perf_test tests[] = {
        culprit_perf_test(busy_fast, .repetitions = 30),
        culprit_perf_test(busy_declared_slow, .repetitions = 10, .category = "slow"),
        culprit_perf_test(fails_third_time, .repetitions = 10),
        culprit_perf_test(crashes, .repetitions = 5),
        culprit_perf_test(hangs, .repetitions = 5, .timeout_s = 1),
        culprit_perf_test(sorts_fresh_input, .repetitions = 40, .setup = alloc_input,
                          .teardown = free_input, .rep_setup = fill),
        culprit_perf_test(cpu_busy, .repetitions = 30, .metric = "cpu_ns"),
        culprit_perf_test(load_spin, .duration_s = 0.3, .interval_s = 0.01),
        culprit_perf_test(leaves_a_child, .repetitions = 1, .timeout_s = 30),
    };
    return culprit_run_group_name("sample", tests, argc, argv);
}
