/*
 * fib: the system under test of the Fibonacci example (Heger et al. 2013, section
 * 5.1). The function is deliberately naive, so that a commit changing fib.c, or the
 * input n in fib.conf, changes the response time of the perf tests in fib_perf.c.
 */
#ifndef FIB_H
#define FIB_H

#include <stdint.h>

/** The n-th Fibonacci number (fib(0) = 0, fib(1) = 1), by naive recursion: O(phi^n). */
uint64_t fib(unsigned int n);

/** The example's configuration. */
typedef struct {
    unsigned int n;     /**< the input value of fib() */
    unsigned int calls; /**< fib(n) computations per repetition (default 1): 21 instead of
                             20 is a 5% slowdown, which n alone cannot express */
} fib_settings;

/**
 * Reads `n = <value>` (required) and `calls = <value>` (optional, >= 1) from a
 * configuration file ('#' starts a comment). Returns 0, or -1 when the file cannot be
 * read, holds no n, or has calls = 0.
 */
int fib_config_read(const char *path, fib_settings *config);

#endif
