/*
 * Tests of the options versions (as libgit2's git_clone_options_init): every
 * options struct with a `version` has an _init function that refuses another
 * version, and every function taking the struct refuses it too, with
 * CULPRIT_EINVALID and a message naming the version, rather than reading a
 * struct of another layout field by field. The functions are called with the
 * smallest inputs that reach the check: it comes before any input is read.
 */
#include "support/test.h"

#include <string.h>

#include "culprit/calltree.h"
#include "culprit/core.h"
#include "culprit/detect.h"
#include "culprit/history.h"

/* The call failed with CULPRIT_EINVALID and a message that names `what`. */
static void assert_refused(int error, const char *what)
{
    assert_int_equal(error, CULPRIT_EINVALID);
    assert_non_null(strstr(culprit_error_last(), what));
}

static void test_check_options_init(void **state)
{
    culprit_check_options o, init = CULPRIT_CHECK_OPTIONS_INIT;
    (void)state;
    memset(&o, 0xff, sizeof(o));
    assert_int_equal(culprit_detect_check_options_init(&o, CULPRIT_CHECK_OPTIONS_VERSION), 0);
    assert_int_equal(o.version, CULPRIT_CHECK_OPTIONS_VERSION);
    assert_int_equal(o.detect.version, CULPRIT_DETECT_OPTIONS_VERSION);
    assert_int_equal(o.clusters.version, CULPRIT_CLUSTERS_OPTIONS_VERSION);
    assert_int_equal(o.rules.version, CULPRIT_RULES_OPTIONS_VERSION);
    assert_int_equal(o.pool, init.pool);
    assert_int_equal(o.noise_window, init.noise_window);
    assert_int_equal(o.detectors, init.detectors);
    assert_null(o.test);
    assert_refused(culprit_detect_check_options_init(&o, CULPRIT_CHECK_OPTIONS_VERSION + 1),
                   "check options version 2");
}

static void test_other_inits_refuse(void **state)
{
    culprit_detect_options d;
    culprit_clusters_options c;
    culprit_rules_options r;
    culprit_calltree_diff_options cd;
    culprit_calltree_overweight_options ow;
    (void)state;
    assert_refused(culprit_detect_options_init(&d, 0), "version 0");
    assert_refused(culprit_detect_clusters_options_init(&c, 0), "version 0");
    assert_refused(culprit_detect_rules_options_init(&r, 0), "version 0");
    assert_refused(culprit_calltree_diff_options_init(&cd, 0), "version 0");
    assert_refused(culprit_calltree_overweight_options_init(&ow, 0), "version 0");
    /* The one body every _init shares (culprit_options_init_from): no struct, no copy. */
    assert_refused(culprit_detect_options_init(NULL, CULPRIT_DETECT_OPTIONS_VERSION),
                   "detect options: no struct");
    memset(&d, 0, sizeof(d));
    assert_int_equal(culprit_detect_options_init(&d, CULPRIT_DETECT_OPTIONS_VERSION), 0);
    assert_int_equal(d.version, CULPRIT_DETECT_OPTIONS_VERSION);
    assert_true(d.confidence > 0 && d.confidence < 1);
}

static void test_check_refuses_versions(void **state)
{
    culprit_history_runs runs = {0, NULL, 0};
    culprit_check_result result;
    culprit_check_options o = CULPRIT_CHECK_OPTIONS_INIT;
    (void)state;
    o.version = 7;
    assert_refused(culprit_detect_check(&result, &runs, "c1", NULL, 0, &o),
                   "check options version 7");
    /* The options it embeds are checked too. */
    o.version = CULPRIT_CHECK_OPTIONS_VERSION;
    o.detect.version = 7;
    assert_refused(culprit_detect_check(&result, &runs, "c1", NULL, 0, &o),
                   "detect options version 7");
    o.detect.version = CULPRIT_DETECT_OPTIONS_VERSION;
    o.clusters.version = 7;
    assert_refused(culprit_detect_check(&result, &runs, "c1", NULL, 0, &o),
                   "clusters options version 7");
    o.clusters.version = CULPRIT_CLUSTERS_OPTIONS_VERSION;
    o.rules.version = 7;
    assert_refused(culprit_detect_check(&result, &runs, "c1", NULL, 0, &o),
                   "rules options version 7");
    /* With every version right, the check gets as far as the history. */
    o.rules.version = CULPRIT_RULES_OPTIONS_VERSION;
    assert_int_equal(culprit_detect_check(&result, &runs, "c1", NULL, 0, &o), CULPRIT_ENOTFOUND);
}

static void test_compare_runs_refuses_version(void **state)
{
    culprit_run *a = NULL, *b = NULL;
    culprit_check_result result;
    culprit_check_options o = CULPRIT_CHECK_OPTIONS_INIT;
    (void)state;
    assert_int_equal(culprit_history_run_new(&a), 0);
    assert_int_equal(culprit_history_run_new(&b), 0);
    o.version = 0;
    assert_refused(culprit_detect_compare_runs(&result, a, b, &o), "check options version 0");
    o.version = CULPRIT_CHECK_OPTIONS_VERSION;
    assert_int_equal(culprit_detect_compare_runs(&result, a, b, &o), 0);
    culprit_detect_check_result_dispose(&result);
    culprit_history_run_free(a);
    culprit_history_run_free(b);
}

/* The functions that take culprit_detect_options alone check its version too
 * (docs/architecture.md), not only culprit_detect_check() where it comes inside the
 * check options. */
static void test_detect_functions_refuse_version(void **state)
{
    culprit_detect_options d = CULPRIT_DETECT_OPTIONS_INIT;
    culprit_test_result now;
    culprit_verdict v;
    culprit_run *run = NULL;
    double threshold = -1;
    (void)state;
    memset(&now, 0, sizeof(now));
    assert_int_equal(culprit_history_run_new(&run), 0);
    d.version = 9;
    assert_refused(culprit_detect_judge(&v, run, &now, NULL, &d), "detect options version 9");
    assert_null(v.test);
    assert_refused(culprit_detect_adjust(&v, 1, &d), "detect options version 9");
    assert_refused(culprit_detect_count_threshold(&threshold, &d, 0), "detect options version 9");
    assert_true(threshold == -1);
    d.version = CULPRIT_DETECT_OPTIONS_VERSION;
    assert_int_equal(culprit_detect_count_threshold(&threshold, &d, 0), 0);
    assert_true(threshold == d.count_threshold);
    culprit_history_run_free(run);
}

static void test_detectors_refuse_versions(void **state)
{
    culprit_counter_table none;
    culprit_clusters_options c = CULPRIT_CLUSTERS_OPTIONS_INIT;
    culprit_rules_options r = CULPRIT_RULES_OPTIONS_INIT;
    culprit_clusters_verdict cv;
    culprit_rules_verdict rv;
    (void)state;
    memset(&none, 0, sizeof(none));
    c.version = 3;
    assert_refused(culprit_detect_clusters(&cv, &none, &none, &c), "clusters options version 3");
    r.version = 3;
    assert_refused(culprit_detect_rules(&rv, &none, 1, &none, &r), "rules options version 3");
}

static void test_calltree_refuses_versions(void **state)
{
    culprit_calltree_diff_options d = CULPRIT_CALLTREE_DIFF_OPTIONS_INIT;
    culprit_calltree_overweight_options o = CULPRIT_CALLTREE_OVERWEIGHT_OPTIONS_INIT;
    culprit_calltree_diff diff;
    culprit_calltree_overweight ow;
    (void)state;
    d.version = 5;
    assert_refused(culprit_calltree_diff_trees(&diff, NULL, NULL, &d),
                   "calltree diff options version 5");
    o.version = 5;
    assert_refused(culprit_calltree_overweight_trees(&ow, NULL, NULL, &o),
                   "overweight options version 5");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check_options_init),
        cmocka_unit_test(test_other_inits_refuse),
        cmocka_unit_test(test_check_refuses_versions),
        cmocka_unit_test(test_compare_runs_refuses_version),
        cmocka_unit_test(test_detect_functions_refuse_version),
        cmocka_unit_test(test_detectors_refuse_versions),
        cmocka_unit_test(test_calltree_refuses_versions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
