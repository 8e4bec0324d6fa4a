/*
 * Perf tests of the word-frequency example: a synthetic text of long identifiers
 * (made once, untimed, in the group's setup) counted per repetition.
 */
#include <culprit/culprit.h>

#include <stdlib.h>
#include <string.h>

#include "wordfreq.h"

#define WORDS    300
#define DISTINCT 150 /* < 26 * 26: two letters spell each id */

static char *text;

/* The same text on every run: a fixed linear congruential generator. */
static int make_text(void **state)
{
    unsigned int seed = 12345;
    size_t len = 0;

    (void)state;
    if (!(text = malloc(WORDS * 160)))
        return -1;
    for (int w = 0; w < WORDS; w++) {
        unsigned int id = (unsigned int)w % DISTINCT, n;
        seed = seed * 1103515245u + 12345u;
        n = 100 + id % 40; /* 100 to 139 characters */
        /* The first two letters spell the id (distinct words stay distinct after
         * lower-casing), the rest is mixed case with apostrophes and dashes to drop. */
        text[len++] = (char)('A' + id % 26);
        text[len++] = (char)('a' + id / 26);
        for (unsigned int k = 2; k < n; k++)
            text[len++] = k % 7 == 6     ? '-'
                          : k % 11 == 10 ? '\''
                                         : "AbCdEfGhIjKlMnOpQrStUvWxYz"[(id * 7 + k) % 26];
        text[len++] = (seed >> 16) % 5 ? ' ' : '\n';
    }
    text[len] = '\0';
    return 0;
}

static int free_text(void **state)
{
    (void)state;
    free(text);
    return 0;
}

static void count_distinct_words(void **state)
{
    (void)state;
    assert_int_equal(wordfreq_run(text), DISTINCT);
}

int main(int argc, char **argv)
{
    static const culprit_perf_test tests[] = {
        culprit_perf_test(count_distinct_words, .setup = make_text, .teardown = free_text,
                          .repetitions = 30, .category = "fast"),
    };
    return culprit_run_group_name("wordfreq", tests, argc, argv);
}
