/*
 * culprit_history_read_report() (framework/history/report.c): the runs of a report
 * merged by `culprit junit` come back one per <testsuite>, with their tests and
 * summaries; a history file or a single-run report is one run; a cut-off or foreign
 * document is refused with the file's name and nothing kept.
 */
#include "support/test.h"
#include "support/tmpdir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "culprit/history.h"

static culprit_run *run_of(const char *suite, const char *test, double mean)
{
    culprit_run *run = NULL;
    culprit_test_result *t = NULL;
    double x[3] = {mean - 1, mean, mean + 1};

    assert_int_equal(culprit_history_run_new(&run), 0);
    culprit_str_set(&run->suite, suite);
    culprit_str_set(&run->commit, "0123456789abcdef0123456789abcdef01234567");
    culprit_str_set(&run->timestamp, "2026-11-27T02:00:00Z");
    assert_int_equal(culprit_history_run_add_test(&t, run), 0);
    culprit_str_set(&t->name, test);
    culprit_str_set(&t->classname, suite);
    culprit_str_set(&t->metric, "wall_ns");
    t->status = CULPRIT_STATUS_PASS;
    t->summary.n = 3;
    t->summary.mean = mean;
    t->summary.sd = 1;
    assert_int_equal(culprit_history_test_result_add_series(t, "wall_ns", x, 3, 0), 0);
    return run;
}

static char *write_doc(const char *name, const char *data, size_t len)
{
    char *path = malloc(strlen(test_tmpdir) + strlen(name) + 2);
    FILE *f;

    sprintf(path, "%s/%s", test_tmpdir, name);
    assert_non_null(f = fopen(path, "wb"));
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
    return path;
}

static void merged_report_gives_each_run(void **state)
{
    culprit_run *runs[3] = {run_of("a", "t1", 100), run_of("a", "t2", 200), run_of("b", "t3", 300)};
    culprit_history_runs back;
    culprit_buf doc = CULPRIT_BUF_INIT;
    char *path;

    (void)state;
    assert_int_equal(culprit_history_format_runs(&doc, (const culprit_run *const *)runs, 3,
                                                 CULPRIT_HISTORY_REPORT),
                     0);
    path = write_doc("merged.xml", doc.ptr, doc.size);
    assert_int_equal(culprit_history_read_report(&back, path, 0), 0);
    assert_int_equal(back.nruns, 3);
    for (size_t i = 0; i < 3; i++) {
        assert_string_equal(back.runs[i]->suite, runs[i]->suite);
        assert_int_equal(back.runs[i]->ntests, 1);
        assert_string_equal(back.runs[i]->tests[0].name, runs[i]->tests[0].name);
        assert_string_equal(back.runs[i]->path, path);
    }
    culprit_history_runs_dispose(&back);

    /* Cut off inside the second run: refused, naming the file, nothing kept. */
    free(path);
    path = write_doc("cut.xml", doc.ptr,
                     strstr(strstr(doc.ptr, "</testsuite>") + 1, "</testsuite>") - doc.ptr - 40);
    assert_int_equal(culprit_history_read_report(&back, path, 0), CULPRIT_EINVALID);
    assert_non_null(strstr(culprit_error_last(), "cut.xml"));
    assert_int_equal(back.nruns, 0);
    assert_null(back.runs);
    free(path);
    culprit_buf_dispose(&doc);
    for (size_t i = 0; i < 3; i++)
        culprit_history_run_free(runs[i]);
}

static void history_file_is_one_run(void **state)
{
    culprit_run *run = run_of("a", "t1", 100);
    culprit_history_runs back;
    culprit_buf doc = CULPRIT_BUF_INIT;
    char *path;

    (void)state;
    assert_int_equal(culprit_history_format(&doc, run), 0);
    path = write_doc("run.xml", doc.ptr, doc.size);
    assert_int_equal(culprit_history_read_report(&back, path, CULPRIT_HISTORY_LOAD_SAMPLES), 0);
    assert_int_equal(back.nruns, 1);
    assert_int_equal(back.runs[0]->tests[0].summary.n, 3);
    culprit_history_runs_dispose(&back);
    free(path);

    /* Foreign documents: not JUnit, no run, missing. */
    path = write_doc("foreign.xml", "<testsuites><x/></testsuites>", 29);
    assert_int_equal(culprit_history_read_report(&back, path, 0), CULPRIT_EINVALID);
    assert_int_equal(back.nruns, 0);
    free(path);
    path = write_doc("empty.xml", "", 0);
    assert_true(culprit_history_read_report(&back, path, 0) < 0);
    free(path);
    assert_true(culprit_history_read_report(&back, "/nonexistent/report.xml", 0) < 0);
    culprit_buf_dispose(&doc);
    culprit_history_run_free(run);
}

/* Several files at once (culprit_history_read_reports, `compare`'s two sides, read on
 * several threads): each as culprit_history_read_report() reads it; with a bad file,
 * the error of the first bad one in order, and nothing kept in any. */
static void several_reports_read_at_once(void **state)
{
    culprit_run *runs[3] = {run_of("a", "t1", 100), run_of("a", "t2", 200), run_of("b", "t3", 300)};
    culprit_history_runs back[3];
    culprit_buf doc = CULPRIT_BUF_INIT, one = CULPRIT_BUF_INIT;
    char *paths[3], *bad, *worse;
    const char *which[3];

    (void)state;
    assert_int_equal(culprit_history_format_runs(&doc, (const culprit_run *const *)runs, 3,
                                                 CULPRIT_HISTORY_REPORT),
                     0);
    paths[0] = write_doc("many0.xml", doc.ptr, doc.size);
    assert_int_equal(culprit_history_format(&one, runs[1]), 0);
    paths[1] = write_doc("many1.xml", one.ptr, one.size);
    paths[2] = write_doc("many2.xml", doc.ptr, doc.size);
    bad = write_doc("bad.xml", "<testsuites><x/></testsuites>", 29);
    worse = write_doc("worse.xml", doc.ptr, 100);
    setenv("CULPRIT_THREADS", "3", 1);
    assert_int_equal(culprit_history_read_reports(back, (const char *const *)paths, 3, 0), 0);
    assert_int_equal(back[0].nruns, 3);
    assert_int_equal(back[1].nruns, 1);
    assert_int_equal(back[2].nruns, 3);
    assert_string_equal(back[1].runs[0]->tests[0].name, "t2");
    assert_string_equal(back[2].runs[2]->tests[0].name, "t3");
    assert_string_equal(back[2].runs[2]->path, paths[2]);
    for (size_t i = 0; i < 3; i++)
        culprit_history_runs_dispose(&back[i]);

    which[0] = paths[0], which[1] = bad, which[2] = worse;
    assert_int_equal(culprit_history_read_reports(back, which, 3, 0), CULPRIT_EINVALID);
    assert_non_null(strstr(culprit_error_last(), "bad.xml"));
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(back[i].nruns, 0);
    which[1] = paths[1];
    assert_int_equal(culprit_history_read_reports(back, which, 3, 0), CULPRIT_EINVALID);
    assert_non_null(strstr(culprit_error_last(), "worse.xml"));
    assert_int_equal(culprit_history_read_reports(back, which, 0, 0), 0);
    unsetenv("CULPRIT_THREADS");

    for (size_t i = 0; i < 3; i++) {
        free(paths[i]);
        culprit_history_run_free(runs[i]);
    }
    free(bad);
    free(worse);
    culprit_buf_dispose(&doc);
    culprit_buf_dispose(&one);
}

/* A merged report in the history directory: its runs are loaded, once each beside the
 * run files of the same runs (`culprit check` on a CI artifact). */
static void store_reads_a_merged_report(void **state)
{
    culprit_run *runs[3] = {run_of("a", "t1", 100), run_of("a", "t2", 200), run_of("b", "t3", 300)};
    const char *ids[3] = {"id-1", "id-2", "id-3"};
    culprit_history *store = NULL;
    culprit_history_runs back;
    culprit_buf doc = CULPRIT_BUF_INIT;
    char *path;

    (void)state;
    path = write_doc("store", "", 0); /* the name taken, then made a directory */
    assert_int_equal(remove(path), 0);
    assert_int_equal(mkdir(path, 0700), 0);
    free(path);
    for (size_t i = 0; i < 3; i++)
        culprit_str_set(&runs[i]->id, ids[i]);
    for (size_t i = 0; i < 2; i++) {
        char name[32];
        snprintf(name, sizeof(name), "store/run%zu.xml", i);
        assert_int_equal(culprit_history_format(&doc, runs[i]), 0);
        free(write_doc(name, doc.ptr, doc.size));
        culprit_buf_clear(&doc);
    }
    assert_int_equal(culprit_history_format_runs(&doc, (const culprit_run *const *)runs, 3,
                                                 CULPRIT_HISTORY_REPORT),
                     0);
    path = write_doc("store/perf-report.xml", doc.ptr, doc.size);
    *strrchr(path, '/') = '\0';
    assert_int_equal(culprit_history_open(&store, path, 0), 0);
    assert_int_equal(culprit_history_load(&back, store, NULL, NULL, NULL), 0);
    assert_int_equal(back.nruns, 3);
    assert_int_equal(back.nskipped, 0);
    for (size_t i = 0; i < 3; i++)
        assert_non_null(back.runs[i]->id);
    culprit_history_runs_dispose(&back);
    culprit_history_free(store);
    free(path);
    culprit_buf_dispose(&doc);
    for (size_t i = 0; i < 3; i++)
        culprit_history_run_free(runs[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(merged_report_gives_each_run),
        cmocka_unit_test(history_file_is_one_run),
        cmocka_unit_test(several_reports_read_at_once),
        cmocka_unit_test(store_reads_a_merged_report),
    };
    return cmocka_run_group_tests(tests, test_tmpdir_setup, test_tmpdir_teardown);
}
