/*
 * Word normalization: the same word in any case counts once; characters that
 * are not letters, digits or an apostrophe inside a word are dropped.
 */
#include "wordfreq.h"

#include <ctype.h>

size_t normalize_word(char *word, size_t n)
{
    size_t out = 0;

    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)word[i];
        if (isalnum(c) || c == '\'')
            word[out++] = (char)tolower(c);
    }
    word[out] = '\0';
    return out;
}
