/*
 * The journal example's system under test: read a request's record (read(2)),
 * checksum it (the CPU work of a request, about 100 us) and append it to the
 * journal with write(2). Reading /dev/zero and
 * writing to /dev/null cost well under a microsecond per call, so the number of copies
 * changes the bytes written (/proc/self/io wchar) but hardly the time.
 */
#include "journal.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define RECORD_MAX 4096
#define ROUNDS     24 /* checksum passes: the request's CPU work */

int journal_config_read(const char *path, journal_settings *out)
{
    FILE *f = fopen(path, "r");
    char line[256];
    int found = 0;

    if (!f)
        return -1;
    while (fgets(line, sizeof(line), f))
        found |= sscanf(line, " copies = %u", &out->copies) == 1;
    fclose(f);
    return found && out->copies > 0 ? 0 : -1;
}

uint64_t journal_handle(int in, int out, uint64_t seq, unsigned int copies)
{
    unsigned char record[RECORD_MAX];
    size_t len = 512 + (size_t)(seq * 7919 % 3584);
    uint64_t h = 14695981039346656037ull;

    /* The request's input: len bytes read, so bytes read follow the record size as
     * exactly as the bytes written do. */
    if (read(in, record, len) != (ssize_t)len)
        return 0;
    for (size_t i = 0; i < len; i++)
        record[i] ^= (unsigned char)(seq + i * 31);
    /* FNV-1a, ROUNDS passes: work proportional to the record. */
    for (int r = 0; r < ROUNDS; r++)
        for (size_t i = 0; i < len; i++)
            h = (h ^ record[i]) * 1099511628211ull;
    memcpy(record, &h, sizeof(h));
    for (unsigned int c = 0; c < copies; c++)
        if (write(out, record, len) != (ssize_t)len)
            return 0;
    return h ? h : 1;
}
