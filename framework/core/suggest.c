/*
 * "Did you mean": near matches of a mistyped word among the words that exist
 * (test names, subcommands), the way git suggests a command for a mistyped one.
 *
 * Closeness is the optimal-string-alignment distance (Levenshtein plus a swap of
 * neighbouring characters counted as one edit, ignoring ASCII case), because the
 * usual typo swaps two letters ("fib_03" for "fib_30"), which plain Levenshtein
 * counts twice. The same rule as the revision suggestions of the vcs module.
 */
#include "culprit/core.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

size_t culprit_edit_distance(const char *a, const char *b)
{
    size_t m = strlen(a), n = strlen(b), i, j, result;
    size_t *rows, *prev2, *prev, *cur, *t;

    /* Three rolling rows: the swap rule looks two rows back. */
    if (!(rows = malloc(3 * (n + 1) * sizeof(*rows))))
        return SIZE_MAX;
    prev2 = rows;
    prev = rows + (n + 1);
    cur = rows + 2 * (n + 1);
    for (j = 0; j <= n; j++)
        prev[j] = j;
    for (i = 1; i <= m; i++) {
        int ai = tolower((unsigned char)a[i - 1]);
        cur[0] = i;
        for (j = 1; j <= n; j++) {
            int bj = tolower((unsigned char)b[j - 1]);
            size_t best = prev[j - 1] + (ai != bj);
            if (prev[j] + 1 < best)
                best = prev[j] + 1;
            if (cur[j - 1] + 1 < best)
                best = cur[j - 1] + 1;
            if (i > 1 && j > 1 && ai == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == bj && prev2[j - 2] + 1 < best)
                best = prev2[j - 2] + 1;
            cur[j] = best;
        }
        t = prev2;
        prev2 = prev;
        prev = cur;
        cur = t;
    }
    result = prev[n];
    free(rows);
    return result;
}

/* One typo in a short word, more in longer ones, never so many that a two-letter
 * word suggests every other two-letter word. */
size_t culprit_suggest_max_distance(size_t len)
{
    return len <= 4 ? 1 : len <= 8 ? 2 : 3;
}

typedef struct {
    const char *word;
    size_t distance;
} candidate;

static int compare_candidates(const void *x, const void *y)
{
    const candidate *a = x, *b = y;

    if (a->distance != b->distance)
        return a->distance < b->distance ? -1 : 1;
    return strcmp(a->word, b->word);
}

int culprit_suggest(const char ***out, size_t *n_out, const char *word, const char *const *words,
                    size_t nwords, size_t max)
{
    candidate *found = NULL;
    const char **list = NULL;
    size_t n = 0, len = strlen(word), limit = culprit_suggest_max_distance(strlen(word));
    int error = 0;

    *out = NULL;
    *n_out = 0;
    if (!(found = calloc(nwords ? nwords : 1, sizeof(*found)))) {
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    for (size_t i = 0; i < nwords; i++) {
        size_t d;
        int seen = 0;
        if (!words[i])
            continue;
        for (size_t k = 0; k < n && !seen; k++)
            seen = strcmp(found[k].word, words[i]) == 0;
        if (seen || strcmp(words[i], word) == 0)
            continue;
        /* A word that starts with what was typed is as good as one typo away. */
        if (len > 0 && strncasecmp(words[i], word, len) == 0)
            d = 1;
        else if ((d = culprit_edit_distance(word, words[i])) > limit)
            continue;
        found[n].word = words[i];
        found[n++].distance = d;
    }
    qsort(found, n, sizeof(*found), compare_candidates);
    if (max && n > max)
        n = max;
    if (!(list = calloc(n + 1, sizeof(*list)))) {
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    for (size_t i = 0; i < n; i++)
        list[i] = found[i].word;
    *out = list;
    *n_out = n;
cleanup:
    free(found);
    return error;
}

int culprit_suggest_format(culprit_buf *out, const char *const *names, size_t n)
{
    int error = 0;

    if (n == 0)
        return 0;
    error = culprit_buf_puts(out, "; did you mean ");
    /* The names may come from history (test names: data), escaped as on a terminal. */
    for (size_t i = 0; i < n && error == 0; i++)
        if ((error = culprit_buf_printf(out, "%s'",
                                        i == 0       ? ""
                                        : i + 1 == n ? " or "
                                                     : ", ")) == 0 &&
            (error = culprit_buf_put_text(out, names[i])) == 0)
            error = culprit_buf_puts(out, "'");
    if (error == 0)
        error = culprit_buf_puts(out, "?");
    return error;
}
