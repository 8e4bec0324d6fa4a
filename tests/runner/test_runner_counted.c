/*
 * The metric "instructions" (framework/runner/valgrind.c): the test binary runs the
 * test again under Valgrind's callgrind and counts the instructions of the body of
 * each repetition only. Asserted: the count excludes setup and per-repetition setup
 * (5 million iterations each, against the body's 10,000), doubles with the body's
 * work, is the same in two runs, and is recorded with counted_by = "valgrind-...".
 * Without valgrind on PATH the binary exits 2 naming the Debian package. The counted
 * process, which reads no repository, takes its parent's project file. Skipped
 * when valgrind is not installed.
 */
#include "support/test.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/git_fixture.h"
#include "support/tmpdir.h"

/* Runs the binary in `dir` with --json and `args`; the document (caller frees) and the
 * exit code. */
static json_t *run_counted(const char *dir, const char *args, int *status)
{
    char cmd[2048];
    FILE *p;
    json_t *doc;

    snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' --no-history --json %s 2>/dev/null", dir,
             COUNTED_BIN, args);
    assert_non_null(p = popen(cmd, "r"));
    doc = json_loadf(p, 0, NULL);
    *status = WEXITSTATUS(pclose(p));
    return doc;
}

static double count_of(json_t *doc, const char *name, const char **counted_by)
{
    json_t *tests = json_object_get(doc, "tests"), *t;
    size_t i;

    json_array_foreach(tests, i, t)
    {
        if (strcmp(json_string_value(json_object_get(t, "name")), name) == 0) {
            assert_string_equal(json_string_value(json_object_get(t, "status")), "pass");
            assert_string_equal(json_string_value(json_object_get(t, "metric")), "instructions");
            *counted_by = json_string_value(json_object_get(t, "counted_by"));
            return json_number_value(json_object_get(t, "mean_ns"));
        }
    }
    fail_msg("no test %s", name);
    return NAN;
}

static void the_body_alone_is_counted_the_same_every_time(void **state)
{
    const char *by = NULL;
    int status;
    json_t *a, *b;
    (void)state;

    if (system("valgrind --version >/dev/null 2>&1") != 0)
        skip();
    a = run_counted("/tmp", "", &status);
    assert_int_equal(status, 0);
    double light = count_of(a, "light_body", &by);
    assert_non_null(by);
    assert_memory_equal(by, "valgrind-", 9);
    double twice = count_of(a, "double_body", &by);
    /* The setups' 10 million iterations are not in it: the body's work doubles, so
     * does its count (within the call's fixed cost). */
    assert_true(light > 10000 && light < 200000);
    assert_true(twice / light > 1.8 && twice / light < 2.2);
    b = run_counted("/tmp", "", &status);
    assert_int_equal(status, 0);
    assert_true(fabs(count_of(b, "light_body", &by) / light - 1) < 0.001);
    json_decref(a);
    json_decref(b);
}

/* The counted process reads no repository (runner.c): it takes the project file its
 * parent loaded (at the repository's root), not a culprit.json where it runs (a broken
 * one here, in a subdirectory). */
static void the_counted_process_takes_the_parents_project_file(void **state)
{
    const char *by = NULL;
    char dir[512], sub[600];
    int status;
    json_t *doc;
    (void)state;

    if (system("valgrind --version >/dev/null 2>&1") != 0)
        skip();
    assert_int_equal(test_tmpdir_make(dir, sizeof(dir), "counted"), 0);
    snprintf(sub, sizeof(sub), "%s/sub", dir);
    run("cd '%s' && git init -q . && git -c user.name=t -c user.email=t@e -c commit.gpgsign=false "
        "commit -q --allow-empty -m c && mkdir sub && printf '{}' > culprit.json && "
        "printf '{\"categories\": 3}' > sub/culprit.json",
        dir);
    doc = run_counted(sub, "--filter double_body", &status);
    assert_int_equal(status, 0);
    assert_true(count_of(doc, "double_body", &by) > 20000);
    json_decref(doc);
    assert_int_equal(test_tmpdir_remove(dir), 0);
}

static void without_valgrind_the_binary_exits_2_naming_the_package(void **state)
{
    char cmd[1024];
    FILE *p;
    char out[4096] = "";
    int status;
    (void)state;

    snprintf(cmd, sizeof(cmd), "cd /tmp && env PATH=/nonexistent '%s' --no-history 2>&1",
             COUNTED_BIN);
    assert_non_null(p = popen(cmd, "r"));
    size_t n = fread(out, 1, sizeof(out) - 1, p);
    out[n] = '\0';
    status = WEXITSTATUS(pclose(p));
    assert_int_equal(status, 2);
    assert_non_null(strstr(out, "Debian package: valgrind"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_body_alone_is_counted_the_same_every_time),
        cmocka_unit_test(the_counted_process_takes_the_parents_project_file),
        cmocka_unit_test(without_valgrind_the_binary_exits_2_naming_the_package),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
