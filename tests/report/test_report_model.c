/*
 * Unit tests of the report model's helpers (framework/report/model.c) on a report
 * built by hand: which point is "now", the counts, which test a bisection was
 * about, the format names, and the renderers on an empty report (a fresh
 * repository: nothing measured yet, nothing loaded). And the readers of the
 * commands' documents (framework/bisect/bisect_json_read.c,
 * framework/calltree/calltree_json_read.c): they fill the typed results the report holds, with
 * enums for the words, and a word the writers never write is an error naming the file and the
 * field.
 */
#include "support/test.h"

#include "culprit/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DATA CULPRIT_SOURCE_DIR "/tests/report/data/"

/* A report of three commits and two tests: a.x measured at all three (major at the
 * last), b.y only at the first (so not measured "now"). */
static culprit_report *two_tests(void)
{
    culprit_report *r;
    culprit_report_series *s;

    assert_int_equal(culprit_report_new(&r), 0);
    r->ncommits = 3;
    assert_non_null(r->commits = calloc(3, sizeof(*r->commits)));
    for (int i = 0; i < 3; i++)
        memset(r->commits[i].sha, 'a' + i, 40);
    memcpy(r->commit, r->commits[2].sha, 41);
    r->nseries = 2;
    assert_non_null(r->series = calloc(2, sizeof(*r->series)));
    s = &r->series[0];
    s->test = strdup("a.x");
    s->npoints = s->apoints = 3;
    assert_non_null(s->points = calloc(3, sizeof(*s->points)));
    for (size_t i = 0; i < 3; i++) {
        s->points[i].commit = i;
        s->points[i].mean_ns = i == 2 ? 5e6 : 1e5;
        s->points[i].verdict = i == 2 ? CULPRIT_VERDICT_MAJOR : CULPRIT_VERDICT_UNCHANGED;
        s->points[i].change = s->points[i].low_ns = s->points[i].high_ns = NAN;
    }
    s = &r->series[1];
    s->test = strdup("b.y");
    s->npoints = s->apoints = 1;
    assert_non_null(s->points = calloc(1, sizeof(*s->points)));
    s->points[0].verdict = CULPRIT_VERDICT_MINOR;
    return r;
}

static void current_point_is_the_one_at_the_reported_commit(void **state)
{
    culprit_report *r = two_tests();

    (void)state;
    assert_ptr_equal(culprit_report_current(r, &r->series[0]), &r->series[0].points[2]);
    assert_null(culprit_report_current(r, &r->series[1])); /* measured earlier only */
    assert_int_equal(culprit_report_count(r, CULPRIT_VERDICT_MAJOR), 1);
    assert_int_equal(culprit_report_count(r, CULPRIT_VERDICT_MINOR), 0); /* not now */
    culprit_report_free(r);
}

/* A run of test "x" (category "fast") at `commit`, mean `mean` ns. */
static culprit_run *run_at(const char *commit, const char *stamp, double mean)
{
    culprit_run *run;
    culprit_test_result *t;

    assert_int_equal(culprit_history_run_new(&run), 0);
    culprit_str_set(&run->suite, "s");
    culprit_str_set(&run->commit, commit);
    culprit_str_set(&run->timestamp, stamp);
    culprit_str_set(&run->id, stamp);
    assert_int_equal(culprit_history_run_add_test(&t, run), 0);
    culprit_str_set(&t->name, "x");
    culprit_str_set(&t->category, "fast");
    t->category_high_ns = 1e9;
    t->summary = (culprit_summary){30, mean, mean / 100, mean, mean, mean, mean, mean, 0.99};
    return run;
}

/* Issue 23: each point takes its verdict's message and category (moved, not copied):
 * the same text as the check of that commit gives. */
static void points_carry_the_check_s_message_and_category(void **state)
{
    char a[41], b[41];
    const char *chain[2] = {b, a}; /* newest first */
    culprit_report_commit commits[2];
    culprit_run *runs_[2];
    culprit_history_runs runs = {2, runs_, 0};
    culprit_check_result check;
    culprit_report *r;
    (void)state;

    memset(a, 'a', 40), memset(b, 'b', 40);
    a[40] = b[40] = '\0';
    memset(commits, 0, sizeof(commits));
    memcpy(commits[0].sha, b, 41);
    memcpy(commits[1].sha, a, 41);
    runs_[0] = run_at(a, "2026-01-01T00:00:00Z", 1000);
    runs_[1] = run_at(b, "2026-01-02T00:00:00Z", 3000);
    assert_int_equal(culprit_report_new(&r), 0);
    assert_int_equal(culprit_report_add_history(r, &runs, commits, 2, chain, 2, NULL), 0);
    assert_int_equal(r->nseries, 1);
    assert_int_equal(r->series[0].npoints, 2);
    assert_int_equal(culprit_detect_check(&check, &runs, b, chain + 1, 1, NULL), 0);
    assert_non_null(check.verdicts[0].message);
    assert_string_equal(r->series[0].points[1].message, check.verdicts[0].message);
    assert_string_equal(r->series[0].points[1].category, "fast");
    assert_string_equal(r->series[0].points[0].category, "fast");
    assert_non_null(r->series[0].points[0].message);
    culprit_detect_check_result_dispose(&check);
    culprit_report_free(r);
    culprit_history_run_free(runs_[0]);
    culprit_history_run_free(runs_[1]);
}

static void bisection_belongs_to_its_test_by_full_or_bare_name(void **state)
{
    culprit_report *r = two_tests();

    (void)state;
    assert_false(culprit_report_bisect_is_of(r, &r->series[0])); /* no bisection */
    assert_non_null(r->bisect = calloc(1, sizeof(*r->bisect)));
    assert_false(culprit_report_bisect_is_of(r, &r->series[0])); /* a --command one */
    r->bisect_test = strdup("a.x");
    assert_true(culprit_report_bisect_is_of(r, &r->series[0]));
    assert_false(culprit_report_bisect_is_of(r, &r->series[1]));
    free(r->bisect_test);
    r->bisect_test = strdup("x"); /* bare test name, as bisect --test accepts */
    assert_true(culprit_report_bisect_is_of(r, &r->series[0]));
    free(r->bisect_test);
    r->bisect_test = strdup(".x"); /* not a name: no match on a suffix alone */
    assert_false(culprit_report_bisect_is_of(r, &r->series[0]));
    culprit_report_free(r);
}

static void formats_parse_by_name(void **state)
{
    culprit_report_format f;

    (void)state;
    assert_int_equal(culprit_report_format_parse(&f, "html"), 0);
    assert_int_equal(f, CULPRIT_REPORT_HTML);
    assert_int_equal(culprit_report_format_parse(&f, "md"), 0);
    assert_int_equal(f, CULPRIT_REPORT_MARKDOWN);
    assert_int_equal(culprit_report_format_parse(&f, "text"), 0);
    assert_int_equal(f, CULPRIT_REPORT_TEXT);
    assert_int_equal(culprit_report_format_parse(&f, "HTML"), CULPRIT_EINVALID);
    assert_non_null(strstr(culprit_error_last(), "'HTML' is not a report format"));
}

static void empty_report_renders_in_every_format(void **state)
{
    culprit_report *r;

    (void)state;
    assert_int_equal(culprit_report_new(&r), 0);
    for (int f = CULPRIT_REPORT_HTML; f <= CULPRIT_REPORT_TEXT; f++) {
        culprit_buf out = CULPRIT_BUF_INIT;
        assert_int_equal(culprit_report_render(&out, r, (culprit_report_format)f), 0);
        assert_true(out.size > 0);
        if (f == CULPRIT_REPORT_HTML)
            assert_non_null(strstr(out.ptr, "No measurements in this window of history."));
        if (f == CULPRIT_REPORT_MARKDOWN)
            assert_non_null(strstr(out.ptr, "No test was measured at this commit."));
        culprit_buf_dispose(&out);
    }
    culprit_report_free(r);
    culprit_report_free(NULL); /* harmless */
}

static void regressed_test_is_plotted_first_with_its_mark(void **state)
{
    culprit_report *r = two_tests();
    culprit_buf out = CULPRIT_BUF_INIT;
    const char *major, *other;

    (void)state;
    assert_int_equal(culprit_report_render(&out, r, CULPRIT_REPORT_HTML), 0);
    major = strstr(out.ptr, "<code>a.x</code>");
    other = strstr(out.ptr, "<code>b.y</code>");
    assert_non_null(major);
    assert_non_null(other);
    assert_true(major < other);
    assert_non_null(strstr(out.ptr, "<g class=\"pt v-major\">"));
    culprit_buf_dispose(&out);
    culprit_report_free(r);
}

static void changed_lines_are_cut_from_the_source_with_context(void **state)
{
    const char *source = "one\ntwo\nthree\nfour\nfive\nsix\nseven"; /* no final newline */
    culprit_report *r = two_tests();
    culprit_report_node *n;

    (void)state;
    assert_int_equal(culprit_report_set_source(r, 0, source, strlen(source)), CULPRIT_EINVALID);
    assert_non_null(r->calltree = calloc(1, sizeof(*r->calltree)));
    r->calltree->nnodes = 1;
    assert_non_null(r->calltree->nodes = calloc(1, sizeof(*r->calltree->nodes)));
    n = &r->calltree->nodes[0];
    n->function = strdup("f");
    n->nchanged = 3;
    assert_non_null(n->changed_lines = calloc(3, sizeof(*n->changed_lines)));
    n->changed_lines[0][0] = 2, n->changed_lines[0][1] = 3;
    n->changed_lines[1][0] = 7, n->changed_lines[1][1] = 7;   /* the last line */
    n->changed_lines[2][0] = 40, n->changed_lines[2][1] = 41; /* past the end: left out */
    assert_int_equal(culprit_report_set_source(r, 0, source, strlen(source)), 0);
    assert_string_equal(n->diff, "     1  one\n"
                                 "+    2  two\n"
                                 "+    3  three\n"
                                 "     4  four\n"
                                 "   ...\n"
                                 "     6  six\n"
                                 "+    7  seven\n");
    culprit_report_free(r);
}

static void bisect_document_reads_into_the_typed_result(void **state)
{
    culprit_bisect_result b;
    culprit_calltree_view *calltree = (culprit_calltree_view *)&b; /* overwritten */
    char *test = NULL;

    (void)state;
    assert_int_equal(culprit_bisect_result_from_json(&b, &test, &calltree, DATA "bisect.json"), 0);
    assert_int_equal(b.outcome, CULPRIT_BISECT_RESULT_FOUND);
    assert_string_equal(test, "perf.major");
    assert_null(calltree); /* the document embeds no analysis */
    assert_string_equal(b.culprit, "<c3>");
    assert_int_equal(b.confirmed, 1);
    assert_int_equal(b.ncommits, 2);
    assert_int_equal(b.nsteps, 3);
    assert_int_equal(b.steps[0].verdict, CULPRIT_BISECT_BAD);
    assert_int_equal(b.steps[1].verdict, CULPRIT_BISECT_GOOD);
    assert_string_equal(b.steps[1].good, "<c1>");
    assert_int_equal(b.steps[1].runs, 10);
    assert_int_equal(b.nculprits, 1);
    assert_true(fabs(b.culprits[0].change - 2.0) < 1e-12);
    assert_string_equal(culprit_bisect_outcome_name(b.outcome), "found");
    assert_string_equal(culprit_bisect_verdict_name(b.steps[2].verdict), "bad");
    free(test);
    culprit_bisect_result_dispose(&b);
}

static void calltree_documents_read_into_a_view_and_a_table(void **state)
{
    culprit_calltree_view *v = NULL;
    culprit_calltree_overweight_table *t = NULL;

    (void)state;
    /* Only suspect paths: the tree is their union, foo shared by both. */
    assert_int_equal(culprit_calltree_view_from_json(&v, DATA "calltree_paths.json"), 0);
    assert_string_equal(v->nodes[0].function, "foo");
    assert_int_equal(v->nodes[0].status, CULPRIT_CALLTREE_VIEW_SLOWER);
    assert_int_equal(v->nodes[2].parent, 1);
    assert_int_equal(v->nodes[2].depth, 3);
    assert_true(v->nodes[2].changed);
    assert_int_equal(v->nodes[3].status, CULPRIT_CALLTREE_VIEW_UNCHANGED);
    assert_int_equal(v->nodes[3].parent, 0);
    assert_int_equal(v->nsuspects, 2);
    assert_null(culprit_calltree_view_status_name(CULPRIT_CALLTREE_VIEW_UNKNOWN));
    assert_string_equal(culprit_calltree_view_status_name(CULPRIT_CALLTREE_VIEW_SHAPE), "shape");
    culprit_calltree_view_free(v);
    assert_int_equal(culprit_calltree_overweight_table_from_json(&t, DATA "overweight.json"), 0);
    assert_true(t->nrows > 0);
    assert_string_equal(t->rows[0].symbol, "fem");
    assert_true(fabs(t->rows[0].responsibility_pct - 100.0) < 1e-9);
    culprit_calltree_overweight_table_free(t);
    culprit_calltree_view_free(NULL);
    culprit_calltree_overweight_table_free(NULL);
}

/* Writes `text` to a file of its own; the caller unlinks it. */
static void write_doc(char *path, size_t size, const char *text)
{
    FILE *f;

    snprintf(path, size, "%s/report_model_%d.json", CULPRIT_BINARY_DIR, (int)getpid());
    assert_non_null(f = fopen(path, "w"));
    fputs(text, f);
    fclose(f);
}

static void unknown_words_are_errors_naming_the_file_and_the_field(void **state)
{
    static const struct {
        int bisect; /* else a calltree diff document */
        const char *text, *message;
    } cases[] = {
        {1, "{\"command\": \"bisect\", \"outcome\": \"weird\"}",
         "\"outcome\" 'weird' is not one of found, ambiguous, no-regression, slow-decay"},
        {1, "{\"command\": \"bisect\"}", "has no \"outcome\""},
        {1, "{\"command\": \"bisect\", \"outcome\": \"found\", \"steps\": [{\"verdict\": \"ok\"}]}",
         ": step 0: \"verdict\" 'ok' is not one of good, bad, skip"},
        {1, "{\"command\": \"bisect\", \"outcome\": \"found\", \"steps\": [{}]}",
         ": step 0 has no \"verdict\""},
        {1,
         "{\"command\": \"bisect\", \"outcome\": \"found\", \"calltree\": "
         "{\"nodes\": [{\"function\": \"f\", \"status\": \"renamed\"}]}}",
         ": node 0 has an unknown \"status\" 'renamed'"},
        {0,
         "{\"command\": \"calltree diff\", \"nodes\": [{\"function\": \"f\", \"verdict\": 1}, "
         "{\"function\": \"g\", \"verdict\": \"lower\"}]}",
         ": node 1 has an unknown \"verdict\" 'lower'"},
    };
    char path[512], want[600];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        culprit_report *r;
        write_doc(path, sizeof(path), cases[i].text);
        assert_int_equal(culprit_report_new(&r), 0);
        assert_int_equal(cases[i].bisect ? culprit_report_load_bisect(r, path)
                                         : culprit_report_load_calltree(r, path),
                         CULPRIT_EINVALID);
        /* The option that named the file, the file, then what is wrong in it. */
        snprintf(want, sizeof(want), "%s: '%s'", cases[i].bisect ? "--bisect" : "--calltree", path);
        assert_memory_equal(culprit_error_last(), want, strlen(want));
        if (!strstr(culprit_error_last(), cases[i].message))
            fail_msg("case %zu: '%s' lacks '%s'", i, culprit_error_last(), cases[i].message);
        assert_null(r->bisect); /* nothing half-read is kept */
        assert_null(r->calltree);
        culprit_report_free(r);
        unlink(path);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(current_point_is_the_one_at_the_reported_commit),
        cmocka_unit_test(points_carry_the_check_s_message_and_category),
        cmocka_unit_test(bisection_belongs_to_its_test_by_full_or_bare_name),
        cmocka_unit_test(formats_parse_by_name),
        cmocka_unit_test(empty_report_renders_in_every_format),
        cmocka_unit_test(regressed_test_is_plotted_first_with_its_mark),
        cmocka_unit_test(changed_lines_are_cut_from_the_source_with_context),
        cmocka_unit_test(bisect_document_reads_into_the_typed_result),
        cmocka_unit_test(calltree_documents_read_into_a_view_and_a_table),
        cmocka_unit_test(unknown_words_are_errors_naming_the_file_and_the_field),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
