/*
 * What a summaries-only read parses of a history file: everything but the sample
 * lines of each culprit block, as ranges of the mapped file. The samples are 99%
 * of a file with samples; their byte length is announced in each block (block.c),
 * so they are never copied and never parsed: the reader (read.c) pushes only the
 * ranges to the XML parser. Their bytes are still read once, by one memchr() per
 * block looking for a '<' (a length that jumps over markup is refused), so every
 * page of the file is touched; what is saved is libxml2's work on them.
 *
 * With `cut`, a block whose text the XML parser would hand over byte for byte (plain
 * ASCII, nothing XML gives a meaning) is cut out whole: the reader puts a token in
 * its place and parses the block straight from the file (read.c). libxml2's work on
 * the header lines was half of reading a run (issue 23).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memmem, memrchr */
#endif
#include "history_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

static int add_range(culprit_history__ranges *rs, size_t start, size_t len, int token)
{
    if (culprit_array_grow(&rs->items, &rs->alloc, rs->n, sizeof(*rs->items), 64) < 0)
        return -1;
    rs->items[rs->n++] = (culprit_history__range){start, len, token};
    return 0;
}

/* A block cut out whole: [start, start + len) of the document is its text. */
static int add_block(culprit_history__ranges *rs, size_t start, size_t len)
{
    if (culprit_array_grow(&rs->blocks, &rs->ablocks, rs->nblocks, sizeof(*rs->blocks), 64) < 0)
        return -1;
    rs->blocks[rs->nblocks++] = (culprit_history__range){start, len, 0};
    return 0;
}

/* Sixteen bytes as one vector (GCC's and Clang's vector extension: SSE2 on x86-64,
 * NEON on arm64, plain integers elsewhere). */
typedef signed char bytes16 __attribute__((vector_size(16)));
#define SPLAT(c) ((bytes16){c, c, c, c, c, c, c, c, c, c, c, c, c, c, c, c})

/* 1 when one of the 16 bytes at p is one plain_text() refuses: below 0x20 but for '\n'
 * and '\t', 0x7f and above, '&', '<', ']'. Sixteen at a time: a byte at a time, the
 * check cost more than the parser's work it saves. */
static int refused16(const char *p)
{
    bytes16 v, bad;
    uint64_t half[2];

    memcpy(&v, p, sizeof(v));
    /* signed: the bytes from 0x80 on are below 0x20 too */
    bad = (v < SPLAT(0x20)) & ~((v == SPLAT('\n')) | (v == SPLAT('\t')));
    bad |= (v == SPLAT(0x7f)) | (v == SPLAT('&')) | (v == SPLAT('<')) | (v == SPLAT(']'));
    memcpy(half, &bad, sizeof(half));
    return (half[0] | half[1]) != 0;
}

/* 1 when libxml2 hands the text [p, end) of an element over as it is: printable ASCII,
 * tabs and line breaks, without '&' (a reference), '<' (markup) or ']' (of "]]>",
 * which text may not hold). A '\r' is not (XML reads it as '\n'), nor any other
 * control byte or non-ASCII byte (the parser checks their encoding). */
static int plain_text(const char *p, const char *end)
{
    for (; end - p >= 16; p += 16)
        if (refused16(p))
            return 0;
    for (; p < end; p++) {
        unsigned char c = (unsigned char)*p;
        if ((c < 0x20 && c != '\n' && c != '\t') || c >= 0x7f || c == '&' || c == '<' || c == ']')
            return 0;
    }
    return 1;
}

/* The first "\nsamples " in [p, end), as memmem finds it: memchr for its 'p', which a
 * block's header has a few of and its '\n' every 20 bytes (memmem, led by the '\n',
 * was a twentieth of `culprit history`). */
static const char *find_marker(const char *p, const char *end)
{
    static const char marker[] = "\n" CULPRIT_HISTORY__SAMPLES_KEY " ";
    const size_t at = 4, len = sizeof(marker) - 1; /* the 'p' of "\nsamples " */
    const char *q;

    for (q = p + at; q < end && (q = memchr(q, 'p', (size_t)(end - q))); q++)
        if ((size_t)(end - (q - at)) >= len && !memcmp(q - at, marker, len))
            return q - at;
    return NULL;
}

/* The nonce of a read's tokens: "@" and 16 random hex digits. */
static void make_nonce(char nonce[CULPRIT_HISTORY__NONCE_LEN])
{
    uint64_t v = 0;

    if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != (ssize_t)sizeof(v))
        v = (uint64_t)time(NULL) ^ (uint64_t)(uintptr_t)&v ^ ((uint64_t)getpid() << 32) ^
            (uint64_t)clock();
    nonce[0] = '@';
    for (int i = 0; i < 16; i++)
        nonce[1 + i] = "0123456789abcdef"[(v >> (4 * i)) & 15];
}

/*
 * The document without the sample lines of each culprit block, as ranges of it.
 * Returns 1 when done, 0 when the document does not have the writer's exact shape
 * (then it must be parsed whole), -1 when out of memory. The samples are not
 * copied, but each of their bytes is read by the memchr() for '<' below.
 */
int culprit_history__skip_samples(culprit_history__ranges *out, const char *data, size_t len,
                                  int cut)
{
    static const char marker[] = "\n" CULPRIT_HISTORY__SAMPLES_KEY " ";
    static const char open[] = "<system-out>" CULPRIT_HISTORY__BLOCK_MAGIC " ";
    static const char close[] = "</system-out>";
    size_t pos = 0;
    int found = 0;

    if (cut)
        make_nonce(out->nonce);
    for (;;) {
        const char *m = find_marker(data + pos, data + len);
        const char *p, *nl, *lt, *text;
        uint64_t bytes;
        size_t start;

        if (!m)
            break;
        p = m + sizeof(marker) - 1;
        nl = memchr(p, '\n', (size_t)(data + len - p) < 24 ? (size_t)(data + len - p) : 24);
        if (!nl || culprit_history__parse_uint(&bytes, p, nl, len) < 0)
            return 0;
        start = (size_t)(nl + 1 - data);
        if (bytes > len - start || len - start - bytes < sizeof(close) - 1 ||
            memcmp(data + start + bytes, close, sizeof(close) - 1) != 0)
            return 0;
        /* Sample lines hold no '<' (numbers and checked series names): a length that
         * jumps over markup is not the writer's, and the whole parse refuses it. */
        if (memchr(data + start, '<', (size_t)bytes))
            return 0;
        /* The header text is escaped, so the last '<' before it opens its <system-out>. */
        lt = memrchr(data + pos, '<', (size_t)(m - (data + pos)));
        if (!lt || (size_t)(data + len - lt) < sizeof(open) - 1 ||
            memcmp(lt, open, sizeof(open) - 1) != 0)
            return 0;
        text = lt + sizeof(open) - sizeof(CULPRIT_HISTORY__BLOCK_MAGIC " ");
        if (cut && plain_text(text, data + start)) {
            if (add_range(out, pos, (size_t)(text - data) - pos, 1) < 0 ||
                add_block(out, (size_t)(text - data), (size_t)(data + start - text)) < 0)
                return -1;
        } else if (add_range(out, pos, start - pos, 0) < 0) {
            return -1;
        }
        pos = start + (size_t)bytes;
        found = 1;
    }
    if (!found)
        return 0;
    return add_range(out, pos, len - pos, 0) < 0 ? -1 : 1;
}

/* ----------------------------------------------------------------- tokens --- */

size_t culprit_history__token(char out[CULPRIT_HISTORY__TOKEN_MAX],
                              const culprit_history__ranges *cut, size_t k)
{
    char digits[20];
    size_t n = 0, len = CULPRIT_HISTORY__NONCE_LEN;

    memcpy(out, cut->nonce, CULPRIT_HISTORY__NONCE_LEN);
    out[len++] = '-';
    do {
        digits[n++] = (char)('0' + k % 10);
        k /= 10;
    } while (k);
    while (n)
        out[len++] = digits[--n];
    return len;
}

int culprit_history__take_block(const culprit_history__ranges *cut, size_t *next, const char *data,
                                const char **text, size_t *len)
{
    char tok[CULPRIT_HISTORY__TOKEN_MAX];
    size_t n = culprit_history__token(tok, cut, *next);

    if (*next < cut->nblocks && *len == n && !memcmp(*text, tok, n)) {
        *text = data + cut->blocks[*next].start;
        *len = cut->blocks[(*next)++].len;
        return 1;
    }
    return *len >= CULPRIT_HISTORY__NONCE_LEN &&
                   memmem(*text, *len, cut->nonce, CULPRIT_HISTORY__NONCE_LEN)
               ? -1
               : 0;
}
