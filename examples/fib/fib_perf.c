/*
 * Perf tests of the Fibonacci example (Heger et al. 2013, section 5.1): the unit
 * test reads the input value n from a configuration file and runs fib(n). A commit
 * that raises n in fib.conf, or slows fib() in fib.c, is a performance regression
 * culprit should find and blame.
 *
 * The configuration is FIB_CONFIG from the environment when set, otherwise the
 * fib.conf the build passed as FIB_CONFIG_FILE. The tests show the ways to measure:
 * fixed repetitions with an explicit category, adaptive repetitions with an
 * automatic category, a timed region inside a larger body, and a per-repetition
 * setup that runs untimed before every repetition.
 */
#include <culprit/culprit.h>

#include <stdlib.h>
#include <string.h>

#include "fib.h"

#ifndef FIB_CONFIG_FILE
#define FIB_CONFIG_FILE "fib.conf"
#endif

/* fib(n - TABLE_OFFSET) and below fill the table of fib_table: smaller than n, so that
 * the whole table costs about as much as one fib(n). */
#define TABLE_OFFSET 2
#define TABLE_MAX    94 /* fib(93) is the largest that fits in 64 bits */

typedef struct {
    unsigned int n;            /* from the configuration */
    unsigned int calls;        /* fib(n) computations per repetition */
    uint64_t expected;         /* fib(n), computed the fast way */
    uint64_t table[TABLE_MAX]; /* fib_table's output, poisoned before each repetition */
} fib_fixture;

static const char *config_path(void)
{
    const char *env = getenv("FIB_CONFIG");
    return env && *env ? env : FIB_CONFIG_FILE;
}

/* The reference the tests assert against: linear, so it costs nothing. */
static uint64_t fib_linear(unsigned int n)
{
    uint64_t a = 0, b = 1;
    while (n-- > 0) {
        uint64_t next = a + b;
        a = b;
        b = next;
    }
    return a;
}

/* Per-test setup (untimed): read the configuration once. */
static int read_config(void **state)
{
    fib_fixture *fx = calloc(1, sizeof(*fx));

    if (!fx)
        return -1;
    fib_settings config;

    if (fib_config_read(config_path(), &config) < 0 || config.n >= TABLE_MAX) {
        print_error("cannot read a valid 'n = <0..93>' (and 'calls = <1..>') from %s\n",
                    config_path());
        free(fx);
        return -1;
    }
    fx->n = config.n;
    fx->calls = config.calls;
    fx->expected = fib_linear(fx->n);
    *state = fx;
    return 0;
}

static int free_config(void **state)
{
    free(*state);
    return 0;
}

/* fib(n) for the configured n: the paper's test, a fixed number of repetitions. */
static void fib_config(void **state)
{
    fib_fixture *fx = *state;
    for (unsigned int i = 0; i < fx->calls; i++)
        assert_int_equal(fib(fx->n), fx->expected);
}

/* The same work, measured adaptively until the 99% CI is within 2% of the mean. */
static void fib_adaptive(void **state)
{
    fib_fixture *fx = *state;
    for (unsigned int i = 0; i < fx->calls; i++)
        assert_int_equal(fib(fx->n), fx->expected);
}

/* What the paper's unit test literally does, read the configuration and then run
 * fib(n), with only the fib(n) call timed: file I/O would be noise. */
static void fib_region(void **state)
{
    fib_settings config;
    uint64_t result = 0;
    (void)state;

    assert_int_equal(fib_config_read(config_path(), &config), 0);
    CULPRIT_REGION
    {
        result = fib(config.n);
    }
    assert_int_equal(result, fib_linear(config.n));
}

/* Per-repetition setup (untimed): poison the table, so each repetition must fill it. */
static void poison_table(fib_fixture *fx)
{
    memset(fx->table, 0xff, sizeof(fx->table));
}

static int fib_table_rep_setup(void **state)
{
    poison_table(*state);
    return 0;
}

/* Fills table[i] = fib(i) for i up to n - TABLE_OFFSET, then checks the last entry. */
static void fib_table(void **state)
{
    fib_fixture *fx = *state;
    unsigned int top = fx->n > TABLE_OFFSET ? fx->n - TABLE_OFFSET : 0;

    for (unsigned int i = 0; i <= top; i++)
        fx->table[i] = fib(i);
    assert_int_equal(fx->table[top], fib_linear(top));
}

int main(int argc, char **argv)
{
    static const culprit_perf_test tests[] = {
        culprit_perf_test(fib_config, .setup = read_config, .teardown = free_config,
                          .repetitions = 30, .category = "fast"),
        culprit_perf_test(fib_adaptive, .setup = read_config, .teardown = free_config,
                          .target_ci = 0.02, .min_repetitions = 20, .max_repetitions = 2000,
                          .budget_s = 1.0),
        culprit_perf_test(fib_region, .repetitions = 30),
        culprit_perf_test(fib_table, .setup = read_config, .teardown = free_config,
                          .rep_setup = fib_table_rep_setup, .repetitions = 30),
    };
    return culprit_run_group(tests, argc, argv);
}
