/*
 * The bias of a timed level (bench_trace.sh): instr_work(), instrumented, and
 * plain_work(), the same code uninstrumented, called in turns R times in one
 * process, so that both meet the same machine. This file is not instrumented:
 * instr_work is at depth 1, and in level mode at level 1 it is the only timed
 * function, its callees running their untimed hooks. Prints the mean duration of
 * plain_work() in ns; the tree holds instr_work()'s.
 *
 *   trace_bias M R   (M calls of compute() per work(), R turns)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void plain_work(unsigned long m);
void instr_work(unsigned long m);

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    unsigned long m = argc > 1 ? strtoul(argv[1], NULL, 10) : 200000;
    unsigned long r = argc > 2 ? strtoul(argv[2], NULL, 10) : 20;
    double plain = 0;

    for (unsigned long i = 0; i < r; i++) {
        double t0 = now_ns();
        plain_work(m);
        plain += now_ns() - t0;
        instr_work(m);
    }
    printf("%.0f\n", plain / (double)r);
    return 0;
}
