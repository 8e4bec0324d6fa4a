/*
 * Independent work on more than one thread: culprit_parallel_for() calls fn(i) for
 * every i of [0, n) on the calling thread and up to culprit_parallel_threads() - 1
 * more, each thread taking the next index when it has finished one (items differ in
 * size: a run file with samples beside one of summaries), and returns once all are
 * done. The run files a `history` or `report` reads, the two files of a `compare` and
 * the blobs a push compresses do not depend on each other: on 2 cores beside two CPU
 * hogs one thread gets about 2/3 of a core, two threads about a whole one (issue 23).
 *
 * The workers block every signal, so SIGINT and SIGTERM are still handled on the
 * calling thread, as before (process.c forwards them to a child, the tool's env.c
 * notes them). A thread that cannot be started is no error: its share runs on the
 * others. No state at file scope: the next index is the call's own.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#endif
#include "culprit/core.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

/* Without CULPRIT_THREADS, at most this many: the work split so is reading and
 * parsing, which memory bandwidth bounds before cores do, and each thread's malloc
 * arena is memory held until exit. */
#define THREADS_DEFAULT_MAX 4
/* The most CULPRIT_THREADS may ask for. */
#define THREADS_MAX 64

int culprit_parallel_threads(size_t *out)
{
    const char *text = getenv("CULPRIT_THREADS");
    cpu_set_t set;
    long cpus;

    *out = 1;
    if (text && *text) {
        char *end = NULL;
        unsigned long n = strtoul(text, &end, 10);
        if (*text < '0' || *text > '9' || *end || n < 1 || n > THREADS_MAX)
            return culprit_error_set(CULPRIT_EINVALID,
                                     "CULPRIT_THREADS='%s' is not a number of threads from 1 "
                                     "to %d",
                                     text, THREADS_MAX);
        *out = (size_t)n;
        return 0;
    }
    /* The CPUs this process may run on (taskset, a container's cpuset), as nproc. */
    if (sched_getaffinity(0, sizeof(set), &set) == 0)
        cpus = CPU_COUNT(&set);
    else
        cpus = sysconf(_SC_NPROCESSORS_ONLN);
    *out = cpus < 1 ? 1 : cpus > THREADS_DEFAULT_MAX ? THREADS_DEFAULT_MAX : (size_t)cpus;
    return 0;
}

typedef struct {
    void (*fn)(size_t i, void *arg);
    void *arg;
    size_t n;
    atomic_size_t next;
} job;

static void drain(job *j)
{
    size_t i;

    while ((i = atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed)) < j->n)
        j->fn(i, j->arg);
}

static void *worker(void *arg)
{
    drain(arg);
    return NULL;
}

int culprit_parallel_for(size_t n, void (*fn)(size_t i, void *arg), void *arg)
{
    pthread_t threads[THREADS_MAX];
    sigset_t all, old;
    size_t want, started = 0;
    job j;
    int error;

    if ((error = culprit_parallel_threads(&want)) < 0)
        return error;
    j.fn = fn;
    j.arg = arg;
    j.n = n;
    atomic_init(&j.next, 0);
    if (want > n)
        want = n;
    if (want > 1) {
        /* The mask the workers inherit: every signal blocked. */
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, &old);
        for (; started + 1 < want; started++)
            if (pthread_create(&threads[started], NULL, worker, &j) != 0)
                break;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    drain(&j);
    for (size_t t = 0; t < started; t++)
        pthread_join(threads[t], NULL);
    return 0;
}
