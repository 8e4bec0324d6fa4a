/*
 * The formatting every rendering of a report shares: changes as signed
 * percentages with their confidence interval (as `culprit check` prints them),
 * the verdict tags of the CLI, short shas, and escaping for HTML and Markdown, so
 * a function or commit subject with markup characters is shown, never interpreted.
 */
#include "report_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int culprit_report__put_change(culprit_buf *out, double change)
{
    if (!isfinite(change))
        return culprit_buf_puts(out, "-");
    return culprit_buf_printf(out, "%+.1f%%", 100 * change);
}

int culprit_report__put_change_ci(culprit_buf *out, double change, double low, double high)
{
    int error;

    if ((error = culprit_report__put_change(out, change)) < 0 || !isfinite(change))
        return error;
    if (!isfinite(low) || !isfinite(high))
        return 0;
    return culprit_buf_printf(out, " (CI %+.1f%% to %+.1f%%)", 100 * low, 100 * high);
}

const char *culprit_report_verdict_tag(culprit_verdict_kind kind)
{
    switch (kind) {
    case CULPRIT_VERDICT_MAJOR:
        return "MAJOR";
    case CULPRIT_VERDICT_MINOR:
        return "MINOR";
    case CULPRIT_VERDICT_IMPROVEMENT:
        return "FASTER";
    case CULPRIT_VERDICT_UNDECIDED:
        return "UNDECIDED";
    case CULPRIT_VERDICT_UNCHANGED:
        return "unchanged";
    case CULPRIT_VERDICT_NO_BASELINE:
        return "no baseline";
    case CULPRIT_VERDICT_MIXED:
        return "MIXED";
    case CULPRIT_VERDICT_NOT_RUN:
        return "not run";
    }
    return "?";
}

const char *culprit_report__short(char out[13], const char *sha)
{
    snprintf(out, 13, "%.12s", sha ? sha : "");
    return out;
}

int culprit_report__put_html(culprit_buf *out, const char *s)
{
    culprit_buf scratch = CULPRIT_BUF_INIT;
    int error = 0;

    /* Names come from data: control characters HTML cannot carry (C0 but tab and
     * line breaks) and bytes that are not UTF-8 are written "\xNN" first, as the
     * JUnit writer writes them (culprit_buf_put_utf8()), then HTML's own escapes. */
    if (s && !(s = culprit_text_utf8(s, &scratch, CULPRIT_TEXT_XML)))
        return CULPRIT_ERROR;
    for (; s && *s && error == 0; s++) {
        switch (*s) {
        case '&':
            error = culprit_buf_puts(out, "&amp;");
            break;
        case '<':
            error = culprit_buf_puts(out, "&lt;");
            break;
        case '>':
            error = culprit_buf_puts(out, "&gt;");
            break;
        case '"':
            error = culprit_buf_puts(out, "&quot;");
            break;
        case '\'':
            error = culprit_buf_puts(out, "&#39;");
            break;
        default:
            error = culprit_buf_put(out, s, 1);
        }
    }
    culprit_buf_dispose(&scratch);
    return error;
}

/* `s` escaped as for the terminal (culprit_buf_put_text(): control bytes and bytes
 * that are not UTF-8 as \xNN), the form in which Markdown then escapes its own
 * characters; with `spaces`, line breaks become spaces first. In `out`; NULL when
 * out of memory. */
static const char *terminal_form(culprit_buf *out, const char *s, int spaces)
{
    culprit_buf copy = CULPRIT_BUF_INIT;
    int error;

    culprit_buf_clear(out);
    if ((error = culprit_buf_puts(&copy, s ? s : "")) == 0) {
        for (size_t i = 0; spaces && i < copy.size; i++)
            if (copy.ptr[i] == '\n' || copy.ptr[i] == '\r')
                copy.ptr[i] = ' ';
        error = culprit_buf_put_text(out, culprit_buf_cstr(&copy));
    }
    culprit_buf_dispose(&copy);
    return error < 0 ? NULL : culprit_buf_cstr(out);
}

int culprit_report__put_md_code(culprit_buf *out, const char *text, int in_table)
{
    culprit_buf tmp = CULPRIT_BUF_INIT;
    const char *s = terminal_form(&tmp, text, 0);
    size_t run = 0, longest = 0, len = s ? strlen(s) : 0;
    int error = s ? 0 : CULPRIT_ERROR, pad;

    for (size_t i = 0; i < len; i++) {
        run = s[i] == '`' ? run + 1 : 0;
        longest = run > longest ? run : longest;
    }
    /* A fence longer than any run of backquotes inside; a space inside it when the
     * text starts or ends with one (CommonMark strips one space on each side). */
    pad = len && (s[0] == '`' || s[len - 1] == '`');
    for (size_t i = 0; i <= longest && error == 0; i++)
        error = culprit_buf_puts(out, "`");
    if (pad && error == 0)
        error = culprit_buf_puts(out, " ");
    for (size_t i = 0; i < len && error == 0; i++) {
        if (s[i] == '|' && in_table)
            error = culprit_buf_puts(out, "\\|");
        else
            error = culprit_buf_put(out, &s[i], 1);
    }
    if (pad && error == 0)
        error = culprit_buf_puts(out, " ");
    for (size_t i = 0; i <= longest && error == 0; i++)
        error = culprit_buf_puts(out, "`");
    culprit_buf_dispose(&tmp);
    return error;
}

int culprit_report__put_md(culprit_buf *out, const char *text)
{
    culprit_buf tmp = CULPRIT_BUF_INIT;
    const char *s = terminal_form(&tmp, text, 1);
    int error = s ? 0 : CULPRIT_ERROR;

    for (; s && *s && error == 0; s++) {
        if (strchr("\\`*_[]<>|#", *s))
            error = culprit_buf_printf(out, "\\%c", *s);
        else
            error = culprit_buf_put(out, s, 1);
    }
    culprit_buf_dispose(&tmp);
    return error;
}
