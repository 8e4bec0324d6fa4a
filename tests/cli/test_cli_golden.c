/*
 * Golden tests of the JSON documents scripts rely on (docs/cli.md): `culprit check
 * --json` and `culprit history --json` on the scenario of cli_fixture.c, compared
 * with tests/cli/golden/ after replacing the commit ids with <c0>..<c3> and the
 * temporary directory with <TMP>. Numbers are compared to 1e-9 relative, so a
 * different libm in the last digits of a p-value does not fail the test; every key,
 * string and count must match. CULPRIT_UPDATE_GOLDEN=1 rewrites the files.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_fixture.h"

static void check_golden(const repo_fixture *repo, const char *args, const char *golden_name,
                         int status)
{
    cli_result r = run_culprit(repo->dir, NULL, "%s", args);
    char *actual;

    assert_int_equal(r.status, status);
    actual = golden_normalize(r.out, repo);
    r.out = NULL;
    assert_json_golden(actual, golden_name, args);
    free(actual);
    cli_result_dispose(&r);
}

static void check_json_matches_golden(void **state)
{
    check_golden(*state, "check --json", "check.json", 1);
}

static void check_pool_json_matches_golden(void **state)
{
    check_golden(*state, "check --json --pool 2 --fail-on minor --test perf.minor",
                 "check_pool.json", 1);
}

static void history_json_matches_golden(void **state)
{
    check_golden(*state, "history --json", "history.json", 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(check_json_matches_golden),
        cmocka_unit_test(check_pool_json_matches_golden),
        cmocka_unit_test(history_json_matches_golden),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
