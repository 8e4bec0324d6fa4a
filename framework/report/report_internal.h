/*
 * What the files of the report module share: the destructor of a loaded
 * bisection, and the small formatting helpers every rendering uses (durations,
 * changes, escaping). The renderers themselves are declared in render.h, which
 * only render.c and the renderers include: the model (model.c) never calls them.
 */
#ifndef CULPRIT_REPORT_INTERNAL_H
#define CULPRIT_REPORT_INTERNAL_H

#include "culprit/report.h"

/* Disposes of a bisection the report holds and frees it (model.c). NULL: no-op. */
void culprit_report__bisect_free(culprit_bisect_result *bisect);

/* "+12.3%", or "-" when not finite. */
int culprit_report__put_change(culprit_buf *out, double change);
/* "+12.3% (99% CI +10.1% to +14.5%)", or "-". */
int culprit_report__put_change_ci(culprit_buf *out, double change, double low, double high);

/* Appends `s` with &, <, >, " and ' escaped for HTML text and attributes. */
int culprit_report__put_html(culprit_buf *out, const char *s);
/* Appends `s` with the characters Markdown gives a meaning to in a table cell escaped;
 * line breaks become spaces, other control bytes and bytes that are not UTF-8 \xNN
 * (as on the terminal, culprit_buf_put_text()). */
int culprit_report__put_md(culprit_buf *out, const char *s);
/*
 * Appends `s` (a name from data: history files and call trees come from other
 * machines and pull requests) as a Markdown code span that it cannot leave: the
 * fence is longer than any run of backquotes in it, control characters (a line
 * break would end a table row) and bytes that are not UTF-8 are written as \xNN
 * (as on the terminal, culprit_buf_put_text()), and with `in_table` a '|' is
 * "\|" (GFM splits cells on '|' even inside code spans, and shows "\|" as '|').
 */
int culprit_report__put_md_code(culprit_buf *out, const char *s, int in_table);
/* The first 12 characters of a sha ("" stays ""). */
const char *culprit_report__short(char out[13], const char *sha);

#endif
