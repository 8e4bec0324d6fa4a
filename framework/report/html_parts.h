/*
 * What the files of the HTML page share (html.c the page, html_plot.c the plots,
 * html_tree.c the call tree): the escaping and formatting shorthands every part
 * writes with, and the parts html.c puts together.
 */
#ifndef CULPRIT_REPORT_HTML_PARTS_H
#define CULPRIT_REPORT_HTML_PARTS_H

#include "render.h"

/* Writes text escaped for HTML; NULL writes nothing. */
static inline void h(culprit_buf *out, const char *s)
{
    culprit_report__put_html(out, s ? s : "");
}

static inline void duration(culprit_buf *out, double ns)
{
    culprit_buf_put_duration(out, ns);
}

/* The CSS class of a verdict: its name (v-major, tag major, ...). */
static inline const char *kind_class(culprit_verdict_kind kind)
{
    return culprit_detect_verdict_name(kind);
}

/* The legend under the tests' heading: what the marks of every plot mean. */
void culprit_report__html_legend(culprit_buf *out);

/* The plot of test `s` as one inline SVG (html_plot.c). */
void culprit_report__html_plot(culprit_buf *out, const culprit_report *r,
                               const culprit_report_series *s);

/* The call-tree section (html_tree.c). Returns 0 or CULPRIT_ERROR (out of memory). */
int culprit_report__html_calltree(culprit_buf *out, const culprit_calltree_view *c);

#endif
