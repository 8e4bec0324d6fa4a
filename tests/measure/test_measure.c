/*
 * Tests of framework/measure. The loop is driven by a fake clock whose time moves
 * only when the test says so: every read costs `read_cost` ns and the body
 * "spends" a scripted number of ns. So each expected sample is exact and no test
 * depends on how fast this machine is.
 */
#include "support/test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "culprit/core.h"
#include "culprit/measure.h"
#include "culprit/stats.h"
#include "support/near.h"

/* ---- the fake clock and a scripted body --------------------------------------- */

typedef struct {
    uint64_t wall, cpu;
    uint64_t read_cost[3]; /* wall reads cost these in turn (a cycle of 3) */
    unsigned int reads;
} fake_clock;

static uint64_t fake_wall_ns(void *payload)
{
    fake_clock *f = payload;
    f->wall += f->read_cost[f->reads++ % 3];
    return f->wall;
}

static uint64_t fake_cpu_ns(void *payload)
{
    return ((fake_clock *)payload)->cpu;
}

typedef struct {
    fake_clock f;
    culprit_clock wall, cpu;
    culprit_measure_options opts;
    culprit_measure_callbacks cb;
    culprit_samples **outp; /* where the test asked culprit_measure_run to write */
    unsigned int calls;     /* body calls */
    unsigned int setups, teardowns;
    uint64_t cost;        /* each body call spends this much */
    uint64_t warmup_cost; /* ... or this much for the first `warmup_calls` */
    unsigned int warmup_calls;
    uint64_t noise; /* plus a uniform integer in [-noise, noise] */
    uint32_t rng;
    uint64_t stall;      /* contention: every other call also waits this long for a core */
    uint64_t stall_from; /* ... once the wall clock has reached this */
    unsigned int stall_every, stall_of; /* ... or the last stall_of calls of every stall_every */
    uint64_t switches; /* involuntary context switches: one per stall (the injected count) */
    culprit_count_source preemptions;
    uint64_t setup_cost;  /* setup and teardown each spend this */
    unsigned int fail_at; /* body call that returns non-zero (0: never) */
    int saw_out;          /* 1 when *outp was set when a callback first ran */
    jmp_buf *escape;      /* body longjmps here at fail_at when set */
} scenario;

static void spend(scenario *sc, uint64_t ns)
{
    sc->f.wall += ns;
    sc->f.cpu += ns;
}

static int body(void *payload)
{
    scenario *sc = payload;
    uint64_t cost;

    sc->calls++;
    if (sc->calls == 1)
        sc->saw_out = sc->outp && *sc->outp != NULL;
    cost = sc->calls <= sc->warmup_calls ? sc->warmup_cost : sc->cost;
    if (sc->noise) {
        /* Numerical Recipes' LCG: deterministic noise with a known spread. */
        sc->rng = sc->rng * 1664525u + 1013904223u;
        cost = cost - sc->noise + (sc->rng >> 8) % (2 * sc->noise + 1);
    }
    spend(sc, cost);
    if (sc->stall && sc->f.wall >= sc->stall_from &&
        (sc->stall_every ? sc->calls % sc->stall_every >= sc->stall_every - sc->stall_of
                         : sc->calls % 2)) {
        sc->f.wall += sc->stall; /* waiting for a core: wall time only */
        sc->switches++;
    }
    if (sc->fail_at && sc->calls == sc->fail_at) {
        if (sc->escape)
            longjmp(*sc->escape, 1);
        return 7;
    }
    return 0;
}

static uint64_t fake_switches(void *payload)
{
    return ((scenario *)payload)->switches;
}

static int setup(void *payload)
{
    scenario *sc = payload;
    if (sc->setups++ == 0 && sc->calls == 0)
        sc->saw_out = sc->outp && *sc->outp != NULL;
    spend(sc, sc->setup_cost);
    return 0;
}

static int teardown(void *payload)
{
    scenario *sc = payload;
    sc->teardowns++;
    spend(sc, sc->setup_cost);
    return 0;
}

static void scenario_init(scenario *sc, uint64_t read_cost, uint64_t cost)
{
    memset(sc, 0, sizeof(*sc));
    sc->f.read_cost[0] = sc->f.read_cost[1] = sc->f.read_cost[2] = read_cost;
    sc->wall.now_ns = fake_wall_ns;
    sc->wall.payload = &sc->f;
    sc->cpu.now_ns = fake_cpu_ns;
    sc->cpu.payload = &sc->f;
    assert_int_equal(culprit_measure_options_init(&sc->opts, CULPRIT_MEASURE_OPTIONS_VERSION), 0);
    sc->opts.clock = &sc->wall;
    sc->opts.cpu_clock = &sc->cpu;
    sc->opts.counters = 0;
    sc->cb.body = body;
    sc->cb.payload = sc;
    sc->cost = cost;
    sc->rng = 42;
    /* The tests of the precision rule count samples; the minimum time has its own. */
    sc->opts.min_time_s = 0;
}

/* 10 us +- 5 us, one iteration per sample: far too noisy to reach 1%. */
static void scenario_init_noisy(scenario *sc)
{
    scenario_init(sc, 25, 10000);
    sc->noise = 5000;
    sc->opts.batch = 1;
}

static int run(scenario *sc, culprit_samples **out)
{
    sc->outp = out;
    return culprit_measure_run(out, &sc->opts, &sc->cb);
}

/* Runs the scenario, which must succeed and stop for `stop`; returns the samples. */
static culprit_samples *run_ok(scenario *sc, culprit_stop_reason stop)
{
    culprit_samples *s = NULL;
    assert_int_equal(run(sc, &s), 0);
    assert_non_null(s);
    assert_int_equal(s->stop, stop);
    return s;
}

static void assert_all_samples(const double *x, size_t n, double expected)
{
    for (size_t i = 0; i < n; i++)
        assert_near(x[i], expected, 1e-9);
}

/* ---- tests --------------------------------------------------------------------- */

static void options_init_and_names(void **state)
{
    culprit_measure_options o, init = CULPRIT_MEASURE_OPTIONS_INIT;
    (void)state;
    assert_int_equal(culprit_measure_options_init(&o, CULPRIT_MEASURE_OPTIONS_VERSION), 0);
    assert_int_equal(o.version, init.version);
    assert_int_equal(o.repetitions, 0);
    assert_int_equal(o.max_repetitions, 100000);
    assert_int_equal(o.batch, 0);
    assert_int_equal(o.counters, 1);
    assert_near(o.budget_s, 5.0, 0);
    assert_near(o.min_sample_ns, 100000.0, 0);
    assert_null(o.clock);
    assert_null(o.cpu_clock);
    assert_int_equal(o.warmup, 1);
    assert_int_equal(o.min_repetitions, 10);
    assert_near(o.confidence, 0.99, 0);
    assert_near(o.target_ci, 0.01, 0);
    assert_near(o.min_time_s, 0.5, 0);
    assert_int_equal(culprit_measure_options_init(&o, 99), CULPRIT_EINVALID);
    assert_string_equal(culprit_measure_stop_reason_name(CULPRIT_STOP_PRECISION), "precision");
    assert_string_equal(culprit_measure_stop_reason_name(CULPRIT_STOP_FAILED), "failed");
    assert_string_equal(culprit_measure_counter_name(CULPRIT_COUNTER_MINFLT), "minflt");
    assert_string_equal(culprit_measure_counter_name(CULPRIT_COUNTER_INSTRUCTIONS), "instructions");
    assert_string_equal(culprit_measure_counter_name(CULPRIT_COUNTER__COUNT), "unknown");
}

static void bad_options_are_rejected(void **state)
{
    scenario sc;
    culprit_samples *s = (culprit_samples *)&sc;
    (void)state;
    scenario_init(&sc, 25, 100);
    sc.opts.confidence = 1.5;
    assert_int_equal(run(&sc, &s), CULPRIT_EINVALID);
    assert_null(s);
    scenario_init(&sc, 25, 100);
    sc.cb.body = NULL;
    assert_int_equal(run(&sc, &s), CULPRIT_EINVALID);
    assert_int_equal(sc.calls, 0);
}

static void overhead_is_the_median_of_back_to_back_reads(void **state)
{
    scenario sc;
    (void)state;
    scenario_init(&sc, 0, 0);
    /* Pairs read costs 10,10 / 700,10 / 10,700 ...: the differences cycle through
     * 10, 10, 700, so the median is 10 while the mean would be 240. */
    sc.f.read_cost[0] = 10;
    sc.f.read_cost[1] = 10;
    sc.f.read_cost[2] = 700;
    assert_near(culprit_measure_clock_overhead_ns(&sc.wall, 99), 10.0, 0);
    /* The real clocks: positive and finite, whatever their cost. */
    assert_true(culprit_measure_clock_overhead_ns(&culprit_clock_monotonic, 101) >= 0.0);
    assert_true(culprit_measure_clock_overhead_ns(&culprit_clock_cpu, 11) >= 0.0);
}

static void warmup_is_excluded_and_count_is_fixed(void **state)
{
    scenario sc;
    culprit_samples *s = NULL;
    (void)state;
    scenario_init(&sc, 25, 100);
    sc.opts.warmup = 3;
    sc.opts.repetitions = 5;
    sc.opts.batch = 1;
    sc.warmup_calls = 3; /* the first three calls are slow: cold caches */
    sc.warmup_cost = 100000;
    s = run_ok(&sc, CULPRIT_STOP_FIXED);
    assert_int_equal(s->n, 5);
    assert_int_equal(s->batch, 1);
    assert_int_equal(s->warmup, 3);
    assert_int_equal(sc.calls, 8);
    /* 100 ns each: the slow calls are gone, and the 25 ns clock read is taken off. */
    assert_all_samples(s->wall_ns, s->n, 100.0);
    assert_all_samples(s->cpu_ns, s->n, 100.0);
    assert_near(s->timer_overhead_ns, 25.0, 0);
    assert_true(s->elapsed_s > 0.0);
    assert_false(s->used_region);
    for (int i = 0; i < CULPRIT_COUNTER__COUNT; i++)
        assert_null(s->counters[i]); /* counters were off */
    culprit_measure_samples_free(s);
}

static void overhead_subtraction_clamps_at_zero(void **state)
{
    scenario sc;
    culprit_samples *s = NULL;
    culprit_welford w = {0};
    (void)state;
    /* Calibration sees reads of 40 ns mostly; some sample windows end with a 5 ns
     * read, so an empty body would come out at -35 ns without the clamp. */
    scenario_init(&sc, 0, 0);
    sc.f.read_cost[0] = 40;
    sc.f.read_cost[1] = 40;
    sc.f.read_cost[2] = 5;
    sc.opts.repetitions = 30;
    sc.opts.batch = 1;
    s = run_ok(&sc, CULPRIT_STOP_FIXED);
    assert_near(s->timer_overhead_ns, 40.0, 0);
    for (size_t i = 0; i < s->n; i++)
        culprit_stats_welford_add(&w, s->wall_ns[i]);
    assert_near(w.min, 0.0, 0);
    assert_true(w.max >= 0.0);
    culprit_measure_samples_free(s);
}

static void automatic_batching_reports_per_iteration(void **state)
{
    scenario sc;
    culprit_samples *s = NULL;
    (void)state;
    scenario_init(&sc, 20, 300);
    sc.opts.repetitions = 10;
    /* min_sample_ns is 100 us: 256 x 300 ns = 76.8 us is too short, 512 x 300 ns =
     * 153.6 us is enough, so k = 512 after batches of 1, 2, ..., 512 (1023
     * iterations) that count as warm-up with the one warm-up repetition. */
    s = run_ok(&sc, CULPRIT_STOP_FIXED);
    assert_int_equal(s->batch, 512);
    assert_int_equal(s->warmup, 1 + 1023);
    assert_int_equal(s->n, 10);
    assert_int_equal(sc.calls, 1 + 1023 + 10 * 512);
    assert_all_samples(s->wall_ns, s->n, 300.0);
    assert_all_samples(s->cpu_ns, s->n, 300.0);
    culprit_measure_samples_free(s);
}

static void fixed_batch_is_used_as_given(void **state)
{
    scenario sc;
    culprit_samples *s = NULL;
    (void)state;
    scenario_init(&sc, 20, 300);
    sc.opts.repetitions = 4;
    sc.opts.batch = 8;
    s = run_ok(&sc, CULPRIT_STOP_FIXED);
    assert_int_equal(s->batch, 8);
    assert_int_equal(sc.calls, 1 + 4 * 8);
    /* (8 x 300 + 20 - 20) / 8 */
    assert_all_samples(s->wall_ns, s->n, 300.0);
    culprit_measure_samples_free(s);
}

static void setup_and_teardown_are_untimed_and_force_batch_1(void **state)
{
    scenario sc;
    culprit_samples *s = NULL;
    (void)state;
    scenario_init(&sc, 25, 300);
    sc.setup_cost = 1000000;
    sc.cb.setup = setup;
    sc.cb.teardown = teardown;
    sc.opts.repetitions = 6;
    sc.opts.warmup = 2;
    s = run_ok(&sc, CULPRIT_STOP_FIXED);
    assert_int_equal(s->batch, 1); /* automatic batching would have picked 512 */
    assert_int_equal(s->n, 6);
    assert_int_equal(sc.setups, 2 + 6);
    assert_int_equal(sc.teardowns, 2 + 6);
    assert_int_equal(sc.calls, 2 + 6);
    assert_true(sc.saw_out); /* *out was set before setup first ran */
    assert_all_samples(s->wall_ns, s->n, 300.0);
    assert_all_samples(s->cpu_ns, s->n, 300.0);
    culprit_measure_samples_free(s);
}

static void adaptive_stops_when_ci_reaches_target(void **state)
{
    scenario sc;
    culprit_samples *s = NULL;
    culprit_summary sum;
    (void)state;
    /* 1000 ns +- uniform 86 ns: sd = 173 / sqrt(12) = 50 ns. A 99% half-width of
     * 1% (10 ns) needs n ~ (2.576 x 50 / 10)^2 ~ 166 samples. */
    scenario_init(&sc, 25, 1000);
    sc.noise = 86;
    sc.opts.batch = 1;
    s = run_ok(&sc, CULPRIT_STOP_PRECISION);
    assert_in_range(s->n, 100, 300);
    assert_int_equal(culprit_stats_summarize(&sum, s->wall_ns, s->n, 0.99), 0);
    assert_true(sum.ci_high - sum.mean <= 0.01 * sum.mean);
    assert_near(sum.mean, 1000.0, 15.0);
    assert_near(sum.sd, 50.0, 10.0);
    culprit_measure_samples_free(s);
}

static void adaptive_never_stops_before_min_repetitions(void **state)
{
    scenario sc;
    culprit_samples *s = NULL;
    (void)state;
    /* No noise at all: precise after 2 samples, but min_repetitions is 10. */
    scenario_init(&sc, 25, 1000);
    sc.opts.batch = 1;
    s = run_ok(&sc, CULPRIT_STOP_PRECISION);
    assert_int_equal(s->n, 10);
    culprit_measure_samples_free(s);
}

static void adaptive_stops_when_budget_is_spent(void **state)
{
    scenario sc;
    culprit_samples *s = NULL;
    (void)state;
    /* 10 us +- 5 us would need thousands of samples; the 10 ms budget allows
     * about 1000 (10 us + two 25 ns reads each, after 1 warm-up). */
    scenario_init_noisy(&sc);
    sc.opts.budget_s = 0.01;
    s = run_ok(&sc, CULPRIT_STOP_BUDGET);
    assert_in_range(s->n, 980, 1000);
    assert_true(s->elapsed_s >= 0.01 && s->elapsed_s < 0.0101);
    assert_true(s->capacity >= s->n);
    culprit_measure_samples_free(s);
}

static void adaptive_stops_at_max_repetitions(void **state)
{
    scenario sc;
    culprit_samples *s = NULL;
    (void)state;
    scenario_init_noisy(&sc);
    sc.opts.max_repetitions = 20;
    s = run_ok(&sc, CULPRIT_STOP_MAX);
    assert_int_equal(s->n, 20);
    culprit_measure_samples_free(s);
}

/*
 * A 1 ms body (+-2%) on a loaded machine: from `quiet_ns` on, every other call also
 * waits 2 ms for a core, so the honest mean is 2 ms. Returns the run's mean wall time
 * per iteration in ms, its stop reason in *stop.
 */
static double contended_run(uint64_t quiet_ns, double min_time_s, double budget_s,
                            culprit_stop_reason *stop)
{
    scenario sc;
    culprit_samples *s = NULL;
    culprit_summary sum;
    scenario_init(&sc, 25, 1000000);
    sc.noise = 20000;
    sc.opts.batch = 1;
    sc.stall = 2000000;
    sc.stall_from = quiet_ns;
    sc.opts.min_time_s = min_time_s;
    sc.opts.budget_s = budget_s;
    assert_int_equal(run(&sc, &s), 0);
    assert_int_equal(culprit_stats_summarize(&sum, s->wall_ns, s->n, 0.99), 0);
    *stop = s->stop;
    /* CPU time never sees the wait. */
    assert_true(fabs(s->cpu_ns[s->n - 1] - 1e6) <= 20000.0);
    culprit_measure_samples_free(s);
    return sum.mean / 1e6;
}

static void a_quiet_start_does_not_decide_the_value(void **state)
{
    culprit_stop_reason quiet_stop, busy_stop;
    double quiet, busy;
    (void)state;
    /* Without a minimum time (the loop before min_time_s): a run that starts with
     * 30 ms of quiet reaches 1% within them and reports the quiet cost; a run that
     * meets the contention at once goes on to the budget and reports it. The value
     * depends on which rule fired: 1 ms against 2 ms. */
    quiet = contended_run(30000000, 0, 5.0, &quiet_stop);
    busy = contended_run(0, 0, 5.0, &busy_stop);
    assert_int_equal(quiet_stop, CULPRIT_STOP_PRECISION);
    assert_int_equal(busy_stop, CULPRIT_STOP_BUDGET);
    assert_near(quiet, 1.0, 0.02);
    assert_near(busy, 2.0, 0.02);
    /* With the default minimum (0.5 s), both runs see the contention: the same value,
     * whatever the start. */
    quiet = contended_run(30000000, 0.5, 5.0, &quiet_stop);
    busy = contended_run(0, 0.5, 5.0, &busy_stop);
    assert_int_equal(quiet_stop, CULPRIT_STOP_BUDGET);
    assert_true(fabs(quiet / busy - 1) < 0.02);
    /* A machine quiet all along still stops for precision, once the samples span the
     * minimum: about 500 samples of 1 ms, the quiet cost. */
    quiet = contended_run(UINT64_MAX, 0.5, 5.0, &quiet_stop);
    assert_int_equal(quiet_stop, CULPRIT_STOP_PRECISION);
    assert_near(quiet, 1.0, 0.01);
    /* The budget wins over the minimum time. */
    contended_run(UINT64_MAX, 0.5, 0.1, &quiet_stop);
    assert_int_equal(quiet_stop, CULPRIT_STOP_BUDGET);
}

/*
 * A 1 ms body (+-20 us) on a machine where, from the start, the last `of` calls
 * of every `every` are preempted and wait 2 ms for a core (every = 0: never), the
 * switches counted by the injected source. Returns the mean of the samples kept
 * per iteration in ms; *s_out gets the samples (the caller frees them).
 */
static double preempted_run(unsigned int every, unsigned int of, int keep, unsigned int repetitions,
                            culprit_samples **s_out, scenario *sc)
{
    culprit_summary sum;
    scenario_init(sc, 25, 1000000);
    sc->noise = 20000;
    sc->opts.batch = 1;
    sc->opts.min_time_s = 0.5;
    sc->opts.repetitions = repetitions;
    sc->stall = every ? 2000000 : 0;
    sc->stall_every = every;
    sc->stall_of = of;
    sc->preemptions.count = fake_switches;
    sc->preemptions.payload = sc;
    sc->opts.preemptions = &sc->preemptions;
    sc->opts.keep_preempted = keep;
    assert_int_equal(run(sc, s_out), 0);
    assert_int_equal(culprit_stats_summarize(&sum, (*s_out)->wall_ns, (*s_out)->n, 0.99), 0);
    return sum.mean / 1e6;
}

static void preempted_samples_do_not_decide_the_value(void **state)
{
    culprit_samples *quiet = NULL, *busy = NULL;
    scenario sc;
    double q, b;
    (void)state;
    /* Judging every sample (the loop before this rule, --keep-preempted): a run in a
     * quiet phase stops for precision at the cost, 1 ms; a run in a busy phase, one
     * call in four preempted, runs to the budget and reports 1.5 ms. */
    q = preempted_run(0, 0, 1, 0, &quiet, &sc);
    b = preempted_run(4, 1, 1, 0, &busy, &sc);
    assert_int_equal(quiet->stop, CULPRIT_STOP_PRECISION);
    assert_int_equal(busy->stop, CULPRIT_STOP_BUDGET);
    assert_near(q, 1.0, 0.01);
    assert_near(b, 1.5, 0.03);
    assert_true(busy->preempted_kept && busy->preempted > busy->n / 5);
    culprit_measure_samples_free(quiet);
    culprit_measure_samples_free(busy);
    /* Leaving the preempted samples out (the default): the same value and the same
     * stop, whatever the phase; the samples left out are counted. */
    q = preempted_run(0, 0, 0, 0, &quiet, &sc);
    b = preempted_run(4, 1, 0, 0, &busy, &sc);
    assert_int_equal(quiet->stop, CULPRIT_STOP_PRECISION);
    assert_int_equal(busy->stop, CULPRIT_STOP_PRECISION);
    assert_true(fabs(q / b - 1) < 0.01);
    assert_int_equal(quiet->preempted, 0);
    assert_false(busy->preempted_kept);
    /* One call in four: a third as many left out as kept (+-1), none of them kept. */
    assert_true(labs((long)(3 * busy->preempted) - (long)busy->n) <= 3);
    for (size_t i = 0; i < busy->n; i++)
        assert_true(busy->wall_ns[i] < 1.1e6 && !busy->preempted_at[i]);
    culprit_measure_samples_free(quiet);
    culprit_measure_samples_free(busy);
}

static void preempted_samples_are_replaced_or_kept_and_said(void **state)
{
    culprit_samples *s = NULL;
    scenario sc;
    double v;
    (void)state;
    /* Two calls in three preempted: what is left is a minority of the samples, so the
     * run judges them all (mean 1 + 2 * 2/3 ms) and says it kept them. */
    v = preempted_run(3, 2, 0, 0, &s, &sc);
    assert_true(s->preempted_kept);
    assert_near(v, 1.0 + 2.0 * 2 / 3, 0.05);
    assert_true(labs((long)(3 * s->preempted) - (long)(2 * s->n)) <= 3);
    culprit_measure_samples_free(s);
    /* A fixed count, one call in four preempted (calls 3, 7, ..., 27; the warm-up call is the
     * first): 20 unpreempted samples after 27 sample calls, the 7 preempted replaced. */
    v = preempted_run(4, 1, 0, 20, &s, &sc);
    assert_int_equal(s->stop, CULPRIT_STOP_FIXED);
    assert_int_equal(s->n, 20);
    assert_near(v, 1.0, 0.02);
    assert_int_equal(s->preempted, 7);
    assert_false(s->preempted_kept);
    assert_int_equal(sc.calls, 1 + 27);
    culprit_measure_samples_free(s);
    /* Two in three: 40 samples taken, 13 unpreempted; the first 20 are kept as
     * they are, 13 of them preempted, and the run says so. */
    v = preempted_run(3, 2, 0, 20, &s, &sc);
    assert_int_equal(s->n, 20);
    assert_true(s->preempted_kept);
    assert_int_equal(sc.calls, 1 + 40);
    assert_int_equal(s->preempted, 13);
    culprit_measure_samples_free(s);
}

static void a_negative_min_time_is_rejected(void **state)
{
    scenario sc;
    culprit_samples *s = NULL;
    (void)state;
    scenario_init(&sc, 25, 1000);
    sc.opts.min_time_s = -1;
    assert_int_equal(run(&sc, &s), CULPRIT_EINVALID);
    assert_non_null(strstr(culprit_error_last(), "min_time_s"));
    sc.opts.min_time_s = NAN;
    assert_int_equal(run(&sc, &s), CULPRIT_EINVALID);
}

/* ---- regions -------------------------------------------------------------------- */

static int region_body(void *payload)
{
    scenario *sc = payload;
    sc->calls++;
    spend(sc, 1000); /* untimed preparation */
    CULPRIT_REGION
    {
        spend(sc, 10);
        CULPRIT_REGION
        {
            spend(sc, 20); /* nested: already inside the outer region */
        }
        spend(sc, 5);
    }
    spend(sc, 2000);
    culprit_measure_region_begin();
    spend(sc, 70);
    culprit_measure_region_end();
    culprit_measure_region_end(); /* unbalanced end: ignored */
    return 0;
}

static void regions_replace_the_body_time(void **state)
{
    scenario sc;
    culprit_samples *s = NULL;
    uint64_t wall;
    (void)state;
    scenario_init(&sc, 25, 0);
    sc.cb.body = region_body;
    sc.opts.repetitions = 5;
    sc.opts.batch = 4;
    s = run_ok(&sc, CULPRIT_STOP_FIXED);
    assert_true(s->used_region);
    /* Outer region 10 + 20 + 5, second region 70; each region's read is taken off. */
    assert_all_samples(s->wall_ns, s->n, 105.0);
    /* CPU time still covers the whole body. */
    assert_all_samples(s->cpu_ns, s->n, 3105.0);
    culprit_measure_samples_free(s);

    /* Outside a measurement regions do nothing: the clock is not even read. */
    wall = sc.f.wall;
    culprit_measure_region_begin();
    culprit_measure_region_end();
    assert_true(sc.f.wall == wall);
}

/* ---- failures --------------------------------------------------------------------- */

static void failing_body_stops_with_eskip(void **state)
{
    scenario sc;
    culprit_samples *s = NULL;
    (void)state;
    scenario_init(&sc, 25, 100);
    sc.opts.batch = 1;
    sc.opts.repetitions = 10;
    sc.fail_at = 6; /* 1 warm-up, samples 2..5, then the failure */
    assert_int_equal(run(&sc, &s), CULPRIT_ESKIP);
    assert_non_null(s);
    assert_true(sc.saw_out);
    assert_int_equal(s->stop, CULPRIT_STOP_FAILED);
    assert_int_equal(s->n, 4);
    assert_non_null(strstr(culprit_error_last(), "body returned 7"));
    culprit_measure_samples_free(s);

    /* Failing during the batch calibration is a failure too. */
    scenario_init(&sc, 25, 100);
    sc.fail_at = 3;
    assert_int_equal(run(&sc, &s), CULPRIT_ESKIP);
    assert_int_equal(s->stop, CULPRIT_STOP_FAILED);
    assert_int_equal(s->n, 0);
    culprit_measure_samples_free(s);
}

static void longjmp_out_of_the_body_leaves_out_to_the_caller(void **state)
{
    scenario sc;
    culprit_samples *volatile s = NULL;
    jmp_buf escape;
    uint64_t wall;
    (void)state;
    scenario_init(&sc, 25, 100);
    sc.opts.batch = 1;
    sc.fail_at = 4;
    sc.escape = &escape;
    sc.cb.body = body;
    /* What a failed CMocka assertion in the body does. */
    if (setjmp(escape) == 0) {
        run(&sc, (culprit_samples **)&s);
        fail_msg("the body should have jumped out");
    }
    assert_non_null(s);
    culprit_measure_samples_free(s);
    /* The abandoned measurement's regions ended with it. */
    wall = sc.f.wall;
    culprit_measure_region_begin();
    culprit_measure_region_end();
    assert_true(sc.f.wall == wall);
}

/* ---- counters --------------------------------------------------------------------- */

static void absent_counters_are_nan_never_an_error(void **state)
{
    culprit_counters *c = NULL;
    double v[CULPRIT_COUNTER__COUNT];
    (void)state;
    assert_int_equal(culprit_measure_counters_open(&c), 0);
    assert_non_null(c);
    culprit_measure_counters_read(c, v);
    for (int i = 0; i < CULPRIT_COUNTER__COUNT; i++) {
        int available = culprit_measure_counters_available(c, i);
        assert_true(available == 0 || available == 1);
        /* Available counters read a number, absent ones NAN: never anything else. */
        assert_int_equal(isnan(v[i]) != 0, !available);
    }
    /* getrusage is always there. */
    assert_true(culprit_measure_counters_available(c, CULPRIT_COUNTER_USER_NS));
    assert_true(v[CULPRIT_COUNTER_MAX_RSS_KB] > 0);
    assert_false(culprit_measure_counters_available(c, CULPRIT_COUNTER__COUNT));
    culprit_measure_counters_free(c);
    culprit_measure_counters_free(NULL);

    /* Without open sources only getrusage is read. */
    culprit_measure_counters_read(NULL, v);
    assert_false(isnan(v[CULPRIT_COUNTER_MINFLT]));
    assert_true(isnan(v[CULPRIT_COUNTER_INSTRUCTIONS]));
    assert_false(culprit_measure_counters_available(NULL, CULPRIT_COUNTER_CYCLES));
    assert_true(culprit_measure_counters_available(NULL, CULPRIT_COUNTER_NVCSW));
}

static void samples_have_arrays_exactly_for_available_counters(void **state)
{
    scenario sc;
    culprit_samples *s = NULL;
    culprit_counters *c = NULL;
    (void)state;
    assert_int_equal(culprit_measure_counters_open(&c), 0);
    scenario_init(&sc, 25, 100);
    sc.opts.counters = 1;
    sc.opts.repetitions = 3;
    sc.opts.batch = 1;
    s = run_ok(&sc, CULPRIT_STOP_FIXED);
    for (int i = 0; i < CULPRIT_COUNTER__COUNT; i++) {
        if (!culprit_measure_counters_available(c, i)) {
            assert_null(s->counters[i]);
            continue;
        }
        assert_non_null(s->counters[i]);
        for (size_t j = 0; j < s->n; j++)
            assert_false(isnan(s->counters[i][j]));
    }
    /* Deltas are never negative; max RSS is a level. */
    assert_true(s->counters[CULPRIT_COUNTER_MINFLT][0] >= 0);
    assert_true(s->counters[CULPRIT_COUNTER_MAX_RSS_KB][0] > 0);
    culprit_measure_samples_free(s);
    culprit_measure_counters_free(c);
}

static int spin(void *payload)
{
    volatile unsigned int *x = payload;
    for (int i = 0; i < 100; i++)
        *x += (unsigned int)i;
    return 0;
}

static int fail_at_once(void *payload)
{
    (void)payload;
    return 1;
}

/* rchar counts every read, including culprit's own reads of /proc/self/io: those
 * must not show up as the measured code's I/O. A known read must show exactly. */
static void read_bytes_count_the_code_not_the_counter_reads(void **state)
{
    culprit_counters *c = NULL;
    double a[CULPRIT_COUNTER__COUNT], b[CULPRIT_COUNTER__COUNT], d[CULPRIT_COUNTER__COUNT];
    char path[] = "/tmp/culprit-io-XXXXXX", block[4096] = {0};
    int fd;
    (void)state;
    assert_int_equal(culprit_measure_counters_open(&c), 0);
    if (!culprit_measure_counters_available(c, CULPRIT_COUNTER_READ_BYTES)) {
        culprit_measure_counters_free(c);
        skip();
    }
    culprit_measure_counters_read(c, a);
    culprit_measure_counters_read(c, b);
    assert_true(b[CULPRIT_COUNTER_READ_BYTES] - a[CULPRIT_COUNTER_READ_BYTES] == 0);
    assert_true((fd = mkstemp(path)) >= 0);
    assert_int_equal(write(fd, block, sizeof(block)), (int)sizeof(block));
    culprit_measure_counters_read(c, b);
    assert_int_equal(pread(fd, block, sizeof(block), 0), (int)sizeof(block));
    culprit_measure_counters_read(c, d);
    assert_true(d[CULPRIT_COUNTER_READ_BYTES] - b[CULPRIT_COUNTER_READ_BYTES] == 4096);
    assert_true(b[CULPRIT_COUNTER_WRITE_BYTES] - a[CULPRIT_COUNTER_WRITE_BYTES] == 4096);
    close(fd);
    unlink(path);
    culprit_measure_counters_free(c);
}

static void real_clocks_produce_samples(void **state)
{
    culprit_measure_options o = CULPRIT_MEASURE_OPTIONS_INIT;
    culprit_measure_callbacks cb = {spin, NULL, NULL, NULL};
    culprit_samples *s = NULL;
    volatile unsigned int x = 0;
    (void)state;
    cb.payload = (void *)&x;
    o.repetitions = 5;
    o.min_sample_ns = 10000;
    assert_int_equal(culprit_measure_run(&s, &o, &cb), 0);
    assert_int_equal(s->n, 5);
    assert_true(s->batch >= 1);
    for (size_t i = 0; i < s->n; i++)
        assert_true(s->wall_ns[i] >= 0.0 && s->cpu_ns[i] >= 0.0);
    culprit_measure_samples_free(s);
    /* NULL options mean the defaults (adaptive, up to 5 s: a body that fails at
     * once keeps this test short). */
    cb.body = fail_at_once;
    assert_int_equal(culprit_measure_run(&s, NULL, &cb), CULPRIT_ESKIP);
    assert_int_equal(s->stop, CULPRIT_STOP_FAILED);
    assert_int_equal(s->n, 0);
    culprit_measure_samples_free(s);
}

/* ---- load-test mode -------------------------------------------------------------- */

static void load_test_cuts_the_warm_up_and_samples_per_interval(void **state)
{
    scenario sc;
    culprit_samples *s = NULL;
    (void)state;
    /* Clock reads cost nothing (overhead 0); 2000 warm-up calls of 30 us, then 10 us
     * each, for 1 s in intervals of 10 ms: about 100 intervals, the first 6 slow or
     * mixed (2000 x 30 us = 60 ms). */
    scenario_init(&sc, 0, 10000);
    sc.warmup_calls = 2000;
    sc.warmup_cost = 30000;
    sc.opts.warmup = 0;
    sc.opts.duration_s = 1.0;
    sc.opts.interval_s = 0.01;
    assert_int_equal(run(&sc, &s), 0);
    assert_int_equal(s->stop, CULPRIT_STOP_DURATION);
    assert_string_equal(culprit_measure_stop_reason_name(s->stop), "duration");
    assert_int_equal(s->batch, 1);
    assert_near(s->interval_s, 0.01, 1e-12);
    /* MSER drops exactly the intervals that hold slow calls: the 5 all-slow ones and
     * the mixed sixth (330 slow calls, then fast). */
    assert_int_equal(s->warmup_intervals, 6);
    assert_true(s->n + s->warmup_intervals >= 99 && s->n + s->warmup_intervals <= 101);
    /* What is kept is the steady state, exactly: every call 10 us. */
    assert_near(s->calls.mean, 10000, 0);
    assert_near(s->calls.min, 10000, 0);
    assert_near(s->calls.max, 10000, 0);
    assert_int_equal(s->calls.n + s->warmup, sc.calls);
    for (size_t i = 0; i < s->n; i++) {
        assert_near(s->wall_ns[i], 10000, 0);
        assert_near(s->cpu_ns[i], 10000, 1e-9);
    }
    culprit_measure_samples_free(s);
}

/* Every call's cost, kept by the test (the library keeps none). */
static double *load_log;
static size_t load_nlog;

static int logged_body(void *payload)
{
    scenario *sc = payload;
    uint64_t before = sc->f.wall;
    int rc = body(payload);
    load_log[load_nlog++] = (double)(sc->f.wall - before);
    return rc;
}

static void load_test_statistics_are_exact_over_a_million_calls(void **state)
{
    scenario sc;
    culprit_samples *s = NULL;
    culprit_welford w;
    double sum = 0, ss = 0;
    (void)state;
    /* 10 us +- 5 us (uniform), 10 s of fake time: about 1,000,000 calls. */
    scenario_init(&sc, 0, 10000);
    sc.noise = 5000;
    sc.opts.warmup = 0;
    sc.opts.duration_s = 10.0;
    sc.cb.body = logged_body;
    assert_non_null(load_log = malloc(1100000 * sizeof(double)));
    load_nlog = 0;
    assert_int_equal(run(&sc, &s), 0);
    assert_true(sc.calls > 990000 && sc.calls < 1010000);
    /* Default interval: duration / 60. */
    assert_near(s->interval_s, 10.0 / 60, 1e-12);
    /* The kept intervals are the last calls.n calls: compare with a two-pass mean
     * and variance over them. */
    assert_true(s->calls.n > 500000);
    size_t first = load_nlog - (size_t)s->calls.n;
    for (size_t i = first; i < load_nlog; i++)
        sum += load_log[i];
    double mean = sum / (double)s->calls.n;
    for (size_t i = first; i < load_nlog; i++)
        ss += (load_log[i] - mean) * (load_log[i] - mean);
    assert_near(s->calls.mean, mean, 1e-9 * mean);
    assert_near(culprit_stats_welford_variance(&s->calls), ss / (double)(s->calls.n - 1),
                1e-9 * ss / (double)s->calls.n);
    /* The uniform integers in [5000, 15000]: variance (10001^2 - 1) / 12 (by hand). */
    assert_near(culprit_stats_welford_sd(&s->calls), sqrt((10001.0 * 10001.0 - 1) / 12), 10);
    culprit_stats_welford_init(&w);
    free(load_log);
    culprit_measure_samples_free(s);
}

static void load_test_rejects_an_interval_longer_than_the_duration(void **state)
{
    scenario sc;
    culprit_samples *s = NULL;
    (void)state;
    scenario_init(&sc, 0, 10000);
    sc.opts.duration_s = 1.0;
    sc.opts.interval_s = 2.0;
    assert_int_equal(run(&sc, &s), CULPRIT_EINVALID);
    assert_non_null(strstr(culprit_error_last(), "interval"));
    culprit_measure_samples_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(options_init_and_names),
        cmocka_unit_test(load_test_cuts_the_warm_up_and_samples_per_interval),
        cmocka_unit_test(load_test_statistics_are_exact_over_a_million_calls),
        cmocka_unit_test(load_test_rejects_an_interval_longer_than_the_duration),
        cmocka_unit_test(bad_options_are_rejected),
        cmocka_unit_test(overhead_is_the_median_of_back_to_back_reads),
        cmocka_unit_test(warmup_is_excluded_and_count_is_fixed),
        cmocka_unit_test(overhead_subtraction_clamps_at_zero),
        cmocka_unit_test(automatic_batching_reports_per_iteration),
        cmocka_unit_test(fixed_batch_is_used_as_given),
        cmocka_unit_test(setup_and_teardown_are_untimed_and_force_batch_1),
        cmocka_unit_test(adaptive_stops_when_ci_reaches_target),
        cmocka_unit_test(adaptive_never_stops_before_min_repetitions),
        cmocka_unit_test(adaptive_stops_when_budget_is_spent),
        cmocka_unit_test(adaptive_stops_at_max_repetitions),
        cmocka_unit_test(a_quiet_start_does_not_decide_the_value),
        cmocka_unit_test(preempted_samples_do_not_decide_the_value),
        cmocka_unit_test(preempted_samples_are_replaced_or_kept_and_said),
        cmocka_unit_test(a_negative_min_time_is_rejected),
        cmocka_unit_test(regions_replace_the_body_time),
        cmocka_unit_test(failing_body_stops_with_eskip),
        cmocka_unit_test(longjmp_out_of_the_body_leaves_out_to_the_caller),
        cmocka_unit_test(absent_counters_are_nan_never_an_error),
        cmocka_unit_test(samples_have_arrays_exactly_for_available_counters),
        cmocka_unit_test(read_bytes_count_the_code_not_the_counter_reads),
        cmocka_unit_test(real_clocks_produce_samples),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
