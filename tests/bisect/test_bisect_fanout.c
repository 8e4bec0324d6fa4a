/*
 * Tests of the fanned-out bisection's planning (framework/bisect/fanout.c) with
 * synthetic state: a tiny repository (bisect_repo.h) gives the commits, and the
 * probes' records are planted in a history directory as a probe writes them
 * (culprit_bisect__fanout_record_write), with the verdict a planted culprit implies
 * (bad: the culprit is an ancestor of the commit, or the commit itself). Nothing is
 * built or run. Each test drives culprit_bisect_fanout_state() round after round as
 * the CI recipe and --jobs do: plan, record, plan again.
 */
#include "support/test.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bisect/bisect_internal.h"
#include "bisect_repo.h"
#include "culprit/core.h"
#include "support/tmpdir.h"

typedef struct {
    repo_fixture repo;
    spec specs[MAXC];
    culprit_bisect_options opts;
    char hist[PATH_MAX + 32];
    int nhist;
    culprit_history_source *src;
} world;

static int setup(void **state)
{
    world *w = calloc(1, sizeof(*w));

    assert_non_null(w);
    assert_int_equal(culprit_bisect_options_init(&w->opts, CULPRIT_BISECT_OPTIONS_VERSION), 0);
    w->opts.command.line = "true";
    *state = w;
    return 0;
}

static int teardown(void **state)
{
    world *w = *state;

    culprit_history_source_free(w->src);
    if (w->repo.n)
        repo_remove(&w->repo);
    free(w);
    return 0;
}

static void make(world *w, size_t n)
{
    repo_make(&w->repo, w->specs, n);
    w->opts.measure.repository = w->repo.dir;
    w->opts.good = w->repo.sha[0];
    w->opts.bad = w->repo.sha[n - 1];
}

/* A linear history 0..n-1, every commit writing `path`. */
static void linear(world *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        w->specs[i] = (spec){(int)i - 1, -1, "src/a.c"};
    make(w, n);
}

/* A fresh history directory: a new bisection's records (nothing recorded yet). */
static void fresh_history(world *w)
{
    culprit_history_source_free(w->src);
    snprintf(w->hist, sizeof(w->hist), "%s/history-%d", w->repo.dir, w->nhist++);
    assert_int_equal(culprit_history_source_open(&w->src, w->hist, NULL, CULPRIT_HISTORY_FROM_DIR),
                     0);
}

static int index_of(const world *w, const char *sha)
{
    for (size_t i = 0; i < w->repo.n; i++)
        if (strcmp(w->repo.sha[i], sha) == 0)
            return (int)i;
    fail_msg("%s is no commit of the fixture", sha);
    return -1;
}

/* Is `a` an ancestor of `c`, or `c` itself? */
static int reaches(const world *w, int c, int a)
{
    if (c < 0)
        return 0;
    return c == a || reaches(w, w->specs[c].p0, a) || reaches(w, w->specs[c].p1, a);
}

static void state_of(world *w, size_t k, culprit_fanout_state *st)
{
    culprit_fanout_options fo = CULPRIT_FANOUT_OPTIONS_INIT;

    fo.k = k;
    fo.history = w->src;
    fo.record_dir = w->hist;
    assert_int_equal(culprit_bisect_fanout_state(st, &w->opts, &fo), 0);
}

/* Plants the record of commit `c` in the round `st` planned, as a probe writes it. */
static void record(world *w, const culprit_fanout_state *st, int c, culprit_bisect_verdict v)
{
    culprit_fanout_record r;

    memset(&r, 0, sizeof(r));
    memcpy(r.sha, w->repo.sha[c], 41);
    r.verdict = v;
    r.round = st->round;
    r.change = v == CULPRIT_BISECT_BAD ? 0.5 : v == CULPRIT_BISECT_GOOD ? 0.0 : NAN;
    r.change_low = r.change_high = r.change;
    r.pairs = 3;
    assert_int_equal(culprit_bisect__fanout_record_write(&r, st->key, w->hist), 0);
    culprit_bisect_fanout_record_dispose(&r);
}

/* Rounds of k probes until the records decide, the culprit `culprit` planted;
 * `trace` gets each round's plan ("1 2 3|4 5|" by index); the rounds taken. Fails
 * when a plan names a commit twice, one already recorded, or one `skip` forbids. */
static size_t drive(world *w, size_t k, int culprit, const int *skip, char *trace, size_t size)
{
    culprit_fanout_state st;
    unsigned char recorded[MAXC] = {0};
    size_t rounds = 0, used = 0;

    fresh_history(w);
    if (trace)
        trace[0] = '\0';
    for (;;) {
        state_of(w, k, &st);
        assert_int_equal(st.round, rounds + 1);
        if (st.status != CULPRIT_BISECT_RUNNING)
            break;
        assert_true(st.nplan >= 1 && st.nplan <= k);
        for (size_t i = 0; i < st.nplan; i++) {
            int c = index_of(w, st.plan[i]);
            assert_false(recorded[c]);
            assert_false(skip && skip[c]);
            recorded[c] = 1;
            if (trace)
                used += (size_t)snprintf(trace + used, size - used, "%s%d", i ? " " : "", c);
            record(w, &st, c, reaches(w, c, culprit) ? CULPRIT_BISECT_BAD : CULPRIT_BISECT_GOOD);
        }
        if (trace)
            used += (size_t)snprintf(trace + used, size - used, "|");
        culprit_bisect_fanout_state_dispose(&st);
        rounds++;
        assert_true(rounds < 40);
    }
    assert_int_equal(st.status, CULPRIT_BISECT_FOUND);
    assert_string_equal(st.culprit, w->repo.sha[culprit]);
    culprit_bisect_fanout_state_dispose(&st);
    return rounds;
}

static size_t ceil_log(size_t n, size_t base)
{
    size_t r = 0;

    for (size_t p = 1; p < n; p *= base)
        r++;
    return r;
}

/* A (k+1)-ary split: k probes cut (good, bad] into k + 1 near-equal parts, and every
 * culprit is found in ceil(log_(k+1) N) rounds (test_bisect.c checks the split
 * itself over 1,024 commits). */
static void test_split_linear(void **state)
{
    world *w = *state;
    char trace[512];

    linear(w, 41); /* 40 commits in (0, 40] */
    drive(w, 3, 25, NULL, trace, sizeof(trace));
    assert_string_equal(trace, "10 20 30|22 25 27|23 24|");
    drive(w, 1, 25, NULL, trace, sizeof(trace));
    assert_string_equal(trace, "20|30|25|22|23|24|");
    for (size_t k = 1; k <= 7; k = 2 * k + 1) /* 1, 3, 7; each record is fsync'd */
        for (int c = 1; c <= 40; c += 13)
            assert_true(drive(w, k, c, NULL, NULL, 0) <= ceil_log(40, k + 1));
}

/* Merge-aware: a side branch merged back; every culprit, on either side, is found,
 * and a plan never names a commit whose verdict the records already imply. */
static void test_merge_aware(void **state)
{
    static const spec specs[] = {{-1, -1, "src/a.c"}, {0, -1, "src/a.c"}, {1, -1, "src/b.c"},
                                 {1, -1, "src/c.c"},  {3, -1, "src/c.c"}, {2, -1, "src/b.c"},
                                 {4, -1, "src/c.c"},  {5, 6, "src/b.c"},  {7, -1, "src/a.c"},
                                 {8, -1, "src/a.c"},  {6, -1, "src/c.c"}, {9, 10, "src/a.c"},
                                 {11, -1, "src/a.c"}};
    world *w = *state;
    char trace[512];

    memcpy(w->specs, specs, sizeof(specs));
    make(w, sizeof(specs) / sizeof(specs[0]));
    drive(w, 2, 4, NULL, trace, sizeof(trace));
    assert_string_equal(trace, "6 8|1 3|4|");
    for (int c = 1; c <= 12; c++)
        assert_true(drive(w, 2, c, NULL, NULL, 0) <= ceil_log(12, 3) + 1);
}

/* --paths-aware: commits touching none of the paths are never planned, and are
 * counted; the culprit is a relevant commit. */
static void test_paths_aware(void **state)
{
    const char *paths[] = {"src"};
    world *w = *state;
    int docs[MAXC] = {0};
    char trace[512];
    culprit_fanout_state st;

    for (size_t i = 0; i < 25; i++) {
        docs[i] = i % 3 == 1 && i < 24; /* the bad end is measured whatever it touches */
        w->specs[i] = (spec){(int)i - 1, -1, i % 3 == 1 ? "docs/x.md" : "src/a.c"};
    }
    make(w, 25);
    w->opts.paths = paths;
    w->opts.npaths = 1;
    fresh_history(w);
    state_of(w, 3, &st);
    assert_int_equal(st.nirrelevant, 8);
    culprit_bisect_fanout_state_dispose(&st);
    drive(w, 3, 12, docs, trace, sizeof(trace));
    assert_string_equal(trace, "6 12 18|8 9 11|");
    for (int c = 2; c <= 24; c += 3) /* relevant commits only */
        if (!docs[c])
            drive(w, 3, c, docs, NULL, 0);
}

/* A probe that recorded nothing (interrupted, its good end failed) is planned again,
 * never guessed: the candidates are what the records alone leave. Records of another
 * bisection (another threshold: another key) do not count, and a skipped commit is
 * not planned again. */
static void test_interrupted_replanned(void **state)
{
    world *w = *state;
    culprit_fanout_state st, again;
    int a, b, c;

    linear(w, 41);
    fresh_history(w);
    state_of(w, 1, &st); /* round 1, one probe: interrupted */
    state_of(w, 1, &again);
    assert_int_equal(again.round, 1);
    assert_int_equal(again.nplan, 1);
    assert_string_equal(again.plan[0], st.plan[0]);
    culprit_bisect_fanout_state_dispose(&again);
    culprit_bisect_fanout_state_dispose(&st);

    state_of(w, 3, &st); /* round 1, three probes: the middle one interrupted */
    a = index_of(w, st.plan[0]), b = index_of(w, st.plan[1]), c = index_of(w, st.plan[2]);
    record(w, &st, a, CULPRIT_BISECT_GOOD);
    record(w, &st, c, CULPRIT_BISECT_BAD);
    culprit_bisect_fanout_state_dispose(&st);
    state_of(w, 3, &st);
    assert_int_equal(st.status, CULPRIT_BISECT_RUNNING);
    assert_int_equal(st.round, 2);
    assert_int_equal(st.nrecords, 2);
    assert_int_equal(st.ncandidates, (size_t)(c - a)); /* (a, c]: b decided nothing */
    int planned_b = 0;
    for (size_t i = 0; i < st.nplan; i++)
        planned_b |= index_of(w, st.plan[i]) == b;
    assert_true(planned_b);

    /* b skipped (it does not build): never planned again */
    record(w, &st, b, CULPRIT_BISECT_SKIP);
    culprit_bisect_fanout_state_dispose(&st);
    state_of(w, 3, &st);
    for (size_t i = 0; i < st.nplan; i++)
        assert_int_not_equal(index_of(w, st.plan[i]), b);
    culprit_bisect_fanout_state_dispose(&st);

    w->opts.measure.threshold = 0.5; /* another bisection: none of these records */
    state_of(w, 3, &st);
    assert_int_equal(st.nrecords, 0);
    assert_int_equal(st.round, 1);
    assert_int_equal(st.ncandidates, 40);
    culprit_bisect_fanout_state_dispose(&st);
}

/* A counted probe's record keeps the good end's count (a later probe takes it instead
 * of building and counting the good end again); a timed probe's record has none. */
static void test_good_count_recorded(void **state)
{
    world *w = *state;
    culprit_fanout_state st;
    culprit_fanout_record r;

    linear(w, 9);
    fresh_history(w);
    state_of(w, 3, &st);
    memset(&r, 0, sizeof(r));
    memcpy(r.sha, st.plan[0], 41);
    r.round = st.round;
    r.change = r.change_low = r.change_high = 0;
    r.good_count = 123456789.0;
    assert_int_equal(culprit_bisect__fanout_record_write(&r, st.key, w->hist), 0);
    culprit_bisect_fanout_record_dispose(&r);
    record(w, &st, index_of(w, st.plan[1]), CULPRIT_BISECT_GOOD); /* timed: none */
    culprit_bisect_fanout_state_dispose(&st);
    state_of(w, 3, &st);
    assert_int_equal(st.nrecords, 2);
    assert_true(st.records[0].good_count == 123456789.0);
    assert_true(st.records[1].good_count == 0);
    assert_int_equal(st.round, 2);
    culprit_bisect_fanout_state_dispose(&st);
}

/* ---- the end on this runner, through a planted probe ---- */

/* A probe of exact counts: commit c counts count[c] (instructions), built on demand. */
typedef struct {
    const world *w;
    double count[MAXC];
    char on[2][41];
    /* Timed (a command's time, not a count): each run carries a tiny jitter, and the
     * first burst[c] runs of commit c are burst_slow slower. */
    int timed, burst[MAXC], calls[MAXC];
    double burst_slow;
    size_t nruns;
} counter;

static int counter_build(void *payload, culprit_vcs *repo, culprit_bisect__side side,
                         const char *sha, int *built)
{
    counter *f = payload;

    (void)repo;
    *built = strcmp(f->on[side], sha) != 0;
    memcpy(f->on[side], sha, 41);
    return 0;
}

static int counter_measure(void *payload, culprit_bisect__side side, const char *sha, double *value)
{
    counter *f = payload;

    static const double jitter[7] = {0.010, -0.007, 0.004, -0.011, 0.009, -0.002, 0.005};
    int c = index_of(f->w, sha);
    double rel = f->timed ? jitter[f->nruns++ % 7] : 0;

    assert_string_equal(f->on[side], sha);
    if (f->calls[c] < f->burst[c]) /* slower, and noisy: alternately more and less */
        rel += f->burst_slow * (f->calls[c] % 2 ? 0.4 : 1.6);
    f->calls[c]++;
    *value = f->count[c] * (1 + rel);
    return 0;
}

static void counter_swap(void *payload)
{
    counter *f = payload;
    char t[41];

    memcpy(t, f->on[0], 41);
    memcpy(f->on[0], f->on[1], 41);
    memcpy(f->on[1], t, 41);
}

/* A linear world of n commits judged by instructions, the counts 1000 before
 * `culprit`, 1500 from it on (x1.5: far above any threshold). */
static void counted_world(world *w, counter *f, culprit_bisect__probe *p, size_t n, int culprit)
{
    linear(w, n);
    fresh_history(w);
    w->opts.command.line = NULL;
    w->opts.perf.run = "planted";
    w->opts.perf.test = "s.t";
    w->opts.perf.metric = "instructions";
    memset(f, 0, sizeof(*f));
    f->w = w;
    for (size_t i = 0; i < n; i++)
        f->count[i] = (int)i < culprit ? 1000 : 1500;
    *p = (culprit_bisect__probe){
        counter_build, counter_measure, NULL, NULL, counter_swap, NULL, NULL, f, NULL};
}

/* The end on this runner through the planted probe: the culprit it gives (an index),
 * -1 for none; *backtracks the rejected answers. */
static int finish(world *w, const culprit_bisect__probe *p, size_t *backtracks)
{
    culprit_fanout_state st;
    culprit_bisect_result r;
    int c = -1;

    state_of(w, 3, &st);
    assert_int_equal(st.status, CULPRIT_BISECT_FOUND);
    if (culprit_bisect__fanout_finish_with(&r, &w->opts, &st, p) < 0)
        fail_msg("finish failed: %s", culprit_error_last());
    if (r.outcome == CULPRIT_BISECT_RESULT_FOUND)
        c = index_of(w, r.culprit);
    *backtracks = r.backtracks;
    assert_string_equal(r.good, w->repo.sha[0]); /* the whole range's ends */
    assert_string_equal(r.bad, w->repo.sha[w->repo.n - 1]);
    culprit_bisect_result_dispose(&r);
    culprit_bisect_fanout_state_dispose(&st);
    return c;
}

/* One misjudging record (planted: round 1 probes 4, 8, 12, round 2 probes 9, 10, 11;
 * `wrong` judged the other way) makes the probes' answer wrong; the end on this
 * runner rejects it against its parent and bisects the range the other records leave
 * again: the culprit is found either way the record erred (the answer's parent
 * called good, the answer called bad). */
static void test_misjudged_record_searched_again(void **state)
{
    static const struct {
        int culprit, wrong, answer;
    } cases[] = {{9, 9, 10}, {11, 10, 10}, {5, 8, 9}};
    world *w = *state;
    counter f;
    culprit_bisect__probe p;
    culprit_fanout_state st;
    size_t backtracks;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const int rounds[2][3] = {{4, 8, 12}, {9, 10, 11}};
        counted_world(w, &f, &p, 16, cases[i].culprit);
        for (int round = 0; round < 2; round++) {
            state_of(w, 3, &st);
            for (int j = 0; j < 3; j++) {
                int c = rounds[round][j], bad = c >= cases[i].culprit;
                if (c == cases[i].wrong)
                    bad = !bad;
                record(w, &st, c, bad ? CULPRIT_BISECT_BAD : CULPRIT_BISECT_GOOD);
            }
            culprit_bisect_fanout_state_dispose(&st);
        }
        state_of(w, 3, &st);
        assert_string_equal(st.culprit, w->repo.sha[cases[i].answer]); /* the wrong answer */
        culprit_bisect_fanout_state_dispose(&st);
        assert_int_equal(finish(w, &p, &backtracks), cases[i].culprit);
        assert_true(backtracks >= 1);
        repo_remove(&w->repo);
        w->repo.n = 0;
    }
}

/* A timed answer whose first runs were slow (the machine's noise: a probe judged it
 * slower than the good end, and the first check against its parent too) but its
 * confirmation in runs of its own does not show it slower: rejected as well, and
 * the range searched again on this runner. */
static void test_unconfirmed_answer_searched_again(void **state)
{
    world *w = *state;
    counter f;
    culprit_bisect__probe p;
    culprit_fanout_state st;
    size_t backtracks;
    const int goods[] = {4, 5, 6, 7}, bads[] = {8, 12};

    counted_world(w, &f, &p, 16, 11);
    w->opts.perf.run = w->opts.perf.test = w->opts.perf.metric = NULL;
    w->opts.command.line = "planted";
    f.timed = 1;
    f.burst[8] = 10; /* the first check's runs: +8% (+3% and +13% by turns) */
    f.burst_slow = 0.08;
    state_of(w, 3, &st);
    for (size_t i = 0; i < 4; i++)
        record(w, &st, goods[i], CULPRIT_BISECT_GOOD);
    for (size_t i = 0; i < 2; i++)
        record(w, &st, bads[i], CULPRIT_BISECT_BAD);
    culprit_bisect_fanout_state_dispose(&st);
    assert_int_equal(finish(w, &p, &backtracks), 11);
    assert_true(backtracks >= 1);
}

/* A hostile record (anyone who can push to the shared ref can write one) with a false
 * good end's count: every later counted probe takes it and judges every commit slower,
 * so the probes' answer is wrong; the end on this runner counts both ends itself,
 * rejects it, and bisects again there: the planted count changes the path, never the
 * answer. */
static void test_hostile_good_count(void **state)
{
    world *w = *state;
    counter f;
    culprit_bisect__probe p;
    culprit_fanout_options fo = CULPRIT_FANOUT_OPTIONS_INIT;
    culprit_fanout_state st;
    culprit_fanout_record r;
    size_t backtracks, rounds = 0;

    counted_world(w, &f, &p, 16, 11);
    state_of(w, 3, &st);
    memset(&r, 0, sizeof(r));
    memcpy(r.sha, w->repo.sha[1], 41);
    r.verdict = CULPRIT_BISECT_GOOD;
    r.round = 1;
    r.good_count = 1; /* the good end counts 1000 */
    assert_int_equal(culprit_bisect__fanout_record_write(&r, st.key, w->hist), 0);
    culprit_bisect_fanout_record_dispose(&r);
    culprit_bisect_fanout_state_dispose(&st);
    fo.k = 3;
    fo.history = w->src;
    fo.record_dir = w->hist;
    for (;; rounds++) {
        assert_true(rounds < 10);
        state_of(w, 3, &st);
        if (st.status != CULPRIT_BISECT_RUNNING)
            break;
        for (size_t i = 0; i < st.nplan; i++) {
            memset(f.on, 0, sizeof(f.on));
            assert_int_equal(culprit_bisect__fanout_probe_with(&r, &w->opts, &fo, st.plan[i], &p),
                             0);
            assert_int_equal(r.verdict, CULPRIT_BISECT_BAD); /* misled: 1000 / 1 */
            culprit_bisect_fanout_record_dispose(&r);
        }
        culprit_bisect_fanout_state_dispose(&st);
    }
    assert_int_equal(st.status, CULPRIT_BISECT_FOUND);
    assert_string_not_equal(st.culprit, w->repo.sha[11]); /* the records' answer is wrong */
    culprit_bisect_fanout_state_dispose(&st);
    memset(f.on, 0, sizeof(f.on));
    assert_int_equal(finish(w, &p, &backtracks), 11);
    assert_true(backtracks >= 1);
}

int main(void)
{
    /* Every record is fsync'd (core/fs.c): on tmpfs that costs nothing, so the test
     * stays quick on a loaded disk. */
    if (access("/dev/shm", W_OK | X_OK) == 0)
        setenv("TMPDIR", "/dev/shm", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_split_linear, setup, teardown),
        cmocka_unit_test_setup_teardown(test_merge_aware, setup, teardown),
        cmocka_unit_test_setup_teardown(test_paths_aware, setup, teardown),
        cmocka_unit_test_setup_teardown(test_interrupted_replanned, setup, teardown),
        cmocka_unit_test_setup_teardown(test_good_count_recorded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_misjudged_record_searched_again, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hostile_good_count, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unconfirmed_answer_searched_again, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
