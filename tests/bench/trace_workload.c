/*
 * The workload of bench_trace.sh, built three ways from this one source: plain,
 * instrumented with culprit_instrument(), and instrumented with empty hooks in a
 * shared library (so that uftrace, LD_PRELOADed, can take the hooks over). It times
 * itself with CLOCK_MONOTONIC around the measured region and prints nanoseconds,
 * so the process start-up and the writing of the tree stay out of the figures.
 *
 *   trace_workload calls N   N calls of an empty function (overhead per call)
 *
 * (The bias of a timed level is measured by trace_bias.c, in one process.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void empty(unsigned long i)
{
    sink = i;
}

__attribute__((noinline)) static void calls(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++)
        empty(i);
}

/* The stopwatch is not part of the workload. */
__attribute__((no_instrument_function)) static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 10) : 1000000;
    double t0, t1;

    if (argc < 2 || strcmp(argv[1], "calls") != 0) {
        fprintf(stderr, "usage: trace_workload calls N\n");
        return 2;
    }
    t0 = now_ns();
    calls(n);
    t1 = now_ns();
    printf("%.0f\n", t1 - t0);
    return 0;
}
