/*
 * The thread-local last error, as git_error_last() keeps it in libgit2: every
 * failing function sets a code and a message here and returns the code, so
 * callers propagate a small integer and read the words only where they report.
 * A caller adds its context in front of the message (culprit_error_prefix), and
 * one that must run cleanup code that may fail keeps the error across it
 * (culprit_error_save / culprit_error_restore), as libgit2's git_error_save does,
 * instead of copying the message into a stack buffer by hand.
 */
#include "culprit/core.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_message[CULPRIT_ERROR_MESSAGE_MAX];
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

int culprit_error_prefix(const char *fmt, ...)
{
    char old[CULPRIT_ERROR_MESSAGE_MAX];
    va_list ap;
    size_t used;

    memcpy(old, last_message, sizeof(old));
    va_start(ap, fmt);
    vsnprintf(last_message, sizeof(last_message), fmt, ap);
    va_end(ap);
    used = strlen(last_message);
    if (used < sizeof(last_message) - 1)
        snprintf(last_message + used, sizeof(last_message) - used, "%s", old);
    return last_code;
}

void culprit_error_save(culprit_error_state *state)
{
    state->code = last_code;
    memcpy(state->message, last_message, sizeof(state->message));
}

int culprit_error_restore(const culprit_error_state *state)
{
    memcpy(last_message, state->message, sizeof(last_message));
    last_code = state->code;
    return last_code;
}
