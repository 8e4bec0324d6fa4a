/*
 * Root-cause case (b), "call counts change upstream while a leaf gets much
 * slower": a word index. index_text() cuts a text into words and hands them to
 * flush_batch() a batch at a time; flush_batch() interns each word, and
 * intern_word() hashes it with hash_word(). The culprit commit
 * (wordindex.patch) makes batches four times smaller, so flush_batch() is
 * called four times as often per call of index_text(), and gives hash_word() a
 * "stronger" mixing that is some twenty times slower: hash_word() is the cause.
 * usage: wordindex [ROUNDS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH  64
#define NSLOTS 16384
#define NWORDS 20000

struct batch {
    const char *word[BATCH];
    size_t len[BATCH];
    size_t n;
};

struct entry {
    const char *word;
    size_t len;
    unsigned count;
};

static struct entry slots[NSLOTS];
static size_t distinct;

static unsigned hash_word(const char *w, size_t n)
{
    unsigned h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)w[i]) * 16777619u;
    return h;
}

static void intern_word(const char *w, size_t n)
{
    unsigned slot = hash_word(w, n) & (NSLOTS - 1);
    while (slots[slot].word && (slots[slot].len != n || memcmp(slots[slot].word, w, n) != 0))
        slot = (slot + 1) & (NSLOTS - 1);
    if (!slots[slot].word) {
        slots[slot].word = w;
        slots[slot].len = n;
        distinct++;
    }
    slots[slot].count++;
}

static void flush_batch(struct batch *b)
{
    for (size_t i = 0; i < b->n; i++)
        intern_word(b->word[i], b->len[i]);
    b->n = 0;
}

static void index_text(const char *text)
{
    struct batch b = {.n = 0};
    const char *p = text;

    while (*p) {
        size_t n = strcspn(p, " ");
        if (n > 0) {
            b.word[b.n] = p;
            b.len[b.n++] = n;
            if (b.n == BATCH)
                flush_batch(&b);
        }
        p += n + (p[n] == ' ');
    }
    flush_batch(&b);
}

/* A deterministic text of NWORDS words drawn from 2000 distinct ones. */
static char *make_text(void)
{
    char *text = malloc(NWORDS * 12 + 1), *q = text;
    unsigned x = 12345;

    for (int i = 0; i < NWORDS; i++) {
        x = x * 1103515245u + 12345u;
        q += sprintf(q, "w%04u ", (x >> 16) % 2000);
    }
    *q = '\0';
    return text;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 10;
    char *text = make_text();

    for (int r = 0; r < rounds; r++) {
        memset(slots, 0, sizeof(slots));
        distinct = 0;
        index_text(text);
    }
    printf("%zu distinct words\n", distinct);
    free(text);
    return 0;
}
