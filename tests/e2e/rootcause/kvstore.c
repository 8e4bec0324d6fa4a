/*
 * Root-cause case (a), "a new slow helper under existing callers": a small
 * key-value store. load() and update() both go through store_put(); the culprit
 * commit (kvstore.patch) makes store_put() check every key with a new helper,
 * validate_key(), which is quadratic in the key's length.
 * usage: kvstore [ROUNDS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NRECORDS 3000
#define NSLOTS   8192

struct record {
    char key[40];
    int value;
    int used;
};

static struct record table[NSLOTS];

static unsigned hash_key(const char *key)
{
    unsigned h = 2166136261u;
    for (; *key; key++)
        h = (h ^ (unsigned char)*key) * 16777619u;
    return h;
}

static int store_put(const char *key, int value)
{
    unsigned slot = hash_key(key) & (NSLOTS - 1);
    while (table[slot].used && strcmp(table[slot].key, key) != 0)
        slot = (slot + 1) & (NSLOTS - 1);
    snprintf(table[slot].key, sizeof(table[slot].key), "%s", key);
    table[slot].value = value;
    table[slot].used = 1;
    return 0;
}

static int store_get(const char *key)
{
    unsigned slot = hash_key(key) & (NSLOTS - 1);
    while (table[slot].used) {
        if (strcmp(table[slot].key, key) == 0)
            return table[slot].value;
        slot = (slot + 1) & (NSLOTS - 1);
    }
    return -1;
}

static void key_of(char *key, size_t size, int i)
{
    snprintf(key, size, "user-%06d-profile-settings", i);
}

static void load(void)
{
    char key[40];
    for (int i = 0; i < NRECORDS; i++) {
        key_of(key, sizeof(key), i);
        store_put(key, i);
    }
}

static void update(void)
{
    char key[40];
    for (int i = 0; i < NRECORDS; i += 2) {
        key_of(key, sizeof(key), i);
        store_put(key, i + 1);
    }
}

static long query(void)
{
    char key[40];
    long sum = 0;
    for (int i = 0; i < NRECORDS; i++) {
        key_of(key, sizeof(key), i);
        sum += store_get(key);
    }
    return sum;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 10;
    long sum = 0;

    for (int r = 0; r < rounds; r++) {
        memset(table, 0, sizeof(table));
        load();
        update();
        sum += query();
    }
    printf("%ld\n", sum);
    return 0;
}
