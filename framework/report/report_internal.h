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
 * points of the report's series. Points go in oldest first. Each verdict's message
 * and category move into its point (the caller disposes of the result next): not
 * copied, 30,000 of them in a window of 30 commits of 1,000 tests. */
int culprit_report__add_points(culprit_report *report, culprit_check_result *result, size_t k);

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
/* The minor regressions at the report's commit that fail no check (unconfirmed:
 * too little history yet, docs/detection.md), among culprit_report_count()'s. */
size_t culprit_report__count_unconfirmed(const culprit_report *report);
/* The first 12 characters of a sha ("" stays ""). */
const char *culprit_report__short(char out[13], const char *sha);

/* ------------------------------------------------------------ plot labels --- */
/* (html_labels.c) Text boxes in SVG user units, estimated from the font size and
 * the characters, generously; the renderer places its labels with them and the
 * tests check the page's SVG with the same function. */

/* A rectangle: top-left corner, width, height. */
typedef struct {
    double x, y, w, h;
} culprit_report__box;

/* SVG text-anchor. */
typedef enum {
    CULPRIT_REPORT__START,
    CULPRIT_REPORT__MIDDLE,
    CULPRIT_REPORT__END
} culprit_report__anchor;

/* The boxes placed so far. Zero-initialised; culprit_report__layout_dispose() frees. */
typedef struct {
    culprit_report__box *boxes;
    size_t n, alloc;
} culprit_report__layout;

/* The width of `text` (UTF-8) at `font_px`, at least what a browser lays out. */
double culprit_report__text_width(const char *text, double font_px, int bold);
/* The box of `text` drawn at (x, baseline) with `anchor`. */
void culprit_report__text_box(culprit_report__box *out, double x, double baseline,
                              culprit_report__anchor anchor, const char *text, double font_px,
                              int bold);
int culprit_report__box_overlaps(const culprit_report__box *a, const culprit_report__box *b);
/* 1 when `inner` lies wholly inside `outer`. */
int culprit_report__box_inside(const culprit_report__box *inner, const culprit_report__box *outer);
/* 1 when `b` lies inside `area` and overlaps no box of `l`. */
int culprit_report__layout_fits(const culprit_report__layout *l, const culprit_report__box *b,
                                const culprit_report__box *area);
/* Adds `b` to `l`: 0 or CULPRIT_ERROR (out of memory). */
int culprit_report__layout_add(culprit_report__layout *l, const culprit_report__box *b);
void culprit_report__layout_dispose(culprit_report__layout *l);

#endif
