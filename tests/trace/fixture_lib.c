/* The instrumented shared library of the trace tests: an exported function that
 * calls a static one n times. */
#include "fixture_lib.h"

static long lib_helper(int i)
{
    return (long)i * i;
}

long fixture_lib_entry(int n)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        s += lib_helper(i);
    return s;
}
