/*
 * Options structs (docs/conventions.md#options-structs): the version check every
 * function taking one makes, and the body of every culprit_<x>_options_init(),
 * written once as libgit2 writes GIT_INIT_STRUCTURE_FROM_TEMPLATE. Also the small
 * helpers several modules had each written for themselves: string equality with
 * NULL, the FNV-1a hash, a path's base name, the monotonic clock in seconds.
 */
#include "culprit/core.h"

#include <string.h>
#include <time.h>

int culprit_options_check_version(unsigned int version, unsigned int expected, const char *what)
{
    if (version != expected)
        return culprit_error_set(CULPRIT_EINVALID, "%s options version %u is not %u", what, version,
                                 expected);
    return 0;
}

int culprit_options_init_from(void *opts, const void *defaults, size_t size, unsigned int version,
                              unsigned int expected, const char *what)
{
    int error;

    if (!opts)
        return culprit_error_set(CULPRIT_EINVALID, "%s options: no struct to initialize", what);
    if ((error = culprit_options_check_version(version, expected, what)) < 0)
        return error;
    memcpy(opts, defaults, size);
    return 0;
}

int culprit_str_equal(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

uint64_t culprit_str_hash(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;

    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ULL; /* the 64-bit FNV prime */
    return h;
}

const char *culprit_fs_base_name(const char *path)
{
    const char *slash = strrchr(path, '/');

    return slash ? slash + 1 : path;
}

double culprit_time_now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
