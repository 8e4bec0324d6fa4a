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

/* The history window of culprit_report_add_history(): its commits copied (newest
 * first in `commits`), refused when the report has one or the chain is shorter. */
int culprit_report__set_window(culprit_report *report, const culprit_report_commit *commits,
                               size_t ncommits, size_t nchain);
/* The verdicts of `result`, the check of the window's commit k (0: the newest), as
 * points of the report's series. Points go in oldest first. */
int culprit_report__add_points(culprit_report *report, const culprit_check_result *result,
                               size_t k);

/* "+12.3%", or "-" when not finite. */
int culprit_report__put_change(culprit_buf *out, double change);
/* "+12.3% (99% CI +10.1% to +14.5%)", or "-". */
int culprit_report__put_change_ci(culprit_buf *out, double change, double low, double high);

/* Appends `s` with &, <, >, " and ' escaped for HTML text and attributes. */
int culprit_report__put_html(culprit_buf *out, const char *s);
/* Appends `s` with the characters Markdown gives a meaning to in a table cell escaped. */
int culprit_report__put_md(culprit_buf *out, const char *s);
/*
 * Appends `s` (a name from data: history files and call trees come from other
 * machines and pull requests) as a Markdown code span that it cannot leave: the
 * fence is longer than any run of backquotes in it, control characters (a line
 * break would end a table row) are written as \xNN, and with `in_table` a '|' is
 * "\|" (GFM splits cells on '|' even inside code spans, and shows "\|" as '|').
 */
int culprit_report__put_md_code(culprit_buf *out, const char *s, int in_table);
/* The first 12 characters of a sha ("" stays ""). */
const char *culprit_report__short(char out[13], const char *sha);

#endif
