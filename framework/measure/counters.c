/*
 * Counters recorded with every sample besides wall and CPU time: resource usage
 * from getrusage(2), bytes read and written from /proc/self/io, and user-space
 * instructions and cycles from perf_event_open(2).
 *
 * Which of these exist depends on the machine: containers and virtual machines
 * often expose no hardware performance counters, perf_event_paranoid may forbid
 * them, and /proc may be missing. A missing source is not an error: the counter
 * is recorded as absent (NAN, culprit_measure_counters_available() == 0), so a test
 * measures the same way everywhere and the history says what was not measured.
 *
 * Reading happens outside the timed window of a sample, but it is still per
 * sample, so the sources are opened once and read with the cheapest call each
 * offers: pread at offset 0 of a kept-open /proc/self/io (no open/close per
 * read), and read(2) of the perf descriptors; and they are kept per thread (the
 * end of this file), since perf descriptors count the thread that opened them.
 */
#include "measure_internal.h"
#include "culprit/core.h"
#include "culprit/measure.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

struct culprit_counters {
    int io_fd;      /**< /proc/self/io, or -1 */
    int perf_fd[2]; /**< instructions, cycles; -1 when absent */
};

static const char *const counter_names[CULPRIT_COUNTER__COUNT] = {
    "user_ns", "sys_ns",     "max_rss_kb",  "minflt",       "majflt", "nvcsw",
    "nivcsw",  "read_bytes", "write_bytes", "instructions", "cycles",
};

const char *culprit_measure_counter_name(culprit_counter_id id)
{
    if ((unsigned int)id >= CULPRIT_COUNTER__COUNT)
        return "unknown";
    return counter_names[id];
}

static int perf_open(uint64_t config)
{
    struct perf_event_attr attr;

    memset(&attr, 0, sizeof(attr));
    attr.size = sizeof(attr);
    attr.type = PERF_TYPE_HARDWARE;
    attr.config = config;
    /* User space only: kernel counting needs perf_event_paranoid <= 1 and is not
     * what a unit test of user code wants to compare anyway. */
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    /* With more events than hardware counters the kernel multiplexes them; the two
     * times let read_perf() scale the count up (perf_event_open(2), "read_format"). */
    attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    /* pid 0, cpu -1: the calling thread on any CPU. glibc has no wrapper. */
    return (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static double read_perf(int fd)
{
    uint64_t v[3]; /* value, time enabled, time running */

    if (read(fd, v, sizeof(v)) != (ssize_t)sizeof(v) || v[2] == 0)
        return NAN;
    if (v[2] == v[1])
        return (double)v[0];
    return (double)v[0] * ((double)v[1] / (double)v[2]);
}

/*
 * Bytes culprit's own reads of /proc/self/io added to rchar. The kernel counts a
 * read after it returns, so the rchar a read reports includes every earlier read
 * of the file but not itself: subtracting this running total makes the counter
 * show the measured code's reads only (otherwise every sample "reads" ~100 bytes).
 * Process-wide, as rchar is.
 */
static _Atomic unsigned long long own_io_bytes;

/* Parses "rchar: N\nwchar: N\n..." as the kernel formats it (proc(5)). */
static int read_io(int fd, double *rchar, double *wchar)
{
    char text[512], *p;
    ssize_t got;
    unsigned long long own;

    got = pread(fd, text, sizeof(text) - 1, 0);
    if (got <= 0)
        return -1;
    own = atomic_fetch_add(&own_io_bytes, (unsigned long long)got);
    text[got] = '\0';
    if (!(p = strstr(text, "rchar:")))
        return -1;
    *rchar = (double)(strtoull(p + 6, NULL, 10) - own);
    if (!(p = strstr(text, "wchar:")))
        return -1;
    *wchar = (double)strtoull(p + 6, NULL, 10);
    return 0;
}

int culprit_measure_counters_open(culprit_counters **out)
{
    culprit_counters *c;
    double r, w;

    *out = NULL;
    c = calloc(1, sizeof(*c));
    if (!c)
        return CULPRIT_ERROR_NOMEM();
    c->io_fd = open("/proc/self/io", O_RDONLY | O_CLOEXEC);
    /* Reading /proc/self/io can be denied even when the open succeeds. */
    if (c->io_fd >= 0 && read_io(c->io_fd, &r, &w) < 0) {
        close(c->io_fd);
        c->io_fd = -1;
    }
    c->perf_fd[0] = perf_open(PERF_COUNT_HW_INSTRUCTIONS);
    c->perf_fd[1] = perf_open(PERF_COUNT_HW_CPU_CYCLES);
    for (int i = 0; i < 2; i++) {
        /* An event that opens but is never scheduled (time running stays 0, as
         * some hypervisors do) is absent too. */
        if (c->perf_fd[i] >= 0 && isnan(read_perf(c->perf_fd[i]))) {
            close(c->perf_fd[i]);
            c->perf_fd[i] = -1;
        }
    }
    *out = c;
    return 0;
}

void culprit_measure_counters_free(culprit_counters *counters)
{
    if (!counters)
        return;
    if (counters->io_fd >= 0)
        close(counters->io_fd);
    for (int i = 0; i < 2; i++)
        if (counters->perf_fd[i] >= 0)
            close(counters->perf_fd[i]);
    free(counters);
}

int culprit_measure_counters_available(const culprit_counters *counters, culprit_counter_id id)
{
    switch (id) {
    case CULPRIT_COUNTER_READ_BYTES:
    case CULPRIT_COUNTER_WRITE_BYTES:
        return counters && counters->io_fd >= 0;
    case CULPRIT_COUNTER_INSTRUCTIONS:
        return counters && counters->perf_fd[0] >= 0;
    case CULPRIT_COUNTER_CYCLES:
        return counters && counters->perf_fd[1] >= 0;
    case CULPRIT_COUNTER__COUNT:
        return 0;
    default:
        /* getrusage(RUSAGE_SELF) needs no descriptor and cannot fail for it. */
        return (unsigned int)id < CULPRIT_COUNTER__COUNT;
    }
}

static double timeval_ns(struct timeval tv)
{
    return (double)tv.tv_sec * 1e9 + (double)tv.tv_usec * 1e3;
}

void culprit_measure_counters_read(const culprit_counters *counters,
                                   double values[CULPRIT_COUNTER__COUNT])
{
    struct rusage ru;
    int i;

    for (i = 0; i < CULPRIT_COUNTER__COUNT; i++)
        values[i] = NAN;
    if (getrusage(RUSAGE_SELF, &ru) == 0) {
        values[CULPRIT_COUNTER_USER_NS] = timeval_ns(ru.ru_utime);
        values[CULPRIT_COUNTER_SYS_NS] = timeval_ns(ru.ru_stime);
        values[CULPRIT_COUNTER_MAX_RSS_KB] = (double)ru.ru_maxrss; /* KiB on Linux */
        values[CULPRIT_COUNTER_MINFLT] = (double)ru.ru_minflt;
        values[CULPRIT_COUNTER_MAJFLT] = (double)ru.ru_majflt;
        values[CULPRIT_COUNTER_NVCSW] = (double)ru.ru_nvcsw;
        values[CULPRIT_COUNTER_NIVCSW] = (double)ru.ru_nivcsw;
    }
    if (!counters)
        return;
    if (counters->io_fd >= 0)
        read_io(counters->io_fd, &values[CULPRIT_COUNTER_READ_BYTES],
                &values[CULPRIT_COUNTER_WRITE_BYTES]);
    if (counters->perf_fd[0] >= 0)
        values[CULPRIT_COUNTER_INSTRUCTIONS] = read_perf(counters->perf_fd[0]);
    if (counters->perf_fd[1] >= 0)
        values[CULPRIT_COUNTER_CYCLES] = read_perf(counters->perf_fd[1]);
}

/* ---- counters shared by the runs of one thread -------------------------------- */

/*
 * The perf descriptors count the thread that opened them, so the counter sources
 * are opened once per thread and kept (the loop reads them every sample; opening
 * them costs system calls). A destructor closes them when the thread exits. After
 * a fork the child reopens them: the inherited ones describe the parent.
 */
static pthread_key_t counters_key;
static pthread_once_t counters_once = PTHREAD_ONCE_INIT;
static int counters_key_ok;

static void counters_destroy(void *p)
{
    culprit_measure_counters_free(p);
}

static void counters_key_create(void)
{
    counters_key_ok = pthread_key_create(&counters_key, counters_destroy) == 0;
}

typedef struct {
    culprit_counters *counters;
    pid_t pid;
} thread_counters;

static _Thread_local thread_counters cached_counters;

int culprit_measure__thread_counters(culprit_counters **out)
{
    int error;

    *out = NULL;
    pthread_once(&counters_once, counters_key_create);
    if (cached_counters.counters && cached_counters.pid != getpid()) {
        culprit_measure_counters_free(cached_counters.counters);
        cached_counters.counters = NULL;
    }
    if (!cached_counters.counters) {
        if ((error = culprit_measure_counters_open(&cached_counters.counters)) < 0)
            return error;
        cached_counters.pid = getpid();
        if (counters_key_ok)
            pthread_setspecific(counters_key, cached_counters.counters);
    }
    *out = cached_counters.counters;
    return 0;
}
