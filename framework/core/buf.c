/*
 * Growable byte buffers. Every writer of text in culprit (XML is written by
 * libxml2, JSON by jansson) uses these for the small strings in between. The
 * owned strings of the models (a run's path, a test's message) are replaced
 * through culprit_str_set(), one owner for every module.
 */
#include "culprit/core.h"

#include <langinfo.h>
#include <math.h>
#include <stdint.h>
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

/*
 * The fast path of culprit_buf_put_fixed(): y = |x| 10^decimals rounded to the nearest
 * integer is what printf rounds the exact value to, unless the exact value lies near a
 * half (printf breaks an exact tie to even, and y carries a rounding error of at most
 * half an ulp, below 2^-19 under 2^33): then 0, and printf decides.
 */
static int fixed_digits(char *out, size_t *len, double x, int decimals, int plus)
{
    static const double pow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000};
    const char *dp;
    double y, r;
    uint64_t u, scale;
    char digits[24];
    size_t n = 0, k = 0;

    if (decimals < 0 || decimals > 6 || !isfinite(x))
        return 0;
    y = fabs(x) * pow10[decimals];
    if (!(y < 8589934592.0) || fabs(y - floor(y) - 0.5) < 1e-5)
        return 0;
    /* printf's decimal point is the locale's; nl_langinfo(), unlike localeconv(),
     * writes no static struct, so verdicts are composed on several threads at once. */
    dp = nl_langinfo(RADIXCHAR);
    if (decimals && (!dp || strcmp(dp, ".") != 0))
        return 0;
    r = floor(y + 0.5);
    scale = (uint64_t)pow10[decimals];
    if (signbit(x))
        out[n++] = '-';
    else if (plus)
        out[n++] = '+';
    u = (uint64_t)r / scale;
    do { /* the integer part, reversed */
        digits[k++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    while (k)
        out[n++] = digits[--k];
    if (decimals) {
        u = (uint64_t)r % scale;
        out[n++] = '.';
        for (int d = decimals; d-- > 0;) {
            out[n + (size_t)d] = (char)('0' + u % 10);
            u /= 10;
        }
        n += (size_t)decimals;
    }
    *len = n;
    return 1;
}

int culprit_buf_put_fixed(culprit_buf *buf, double x, int decimals, int plus)
{
    char text[48];
    size_t len;

    if (fixed_digits(text, &len, x, decimals, plus))
        return culprit_buf_put(buf, text, len);
    return culprit_buf_printf(buf, plus ? "%+.*f" : "%.*f", decimals, x);
}

int culprit_buf_put_duration(culprit_buf *buf, double ns)
{
    static const struct {
        double below, per;
        int decimals;
        const char *unit;
    } units[] = {{1e3, 1, 1, " ns"}, {1e6, 1e3, 1, " us"}, {1e9, 1e6, 2, " ms"}};
    int error;

    if (!isfinite(ns))
        return culprit_buf_puts(buf, "-");
    if (ns < 0) { /* "-185.2 us", not "-185159.3 ns" */
        error = culprit_buf_puts(buf, "-");
        return error < 0 ? error : culprit_buf_put_duration(buf, -ns);
    }
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
        if (ns < units[i].below)
            return (error = culprit_buf_put_fixed(buf, units[i].per == 1 ? ns : ns / units[i].per,
                                                  units[i].decimals, 0)) < 0
                       ? error
                       : culprit_buf_puts(buf, units[i].unit);
    return (error = culprit_buf_put_fixed(buf, ns / 1e9, 3, 0)) < 0 ? error
                                                                    : culprit_buf_puts(buf, " s");
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
