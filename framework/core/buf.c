/*
 * Growable byte buffers. Every writer of text in culprit (XML is written by
 * libxml2, JSON by jansson) uses these for the small strings in between. The
 * owned strings of the models (a run's path, a test's message) are replaced
 * through culprit_str_set(), one owner for every module.
 */
#include "culprit/core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char empty_string[1];

int culprit_buf_grow(culprit_buf *buf, size_t extra)
{
    size_t need, asize;
    char *ptr;

    if (extra > SIZE_MAX - buf->size - 1)
        return culprit_error_set(CULPRIT_ERROR, "buffer size overflow");
    need = buf->size + extra + 1;
    if (need <= buf->asize)
        return 0;
    asize = buf->asize ? buf->asize : 64;
    while (asize < need)
        asize = asize > SIZE_MAX / 2 ? need : asize * 2;
    ptr = realloc(buf->ptr, asize);
    if (!ptr)
        return culprit_error_set(CULPRIT_ERROR, "out of memory (%zu bytes)", asize);
    if (!buf->ptr)
        ptr[0] = '\0';
    buf->ptr = ptr;
    buf->asize = asize;
    return 0;
}

int culprit_buf_put(culprit_buf *buf, const char *data, size_t len)
{
    int error;

    if ((error = culprit_buf_grow(buf, len)) < 0)
        return error;
    if (len)
        memcpy(buf->ptr + buf->size, data, len);
    buf->size += len;
    buf->ptr[buf->size] = '\0';
    return 0;
}

int culprit_buf_puts(culprit_buf *buf, const char *str)
{
    return culprit_buf_put(buf, str, strlen(str));
}

int culprit_buf_printf(culprit_buf *buf, const char *fmt, ...)
{
    size_t room = buf->asize > buf->size ? buf->asize - buf->size : 0;
    va_list ap;
    int len, error;

    /* One pass when the text fits the room left (most calls: a number, a word), a
     * second only after growing; formatting twice each time cost composing 100,000
     * verdict messages a third of their time. */
    va_start(ap, fmt);
    len = vsnprintf(room ? buf->ptr + buf->size : NULL, room, fmt, ap);
    va_end(ap);
    if (len < 0) {
        if (room)
            buf->ptr[buf->size] = '\0';
        return culprit_error_set(CULPRIT_ERROR, "bad format string");
    }
    if ((size_t)len < room) {
        buf->size += (size_t)len;
        return 0;
    }
    if (room)
        buf->ptr[buf->size] = '\0'; /* the cut text written into the room */
    if ((error = culprit_buf_grow(buf, (size_t)len)) < 0)
        return error;
    va_start(ap, fmt);
    vsnprintf(buf->ptr + buf->size, (size_t)len + 1, fmt, ap);
    va_end(ap);
    buf->size += (size_t)len;
    return 0;
}

int culprit_buf_put_duration(culprit_buf *buf, double ns)
{
    if (!isfinite(ns))
        return culprit_buf_puts(buf, "-");
    if (ns < 0) { /* "-185.2 us", not "-185159.3 ns" */
        int error = culprit_buf_puts(buf, "-");
        return error < 0 ? error : culprit_buf_put_duration(buf, -ns);
    }
    if (ns < 1e3)
        return culprit_buf_printf(buf, "%.1f ns", ns);
    if (ns < 1e6)
        return culprit_buf_printf(buf, "%.1f us", ns / 1e3);
    if (ns < 1e9)
        return culprit_buf_printf(buf, "%.2f ms", ns / 1e6);
    return culprit_buf_printf(buf, "%.3f s", ns / 1e9);
}

void culprit_buf_clear(culprit_buf *buf)
{
    buf->size = 0;
    if (buf->ptr)
        buf->ptr[0] = '\0';
}

void culprit_buf_dispose(culprit_buf *buf)
{
    if (!buf)
        return;
    free(buf->ptr);
    buf->ptr = NULL;
    buf->size = buf->asize = 0;
}

const char *culprit_buf_cstr(const culprit_buf *buf)
{
    return buf->ptr ? buf->ptr : empty_string;
}

char *culprit_buf_detach(culprit_buf *buf)
{
    char *ptr = buf->ptr;

    if (!ptr)
        ptr = calloc(1, 1);
    buf->ptr = NULL;
    buf->size = buf->asize = 0;
    return ptr;
}

char *culprit_strdup(const char *s)
{
    char *copy = strdup(s ? s : "");

    if (!copy)
        CULPRIT_ERROR_NOMEM();
    return copy;
}

int culprit_str_set(char **dst, const char *src)
{
    char *copy = NULL;

    if (src && !(copy = culprit_strdup(src)))
        return CULPRIT_ERROR;
    free(*dst);
    *dst = copy;
    return 0;
}
