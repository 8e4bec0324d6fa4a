/*
 * Packed sample lines: the compact form of a series' raw values in the culprit
 * block (docs/history-format.md, "Packed samples"). Measured series are mostly
 * integers or binary fractions (a batch mean of nanoseconds is k/2^s), move by
 * little from one repetition to the next, and counters are long runs of one value,
 * so a series is stored as
 *
 *     NAME ~S BASE64
 *
 * S being the scale (every value times 2^S is an integer of at most 2^53, so exact),
 * and BASE64 the varints of the zigzag-coded differences of those integers, a zero
 * difference followed by a repeat count (1 to 128 more of the same value). On the
 * samples of a real run this is a fifth of the text (docs/history-format.md), with
 * no library beyond libc, and it decodes bit for bit. A series it cannot represent
 * exactly (a value that is no short binary fraction, -0, NaN, an infinity) stays
 * text. Base64 needs no XML escaping, so the announced byte length still holds.
 */
#include "history_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A scale beyond 2^-32 is no measurement's resolution; such values stay text. */
#define MAX_SCALE 32
/* One repeat count covers at most this many values: with two bytes per run, a packed
 * series never holds more than 64 values per byte, the bound the reader checks. */
#define MAX_RUN         128
#define VALUES_PER_BYTE 64

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* The smallest S with every v * 2^S an integer of magnitude <= 2^53; -1 when none. */
static int scale_of(const double *v, size_t n)
{
    int s = 0;

    for (size_t i = 0; i < n; i++) {
        double x = v[i];
        if (!isfinite(x) || (x == 0 && signbit(x)))
            return -1;
        while (s <= MAX_SCALE && ldexp(x, s) != floor(ldexp(x, s)))
            s++;
        if (s > MAX_SCALE)
            return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (fabs(ldexp(v[i], s)) > 9007199254740992.0) /* 2^53 */
            return -1;
    return s;
}

static void put_varint(unsigned char *out, size_t *len, uint64_t u)
{
    while (u >= 0x80) {
        out[(*len)++] = (unsigned char)(u | 0x80);
        u >>= 7;
    }
    out[(*len)++] = (unsigned char)u;
}

static int put_base64(culprit_buf *out, const unsigned char *in, size_t n)
{
    int error;

    if ((error = culprit_buf_grow(out, (n + 2) / 3 * 4 + 1)) < 0)
        return error;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t w = (uint32_t)in[i] << 16;
        size_t k = n - i;
        if (k > 1)
            w |= (uint32_t)in[i + 1] << 8;
        if (k > 2)
            w |= in[i + 2];
        out->ptr[out->size++] = b64[w >> 18];
        out->ptr[out->size++] = b64[(w >> 12) & 63];
        out->ptr[out->size++] = k > 1 ? b64[(w >> 6) & 63] : '=';
        out->ptr[out->size++] = k > 2 ? b64[w & 63] : '=';
    }
    out->ptr[out->size] = '\0';
    return 0;
}

int culprit_history__pack_series(culprit_buf *out, const double *v, size_t n)
{
    unsigned char *bytes;
    size_t len = 0;
    int64_t prev = 0;
    int s = n ? scale_of(v, n) : -1, error;

    if (s < 0)
        return 0;
    /* A varint of a 54-bit zigzag value takes at most 8 bytes. */
    if (!(bytes = malloc(n * 8 + 16)))
        return CULPRIT_ERROR_NOMEM();
    for (size_t i = 0; i < n;) {
        int64_t x = (int64_t)ldexp(v[i], s), d = x - prev;
        if (d == 0 && i > 0) {
            size_t run = 1;
            while (i + run < n && run < MAX_RUN && (int64_t)ldexp(v[i + run], s) == prev)
                run++;
            put_varint(bytes, &len, 0);
            put_varint(bytes, &len, run - 1);
            i += run;
            continue;
        }
        put_varint(bytes, &len, d >= 0 ? (uint64_t)d << 1 : (((uint64_t)-d) << 1) - 1);
        prev = x;
        i++;
    }
    if ((error = culprit_buf_printf(out, "~%d ", s)) == 0)
        error = put_base64(out, bytes, len);
    free(bytes);
    return error < 0 ? error : 1;
}

/* ------------------------------------------------------------------ reading --- */

static int b64_value(char c)
{
    const char *p = c ? strchr(b64, c) : NULL;
    return p ? (int)(p - b64) : -1;
}

/* Decodes [p, end) (a multiple of 4 characters, '=' padding only at the end). */
static int get_base64(unsigned char **out, size_t *len, const char *p, const char *end)
{
    size_t n = (size_t)(end - p);
    unsigned char *bytes;

    *len = 0;
    if (n % 4 || !(bytes = malloc(n / 4 * 3 + 1)))
        return -1;
    for (size_t i = 0; i < n; i += 4) {
        int a = b64_value(p[i]), b = b64_value(p[i + 1]);
        int c = p[i + 2] == '=' ? -2 : b64_value(p[i + 2]);
        int d = p[i + 3] == '=' ? -2 : b64_value(p[i + 3]);
        if (a < 0 || b < 0 || c == -1 || d == -1 || (c == -2 && d != -2) ||
            ((c == -2 || d == -2) && i + 4 != n)) {
            free(bytes);
            return -1;
        }
        bytes[(*len)++] = (unsigned char)(a << 2 | b >> 4);
        if (c >= 0)
            bytes[(*len)++] = (unsigned char)((b & 15) << 4 | c >> 2);
        if (d >= 0)
            bytes[(*len)++] = (unsigned char)((c & 3) << 6 | d);
    }
    *out = bytes;
    return 0;
}

static int get_varint(uint64_t *u, const unsigned char *b, size_t len, size_t *at)
{
    *u = 0;
    for (int shift = 0; shift < 64 && *at < len; shift += 7) {
        unsigned char c = b[(*at)++];
        *u |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            return 0;
    }
    return -1;
}

int culprit_history__unpack_series(double **values, size_t n, const char *p, const char *end)
{
    const char *sp = memchr(p, ' ', (size_t)(end - p));
    unsigned char *bytes = NULL;
    size_t len = 0, at = 0, k = 0;
    uint64_t s, u;
    int64_t prev = 0;
    double *v = NULL;

    *values = NULL;
    if (p >= end || *p != '~' || !sp || culprit_history__parse_uint(&s, p + 1, sp, MAX_SCALE) < 0 ||
        get_base64(&bytes, &len, sp + 1, end) < 0)
        return -1;
    /* The bound the writer keeps: a lying count cannot make this allocate much more
     * than the line it came with. */
    if (n > len * VALUES_PER_BYTE || (n && !(v = malloc(n * sizeof(*v)))))
        goto fail;
    while (k < n) {
        if (get_varint(&u, bytes, len, &at) < 0)
            goto fail;
        if (u == 0 && k > 0) {
            if (get_varint(&u, bytes, len, &at) < 0 || u >= MAX_RUN || k + u + 1 > n)
                goto fail;
            for (uint64_t r = 0; r <= u; r++)
                v[k++] = ldexp((double)prev, -(int)s);
            continue;
        }
        if (u > ((uint64_t)1 << 55))
            goto fail;
        prev += (u & 1) ? -(int64_t)((u + 1) >> 1) : (int64_t)(u >> 1);
        if (prev > ((int64_t)1 << 53) || prev < -((int64_t)1 << 53))
            goto fail;
        v[k++] = ldexp((double)prev, -(int)s);
    }
    if (at != len)
        goto fail;
    free(bytes);
    *values = v;
    return 0;
fail:
    free(bytes);
    free(v);
    return -1;
}
