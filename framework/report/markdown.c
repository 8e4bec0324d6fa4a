/*
 * The report as a short Markdown summary (`culprit report --format markdown`), for
 * a CI step summary ($GITHUB_STEP_SUMMARY) or a pull-request comment: a headline a
 * reviewer reads without scrolling, the answer when a bisection found the culprit
 * (test — commit — function, as `culprit check --investigate` prints it), a table
 * of the tests that need a look (every
 * verdict except "unchanged", which only counts), the culprit commit, the suspect
 * call path with the functions the culprit changed, and the top of the overweight
 * table. Everything taken from the user's code or history is escaped.
 */
#include "render.h"

#include <math.h>

/* Overweight rows shown: the top of the table is where to look; the page has it all. */
#define MD_OVERWEIGHT_ROWS 5

static const culprit_verdict_kind order[] = {
    CULPRIT_VERDICT_MAJOR,     CULPRIT_VERDICT_MINOR,     CULPRIT_VERDICT_IMPROVEMENT,
    CULPRIT_VERDICT_UNDECIDED, CULPRIT_VERDICT_UNCHANGED, CULPRIT_VERDICT_NO_BASELINE,
    CULPRIT_VERDICT_MIXED,     CULPRIT_VERDICT_NOT_RUN};
#define NORDER (sizeof(order) / sizeof(order[0]))

static const char *count_word(culprit_verdict_kind kind)
{
    return kind == CULPRIT_VERDICT_IMPROVEMENT   ? "faster"
           : kind == CULPRIT_VERDICT_NO_BASELINE ? "no baseline"
           : kind == CULPRIT_VERDICT_NOT_RUN     ? "not run"
                                                 : culprit_detect_verdict_name(kind);
}

/* Tests were measured, yet none was compared with a baseline: "no regression" would
 * claim what nobody checked (a fresh runner, another build, all runs dirty). */
static int nothing_compared(const culprit_report *r)
{
    static const culprit_verdict_kind uncompared[] = {
        CULPRIT_VERDICT_NO_BASELINE, CULPRIT_VERDICT_MIXED, CULPRIT_VERDICT_NOT_RUN};
    size_t measured = 0, none = 0;

    for (size_t i = 0; i < r->nseries; i++)
        measured += culprit_report_current(r, &r->series[i]) != NULL;
    for (size_t k = 0; k < sizeof(uncompared) / sizeof(uncompared[0]); k++)
        none += culprit_report_count(r, uncompared[k]);
    return measured > 0 && none >= measured;
}

/* The headline counts what fails a check (majors always, minors with --fail-on
 * minor); an unconfirmed minor fails nothing, so it is named after the sha. */
static void headline(culprit_buf *out, const culprit_report *r)
{
    size_t major = culprit_report_count(r, CULPRIT_VERDICT_MAJOR);
    size_t unconfirmed = culprit_report__count_unconfirmed(r);
    size_t minor = culprit_report_count(r, CULPRIT_VERDICT_MINOR) - unconfirmed;
    char sha[13];

    culprit_report__short(sha, r->commit);
    culprit_buf_puts(out, "## culprit: ");
    if (major || minor) {
        if (major)
            culprit_buf_printf(out, "%zu major", major);
        if (major && minor)
            culprit_buf_puts(out, " and ");
        if (minor)
            culprit_buf_printf(out, "%zu minor", minor);
        culprit_buf_printf(out, " regression%s", major + minor == 1 ? "" : "s");
    } else if (nothing_compared(r)) {
        culprit_buf_puts(out, "nothing compared (no comparable baseline)");
    } else {
        culprit_buf_puts(out, "no regression");
    }
    if (sha[0])
        culprit_buf_printf(out, " at `%s`", sha);
    if (unconfirmed)
        culprit_buf_printf(out, "; %zu unconfirmed minor%s (fail%s no check)", unconfirmed,
                           unconfirmed == 1 ? "" : "s", unconfirmed == 1 ? "s" : "");
    culprit_buf_puts(out, "\n\n");
}

/* The answer first: "**Answer:** `test` — `sha` **subject** — `function()` (file:line)";
 * without a changed function on the slow path, the answer's sentence instead. */
static void answer(culprit_buf *out, const culprit_report *r)
{
    const culprit_bisect_result *b = r->bisect;
    const culprit_calltree_view_answer *a = r->calltree ? &r->calltree->answer : NULL;
    char sha[13];

    if (!b || !b->culprit[0])
        return;
    culprit_buf_puts(out, "**Answer:** ");
    for (size_t i = 0, first = 1; i < r->nseries; i++)
        if (culprit_report_bisect_is_of(r, &r->series[i])) {
            if (!first)
                culprit_buf_puts(out, ", ");
            culprit_report__put_md_code(out, r->series[i].test, 0);
            first = 0;
        }
    culprit_buf_printf(out, " — `%s`", culprit_report__short(sha, b->culprit));
    if (b->subject) {
        culprit_buf_puts(out, " **");
        culprit_report__put_md(out, b->subject);
        culprit_buf_puts(out, "**");
    }
    /* The call trees' one answer (culprit_calltree_diff_answer()), as the document gives it. */
    if (a && a->kind == CULPRIT_CALLTREE_ANSWER_CHANGED && a->function) {
        culprit_buf_puts(out, " — ");
        culprit_report__put_md_code(out, a->function, 0);
        if (a->file) {
            culprit_buf_puts(out, " (");
            culprit_report__put_md(out, a->file);
            if (a->line)
                culprit_buf_printf(out, ":%u", a->line);
            culprit_buf_puts(out, ")");
        }
    } else if (a && a->given && a->kind != CULPRIT_CALLTREE_ANSWER_NONE && a->text) {
        culprit_buf_puts(out, " — ");
        culprit_report__put_md(out, a->text);
    }
    culprit_buf_puts(out, "\n\n");
}

static void counts(culprit_buf *out, const culprit_report *r)
{
    size_t measured = 0;
    int first = 1;

    for (size_t i = 0; i < r->nseries; i++)
        measured += culprit_report_current(r, &r->series[i]) != NULL;
    if (!measured) {
        culprit_buf_puts(out, "No test was measured at this commit.\n\n");
        return;
    }
    culprit_buf_printf(out, "%zu test%s: ", measured, measured == 1 ? "" : "s");
    for (size_t k = 0; k < NORDER; k++) {
        size_t n = culprit_report_count(r, order[k]);
        if (!n)
            continue;
        culprit_buf_printf(out, "%s%zu %s", first ? "" : ", ", n, count_word(order[k]));
        if (order[k] == CULPRIT_VERDICT_MINOR && culprit_report__count_unconfirmed(r))
            culprit_buf_printf(out, " (%zu unconfirmed)", culprit_report__count_unconfirmed(r));
        first = 0;
    }
    culprit_buf_puts(out, ".\n\n");
}

/*
 * The baseline a verdict compared with: its mean and commit. The series' point before
 * the current one is that baseline (the newest earlier data on first-parent history,
 * as `culprit check` takes it); older than the report's window, only the mean is
 * known, from the change (now = baseline x (1 + change)).
 */
static void put_baseline(culprit_buf *out, const culprit_report *r, const culprit_report_series *s,
                         const culprit_report_point *p)
{
    char sha[13];

    if (!isfinite(p->change)) {
        culprit_buf_puts(out, "-");
        return;
    }
    if (s->npoints >= 2) {
        const culprit_report_point *base = &s->points[s->npoints - 2];
        culprit_buf_put_duration(out, base->mean_ns);
        culprit_buf_printf(out, " at `%s`",
                           culprit_report__short(sha, r->commits[base->commit].sha));
    } else if (p->change > -1) {
        culprit_buf_put_duration(out, p->mean_ns / (1 + p->change));
    } else {
        culprit_buf_puts(out, "-");
    }
}

/*
 * A change with its confidence interval, rounded to what the interval can tell: as
 * many decimals as make its width show with one or two digits (0 for an interval tens
 * of points wide, up to 3), so neither "+5.0% (CI -31.6% to +41.6%)" claims a
 * precision it lacks nor "+266.7% (CI +266.7% to +266.7%)" hides a narrow interval.
 */
static void put_change_rounded(culprit_buf *out, double change, double low, double high)
{
    double width = 100 * (high - low);
    int d = 3;

    if (!isfinite(change) || !isfinite(low) || !isfinite(high)) {
        culprit_report__put_change_ci(out, change, low, high);
        return;
    }
    if (width > 0)
        d = (int)ceil(-log10(width)) + 1;
    d = d < 0 ? 0 : d > 3 ? 3 : d;
    culprit_buf_printf(out, "%+.*f%%", d, 100 * change);
    if (round(100 * low * pow(10, d)) == round(100 * high * pow(10, d)))
        culprit_buf_printf(out, " (CI within +-%.*f%%)", d, 0.5 * pow(10, -d));
    else
        culprit_buf_printf(out, " (CI %+.*f%% to %+.*f%%)", d, 100 * low, d, 100 * high);
}

static void verdict_table(culprit_buf *out, const culprit_report *r)
{
    int header = 0;

    /* Worst first: the order a reader triages in. */
    for (size_t k = 0; k < NORDER; k++) {
        if (order[k] == CULPRIT_VERDICT_UNCHANGED)
            continue;
        for (size_t i = 0; i < r->nseries; i++) {
            const culprit_report_point *p = culprit_report_current(r, &r->series[i]);
            if (!p || p->verdict != order[k])
                continue;
            if (!header) {
                culprit_buf_puts(out, "| verdict | test | now | baseline | change | category |\n"
                                      "|---|---|---:|---|---|---|\n");
                header = 1;
            }
            /* An unconfirmed minor fails nothing (docs/detection.md): not in bold. */
            int bold = k < 2 && !(p->verdict == CULPRIT_VERDICT_MINOR &&
                                  p->evidence == CULPRIT_EVIDENCE_UNCONFIRMED);
            culprit_buf_printf(out, "| %s%s%s%s | ", bold ? "**" : "",
                               culprit_report_verdict_tag(p->verdict), bold ? "**" : "",
                               p->verdict == CULPRIT_VERDICT_MINOR &&
                                       p->evidence != CULPRIT_EVIDENCE_HISTORY
                                   ? p->evidence == CULPRIT_EVIDENCE_UNCONFIRMED ? " (unconfirmed)"
                                     : p->evidence == CULPRIT_EVIDENCE_PAIRED    ? " (paired runs)"
                                     : p->evidence == CULPRIT_EVIDENCE_POOLED ? " (pooled spread)"
                                                                              : " (counted)"
                                   : "");
            culprit_report__put_md_code(out, r->series[i].test, 1);
            culprit_buf_puts(out, " | ");
            culprit_buf_put_duration(out, p->mean_ns);
            culprit_buf_puts(out, " | ");
            put_baseline(out, r, &r->series[i], p);
            culprit_buf_puts(out, " | ");
            put_change_rounded(out, p->change, p->change_low, p->change_high);
            culprit_buf_puts(out, " | ");
            if (p->category) {
                culprit_report__put_md(out, p->category);
                if (isfinite(p->category_high_ns)) {
                    culprit_buf_puts(out, " (< ");
                    culprit_buf_put_duration(out, p->category_high_ns);
                    culprit_buf_puts(out, ")");
                }
            } else {
                culprit_buf_puts(out, "-");
            }
            culprit_buf_puts(out, " |\n");
        }
    }
    if (header)
        culprit_buf_puts(out, "\n");
    /* What the counter detectors flagged (culprit check --detector), one bullet each. */
    for (size_t i = 0; i < r->nseries; i++) {
        const culprit_report_point *p = culprit_report_current(r, &r->series[i]);
        if (!p || !p->counters_flagged)
            continue;
        culprit_buf_puts(out, "- ");
        culprit_report__put_md_code(out, r->series[i].test, 0);
        culprit_buf_puts(out, " counters:");
        if (p->clusters) {
            culprit_buf_puts(out, " clusters: ");
            culprit_report__put_md(out, p->clusters);
        }
        if (p->rules) {
            culprit_buf_puts(out, p->clusters ? "; rules: " : " rules: ");
            culprit_report__put_md(out, p->rules);
        }
        culprit_buf_puts(out, "\n");
        header = 2;
    }
    if (header == 2)
        culprit_buf_puts(out, "\n");
}

/* A fanned-out bisection (steps carrying a round): each round's probes and verdicts,
 * as the HTML table's "round" column gives them, and this runner's last steps. */
static void rounds(culprit_buf *out, const culprit_bisect_result *b)
{
    size_t last = 0, own = 0;
    char sha[13];

    for (size_t i = 0; i < b->nsteps; i++) {
        last = b->steps[i].round > last ? b->steps[i].round : last;
        own += b->steps[i].round == 0;
    }
    if (!last)
        return;
    culprit_buf_printf(out,
                       "Fanned out in %zu round%s of probes, each on its own runner against the "
                       "good end, then %zu last step%s on this runner:\n",
                       last, last == 1 ? "" : "s", own, own == 1 ? "" : "s");
    for (size_t round = 1; round <= last; round++) {
        const char *sep = ": ";
        culprit_buf_printf(out, "- round %zu", round);
        for (size_t i = 0; i < b->nsteps; i++) {
            if (b->steps[i].round != round)
                continue;
            culprit_buf_printf(out, "%s`%s` %s", sep, culprit_report__short(sha, b->steps[i].sha),
                               culprit_bisect_verdict_name(b->steps[i].verdict));
            sep = ", ";
        }
        culprit_buf_puts(out, "\n");
    }
}

static void bisection(culprit_buf *out, const culprit_bisect_result *b)
{
    char sha[13], good[13], bad[13];

    culprit_report__short(good, b->good);
    culprit_report__short(bad, b->bad);
    culprit_buf_puts(out, "### Culprit\n\n");
    if (b->culprit[0]) {
        culprit_buf_printf(out, "`%s` ", culprit_report__short(sha, b->culprit));
        if (b->subject) {
            culprit_buf_puts(out, "**");
            culprit_report__put_md(out, b->subject);
            culprit_buf_puts(out, "**");
        }
        if (b->author) {
            culprit_buf_puts(out, " by ");
            culprit_report__put_md(out, b->author);
        }
        culprit_buf_puts(out, ": ");
        culprit_report__put_change_ci(out, b->change, b->change_low, b->change_high);
        if (b->confirmed == 0)
            culprit_buf_puts(out, " (NOT confirmed against its parent)");
        culprit_buf_puts(out, ".\n");
    } else {
        culprit_buf_printf(out, "Bisection outcome: %s.", culprit_bisect_outcome_name(b->outcome));
        for (size_t i = 0; i < b->nculprits; i++) {
            culprit_buf_printf(out, "%s`%s` ", i ? ", " : " Commits: ",
                               culprit_report__short(sha, b->culprits[i].sha));
            culprit_report__put_change(out, b->culprits[i].change);
        }
        culprit_buf_puts(out, "\n");
    }
    culprit_buf_printf(out,
                       "Found in %zu steps (%zu builds, %zu runs) among %zu commits between "
                       "`%s` and `%s`.\n",
                       b->nsteps, b->builds, b->runs, b->ncommits, good, bad);
    rounds(out, b);
    culprit_buf_puts(out, "\n");
}

static void calltree(culprit_buf *out, const culprit_calltree_view *c)
{
    int any = 0;

    culprit_buf_puts(out, "### Where\n\n");
    if (c->error) {
        culprit_buf_puts(out, "No call-tree analysis: ");
        culprit_report__put_md(out, c->error);
        culprit_buf_puts(out, "\n\n");
        return;
    }
    if (c->nsuspects) {
        culprit_buf_puts(out, "Suspect path: ");
        culprit_report__put_md_code(out, c->suspects[0], 0);
        culprit_buf_puts(out, "\n");
    } else {
        culprit_buf_puts(out, "No suspect path: no call was significantly slower.\n");
    }
    for (size_t i = 0; i < c->nnodes; i++) {
        const culprit_calltree_view_node *n = &c->nodes[i];
        if (!n->changed || !n->suspect)
            continue;
        culprit_buf_puts(out, any ? ", " : "Changed by the culprit and slower: ");
        culprit_report__put_md_code(out, n->function, 0);
        if (n->file) {
            culprit_buf_puts(out, " (");
            culprit_report__put_md(out, n->file);
            for (size_t k = 0; k < n->nchanged; k++) {
                culprit_buf_printf(out, "%s%u", k ? ", " : ":", n->changed_lines[k][0]);
                if (n->changed_lines[k][1] > n->changed_lines[k][0])
                    culprit_buf_printf(out, "-%u", n->changed_lines[k][1]);
            }
            culprit_buf_puts(out, ")");
        }
        culprit_buf_puts(out, " ");
        culprit_report__put_change(out, n->change);
        any = 1;
    }
    culprit_buf_puts(out, any ? "\n\n" : "\n");
}

static void overweight(culprit_buf *out, const culprit_report *r)
{
    if (!r->overweight || !r->overweight->nrows)
        return;
    culprit_buf_puts(out, "| symbol | overweight | responsibility |\n|---|---:|---:|\n");
    for (size_t i = 0; i < r->overweight->nrows && i < MD_OVERWEIGHT_ROWS; i++) {
        const culprit_calltree_overweight_entry *w = &r->overweight->rows[i];
        culprit_buf_puts(out, "| ");
        culprit_report__put_md_code(out, w->symbol, 1);
        culprit_buf_printf(out, " | %+.0f%% | %.0f%% |\n", w->overweight_pct,
                           w->responsibility_pct);
    }
    culprit_buf_puts(out, "\n");
}

int culprit_report__render_markdown(culprit_buf *out, const culprit_report *r)
{
    /* The appends below do not check each result: a failed one sets the last error
     * and leaves the buffer as it was, so one check at the end catches them all. */
    culprit_error_clear();
    headline(out, r);
    answer(out, r);
    counts(out, r);
    verdict_table(out, r);
    if (r->bisect)
        bisection(out, r->bisect);
    if (r->calltree)
        calltree(out, r->calltree);
    overweight(out, r);
    return culprit_error_last_code() < 0 ? culprit_error_last_code() : 0;
}
