/* The instrumented shared library of the trace tests. */
#ifndef FIXTURE_LIB_H
#define FIXTURE_LIB_H
long fixture_lib_entry(int n);
#endif
