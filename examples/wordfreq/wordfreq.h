/*
 * The word-frequency example (docs/examples.md): counts the distinct words of a
 * text. The demo (examples/demo.sh) builds a git history of this code in which one
 * commit slows normalize_word(), four calls deep, and culprit finds it.
 */
#ifndef WORDFREQ_H
#define WORDFREQ_H

#include <stddef.h>

/* A word table: open addressing, words copied in. */
typedef struct wordfreq_table wordfreq_table;

wordfreq_table *wordfreq_table_new(size_t capacity);
void wordfreq_table_free(wordfreq_table *table);
/* Adds one occurrence of the word (NUL-terminated, already normalized). */
int wordfreq_table_add(wordfreq_table *table, const char *word);
size_t wordfreq_table_distinct(const wordfreq_table *table);

/* Lower-cases the word of n bytes in place, dropping what is not part of a word;
 * returns the new length. */
size_t normalize_word(char *word, size_t n);

/* Splits `text` into words and adds each, normalized, to `table`. */
int count_words(wordfreq_table *table, const char *text);

/* The distinct words of `text`, or (size_t)-1 when out of memory. */
size_t wordfreq_run(const char *text);

#endif
