/* A program built without instrumentation: recording it must say how to fix that. */
#include <stdio.h>

static int twice(int x)
{
    return 2 * x;
}

int main(void)
{
    printf("%d\n", twice(21));
    return 0;
}
