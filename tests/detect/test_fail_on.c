/*
 * What fails a check under --fail-on, decided once in the library
 * (culprit_detect_check_test_fails(), culprit_detect_check_fails()) for `culprit check`,
 * `culprit compare` and the test binaries: synthetic verdicts, no history.
 */
#include "support/test.h"

#include "culprit/detect.h"

#include <string.h>

/* A check of n tests whose time verdicts are `kinds`, each with `evidence`. */
static void make(culprit_check_result *r, culprit_verdict *v, const culprit_verdict_kind *kinds,
                 size_t n, culprit_evidence evidence)
{
    memset(r, 0, sizeof(*r));
    memset(v, 0, n * sizeof(*v));
    for (size_t i = 0; i < n; i++) {
        v[i].kind = kinds[i];
        v[i].evidence = evidence;
        v[i].base_n = 10;
    }
    r->n = n;
    r->verdicts = v;
    r->detectors = CULPRIT_DETECTOR_TIME;
}

static void names_parse_in_the_enums_order(void **state)
{
    const char *const *names = culprit_detect_fail_on_names();
    culprit_fail_on f;
    (void)state;

    assert_string_equal(names[CULPRIT_FAIL_ON_MAJOR], "major");
    assert_string_equal(names[CULPRIT_FAIL_ON_MINOR], "minor");
    assert_string_equal(names[CULPRIT_FAIL_ON_NONE], "none");
    assert_string_equal(names[CULPRIT_FAIL_ON_UNCOMPARED], "uncompared");
    assert_null(names[4]);
    for (int i = 0; names[i]; i++) {
        assert_int_equal(culprit_detect_fail_on_parse(names[i], &f), 0);
        assert_int_equal(f, i);
    }
    assert_int_equal(culprit_detect_fail_on_parse("Minor", &f), -1);
    assert_int_equal(culprit_detect_fail_on_parse(NULL, &f), -1);
}

static void a_major_fails_unless_none(void **state)
{
    const culprit_verdict_kind kinds[] = {CULPRIT_VERDICT_UNCHANGED, CULPRIT_VERDICT_MAJOR};
    culprit_verdict v[2];
    culprit_check_result r;
    (void)state;

    make(&r, v, kinds, 2, CULPRIT_EVIDENCE_HISTORY);
    assert_false(culprit_detect_check_test_fails(&r, 0, CULPRIT_FAIL_ON_MINOR));
    assert_true(culprit_detect_check_test_fails(&r, 1, CULPRIT_FAIL_ON_MAJOR));
    assert_true(culprit_detect_check_fails(&r, CULPRIT_FAIL_ON_MAJOR));
    assert_true(culprit_detect_check_fails(&r, CULPRIT_FAIL_ON_UNCOMPARED));
    assert_false(culprit_detect_check_fails(&r, CULPRIT_FAIL_ON_NONE));
}

static void a_minor_fails_under_minor_only_when_confirmed(void **state)
{
    const culprit_verdict_kind kinds[] = {CULPRIT_VERDICT_MINOR};
    culprit_verdict v[1];
    culprit_check_result r;
    (void)state;

    make(&r, v, kinds, 1, CULPRIT_EVIDENCE_HISTORY);
    assert_false(culprit_detect_check_fails(&r, CULPRIT_FAIL_ON_MAJOR));
    assert_true(culprit_detect_check_fails(&r, CULPRIT_FAIL_ON_MINOR));
    assert_true(culprit_detect_check_fails(&r, CULPRIT_FAIL_ON_UNCOMPARED));
    assert_false(culprit_detect_check_fails(&r, CULPRIT_FAIL_ON_NONE));
    /* an unconfirmed minor fails nothing */
    make(&r, v, kinds, 1, CULPRIT_EVIDENCE_UNCONFIRMED);
    assert_false(culprit_detect_check_test_fails(&r, 0, CULPRIT_FAIL_ON_MINOR));
    assert_false(culprit_detect_check_fails(&r, CULPRIT_FAIL_ON_MINOR));
}

static void uncompared_fails_a_check_that_compared_nothing(void **state)
{
    const culprit_verdict_kind kinds[] = {CULPRIT_VERDICT_NO_BASELINE, CULPRIT_VERDICT_MIXED};
    const culprit_verdict_kind some[] = {CULPRIT_VERDICT_NO_BASELINE, CULPRIT_VERDICT_UNCHANGED};
    culprit_verdict v[2];
    culprit_check_result r;
    (void)state;

    make(&r, v, kinds, 2, CULPRIT_EVIDENCE_HISTORY);
    assert_true(culprit_detect_check_fails(&r, CULPRIT_FAIL_ON_UNCOMPARED));
    assert_false(culprit_detect_check_fails(&r, CULPRIT_FAIL_ON_MINOR));
    make(&r, v, some, 2, CULPRIT_EVIDENCE_HISTORY);
    assert_false(culprit_detect_check_fails(&r, CULPRIT_FAIL_ON_UNCOMPARED));
    /* no test at all is not "nothing compared" */
    make(&r, v, kinds, 0, CULPRIT_EVIDENCE_HISTORY);
    assert_false(culprit_detect_check_fails(&r, CULPRIT_FAIL_ON_UNCOMPARED));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_parse_in_the_enums_order),
        cmocka_unit_test(a_major_fails_unless_none),
        cmocka_unit_test(a_minor_fails_under_minor_only_when_confirmed),
        cmocka_unit_test(uncompared_fails_a_check_that_compared_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
