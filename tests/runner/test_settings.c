/* Tests of framework/runner/settings.c: where the history directory comes from, and
 * whether a bisection's or an investigation's own runs are recorded there
 * (culprit_settings.record_sessions): only into a directory that was named, never into
 * the project file's or the default one in the working tree. */
#include "support/test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "culprit/runner.h"
#include "support/tmpdir.h"

static void resolve(culprit_settings *s, const char *history_dir)
{
    culprit_project *project = NULL;

    assert_int_equal(culprit_runner_settings_resolve(s, &project, test_tmpdir, NULL, history_dir),
                     0);
    culprit_detect_project_free(project);
}

static void sessions_record_only_into_a_named_directory(void **state)
{
    culprit_settings s;
    char project[4096];
    FILE *f;

    (void)state;
    unsetenv("CULPRIT_HISTORY_DIR");
    resolve(&s, "/tmp/named");
    assert_string_equal(s.history_dir, "/tmp/named");
    assert_int_equal(s.record_sessions, 1);
    culprit_runner_settings_dispose(&s);

    resolve(&s, NULL); /* the default, in the working tree */
    assert_non_null(strstr(s.history_dir, ".culprit/history"));
    assert_int_equal(s.record_sessions, 0);
    culprit_runner_settings_dispose(&s);

    setenv("CULPRIT_HISTORY_DIR", "", 1); /* empty: as unset */
    resolve(&s, NULL);
    assert_int_equal(s.record_sessions, 0);
    culprit_runner_settings_dispose(&s);

    setenv("CULPRIT_HISTORY_DIR", "/tmp/from-env", 1);
    resolve(&s, NULL);
    assert_string_equal(s.history_dir, "/tmp/from-env");
    assert_int_equal(s.record_sessions, 1);
    culprit_runner_settings_dispose(&s);
    unsetenv("CULPRIT_HISTORY_DIR");

    snprintf(project, sizeof(project), "%s/culprit.json", test_tmpdir);
    assert_non_null(f = fopen(project, "w"));
    fputs("{\"history\": \"perf-history\"}\n", f);
    fclose(f);
    resolve(&s, NULL); /* the project file's: in the working tree too */
    assert_non_null(strstr(s.history_dir, "/perf-history"));
    assert_int_equal(s.record_sessions, 0);
    culprit_runner_settings_dispose(&s);
    remove(project);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sessions_record_only_into_a_named_directory),
    };
    return cmocka_run_group_tests(tests, test_tmpdir_setup, test_tmpdir_teardown);
}
