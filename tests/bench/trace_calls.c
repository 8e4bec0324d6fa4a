/*
 * The call-heavy workload of bench_trace.sh: six levels of small functions, built
 * four ways from this one source (uninstrumented; instrumented with culprit's
 * runtime; instrumented with glibc's empty hooks; instrumented with empty hooks in
 * a shared library that uftrace's LD_PRELOADed libmcount takes over). Per outer
 * iteration: run -> l3 -> 4 x l4 -> (3 x l5 -> 5 x leaf, 2 x side), 85 calls, of
 * which 60 are calls of leaf() (~20 ns of dependent multiplications), the function
 * that takes most of the time, as in the workload.
 *
 *   trace_calls R [SKIP]   R outer iterations; SKIP (run, l3, l4, l5, leaf, side)
 *                          makes that function return at once
 *   trace_calls R empty    85 R calls of an empty function instead (the hooks'
 *                          cost where no work hides it)
 *
 * Prints the CPU time of the measured region (the call of run()) in ns. The true
 * inclusive time of a function F, over all its calls, is the uninstrumented
 * build's CPU time minus the same build's with F skipped: its calls still happen,
 * only their bodies are gone, which is what the instrumentation's window around a
 * body measures.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { F_NONE, F_RUN, F_L3, F_L4, F_L5, F_LEAF, F_SIDE };

static int skip; /* the function whose body is skipped (F_NONE: none) */
/* Every function continues one chain through `state`, so no call's work overlaps
 * another's (out-of-order execution would hide an independent callee's work behind
 * its caller's, and "its time" would have no single meaning). */
static unsigned long state;

/* K steps of a dependent xor-shift-multiply chain (~1.5 ns each) continuing `state`
 * (a chain of x * a + b would fold at compile time). */
#define WORK(s, k)                                                                                 \
    do {                                                                                           \
        unsigned long x_ = state + (s);                                                            \
        for (int i_ = 0; i_ < (k); i_++)                                                           \
            x_ = (x_ ^ (x_ >> 29)) * 0xbf58476d1ce4e5b9ul;                                         \
        state = x_;                                                                                \
    } while (0)

__attribute__((noinline)) static void leaf(unsigned long s)
{
    if (skip == F_LEAF)
        return;
    WORK(s, 12);
}

__attribute__((noinline)) static void side(unsigned long s)
{
    if (skip == F_SIDE)
        return;
    WORK(s, 14);
}

__attribute__((noinline)) static void l5(unsigned long s)
{
    if (skip == F_L5)
        return;
    WORK(s, 12);
    for (unsigned long j = 0; j < 5; j++)
        leaf(s + j);
}

__attribute__((noinline)) static void l4(unsigned long s)
{
    if (skip == F_L4)
        return;
    WORK(s, 6);
    for (unsigned long j = 0; j < 3; j++)
        l5(s + j);
    side(s);
    side(s + 1);
}

__attribute__((noinline)) static void l3(unsigned long s)
{
    if (skip == F_L3)
        return;
    WORK(s, 8);
    for (unsigned long j = 0; j < 4; j++)
        l4(s + j);
}

__attribute__((noinline)) static void run(unsigned long r)
{
    if (skip == F_RUN)
        return;
    for (unsigned long i = 0; i < r; i++)
        l3(i);
}

/* The worst case for the hooks: a call with nothing to hide them behind. */
__attribute__((noinline)) static void empty(unsigned long i)
{
    state = i;
}

/* The stopwatch is not part of the workload. */
__attribute__((no_instrument_function)) static double cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    static const char *const names[] = {"", "run", "l3", "l4", "l5", "leaf", "side"};
    unsigned long r = argc > 1 ? strtoul(argv[1], NULL, 10) : 0;
    double t0;

    if (r == 0 || argc > 3) {
        fprintf(stderr, "usage: trace_calls R [run|l3|l4|l5|leaf|side|empty]\n");
        return 2;
    }
    if (argc > 2 && strcmp(argv[2], "empty") == 0) { /* 85 R calls of empty() */
        t0 = cpu_ns();
        for (unsigned long i = 0; i < 85 * r; i++)
            empty(i);
        printf("%.0f\n", cpu_ns() - t0);
        return 0;
    }
    for (int f = F_RUN; argc > 2 && f <= F_SIDE; f++)
        if (strcmp(argv[2], names[f]) == 0)
            skip = f;
    if (argc > 2 && !skip) {
        fprintf(stderr, "trace_calls: no function '%s'\n", argv[2]);
        return 2;
    }
    t0 = cpu_ns();
    run(r);
    printf("%.0f\n", cpu_ns() - t0);
    return 0;
}
