/*
 * SHA-1 (FIPS 180-4) over a stream, for the checksums that close a pack file and its
 * index (packwrite.c): git names and verifies packs by them, and libgit2 exposes no
 * streaming hash. Object ids come from libgit2 (git_odb_hash), never from here; this
 * hash protects against no adversary, only against a torn or mistyped file.
 */
#include "vcs_internal.h"

#include <string.h>

static uint32_t rol(uint32_t x, unsigned int n)
{
    return (x << n) | (x >> (32 - n));
}

/* One round of 20 steps: f and k fixed, the schedule in a ring of 16 words. */
#define SHA1_ROUNDS(from, f, k)                                                                    \
    for (int i = from; i < from + 20; i++) {                                                       \
        uint32_t t;                                                                                \
        if (i >= 16)                                                                               \
            w[i & 15] = rol(w[(i - 3) & 15] ^ w[(i - 8) & 15] ^ w[(i - 14) & 15] ^ w[i & 15], 1);  \
        t = rol(a, 5) + (f) + e + (k) + w[i & 15];                                                 \
        e = d, d = c, c = rol(b, 30), b = a, a = t;                                                \
    }

static void block(uint32_t h[5], const unsigned char *p)
{
    uint32_t w[16], a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];

    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
    SHA1_ROUNDS(0, d ^ (b & (c ^ d)), 0x5a827999)
    SHA1_ROUNDS(20, b ^ c ^ d, 0x6ed9eba1)
    SHA1_ROUNDS(40, (b & c) | (d & (b | c)), 0x8f1bbcdc)
    SHA1_ROUNDS(60, b ^ c ^ d, 0xca62c1d6)
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
}

void culprit_vcs__sha1_init(culprit_vcs__sha1 *s)
{
    static const uint32_t h0[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0};

    memcpy(s->h, h0, sizeof(h0));
    s->len = 0;
}

void culprit_vcs__sha1_update(culprit_vcs__sha1 *s, const void *data, size_t len)
{
    const unsigned char *p = data;
    size_t used = (size_t)(s->len % 64);

    s->len += len;
    if (used) {
        size_t take = len < 64 - used ? len : 64 - used;
        memcpy(s->buf + used, p, take);
        p += take, len -= take;
        if (used + take < 64)
            return;
        block(s->h, s->buf);
    }
    for (; len >= 64; p += 64, len -= 64)
        block(s->h, p);
    memcpy(s->buf, p, len);
}

void culprit_vcs__sha1_final(unsigned char out[20], culprit_vcs__sha1 *s)
{
    unsigned char pad[72] = {0x80};
    uint64_t bits = s->len * 8;
    size_t used = (size_t)(s->len % 64), npad = used < 56 ? 56 - used : 120 - used;

    for (int i = 0; i < 8; i++)
        pad[npad + (size_t)i] = (unsigned char)(bits >> (56 - 8 * i));
    culprit_vcs__sha1_update(s, pad, npad + 8);
    for (int i = 0; i < 20; i++)
        out[i] = (unsigned char)(s->h[i / 4] >> (24 - 8 * (i % 4)));
}
