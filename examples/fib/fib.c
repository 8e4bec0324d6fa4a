/*
 * The Fibonacci system under test. fib() is the function a commit may slow down;
 * fib_config_read() is the configuration the paper's unit test reads its input from.
 */
#include "fib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t fib(unsigned int n)
{
    if (n < 2)
        return n;
    return fib(n - 1) + fib(n - 2);
}

int fib_config_read(const char *path, fib_settings *config)
{
    char line[256];
    int found = -1;
    FILE *f = fopen(path, "r");

    if (!f)
        return -1;
    config->calls = 1;
    while (fgets(line, sizeof(line), f)) {
        unsigned int value;
        char *hash = strchr(line, '#');

        if (hash)
            *hash = '\0';
        if (sscanf(line, " n = %u", &value) == 1) {
            config->n = value;
            found = 0;
        } else if (sscanf(line, " calls = %u", &value) == 1) {
            config->calls = value;
        }
    }
    fclose(f);
    return config->calls ? found : -1;
}
