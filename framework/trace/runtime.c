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
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HAVE_TSC 1
#else
#define HAVE_TSC 0
#endif

void __cyg_profile_func_enter(void *fn, void *site) NOINSTR;
void __cyg_profile_func_exit(void *fn, void *site) NOINSTR;

trace_config trace__config;
pthread_mutex_t trace__lock = PTHREAD_MUTEX_INITIALIZER;
trace_thread *trace__threads;

static __thread trace_thread *self;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
/* Marks a thread whose hooks return at once (tracing off, or out of memory). */
static trace_thread disabled;

/* A stale frame is only one within this distance below the current hook frame:
 * code running on another stack (a signal's alternate stack, a coroutine) must
 * not make the frames of the interrupted one look abandoned. */
#define STALE_WINDOW ((uintptr_t)64 << 20)

/* ------------------------------------------------------------------ clock --- */

uint64_t trace__mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The time-stamp counter where the CPU says it is invariant (a few ns to read
 * against ~20 ns for clock_gettime through the vDSO: the per-call budget is 25 ns);
 * CLOCK_MONOTONIC elsewhere. Ticks are converted to ns when the tree is written. */
uint64_t trace__ticks(void)
{
#if HAVE_TSC
    if (trace__config.use_tsc)
        return __rdtsc();
#endif
    return trace__mono_ns();
}

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

trace_node *trace__node(trace_thread *t, uint32_t i)
{
    return &t->chunks[i >> TRACE_CHUNK_BITS][i & (TRACE_CHUNK - 1)];
}

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

static void global_init(void) NOINSTR;
static void global_init(void)
{
    const char *out = getenv("CULPRIT_TRACE_OUT"), *dir = getenv("CULPRIT_TRACE_DIR");
    const char *mode = getenv("CULPRIT_TRACE_MODE"), *level = getenv("CULPRIT_TRACE_LEVEL");
    trace_config *c = &trace__config;

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
    c->level = level ? (unsigned int)strtoul(level, NULL, 10) : 1;
    if (c->level == 0)
        c->level = 1;
    c->use_tsc = tsc_invariant();
    c->t0_ns = trace__mono_ns();
    c->t0_ticks = trace__ticks();
    if (c->mode != CULPRIT_TRACE_STRUCTURE)
        calibrate();
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

static inline int is_timed(uint32_t depth) NOINSTR;
static inline int is_timed(uint32_t depth)
{
    return trace__config.mode == CULPRIT_TRACE_FULL ||
           (trace__config.mode == CULPRIT_TRACE_LEVEL && depth == trace__config.level);
}

/* Pops the top frame, adding its duration (ending at `now`, read by the caller
 * when 0 is passed and the frame is timed) minus the instrumentation's share:
 * its own hooks' part inside the window and each descendant call's full cost. */
static inline void pop(trace_thread *t, uint64_t now) NOINSTR;
static inline void pop(trace_thread *t, uint64_t now)
{
    trace_frame *f = &t->stack[t->depth--];

    if (f->timed) {
        trace_node *n = trace__node(t, f->node);
        double per = trace__config.mode == CULPRIT_TRACE_FULL ? trace__config.overhead_pair
                                                              : trace__config.overhead_untimed;
        double d = (double)((now ? now : trace__ticks()) - f->start) - trace__config.overhead_in -
                   (double)(t->count - f->count0) * per;
        if (d < 0)
            d = 0;
        n->sum += d;
        n->sq += d * d;
    }
}

void __cyg_profile_func_enter(void *fn, void *site)
{
    trace_thread *t = self;
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
    trace_frame *f;
    trace_node *p;
    uint32_t parent, c, depth;

    (void)site;
    if (__builtin_expect(!t, 0) && !(t = thread_init()))
        return;
    if (__builtin_expect(t == &disabled, 0))
        return;
    if (__builtin_expect(t->lost != 0, 0)) {
        t->lost++;
        return;
    }
    /* Frames deeper than this call were abandoned by a longjmp. */
    while (__builtin_expect(
        t->depth > 0 && t->stack[t->depth].sp < sp && sp - t->stack[t->depth].sp < STALE_WINDOW, 0))
        pop(t, 0);
    depth = t->depth + 1;
    if (__builtin_expect(depth >= TRACE_STACK_MAX, 0)) {
        t->lost = 1;
        return;
    }
    parent = t->stack[t->depth].node;
    p = trace__node(t, parent);
    c = p->hint;
    if (!c || trace__node(t, c)->fn != fn) {
        for (c = p->first_child; c && trace__node(t, c)->fn != fn;
             c = trace__node(t, c)->next_sibling)
            ;
        if (!c && !(c = new_node(t, parent, fn))) {
            t->lost = 1;
            return;
        }
        p->hint = c;
    }
    trace__node(t, c)->calls++;
    t->count++;
    f = &t->stack[depth];
    f->fn = fn;
    f->sp = sp;
    f->node = c;
    f->count0 = t->count;
    t->depth = depth;
    if ((f->timed = (uint32_t)is_timed(depth)))
        f->start = trace__ticks(); /* last, so the hook's own work stays outside */
}

void __cyg_profile_func_exit(void *fn, void *site)
{
    trace_thread *t = self;
    uint64_t now = 0;
    uint32_t k;

    (void)site;
    if (__builtin_expect(!t || t == &disabled, 0))
        return;
    if (__builtin_expect(t->lost != 0, 0)) {
        t->lost--;
        return;
    }
    if (t->stack[t->depth].timed)
        now = trace__ticks(); /* first, for the same reason */
    if (__builtin_expect(t->stack[t->depth].fn != fn, 0)) {
        /* longjmp'd past: pop until the function returning is on top; an exit
         * without its enter (entered before tracing started) is ignored. */
        for (k = t->depth; k > 0 && t->stack[k].fn != fn; k--)
            ;
        if (k == 0)
            return;
        while (t->depth > k)
            pop(t, now);
    }
    if (t->depth > 0)
        pop(t, now);
}

/* ------------------------------------------------------------- calibration --- */

/* The overhead is measured with the hooks themselves on a private thread state:
 * `overhead_pair` is what one timed enter/exit pair costs around it (what a timed
 * ancestor sees for each descendant call), `overhead_in` what a timed call's own
 * hooks put inside its measured window (an empty call's recorded duration), and
 * `overhead_untimed` the cost of an untimed pair (level mode's descendants). The
 * minimum of several rounds is kept: preemption only ever adds time. */
static double round_cost(trace_thread *t, culprit_trace_mode mode, int want_inside) NOINSTR;
static double round_cost(trace_thread *t, culprit_trace_mode mode, int want_inside)
{
    enum { N = 2000 };
    void *fn = (void *)&round_cost;
    trace_node *n;
    uint64_t t0, t1;

    trace__config.mode = mode;
    trace__config.level = 1;
    t0 = trace__ticks();
    for (int i = 0; i < N; i++) {
        __cyg_profile_func_enter(fn, NULL);
        __cyg_profile_func_exit(fn, NULL);
    }
    t1 = trace__ticks();
    n = trace__node(t, 1); /* the only call path of the private state */
    if (want_inside) {
        double inside = n->sum / N;
        n->sum = n->sq = 0;
        return inside;
    }
    n->sum = n->sq = 0;
    return (double)(t1 - t0) / N;
}

static void calibrate(void)
{
    trace_config *c = &trace__config;
    culprit_trace_mode mode = c->mode;
    unsigned int level = c->level;
    trace_thread *t = thread_new(), *saved = self;
    double pair = 1e300, in = 1e300, untimed = 1e300;

    if (!t)
        return;
    self = t;
    c->overhead_pair = c->overhead_in = c->overhead_untimed = 0;
    for (int r = 0; r < 7; r++) {
        double x;
        if ((x = round_cost(t, CULPRIT_TRACE_FULL, 1)) < in)
            in = x;
        if ((x = round_cost(t, CULPRIT_TRACE_FULL, 0)) < pair)
            pair = x;
        if ((x = round_cost(t, CULPRIT_TRACE_STRUCTURE, 0)) < untimed)
            untimed = x;
    }
    c->overhead_in = in;
    c->overhead_pair = pair;
    c->overhead_untimed = untimed;
    c->mode = mode;
    c->level = level;
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
            trace__node(t, t->stack[d].node)->calls++;
            t->stack[d].start = now;
            t->stack[d].count0 = t->count;
        }
    }
    pthread_mutex_unlock(&trace__lock);
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
