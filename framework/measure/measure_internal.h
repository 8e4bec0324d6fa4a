/*
 * What the files of the measure module share and nothing outside it uses.
 */
#ifndef CULPRIT_MEASURE_INTERNAL_H
#define CULPRIT_MEASURE_INTERNAL_H

#include "culprit/measure.h"

/*
 * The calling thread's counter sources, opened on first use and kept for the
 * thread's life (reopened in a forked child): counters.c. *out is borrowed.
 */
int culprit_measure__thread_counters(culprit_counters **out);

#endif
