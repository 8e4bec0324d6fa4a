/*
 * Three ways to sort ints and the one the application uses (sort_ints). Small runs
 * go to insertion sort, which beats merge sort below a few dozen items; the
 * threshold is exactly the kind of constant a commit can get badly wrong.
 */
#include "sorting.h"

#include <stdlib.h>
#include <string.h>

/* Below this many items merge sort hands over to insertion sort. */
#define SMALL_RUN 16

void sort_insertion(int *a, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        int v = a[i];
        size_t j = i;
        while (j > 0 && a[j - 1] > v) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = v;
    }
}

void sort_merge(int *a, size_t n, int *tmp)
{
    size_t half = n / 2, i = 0, j = half, k = 0;

    if (n <= SMALL_RUN) {
        sort_insertion(a, n);
        return;
    }
    sort_merge(a, half, tmp);
    sort_merge(a + half, n - half, tmp);
    while (i < half && j < n)
        tmp[k++] = a[j] < a[i] ? a[j++] : a[i++];
    while (i < half)
        tmp[k++] = a[i++];
    /* a[j..n) is already in place. */
    memcpy(a, tmp, k * sizeof(*a));
}

static int compare_ints(const void *pa, const void *pb)
{
    int a = *(const int *)pa, b = *(const int *)pb;
    return (a > b) - (a < b);
}

void sort_qsort(int *a, size_t n)
{
    qsort(a, n, sizeof(*a), compare_ints);
}

int sort_ints(int *a, size_t n)
{
    int *tmp;

    if (n <= SMALL_RUN) {
        sort_insertion(a, n);
        return 0;
    }
    tmp = malloc(n * sizeof(*tmp));
    if (!tmp)
        return -1;
    sort_merge(a, n, tmp);
    free(tmp);
    return 0;
}

int sort_is_sorted(const int *a, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (a[i - 1] > a[i])
            return 0;
    return 1;
}
