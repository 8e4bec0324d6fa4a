/*
 * Perf tests of the sort example. Every repetition sorts a freshly shuffled array:
 * the shuffle runs in the per-repetition setup, untimed, so a sample is the sort
 * alone; the per-repetition teardown checks the result, untimed as well.
 *
 * sort_ints_5000 pins the application's sort: if a commit makes sort_ints() fall
 * back to insertion sort, it becomes about 50x slower, a major regression.
 * The other tests measure the algorithms themselves, for comparison.
 */
#include <culprit/culprit.h>

#include <stdint.h>
#include <stdlib.h>

#include "sorting.h"

#define N_SMALL 2000
#define N_LARGE 5000

typedef struct {
    size_t n;
    int *data;
    int *tmp;
    uint64_t seed; /* advances every repetition: each sorts a different permutation */
} sort_fixture;

static int fixture_create(void **state, size_t n)
{
    sort_fixture *fx = calloc(1, sizeof(*fx));

    if (!fx)
        return -1;
    fx->n = n;
    fx->seed = 42;
    fx->data = malloc(n * sizeof(*fx->data));
    fx->tmp = malloc(n * sizeof(*fx->tmp));
    if (!fx->data || !fx->tmp) {
        free(fx->data);
        free(fx->tmp);
        free(fx);
        return -1;
    }
    *state = fx;
    return 0;
}

static int setup_small(void **state)
{
    return fixture_create(state, N_SMALL);
}

static int setup_large(void **state)
{
    return fixture_create(state, N_LARGE);
}

static int fixture_free(void **state)
{
    sort_fixture *fx = *state;
    free(fx->data);
    free(fx->tmp);
    free(fx);
    return 0;
}

/* xorshift64: deterministic, so every run of the suite sorts the same inputs. */
static uint64_t next_random(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Per-repetition setup (untimed): a fresh random permutation of 0..n-1. */
static int shuffle(void **state)
{
    sort_fixture *fx = *state;

    for (size_t i = 0; i < fx->n; i++)
        fx->data[i] = (int)i;
    for (size_t i = fx->n - 1; i > 0; i--) {
        size_t j = next_random(&fx->seed) % (i + 1);
        int t = fx->data[i];
        fx->data[i] = fx->data[j];
        fx->data[j] = t;
    }
    return 0;
}

/* Per-repetition teardown (untimed): a non-zero return fails the test. */
static int check_sorted(void **state)
{
    sort_fixture *fx = *state;
    return sort_is_sorted(fx->data, fx->n) && fx->data[0] == 0 ? 0 : -1;
}

static void sort_insertion_2000(void **state)
{
    sort_fixture *fx = *state;
    sort_insertion(fx->data, fx->n);
}

static void sort_merge_2000(void **state)
{
    sort_fixture *fx = *state;
    sort_merge(fx->data, fx->n, fx->tmp);
}

static void sort_qsort_2000(void **state)
{
    sort_fixture *fx = *state;
    sort_qsort(fx->data, fx->n);
}

static void sort_ints_5000(void **state)
{
    sort_fixture *fx = *state;
    assert_int_equal(sort_ints(fx->data, fx->n), 0);
}

#define SORT_TEST(f, setup_fn, ...)                                                                \
    culprit_perf_test(f, .setup = setup_fn, .teardown = fixture_free, .rep_setup = shuffle,        \
                      .rep_teardown = check_sorted, __VA_ARGS__)

int main(int argc, char **argv)
{
    static const culprit_perf_test tests[] = {
        SORT_TEST(sort_insertion_2000, setup_small, .repetitions = 20),
        SORT_TEST(sort_merge_2000, setup_small, .repetitions = 50),
        SORT_TEST(sort_qsort_2000, setup_small, .repetitions = 50),
        SORT_TEST(sort_ints_5000, setup_large, .target_ci = 0.02, .max_repetitions = 500,
                  .budget_s = 1.0, .category = "fast"),
    };
    return culprit_run_group(tests, argc, argv);
}
