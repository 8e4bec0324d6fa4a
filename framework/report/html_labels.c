/*
 * Where the plots' texts go (html_plot.c): a page a reader takes in at a glance has
 * no label over another and none cut off at the edge. The page carries no script
 * and cannot ask the browser how wide a text came out, so the width is estimated
 * from the font size and the characters (culprit_report__text_box(), also what
 * tests/report checks the SVG with), generously: system-ui and DejaVu Sans are the
 * widest of the usual faces, and the estimate is above what Chromium lays out
 * (tests/report/report_labels.sh measures the real boxes).
 *
 * Placement is deterministic and greedy: the fixed texts (axis labels, category
 * limits, the culprit's name) are placed first, then each regression's mark tries
 * its candidate positions in order and takes the first whose box lies inside its
 * area and overlaps no box placed before; a mark with no free position is left out
 * of the plot and listed under it (its point keeps its tooltip).
 */
#include "report_internal.h"

#include <stdlib.h>
#include <string.h>

/* A character's advance as a share of the font size, regular and bold: DejaVu
 * Sans's (the widest of the usual system-ui faces; Chromium on Debian falls back
 * to it), rounded up per class of characters. */
static double char_em(unsigned char c, int bold)
{
    static const char *const classes[] = {"0123456789",
                                          " .,:;",
                                          "iljI|'!()[]",
                                          "mM",
                                          "wW",
                                          "%",
                                          "+<>=~",
                                          "ABCDEFGHJKLNOPQRSTUVXYZ",
                                          "abcdefghknopqrstuvxyz"};
    static const double em[][2] = {{0.64, 0.70}, {0.32, 0.35}, {0.40, 0.46},
                                   {0.99, 1.05}, {0.99, 1.10}, {0.95, 1.01},
                                   {0.84, 0.84}, {0.79, 0.86}, {0.64, 0.72}};

    for (size_t k = 0; k < sizeof(classes) / sizeof(classes[0]); k++)
        if (strchr(classes[k], c))
            return em[k][bold ? 1 : 0];
    return bold ? 0.8 : 0.75;
}

double culprit_report__text_width(const char *text, double font_px, int bold)
{
    double em = 0;

    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if ((*p & 0xC0) == 0x80)
            continue; /* a UTF-8 continuation byte: one character, counted at its lead */
        em += *p >= 0x80 ? 0.9 : char_em(*p, bold);
    }
    return em * font_px;
}

void culprit_report__text_box(culprit_report__box *out, double x, double baseline,
                              culprit_report__anchor anchor, const char *text, double font_px,
                              int bold)
{
    double w = culprit_report__text_width(text, font_px, bold);

    out->w = w;
    out->x = anchor == CULPRIT_REPORT__START    ? x
             : anchor == CULPRIT_REPORT__MIDDLE ? x - w / 2
                                                : x - w;
    /* Ascent of capitals and figures ~0.73 em, descent ~0.24 em, rounded up. */
    out->y = baseline - 0.8 * font_px;
    out->h = 1.08 * font_px;
}

int culprit_report__box_overlaps(const culprit_report__box *a, const culprit_report__box *b)
{
    return a->x < b->x + b->w && b->x < a->x + a->w && a->y < b->y + b->h && b->y < a->y + a->h;
}

int culprit_report__box_inside(const culprit_report__box *inner, const culprit_report__box *outer)
{
    return inner->x >= outer->x && inner->y >= outer->y &&
           inner->x + inner->w <= outer->x + outer->w && inner->y + inner->h <= outer->y + outer->h;
}

int culprit_report__layout_fits(const culprit_report__layout *l, const culprit_report__box *b,
                                const culprit_report__box *area)
{
    if (!culprit_report__box_inside(b, area))
        return 0;
    for (size_t i = 0; i < l->n; i++)
        if (culprit_report__box_overlaps(b, &l->boxes[i]))
            return 0;
    return 1;
}

int culprit_report__layout_add(culprit_report__layout *l, const culprit_report__box *b)
{
    int error;

    if ((error = culprit_array_grow(&l->boxes, &l->alloc, l->n, sizeof(*l->boxes), 32)) < 0)
        return error;
    l->boxes[l->n++] = *b;
    return 0;
}

void culprit_report__layout_dispose(culprit_report__layout *l)
{
    free(l->boxes);
    memset(l, 0, sizeof(*l));
}
