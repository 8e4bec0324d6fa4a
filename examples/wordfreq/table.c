/*
 * The word table: open addressing with linear probing over a power-of-two array,
 * FNV-1a hashes.
 */
#include "wordfreq.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct wordfreq_table {
    size_t capacity, distinct;
    char **words;
    size_t *counts;
};

static uint64_t hash_word(const char *word)
{
    uint64_t h = 14695981039346656037u;

    for (; *word; word++)
        h = (h ^ (unsigned char)*word) * 1099511628211u;
    return h;
}

wordfreq_table *wordfreq_table_new(size_t capacity)
{
    wordfreq_table *t = calloc(1, sizeof(*t));
    size_t cap = 16;

    while (cap < 2 * capacity)
        cap *= 2;
    if (!t || !(t->words = calloc(cap, sizeof(char *))) ||
        !(t->counts = calloc(cap, sizeof(size_t)))) {
        wordfreq_table_free(t);
        return NULL;
    }
    t->capacity = cap;
    return t;
}

void wordfreq_table_free(wordfreq_table *t)
{
    if (!t)
        return;
    for (size_t i = 0; t->words && i < t->capacity; i++)
        free(t->words[i]);
    free(t->words);
    free(t->counts);
    free(t);
}

int wordfreq_table_add(wordfreq_table *t, const char *word)
{
    size_t i = (size_t)hash_word(word) & (t->capacity - 1);

    while (t->words[i] && strcmp(t->words[i], word) != 0)
        i = (i + 1) & (t->capacity - 1);
    if (!t->words[i]) {
        if (2 * (t->distinct + 1) > t->capacity || !(t->words[i] = strdup(word)))
            return -1;
        t->distinct++;
    }
    t->counts[i]++;
    return 0;
}

size_t wordfreq_table_distinct(const wordfreq_table *t)
{
    return t->distinct;
}
