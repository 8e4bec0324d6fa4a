/* Tests of categories, the project file and persisted assignments (framework/detect). */
#include "support/test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "culprit/core.h"
#include "culprit/detect.h"
#include "support/tmpdir.h"

/* The group's directory (support/tmpdir.h). */
static const char *const dir = test_tmpdir;

static char *write_tmp(const char *name, const char *text)
{
    char *path = culprit_fs_join(dir, name);
    assert_int_equal(culprit_fs_write_atomic(path, text, strlen(text), 0), 0);
    return path;
}

static void defaults_are_contiguous_fast_medium_slow(void **state)
{
    culprit_categories *c;
    (void)state;
    assert_int_equal(culprit_detect_categories_default(&c), 0);
    assert_int_equal(c->n, 3);
    assert_string_equal(culprit_detect_categories_classify(c, 0)->name, "fast");
    assert_string_equal(culprit_detect_categories_classify(c, 999999)->name, "fast");
    /* the boundary belongs to the slower category: fast < 1 ms <= medium */
    assert_string_equal(culprit_detect_categories_classify(c, 1e6)->name, "medium");
    assert_string_equal(culprit_detect_categories_classify(c, 1e8)->name, "slow");
    assert_string_equal(culprit_detect_categories_classify(c, 1e15)->name, "slow");
    assert_true(isinf(culprit_detect_categories_find(c, "slow")->high_ns));
    assert_true(culprit_detect_categories_find(c, "medium")->low_ns == 1e6);
    assert_true(culprit_detect_categories_is_fastest(c, culprit_detect_categories_find(c, "fast")));
    assert_false(
        culprit_detect_categories_is_fastest(c, culprit_detect_categories_find(c, "slow")));
    assert_null(culprit_detect_categories_find(c, "warp"));
    culprit_detect_categories_free(c);
}

static void durations_parse_with_units(void **state)
{
    double ns;
    (void)state;
    assert_int_equal(culprit_detect_parse_duration_ns(&ns, "250us"), 0);
    assert_true(ns == 250e3);
    assert_int_equal(culprit_detect_parse_duration_ns(&ns, "1.5 ms"), 0);
    assert_true(ns == 1.5e6);
    assert_int_equal(culprit_detect_parse_duration_ns(&ns, "2s"), 0);
    assert_true(ns == 2e9);
    assert_int_equal(culprit_detect_parse_duration_ns(&ns, "42"), 0);
    assert_true(ns == 42);
    assert_int_equal(culprit_detect_parse_duration_ns(&ns, "3 weeks"), CULPRIT_EINVALID);
    assert_non_null(strstr(culprit_error_last(), "weeks"));
    assert_int_equal(culprit_detect_parse_duration_ns(&ns, "-1ms"), CULPRIT_EINVALID);
    assert_int_equal(culprit_detect_parse_duration_ns(&ns, "ms"), CULPRIT_EINVALID);
    assert_int_equal(culprit_detect_parse_duration_ns(&ns, "86400s"), 0);
    assert_int_equal(culprit_detect_parse_duration_ns(&ns, "1e26s"), CULPRIT_EINVALID);
    assert_non_null(strstr(culprit_error_last(), "longer than a day"));
}

static void project_file_overrides_categories_and_tests(void **state)
{
    culprit_project *p;
    char *path =
        write_tmp("culprit.json", "{\"categories\": [{\"name\": \"a\", \"below\": \"10us\"},"
                                  " {\"name\": \"b\", \"below\": 5000000}, {\"name\": \"c\"}],"
                                  " \"tests\": {\"s.t\": {\"category\": \"b\"}},"
                                  " \"history\": \"perf/history\"}");
    (void)state;
    assert_int_equal(culprit_detect_project_load(&p, path), 0);
    const culprit_categories *c = culprit_detect_project_categories(p);
    assert_int_equal(c->n, 3);
    assert_string_equal(culprit_detect_categories_classify(c, 20e3)->name, "b");
    assert_true(culprit_detect_categories_find(c, "b")->high_ns == 5e6);
    assert_string_equal(culprit_detect_project_test_category(p, "s.t"), "b");
    assert_null(culprit_detect_project_test_category(p, "s.u"));
    /* relative to the project file's directory */
    char *expect = culprit_fs_join(dir, "perf/history");
    assert_string_equal(culprit_detect_project_history_dir(p), expect);
    free(expect);
    culprit_detect_project_free(p);
    free(path);
}

/* The project file `text` is refused with a message naming bad.json and `expect`. */
static void assert_project_refused(const char *text, const char *expect, size_t i)
{
    culprit_project *p = NULL;
    char *path = write_tmp("bad.json", text);
    assert_int_equal(culprit_detect_project_load(&p, path), CULPRIT_EINVALID);
    assert_null(p);
    if (!strstr(culprit_error_last(), expect) || !strstr(culprit_error_last(), "bad.json"))
        fail_msg("case %zu: '%s' lacks '%s'", i, culprit_error_last(), expect);
    free(path);
}

static void bad_project_files_name_file_and_key(void **state)
{
    static const struct {
        const char *text, *expect;
    } cases[] = {
        {"{", "not valid JSON"},
        {"[]", "JSON object"},
        {"{\"categorys\": []}", "unknown key \"categorys\""},
        {"{\"categories\": []}", "non-empty array"},
        {"{\"categories\": [{\"name\": \"a\", \"below\": \"1ms\"}, {\"name\": \"b\", \"below\": "
         "\"1us\"}, {\"name\": \"c\"}]}",
         "ordered fastest first"},
        {"{\"categories\": [{\"name\": \"a\", \"below\": \"1ms\"}, {\"name\": \"b\", \"below\": "
         "\"1s\"}]}",
         "must have no \"below\""},
        {"{\"categories\": [{\"name\": \"a\", \"below\": \"soon\"}, {\"name\": \"b\"}]}",
         "category \"a\" \"below\": 'soon' is not a duration"},
        {"{\"categories\": [{\"name\": \"a\"}, {\"name\": \"b\"}]}",
         "category \"a\" \"below\": missing: a duration"},
        /* Issue 23: the documented limit of a day holds for numbers too, and the
         * message of a string beyond it is whole (it was garbled). */
        {"{\"categories\": [{\"name\": \"a\", \"below\": 1e308}, {\"name\": \"b\"}]}",
         "category \"a\" \"below\": '1e+308ns' is longer than a day (86400s)"},
        {"{\"categories\": [{\"name\": \"a\", \"below\": 1e14}, {\"name\": \"b\"}]}",
         "category \"a\" \"below\": '100000000000000ns' is longer than a day (86400s)"},
        {"{\"categories\": [{\"name\": \"a\", \"below\": \"100000s\"}, {\"name\": \"b\"}]}",
         "category \"a\" \"below\": '100000s' is longer than a day (86400s), the longest"},
        {"{\"categories\": [{\"name\": \"a\", \"below\": -5}, {\"name\": \"b\"}]}",
         "'-5ns' is not a duration"},
        /* Issue 23: a name no run could record is refused at load time, named. */
        {"{\"categories\": [{\"name\": \"fa\\nst\", \"below\": \"1ms\"}, {\"name\": \"b\"}]}",
         "categories[0] \"name\": category name \"fa\\x0ast\" has a control character"},
        {"{\"categories\": [{\"name\": \"a\", \"below\": \"1ms\"}, {\"name\": "
         "\"\\u001b[31mred\"}]}",
         "categories[1] \"name\": category name \"\\x1b[31mred\" has a control character"},
        {"{\"categories\": [{\"name\": \"a\", \"below\": \"1ms\"}, {\"name\": "
         "\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
         "xx"
         "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}]}",
         "is too long: a category name is one line of printable text, up to 128 bytes"},
        {"{\"tests\": {\"s.t\": {\"category\": \"nope\"}}}", "tests.\"s.t\".category"},
        {"{\"categories\": [{\"name\": \"a\", \"below\": \"1ms\"}, {\"name\": \"a\"}]}",
         "defined twice"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        assert_project_refused(cases[i].text, cases[i].expect, i);
    culprit_project *p = NULL;
    assert_int_equal(culprit_detect_project_load(&p, "/nonexistent/culprit.json"),
                     CULPRIT_ENOTFOUND);
}

/* "build", "run", "calltree_build": read as written; absent ones are NULL. */
static void project_file_holds_the_bisection_commands(void **state)
{
    culprit_project *p;
    char *path = write_tmp("culprit.json", "{\"build\": \"make -C \\\"$CULPRIT_CHECKOUT\\\"\",\n"
                                           " \"run\": \"./perf --quiet\"}");
    (void)state;
    assert_int_equal(culprit_detect_project_load(&p, path), 0);
    assert_string_equal(culprit_detect_project_command(p, CULPRIT_PROJECT_BUILD),
                        "make -C \"$CULPRIT_CHECKOUT\"");
    assert_string_equal(culprit_detect_project_command(p, CULPRIT_PROJECT_RUN), "./perf --quiet");
    assert_null(culprit_detect_project_command(p, CULPRIT_PROJECT_CALLTREE_BUILD));
    assert_null(culprit_detect_project_command(p, CULPRIT_PROJECT_NCOMMANDS));
    culprit_detect_project_free(p);
    free(path);
}

/* A command that is not a non-empty string is refused with the file and the line of
 * its key (jansson keeps no positions: the line is found by scanning). */
static void bad_project_commands_name_file_and_line(void **state)
{
    static const struct {
        const char *text, *expect;
    } cases[] = {
        {"{\"history\": \"h\",\n  \"build\": 3}", "bad.json:2: \"build\" must be a shell command"},
        {"{\"tests\": {\"run\": {\"category\": \"fast\"}},\n\n  \"run\" :  \"\"}",
         "bad.json:3: \"run\" must be"},
        {"{\n\"calltree_build\": \" \\t \"}", "bad.json:2: \"calltree_build\" must be"},
        {"{\"build\": \"make\",\n \"runn\": \"x\"}", "bad.json:2: unknown key \"runn\""},
    };
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        assert_project_refused(cases[i].text, cases[i].expect, i);
}

/* "fail_on": one of check's --fail-on values, NULL when absent; another value is
 * refused with the file and the line of its key. */
static void project_file_holds_fail_on(void **state)
{
    culprit_project *p;
    char *path = write_tmp("culprit.json", "{\"fail_on\": \"minor\"}");
    (void)state;
    assert_int_equal(culprit_detect_project_load(&p, path), 0);
    assert_string_equal(culprit_detect_project_fail_on(p), "minor");
    culprit_detect_project_free(p);
    free(path);
    assert_int_equal(culprit_detect_project_default(&p), 0);
    assert_null(culprit_detect_project_fail_on(p));
    culprit_detect_project_free(p);
    assert_project_refused("{\"run\": \"x\",\n \"fail_on\": \"minors\"}",
                           "bad.json:2: \"fail_on\" must be \"major\", \"minor\"", 0);
    assert_project_refused("{\"fail_on\": 1}", "\"fail_on\" must be", 1);
}

static void assignments_persist_and_merge_concurrent_writers(void **state)
{
    culprit_assignments *a, *b, *c;
    char *path = culprit_fs_join(dir, "categories.json");
    (void)state;
    unlink(path);
    assert_int_equal(culprit_detect_assignments_load(&a, path), 0); /* missing: empty */
    assert_int_equal(culprit_detect_assignments_count(a), 0);
    assert_int_equal(culprit_detect_assignments_load(&b, path), 0);
    assert_int_equal(culprit_detect_assignments_set(a, "s.x", "fast"), 0);
    assert_int_equal(culprit_detect_assignments_save(a, path), 0);
    /* b loaded before a saved; its save keeps a's entry */
    assert_int_equal(culprit_detect_assignments_set(b, "s.y", "slow"), 0);
    assert_int_equal(culprit_detect_assignments_save(b, path), 0);
    assert_int_equal(culprit_detect_assignments_load(&c, path), 0);
    assert_string_equal(culprit_detect_assignments_get(c, "s.x"), "fast");
    assert_string_equal(culprit_detect_assignments_get(c, "s.y"), "slow");
    assert_int_equal(culprit_detect_assignments_count(c), 2);
    /* an unset entry is not resurrected by the merge */
    assert_int_equal(culprit_detect_assignments_unset(c, "s.x"), 0);
    assert_int_equal(culprit_detect_assignments_save(c, path), 0);
    culprit_detect_assignments_free(c);
    assert_int_equal(culprit_detect_assignments_load(&c, path), 0);
    assert_null(culprit_detect_assignments_get(c, "s.x"));
    culprit_detect_assignments_free(a);
    culprit_detect_assignments_free(b);
    culprit_detect_assignments_free(c);

    /* a corrupt file is refused, not overwritten */
    assert_int_equal(culprit_fs_write_atomic(path, "{\"version\": 9}", 14, 0), 0);
    assert_int_equal(culprit_detect_assignments_load(&a, path), CULPRIT_EINVALID);
    assert_non_null(strstr(culprit_error_last(), "categories.json"));
    free(path);
}

/* The shared history's form: encoded names round-trip, hostile files are refused
 * naming the file, and the first assignment of a test wins. */
static void shared_assignments_round_trip_and_refuse_bad_files(void **state)
{
    static const char *const keys[] = {"fib_perf.fib_24", "s/../x", ".hidden", "a b%c\xc3\xa9"};
    static const struct {
        const char *name, *data, *expect;
    } bad[] = {
        {"bad%zz", "fast\n", "bad%zz: not an encoded test name"},
        {"x%00y", "fast\n", "not an encoded test name"}, /* NUL inside a key */
        {"%4", "fast\n", "not an encoded test name"},    /* truncated escape */
        {".x", "fast\n", "not an encoded test name"},    /* a leading '.' is escaped */
        {"a b", "fast\n", "not an encoded test name"},   /* a space is escaped */
        {"", "fast\n", "not an encoded test name"},
        {"s.t", "", "s.t: not a category name"},
        {"s.t", "fa\nst\n", "not a category name"}, /* two lines */
        {"s.t", "fa\001st", "not a category name"}, /* a control character */
    };
    culprit_assignments *a;
    char *path = culprit_fs_join(dir, "categories.json");
    (void)state;

    unlink(path);
    assert_int_equal(culprit_detect_assignments_load(&a, path), 0);
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        culprit_buf name = CULPRIT_BUF_INIT, content = CULPRIT_BUF_INIT;
        assert_int_equal(culprit_detect_assignments_encode(&name, &content, keys[i], "medium"), 0);
        assert_null(strchr(name.ptr, '/'));
        assert_true(name.ptr[0] != '.');
        assert_string_equal(content.ptr, "medium\n");
        assert_int_equal(culprit_detect_assignments_decode(a, name.ptr, content.ptr, content.size),
                         0);
        assert_string_equal(culprit_detect_assignments_get(a, keys[i]), "medium");
        culprit_buf_dispose(&name);
        culprit_buf_dispose(&content);
    }
    assert_int_equal(culprit_detect_assignments_count(a), 4);
    /* a test already assigned keeps its category */
    assert_int_equal(culprit_detect_assignments_decode(a, "fib_perf.fib_24", "slow\n", 5), 0);
    assert_string_equal(culprit_detect_assignments_get(a, "fib_perf.fib_24"), "medium");
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(
            culprit_detect_assignments_decode(a, bad[i].name, bad[i].data, strlen(bad[i].data)),
            CULPRIT_EINVALID);
        assert_non_null(strstr(culprit_error_last(), bad[i].expect));
    }
    assert_int_equal(culprit_detect_assignments_count(a), 4);
    {
        culprit_buf name = CULPRIT_BUF_INIT, content = CULPRIT_BUF_INIT;
        assert_int_equal(culprit_detect_assignments_encode(&name, &content, "s.t", "fa\nst"),
                         CULPRIT_EINVALID);
        assert_int_equal(culprit_detect_assignments_encode(&name, &content, "", "fast"),
                         CULPRIT_EINVALID);
        culprit_buf_dispose(&name);
        culprit_buf_dispose(&content);
    }
    culprit_detect_assignments_free(a);
    free(path);
}

/* Adopting the shared assignments: a union in which the file's entry wins. */
static void adopt_adds_missing_assignments_and_keeps_the_files(void **state)
{
    culprit_assignments *local, *shared, *c;
    char *path = culprit_fs_join(dir, "categories.json");
    size_t added = 99;
    (void)state;

    unlink(path);
    assert_int_equal(culprit_detect_assignments_load(&shared, path), 0);
    assert_int_equal(culprit_detect_assignments_set(shared, "s.x", "slow"), 0);
    assert_int_equal(culprit_detect_assignments_set(shared, "s.y", "fast"), 0);
    /* into a missing file: both */
    assert_int_equal(culprit_detect_assignments_adopt(&added, path, shared), 0);
    assert_int_equal(added, 2);
    /* the local file re-assigns s.x and adds s.z */
    assert_int_equal(culprit_detect_assignments_load(&local, path), 0);
    assert_int_equal(culprit_detect_assignments_set(local, "s.x", "medium"), 0);
    assert_int_equal(culprit_detect_assignments_set(local, "s.z", "fast"), 0);
    assert_int_equal(culprit_detect_assignments_save(local, path), 0);
    /* adopting again: nothing new, the local s.x stays */
    assert_int_equal(culprit_detect_assignments_set(shared, "s.w", "medium"), 0);
    assert_int_equal(culprit_detect_assignments_adopt(&added, path, shared), 0);
    assert_int_equal(added, 1);
    assert_int_equal(culprit_detect_assignments_adopt(&added, path, shared), 0);
    assert_int_equal(added, 0);
    assert_int_equal(culprit_detect_assignments_load(&c, path), 0);
    assert_int_equal(culprit_detect_assignments_count(c), 4);
    assert_string_equal(culprit_detect_assignments_get(c, "s.x"), "medium");
    assert_string_equal(culprit_detect_assignments_get(c, "s.y"), "fast");
    assert_string_equal(culprit_detect_assignments_get(c, "s.z"), "fast");
    assert_string_equal(culprit_detect_assignments_get(c, "s.w"), "medium");
    culprit_detect_assignments_free(c);
    /* a corrupt file is refused and left as it was */
    assert_int_equal(culprit_fs_write_atomic(path, "{\"version\": 9}", 14, 0), 0);
    assert_int_equal(culprit_detect_assignments_adopt(&added, path, shared), CULPRIT_EINVALID);
    assert_int_equal(culprit_detect_assignments_load(&c, path), CULPRIT_EINVALID);
    culprit_detect_assignments_free(local);
    culprit_detect_assignments_free(shared);
    free(path);
}

/* 8 processes at once, each loading, assigning its own test and saving, as 8 test
 * binaries starting together on a fresh history do; 20 times. Every assignment
 * must be kept (before the lock: 2 to 6 of 6 in 10 trials). */
static void eight_concurrent_writers_keep_every_assignment(void **state)
{
    char *path = culprit_fs_join(dir, "concurrent.json");
    (void)state;

    for (int trial = 0; trial < 20; trial++) {
        pid_t pids[8];
        culprit_assignments *all = NULL;
        unlink(path);
        for (int w = 0; w < 8; w++) {
            assert_true((pids[w] = fork()) >= 0);
            if (pids[w] == 0) {
                culprit_assignments *a = NULL;
                char key[32];
                snprintf(key, sizeof(key), "suite%d.test", w);
                _exit(culprit_detect_assignments_load(&a, path) < 0 ||
                      culprit_detect_assignments_set(a, key, w % 2 ? "fast" : "slow") < 0 ||
                      culprit_detect_assignments_save(a, path) < 0);
            }
        }
        for (int w = 0; w < 8; w++) {
            int status;
            assert_int_equal(waitpid(pids[w], &status, 0), pids[w]);
            assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        }
        assert_int_equal(culprit_detect_assignments_load(&all, path), 0);
        assert_int_equal(culprit_detect_assignments_count(all), 8);
        culprit_detect_assignments_free(all);
    }
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_are_contiguous_fast_medium_slow),
        cmocka_unit_test(durations_parse_with_units),
        cmocka_unit_test(project_file_overrides_categories_and_tests),
        cmocka_unit_test(bad_project_files_name_file_and_key),
        cmocka_unit_test(project_file_holds_the_bisection_commands),
        cmocka_unit_test(bad_project_commands_name_file_and_line),
        cmocka_unit_test(project_file_holds_fail_on),
        cmocka_unit_test(assignments_persist_and_merge_concurrent_writers),
        cmocka_unit_test(eight_concurrent_writers_keep_every_assignment),
        cmocka_unit_test(shared_assignments_round_trip_and_refuse_bad_files),
        cmocka_unit_test(adopt_adds_missing_assignments_and_keeps_the_files),
    };
    return cmocka_run_group_tests(tests, test_tmpdir_setup, test_tmpdir_teardown);
}
