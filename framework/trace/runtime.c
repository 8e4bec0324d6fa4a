/*
 * The -finstrument-functions runtime: __cyg_profile_func_enter/exit keep, per
 * thread, a shadow stack and a calling-context tree (Heger et al. 2013, section
 * 4.2: a node is a function in its call path, with its call count and response
 * times). The three modes follow the paper's two-step extraction: a structure run
 * (counts only, no clock read), then one run per level of the tree in which only
 * the calls at that depth are timed, so that the instrumentation of a method's
 * callees does not bias its time; a full mode times every call and subtracts the
 * overhead calibrated at start-up.
 *
 * Hot path: a thread-local pointer, a lookup of the callee among the children of
 * the current node (the last one found is tried first), a push or a pop; no lock
 * and no allocation once the thread's tree holds its call paths. A new call path
 * takes a node from the current 4096-node chunk; a new chunk is mmap'd when one
 * fills (once per 4096 new paths, documented in docs/calltree.md). A thread's first
 * call registers it under a mutex.
 *
 * longjmp: the enter hook records its own frame address; a frame on the shadow
 * stack whose address is below the current one was left by a longjmp and is
 * closed before the new call is pushed; an exit whose function is not on top pops
 * until it matches. exit(): a destructor writes CULPRIT_TRACE_OUT, the frames still
 * open being closed at that time in the file.
 *
 * Nothing here may be instrumented: the whole library is built without
 * -finstrument-functions and every function carries no_instrument_function too.
 */
#define _GNU_SOURCE
#include "trace_dump.h"
#include "trace_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

void __cyg_profile_func_enter(void *fn, void *site) NOINSTR;
void __cyg_profile_func_exit(void *fn, void *site) NOINSTR;

static __thread trace_thread *self;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
/* Marks a thread whose hooks return at once (tracing off, or out of memory). */
static trace_thread disabled = {.skip = 1};

/* A stale frame is only one within this distance below the current hook frame:
 * code running on another stack (a signal's alternate stack, a coroutine) must
 * not make the frames of the interrupted one look abandoned. */
#define STALE_WINDOW ((uintptr_t)64 << 20)

/* ------------------------------------------------------------------ clock --- */

static int tsc_invariant(void) NOINSTR;
static int tsc_invariant(void)
{
#if HAVE_TSC
    unsigned int a, b, c, d;
    /* CPUID 0x80000007, EDX bit 8: invariant TSC (constant rate, runs in C-states). */
    __asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0x80000000u), "c"(0));
    if (a < 0x80000007u)
        return 0;
    __asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0x80000007u), "c"(0));
    return (d >> 8) & 1;
#else
    return 0;
#endif
}

/* ------------------------------------------------------------------ pools --- */

static void *map(size_t size, int noreserve) NOINSTR;
static void *map(size_t size, int noreserve)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | (noreserve ? MAP_NORESERVE : 0), -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* A new node for `fn` under `parent`; 0 when the pool is exhausted. Off the hot
 * path in steady state: it runs once per distinct call path. */
static uint32_t new_node(trace_thread *t, uint32_t parent, void *fn) NOINSTR;
static uint32_t new_node(trace_thread *t, uint32_t parent, void *fn)
{
    uint32_t i = atomic_load_explicit(&t->nnodes, memory_order_relaxed);
    trace_node *n, *p;

    if ((i >> TRACE_CHUNK_BITS) >= TRACE_MAX_CHUNKS)
        return 0;
    if (!t->chunks[i >> TRACE_CHUNK_BITS] &&
        !(t->chunks[i >> TRACE_CHUNK_BITS] = map(TRACE_CHUNK * sizeof(trace_node), 0)))
        return 0;
    n = trace__node(t, i);
    memset(n, 0, sizeof(*n));
    n->fn = fn;
    n->self = i;
    n->parent = parent;
    p = trace__node(t, parent);
    n->next_sibling = p->first_child;
    /* Writers of the file walk nodes by index and parent, never the child lists,
     * so publishing the count is all another thread needs. */
    atomic_store_explicit(&t->nnodes, i + 1, memory_order_release);
    p->first_child = i;
    return i;
}

/* ------------------------------------------------------------ thread state --- */

static void calibrate(void) NOINSTR;

static void reset_lock(void) NOINSTR;
static void reset_lock(void)
{
    pthread_mutex_init(&trace__lock, NULL);
}

static void global_init(void) NOINSTR;
static void global_init(void)
{
    const char *out = getenv("CULPRIT_TRACE_OUT"), *dir = getenv("CULPRIT_TRACE_DIR");
    const char *mode = getenv("CULPRIT_TRACE_MODE"), *level = getenv("CULPRIT_TRACE_LEVEL");
    trace_config *c = &trace__config;
    double cpu0 = trace__thread_cpu_ns();

    c->pid = getpid();
    c->out = out && *out ? out : NULL;
    if (!c->out && !(dir && *dir)) {
        c->mode = CULPRIT_TRACE_OFF;
        return;
    }
    c->mode = CULPRIT_TRACE_FULL;
    if (mode && strcmp(mode, "structure") == 0)
        c->mode = CULPRIT_TRACE_STRUCTURE;
    else if (mode && strcmp(mode, "level") == 0)
        c->mode = CULPRIT_TRACE_LEVEL;
    else if (mode && *mode && strcmp(mode, "full") != 0)
        fprintf(stderr,
                "culprit trace: CULPRIT_TRACE_MODE '%s' is not structure, level or full; "
                "recording in full mode\n",
                mode);
    c->level = 1;
    if (level && *level) {
        char *end;
        unsigned long v = strtoul(level, &end, 10);
        if (*end || v == 0 || v >= TRACE_STACK_MAX)
            fprintf(stderr,
                    "culprit trace: CULPRIT_TRACE_LEVEL '%s' is not a depth from 1; timing "
                    "depth 1\n",
                    level);
        else
            c->level = (unsigned int)v;
    }
    /* A child forked while another thread held the lock must not deadlock on it. */
    pthread_atfork(NULL, NULL, reset_lock);
    c->full = c->mode == CULPRIT_TRACE_FULL;
    c->timed_level = c->mode == CULPRIT_TRACE_LEVEL ? c->level : 0;
    c->any_timed = c->mode != CULPRIT_TRACE_STRUCTURE;
    if (c->mode == CULPRIT_TRACE_STRUCTURE)
        return; /* no clock, ever */
    c->use_tsc = tsc_invariant();
    /* The time this thread waits for a CPU during the run is told in the file, so
     * that a recorder can take the preemption of a loaded machine out of the times. */
    c->tid = (pid_t)syscall(SYS_gettid);
    c->delay0_ns = trace__run_delay_ns(c->tid);
    c->t0_ns = trace__mono_ns();
    c->t0_ticks = trace__ticks();
    calibrate();
    c->setup_cpu_ns = trace__thread_cpu_ns() - cpu0;
}

static trace_thread *thread_new(void) NOINSTR;
static trace_thread *thread_new(void)
{
    trace_thread *t = map(sizeof(*t), 0);

    if (!t)
        return NULL;
    if (!(t->stack = map(TRACE_STACK_MAX * sizeof(trace_frame), 1)) ||
        !(t->chunks[0] = map(TRACE_CHUNK * sizeof(trace_node), 0))) {
        if (t->stack)
            munmap(t->stack, TRACE_STACK_MAX * sizeof(trace_frame));
        munmap(t, sizeof(*t));
        return NULL;
    }
    atomic_store_explicit(&t->nnodes, 1, memory_order_release); /* the root */
    t->stack[0].sp = UINTPTR_MAX;
    t->stack[0].node = t->chunks[0];
    return t;
}

/* The first instrumented call of a thread: reads the configuration once per
 * process, then gives the thread its state and registers it for the writer. */
static trace_thread *thread_init(void) NOINSTR;
static trace_thread *thread_init(void)
{
    trace_thread *t;

    pthread_once(&init_once, global_init);
    if (trace__config.mode == CULPRIT_TRACE_OFF || !(t = thread_new())) {
        self = &disabled;
        return NULL;
    }
    pthread_mutex_lock(&trace__lock);
    t->next = trace__threads;
    trace__threads = t;
    t->registered = 1;
    pthread_mutex_unlock(&trace__lock);
    self = t;
    return t;
}

/* ---------------------------------------------------------------- hot path --- */

/* The fast paths below are written so that the compiler needs few registers and no
 * calls on them: everything rare (first call of a thread, a new call path, a
 * longjmp, a full stack) is in cold functions. */

/* The clock at the end of a timed call. Level mode times one depth, whose windows
 * hold whole subtrees and decide the tree's times: there the end waits for the
 * call's instructions (rdtscp, trace__ticks_end). Full mode times every call, and
 * rdtscp, twice rdtsc's cost (19 ns against 10 here), would be most of its budget;
 * there the end is read as the start is, so a window may close while the last of
 * its dependent work is still in flight (docs/calltree.md, "Clock"). */
static inline uint64_t ticks_end(void) NOINSTR;
static inline uint64_t ticks_end(void)
{
    return trace__config.full ? trace__ticks() : trace__ticks_end();
}

static inline int is_timed(uint32_t depth) NOINSTR;
static inline int is_timed(uint32_t depth)
{
    return trace__config.full || depth == trace__config.timed_level;
}

/* Pops the top frame, adding its duration (ending at `now`, read here when 0 is
 * passed and the frame is timed) minus the instrumentation's share: its own hooks'
 * part inside the window and each descendant call's full cost. */
static inline void pop(trace_thread *t, uint64_t now) NOINSTR;
static inline void pop(trace_thread *t, uint64_t now)
{
    trace_frame *f = &t->stack[t->depth--];

    if (trace__config.any_timed && f->timed) {
        trace_node *n = f->node;
        double per =
            trace__config.full ? trace__config.overhead_pair : trace__config.overhead_untimed;
        double d = (double)((now ? now : ticks_end()) - f->start) - trace__config.overhead_in -
                   (double)(t->count - f->count0) * per;
        if (d < 0)
            d = 0;
        n->sum += d;
        n->sq += d * d;
    }
}

static inline void push(trace_thread *t, trace_node *c, void *fn, uintptr_t sp) NOINSTR;
static inline void push(trace_thread *t, trace_node *c, void *fn, uintptr_t sp)
{
    uint32_t depth = t->depth + 1;
    trace_frame *f = &t->stack[depth];

    c->calls++;
    f->fn = fn;
    f->sp = sp;
    f->node = c;
    t->depth = depth;
    /* Structure mode stops here: no clock, no descendant count (exit knows the
     * frame is untimed from the mode, so `timed` need not be written either). */
    if (!trace__config.any_timed)
        return;
    f->count0 = ++t->count;
    if ((f->timed = (uint64_t)is_timed(depth)))
        f->start = trace__ticks(); /* last, so the hook's own work stays outside */
}

/* Everything the fast enter path does not handle. */
static void enter_slow(trace_thread *t, void *fn, uintptr_t sp)
    __attribute__((noinline, cold)) NOINSTR;
static void enter_slow(trace_thread *t, void *fn, uintptr_t sp)
{
    trace_node *p, *c;
    uint32_t i;

    if (!t && !(t = thread_init()))
        return;
    if (t == &disabled)
        return;
    if (t->lost != 0) {
        t->lost++;
        return;
    }
    /* Frames deeper than this call were abandoned by a longjmp. */
    while (t->depth > 0 && t->stack[t->depth].sp < sp && sp - t->stack[t->depth].sp < STALE_WINDOW)
        pop(t, 0);
    if (t->depth + 1 >= TRACE_STACK_MAX) {
        t->lost = t->skip = 1;
        return;
    }
    p = t->stack[t->depth].node;
    for (i = p->first_child; i && trace__node(t, i)->fn != fn; i = trace__node(t, i)->next_sibling)
        ;
    if (!i && !(i = new_node(t, p->self, fn))) {
        t->lost = t->skip = 1;
        return;
    }
    c = trace__node(t, i);
    p->hint = c;
    push(t, c, fn, sp);
}

void __cyg_profile_func_enter(void *fn, void *site)
{
    trace_thread *t = self;
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
    trace_frame *top;
    trace_node *c;

    (void)site;
    if (__builtin_expect(!t || t->skip, 0))
        return enter_slow(t, fn, sp);
    top = &t->stack[t->depth];
    c = top->node->hint;
    if (__builtin_expect(top->sp < sp || !c || c->fn != fn || t->depth + 1 >= TRACE_STACK_MAX, 0))
        return enter_slow(t, fn, sp);
    push(t, c, fn, sp);
}

/* Everything the fast exit path does not handle. */
static void exit_slow(trace_thread *t, void *fn) __attribute__((noinline, cold)) NOINSTR;
static void exit_slow(trace_thread *t, void *fn)
{
    uint64_t now = 0;
    uint32_t k;

    if (!t || t == &disabled)
        return;
    if (t->lost != 0) {
        if (--t->lost == 0)
            t->skip = 0;
        return;
    }
    /* longjmp'd past: pop until the function returning is on top; an exit without
     * its enter (entered before tracing started) is ignored. */
    for (k = t->depth; k > 0 && t->stack[k].fn != fn; k--)
        ;
    if (k == 0)
        return;
    if (trace__config.any_timed && t->stack[k].timed)
        now = ticks_end();
    while (t->depth >= k)
        pop(t, now);
}

void __cyg_profile_func_exit(void *fn, void *site)
{
    trace_thread *t = self;
    uint64_t now;

    (void)site;
    if (__builtin_expect(!t || t->skip || t->stack[t->depth].fn != fn, 0))
        return exit_slow(t, fn);
    if (!trace__config.any_timed) {
        t->depth--;
        return;
    }
    now = t->stack[t->depth].timed ? ticks_end() : 0; /* first, to keep the hook out */
    pop(t, now);
}

/* ------------------------------------------------------------- calibration --- */

/* The overhead is measured with the hooks themselves on a private thread state,
 * called by code compiled as instrumented code is: trace__probe (calibrate_probe.c, the one
 * function of the runtime built with -finstrument-functions) against the same body
 * uninstrumented, both called through a pointer so neither is inlined. Per call,
 * `overhead_pair` is what an instrumented call adds in full mode (what a timed
 * ancestor sees for each of its descendant calls), `overhead_untimed` the same for
 * an untimed call (level mode's descendants), and `overhead_in` the part of a
 * timed call's own hooks inside its measured window (an empty call's recorded
 * duration). */
/* calibrate_probe.c: the same body compiled instrumented and not. */
unsigned long trace__probe(unsigned long x);
unsigned long trace__probe_bare(unsigned long x) NOINSTR;

static unsigned long (*volatile calibration_target)(unsigned long);

static double loop_ticks(unsigned long (*fn)(unsigned long)) NOINSTR;
static double loop_ticks(unsigned long (*fn)(unsigned long))
{
    enum { N = 2000 };
    unsigned long x = 0;
    uint64_t t0, t1;

    calibration_target = fn;
    t0 = trace__ticks();
    for (int i = 0; i < N; i++)
        x = calibration_target(x);
    t1 = trace__ticks();
    __asm__ volatile("" ::"r"(x));
    return (double)(t1 - t0) / N;
}

static void set_mode(culprit_trace_mode mode, unsigned int level) NOINSTR;
static void set_mode(culprit_trace_mode mode, unsigned int level)
{
    trace_config *c = &trace__config;
    c->mode = mode;
    c->level = level;
    c->full = mode == CULPRIT_TRACE_FULL;
    c->any_timed = mode != CULPRIT_TRACE_STRUCTURE;
    c->timed_level = mode == CULPRIT_TRACE_LEVEL ? level : 0;
}

static double min2(double a, double b) NOINSTR;
static double min2(double a, double b)
{
    return a < b ? a : b;
}

/* Each loop is timed in 9 rounds and its minimum kept, then the bare loop's minimum
 * subtracted (the difference of two noisy figures must not be minimized itself: a
 * preempted bare loop would make it 0). */
static void calibrate(void)
{
    trace_config *c = &trace__config;
    culprit_trace_mode mode = c->mode;
    unsigned int level = c->level;
    trace_thread *t = thread_new(), *saved = self;
    double base = 1e300, full = 1e300, untimed = 1e300, in = 1e300;
    trace_node *n;

    if (!t)
        return;
    self = t;
    c->overhead_pair = c->overhead_in = c->overhead_untimed = 0;
    for (int r = 0; r < 9; r++) {
        base = min2(base, loop_ticks(trace__probe_bare));
        set_mode(CULPRIT_TRACE_FULL, 1);
        full = min2(full, loop_ticks(trace__probe));
        n = trace__node(t, 1); /* the only call path of the private state */
        in = min2(in, n->sum / (double)n->calls);
        n->sum = n->sq = 0;
        n->calls = 0;
        /* An untimed call in level mode (the probe runs at depth 1, level 2 is
         * timed): the path level mode's descendants take, which counts descendants
         * and tests the depth, unlike structure mode's. */
        set_mode(CULPRIT_TRACE_LEVEL, 2);
        untimed = min2(untimed, loop_ticks(trace__probe));
    }
    c->overhead_in = in;
    c->overhead_pair = full > base ? full - base : 0;
    c->overhead_untimed = untimed > base ? untimed - base : 0;
    set_mode(mode, level);
    self = saved;
    munmap(t->stack, TRACE_STACK_MAX * sizeof(trace_frame));
    munmap(t->chunks[0], TRACE_CHUNK * sizeof(trace_node));
    munmap(t, sizeof(*t));
}

/* ---------------------------------------------------------------------- API --- */

culprit_trace_mode culprit_trace_get_mode(void)
{
    pthread_once(&init_once, global_init);
    return trace__config.mode;
}

int culprit_trace_dump(const char *path)
{
    if (culprit_trace_get_mode() == CULPRIT_TRACE_OFF) {
        errno = ENOTSUP;
        return -1;
    }
    return trace__write(path);
}

void culprit_trace_reset(void)
{
    uint64_t now;

    if (culprit_trace_get_mode() == CULPRIT_TRACE_OFF)
        return;
    now = trace__config.mode == CULPRIT_TRACE_STRUCTURE ? 0 : trace__ticks();
    pthread_mutex_lock(&trace__lock);
    for (trace_thread *t = trace__threads; t; t = t->next) {
        uint32_t n = atomic_load_explicit(&t->nnodes, memory_order_acquire);
        for (uint32_t i = 0; i < n; i++) {
            trace_node *node = trace__node(t, i);
            node->calls = 0;
            node->sum = node->sq = 0;
        }
        /* Open frames restart now, as one call each. */
        for (uint32_t d = 1; d <= t->depth; d++) {
            t->stack[d].node->calls++;
            t->stack[d].start = now;
            t->stack[d].count0 = t->count;
        }
    }
    pthread_mutex_unlock(&trace__lock);
}

unsigned int culprit_trace_depth(void)
{
    trace_thread *t = self;
    return t && t != &disabled ? t->depth : 0;
}

void culprit_trace_unwind(unsigned int depth)
{
    trace_thread *t = self;
    uint64_t now;

    if (!t || t == &disabled || t->lost)
        return;
    now = trace__config.any_timed ? trace__ticks() : 0;
    while (t->depth > depth)
        pop(t, now);
}

/* Writes CULPRIT_TRACE_OUT when the program exits (return from main or exit()),
 * in the process that read the configuration only: a forked child without exec
 * would otherwise overwrite its parent's file with a copy of its tree. */
static void at_exit(void) __attribute__((destructor)) NOINSTR;
static void at_exit(void)
{
    if (trace__config.mode != CULPRIT_TRACE_OFF && trace__config.out &&
        trace__config.pid == getpid() && trace__threads)
        trace__write(trace__config.out);
}
