/*
 * Counting: the text is split at blanks and punctuation, each word normalized and
 * added to the table.
 */
#include "wordfreq.h"

#include <ctype.h>
#include <string.h>

/* Words longer than this are cut: no word of a real text is. */
#define WORD_MAX 255

static int add_word(wordfreq_table *table, const char *start, size_t n)
{
    char word[WORD_MAX + 1];

    if (n > WORD_MAX)
        n = WORD_MAX;
    memcpy(word, start, n);
    if (normalize_word(word, n) == 0)
        return 0;
    return wordfreq_table_add(table, word);
}

int count_words(wordfreq_table *table, const char *text)
{
    const char *p = text;

    while (*p) {
        const char *start;
        while (*p && isspace((unsigned char)*p))
            p++;
        for (start = p; *p && !isspace((unsigned char)*p); p++)
            ;
        if (p > start && add_word(table, start, (size_t)(p - start)) < 0)
            return -1;
    }
    return 0;
}

size_t wordfreq_run(const char *text)
{
    wordfreq_table *table = wordfreq_table_new(strlen(text) / 16 + 16);
    size_t distinct = (size_t)-1;

    if (table && count_words(table, text) == 0)
        distinct = wordfreq_table_distinct(table);
    wordfreq_table_free(table);
    return distinct;
}
