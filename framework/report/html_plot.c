/*
 * The plots of the HTML page (Fig. 3 of Heger et al. 2013): one inline SVG per
 * test, its mean along first-parent history with the confidence interval as
 * whiskers, the category limits as dashed lines, the region above the test's own
 * limit shaded, major and minor regressions marked, the culprit commit as a
 * vertical line, and the bisection's own measurements of the test as diamonds.
 * Hovering a point shows its figures (an SVG <title>: no script).
 *
 * The x axis spans the commits the test was measured at (and the bisection's), not
 * the whole window: a test measured at the last 6 of 30 commits would otherwise
 * crowd into the right fifth. Every text is placed with html_labels.c so none
 * overlaps another or leaves its area; a regression's mark with no room is listed
 * under the plot instead.
 */
#include "html_parts.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Plot geometry, in SVG user units (the SVG scales to the page width). */
#define PLOT_W      760.0
#define PLOT_H      230.0
#define PLOT_LEFT   78.0 /* room for "100.00 ms" */
#define PLOT_RIGHT  16.0
#define PLOT_TOP    22.0
#define PLOT_BOTTOM 34.0
#define PLOT_INSET  14.0
/* A category limit is drawn when it lies within this factor of the highest point,
 * so a test far below its limit is not squashed against the axis. */
#define LIMIT_SPAN 4.0
/* The font sizes of the plot's texts (html.c's CSS: svg text 11px, .mono .86em). */
#define FONT      11.0
#define MONO_FONT (11.0 * 0.86)
/* How far a mark may move up or down from its point, in lines, looking for room. */
#define MARK_TRIES 8

/* -------------------------------------------------------------------- plots --- */

/* A round step for about `want` ticks over [0, top]: 1, 2 or 5 times a power of ten. */
static double tick_step(double top, int want)
{
    double raw = top / want, p = pow(10, floor(log10(raw))), f = raw / p;

    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

typedef struct {
    double ymax, step;             /* the top of the y axis, and its grid step */
    size_t lo, hi;                 /* the commits on the x axis, oldest and newest */
    culprit_report__layout placed; /* every text's box so far, and the points' */
    culprit_buf dropped;           /* the marks that found no room, for under the plot */
} scale;

/* The plot area, where the points, the limits' names and the marks go. */
static const culprit_report__box area = {PLOT_LEFT, PLOT_TOP, PLOT_W - PLOT_LEFT - PLOT_RIGHT,
                                         PLOT_H - PLOT_TOP - PLOT_BOTTOM};
/* The whole picture: the axes' texts must stay inside it. */
static const culprit_report__box picture = {0, 0, PLOT_W, PLOT_H};

static double px(const scale *s, size_t commit)
{
    /* Inset from both ends, so the first point does not sit on the axis labels. */
    double w = PLOT_W - PLOT_LEFT - PLOT_RIGHT - 2 * PLOT_INSET;
    return PLOT_LEFT + PLOT_INSET +
           (s->hi > s->lo ? w * (double)(commit - s->lo) / (double)(s->hi - s->lo) : w / 2);
}

/* Places `text` at the first of `n` candidate positions that is free inside `in`:
 * returns its index (the box added to the layout) or -1 when none is. */
static int place(scale *s, const char *text, const double (*at)[3], int n, double font, int bold,
                 const culprit_report__box *in)
{
    culprit_report__box b;

    for (int i = 0; i < n; i++) {
        culprit_report__text_box(&b, at[i][0], at[i][1], (culprit_report__anchor)at[i][2], text,
                                 font, bold);
        if (culprit_report__layout_fits(&s->placed, &b, in))
            return culprit_report__layout_add(&s->placed, &b) < 0 ? -1 : i;
    }
    return -1;
}

static const char *anchor_name(double anchor)
{
    return anchor == CULPRIT_REPORT__START    ? "start"
           : anchor == CULPRIT_REPORT__MIDDLE ? "middle"
                                              : "end";
}

static double py(const scale *s, double ns)
{
    double v = ns < 0 ? 0 : ns > s->ymax ? s->ymax : ns;
    return PLOT_H - PLOT_BOTTOM - (PLOT_H - PLOT_BOTTOM - PLOT_TOP) * v / s->ymax;
}

void culprit_report__html_legend(culprit_buf *out)
{
    culprit_buf_puts(
        out,
        "<div class=\"legend\" id=\"legend\">"
        "<span><svg width=\"18\" height=\"14\"><line x1=\"9\" y1=\"1\" x2=\"9\" y2=\"13\" "
        "stroke=\"currentColor\"/><circle cx=\"9\" cy=\"7\" r=\"3.5\" fill=\"var(--bg)\" "
        "stroke=\"currentColor\" stroke-width=\"2\"/></svg>mean with its confidence interval</span>"
        "<span><svg width=\"14\" height=\"14\"><circle cx=\"7\" cy=\"7\" r=\"5\" "
        "fill=\"var(--major)\"/></svg>major regression: left its category</span>"
        "<span><svg width=\"14\" height=\"14\"><circle cx=\"7\" cy=\"7\" r=\"5\" "
        "fill=\"var(--minor)\"/></svg>minor regression: significantly slower</span>"
        "<span><svg width=\"14\" height=\"14\"><circle cx=\"7\" cy=\"7\" r=\"4.5\" "
        "fill=\"none\" stroke=\"var(--minor)\" stroke-width=\"2\"/></svg>unconfirmed minor: "
        "too little history yet, fails no check</span>"
        "<span><svg width=\"14\" height=\"14\"><circle cx=\"7\" cy=\"7\" r=\"4\" "
        "fill=\"none\" stroke=\"var(--faster)\" stroke-width=\"2\"/></svg>faster</span>"
        "<span><svg width=\"26\" height=\"10\"><line x1=\"0\" y1=\"5\" x2=\"26\" y2=\"5\" "
        "stroke=\"var(--limit)\" stroke-width=\"1.4\" stroke-dasharray=\"6 4\"/></svg>category "
        "limit</span>"
        "<span><svg width=\"10\" height=\"14\"><line x1=\"5\" y1=\"0\" x2=\"5\" y2=\"14\" "
        "stroke=\"var(--culprit)\" stroke-width=\"1.5\" stroke-dasharray=\"2 3\"/></svg>culprit "
        "commit</span>"
        "<span><svg width=\"26\" height=\"10\"><line x1=\"0\" y1=\"5\" x2=\"26\" y2=\"5\" "
        "stroke=\"var(--line)\" stroke-width=\"1.6\" stroke-dasharray=\"3 4\"/></svg>not "
        "measured in between</span>"
        "<span><svg width=\"14\" height=\"14\"><path d=\"M7 1L13 7L7 13L1 7Z\" "
        "fill=\"var(--undecided)\"/></svg>measured by the bisection (red: slower)</span>"
        "<span>hover a point for its figures</span></div>\n");
}

static void point_title(culprit_buf *out, const culprit_report *r, const culprit_report_point *p)
{
    const culprit_report_commit *c = &r->commits[p->commit];
    char sha[13];

    culprit_buf_printf(out, "<title>%s", culprit_report__short(sha, c->sha));
    if (c->date)
        culprit_buf_printf(out, " %.10s", c->date);
    if (c->subject) {
        culprit_buf_puts(out, " ");
        h(out, c->subject);
    }
    culprit_buf_puts(out, "\nmean ");
    duration(out, p->mean_ns);
    culprit_buf_puts(out, ", CI ");
    duration(out, p->low_ns);
    culprit_buf_puts(out, " to ");
    duration(out, p->high_ns);
    culprit_buf_printf(out, ", n=%zu\n%s", p->n, culprit_report_verdict_tag(p->verdict));
    if (isfinite(p->change)) {
        culprit_buf_puts(out, " ");
        culprit_report__put_change_ci(out, p->change, p->change_low, p->change_high);
    }
    culprit_buf_puts(out, "</title>");
}

static size_t commit_index(const culprit_report *r, const char *sha);

static size_t culprit_index(const culprit_report *r)
{
    return r->bisect ? commit_index(r, r->bisect->culprit) : SIZE_MAX;
}

static size_t commit_index(const culprit_report *r, const char *sha)
{
    for (size_t i = 0; sha[0] && i < r->ncommits; i++)
        if (strcmp(r->commits[i].sha, sha) == 0)
            return i;
    return SIZE_MAX;
}

/* The bisection's measurements of the test, as diamonds at their commits: the
 * step the history alone cannot show (it has data at the ends only). */
static void bisect_steps(culprit_buf *out, const culprit_report *r, const scale *sc)
{
    const culprit_bisect_result *b = r->bisect;
    char sha[13];

    for (size_t i = 0; i < b->nsteps; i++) {
        const culprit_bisect_step *st = &b->steps[i];
        size_t c = commit_index(r, st->sha);
        double x, y;
        if (c == SIZE_MAX || !isfinite(st->mean_ns))
            continue;
        x = px(sc, c);
        y = py(sc, st->mean_ns);
        culprit_buf_printf(out, "<g class=\"step%s\"><title>bisection %s",
                           st->verdict == CULPRIT_BISECT_BAD ? " bad" : "", i ? "step " : "check");
        if (i)
            culprit_buf_printf(out, "%zu", i);
        culprit_buf_printf(out, ": %s ", culprit_report__short(sha, st->sha));
        h(out, st->subject);
        culprit_buf_puts(out, "\nmean ");
        duration(out, st->mean_ns);
        culprit_buf_printf(out, " in %zu runs: ", st->runs);
        h(out, culprit_bisect_verdict_name(st->verdict));
        culprit_buf_printf(out, "</title><path d=\"M%.1f %.1fl6 6l-6 6l-6 -6z\"/></g>\n", x, y - 6);
    }
}

/* The vertical scale of a plot: up to its highest point (or bisection step),
 * stretched to the category limits within reach, rounded up to a grid step.
 * `limit`: the test's own limit when it is shown. */
static void plot_scale(scale *sc, double *limit, const culprit_report *r,
                       const culprit_report_series *s, int steps)
{
    const culprit_report_point *now = culprit_report_current(r, s);
    double top = 0;

    for (size_t i = 0; i < s->npoints; i++)
        top =
            fmax(top, isfinite(s->points[i].high_ns) ? s->points[i].high_ns : s->points[i].mean_ns);
    for (size_t i = 0; steps && i < r->bisect->nsteps; i++)
        top = fmax(top, isfinite(r->bisect->steps[i].mean_ns) ? r->bisect->steps[i].mean_ns : 0);
    if (!(top > 0))
        top = 1;
    /* The limits shown: every category boundary within reach of the data. */
    sc->ymax = top;
    for (size_t i = 0; i < r->ncategories; i++)
        if (isfinite(r->categories[i].high_ns) && r->categories[i].high_ns <= top * LIMIT_SPAN)
            sc->ymax = fmax(sc->ymax, r->categories[i].high_ns);
    *limit = NAN;
    if (now && isfinite(now->category_high_ns) && now->category_high_ns <= top * LIMIT_SPAN) {
        *limit = now->category_high_ns;
        sc->ymax = fmax(sc->ymax, *limit);
    }
    sc->step = tick_step(sc->ymax * 1.08, 4);
    sc->ymax = ceil(sc->ymax * 1.08 / sc->step) * sc->step;
}

/* Writes `text` at the position `place()` chose. */
static void put_text(culprit_buf *out, const char *cls, const double at[3], const char *text)
{
    culprit_buf_printf(out, "<text%s%s%s x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">",
                       cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "", at[0], at[1],
                       anchor_name(at[2]));
    h(out, text);
    culprit_buf_puts(out, "</text>");
}

/* The y axis with its grid, the region above the test's own limit, the category limits. */
static void y_axis(culprit_buf *out, const culprit_report *r, scale *sc, double limit)
{
    culprit_buf text = CULPRIT_BUF_INIT;

    /* Grid and y axis. */
    for (double y = 0; y <= sc->ymax * 1.0001; y += sc->step) {
        double at[1][3] = {{PLOT_LEFT - 8, py(sc, y) + 4, CULPRIT_REPORT__END}};
        culprit_buf_printf(out,
                           "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
                           "y2=\"%.1f\"/>",
                           PLOT_LEFT, PLOT_W - PLOT_RIGHT, py(sc, y), py(sc, y));
        culprit_buf_clear(&text);
        if (y == 0)
            culprit_buf_puts(&text, "0");
        else
            duration(&text, y);
        if (place(sc, culprit_buf_cstr(&text), at, 1, FONT, 0, &picture) >= 0)
            put_text(out, NULL, at[0], culprit_buf_cstr(&text));
        culprit_buf_puts(out, "\n");
    }
    /* The region above the test's own limit: where a major regression lands. */
    if (isfinite(limit))
        culprit_buf_printf(out,
                           "<rect class=\"over\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                           "height=\"%.1f\"/>\n",
                           PLOT_LEFT, PLOT_TOP, PLOT_W - PLOT_LEFT - PLOT_RIGHT,
                           py(sc, limit) - PLOT_TOP);
    /* Category limits (Fig. 3's dashed lines), named inside the plot at the right
     * end, above the line (else below it, else at the left end). */
    for (size_t i = 0; i < r->ncategories; i++) {
        const culprit_report_category *c = &r->categories[i];
        double y = py(sc, c->high_ns), right = PLOT_W - PLOT_RIGHT - 4, left = PLOT_LEFT + 4;
        double at[4][3] = {{right, y - 4, CULPRIT_REPORT__END},
                           {right, y + 12, CULPRIT_REPORT__END},
                           {left, y - 4, CULPRIT_REPORT__START},
                           {left, y + 12, CULPRIT_REPORT__START}};
        int k;
        if (!isfinite(c->high_ns) || c->high_ns > sc->ymax)
            continue;
        culprit_buf_printf(out,
                           "<line class=\"limit\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
                           "y2=\"%.1f\"><title>",
                           PLOT_LEFT, PLOT_W - PLOT_RIGHT, y, y);
        h(out, c->name);
        culprit_buf_puts(out, " ends at ");
        duration(out, c->high_ns);
        culprit_buf_puts(out, "</title></line>");
        culprit_buf_clear(&text);
        culprit_buf_printf(&text, "%s < ", c->name);
        duration(&text, c->high_ns);
        if ((k = place(sc, culprit_buf_cstr(&text), at, 4, FONT, 1, &area)) >= 0)
            put_text(out, "limit-label", at[k], culprit_buf_cstr(&text));
        culprit_buf_puts(out, "\n");
    }
    culprit_buf_dispose(&text);
}

/* The x axis, a tick per commit, and the culprit's vertical line (`culprit` SIZE_MAX: none). */
static void x_axis(culprit_buf *out, const culprit_report *r, const culprit_report_series *s,
                   scale *sc, size_t culprit)
{
    /* The bands above and below the plot area. */
    culprit_report__box top = {0, 0, PLOT_W, PLOT_TOP},
                        bottom = {0, PLOT_H - PLOT_BOTTOM, PLOT_W, PLOT_BOTTOM};

    culprit_buf_printf(out,
                       "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>\n",
                       PLOT_LEFT, PLOT_W - PLOT_RIGHT, PLOT_H - PLOT_BOTTOM, PLOT_H - PLOT_BOTTOM);
    /* The culprit's name first: it is the one label on the axis that must show. */
    if (culprit != SIZE_MAX) {
        double x = px(sc, culprit);
        char text[64];
        int l = x > PLOT_W / 2; /* the name towards the middle first */
        double at[2][3] = {
            {l ? x - 4 : x + 4, PLOT_TOP - 6, l ? CULPRIT_REPORT__END : CULPRIT_REPORT__START},
            {l ? x + 4 : x - 4, PLOT_TOP - 6, l ? CULPRIT_REPORT__START : CULPRIT_REPORT__END}};
        int k;
        snprintf(text, sizeof(text), "culprit %.7s", r->commits[culprit].sha);
        culprit_buf_printf(out,
                           "<g class=\"culprit-mark\"><line class=\"culprit\" x1=\"%.1f\" "
                           "x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>",
                           x, x, PLOT_TOP - 2, PLOT_H - PLOT_BOTTOM);
        if ((k = place(sc, text, at, 2, FONT, 1, &top)) >= 0)
            put_text(out, "culprit-label", at[k], text);
        culprit_buf_puts(out, "</g>\n");
    }
    /* A tick per commit, short shas where there is room. */
    for (size_t i = sc->lo; i <= sc->hi; i++) {
        double x = px(sc, i);
        double at[1][3] = {{x, PLOT_H - PLOT_BOTTOM + 18, CULPRIT_REPORT__MIDDLE}};
        char sha[8];
        int has = 0;
        for (size_t k = 0; k < s->npoints && !has; k++)
            has = s->points[k].commit == i;
        culprit_buf_printf(out,
                           "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
                           "y2=\"%.1f\"/>",
                           x, x, PLOT_H - PLOT_BOTTOM, PLOT_H - PLOT_BOTTOM + (has ? 5 : 3));
        snprintf(sha, sizeof(sha), "%.7s", r->commits[i].sha);
        /* A gap of a character either side, so neighbouring shas do not read as one. */
        if ((has || i == culprit) && place(sc, sha, at, 1, MONO_FONT + 2, 0, &bottom) >= 0)
            put_text(out, "mono", at[0], sha);
        culprit_buf_puts(out, "\n");
    }
}

/* The regression's mark of point `p` at (x, y): "MINOR +12.3%". */
static void mark_text(culprit_buf *text, const culprit_report_point *p)
{
    culprit_buf_clear(text);
    culprit_buf_printf(text, "%s ",
                       p->unconfirmed ? "unconfirmed" : culprit_report_verdict_tag(p->verdict));
    culprit_report__put_change(text, p->change);
}

static int flagged(const culprit_report_point *p)
{
    return isfinite(p->mean_ns) &&
           (p->verdict == CULPRIT_VERDICT_MAJOR || p->verdict == CULPRIT_VERDICT_MINOR);
}

/* The order marks claim room in: majors, then confirmed minors, then unconfirmed
 * ones, the newest first in each (what the reader is asked about). */
static int mark_rank(const culprit_report_point *p)
{
    return p->verdict == CULPRIT_VERDICT_MAJOR ? 0 : p->unconfirmed ? 2 : 1;
}

/* Places the marks of the flagged points: at[i] the chosen position of point i's
 * mark, at[i][2] < 0 when it is not drawn (then listed in sc->dropped). */
static void place_marks(scale *sc, const culprit_report *r, const culprit_report_series *s,
                        double (*at)[3])
{
    culprit_buf text = CULPRIT_BUF_INIT;
    char sha[13];

    for (size_t i = 0; i < s->npoints; i++)
        at[i][2] = -1;
    for (int rank = 0; rank < 3; rank++)
        for (size_t i = s->npoints; i-- > 0;) {
            const culprit_report_point *p = &s->points[i];
            double x = px(sc, p->commit), y = py(sc, p->mean_ns), cand[4 * MARK_TRIES][3];
            int n = 0, k, in = x > PLOT_W / 2; /* the side towards the middle first */
            if (!flagged(p) || mark_rank(p) != rank)
                continue;
            for (int t = 0; t < MARK_TRIES; t++)
                for (int below = 0; below < 2; below++)
                    for (int side = 0; side < 2; side++) {
                        int left = side ? !in : in;
                        cand[n][0] = left ? x - 9 : x + 9;
                        cand[n][1] = below ? y + 16 + 12 * t : y - 8 - 12 * t;
                        cand[n][2] = left ? CULPRIT_REPORT__END : CULPRIT_REPORT__START;
                        n++;
                    }
            mark_text(&text, p);
            if ((k = place(sc, culprit_buf_cstr(&text), cand, n, FONT, 1, &area)) >= 0) {
                memcpy(at[i], cand[k], sizeof(cand[k]));
                continue;
            }
            culprit_buf_printf(&sc->dropped, "%s%s at %s", sc->dropped.size ? ", " : "",
                               culprit_buf_cstr(&text),
                               culprit_report__short(sha, r->commits[p->commit].sha));
        }
    culprit_buf_dispose(&text);
}

/* The points, whiskers and the culprit's line are in the way of every text: their
 * boxes go first. */
static void reserve_points(scale *sc, const culprit_report_series *s, size_t culprit)
{
    if (culprit != SIZE_MAX) {
        culprit_report__box line = {px(sc, culprit) - 2, PLOT_TOP, 4, area.h};
        culprit_report__layout_add(&sc->placed, &line);
    }
    for (size_t i = 0; i < s->npoints; i++) {
        const culprit_report_point *p = &s->points[i];
        double x = px(sc, p->commit), y = py(sc, p->mean_ns);
        culprit_report__box b = {x - 6, y - 6, 12, 12};
        if (!isfinite(p->mean_ns))
            continue;
        culprit_report__layout_add(&sc->placed, &b);
        if (isfinite(p->low_ns) && isfinite(p->high_ns)) {
            culprit_report__box w = {x - 5, py(sc, p->high_ns), 10,
                                     py(sc, p->low_ns) - py(sc, p->high_ns)};
            culprit_report__layout_add(&sc->placed, &w);
        }
    }
}

/* The test's points: the means joined, each with its whisker and title; the
 * bisection's steps among them when it was about this test. */
static void points(culprit_buf *out, const culprit_report *r, const culprit_report_series *s,
                   scale *sc, int steps, double (*at)[3])
{
    culprit_buf text = CULPRIT_BUF_INIT;

    /* The series: means joined, then each point with its whisker and its title. */
    /* Solid between neighbouring commits, dashed across commits not measured. */
    for (size_t i = 1; i < s->npoints; i++) {
        const culprit_report_point *a = &s->points[i - 1], *b = &s->points[i];
        if (!isfinite(a->mean_ns) || !isfinite(b->mean_ns))
            continue;
        culprit_buf_printf(out,
                           "<line class=\"series%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                           "y2=\"%.1f\"/>\n",
                           b->commit == a->commit + 1 ? "" : " gap", px(sc, a->commit),
                           py(sc, a->mean_ns), px(sc, b->commit), py(sc, b->mean_ns));
    }
    if (steps)
        bisect_steps(out, r, sc);
    for (size_t i = 0; i < s->npoints; i++) {
        const culprit_report_point *p = &s->points[i];
        double x = px(sc, p->commit), y = py(sc, p->mean_ns);
        if (!isfinite(p->mean_ns))
            continue;
        culprit_buf_printf(out, "<g class=\"pt v-%s%s\">", kind_class(p->verdict),
                           p->unconfirmed ? " unconfirmed" : "");
        point_title(out, r, p);
        if (isfinite(p->low_ns) && isfinite(p->high_ns))
            culprit_buf_printf(out,
                               "<path class=\"whisker\" d=\"M%.1f %.1fV%.1fM%.1f %.1fh8M%.1f "
                               "%.1fh8\"/>",
                               x, py(sc, p->low_ns), py(sc, p->high_ns), x - 4, py(sc, p->low_ns),
                               x - 4, py(sc, p->high_ns));
        culprit_buf_printf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%s\"/>", x, y,
                           flagged(p) ? "5" : "3.5");
        if (at[i][2] >= 0) {
            mark_text(&text, p);
            put_text(out, "mark", at[i], culprit_buf_cstr(&text));
        }
        /* A larger invisible target, so the tooltip is easy to reach. */
        culprit_buf_printf(out, "<circle class=\"hit\" cx=\"%.1f\" cy=\"%.1f\" r=\"11\"/></g>\n", x,
                           y);
    }
    culprit_buf_dispose(&text);
}

/* The commits on the x axis: those with a point of the test, a bisection step
 * shown on it, or the culprit, and one more either side for context. */
static void x_range(scale *sc, const culprit_report *r, const culprit_report_series *s, int steps,
                    size_t culprit)
{
    size_t lo = SIZE_MAX, hi = 0;

    for (size_t i = 0; i < s->npoints; i++)
        if (isfinite(s->points[i].mean_ns)) {
            lo = s->points[i].commit < lo ? s->points[i].commit : lo;
            hi = s->points[i].commit > hi ? s->points[i].commit : hi;
        }
    for (size_t i = 0; steps && i < r->bisect->nsteps; i++) {
        size_t c = commit_index(r, r->bisect->steps[i].sha);
        if (c != SIZE_MAX && isfinite(r->bisect->steps[i].mean_ns)) {
            lo = c < lo ? c : lo;
            hi = c > hi ? c : hi;
        }
    }
    if (culprit != SIZE_MAX) {
        lo = culprit < lo ? culprit : lo;
        hi = culprit > hi ? culprit : hi;
    }
    if (lo == SIZE_MAX) { /* nothing to show: the whole window */
        lo = 0;
        hi = r->ncommits ? r->ncommits - 1 : 0;
    }
    sc->lo = lo > 0 ? lo - 1 : 0;
    sc->hi = hi + 1 < r->ncommits ? hi + 1 : hi;
}

/* Under the plot: the commits left off the axis and the marks that found no room. */
static void plot_notes(culprit_buf *out, const culprit_report *r, const scale *sc)
{
    size_t before = sc->lo, after = r->ncommits ? r->ncommits - 1 - sc->hi : 0;

    if (!before && !after && !sc->dropped.size)
        return;
    culprit_buf_puts(out, "<p class=\"plot-notes\">");
    if (before || after)
        culprit_buf_printf(out,
                           "Commits %zu to %zu of the %zu in this report: the %zu%s%s "
                           "ones, without a measurement of this test, are left off the axis.",
                           sc->lo + 1, sc->hi + 1, r->ncommits, before + after,
                           before ? " older" : "", after ? (before ? " and newer" : " newer") : "");
    if (sc->dropped.size) {
        culprit_buf_puts(out, before || after ? " Not labelled for lack of room: "
                                              : "Not labelled for lack of room: ");
        h(out, culprit_buf_cstr(&sc->dropped));
        culprit_buf_puts(out, ".");
    }
    culprit_buf_puts(out, "</p>\n");
}

void culprit_report__html_plot(culprit_buf *out, const culprit_report *r,
                               const culprit_report_series *s)
{
    const culprit_report_point *now = culprit_report_current(r, s);
    /* The culprit line belongs to the test the bisection was about (or, when it
     * timed a command, to the regressed tests). */
    int steps = culprit_report_bisect_is_of(r, s);
    size_t culprit =
        steps || (r->bisect && !r->bisect_test && now &&
                  (now->verdict == CULPRIT_VERDICT_MAJOR || now->verdict == CULPRIT_VERDICT_MINOR))
            ? culprit_index(r)
            : SIZE_MAX;
    scale sc = {0};
    double limit, (*at)[3] = calloc(s->npoints ? s->npoints : 1, sizeof(*at));

    if (!at)
        return; /* out of memory: the buffer's own failure is sticky */
    plot_scale(&sc, &limit, r, s, steps);
    x_range(&sc, r, s, steps, culprit);
    culprit_buf_printf(out,
                       "<svg class=\"plot\" viewBox=\"0 0 %.0f %.0f\" data-area=\"%.0f %.0f %.0f "
                       "%.0f\" role=\"img\" aria-label=\"time of ",
                       PLOT_W, PLOT_H, area.x, area.y, area.w, area.h);
    h(out, s->test);
    culprit_buf_puts(out, " along first-parent history\">\n");
    /* Room is claimed in order of importance: points, the culprit and the axes, the
     * limits' names, then the marks. */
    reserve_points(&sc, s, culprit);
    {
        culprit_buf axes = CULPRIT_BUF_INIT, limits = CULPRIT_BUF_INIT;
        x_axis(&axes, r, s, &sc, culprit);
        y_axis(&limits, r, &sc, limit);
        culprit_buf_put(out, limits.ptr, limits.size);
        culprit_buf_put(out, axes.ptr, axes.size);
        culprit_buf_dispose(&axes);
        culprit_buf_dispose(&limits);
    }
    place_marks(&sc, r, s, at);
    points(out, r, s, &sc, steps, at);
    culprit_buf_puts(out, "</svg>\n");
    plot_notes(out, r, &sc);
    culprit_report__layout_dispose(&sc.placed);
    culprit_buf_dispose(&sc.dropped);
    free(at);
}
