/*
 * Tests of comparable baselines (framework/detect/comparable.c, baseline.c): a run is
 * judged against the newest comparable run on the first-parent history (same machine
 * class, compiler, flags, counting tool, clean tree); an incomparable newer run does
 * not hide an older comparable one; a kernel update keeps the machine class; nothing
 * comparable is said as such; a dirty run is compared with its own clean commit.
 */
#include "support/test.h"

#include <stdlib.h>
#include <string.h>

#include "culprit/detect.h"
#include "culprit/history.h"

#define KERNEL_A "Intel Xeon; 2 cpus; Linux 6.1.0-25-amd64 x86_64"
#define KERNEL_B "Intel Xeon; 2 cpus; Linux 6.1.0-28-amd64 x86_64"

static culprit_run *new_run(const char *commit, const char *stamp, const char *machine,
                            const char *flags)
{
    culprit_run *run = NULL;
    assert_int_equal(culprit_history_run_new(&run), 0);
    culprit_str_set(&run->suite, "s");
    culprit_str_set(&run->commit, commit);
    culprit_str_set(&run->timestamp, stamp);
    culprit_str_set(&run->id, stamp);
    culprit_str_set(&run->machine, machine);
    culprit_str_set(&run->compiler, "gcc 12.2.0");
    culprit_str_set(&run->flags, flags);
    return run;
}

/* A passing result of "x": mean ns, sd 1% of it, 30 samples. */
static culprit_test_result *add(culprit_run *run, double mean)
{
    culprit_test_result *t = NULL;
    assert_int_equal(culprit_history_run_add_test(&t, run), 0);
    culprit_str_set(&t->name, "x");
    culprit_str_set(&t->classname, "s");
    t->status = CULPRIT_STATUS_PASS;
    t->summary.n = 30;
    t->summary.mean = mean;
    t->summary.sd = mean / 100;
    t->summary.min = mean * 0.97;
    t->summary.max = mean * 1.03;
    return t;
}

static void machine_class_leaves_out_the_kernel_release(void **state)
{
    culprit_run *a = new_run("c", "t1", KERNEL_A, "-O2"), *b = new_run("c", "t2", KERNEL_B, "-O2");
    char ca[256], cb[256];
    (void)state;

    assert_string_equal(culprit_history_run_machine_class(ca, sizeof(ca), a),
                        "Intel Xeon; 2 cpus; Linux x86_64");
    assert_string_equal(culprit_history_run_machine_class(cb, sizeof(cb), b), ca);
    assert_int_equal(culprit_detect_comparable(NULL, a, NULL, b, NULL, 0), 1);
    /* A named class wins over the fingerprint, on both sides. */
    culprit_str_set(&a->machine_class, "ci-large");
    assert_string_equal(culprit_history_run_machine_class(ca, sizeof(ca), a), "ci-large");
    assert_int_equal(culprit_detect_comparable(NULL, a, NULL, b, NULL, 0), 0);
    culprit_str_set(&b->machine, "AMD EPYC; 64 cpus; Linux 6.5.0 x86_64");
    culprit_str_set(&b->machine_class, "ci-large");
    assert_int_equal(culprit_detect_comparable(NULL, a, NULL, b, NULL, 0), 1);
    /* A fingerprint not in the runner's shape is its own class, whole. */
    culprit_str_set(&b->machine_class, NULL);
    culprit_str_set(&b->machine, "my laptop");
    assert_string_equal(culprit_history_run_machine_class(cb, sizeof(cb), b), "my laptop");
    culprit_history_run_free(a);
    culprit_history_run_free(b);
}

static void each_rule_says_what_differs(void **state)
{
    culprit_run *now = new_run("c2", "t2", KERNEL_A, "-O2"),
                *base = new_run("c1", "t1", KERNEL_A, "-O2");
    culprit_test_result *tn = add(now, 1000), *tb = add(base, 1000);
    char *why = NULL;
    (void)state;

    assert_int_equal(culprit_detect_comparable(&why, now, tn, base, tb, 0), 1);
    assert_null(why);
    culprit_str_set(&base->flags, "-O0 -g");
    assert_int_equal(culprit_detect_comparable(&why, now, tn, base, tb, 0), 0);
    assert_string_equal(why, "build flags differs: '-O2' now, '-O0 -g' in the baseline");
    free(why);
    culprit_str_set(&base->flags, "-O2");
    culprit_str_set(&base->compiler, "clang 16");
    assert_int_equal(culprit_detect_comparable(&why, now, tn, base, tb, 0), 0);
    assert_non_null(strstr(why, "compiler differs"));
    free(why);
    culprit_str_set(&base->compiler, "gcc 12.2.0");
    culprit_str_set(&tn->counted_by, "valgrind-3.19.0");
    culprit_str_set(&tb->counted_by, "valgrind-3.22.0");
    assert_int_equal(culprit_detect_comparable(&why, now, tn, base, tb, 0), 0);
    assert_string_equal(why, "counted by valgrind-3.19.0 now, by valgrind-3.22.0 in the baseline");
    free(why);
    /* Run-level rules only: the tool version is a test's. */
    assert_int_equal(culprit_detect_comparable(NULL, now, NULL, base, NULL, 0), 1);
    culprit_str_set(&tb->counted_by, "valgrind-3.19.0");
    base->dirty = 1;
    assert_int_equal(culprit_detect_comparable(&why, now, tn, base, tb, 0), 0);
    assert_non_null(strstr(why, "dirty tree"));
    free(why);
    assert_int_equal(
        culprit_detect_comparable(NULL, now, tn, base, tb, CULPRIT_COMPARABLE_ANY_TREE), 1);
    culprit_history_run_free(now);
    culprit_history_run_free(base);
}

/* History c1 <- c2 <- c3: Release runs at c1, a Debug run at c2 (newer), Release and
 * Debug at c3. */
static void release_is_judged_against_release_past_a_newer_debug_run(void **state)
{
    culprit_run *rel1 = new_run("c1", "2026-01-01T00:00:01Z", KERNEL_A, "-O2");
    culprit_run *dbg2 = new_run("c2", "2026-01-02T00:00:01Z", KERNEL_A, "-O0 -g");
    culprit_run *rel3 = new_run("c3", "2026-01-03T00:00:01Z", KERNEL_A, "-O2");
    culprit_run *dbg3 = new_run("c3", "2026-01-03T00:00:02Z", KERNEL_A, "-O0 -g");
    culprit_run *all[] = {rel1, dbg2, rel3, dbg3};
    culprit_history_runs runs = {4, all, 0};
    const char *fp[] = {"c2", "c1"};
    culprit_check_result r;
    culprit_baseline b;
    (void)state;

    add(rel1, 1000);
    add(dbg2, 5000);
    add(rel3, 1000);
    add(dbg3, 5000);
    /* The Release run's baseline is c1's Release run, not c2's newer Debug one. */
    assert_int_equal(culprit_detect_baseline_for(&b, &runs, rel3, &rel3->tests[0], fp, 2, 1, 0), 0);
    assert_int_equal(b.n, 1);
    assert_ptr_equal(b.runs[0], rel1);
    assert_null(b.incomparable);
    culprit_detect_baseline_dispose(&b);
    /* allow_mixed: the newest run, whatever its build (the old rule). */
    assert_int_equal(culprit_detect_baseline_for(&b, &runs, rel3, &rel3->tests[0], fp, 2, 1, 1), 0);
    assert_ptr_equal(b.runs[0], dbg2);
    culprit_detect_baseline_dispose(&b);
    /* A check at c3 judges the newest run there (Debug) against Debug: unchanged. */
    assert_int_equal(culprit_detect_check(&r, &runs, "c3", fp, 2, NULL), 0);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.verdicts[0].kind, CULPRIT_VERDICT_UNCHANGED);
    assert_string_equal(r.verdicts[0].baseline, "c2");
    assert_true(culprit_detect_verdict_compared(&r.verdicts[0]));
    culprit_detect_check_result_dispose(&r);
    /* Without the Debug run at c3, the Release run there is judged against c1. */
    runs.nruns = 3;
    assert_int_equal(culprit_detect_check(&r, &runs, "c3", fp, 2, NULL), 0);
    assert_int_equal(r.verdicts[0].kind, CULPRIT_VERDICT_UNCHANGED);
    assert_string_equal(r.verdicts[0].baseline, "c1");
    culprit_detect_check_result_dispose(&r);
    for (size_t i = 0; i < 4; i++)
        culprit_history_run_free(all[i]);
}

static void nothing_comparable_is_mixed_and_says_why(void **state)
{
    culprit_run *old = new_run("c1", "2026-01-01T00:00:01Z", KERNEL_A, "-O0 -g");
    culprit_run *now = new_run("c2", "2026-01-02T00:00:01Z", KERNEL_A, "-O2");
    culprit_run *all[] = {old, now};
    culprit_history_runs runs = {2, all, 0};
    const char *fp[] = {"c1"};
    culprit_check_result r;
    (void)state;

    add(old, 5000);
    add(now, 1000);
    assert_int_equal(culprit_detect_check(&r, &runs, "c2", fp, 1, NULL), 0);
    assert_int_equal(r.verdicts[0].kind, CULPRIT_VERDICT_MIXED);
    assert_false(culprit_detect_verdict_compared(&r.verdicts[0]));
    assert_null(r.verdicts[0].baseline);
    assert_non_null(strstr(r.verdicts[0].message, "nothing compared: no comparable earlier run"));
    assert_non_null(strstr(r.verdicts[0].message, "build flags differs"));
    culprit_detect_check_result_dispose(&r);
    /* No earlier run at all: no-baseline, not compared either. */
    assert_int_equal(culprit_detect_check(&r, &runs, "c2", fp, 0, NULL), 0);
    assert_int_equal(r.verdicts[0].kind, CULPRIT_VERDICT_NO_BASELINE);
    assert_false(culprit_detect_verdict_compared(&r.verdicts[0]));
    assert_non_null(strstr(r.verdicts[0].message, "nothing compared"));
    culprit_detect_check_result_dispose(&r);
    culprit_history_run_free(old);
    culprit_history_run_free(now);
}

static void kernel_update_compares_as_before_with_or_without_a_named_class(void **state)
{
    culprit_run *before = new_run("c1", "2026-01-01T00:00:01Z", KERNEL_A, "-O2");
    culprit_run *after = new_run("c2", "2026-01-02T00:00:01Z", KERNEL_B, "-O2");
    culprit_run *all[] = {before, after};
    culprit_history_runs runs = {2, all, 0};
    const char *fp[] = {"c1"};
    culprit_check_result r;
    (void)state;

    add(before, 1000);
    add(after, 2000); /* 2x: a minor regression (no category) */
    assert_int_equal(culprit_detect_check(&r, &runs, "c2", fp, 1, NULL), 0);
    assert_int_equal(r.verdicts[0].kind, CULPRIT_VERDICT_MINOR);
    culprit_detect_check_result_dispose(&r);
    /* Named classes (--machine ci-runner): other hosts, other kernels, one machine. */
    culprit_str_set(&before->machine_class, "ci-runner");
    culprit_str_set(&after->machine_class, "ci-runner");
    culprit_str_set(&after->machine, "Intel Xeon; 4 cpus; Linux 6.9.1 x86_64");
    assert_int_equal(culprit_detect_check(&r, &runs, "c2", fp, 1, NULL), 0);
    assert_int_equal(r.verdicts[0].kind, CULPRIT_VERDICT_MINOR);
    culprit_detect_check_result_dispose(&r);
    /* Another class is not compared. */
    culprit_str_set(&after->machine_class, "ci-small");
    assert_int_equal(culprit_detect_check(&r, &runs, "c2", fp, 1, NULL), 0);
    assert_int_equal(r.verdicts[0].kind, CULPRIT_VERDICT_MIXED);
    assert_non_null(strstr(r.verdicts[0].mismatch, "'ci-small' now, 'ci-runner'"));
    culprit_detect_check_result_dispose(&r);
    culprit_history_run_free(before);
    culprit_history_run_free(after);
}

static void dirty_runs_are_no_baseline_and_are_marked(void **state)
{
    culprit_run *clean1 = new_run("c1", "2026-01-01T00:00:01Z", KERNEL_A, "-O2");
    culprit_run *dirty1 = new_run("c1", "2026-01-01T00:00:02Z", KERNEL_A, "-O2");
    culprit_run *now = new_run("c2", "2026-01-02T00:00:01Z", KERNEL_A, "-O2");
    culprit_run *dirty2 = new_run("c2", "2026-01-02T00:00:02Z", KERNEL_A, "-O2");
    culprit_run *all[] = {clean1, dirty1, now, dirty2};
    culprit_history_runs runs = {3, all, 0};
    const char *fp[] = {"c1"};
    culprit_check_result r;
    (void)state;

    add(clean1, 1000);
    add(dirty1, 9000); /* newer at c1, but uncommitted code */
    add(now, 1000);
    add(dirty2, 3000);
    dirty1->dirty = dirty2->dirty = 1;
    assert_int_equal(culprit_detect_check(&r, &runs, "c2", fp, 1, NULL), 0);
    assert_int_equal(r.verdicts[0].kind, CULPRIT_VERDICT_UNCHANGED); /* against clean1 */
    assert_false(r.verdicts[0].dirty);
    assert_null(strstr(r.verdicts[0].message, "dirty"));
    culprit_detect_check_result_dispose(&r);
    /* A dirty run at c2 is compared with c2's clean run first, and says it is dirty. */
    runs.nruns = 4;
    assert_int_equal(culprit_detect_check(&r, &runs, "c2", fp, 1, NULL), 0);
    assert_int_equal(r.verdicts[0].kind, CULPRIT_VERDICT_MINOR);
    assert_string_equal(r.verdicts[0].baseline, "c2");
    assert_true(r.verdicts[0].dirty);
    assert_non_null(strstr(r.verdicts[0].message, "dirty tree"));
    culprit_detect_check_result_dispose(&r);
    for (size_t i = 0; i < 4; i++)
        culprit_history_run_free(all[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(machine_class_leaves_out_the_kernel_release),
        cmocka_unit_test(each_rule_says_what_differs),
        cmocka_unit_test(release_is_judged_against_release_past_a_newer_debug_run),
        cmocka_unit_test(nothing_comparable_is_mixed_and_says_why),
        cmocka_unit_test(kernel_update_compares_as_before_with_or_without_a_named_class),
        cmocka_unit_test(dirty_runs_are_no_baseline_and_are_marked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
