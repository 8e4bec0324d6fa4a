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
    int error = 0;

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
    return error;
}

int culprit_report__put_md_code(culprit_buf *out, const char *s, int in_table)
{
    size_t run = 0, longest = 0, len = s ? strlen(s) : 0;
    int error = 0, pad;

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
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7f)
            error = culprit_buf_printf(out, "\\x%02x", c);
        else if (c == '|' && in_table)
            error = culprit_buf_puts(out, "\\|");
        else
            error = culprit_buf_put(out, &s[i], 1);
    }
    if (pad && error == 0)
        error = culprit_buf_puts(out, " ");
    for (size_t i = 0; i <= longest && error == 0; i++)
        error = culprit_buf_puts(out, "`");
    return error;
}

int culprit_report__put_md(culprit_buf *out, const char *s)
{
    int error = 0;

    for (; s && *s && error == 0; s++) {
        if (*s == '\n' || *s == '\r')
            error = culprit_buf_puts(out, " ");
        else if (strchr("\\`*_[]<>|#", *s))
            error = culprit_buf_printf(out, "\\%c", *s);
        else
            error = culprit_buf_put(out, s, 1);
    }
    return error;
}
