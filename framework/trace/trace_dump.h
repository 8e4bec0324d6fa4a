/*
 * The writer of the call-tree file (dump.c), called by the runtime (runtime.c) at
 * exit and from culprit_trace_dump(). The writer reads the shared state
 * (trace_internal.h) and never calls back into the runtime.
 */
#ifndef CULPRIT_TRACE_DUMP_H
#define CULPRIT_TRACE_DUMP_H

/* Writes the merged tree of all threads as the file format of
 * docs/calltree-format.md, atomically; 0 or -1 (errno). */
int trace__write(const char *path) __attribute__((no_instrument_function));

#endif
