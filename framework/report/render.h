/*
 * The renderers behind culprit_report_render(): one per format, each reading the
 * model (report.h) and appending to a buffer. Only render.c, the dispatch, calls
 * them; the model never does, so the model is a leaf the renderers use and the
 * files of the module include one another in one direction only.
 */
#ifndef CULPRIT_REPORT_RENDER_H
#define CULPRIT_REPORT_RENDER_H

#include "report_internal.h"

int culprit_report__render_html(culprit_buf *out, const culprit_report *report);
int culprit_report__render_markdown(culprit_buf *out, const culprit_report *report);
int culprit_report__render_json(culprit_buf *out, const culprit_report *report);
int culprit_report__render_text(culprit_buf *out, const culprit_report *report);

#endif
