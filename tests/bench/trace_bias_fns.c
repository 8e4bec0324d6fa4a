/*
 * The code whose timing bench_trace.sh compares instrumented and not: compiled
 * twice into trace_bias, once with -finstrument-functions (names prefixed instr_)
 * and once without (plain_), so both run in one process, taking turns.
 */
#define CAT2(a, b) a##b
#define CAT(a, b)  CAT2(a, b)
#define NAME(x)    CAT(PREFIX, x)

volatile unsigned long NAME(sink);

/* ~100 cycles of dependent multiplications: a callee with real work in it. */
__attribute__((noinline)) static void compute(unsigned long seed)
{
    unsigned long x = seed;
    for (int i = 0; i < 60; i++)
        x = x * 6364136223846793005ul + 1442695040888963407ul;
    NAME(sink) = x;
}

void NAME(work)(unsigned long m);
__attribute__((noinline)) void NAME(work)(unsigned long m)
{
    for (unsigned long i = 0; i < m; i++)
        compute(i);
}
