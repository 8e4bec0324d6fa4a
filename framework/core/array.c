/*
 * Growable arrays: the one doubling rule every list in culprit grows by (runs,
 * tests, commits, itemsets, report points, ...). The array is left untouched when
 * memory runs out, so the caller's count and capacity always describe it.
 */
#include "culprit/core.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int culprit_array_grow(void *items, size_t *alloc, size_t n, size_t size, size_t first)
{
    size_t cap = *alloc ? *alloc : (first ? first : 16);
    void *p;

    if (n < *alloc)
        return 0;
    while (cap <= n) {
        if (cap > SIZE_MAX / 2 / size)
            return culprit_error_set(CULPRIT_ERROR, "out of memory: an array of %zu items", n);
        cap *= 2;
    }
    memcpy(&p, items, sizeof(p));
    if (!(p = realloc(p, cap * size)))
        return culprit_error_set(CULPRIT_ERROR, "out of memory: an array of %zu items", cap);
    memcpy(items, &p, sizeof(p));
    *alloc = cap;
    return 0;
}
