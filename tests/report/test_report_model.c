/*
 * Unit tests of the report model's helpers (framework/report/model.c) on a report
 * built by hand: which point is "now", the counts, which test a bisection was
 * about, the format names, and the renderers on an empty report (a fresh
 * repository: nothing measured yet, nothing loaded).
 */
#include "support/test.h"

#include "culprit/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

static void bisection_belongs_to_its_test_by_full_or_bare_name(void **state)
{
    culprit_report *r = two_tests();

    (void)state;
    assert_false(culprit_report_bisect_is_of(r, &r->series[0])); /* no bisection */
    assert_non_null(r->bisect = calloc(1, sizeof(*r->bisect)));
    assert_false(culprit_report_bisect_is_of(r, &r->series[0])); /* a --command one */
    r->bisect->test = strdup("a.x");
    assert_true(culprit_report_bisect_is_of(r, &r->series[0]));
    assert_false(culprit_report_bisect_is_of(r, &r->series[1]));
    free(r->bisect->test);
    r->bisect->test = strdup("x"); /* bare test name, as bisect --test accepts */
    assert_true(culprit_report_bisect_is_of(r, &r->series[0]));
    free(r->bisect->test);
    r->bisect->test = strdup(".x"); /* not a name: no match on a suffix alone */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(current_point_is_the_one_at_the_reported_commit),
        cmocka_unit_test(bisection_belongs_to_its_test_by_full_or_bare_name),
        cmocka_unit_test(formats_parse_by_name),
        cmocka_unit_test(empty_report_renders_in_every_format),
        cmocka_unit_test(regressed_test_is_plotted_first_with_its_mark),
        cmocka_unit_test(changed_lines_are_cut_from_the_source_with_context),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
