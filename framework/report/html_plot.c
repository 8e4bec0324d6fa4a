/*
 * The plots of the HTML page (Fig. 3 of Heger et al. 2013): one inline SVG per
 * test, its mean along first-parent history with the confidence interval as
 * whiskers, the category limits as dashed lines, the region above the test's own
 * limit shaded, major and minor regressions marked, the culprit commit as a
 * vertical line, and the bisection's own measurements of the test as diamonds.
 * Hovering a point shows its figures (an SVG <title>: no script).
 */
#include "html_parts.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Plot geometry, in SVG user units (the SVG scales to the page width). */
#define PLOT_W      760.0
#define PLOT_H      230.0
#define PLOT_LEFT   70.0
#define PLOT_RIGHT  96.0 /* room for the category names at the right end of the limits */
#define PLOT_TOP    22.0
#define PLOT_BOTTOM 34.0
#define PLOT_INSET  14.0
/* A category limit is drawn when it lies within this factor of the highest point,
 * so a test far below its limit is not squashed against the axis. */
#define LIMIT_SPAN 4.0
/* Short shas on the x axis need about this much room each. */
#define LABEL_ROOM 56.0

/* -------------------------------------------------------------------- plots --- */

/* A round step for about `want` ticks over [0, top]: 1, 2 or 5 times a power of ten. */
static double tick_step(double top, int want)
{
    double raw = top / want, p = pow(10, floor(log10(raw))), f = raw / p;

    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

typedef struct {
    double ymax, step; /* the top of the y axis, and its grid step */
    size_t ncommits;
} scale;

static double px(const scale *s, size_t commit)
{
    /* Inset from both ends, so the first point does not sit on the axis labels. */
    double w = PLOT_W - PLOT_LEFT - PLOT_RIGHT - 2 * PLOT_INSET;
    return PLOT_LEFT + PLOT_INSET +
           (s->ncommits > 1 ? w * (double)commit / (double)(s->ncommits - 1) : w / 2);
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

/* The y axis with its grid, the region above the test's limit, the category limits. */
static void y_axis(culprit_buf *out, const culprit_report *r, const scale *sc, double limit)
{
    /* Grid and y axis. */
    for (double y = 0; y <= sc->ymax * 1.0001; y += sc->step) {
        culprit_buf_printf(out,
                           "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
                           "y2=\"%.1f\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
                           PLOT_LEFT, PLOT_W - PLOT_RIGHT, py(sc, y), py(sc, y), PLOT_LEFT - 8,
                           py(sc, y) + 4);
        if (y == 0)
            culprit_buf_puts(out, "0");
        else
            duration(out, y);
        culprit_buf_puts(out, "</text>\n");
    }
    /* The region above the test's own limit: where a major regression lands. */
    if (isfinite(limit))
        culprit_buf_printf(out,
                           "<rect class=\"over\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                           "height=\"%.1f\"/>\n",
                           PLOT_LEFT, PLOT_TOP, PLOT_W - PLOT_LEFT - PLOT_RIGHT,
                           py(sc, limit) - PLOT_TOP);
    /* Category limits (Fig. 3's dashed lines), named at the right end. */
    for (size_t i = 0; i < r->ncategories; i++) {
        const culprit_report_category *c = &r->categories[i];
        if (!isfinite(c->high_ns) || c->high_ns > sc->ymax)
            continue;
        culprit_buf_printf(out,
                           "<line class=\"limit\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
                           "y2=\"%.1f\"><title>",
                           PLOT_LEFT, PLOT_W - PLOT_RIGHT, py(sc, c->high_ns), py(sc, c->high_ns));
        h(out, c->name);
        culprit_buf_puts(out, " ends at ");
        duration(out, c->high_ns);
        culprit_buf_printf(out, "</title></line><text class=\"limit-label\" x=\"%.1f\" y=\"%.1f\">",
                           PLOT_W - PLOT_RIGHT + 6, py(sc, c->high_ns) + 4);
        h(out, c->name);
        culprit_buf_puts(out, " &lt; ");
        duration(out, c->high_ns);
        culprit_buf_puts(out, "</text>\n");
    }
}

/* The x axis, a tick per commit, and the culprit's vertical line (`culprit` SIZE_MAX: none). */
static void x_axis(culprit_buf *out, const culprit_report *r, const culprit_report_series *s,
                   const scale *sc, size_t culprit)
{
    double last_label = -1e9;

    /* X axis: a tick per commit, short shas where there is room. */
    culprit_buf_printf(out,
                       "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>\n",
                       PLOT_LEFT, PLOT_W - PLOT_RIGHT, PLOT_H - PLOT_BOTTOM, PLOT_H - PLOT_BOTTOM);
    for (size_t i = 0; i < r->ncommits; i++) {
        double x = px(sc, i);
        int has = 0;
        for (size_t k = 0; k < s->npoints && !has; k++)
            has = s->points[k].commit == i;
        culprit_buf_printf(out,
                           "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
                           "y2=\"%.1f\"/>",
                           x, x, PLOT_H - PLOT_BOTTOM, PLOT_H - PLOT_BOTTOM + (has ? 5 : 3));
        if ((has || i == culprit) && x - last_label >= LABEL_ROOM) {
            culprit_buf_printf(out,
                               "<text class=\"mono\" x=\"%.1f\" y=\"%.1f\" "
                               "text-anchor=\"middle\">%.7s</text>",
                               x, PLOT_H - PLOT_BOTTOM + 18, r->commits[i].sha);
            last_label = x;
        }
        culprit_buf_puts(out, "\n");
    }
    if (culprit != SIZE_MAX) {
        double x = px(sc, culprit);
        culprit_buf_printf(out,
                           "<g class=\"culprit-mark\"><line class=\"culprit\" x1=\"%.1f\" "
                           "x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/><text class=\"culprit-label\" "
                           "x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">culprit %.7s</text></g>\n",
                           x, x, PLOT_TOP - 6, PLOT_H - PLOT_BOTTOM, x + (x > PLOT_W / 2 ? -4 : 4),
                           PLOT_TOP - 10 + 10, x > PLOT_W / 2 ? "end" : "start",
                           r->commits[culprit].sha);
    }
}

/* The test's points: the means joined, each with its whisker and title; the
 * bisection's steps among them when it was about this test. */
static void points(culprit_buf *out, const culprit_report *r, const culprit_report_series *s,
                   const scale *sc, int steps)
{
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
        int flagged = p->verdict == CULPRIT_VERDICT_MAJOR || p->verdict == CULPRIT_VERDICT_MINOR;
        if (!isfinite(p->mean_ns))
            continue;
        culprit_buf_printf(out, "<g class=\"pt v-%s\">", kind_class(p->verdict));
        point_title(out, r, p);
        if (isfinite(p->low_ns) && isfinite(p->high_ns))
            culprit_buf_printf(out,
                               "<path class=\"whisker\" d=\"M%.1f %.1fV%.1fM%.1f %.1fh8M%.1f "
                               "%.1fh8\"/>",
                               x, py(sc, p->low_ns), py(sc, p->high_ns), x - 4, py(sc, p->low_ns),
                               x - 4, py(sc, p->high_ns));
        culprit_buf_printf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%s\"/>", x, y,
                           flagged ? "5" : "3.5");
        if (flagged) {
            culprit_buf_printf(
                out, "<text class=\"mark\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s ",
                x + (x > PLOT_W / 2 ? -9 : 9), fmax(y - 8, PLOT_TOP + 10),
                x > PLOT_W / 2 ? "end" : "start", culprit_report_verdict_tag(p->verdict));
            culprit_report__put_change(out, p->change);
            culprit_buf_puts(out, "</text>");
        }
        /* A larger invisible target, so the tooltip is easy to reach. */
        culprit_buf_printf(out, "<circle class=\"hit\" cx=\"%.1f\" cy=\"%.1f\" r=\"11\"/></g>\n", x,
                           y);
    }
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
    scale sc = {0, 0, r->ncommits};
    double limit;

    plot_scale(&sc, &limit, r, s, steps);
    culprit_buf_printf(out,
                       "<svg class=\"plot\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
                       "aria-label=\"time of ",
                       PLOT_W, PLOT_H);
    h(out, s->test);
    culprit_buf_puts(out, " along first-parent history\">\n");
    y_axis(out, r, &sc, limit);
    x_axis(out, r, s, &sc, culprit);
    points(out, r, s, &sc, steps);
    culprit_buf_puts(out, "</svg>\n");
}
