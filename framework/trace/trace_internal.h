/*
 * The state the files of the trace runtime share: the per-thread state (a shadow
 * stack and a calling-context tree in chunked pools), the global configuration and
 * the clock, defined in state.c. The files form layers, so no two call each other:
 * state.c (this state) < dump.c (merges the threads and writes the call-tree file,
 * trace_dump.h) < runtime.c (the hooks on the hot path and the public API, which
 * calls the writer at exit and from culprit_trace_dump).
 */
#ifndef CULPRIT_TRACE_INTERNAL_H
#define CULPRIT_TRACE_INTERNAL_H

#include "culprit/trace.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#define NOINSTR __attribute__((no_instrument_function))

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HAVE_TSC 1
#else
#define HAVE_TSC 0
#endif

/* Node pool: chunks of 4096 nodes allocated with mmap when the previous one fills,
 * so a node never moves (another thread may be reading it while writing a tree)
 * and nodes stay indices (4 bytes). 4096 chunks: 16 M distinct call paths per thread. */
#define TRACE_CHUNK_BITS 12
#define TRACE_CHUNK      (1u << TRACE_CHUNK_BITS)
#define TRACE_MAX_CHUNKS 4096u

/* Shadow stack: 256 Ki frames reserved (MAP_NORESERVE: only touched pages cost
 * memory), deeper than the default 8 MiB thread stack holds frames of 32 bytes. */
#define TRACE_STACK_MAX (1u << 18)

/* One calling context of one thread. Index 0 is the root; 0 also means "none" in
 * the child links since the root is nobody's child. Times in clock ticks, already
 * corrected for the instrumentation's overhead. */
typedef struct trace_node {
    void *fn;
    struct trace_node *hint; /* the child found last: loops call the same callee again */
    uint32_t self, parent;   /* indices */
    uint32_t first_child, next_sibling;
    uint64_t calls;
    double sum; /* sum of the timed calls' inclusive durations */
    double sq;  /* sum of their squares */
} trace_node;

typedef struct {
    void *fn;
    uintptr_t sp;    /* the enter hook's frame address: deeper calls have lower ones */
    uint64_t start;  /* clock at entry (timed frames only) */
    uint64_t count0; /* the thread's call counter at entry: descendants = count - count0 */
    trace_node *node;
    uint64_t timed;
} trace_frame;

typedef struct trace_thread {
    trace_node *chunks[TRACE_MAX_CHUNKS];
    _Atomic uint32_t nnodes; /* published with release once a node is complete */
    uint32_t depth;          /* index of the top frame; 0 = only the root */
    uint32_t lost;           /* frames not pushed (stack or pool full) still open */
    uint32_t skip;           /* nonzero: the hooks take the slow path (disabled, lost) */
    uint64_t count;          /* calls entered by this thread (overhead correction) */
    trace_frame *stack;
    int registered;
    struct trace_thread *next;
} trace_thread;

/* The configuration, fixed by trace__init() before the first call is recorded. */
typedef struct {
    culprit_trace_mode mode;
    unsigned int level;
    const char *out;         /* CULPRIT_TRACE_OUT or NULL */
    pid_t pid;               /* the process that read it: forked children do not write */
    double overhead_pair;    /* ticks one instrumented call adds to a timed ancestor */
    double overhead_in;      /* ticks a timed call's own hooks add to its duration */
    double overhead_untimed; /* ticks an untimed call adds to a timed ancestor */
    int full;                /* mode == FULL, for the hot path */
    int any_timed;           /* mode != STRUCTURE */
    uint32_t timed_level;    /* the level timed in LEVEL mode, else 0 (none) */
    uint64_t t0_ticks;       /* clock at start, with ... */
    uint64_t t0_ns;          /* ... CLOCK_MONOTONIC then, to convert ticks to ns */
    int use_tsc;
    pid_t tid;           /* the thread that read the configuration (usually main's) ... */
    double delay0_ns;    /* ... and its time waiting for a CPU then; < 0: unknown */
    double setup_cpu_ns; /* CPU time the configuration and calibration took */
} trace_config;

extern trace_config trace__config;
extern pthread_mutex_t trace__lock; /* guards the thread list; never on the hot path */
extern trace_thread *trace__threads;

/* The time thread `tid` of this process spent waiting for a CPU since it started
 * (runnable but not running: preempted), in ns, from /proc/self/task/TID/schedstat;
 * -1 when the kernel keeps no scheduler statistics. No allocation (state.c). */
double trace__run_delay_ns(pid_t tid) NOINSTR;

/* The calling thread's CPU time in ns (the runtime's own cost, told in the file). */
static inline double trace__thread_cpu_ns(void) NOINSTR;
static inline double trace__thread_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* CLOCK_MONOTONIC in ns. */
static inline uint64_t trace__mono_ns(void) NOINSTR;
static inline uint64_t trace__mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The time-stamp counter where the CPU says it is invariant (a few ns to read
 * against ~20 ns for clock_gettime through the vDSO: the per-call budget is 25 ns);
 * CLOCK_MONOTONIC elsewhere. Ticks are converted to ns when the tree is written. */
static inline uint64_t trace__ticks(void) NOINSTR;
static inline uint64_t trace__ticks(void)
{
#if HAVE_TSC
    if (__builtin_expect(trace__config.use_tsc, 1))
        return __rdtsc();
#endif
    return trace__mono_ns();
}
/* The clock at the end of a timed call in level mode: rdtscp waits for the call's
 * instructions to have executed, where rdtsc may be read while a chain of dependent
 * work is still in flight (a 20 ns function then measured 11 ns). Full mode reads
 * trace__ticks() at both ends (runtime.c, ticks_end). */
static inline uint64_t trace__ticks_end(void) NOINSTR;
static inline uint64_t trace__ticks_end(void)
{
#if HAVE_TSC
    if (__builtin_expect(trace__config.use_tsc, 1)) {
        unsigned int aux;
        return __rdtscp(&aux);
    }
#endif
    return trace__mono_ns();
}
/* Node `i` of thread `t`'s pool. */
static inline trace_node *trace__node(trace_thread *t, uint32_t i) NOINSTR;
static inline trace_node *trace__node(trace_thread *t, uint32_t i)
{
    return &t->chunks[i >> TRACE_CHUNK_BITS][i & (TRACE_CHUNK - 1)];
}

#endif
