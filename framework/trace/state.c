/*
 * The trace runtime's shared state: the configuration fixed at the first
 * instrumented call, the list of registered threads and the lock guarding it.
 * A file of its own so that the hooks (runtime.c) and the writer (dump.c) both
 * depend on it and neither on the other's internals: runtime.c calls the writer,
 * the writer only reads this state (trace_internal.h).
 */
#include "trace_internal.h"

trace_config trace__config;
pthread_mutex_t trace__lock = PTHREAD_MUTEX_INITIALIZER;
trace_thread *trace__threads;
