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

/**
 * Reads the input value `n = <value>` from a configuration file ('#' starts a
 * comment). Returns 0 and sets *n, or -1 when the file cannot be read or holds no n.
 */
int fib_config_read(const char *path, unsigned int *n);

#endif
