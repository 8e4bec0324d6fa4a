/* An uninstrumented program that calls the instrumented shared library: its calls
 * are recorded all the same. */
#include <stdio.h>

#include "fixture_lib.h"

int main(void)
{
    printf("%ld\n", fixture_lib_entry(7));
    return 0;
}
