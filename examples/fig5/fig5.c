/*
 * The call tree of Heger et al. 2013, Fig. 5, as a program: foo calls bar and doo,
 * doo calls fem, fem calls qux once and wug three times. Each function spends a
 * fixed amount of CPU work of its own (SPIN), so a commit that changes one of the
 * amounts makes exactly that function slower, as the paper's Fig. 6 supposes of fem.
 *
 * Built with culprit_instrument() (CMakeLists.txt), `culprit calltree record
 * -- ./fig5` records its tree; tests/e2e/calltree_fig5.sh bisects a repository in
 * which one commit makes fem slower and checks that `culprit bisect --calltree`
 * names foo -> doo -> fem and marks fem as changed. main is the harness, like a
 * test runner: it is not instrumented, so foo is the root of the tree, the method
 * under test as in the paper.
 *
 * usage: fig5 [ITERATIONS]   (calls of foo, default 50)
 */
#include <stdlib.h>

/* n units of work, inline in the function that spends them (a helper function
 * would be a callee of its own in the tree); a unit is a few microseconds. */
#define SPIN(n)                                                                                    \
    do {                                                                                           \
        for (volatile unsigned long spin_i = 0; spin_i < (n)*2000UL; spin_i++)                     \
            ;                                                                                      \
    } while (0)

__attribute__((noinline)) static void qux(void)
{
    SPIN(20);
}

__attribute__((noinline)) static void wug(void)
{
    SPIN(10);
}

__attribute__((noinline)) static void fem(void)
{
    SPIN(10); /* fem's own work */
    qux();
    for (int i = 0; i < 3; i++)
        wug();
}

__attribute__((noinline)) static void doo(void)
{
    SPIN(5);
    fem();
}

__attribute__((noinline)) static void bar(void)
{
    SPIN(30);
}

__attribute__((noinline)) void foo(void)
{
    SPIN(1);
    bar();
    doo();
}

__attribute__((no_instrument_function)) int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 50;

    for (int i = 0; i < n; i++)
        foo();
    return 0;
}
