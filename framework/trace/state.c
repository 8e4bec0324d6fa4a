/*
 * The trace runtime's shared state: the configuration fixed at the first
 * instrumented call, the list of registered threads and the lock guarding it.
 * A file of its own so that the hooks (runtime.c) and the writer (dump.c) both
 * depend on it and neither on the other's internals: runtime.c calls the writer,
 * the writer only reads this state (trace_internal.h).
 */
#include "trace_internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

trace_config trace__config;
pthread_mutex_t trace__lock = PTHREAD_MUTEX_INITIALIZER;
trace_thread *trace__threads;

/* The second field of schedstat is the run-queue wait (Documentation/scheduler/
 * sched-stats.rst); open/read rather than stdio, so that the first instrumented
 * call of the program does not allocate. */
double trace__run_delay_ns(pid_t tid)
{
    char path[64], buf[128], *p, *end;
    ssize_t n;
    int fd;

    snprintf(path, sizeof(path), "/proc/self/task/%ld/schedstat", (long)tid);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return -1;
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    strtoull(buf, &p, 10); /* time on the CPU */
    unsigned long long delay = strtoull(p, &end, 10);
    return end == p ? -1 : (double)delay;
}
