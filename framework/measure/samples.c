/*
 * The arrays of a measurement's samples: growing them together, dropping a load
 * test's warm-up intervals, and leaving out the samples during which the process
 * was preempted.
 */
#include "measure_internal.h"
#include "culprit/core.h"

#include <stdlib.h>
#include <string.h>

static int grow_array(double **array, size_t capacity)
{
    double *p = realloc(*array, capacity * sizeof(double));

    if (!p)
        return culprit_error_set(CULPRIT_ERROR, "out of memory (%zu samples)", capacity);
    *array = p;
    return 0;
}

int culprit_measure__samples_reserve(culprit_samples *s, size_t capacity)
{
    int error;

    if (capacity <= s->capacity)
        return 0;
    if (capacity > SIZE_MAX / sizeof(double))
        return culprit_error_set(CULPRIT_ERROR, "too many samples (%zu)", capacity);
    if ((error = grow_array(&s->wall_ns, capacity)) < 0 ||
        (error = grow_array(&s->cpu_ns, capacity)) < 0)
        return error;
    unsigned char *flags = realloc(s->preempted_at, capacity);
    if (!flags)
        return culprit_error_set(CULPRIT_ERROR, "out of memory (%zu samples)", capacity);
    s->preempted_at = flags;
    for (int i = 0; i < CULPRIT_COUNTER__COUNT; i++)
        if (s->counters[i] && (error = grow_array(&s->counters[i], capacity)) < 0)
            return error;
    s->capacity = capacity;
    return 0;
}

void culprit_measure__samples_drop_front(culprit_samples *s, size_t d)
{
    size_t keep = s->n - d;

    memmove(s->wall_ns, s->wall_ns + d, keep * sizeof(double));
    memmove(s->cpu_ns, s->cpu_ns + d, keep * sizeof(double));
    memmove(s->preempted_at, s->preempted_at + d, keep);
    for (int j = 0; j < CULPRIT_COUNTER__COUNT; j++)
        if (s->counters[j])
            memmove(s->counters[j], s->counters[j] + d, keep * sizeof(double));
    s->n = keep;
}

/*
 * Leaves out the samples during which the process was preempted: on an
 * oversubscribed machine their wall time is mostly other processes' (docs/measure.md,
 * "Preempted samples"). Too few left (fewer than the repetitions asked for, than
 * min_repetitions, or than half of all samples) keeps them all, and says so; a fixed
 * count then keeps its first `repetitions` samples, as without the rule.
 */
void culprit_measure__settle_preempted(culprit_samples *s, const culprit_measure_options *o)
{
    size_t clean = 0, need = o->repetitions > 0 ? o->repetitions : o->min_repetitions, i, k = 0;

    for (i = 0; i < s->n; i++)
        clean += !s->preempted_at[i];
    s->preempted = s->n - clean;
    if (s->preempted == 0)
        return;
    if (o->keep_preempted || clean < need || clean < 1 || 2 * clean < s->n) {
        s->preempted_kept = 1;
        if (o->repetitions > 0 && s->n > o->repetitions) {
            s->n = o->repetitions;
            for (i = 0, s->preempted = 0; i < s->n; i++)
                s->preempted += s->preempted_at[i];
            s->preempted_kept = s->preempted > 0;
        }
        return;
    }
    for (i = 0; i < s->n; i++) {
        if (s->preempted_at[i])
            continue;
        s->wall_ns[k] = s->wall_ns[i];
        s->cpu_ns[k] = s->cpu_ns[i];
        s->preempted_at[k] = 0;
        for (int j = 0; j < CULPRIT_COUNTER__COUNT; j++)
            if (s->counters[j])
                s->counters[j][k] = s->counters[j][i];
        k++;
    }
    s->n = k;
}
