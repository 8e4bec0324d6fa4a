/*
 * Word normalization, as the demo's culprit commit leaves it (examples/demo.sh
 * swaps it in for normalize.c): apostrophes inside words are kept, at the cost of
 * a scan of the whole word for every character (quadratic in the word's length).
 */
#include "wordfreq.h"

#include <ctype.h>

/* 1 when position i of the word has a letter somewhere before and after it: an
 * apostrophe there belongs to the word ("don't"), one at an end does not. */
static int inside_word(const char *word, size_t n, size_t i)
{
    size_t before = 0, after = 0;

    for (size_t k = 0; k < i; k++)
        before += isalpha((unsigned char)word[k]) != 0;
    for (size_t k = i + 1; k < n; k++)
        after += isalpha((unsigned char)word[k]) != 0;
    return before && after;
}

size_t normalize_word(char *word, size_t n)
{
    size_t out = 0;

    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)word[i];
        int inside = inside_word(word, n, i);
        if (isalnum(c) || (c == '\'' && inside))
            word[out++] = (char)tolower(c);
    }
    word[out] = '\0';
    return out;
}
