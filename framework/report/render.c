/*
 * The rendering dispatch: culprit_report_render() picks the renderer of a format,
 * and the format names parse here. It is its own file so that the model (model.c)
 * calls no renderer: the renderers read the model, never the other way round.
 */
#include "render.h"

#include <string.h>

int culprit_report_format_parse(culprit_report_format *out, const char *name)
{
    if (strcmp(name, "html") == 0)
        *out = CULPRIT_REPORT_HTML;
    else if (strcmp(name, "markdown") == 0 || strcmp(name, "md") == 0)
        *out = CULPRIT_REPORT_MARKDOWN;
    else if (strcmp(name, "json") == 0)
        *out = CULPRIT_REPORT_JSON;
    else if (strcmp(name, "text") == 0)
        *out = CULPRIT_REPORT_TEXT;
    else
        return culprit_error_set(
            CULPRIT_EINVALID, "--format: '%s' is not a report format (html, markdown, json, text)",
            name);
    return 0;
}

int culprit_report_render(culprit_buf *out, const culprit_report *report,
                          culprit_report_format format)
{
    switch (format) {
    case CULPRIT_REPORT_HTML:
        return culprit_report__render_html(out, report);
    case CULPRIT_REPORT_MARKDOWN:
        return culprit_report__render_markdown(out, report);
    case CULPRIT_REPORT_JSON:
        return culprit_report__render_json(out, report);
    case CULPRIT_REPORT_TEXT:
        return culprit_report__render_text(out, report);
    }
    return culprit_error_set(CULPRIT_EINVALID, "unknown report format %d", (int)format);
}
