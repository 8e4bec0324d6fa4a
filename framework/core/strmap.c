/*
 * A map from strings to indices: the one hash table behind every "find by name"
 * that would otherwise scan a list (a test in a run of 100,000 tests, a test key
 * among the results of a commit). Open addressing with linear probing over a
 * power-of-two table kept at most half full, FNV-1a hashes stored beside the keys
 * so a probe compares strings only on a full hash match. Keys are borrowed: the
 * caller keeps them alive and unchanged while the map is used.
 */
#include "culprit/core.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *key; /* NULL: empty slot */
    uint64_t hash;
    size_t value;
} slot;

/* FNV-1a, 64 bits (Fowler, Noll, Vo): short keys, no seed needed (names, not input
 * chosen to collide: a collision costs a string comparison, never a wrong answer). */
static uint64_t hash_of(const char *s)
{
    return culprit_str_hash(CULPRIT_STR_HASH_INIT, s, strlen(s));
}

/* The slot holding `key`, or the empty slot where it would go. */
static slot *probe(const culprit_strmap *map, const char *key, uint64_t hash)
{
    slot *slots = map->slots;
    size_t mask = map->nslots - 1, i = (size_t)hash & mask;

    while (slots[i].key && (slots[i].hash != hash || strcmp(slots[i].key, key) != 0))
        i = (i + 1) & mask;
    return &slots[i];
}

static int resize(culprit_strmap *map, size_t nslots)
{
    slot *old = map->slots, *slots = calloc(nslots, sizeof(*slots));
    size_t oldn = map->nslots;

    if (!slots)
        return culprit_error_set(CULPRIT_ERROR, "out of memory: a map of %zu names", map->n);
    map->slots = slots;
    map->nslots = nslots;
    for (size_t i = 0; i < oldn; i++)
        if (old[i].key)
            *probe(map, old[i].key, old[i].hash) = old[i];
    free(old);
    return 0;
}

int culprit_strmap_reserve(culprit_strmap *map, size_t n)
{
    size_t nslots = map->nslots ? map->nslots : 16;

    while (nslots < 2 * n) {
        if (nslots > SIZE_MAX / 4 / sizeof(slot))
            return culprit_error_set(CULPRIT_ERROR, "out of memory: a map of %zu names", n);
        nslots *= 2;
    }
    return nslots == map->nslots ? 0 : resize(map, nslots);
}

int culprit_strmap_put(culprit_strmap *map, const char *key, size_t value, size_t *existing)
{
    uint64_t hash = hash_of(key);
    slot *s;
    int error;

    if ((error = culprit_strmap_reserve(map, map->n + 1)) < 0)
        return error;
    s = probe(map, key, hash);
    if (s->key) {
        if (existing)
            *existing = s->value;
        return 1;
    }
    *s = (slot){key, hash, value};
    map->n++;
    return 0;
}

int culprit_strmap_get(const culprit_strmap *map, const char *key, size_t *value)
{
    const slot *s;

    if (!map->n)
        return 0;
    s = probe(map, key, hash_of(key));
    if (!s->key)
        return 0;
    if (value)
        *value = s->value;
    return 1;
}

int culprit_strmap_set(culprit_strmap *map, const char *key, size_t value)
{
    slot *s;
    int error;

    if ((error = culprit_strmap_put(map, key, value, NULL)) <= 0)
        return error;
    s = probe(map, key, hash_of(key));
    s->key = key; /* the caller's newest copy of the key */
    s->value = value;
    return 0;
}

void culprit_strmap_dispose(culprit_strmap *map)
{
    if (!map)
        return;
    free(map->slots);
    memset(map, 0, sizeof(*map));
}
