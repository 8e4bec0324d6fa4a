/*
 * sorting: the system under test of the sort example. sort_ints() is what the
 * application calls; which algorithm it uses is the choice a commit can get wrong
 * (insertion sort is fine for a few dozen items and quadratic beyond).
 */
#ifndef SORTING_H
#define SORTING_H

#include <stddef.h>

/** Sorts ascending with insertion sort: O(n^2) comparisons, O(1) extra memory. */
void sort_insertion(int *a, size_t n);

/** Sorts ascending with a top-down merge sort: O(n log n); `tmp` holds n ints. */
void sort_merge(int *a, size_t n, int *tmp);

/** Sorts ascending with the C library's qsort(). */
void sort_qsort(int *a, size_t n);

/**
 * Sorts ascending; the function the application uses. Returns 0, or -1 when it
 * could not allocate its scratch memory (a is then unchanged).
 */
int sort_ints(int *a, size_t n);

/** 1 when a[0..n) is in ascending order. */
int sort_is_sorted(const int *a, size_t n);

#endif
