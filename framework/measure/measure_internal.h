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

/* Makes room for `capacity` samples in every array in use (samples.c). */
int culprit_measure__samples_reserve(culprit_samples *s, size_t capacity);
/* Drops the first d samples of every array (a load test's warm-up intervals). */
void culprit_measure__samples_drop_front(culprit_samples *s, size_t d);
/*
 * After the sampling loop: leaves out the samples flagged in s->preempted_at, or
 * keeps them all when too few would be left (docs/measure.md, "Preempted samples").
 */
void culprit_measure__settle_preempted(culprit_samples *s, const culprit_measure_options *o);

#endif
