/*
 * An instrumented program for the trace tests: a PIE executable with static
 * functions, linked with an instrumented shared library. Each scenario is chosen
 * by argv[1], so that the tests know the exact call counts to expect.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture_lib.h"

static volatile long sink;

static void leaf(long i) /* LEAF */
{
    sink += i;
}

static void *worker(void *arg)
{
    for (long i = 0; i < 1000; i++)
        leaf(i);
    return arg;
}

static long fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) static long down(long n)
{
    return n ? down(n - 1) + 1 : 0;
}

static jmp_buf jump;

/* Not inlined, so that each has a frame of its own as in real code. */
__attribute__((noinline)) static void deep(void)
{
    leaf(1);
    longjmp(jump, 1);
}

__attribute__((noinline)) static void jumper(void)
{
    deep();
}

/* Catches the longjmp of deep(), two calls down, then returns normally: its exit
 * finds deep() on top of the shadow stack and pops the abandoned frames. */
__attribute__((noinline)) static void catcher(void)
{
    if (setjmp(jump) == 0)
        jumper();
}

__attribute__((noinline)) static void after(void)
{
    leaf(2);
}

static void spin(long n)
{
    for (long i = 0; i < n; i++)
        sink += i;
}

static void inner(void)
{
    spin(200000);
}

static void outer(void)
{
    for (int i = 0; i < 3; i++)
        inner();
}

static void in_exit(void)
{
    inner();
    exit(0);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";

    if (strcmp(what, "threads") == 0) {
        pthread_t t[2];
        for (int i = 0; i < 2; i++)
            pthread_create(&t[i], NULL, worker, NULL);
        for (int i = 0; i < 2; i++)
            pthread_join(t[i], NULL);
    } else if (strcmp(what, "fib") == 0) {
        sink = fib(argc > 2 ? atoi(argv[2]) : 6);
    } else if (strcmp(what, "deep") == 0) {
        sink = down(argc > 2 ? atol(argv[2]) : 1000);
    } else if (strcmp(what, "longjmp") == 0) {
        catcher();
        after();
    } else if (strcmp(what, "exit") == 0) {
        in_exit();
    } else if (strcmp(what, "levels") == 0) {
        outer();
    } else if (strcmp(what, "lib") == 0) {
        sink = fixture_lib_entry(10);
    } else {
        fprintf(stderr, "usage: fixture threads|fib [n]|deep [n]|longjmp|exit|levels|lib\n");
        return 2;
    }
    return 0;
}
