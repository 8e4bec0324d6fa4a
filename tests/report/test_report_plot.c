/*
 * The HTML report's plot reads at a glance on a real history (issue 27): a window
 * of 30 commits in which the test was measured at the newest 6, two minor
 * regressions next to each other whose marks would collide, one of them
 * unconfirmed, and the "medium < 100 ms" limit in the picture. The page is
 * rendered and its SVG parsed: every text's box (estimated from its font size and
 * characters with the renderer's own culprit_report__text_box()) must overlap no
 * other and stay inside the picture, the marks and limit names inside the plot
 * area; the axis must span the measured commits; the unconfirmed point must carry
 * its own class and the legend explain it.
 *
 * With CULPRIT_REPORT_KEEP=FILE the page is also written to FILE, for
 * report_labels.sh to measure in headless Chromium and take a screenshot of.
 */
#include "support/test.h"

#include "culprit/report.h"
#include "report/report_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NCOMMITS 30
#define MS       1e6

/* The test's series: commit, mean (ms), verdict, change, unconfirmed. */
static const struct {
    size_t commit;
    double mean_ms;
    culprit_verdict_kind verdict;
    double change;
    int unconfirmed;
} measured[] = {
    {24, 12.0, CULPRIT_VERDICT_UNCHANGED, 0.0, 0},
    {25, 12.1, CULPRIT_VERDICT_UNCHANGED, 0.008, 0},
    {26, 26.8, CULPRIT_VERDICT_MINOR, 1.214, 0},
    {27, 15.5, CULPRIT_VERDICT_IMPROVEMENT, -0.422, 0},
    {28, 26.75, CULPRIT_VERDICT_MINOR, 0.726, 1},
    {29, 27.0, CULPRIT_VERDICT_UNCHANGED, 0.009, 0},
};
#define NMEASURED (sizeof(measured) / sizeof(measured[0]))

static culprit_report *thirty_commits(void)
{
    static const char *const names[] = {"fast", "medium", "slow"};
    static const double limits[] = {1 * MS, 100 * MS, INFINITY};
    culprit_report *r;
    culprit_report_series *s;

    assert_int_equal(culprit_report_new(&r), 0);
    r->ncommits = NCOMMITS;
    assert_non_null(r->commits = calloc(NCOMMITS, sizeof(*r->commits)));
    for (int i = 0; i < NCOMMITS; i++)
        snprintf(r->commits[i].sha, sizeof(r->commits[i].sha), "%08x%032x",
                 (unsigned)(i + 1) * 2654435761u, i);
    memcpy(r->commit, r->commits[NCOMMITS - 1].sha, 41);
    r->ncategories = 3;
    assert_non_null(r->categories = calloc(3, sizeof(*r->categories)));
    for (int i = 0; i < 3; i++) {
        r->categories[i].name = strdup(names[i]);
        r->categories[i].low_ns = i ? limits[i - 1] : 0;
        r->categories[i].high_ns = limits[i];
    }
    r->nseries = 1;
    assert_non_null(r->series = calloc(1, sizeof(*r->series)));
    s = &r->series[0];
    s->test = strdup("markdown.parse_large");
    s->npoints = s->apoints = NMEASURED;
    assert_non_null(s->points = calloc(NMEASURED, sizeof(*s->points)));
    for (size_t i = 0; i < NMEASURED; i++) {
        culprit_report_point *p = &s->points[i];
        p->commit = measured[i].commit;
        p->mean_ns = measured[i].mean_ms * MS;
        p->low_ns = p->mean_ns * 0.97;
        p->high_ns = p->mean_ns * 1.03;
        p->n = 20;
        p->verdict = measured[i].verdict;
        p->change = measured[i].change;
        p->change_low = p->change - 0.02;
        p->change_high = p->change + 0.02;
        p->category_high_ns = 100 * MS;
        p->category = strdup("medium");
        p->unconfirmed = measured[i].unconfirmed;
        if (measured[i].unconfirmed)
            p->evidence = CULPRIT_EVIDENCE_UNCONFIRMED;
    }
    return r;
}

/* The value of attribute `name` in the tag starting at `tag` (up to its '>'). */
static double attr_num(const char *tag, const char *name)
{
    char key[32];
    const char *end = strchr(tag, '>'), *at;

    snprintf(key, sizeof(key), " %s=\"", name);
    at = strstr(tag, key);
    assert_true(at && at < end);
    return strtod(at + strlen(key), NULL);
}

static int attr_is(const char *tag, const char *name, const char *value)
{
    char key[64];
    const char *end = strchr(tag, '>'), *at;

    snprintf(key, sizeof(key), " %s=\"%s", name, value);
    at = strstr(tag, key);
    return at && at < end;
}

/* The text of an element starting at `tag`, HTML entities undone. */
static void text_of(char *out, size_t size, const char *tag)
{
    static const char *const ent[][2] = {
        {"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"}, {"&quot;", "\""}, {"&#39;", "'"}};
    const char *p = strchr(tag, '>') + 1;
    size_t n = 0;

    while (*p && *p != '<' && n + 1 < size) {
        int done = 0;
        for (size_t e = 0; e < sizeof(ent) / sizeof(ent[0]) && !done; e++)
            if (!strncmp(p, ent[e][0], strlen(ent[e][0]))) {
                out[n++] = ent[e][1][0];
                p += strlen(ent[e][0]);
                done = 1;
            }
        if (!done)
            out[n++] = *p++;
    }
    out[n] = '\0';
}

typedef struct {
    culprit_report__box box;
    char text[128], cls[32];
} text_box;

/* Every <text> of the first plot, with the box the renderer would estimate. */
static size_t plot_texts(text_box *out, size_t max, const char *svg, const char *end)
{
    size_t n = 0;

    for (const char *t = strstr(svg, "<text"); t && t < end; t = strstr(t + 1, "<text")) {
        text_box *b = &out[n++];
        const char *anchor = attr_is(t, "text-anchor", "middle") ? "middle"
                             : attr_is(t, "text-anchor", "end")  ? "end"
                                                                 : "start";
        int bold;
        assert_true(n <= max);
        b->cls[0] = '\0';
        if (attr_is(t, "class", ""))
            sscanf(strstr(t, " class=\"") + 8, "%31[^\"]", b->cls);
        text_of(b->text, sizeof(b->text), t);
        bold = !strcmp(b->cls, "mark") || !strcmp(b->cls, "limit-label") ||
               !strcmp(b->cls, "culprit-label");
        culprit_report__text_box(&b->box, attr_num(t, "x"), attr_num(t, "y"),
                                 !strcmp(anchor, "start")    ? CULPRIT_REPORT__START
                                 : !strcmp(anchor, "middle") ? CULPRIT_REPORT__MIDDLE
                                                             : CULPRIT_REPORT__END,
                                 b->text, !strcmp(b->cls, "mono") ? 11.0 * 0.86 : 11.0, bold);
    }
    return n;
}

static void plot_labels_never_overlap_or_clip(void **state)
{
    culprit_report *r = thirty_commits();
    culprit_buf page = CULPRIT_BUF_INIT;
    culprit_report__box picture = {0, 0, 0, 0}, area;
    text_box texts[128];
    const char *svg, *end;
    double lo = INFINITY, hi = -INFINITY;
    size_t n, marks = 0;

    (void)state;
    assert_int_equal(culprit_report_render(&page, r, CULPRIT_REPORT_HTML), 0);
    if (getenv("CULPRIT_REPORT_KEEP")) {
        FILE *f = fopen(getenv("CULPRIT_REPORT_KEEP"), "w");
        assert_non_null(f);
        fputs(culprit_buf_cstr(&page), f);
        fclose(f);
    }
    assert_non_null(svg = strstr(culprit_buf_cstr(&page), "<svg class=\"plot\""));
    assert_non_null(end = strstr(svg, "</svg>"));
    assert_int_equal(sscanf(strstr(svg, "viewBox=\"") + 9, "%lf %lf %lf %lf", &picture.x,
                            &picture.y, &picture.w, &picture.h),
                     4);
    assert_int_equal(sscanf(strstr(svg, "data-area=\"") + 11, "%lf %lf %lf %lf", &area.x, &area.y,
                            &area.w, &area.h),
                     4);
    n = plot_texts(texts, sizeof(texts) / sizeof(texts[0]), svg, end);
    for (size_t i = 0; i < n; i++) {
        int in_area = !strcmp(texts[i].cls, "mark") || !strcmp(texts[i].cls, "limit-label");
        if (!culprit_report__box_inside(&texts[i].box, in_area ? &area : &picture))
            fail_msg("'%s' (%s) at x %.1f..%.1f, y %.1f..%.1f is cut off by the %s", texts[i].text,
                     texts[i].cls, texts[i].box.x, texts[i].box.x + texts[i].box.w, texts[i].box.y,
                     texts[i].box.y + texts[i].box.h, in_area ? "plot area" : "picture");
        for (size_t k = 0; k < i; k++)
            if (culprit_report__box_overlaps(&texts[i].box, &texts[k].box))
                fail_msg("'%s' overlaps '%s'", texts[i].text, texts[k].text);
        marks += !strcmp(texts[i].cls, "mark");
    }
    /* Both regressions labelled, the unconfirmed one as such; the limit named. */
    assert_int_equal(marks, 2);
    assert_non_null(strstr(svg, ">MINOR +121.4%</text>"));
    assert_non_null(strstr(svg, ">unconfirmed +72.6%</text>"));
    assert_non_null(strstr(svg, "class=\"limit-label\""));
    assert_non_null(strstr(svg, ">medium &lt; 100.00 ms</text>"));
    /* The unconfirmed point drawn apart, and explained in the legend. */
    assert_non_null(strstr(svg, "<g class=\"pt v-minor unconfirmed\">"));
    assert_non_null(strstr(svg, "<g class=\"pt v-minor\">"));
    assert_non_null(strstr(culprit_buf_cstr(&page), "svg .v-minor.unconfirmed circle{fill:"));
    assert_non_null(strstr(culprit_buf_cstr(&page), "unconfirmed minor: "));
    /* The axis spans the measured commits: their points use most of the width. */
    for (const char *g = strstr(svg, "<g class=\"pt "); g && g < end;
         g = strstr(g + 1, "<g class=\"pt ")) {
        double x = attr_num(strstr(g, "<circle"), "cx");
        lo = fmin(lo, x);
        hi = fmax(hi, x);
    }
    if (hi - lo < 0.7 * area.w)
        fail_msg("the 6 measured commits span %.0f of the plot's %.0f units", hi - lo, area.w);
    /* The commits left off the axis are said under the plot. */
    assert_non_null(strstr(
        end,
        "<p class=\"plot-notes\">Commits 24 to 30 of the 30 in this report: the 23 older ones"));
    culprit_buf_dispose(&page);
    culprit_report_free(r);
}

/* The Markdown headline (and the page's chips) count what fails a check: an unconfirmed minor at
 * the reported commit (the check exited 0) is named apart, not as "1 minor regression". */
static void headline_counts_only_what_fails(void **state)
{
    culprit_report *r = thirty_commits();
    culprit_report_point *now = &r->series[0].points[NMEASURED - 1];
    culprit_buf md = CULPRIT_BUF_INIT;

    (void)state;
    now->verdict = CULPRIT_VERDICT_MINOR;
    now->unconfirmed = 1;
    now->evidence = CULPRIT_EVIDENCE_UNCONFIRMED;
    assert_int_equal(culprit_report_render(&md, r, CULPRIT_REPORT_MARKDOWN), 0);
    assert_non_null(strstr(culprit_buf_cstr(&md), "## culprit: no regression at `"));
    assert_non_null(strstr(culprit_buf_cstr(&md), "`; 1 unconfirmed minor (fails no check)\n"));
    assert_non_null(strstr(culprit_buf_cstr(&md), "1 test: 1 minor (1 unconfirmed)."));
    /* The page's chips alike: no failing minor, one unconfirmed. */
    culprit_buf_clear(&md);
    assert_int_equal(culprit_report_render(&md, r, CULPRIT_REPORT_HTML), 0);
    assert_non_null(strstr(culprit_buf_cstr(&md), "<span class=\"chip none\">0 minor</span>"));
    assert_non_null(strstr(culprit_buf_cstr(&md),
                           "<span class=\"chip minor unconfirmed\">1 unconfirmed</span>"));
    assert_non_null(strstr(culprit_buf_cstr(&md),
                           "<span class=\"tag minor unconfirmed\">MINOR (unconfirmed)</span>"));
    /* Confirmed, the same minor is the headline. */
    now->unconfirmed = 0;
    now->evidence = CULPRIT_EVIDENCE_HISTORY;
    culprit_buf_clear(&md);
    assert_int_equal(culprit_report_render(&md, r, CULPRIT_REPORT_MARKDOWN), 0);
    assert_non_null(strstr(culprit_buf_cstr(&md), "## culprit: 1 minor regression at `"));
    assert_null(strstr(culprit_buf_cstr(&md), "unconfirmed"));
    culprit_buf_dispose(&md);
    culprit_report_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plot_labels_never_overlap_or_clip),
        cmocka_unit_test(headline_counts_only_what_fails),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
