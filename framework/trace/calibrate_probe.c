/*
 * The calibration probe: the one function of the runtime that IS compiled with
 * -finstrument-functions (see CMakeLists.txt), so that the cost the runtime
 * subtracts per call is measured on code shaped exactly as the compiler shapes
 * instrumented code (saving registers around the hooks, loading the call site),
 * against the same body left uninstrumented. Only calibrate() calls it, on a
 * private thread state, before any recording.
 */
#include "trace_internal.h"

unsigned long trace__probe(unsigned long x);
unsigned long trace__probe_bare(unsigned long x) NOINSTR;

__attribute__((noinline)) unsigned long trace__probe(unsigned long x)
{
    __asm__ volatile("" : "+r"(x)::"memory");
    return x + 1;
}

__attribute__((noinline)) unsigned long trace__probe_bare(unsigned long x)
{
    __asm__ volatile("" : "+r"(x)::"memory");
    return x + 1;
}
