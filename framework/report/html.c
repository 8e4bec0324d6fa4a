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
 *
 * This file writes the page, its header and answer, the tests, the bisection and
 * the overweight table; the plots are in html_plot.c, the call tree in
 * html_tree.c (html_parts.h is what the three share).
 */
#include "html_parts.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
    ".chip.minor.unconfirmed,.tag.minor.unconfirmed{color:var(--minor);background:none}\n"
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
    "svg .v-minor.unconfirmed circle{fill:var(--bg)}"
    "svg .unconfirmed .whisker{stroke-dasharray:2 2}\n"
    "svg .v-improvement circle{stroke:var(--faster)}"
    "svg .v-undecided circle{stroke:var(--undecided)}\n"
    "svg .v-major .whisker{stroke:var(--major)}svg .v-minor .whisker{stroke:var(--minor)}\n"
    "svg text.mark{font-weight:700}svg .v-major text.mark{fill:var(--major)}"
    "svg .v-minor text.mark{fill:var(--minor)}\n"
    "svg .culprit{stroke:var(--culprit);stroke-width:1.5;stroke-dasharray:2 3}"
    "svg text.culprit-label{fill:var(--culprit);font-weight:600}\n"
    ".plot-notes{font-size:.82rem;color:var(--muted);margin:.2rem 0 0}\n"
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
        /* A minor counts here when it fails a check; the unconfirmed get their own chip. */
        size_t n = culprit_report_count(r, kinds[k]) -
                   (kinds[k] == CULPRIT_VERDICT_MINOR ? culprit_report__count_unconfirmed(r) : 0);
        if (n || kinds[k] == CULPRIT_VERDICT_MAJOR || kinds[k] == CULPRIT_VERDICT_MINOR)
            culprit_buf_printf(out, "<span class=\"chip %s\">%zu %s</span>",
                               n ? kind_class(kinds[k]) : "none", n, /* a zero is not alarming */
                               kinds[k] == CULPRIT_VERDICT_IMPROVEMENT   ? "faster"
                               : kinds[k] == CULPRIT_VERDICT_NO_BASELINE ? "no baseline"
                               : kinds[k] == CULPRIT_VERDICT_NOT_RUN
                                   ? "not run"
                                   : culprit_detect_verdict_name(kinds[k]));
    }
    /* Minors that fail no check, said apart: a hollow chip, as the plots draw them. */
    if (culprit_report__count_unconfirmed(r))
        culprit_buf_printf(out, "<span class=\"chip minor unconfirmed\">%zu unconfirmed</span>",
                           culprit_report__count_unconfirmed(r));
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
        culprit_buf_puts(out, "</p>\n");
    }
    /* The call trees' one answer (culprit_calltree_diff_answer()), as the document gives it. */
    if (c && c->answer.given && c->answer.kind != CULPRIT_CALLTREE_ANSWER_NONE && c->answer.text) {
        culprit_buf_puts(out, "<p><strong>Answer:</strong> ");
        if (c->answer.kind == CULPRIT_CALLTREE_ANSWER_CHANGED)
            culprit_buf_puts(out, "<span class=\"dot\"></span> ");
        h(out, c->answer.text);
        culprit_buf_puts(out, "</p>\n");
    }
    culprit_buf_puts(out, "</section>\n");
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
        culprit_buf_printf(out, "<span class=\"tag %s%s\">%s%s</span>", kind_class(now->verdict),
                           now->unconfirmed ? " unconfirmed" : "",
                           culprit_report_verdict_tag(now->verdict),
                           now->unconfirmed ? " (unconfirmed)" : "");
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
    culprit_report__html_plot(out, r, s);
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
    culprit_report__html_legend(out);
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
        error = culprit_report__html_calltree(out, r->calltree);
    if (r->overweight)
        overweight(out, r);
    culprit_buf_puts(out, "<footer>Written by <code>culprit report</code>. Verdicts as "
                          "<code>culprit check</code> gives them at each commit; see "
                          "docs/report.md.</footer>\n</main>\n</body>\n</html>\n");
    if (error < 0)
        return error;
    return culprit_error_last_code() < 0 ? culprit_error_last_code() : 0;
}
