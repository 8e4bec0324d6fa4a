/*
 * Exact number text for the culprit block. Every sample is written as text and
 * must come back bit for bit, so the history can be re-analysed later with the
 * same results. "%.17g" is exact but slow (~300 ns) and most samples are integers
 * (nanoseconds, counters) or short decimals (a batch total divided by a power of
 * two), so those take fast paths whose exactness is argued below; everything else
 * falls back to "%.17g" / strtod in the C locale, whatever the program's locale is.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strtod_l, newlocale */
#endif
#include "history_internal.h"

#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Powers of ten that are exact doubles (10^22 is the largest). */
static const double pow10_exact[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* 2^53: every integer below it is an exact double. */
#define EXACT_INT_LIMIT 9007199254740992.0

static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;
static locale_t c_locale;

static void c_locale_init(void)
{
    c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

static locale_t get_c_locale(void)
{
    pthread_once(&c_locale_once, c_locale_init);
    return c_locale;
}

static size_t format_u64(char *buf, uint64_t u)
{
    char tmp[24];
    size_t n = 0, i;

    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    for (i = 0; i < n; i++)
        buf[i] = tmp[n - 1 - i];
    return n;
}

size_t culprit_history__format_double(char *buf, double v)
{
    size_t len = 0;
    double a = fabs(v);

    if (isnan(v)) {
        memcpy(buf, "nan", 4);
        return 3;
    }
    if (isinf(v)) {
        if (v < 0) {
            memcpy(buf, "-inf", 5);
            return 4;
        }
        memcpy(buf, "inf", 4);
        return 3;
    }
    if (signbit(v))
        buf[len++] = '-';
    /* Integers: the decimal text is the exact value, so strtod returns it unchanged. */
    if (a < 1.8e19 && a == floor(a)) {
        len += format_u64(buf + len, (uint64_t)a);
        buf[len] = '\0';
        return len;
    }
    /*
     * Short decimals: if m / 10^d == a for integers m < 2^53 and d <= 22, both
     * operands are exact and IEEE division is correctly rounded, as strtod is; so
     * the text "m / 10^d" parses back to a. The smallest such d has no trailing zero.
     */
    if (a < 1e15) {
        for (size_t d = 1; d <= 9; d++) {
            double m = nearbyint(a * pow10_exact[d]);
            if (m >= EXACT_INT_LIMIT)
                break;
            if (m / pow10_exact[d] != a)
                continue;
            char digits[24];
            size_t n = format_u64(digits, (uint64_t)m);
            if (n <= d) {
                buf[len++] = '0';
                buf[len++] = '.';
                for (size_t z = n; z < d; z++)
                    buf[len++] = '0';
                memcpy(buf + len, digits, n);
                len += n;
            } else {
                memcpy(buf + len, digits, n - d);
                len += n - d;
                buf[len++] = '.';
                memcpy(buf + len, digits + n - d, d);
                len += d;
            }
            buf[len] = '\0';
            return len;
        }
    }
    {
        locale_t old = uselocale(get_c_locale());
        int n = snprintf(buf, CULPRIT_HISTORY__NUMBER_MAX, "%.17g", v);
        uselocale(old);
        return n > 0 ? (size_t)n : 0;
    }
}

int culprit_history__parse_uint(uint64_t *out, const char *p, const char *end, uint64_t max)
{
    uint64_t u = 0;

    if (p == end)
        return -1;
    for (; p < end; p++) {
        unsigned int digit = (unsigned int)(*p - '0');
        if (digit > 9 || u > (max - digit) / 10)
            return -1;
        u = u * 10 + digit;
    }
    *out = u;
    return 0;
}

/* [-]digits[.digits] scanned once: the mantissa m of every digit (below 2^64), the
 * decimals d, the sign. -1 when the text is not of that shape, or m or d too large. */
typedef struct {
    uint64_t m;
    size_t d;
    int negative;
} decimal;

static int scan_decimal(decimal *x, const char *p, const char *end)
{
    size_t digits = 0;

    x->m = 0, x->d = 0, x->negative = 0;
    if (p < end && *p == '-') {
        x->negative = 1;
        p++;
    }
    for (; p < end && (unsigned int)(*p - '0') <= 9; p++, digits++) {
        if (x->m > (UINT64_MAX - 9) / 10)
            return -1;
        x->m = x->m * 10 + (uint64_t)(*p - '0');
    }
    if (p < end && *p == '.') {
        for (p++; p < end && (unsigned int)(*p - '0') <= 9; p++, x->d++, digits++) {
            if (x->m > (UINT64_MAX - 9) / 10 || x->d >= 22)
                return -1;
            x->m = x->m * 10 + (uint64_t)(*p - '0');
        }
    }
    return p == end && digits ? 0 : -1;
}

/* The exact fast path: fewer than 2^53 in the mantissa, at most 22 decimals. */
static int short_decimal(double *out, const decimal *x)
{
    if (x->m >= (1ull << 53))
        return -1;
    *out = x->d ? (double)x->m / pow10_exact[x->d] : (double)x->m;
    if (x->negative)
        *out = -*out;
    return 0;
}

#ifdef __SIZEOF_INT128__  /* __uint128_t */
typedef __uint128_t u128; /* GCC and Clang, 64-bit targets */

/* 10^0 to 10^19, all below 2^64. */
static const uint64_t pow10_u64[] = {1ull,
                                     10ull,
                                     100ull,
                                     1000ull,
                                     10000ull,
                                     100000ull,
                                     1000000ull,
                                     10000000ull,
                                     100000000ull,
                                     1000000000ull,
                                     10000000000ull,
                                     100000000000ull,
                                     1000000000000ull,
                                     10000000000000ull,
                                     100000000000000ull,
                                     1000000000000000ull,
                                     10000000000000000ull,
                                     100000000000000000ull,
                                     1000000000000000000ull,
                                     10000000000000000000ull};

/* Significant bits of a non-zero 128-bit number. */
static int bits128(u128 v)
{
    uint64_t hi = (uint64_t)(v >> 64);

    return hi ? 128 - __builtin_clzll(hi) : 64 - __builtin_clzll((uint64_t)v);
}

/*
 * The exact path for the 16 to 19 significant digits "%.17g" writes (a mean, a
 * deviation, an interval's bound): [-]digits[.digits] with a mantissa m < 2^64 and
 * at most 19 decimals, in integers. The quotient m / 10^d is taken to 55 bits
 * (Q = floor(m 2^s / 10^d), 2^54 <= Q < 2^55, in 128-bit arithmetic) with a sticky
 * bit for the remainder, then rounded to 53 bits, ties to even: the correctly
 * rounded double, strtod's, with no floating-point step that could round twice.
 */
static int long_decimal(double *out, const decimal *x)
{
    int s, sticky;
    uint64_t m = x->m, mant, g;
    size_t d = x->d;
    u128 num, den, q;

    if (d > 19 || m == 0)
        return -1;
    den = pow10_u64[d];
    s = 55 + bits128(den) - bits128(m); /* then 2^54 <= m 2^s / 10^d < 2^56 */
    num = s >= 0 ? (u128)m << s : m;
    if (s < 0)
        den <<= -s;
    q = num / den;
    sticky = num % den != 0;
    if (q >> 55) {
        sticky |= (int)(q & 1);
        q >>= 1;
        s--;
    }
    mant = (uint64_t)(q >> 2);
    g = (uint64_t)(q & 3);
    if (g > 2 || (g == 2 && (sticky || (mant & 1))))
        mant++;
    *out = ldexp((double)mant, 2 - s);
    if (x->negative)
        *out = -*out;
    return 0;
}
#else
static int long_decimal(double *out, const decimal *x)
{
    (void)out, (void)x;
    return -1; /* no 128-bit integers here: strtod */
}
#endif

int culprit_history__parse_double(double *out, const char *p, const char *end)
{
    char tmp[64];
    size_t len = (size_t)(end - p);
    char *stop;
    decimal x;

    /* One scan for both exact paths (scanning twice was half of reading a block). */
    if (scan_decimal(&x, p, end) == 0 &&
        (short_decimal(out, &x) == 0 || long_decimal(out, &x) == 0))
        return 0;
    if (len == 0 || len >= sizeof(tmp))
        return -1;
    memcpy(tmp, p, len);
    tmp[len] = '\0';
    if (!strcmp(tmp, "nan")) {
        *out = NAN;
        return 0;
    }
    if (!strcmp(tmp, "inf") || !strcmp(tmp, "-inf")) {
        *out = tmp[0] == '-' ? -INFINITY : INFINITY;
        return 0;
    }
    /* Only plain decimals: strtod would also take hex, "infinity" and spaces. */
    if (strspn(tmp, "0123456789.eE+-") != len)
        return -1;
    *out = strtod_l(tmp, &stop, get_c_locale());
    return *stop == '\0' ? 0 : -1;
}
