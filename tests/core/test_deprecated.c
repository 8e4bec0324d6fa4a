/* Tests of include/culprit/deprecated.h: a program written against the public
 * functions' names before issue 24's rename still compiles and calls the same
 * functions. The old names are spelt by token pasting (OLD), so that the rename's sed
 * script, re-applied over tests/, leaves them old. */
#undef CULPRIT_NO_DEPRECATED /* culprit's own build defines it: here, the old names */
#include "support/test.h"

#include "culprit/bisect.h"
#include "culprit/culprit.h"
#include "culprit/runner.h"

#define OLD(a, b) a##b

static void old_names_are_the_new_functions(void **state)
{
    (void)state;
    assert_true(OLD(culprit_run_, new) == culprit_history_run_new);
    assert_true(OLD(culprit_welford_, add) == culprit_stats_welford_add);
    assert_true(OLD(culprit_verdict_, name) == culprit_detect_verdict_name);
    assert_true(OLD(culprit_check_, commit) == culprit_detect_check_commit);
    assert_true(OLD(culprit_settings_, resolve) == culprit_runner_settings_resolve);
    assert_true(OLD(culprit_region_, begin) == culprit_measure_region_begin);
    assert_true(OLD(culprit_investigation_, of) == culprit_bisect_investigation_of);
}

static void old_names_still_work(void **state)
{
    culprit_run *run = NULL;

    (void)state;
    assert_int_equal(OLD(culprit_run_, new)(&run), 0);
    assert_non_null(run);
    OLD(culprit_run_, free)(run);
    assert_string_equal(OLD(culprit_verdict_, name)(CULPRIT_VERDICT_MAJOR),
                        culprit_detect_verdict_name(CULPRIT_VERDICT_MAJOR));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(old_names_are_the_new_functions),
        cmocka_unit_test(old_names_still_work),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
