/*
 * The journal example (docs/examples.md): a request handler that checksums a
 * record and appends it to a journal, `copies` times. A commit that raises copies
 * writes several times the bytes while the time per request barely moves -- the
 * kind of regression only the counters show (Shang et al. 2015, Foo et al. 2010).
 */
#ifndef JOURNAL_H
#define JOURNAL_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    unsigned int copies; /* times each record is written (1 in a good version) */
} journal_settings;

/* Reads "copies = N" from `path`; -1 when unreadable or invalid. */
int journal_config_read(const char *path, journal_settings *out);

/*
 * Handles request number `seq`: reads its record from `in` (512 to 3583 bytes, in
 * waves over seq), checksums it and writes it `copies` times to `out`. Returns the checksum, or
 * 0 when a write failed.
 */
uint64_t journal_handle(int in, int out, uint64_t seq, unsigned int copies);

#endif
