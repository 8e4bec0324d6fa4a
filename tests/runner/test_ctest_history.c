/*
 * The end-to-end promise: running the example perf tests through ctest
 * writes history files that pass the JUnit schema, and the reader API reads them
 * back with every raw sample. Runs ctest on the examples' build directory with
 * CULPRIT_HISTORY_DIR pointing at a temporary directory.
 */
#include "support/test.h"

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "culprit/history.h"
#include "support/tmpdir.h"

#define EXAMPLES CULPRIT_BINARY_DIR "/examples"
#define SCHEMA   CULPRIT_SOURCE_DIR "/docs/schemas/junit-10.xsd"

static void ctest_perf_run_writes_valid_readable_history(void **state)
{
    char dir[256], cmd[1024];
    culprit_history *h = NULL;
    culprit_history_runs runs = {0};
    glob_t files;
    (void)state;

    if (access(EXAMPLES "/CTestTestfile.cmake", R_OK) != 0)
        skip(); /* built with -DCULPRIT_BUILD_EXAMPLES=OFF */
    assert_int_equal(test_tmpdir_make(dir, sizeof(dir), "ctest"), 0);
    snprintf(cmd, sizeof(cmd),
             "CULPRIT_HISTORY_DIR='%s' ctest --test-dir '%s' -L perf --output-on-failure "
             ">'%s/ctest.log' 2>&1",
             dir, EXAMPLES, dir);
    assert_int_equal(system(cmd), 0);

    snprintf(cmd, sizeof(cmd), "%s/*.xml", dir);
    assert_int_equal(glob(cmd, 0, NULL, &files), 0);
    assert_true(files.gl_pathc >= 2); /* ctest runs the binary once per perf test */
    for (size_t i = 0; i < files.gl_pathc; i++) {
        if (access(SCHEMA, R_OK) != 0)
            break;
        snprintf(cmd, sizeof(cmd), "xmllint --noout --schema '%s' '%s' 2>/dev/null", SCHEMA,
                 files.gl_pathv[i]);
        if (system(cmd) != 0)
            fail_msg("%s does not pass the JUnit schema", files.gl_pathv[i]);
    }

    culprit_history_query q = {.flags = CULPRIT_HISTORY_LOAD_SAMPLES};
    assert_int_equal(culprit_history_open(&h, dir, 0), 0);
    assert_int_equal(culprit_history_load(&runs, h, &q, NULL, NULL), 0);
    assert_int_equal(runs.nruns, files.gl_pathc);
    assert_int_equal(runs.nskipped, 0);
    for (size_t i = 0; i < runs.nruns; i++) {
        const culprit_run *run = runs.runs[i];
        assert_int_equal(run->ntests, 1);
        assert_int_equal(run->tests[0].status, CULPRIT_STATUS_PASS);
        assert_non_null(run->tests[0].category);
        const culprit_series *wall = culprit_history_test_result_series(&run->tests[0], "wall_ns");
        assert_non_null(wall);
        assert_int_equal(wall->n, run->tests[0].summary.n);
        assert_non_null(wall->values);
        assert_true(wall->values[0] > 0);
    }
    culprit_history_runs_dispose(&runs);
    culprit_history_free(h);
    globfree(&files);
    assert_int_equal(test_tmpdir_remove(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ctest_perf_run_writes_valid_readable_history),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
