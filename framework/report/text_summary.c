/*
 * The report as a summary block for the terminal (`culprit report --format text`,
 * and what `culprit report` prints after writing the page): the counts, one line
 * per major or minor regression (the verdict's own message, as `culprit check`
 * prints it), the culprit commit with its change and the bisection's cost, and the
 * suspect path. Plain text: colour is the CLI's business, not the library's.
 */
#include "render.h"

#include <math.h>
#include <string.h>

static void counts(culprit_buf *out, const culprit_report *r)
{
    static const culprit_verdict_kind kinds[] = {
        CULPRIT_VERDICT_MAJOR,     CULPRIT_VERDICT_MINOR,     CULPRIT_VERDICT_IMPROVEMENT,
        CULPRIT_VERDICT_UNDECIDED, CULPRIT_VERDICT_UNCHANGED, CULPRIT_VERDICT_NO_BASELINE,
        CULPRIT_VERDICT_MIXED,     CULPRIT_VERDICT_NOT_RUN};
    size_t measured = 0;
    int first = 1;

    for (size_t i = 0; i < r->nseries; i++)
        measured += culprit_report_current(r, &r->series[i]) != NULL;
    culprit_buf_printf(out, "%zu test%s measured", measured, measured == 1 ? "" : "s");
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        size_t n = culprit_report_count(r, kinds[k]);
        if (!n)
            continue;
        culprit_buf_printf(out, "%s%zu %s", first ? ": " : ", ", n,
                           kinds[k] == CULPRIT_VERDICT_IMPROVEMENT   ? "faster"
                           : kinds[k] == CULPRIT_VERDICT_NO_BASELINE ? "no baseline"
                           : kinds[k] == CULPRIT_VERDICT_NOT_RUN
                               ? "not run"
                               : culprit_detect_verdict_name(kinds[k]));
        first = 0;
    }
}

int culprit_report__render_text(culprit_buf *out, const culprit_report *r)
{
    const culprit_bisect_result *b = r->bisect;
    const culprit_calltree_view *c = r->calltree;
    char sha[13];

    /* One check at the end: a failed append sets the last error. */
    culprit_error_clear();
    culprit_buf_printf(out, "culprit report at %s: ", culprit_report__short(sha, r->commit));
    counts(out, r);
    culprit_buf_puts(out, "\n");
    /* Names, messages and subjects are data (history, git, call trees from other
     * machines): written through culprit_buf_put_text(), control characters escaped. */
    for (size_t i = 0; i < r->nseries; i++) {
        const culprit_report_point *p = culprit_report_current(r, &r->series[i]);
        if (p && (p->verdict == CULPRIT_VERDICT_MAJOR || p->verdict == CULPRIT_VERDICT_MINOR)) {
            culprit_buf_printf(out, "  %-10s ", culprit_report_verdict_tag(p->verdict));
            culprit_buf_put_text(out, p->message ? p->message : r->series[i].test);
            culprit_buf_puts(out, "\n");
        }
        if (p && p->counters_flagged) {
            culprit_buf_printf(out, "  %-10s ", "COUNTERS");
            culprit_buf_put_text(out, r->series[i].test);
            culprit_buf_printf(out, ": %s", p->clusters ? "clusters: " : "");
            culprit_buf_put_text(out, p->clusters ? p->clusters : "");
            culprit_buf_puts(out, p->clusters && p->rules ? "; rules: "
                                  : p->rules              ? "rules: "
                                                          : "");
            culprit_buf_put_text(out, p->rules ? p->rules : "");
            culprit_buf_puts(out, "\n");
        }
    }
    if (b && b->culprit[0]) {
        culprit_buf_printf(out, "  %-10s %s ", "culprit", culprit_report__short(sha, b->culprit));
        culprit_buf_put_text(out, b->subject ? b->subject : "");
        culprit_buf_printf(out, "\n  %-10s ", "");
        culprit_report__put_change_ci(out, b->change, b->change_low, b->change_high);
        culprit_buf_printf(out, "; %zu steps, %zu builds, %zu runs among %zu commits\n", b->nsteps,
                           b->builds, b->runs, b->ncommits);
    } else if (b) {
        culprit_buf_printf(out, "  %-10s %s\n", "bisection",
                           culprit_bisect_outcome_name(b->outcome));
    }
    if (c && c->error) {
        culprit_buf_printf(out, "  %-10s no call-tree analysis: ", "where");
        culprit_buf_put_text(out, c->error);
        culprit_buf_puts(out, "\n");
    }
    if (c && c->nsuspects) {
        culprit_buf_printf(out, "  %-10s ", "where");
        culprit_buf_put_text(out, c->suspects[0]);
        culprit_buf_puts(out, "\n");
    }
    /* The call trees' one answer (culprit_calltree_diff_answer()), as the document gives it. */
    if (c && c->answer.given && c->answer.kind != CULPRIT_CALLTREE_ANSWER_NONE && c->answer.text) {
        culprit_buf_printf(out, "  %-10s ", "answer");
        culprit_buf_put_text(out, c->answer.text);
        culprit_buf_puts(out, "\n");
    }
    return culprit_error_last_code() < 0 ? culprit_error_last_code() : 0;
}
