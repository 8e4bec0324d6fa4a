/*
 * The report as one self-contained HTML page (`culprit report`): the feedback of
 * Heger et al. 2013, section 4.4, that "shows the starting point for problem
 * resolution without requiring deep knowledge (e.g. in statistics)".
 *
 *   - one plot per test (Fig. 3): its mean along first-parent history with the
 *     confidence interval as whiskers, the category limits as dashed horizontal
 *     lines, major and minor regressions marked, the culprit commit as a vertical
 *     line; hovering a point shows its values (SVG <title>, no script);
 *   - the bisection: the culprit commit, its change, the steps taken;
 *   - the culprit's call tree (Fig. 7): suspect nodes highlighted, functions whose
 *     own lines the culprit changed marked with a dot, collapsible (<details>),
 *     with the changed lines;
 *   - the overweight table.
 *
 * Inline CSS and SVG only: the page opens from file://, offline, from a CI
 * artifact, and needs no JavaScript. Colours are CSS variables with a dark scheme
 * under prefers-color-scheme. Everything taken from the user's code or history is
 * escaped.
 */
#include "render.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
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

static const char css[] =
    ":root{--bg:#ffffff;--fg:#1f2328;--muted:#59636e;--card:#f6f8fa;--border:#d1d9e0;"
    "--grid:#e7ebef;--line:#57606a;--major:#cf222e;--minor:#b35900;--faster:#1a7f37;"
    "--undecided:#0969da;--plain:#57606a;--limit:#8250df;--suspect:#fff1e5;"
    "--suspect-border:#fb8f44;--culprit:#cf222e;--add:#dafbe1;--del:#ffebe9;"
    "color-scheme:light dark}\n"
    "@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;"
    "--card:#151b23;--border:#3d444d;--grid:#262c36;--line:#9198a1;--major:#ff7b72;"
    "--minor:#f0b72f;--faster:#56d364;--undecided:#58a6ff;--plain:#9198a1;--limit:#d2a8ff;"
    "--suspect:#3d2a17;--suspect-border:#db6d28;--culprit:#ff7b72;--add:#12261e;"
    "--del:#2d1214}}\n"
    "*{box-sizing:border-box}a{color:var(--undecided)}\n"
    "body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"
    "'Segoe UI',Roboto,'DejaVu Sans',sans-serif}\n"
    "main{max-width:62rem;margin:0 auto;padding:1.5rem 1.25rem 3rem}\n"
    "h1{font-size:1.6rem;margin:0 0 .25rem}h2{font-size:1.25rem;margin:2.2rem 0 .6rem;"
    "padding-bottom:.3rem;border-bottom:1px solid var(--border)}"
    "h3{font-size:1.02rem;margin:0 0 .3rem}\n"
    "code,pre,.mono{font-family:ui-monospace,'SFMono-Regular','DejaVu Sans Mono',Menlo,"
    "monospace;font-size:.86em}\n"
    ".muted{color:var(--muted)}.meta{color:var(--muted);margin:0 0 .8rem}\n"
    ".chips{display:flex;flex-wrap:wrap;gap:.4rem;margin:.6rem 0}\n"
    ".chip{border:1px solid var(--border);border-radius:1rem;padding:.05rem .7rem;"
    "font-size:.88rem;background:var(--card)}\n"
    ".chip.major,.tag.major{color:#fff;background:var(--major);border-color:var(--major)}\n"
    ".chip.minor,.tag.minor{color:#fff;background:var(--minor);border-color:var(--minor)}\n"
    "@media (prefers-color-scheme:dark){.chip.major,.tag.major,.chip.minor,.tag.minor"
    "{color:#0d1117}}\n"
    ".tag{display:inline-block;font-size:.74rem;font-weight:600;letter-spacing:.03em;"
    "border:1px solid var(--border);border-radius:.3rem;padding:0 .4rem;margin-left:.4rem;"
    "vertical-align:.1em}\n"
    ".tag.improvement{color:var(--faster);border-color:var(--faster)}"
    ".tag.undecided{color:var(--undecided);border-color:var(--undecided)}\n"
    ".card{background:var(--card);border:1px solid var(--border);border-radius:.5rem;"
    "padding:.9rem 1.1rem;margin:.8rem 0}\n"
    ".answer{border-left:4px solid var(--culprit)}\n"
    ".answer p{margin:.2rem 0}.card>:first-child{margin-top:0}.card>:last-child"
    "{margin-bottom:0}\n"
    "details.quiet>summary{cursor:pointer;color:var(--muted);margin:1rem 0}\n"
    ".test{margin:1.2rem 0 1.6rem}.test .msg{margin:.1rem 0 .4rem;color:var(--muted);"
    "font-size:.9rem}\n"
    "svg.plot{width:100%;height:auto;display:block}\n"
    "svg .grid{stroke:var(--grid);stroke-width:1}svg .axis{stroke:var(--border)}\n"
    "svg text{fill:var(--muted);font:11px system-ui,'DejaVu Sans',sans-serif}\n"
    "svg .limit{stroke:var(--limit);stroke-width:1.4;stroke-dasharray:6 4}\n"
    "svg text.limit-label{fill:var(--limit);font-weight:600}\n"
    "svg .over{fill:var(--major);opacity:.06}\n"
    "svg .series{fill:none;stroke:var(--line);stroke-width:1.6}"
    "svg .series.gap{stroke-dasharray:3 4;opacity:.6}\n"
    "svg .step path{fill:var(--undecided);stroke:var(--bg);stroke-width:1}"
    "svg .step.bad path{fill:var(--major)}svg .step:hover path{stroke:var(--fg)}\n"
    "svg .whisker{stroke:var(--line);stroke-width:1.3}\n"
    "svg .pt circle{fill:var(--bg);stroke:var(--plain);stroke-width:2}\n"
    "svg .v-major circle{fill:var(--major);stroke:var(--major)}"
    "svg .v-minor circle{fill:var(--minor);stroke:var(--minor)}\n"
    "svg .v-improvement circle{stroke:var(--faster)}"
    "svg .v-undecided circle{stroke:var(--undecided)}\n"
    "svg .v-major .whisker{stroke:var(--major)}svg .v-minor .whisker{stroke:var(--minor)}\n"
    "svg text.mark{font-weight:700}svg .v-major text.mark{fill:var(--major)}"
    "svg .v-minor text.mark{fill:var(--minor)}\n"
    "svg .culprit{stroke:var(--culprit);stroke-width:1.5;stroke-dasharray:2 3}"
    "svg text.culprit-label{fill:var(--culprit);font-weight:600}\n"
    "svg .hit{fill:transparent}svg .pt:hover circle{stroke-width:3.5}\n"
    ".legend{display:flex;flex-wrap:wrap;gap:.3rem 1.2rem;font-size:.85rem;color:var(--muted);"
    "margin:.3rem 0 .8rem}.legend svg{vertical-align:-.2em;margin-right:.3rem}\n"
    "table{border-collapse:collapse;width:100%;font-size:.9rem}\n"
    "th,td{text-align:left;padding:.3rem .55rem;border-bottom:1px solid var(--border);"
    "vertical-align:top}th{font-weight:600;color:var(--muted)}td.num,th.num{text-align:right;"
    "font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    ".v-bad{color:var(--major);font-weight:600}.v-good{color:var(--faster)}"
    ".v-skip{color:var(--muted)}\n"
    ".bar{display:inline-block;height:.55rem;background:var(--major);opacity:.7;"
    "border-radius:.2rem;vertical-align:middle;margin-right:.4rem}\n"
    "ul.tree,ul.tree ul{list-style:none;margin:0;padding-left:1.3rem}ul.tree{padding-left:0}\n"
    "ul.tree ul{border-left:1px dotted var(--border);margin-left:.45rem}\n"
    ".row{display:flex;flex-wrap:wrap;align-items:baseline;gap:.2rem .7rem;padding:.12rem .4rem;"
    "border-radius:.3rem;border:1px solid transparent}\n"
    "summary.row{cursor:pointer;list-style:none}summary.row::-webkit-details-marker{display:none}\n"
    "summary.row::before{content:'\\25B8';display:inline-block;width:.8rem;color:var(--muted)}\n"
    "details[open]>summary.row::before{content:'\\25BE'}\n"
    "div.row{padding-left:1.9rem}\n"
    ".suspect>.row,.suspect>details>.row{background:var(--suspect);"
    "border-color:var(--suspect-border)}\n"
    ".fn{font-family:ui-monospace,'DejaVu Sans Mono',monospace;font-weight:600}\n"
    ".dot{display:inline-block;width:.62rem;height:.62rem;border-radius:50%;"
    "background:var(--fg);vertical-align:.05em}\n"
    ".cross{color:var(--culprit);font-weight:700}\n"
    ".loc,.calls{color:var(--muted);font-size:.85rem}.times{font-variant-numeric:tabular-nums;"
    "font-size:.88rem}\n"
    ".up{color:var(--major);font-weight:600}.down{color:var(--faster)}\n"
    ".lines{margin:.2rem 0 .4rem 1.6rem;font-size:.86rem}\n"
    "pre.diff{background:var(--card);border:1px solid var(--border);border-radius:.4rem;"
    "padding:.5rem .7rem;overflow-x:auto;margin:.3rem 0}\n"
    "pre.diff .a{background:var(--add);display:block}pre.diff .d{background:var(--del);"
    "display:block}\n"
    "footer{margin-top:3rem;color:var(--muted);font-size:.82rem}\n";

/* Writes text escaped for HTML. */
static void h(culprit_buf *out, const char *s)
{
    culprit_report__put_html(out, s ? s : "");
}

static void duration(culprit_buf *out, double ns)
{
    culprit_buf_put_duration(out, ns);
}

static const char *kind_class(culprit_verdict_kind kind)
{
    return culprit_verdict_name(kind);
}

/* Tests in the order a reader triages: major, minor, the other flags, then the rest. */
static int rank(const culprit_report *r, const culprit_report_series *s)
{
    const culprit_report_point *p = culprit_report_current(r, s);

    if (!p)
        return 9;
    switch (p->verdict) {
    case CULPRIT_VERDICT_MAJOR:
        return 0;
    case CULPRIT_VERDICT_MINOR:
        return 1;
    case CULPRIT_VERDICT_UNDECIDED:
        return 2;
    case CULPRIT_VERDICT_NOT_RUN:
        return 3;
    case CULPRIT_VERDICT_IMPROVEMENT:
        return 4;
    default:
        return 5;
    }
}

/* ------------------------------------------------------------------ header --- */

static void header(culprit_buf *out, const culprit_report *r)
{
    static const culprit_verdict_kind kinds[] = {
        CULPRIT_VERDICT_MAJOR,       CULPRIT_VERDICT_MINOR,     CULPRIT_VERDICT_UNDECIDED,
        CULPRIT_VERDICT_IMPROVEMENT, CULPRIT_VERDICT_UNCHANGED, CULPRIT_VERDICT_NO_BASELINE,
        CULPRIT_VERDICT_MIXED,       CULPRIT_VERDICT_NOT_RUN};
    const culprit_report_commit *head = r->ncommits ? &r->commits[r->ncommits - 1] : NULL;
    char sha[13];

    culprit_buf_puts(out, "<header>\n<h1>culprit report");
    if (r->title) {
        culprit_buf_puts(out, " <span class=\"muted\">");
        h(out, r->title);
        culprit_buf_puts(out, "</span>");
    }
    culprit_buf_puts(out, "</h1>\n<p class=\"meta\">");
    if (r->commit[0]) {
        culprit_buf_printf(out, "at <code>%s</code>", culprit_report__short(sha, r->commit));
        if (head && head->subject) {
            culprit_buf_puts(out, " ");
            h(out, head->subject);
        }
        if (head && head->date)
            culprit_buf_printf(out, " &middot; %.10s", head->date);
        culprit_buf_printf(out, " &middot; %zu commits of first-parent history", r->ncommits);
    }
    culprit_buf_puts(out, "</p>\n<div class=\"chips\" id=\"verdicts\">");
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        size_t n = culprit_report_count(r, kinds[k]);
        if (n || kinds[k] == CULPRIT_VERDICT_MAJOR || kinds[k] == CULPRIT_VERDICT_MINOR)
            culprit_buf_printf(out, "<span class=\"chip %s\">%zu %s</span>",
                               n ? kind_class(kinds[k]) : "none", n, /* a zero is not alarming */
                               kinds[k] == CULPRIT_VERDICT_IMPROVEMENT   ? "faster"
                               : kinds[k] == CULPRIT_VERDICT_NO_BASELINE ? "no baseline"
                               : kinds[k] == CULPRIT_VERDICT_NOT_RUN
                                   ? "not run"
                                   : culprit_verdict_name(kinds[k]));
    }
    culprit_buf_puts(out, "</div>\n</header>\n");
}

/* The answer first: culprit and suspect function, each linking to its section. */
static void answer(culprit_buf *out, const culprit_report *r)
{
    const culprit_bisect_result *b = r->bisect;
    const culprit_calltree_view *c = r->calltree;
    char sha[13];

    if (!(b && b->culprit[0]) && !(c && c->nsuspects))
        return;
    culprit_buf_puts(out, "<section class=\"card answer\" id=\"answer\">\n");
    /* Fig. 7 names the test first: what regressed, then where and why. */
    for (size_t i = 0; i < r->nseries; i++) {
        const culprit_report_point *now = culprit_report_current(r, &r->series[i]);
        if (!culprit_report_bisect_is_of(r, &r->series[i]))
            continue;
        culprit_buf_printf(out, "<p><strong>Test:</strong> <a href=\"#test-%zu\"><code>", i);
        h(out, r->series[i].test);
        culprit_buf_puts(out, "</code></a>");
        if (now) {
            culprit_buf_printf(out, " <span class=\"tag %s\">%s</span> ", kind_class(now->verdict),
                               culprit_report_verdict_tag(now->verdict));
            culprit_buf_put_duration(out, now->mean_ns);
            culprit_buf_puts(out, " now");
        }
        culprit_buf_puts(out, "</p>\n");
    }
    if (b && b->culprit[0]) {
        culprit_buf_printf(out,
                           "<p><strong>Culprit:</strong> <a href=\"#bisection\"><code>%s"
                           "</code></a> ",
                           culprit_report__short(sha, b->culprit));
        h(out, b->subject);
        culprit_buf_puts(out, " <span class=\"up\">");
        culprit_report__put_change(out, b->change);
        culprit_buf_puts(out, "</span></p>\n");
    }
    if (c && c->nsuspects) {
        culprit_buf_puts(out, "<p><strong>Where:</strong> <a href=\"#calltree\"><code>");
        h(out, c->suspects[0]);
        culprit_buf_puts(out, "</code></a>");
        for (size_t i = 0; i < c->nnodes; i++)
            if (c->nodes[i].suspect && c->nodes[i].changed) {
                culprit_buf_puts(out, " &middot; <span class=\"dot\"></span> <code>");
                h(out, c->nodes[i].function);
                culprit_buf_puts(out, "</code> changed by the culprit");
                break;
            }
        culprit_buf_puts(out, "</p>\n");
    }
    culprit_buf_puts(out, "</section>\n");
}

/* -------------------------------------------------------------------- plots --- */

/* A round step for about `want` ticks over [0, top]: 1, 2 or 5 times a power of ten. */
static double tick_step(double top, int want)
{
    double raw = top / want, p = pow(10, floor(log10(raw))), f = raw / p;

    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

typedef struct {
    double ymax;
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

static void legend(culprit_buf *out)
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

static void plot(culprit_buf *out, const culprit_report *r, const culprit_report_series *s)
{
    const culprit_report_point *now = culprit_report_current(r, s);
    double top = 0, limit = NAN, step, last_label = -1e9;
    /* The culprit line belongs to the test the bisection was about (or, when it
     * timed a command, to the regressed tests). */
    int steps = culprit_report_bisect_is_of(r, s);
    size_t culprit =
        steps || (r->bisect && !r->bisect_test && now &&
                  (now->verdict == CULPRIT_VERDICT_MAJOR || now->verdict == CULPRIT_VERDICT_MINOR))
            ? culprit_index(r)
            : SIZE_MAX;
    scale sc = {0, r->ncommits};

    for (size_t i = 0; i < s->npoints; i++)
        top =
            fmax(top, isfinite(s->points[i].high_ns) ? s->points[i].high_ns : s->points[i].mean_ns);
    for (size_t i = 0; steps && i < r->bisect->nsteps; i++)
        top = fmax(top, isfinite(r->bisect->steps[i].mean_ns) ? r->bisect->steps[i].mean_ns : 0);
    if (!(top > 0))
        top = 1;
    /* The limits shown: every category boundary within reach of the data. */
    sc.ymax = top;
    for (size_t i = 0; i < r->ncategories; i++)
        if (isfinite(r->categories[i].high_ns) && r->categories[i].high_ns <= top * LIMIT_SPAN)
            sc.ymax = fmax(sc.ymax, r->categories[i].high_ns);
    if (now && isfinite(now->category_high_ns) && now->category_high_ns <= top * LIMIT_SPAN) {
        limit = now->category_high_ns;
        sc.ymax = fmax(sc.ymax, limit);
    }
    step = tick_step(sc.ymax * 1.08, 4);
    sc.ymax = ceil(sc.ymax * 1.08 / step) * step;

    culprit_buf_printf(out,
                       "<svg class=\"plot\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
                       "aria-label=\"time of ",
                       PLOT_W, PLOT_H);
    h(out, s->test);
    culprit_buf_puts(out, " along first-parent history\">\n");
    /* Grid and y axis. */
    for (double y = 0; y <= sc.ymax * 1.0001; y += step) {
        culprit_buf_printf(out,
                           "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
                           "y2=\"%.1f\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
                           PLOT_LEFT, PLOT_W - PLOT_RIGHT, py(&sc, y), py(&sc, y), PLOT_LEFT - 8,
                           py(&sc, y) + 4);
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
                           py(&sc, limit) - PLOT_TOP);
    /* Category limits (Fig. 3's dashed lines), named at the right end. */
    for (size_t i = 0; i < r->ncategories; i++) {
        const culprit_report_category *c = &r->categories[i];
        if (!isfinite(c->high_ns) || c->high_ns > sc.ymax)
            continue;
        culprit_buf_printf(out,
                           "<line class=\"limit\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
                           "y2=\"%.1f\"><title>",
                           PLOT_LEFT, PLOT_W - PLOT_RIGHT, py(&sc, c->high_ns),
                           py(&sc, c->high_ns));
        h(out, c->name);
        culprit_buf_puts(out, " ends at ");
        duration(out, c->high_ns);
        culprit_buf_printf(out, "</title></line><text class=\"limit-label\" x=\"%.1f\" y=\"%.1f\">",
                           PLOT_W - PLOT_RIGHT + 6, py(&sc, c->high_ns) + 4);
        h(out, c->name);
        culprit_buf_puts(out, " &lt; ");
        duration(out, c->high_ns);
        culprit_buf_puts(out, "</text>\n");
    }
    /* X axis: a tick per commit, short shas where there is room. */
    culprit_buf_printf(out,
                       "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>\n",
                       PLOT_LEFT, PLOT_W - PLOT_RIGHT, PLOT_H - PLOT_BOTTOM, PLOT_H - PLOT_BOTTOM);
    for (size_t i = 0; i < r->ncommits; i++) {
        double x = px(&sc, i);
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
        double x = px(&sc, culprit);
        culprit_buf_printf(out,
                           "<g class=\"culprit-mark\"><line class=\"culprit\" x1=\"%.1f\" "
                           "x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/><text class=\"culprit-label\" "
                           "x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">culprit %.7s</text></g>\n",
                           x, x, PLOT_TOP - 6, PLOT_H - PLOT_BOTTOM, x + (x > PLOT_W / 2 ? -4 : 4),
                           PLOT_TOP - 10 + 10, x > PLOT_W / 2 ? "end" : "start",
                           r->commits[culprit].sha);
    }
    /* The series: means joined, then each point with its whisker and its title. */
    /* Solid between neighbouring commits, dashed across commits not measured. */
    for (size_t i = 1; i < s->npoints; i++) {
        const culprit_report_point *a = &s->points[i - 1], *b = &s->points[i];
        if (!isfinite(a->mean_ns) || !isfinite(b->mean_ns))
            continue;
        culprit_buf_printf(out,
                           "<line class=\"series%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                           "y2=\"%.1f\"/>\n",
                           b->commit == a->commit + 1 ? "" : " gap", px(&sc, a->commit),
                           py(&sc, a->mean_ns), px(&sc, b->commit), py(&sc, b->mean_ns));
    }
    if (steps)
        bisect_steps(out, r, &sc);
    for (size_t i = 0; i < s->npoints; i++) {
        const culprit_report_point *p = &s->points[i];
        double x = px(&sc, p->commit), y = py(&sc, p->mean_ns);
        int flagged = p->verdict == CULPRIT_VERDICT_MAJOR || p->verdict == CULPRIT_VERDICT_MINOR;
        if (!isfinite(p->mean_ns))
            continue;
        culprit_buf_printf(out, "<g class=\"pt v-%s\">", kind_class(p->verdict));
        point_title(out, r, p);
        if (isfinite(p->low_ns) && isfinite(p->high_ns))
            culprit_buf_printf(out,
                               "<path class=\"whisker\" d=\"M%.1f %.1fV%.1fM%.1f %.1fh8M%.1f "
                               "%.1fh8\"/>",
                               x, py(&sc, p->low_ns), py(&sc, p->high_ns), x - 4,
                               py(&sc, p->low_ns), x - 4, py(&sc, p->high_ns));
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
    culprit_buf_puts(out, "</svg>\n");
}

/* Tests from this rank on (unchanged, no baseline, mixed, not measured now) are
 * folded under one line: in a suite of hundreds, the few that need a look come
 * first and the page stays short. */
#define QUIET_RANK 5

static void test_article(culprit_buf *out, const culprit_report *r, size_t i)
{
    const culprit_report_series *s = &r->series[i];
    const culprit_report_point *now = culprit_report_current(r, s);

    culprit_buf_printf(out, "<article class=\"test\" id=\"test-%zu\">\n<h3><code>", i);
    h(out, s->test);
    culprit_buf_puts(out, "</code>");
    if (now)
        culprit_buf_printf(out, "<span class=\"tag %s\">%s</span>", kind_class(now->verdict),
                           culprit_report_verdict_tag(now->verdict));
    culprit_buf_puts(out, "</h3>\n<p class=\"msg\">");
    if (now && now->message)
        h(out, now->message);
    else
        culprit_buf_puts(out, "not measured at this commit");
    culprit_buf_puts(out, "</p>\n");
    if (now && (now->clusters || now->rules)) { /* the counter detectors */
        culprit_buf_printf(out, "<p class=\"msg counters%s\">",
                           now->counters_flagged ? " flagged" : "");
        if (now->clusters) {
            culprit_buf_puts(out, "clusters: ");
            h(out, now->clusters);
        }
        if (now->rules) {
            culprit_buf_puts(out, now->clusters ? "<br>rules: " : "rules: ");
            h(out, now->rules);
        }
        culprit_buf_puts(out, "</p>\n");
    }
    plot(out, r, s);
    culprit_buf_puts(out, "</article>\n");
}

static void tests(culprit_buf *out, const culprit_report *r)
{
    size_t quiet = 0;

    culprit_buf_puts(out, "<section id=\"tests\">\n<h2>Tests along first-parent history</h2>\n");
    if (!r->nseries) {
        culprit_buf_puts(out, "<p class=\"muted\">No measurements in this window of history.</p>\n"
                              "</section>\n");
        return;
    }
    legend(out);
    for (size_t i = 0; i < r->nseries; i++)
        quiet += rank(r, &r->series[i]) >= QUIET_RANK;
    for (int level = 0; level <= 9; level++) {
        if (level == QUIET_RANK && quiet)
            culprit_buf_printf(out,
                               "<details class=\"quiet\"%s><summary>%zu more test%s: unchanged, "
                               "not compared, or not measured at this commit</summary>\n",
                               quiet == r->nseries ? " open" : "", quiet, quiet == 1 ? "" : "s");
        for (size_t i = 0; i < r->nseries; i++)
            if (rank(r, &r->series[i]) == level)
                test_article(out, r, i);
    }
    if (quiet)
        culprit_buf_puts(out, "</details>\n");
    culprit_buf_puts(out, "</section>\n");
}

/* --------------------------------------------------------------- bisection --- */

static void bisection(culprit_buf *out, const culprit_bisect_result *b)
{
    char sha[13], good[13], bad[13];
    size_t skipped = 0;

    culprit_buf_puts(out, "<section id=\"bisection\">\n<h2>Bisection</h2>\n<div class=\"card\">\n");
    if (b->culprit[0]) {
        culprit_buf_printf(out, "<p><strong>First slow commit:</strong> <code>%s</code></p>\n<p>",
                           b->culprit);
        h(out, b->subject);
        culprit_buf_puts(out, "<br><span class=\"muted\">");
        h(out, b->author);
        if (b->date) {
            culprit_buf_puts(out, ", ");
            h(out, b->date);
        }
        culprit_buf_puts(out, "</span></p>\n<p><span class=\"up\">");
        culprit_report__put_change_ci(out, b->change, b->change_low, b->change_high);
        culprit_buf_puts(out, "</span> against the last commit measured good");
        if (b->confirmed == 1)
            culprit_buf_puts(out, "; confirmed against its parent");
        else if (b->confirmed == 0)
            culprit_buf_puts(out, "; <strong>not confirmed</strong>: no slower than its parent");
        culprit_buf_puts(out, "</p>\n");
    } else {
        culprit_buf_puts(out, "<p><strong>Outcome:</strong> ");
        h(out, culprit_bisect_outcome_name(b->outcome));
        culprit_buf_puts(out, "</p>\n");
        for (size_t i = 0; i < b->nculprits; i++) {
            culprit_buf_printf(out, "%s<code>%s</code> ", i ? ", " : "<p>",
                               culprit_report__short(sha, b->culprits[i].sha));
            culprit_report__put_change(out, b->culprits[i].change);
            if (i + 1 == b->nculprits)
                culprit_buf_puts(out, "</p>\n");
        }
    }
    for (size_t i = 0; i < b->nsteps; i++)
        skipped += b->steps[i].verdict == CULPRIT_BISECT_SKIP;
    culprit_buf_printf(out,
                       "<p class=\"muted\">%zu steps, %zu builds, %zu runs, %zu skipped, among "
                       "%zu commits from <code>%s</code> (good) to <code>%s</code> (bad)</p>\n",
                       b->nsteps, b->builds, b->runs, skipped, b->ncommits,
                       culprit_report__short(good, b->good), culprit_report__short(bad, b->bad));
    culprit_buf_puts(out, "</div>\n");
    if (!b->nsteps) {
        culprit_buf_puts(out, "</section>\n");
        return;
    }
    culprit_buf_puts(out,
                     "<table id=\"steps\"><thead><tr><th class=\"num\">step</th><th>commit</th>"
                     "<th>subject</th><th>verdict</th><th class=\"num\">good end</th>"
                     "<th class=\"num\">commit</th><th class=\"num\">change</th>"
                     "<th class=\"num\">runs</th></tr></thead><tbody>\n");
    for (size_t i = 0; i < b->nsteps; i++) {
        const culprit_bisect_step *s = &b->steps[i];
        /* The class and the word are the verdict's: v-good, v-bad, v-skip. */
        const char *v = culprit_bisect_verdict_name(s->verdict);
        culprit_buf_printf(out, "<tr><td class=\"num\">%s", i ? "" : "check");
        if (i)
            culprit_buf_printf(out, "%zu", i);
        culprit_buf_printf(out, "</td><td><code>%s</code></td><td>",
                           culprit_report__short(sha, s->sha));
        h(out, s->subject);
        culprit_buf_printf(out, "</td><td class=\"v-%s\">", v);
        h(out, v);
        if (s->skip_reason) {
            culprit_buf_puts(out, ": ");
            h(out, s->skip_reason);
        }
        culprit_buf_puts(out, "</td><td class=\"num\">");
        duration(out, s->good_mean_ns);
        culprit_buf_puts(out, "</td><td class=\"num\">");
        duration(out, s->mean_ns);
        culprit_buf_puts(out, "</td><td class=\"num\">");
        culprit_report__put_change_ci(out, s->change, s->change_low, s->change_high);
        culprit_buf_printf(out, "</td><td class=\"num\">%zu</td></tr>\n", s->runs);
    }
    culprit_buf_puts(out, "</tbody></table>\n</section>\n");
}

/* --------------------------------------------------------------- call tree --- */

typedef struct {
    size_t *first; /* children of node i: order[first[i] .. first[i + 1]) */
    size_t *order;
    unsigned char *open; /* on the way to a suspect node: rendered expanded */
} tree_index;

static int index_tree(tree_index *t, const culprit_calltree_view *c)
{
    size_t n = c->nnodes, *fill;

    t->first = calloc(n + 2, sizeof(size_t));
    t->order = calloc(n ? n : 1, sizeof(size_t));
    t->open = calloc(n ? n : 1, 1);
    fill = calloc(n + 2, sizeof(size_t));
    if (!t->first || !t->order || !t->open || !fill) {
        free(fill);
        return culprit_error_set(CULPRIT_ERROR, "out of memory");
    }
    /* Counting sort by parent (top nodes under the virtual index n). */
    for (size_t i = 0; i < n; i++)
        t->first[(c->nodes[i].parent == SIZE_MAX ? n : c->nodes[i].parent) + 1]++;
    for (size_t i = 0; i <= n; i++)
        t->first[i + 1] += t->first[i];
    for (size_t i = 0; i < n; i++) {
        size_t p = c->nodes[i].parent == SIZE_MAX ? n : c->nodes[i].parent;
        t->order[t->first[p] + fill[p]++] = i;
    }
    free(fill);
    for (size_t i = n; i-- > 0;)
        if (c->nodes[i].suspect || t->open[i]) {
            size_t p = c->nodes[i].parent;
            if (p != SIZE_MAX)
                t->open[p] = 1;
        }
    return 0;
}

/* Coloured only when the analysis found it slower (or faster): a +0.3% of noise in
 * red would draw the eye to the wrong place. */
static const char *change_class(const culprit_calltree_view_node *n)
{
    if (n->suspect)
        return "up";
    switch (n->status) {
    case CULPRIT_CALLTREE_VIEW_SLOWER:
        return "up";
    case CULPRIT_CALLTREE_VIEW_FASTER:
        return "down";
    default:
        return "muted";
    }
}

static void node_row(culprit_buf *out, const culprit_calltree_view_node *n)
{
    culprit_buf_puts(out, "<span class=\"fn\">");
    h(out, n->function);
    culprit_buf_puts(out, "</span>");
    if (n->changed)
        culprit_buf_puts(out, "<span class=\"dot\" title=\"its lines changed in the culprit "
                              "commit\"></span>");
    if (n->suspect)
        culprit_buf_puts(out, "<span class=\"cross\" title=\"suspected of the regression\">"
                              "&#x2716;</span>");
    if (n->file) {
        culprit_buf_puts(out, "<span class=\"loc\">");
        h(out, n->file);
        if (n->line_low)
            culprit_buf_printf(out, ":%u&ndash;%u", n->line_low, n->line_high);
        culprit_buf_puts(out, "</span>");
    }
    culprit_buf_puts(out, "<span class=\"times\">");
    duration(out, n->base_ns);
    culprit_buf_puts(out, " &rarr; ");
    duration(out, n->test_ns);
    culprit_buf_puts(out, "</span>");
    if (isfinite(n->change)) {
        culprit_buf_printf(out, "<span class=\"%s\">", change_class(n));
        culprit_report__put_change(out, n->change);
        culprit_buf_puts(out, "</span>");
    }
    if (isfinite(n->test_calls) || isfinite(n->base_calls)) {
        culprit_buf_puts(out, "<span class=\"calls\">");
        if (isfinite(n->base_calls) && isfinite(n->test_calls) && n->base_calls != n->test_calls)
            culprit_buf_printf(out, "calls %.0f &rarr; %.0f", n->base_calls, n->test_calls);
        else
            culprit_buf_printf(out, "&times;%.0f",
                               isfinite(n->test_calls) ? n->test_calls : n->base_calls);
        culprit_buf_puts(out, "</span>");
    }
    switch (n->status) {
    case CULPRIT_CALLTREE_VIEW_UNDECIDED:
    case CULPRIT_CALLTREE_VIEW_ADDED:
    case CULPRIT_CALLTREE_VIEW_REMOVED:
    case CULPRIT_CALLTREE_VIEW_SHAPE:
        /* What the change column cannot say: the status as a tag. */
        culprit_buf_puts(out, "<span class=\"tag\">");
        h(out, culprit_calltree_view_status_name(n->status));
        culprit_buf_puts(out, "</span>");
        break;
    case CULPRIT_CALLTREE_VIEW_UNKNOWN:
    case CULPRIT_CALLTREE_VIEW_UNCHANGED:
    case CULPRIT_CALLTREE_VIEW_SLOWER:
    case CULPRIT_CALLTREE_VIEW_FASTER:
        break;
    }
}

static void node_lines(culprit_buf *out, const culprit_calltree_view_node *n)
{
    const char *line;

    if (!n->nchanged && !n->diff)
        return;
    culprit_buf_puts(out, "<div class=\"lines\">");
    if (n->nchanged) {
        culprit_buf_puts(out, "changed lines ");
        for (size_t k = 0; k < n->nchanged; k++) {
            culprit_buf_printf(out, "%s%u", k ? ", " : "", n->changed_lines[k][0]);
            if (n->changed_lines[k][1] > n->changed_lines[k][0])
                culprit_buf_printf(out, "&ndash;%u", n->changed_lines[k][1]);
        }
    }
    if (n->diff) {
        culprit_buf_puts(out, "<pre class=\"diff\">");
        for (line = n->diff; *line;) {
            const char *end = strchr(line, '\n');
            size_t len = end ? (size_t)(end - line) : strlen(line);
            char *copy = strndup(line, len);
            const char *cls = *line == '+' ? "a" : *line == '-' ? "d" : NULL;
            if (!copy)
                break;
            if (cls)
                culprit_buf_printf(out, "<span class=\"%s\">", cls);
            h(out, copy);
            culprit_buf_puts(out, cls ? "</span>" : "\n");
            free(copy);
            line += len + (end ? 1 : 0);
        }
        culprit_buf_puts(out, "</pre>");
    }
    culprit_buf_puts(out, "</div>");
}

static void node(culprit_buf *out, const culprit_calltree_view *c, const tree_index *t, size_t i)
{
    const culprit_calltree_view_node *n = &c->nodes[i];
    size_t begin = t->first[i], end = t->first[i + 1];
    int has_children = end > begin, expandable = has_children || n->diff || n->nchanged;

    culprit_buf_printf(out, "<li class=\"node%s%s\">", n->suspect ? " suspect" : "",
                       n->changed ? " changed" : "");
    if (expandable) {
        culprit_buf_printf(out, "<details%s><summary class=\"row\">",
                           t->open[i] || n->suspect ? " open" : "");
        node_row(out, n);
        culprit_buf_puts(out, "</summary>");
        node_lines(out, n);
        if (has_children) {
            culprit_buf_puts(out, "<ul>\n");
            for (size_t k = begin; k < end; k++)
                node(out, c, t, t->order[k]);
            culprit_buf_puts(out, "</ul>");
        }
        culprit_buf_puts(out, "</details>");
    } else {
        culprit_buf_puts(out, "<div class=\"row\">");
        node_row(out, n);
        culprit_buf_puts(out, "</div>");
    }
    culprit_buf_puts(out, "</li>\n");
}

static int calltree(culprit_buf *out, const culprit_calltree_view *c)
{
    tree_index t = {NULL, NULL, NULL};
    int error;

    culprit_buf_puts(out, "<section id=\"calltree\">\n<h2>Call tree of the culprit</h2>\n");
    culprit_buf_puts(out, "<p class=\"muted\">");
    if (c->base || c->test) {
        culprit_buf_puts(out, "<code>");
        h(out, c->base);
        culprit_buf_puts(out, "</code> &rarr; <code>");
        h(out, c->test);
        culprit_buf_puts(out, "</code>. ");
    }
    culprit_buf_puts(out, "Time per call before &rarr; after. Suspect nodes are highlighted "
                          "(<span class=\"cross\">&#x2716;</span>); "
                          "<span class=\"dot\"></span> marks a function whose own lines the "
                          "culprit commit changed. Click a node to fold it.</p>\n");
    if (c->error) {
        culprit_buf_puts(out, "<p><strong>No call-tree analysis:</strong> ");
        h(out, c->error);
        culprit_buf_puts(out, "</p>\n");
    }
    if (c->nsuspects) {
        culprit_buf_puts(out, "<ol class=\"suspects\">");
        for (size_t i = 0; i < c->nsuspects; i++) {
            culprit_buf_puts(out, "<li><code>");
            h(out, c->suspects[i]);
            culprit_buf_puts(out, "</code></li>");
        }
        culprit_buf_puts(out, "</ol>\n");
    }
    if ((error = index_tree(&t, c)) == 0) {
        culprit_buf_puts(out, "<ul class=\"tree\">\n");
        for (size_t k = t.first[c->nnodes]; k < t.first[c->nnodes + 1]; k++)
            node(out, c, &t, t.order[k]);
        culprit_buf_puts(out, "</ul>\n");
    }
    culprit_buf_puts(out, "</section>\n");
    free(t.first);
    free(t.order);
    free(t.open);
    return error;
}

/* -------------------------------------------------------------- overweight --- */

static void overweight(culprit_buf *out, const culprit_report *r)
{
    culprit_buf_puts(out, "<section id=\"overweight\">\n<h2>Overweight functions</h2>\n"
                          "<p class=\"muted\">Each function's growth against what it would have "
                          "grown had everything slowed down alike (overweight), and its share of "
                          "the total slowdown (responsibility).</p>\n");
    if (!r->overweight->nrows) {
        culprit_buf_puts(out, "<p>No function grew.</p>\n</section>\n");
        return;
    }
    culprit_buf_puts(out, "<table><thead><tr><th>function</th><th class=\"num\">before</th>"
                          "<th class=\"num\">after</th><th class=\"num\">delta</th>"
                          "<th class=\"num\">overweight</th><th>responsibility</th></tr></thead>"
                          "<tbody>\n");
    for (size_t i = 0; i < r->overweight->nrows; i++) {
        const culprit_calltree_overweight_entry *w = &r->overweight->rows[i];
        double bar =
            isfinite(w->responsibility_pct) ? fmax(0, fmin(100, w->responsibility_pct)) : 0;
        culprit_buf_puts(out, "<tr><td><code>");
        h(out, w->symbol);
        culprit_buf_puts(out, "</code></td><td class=\"num\">");
        duration(out, w->base_ns);
        culprit_buf_puts(out, "</td><td class=\"num\">");
        duration(out, w->test_ns);
        culprit_buf_puts(out, "</td><td class=\"num\">");
        duration(out, w->delta_ns);
        culprit_buf_puts(out, "</td><td class=\"num\">");
        if (isfinite(w->overweight_pct))
            culprit_buf_printf(out, "%+.0f%%", w->overweight_pct);
        else
            culprit_buf_puts(out, "-");
        culprit_buf_printf(out, "</td><td><span class=\"bar\" style=\"width:%.1fpx\"></span>",
                           bar * 1.2);
        if (isfinite(w->responsibility_pct)) /* no "-0%" for a tiny negative share */
            culprit_buf_printf(out, "%.0f%%",
                               fabs(w->responsibility_pct) < 0.5 ? 0.0 : w->responsibility_pct);
        culprit_buf_puts(out, "</td></tr>\n");
    }
    culprit_buf_puts(out, "</tbody></table>\n</section>\n");
}

int culprit_report__render_html(culprit_buf *out, const culprit_report *r)
{
    char sha[13];
    int error = 0;

    /* The appends do not check each result: a failed one sets the last error and
     * leaves the buffer as it was, so one check at the end catches them all. */
    culprit_error_clear();
    culprit_buf_puts(out,
                     "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                     "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n"
                     "<meta name=\"color-scheme\" content=\"light dark\">\n<title>culprit "
                     "report");
    if (r->title) {
        culprit_buf_puts(out, ": ");
        h(out, r->title);
    }
    if (r->commit[0])
        culprit_buf_printf(out, " at %s", culprit_report__short(sha, r->commit));
    culprit_buf_printf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n", css);
    header(out, r);
    answer(out, r);
    tests(out, r);
    if (r->bisect)
        bisection(out, r->bisect);
    if (r->calltree)
        error = calltree(out, r->calltree);
    if (r->overweight)
        overweight(out, r);
    culprit_buf_puts(out, "<footer>Written by <code>culprit report</code>. Verdicts as "
                          "<code>culprit check</code> gives them at each commit; see "
                          "docs/report.md.</footer>\n</main>\n</body>\n</html>\n");
    if (error < 0)
        return error;
    return culprit_error_last_code() < 0 ? culprit_error_last_code() : 0;
}
