/*
 * What a summaries-only read parses of a history file: everything but the sample
 * lines of each culprit block, as ranges of the mapped file. The samples are 99%
 * of a file with samples; their byte length is announced in each block (block.c),
 * so they are never copied and never parsed: the reader (read.c) pushes only the
 * ranges to the XML parser. Their bytes are still read once, by one memchr() per
 * block looking for a '<' (a length that jumps over markup is refused), so every
 * page of the file is touched; what is saved is libxml2's work on them.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memmem, memrchr */
#endif
#include "history_internal.h"

#include <stdlib.h>
#include <string.h>

static int add_range(culprit_history__ranges *rs, size_t start, size_t len)
{
    if (culprit_array_grow(&rs->items, &rs->alloc, rs->n, sizeof(*rs->items), 64) < 0)
        return -1;
    rs->items[rs->n++] = (culprit_history__range){start, len};
    return 0;
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

/*
 * The document without the sample lines of each culprit block, as ranges of it.
 * Returns 1 when done, 0 when the document does not have the writer's exact shape
 * (then it must be parsed whole), -1 when out of memory. The samples are not
 * copied, but each of their bytes is read by the memchr() for '<' below.
 */
int culprit_history__skip_samples(culprit_history__ranges *out, const char *data, size_t len)
{
    static const char marker[] = "\n" CULPRIT_HISTORY__SAMPLES_KEY " ";
    static const char open[] = "<system-out>" CULPRIT_HISTORY__BLOCK_MAGIC " ";
    static const char close[] = "</system-out>";
    size_t pos = 0;
    int found = 0;

    for (;;) {
        const char *m = find_marker(data + pos, data + len);
        const char *p, *nl, *lt;
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
        if (add_range(out, pos, start - pos) < 0)
            return -1;
        pos = start + (size_t)bytes;
        found = 1;
    }
    if (!found)
        return 0;
    return add_range(out, pos, len - pos) < 0 ? -1 : 1;
}
