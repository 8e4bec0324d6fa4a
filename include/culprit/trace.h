/*
 * culprit trace: the runtime linked into programs built with -finstrument-functions
 * (the static library culprit_trace, see cmake/culprit.cmake culprit_instrument()).
 * It keeps, per thread, a shadow stack and a calling-context tree, and writes the
 * merged tree of all threads as a call-tree file (docs/calltree-format.md) when the
 * program exits or when asked to through this API.
 *
 * The runtime depends on libc and pthreads only and is never instrumented itself.
 * It is configured by environment variables read once, at the first instrumented
 * call (docs/calltree.md):
 *
 *   CULPRIT_TRACE_OUT    file the tree is written to when the process exits
 *   CULPRIT_TRACE_DIR    directory of the per-perf-test trees the runner writes
 *   CULPRIT_TRACE_MODE   structure | level | full (default full)
 *   CULPRIT_TRACE_LEVEL  the call depth timed in level mode (1 = main and thread entries)
 *
 * Without CULPRIT_TRACE_OUT and CULPRIT_TRACE_DIR the hooks return at once and
 * nothing is recorded or written.
 *
 * This header declares only what a program or the test runner may call; it
 * includes nothing of libculprit, so the runtime stays free of it.
 *
 * Code that must work whether or not the runtime is linked in (the test runner in
 * libculprit, which a binary built without culprit_instrument() also uses) defines
 * CULPRIT_TRACE_WEAK before including this header: the functions are then weak
 * references, NULL in a binary without the runtime, so test for them before a call.
 * The runtime's API sits in the same object file as its hooks, which instrumented
 * code pulls in.
 */
#ifndef CULPRIT_TRACE_H
#define CULPRIT_TRACE_H

#ifdef __cplusplus
extern "C" {
#endif

#ifdef CULPRIT_TRACE_WEAK
#define CULPRIT_TRACE_API __attribute__((weak, no_instrument_function))
#else
#define CULPRIT_TRACE_API __attribute__((no_instrument_function))
#endif

/** The modes of the runtime (CULPRIT_TRACE_MODE). */
typedef enum {
    CULPRIT_TRACE_OFF = 0,       /**< nothing recorded (no output configured) */
    CULPRIT_TRACE_STRUCTURE = 1, /**< call counts only, the clock is never read */
    CULPRIT_TRACE_LEVEL = 2,     /**< only calls at depth CULPRIT_TRACE_LEVEL are timed */
    CULPRIT_TRACE_FULL = 3       /**< every call timed, calibrated overhead subtracted */
} culprit_trace_mode;

/** The mode the runtime runs in (reads the environment when not done yet). */
culprit_trace_mode culprit_trace_get_mode(void) CULPRIT_TRACE_API;

/**
 * Writes the merged tree of all threads recorded so far to `path` (atomically:
 * a temporary file renamed over it), closing the frames still open at the time of
 * the call in the file only; recording goes on. Meant for quiescent points (the
 * end of a perf test): the trees of threads running at the same time are read
 * without synchronisation. Returns 0, or -1 with errno set.
 */
int culprit_trace_dump(const char *path) CULPRIT_TRACE_API;

/**
 * Forgets every call recorded so far in every thread; the frames open at the time
 * count as one call each from now on. Same threading caveat as culprit_trace_dump().
 */
void culprit_trace_reset(void) CULPRIT_TRACE_API;

/** The calling thread's current call depth (0 outside any instrumented function). */
unsigned int culprit_trace_depth(void) CULPRIT_TRACE_API;

/**
 * Closes, now, the calling thread's frames deeper than `depth`: those a longjmp
 * left behind without their exit hooks (a failed CMocka assertion jumps out of
 * the test body). The runner calls it after each test with the depth it had
 * before, so the next test's calls are not attached under the failed one's.
 */
void culprit_trace_unwind(unsigned int depth) CULPRIT_TRACE_API;

#ifdef __cplusplus
}
#endif

#endif
