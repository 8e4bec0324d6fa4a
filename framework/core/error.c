/*
 * The thread-local last error, as git_error_last() keeps it in libgit2: every
 * failing function sets a code and a message here and returns the code, so
 * callers propagate a small integer and read the words only where they report.
 */
#include "culprit/core.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Long enough for a path, a value and a reason; longer messages are truncated. */
#define ERROR_MESSAGE_MAX 1024

static _Thread_local char last_message[ERROR_MESSAGE_MAX];
static _Thread_local int last_code;

const char *culprit_error_last(void)
{
    return last_message;
}

int culprit_error_last_code(void)
{
    return last_code;
}

int culprit_error_recode(int code)
{
    last_code = code;
    return code;
}

void culprit_error_clear(void)
{
    last_message[0] = '\0';
    last_code = 0;
}

int culprit_error_setv(int code, const char *fmt, va_list ap)
{
    vsnprintf(last_message, sizeof(last_message), fmt, ap);
    last_code = code;
    return code;
}

int culprit_error_set(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    culprit_error_setv(code, fmt, ap);
    va_end(ap);
    return code;
}

int culprit_error_set_os(const char *fmt, ...)
{
    int saved = errno;
    va_list ap;
    size_t used;

    va_start(ap, fmt);
    vsnprintf(last_message, sizeof(last_message), fmt, ap);
    va_end(ap);
    used = strlen(last_message);
    if (used < sizeof(last_message))
        snprintf(last_message + used, sizeof(last_message) - used, ": %s", strerror(saved));
    last_code = CULPRIT_EIO;
    errno = saved;
    return CULPRIT_EIO;
}
