/*
 * Whose temporary entry is this: the owner tag of the temp-file rule (docs/security.md,
 * "Temporary files"), shared by libculprit (core's fs_temp.c, fs.c) and the trace
 * runtime (trace/dump.c). The runtime is linked into instrumented programs and uses
 * libc only, so this is libc only and header-only: static inline functions compiled
 * into each user (an instrumented program that links both libraries gets no duplicate
 * symbol, and the runtime's copy is built without -finstrument-functions as the rest of
 * it is). It holds no state.
 *
 * A tag is <host>-<pid>.<start>- : the host (characters outside [A-Za-z0-9.-] as '_'),
 * the pid and the process's start time (field 22 of /proc/<pid>/stat, clock ticks
 * since boot; 0 when unknown). A pid alone is reused; a pid with its start time names
 * one process for as long as the machine runs. An entry is named <marker><tag>XXXXXX
 * (mkstemp's or mkdtemp's six characters); it is stale once the process its tag names,
 * on this host, has ended.
 */
#ifndef CULPRIT_OWNER_H
#define CULPRIT_OWNER_H

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#if defined(__GNUC__)
#define CULPRIT_OWNER__NOINSTR __attribute__((no_instrument_function, unused))
#else
#define CULPRIT_OWNER__NOINSTR
#endif

/* This host's name as tags spell it ("localhost" when it has none). */
static inline CULPRIT_OWNER__NOINSTR void culprit_owner__host(char *out, size_t size)
{
    if (gethostname(out, size) < 0 || !out[0])
        snprintf(out, size, "localhost");
    out[size - 1] = '\0';
    for (char *p = out; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '.' && *p != '-')
            *p = '_';
}

/*
 * The start time of process `pid`: 0 with *out set, ENOENT when /proc has no such
 * process (or no /proc), -1 when it cannot be read. The command name (field 2) is in
 * parentheses and may hold spaces and parentheses: fields are counted after the last
 * ')'.
 */
static inline CULPRIT_OWNER__NOINSTR int culprit_owner__start(unsigned long long *out, long pid)
{
    char path[64], text[1024], *p;
    ssize_t n;
    int fd, field;

    snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return errno == ENOENT ? ENOENT : -1;
    n = read(fd, text, sizeof(text) - 1);
    close(fd);
    if (n <= 0)
        return -1;
    text[n] = '\0';
    if (!(p = strrchr(text, ')')))
        return -1;
    for (field = 2; field < 22 && p; field++) /* p is at the space before field+1 */
        p = strchr(p + 1, ' ');
    if (!p)
        return -1;
    *out = strtoull(p + 1, NULL, 10);
    return 0;
}

/*
 * 1 while the process named by `pid` and `start` (0: a name without one, from an
 * older culprit) runs; 0 once it has ended: no such process, or its pid now belongs
 * to a process that started at another time. Unsure (another user's process hidden
 * by /proc's hidepid, an unreadable entry) counts as running.
 */
static inline CULPRIT_OWNER__NOINSTR int culprit_owner__alive(long pid, unsigned long long start)
{
    unsigned long long now;
    int got = culprit_owner__start(&now, pid);

    if (got == 0)
        return start == 0 || now == start;
    if (got == ENOENT)
        return !(kill((pid_t)pid, 0) < 0 && errno == ESRCH);
    return 1;
}

/* The digits ending just before rest[end]: their start, or `end` when none. */
static inline CULPRIT_OWNER__NOINSTR size_t culprit_owner__digits_before(const char *rest,
                                                                         size_t end)
{
    while (end > 0 && isdigit((unsigned char)rest[end - 1]))
        end--;
    return end;
}

/*
 * The owner of a leftover named <host>-<pid>.<start>-XXXXXX (or, from an older
 * culprit, <host>-<pid>-XXXXXX: *start 0) after its marker, when the host is ours:
 * 1 with *pid and *start set; 0 when the name is not of that shape or another host's.
 */
static inline CULPRIT_OWNER__NOINSTR int culprit_owner__parse(const char *rest, const char *host,
                                                              long *pid, unsigned long long *start)
{
    size_t len = strlen(rest), end, at;

    if (len < 10 || rest[len - 7] != '-')
        return 0;
    end = len - 7;
    if ((at = culprit_owner__digits_before(rest, end)) == end)
        return 0;
    *start = 0;
    if (at > 0 && rest[at - 1] == '.') {
        *start = strtoull(rest + at, NULL, 10);
        end = at - 1;
        if ((at = culprit_owner__digits_before(rest, end)) == end)
            return 0;
    }
    if (at < 2 || rest[at - 1] != '-' || strlen(host) != at - 1 || strncmp(rest, host, at - 1))
        return 0;
    *pid = strtol(rest + at, NULL, 10);
    return *pid > 0;
}

/* 1 when `name` holds `marker` followed by the tag of a process of this host (`host`,
 * from culprit_owner__host()) that has ended: a leftover its next user may remove. */
static inline CULPRIT_OWNER__NOINSTR int culprit_owner__stale(const char *name, const char *marker,
                                                              const char *host)
{
    const char *at = strstr(name, marker);
    unsigned long long start = 0;
    long pid = 0;

    return at && culprit_owner__parse(at + strlen(marker), host, &pid, &start) &&
           !culprit_owner__alive(pid, start);
}

/* Writes the tag of the calling process, whose start time is `start` (0: unknown), to
 * out[size]: snprintf's result. */
static inline CULPRIT_OWNER__NOINSTR int culprit_owner__tag(char *out, size_t size,
                                                            unsigned long long start)
{
    char host[256];

    culprit_owner__host(host, sizeof(host));
    return snprintf(out, size, "%s-%ld.%llu-", host, (long)getpid(), start);
}

#endif
