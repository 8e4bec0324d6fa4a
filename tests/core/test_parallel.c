/* Tests of framework/core/parallel.c: culprit_parallel_for() calls every index once,
 * on more than one thread when CULPRIT_THREADS allows (one index waits until another
 * thread has run one: with a single thread it would wait forever, so it gives up and
 * the test fails), in order on the caller with CULPRIT_THREADS=1, with every signal
 * blocked on the other threads; a bad CULPRIT_THREADS is refused, nothing called. */
#include "support/test.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "culprit/core.h"

enum { N = 20000 };

typedef struct {
    pthread_t caller;
    atomic_int calls[N];
    pthread_t by[N];
    atomic_int elsewhere; /* indices run on another thread than the caller */
    atomic_int blocked;   /* of them, with SIGINT and SIGTERM blocked */
    size_t order[N];
    atomic_size_t norder;
    int wait;       /* index 0, on the caller, waits for another thread's work */
    int waited_out; /* and gave up */
} record;

static void note(size_t i, void *arg)
{
    record *r = arg;
    sigset_t mask;

    atomic_fetch_add(&r->calls[i], 1);
    r->by[i] = pthread_self();
    r->order[atomic_fetch_add(&r->norder, 1)] = i;
    if (!pthread_equal(r->by[i], r->caller)) {
        pthread_sigmask(SIG_BLOCK, NULL, &mask);
        if (sigismember(&mask, SIGINT) == 1 && sigismember(&mask, SIGTERM) == 1)
            atomic_fetch_add(&r->blocked, 1);
        atomic_fetch_add(&r->elsewhere, 1);
    } else if (i == 0 && r->wait) {
        /* The caller waits for another thread's work (up to 20 s on a loaded machine). */
        struct timespec pause = {0, 1000000};
        for (int k = 0; k < 20000 && atomic_load(&r->elsewhere) == 0; k++)
            nanosleep(&pause, NULL);
        r->waited_out = atomic_load(&r->elsewhere) == 0;
    }
}

static record *fresh(void)
{
    record *r = calloc(1, sizeof(*r));

    assert_non_null(r);
    r->caller = pthread_self();
    return r;
}

static void every_index_runs_once_on_several_threads(void **state)
{
    record *r = fresh();
    (void)state;

    r->wait = 1;
    setenv("CULPRIT_THREADS", "3", 1);
    assert_int_equal(culprit_parallel_for(N, note, r), 0);
    unsetenv("CULPRIT_THREADS");
    for (size_t i = 0; i < N; i++)
        assert_int_equal(atomic_load(&r->calls[i]), 1);
    assert_int_equal(atomic_load(&r->norder), N);
    if (pthread_equal(r->by[0], r->caller))
        assert_false(r->waited_out);
    assert_true(atomic_load(&r->elsewhere) > 0);
    /* Signals go to the caller: every other thread blocks them. */
    assert_int_equal(atomic_load(&r->blocked), atomic_load(&r->elsewhere));
    free(r);
}

static void one_thread_runs_in_order_on_the_caller(void **state)
{
    record *r = fresh();
    (void)state;

    setenv("CULPRIT_THREADS", "1", 1);
    assert_int_equal(culprit_parallel_for(N / 10, note, r), 0);
    unsetenv("CULPRIT_THREADS");
    assert_int_equal(atomic_load(&r->elsewhere), 0);
    for (size_t i = 0; i < N / 10; i++) {
        assert_int_equal(r->order[i], i);
        assert_true(pthread_equal(r->by[i], r->caller));
    }
    free(r);
}

static void bad_thread_counts_are_refused(void **state)
{
    const char *bad[] = {"0", "65", "-1", "2x", "x", " 2"};
    record *r = fresh();
    size_t n = 0;
    (void)state;

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        setenv("CULPRIT_THREADS", bad[i], 1);
        assert_int_equal(culprit_parallel_for(10, note, r), CULPRIT_EINVALID);
        assert_non_null(strstr(culprit_error_last(), "CULPRIT_THREADS"));
        assert_non_null(strstr(culprit_error_last(), bad[i]));
        assert_int_equal(culprit_parallel_threads(&n), CULPRIT_EINVALID);
    }
    assert_int_equal(atomic_load(&r->norder), 0);
    setenv("CULPRIT_THREADS", "64", 1);
    assert_int_equal(culprit_parallel_threads(&n), 0);
    assert_int_equal(n, 64);
    unsetenv("CULPRIT_THREADS");
    assert_int_equal(culprit_parallel_threads(&n), 0);
    assert_true(n >= 1 && n <= 4);
    assert_int_equal(culprit_parallel_for(0, note, r), 0);
    assert_int_equal(atomic_load(&r->norder), 0);
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_index_runs_once_on_several_threads),
        cmocka_unit_test(one_thread_runs_in_order_on_the_caller),
        cmocka_unit_test(bad_thread_counts_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
