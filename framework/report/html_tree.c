/*
 * The culprit's call tree on the HTML page (Fig. 7 of Heger et al. 2013): nested
 * lists, each node a <details> that folds, open on the way to a suspect; suspect
 * nodes crossed, functions whose own lines the culprit changed marked with a dot,
 * with the changed lines under them; each node's time per call before and after,
 * coloured only when the analysis found it slower or faster.
 */
#include "html_parts.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* --------------------------------------------------------------- call tree --- */

typedef struct {
    size_t *first; /* children of node i: order[first[i] .. first[i + 1]) */
    size_t *order;
    unsigned char *open; /* on the way to a suspect node: rendered expanded */
} tree_index;

static int index_tree(tree_index *t, const culprit_calltree_view *c)
{
    size_t n = c->nnodes, *fill;

    t->first = calloc(n + 2, sizeof(size_t));
    t->order = calloc(n ? n : 1, sizeof(size_t));
    t->open = calloc(n ? n : 1, 1);
    fill = calloc(n + 2, sizeof(size_t));
    if (!t->first || !t->order || !t->open || !fill) {
        free(fill);
        return CULPRIT_ERROR_NOMEM();
    }
    /* Counting sort by parent (top nodes under the virtual index n). */
    for (size_t i = 0; i < n; i++)
        t->first[(c->nodes[i].parent == SIZE_MAX ? n : c->nodes[i].parent) + 1]++;
    for (size_t i = 0; i <= n; i++)
        t->first[i + 1] += t->first[i];
    for (size_t i = 0; i < n; i++) {
        size_t p = c->nodes[i].parent == SIZE_MAX ? n : c->nodes[i].parent;
        t->order[t->first[p] + fill[p]++] = i;
    }
    free(fill);
    for (size_t i = n; i-- > 0;)
        if (c->nodes[i].suspect || t->open[i]) {
            size_t p = c->nodes[i].parent;
            if (p != SIZE_MAX)
                t->open[p] = 1;
        }
    return 0;
}

/* Coloured only when the analysis found it slower (or faster): a +0.3% of noise in
 * red would draw the eye to the wrong place. */
static const char *change_class(const culprit_calltree_view_node *n)
{
    if (n->suspect)
        return "up";
    switch (n->status) {
    case CULPRIT_CALLTREE_VIEW_SLOWER:
        return "up";
    case CULPRIT_CALLTREE_VIEW_FASTER:
        return "down";
    default:
        return "muted";
    }
}

static void node_row(culprit_buf *out, const culprit_calltree_view_node *n)
{
    culprit_buf_puts(out, "<span class=\"fn\">");
    h(out, n->function);
    culprit_buf_puts(out, "</span>");
    if (n->changed)
        culprit_buf_puts(out, "<span class=\"dot\" title=\"its lines changed in the culprit "
                              "commit\"></span>");
    if (n->suspect)
        culprit_buf_puts(out, "<span class=\"cross\" title=\"suspected of the regression\">"
                              "&#x2716;</span>");
    if (n->file) {
        culprit_buf_puts(out, "<span class=\"loc\">");
        h(out, n->file);
        if (n->line_low)
            culprit_buf_printf(out, ":%u&ndash;%u", n->line_low, n->line_high);
        culprit_buf_puts(out, "</span>");
    }
    culprit_buf_puts(out, "<span class=\"times\">");
    duration(out, n->base_ns);
    culprit_buf_puts(out, " &rarr; ");
    duration(out, n->test_ns);
    culprit_buf_puts(out, "</span>");
    if (isfinite(n->change)) {
        culprit_buf_printf(out, "<span class=\"%s\">", change_class(n));
        culprit_report__put_change(out, n->change);
        culprit_buf_puts(out, "</span>");
    }
    if (isfinite(n->test_calls) || isfinite(n->base_calls)) {
        culprit_buf_puts(out, "<span class=\"calls\">");
        if (isfinite(n->base_calls) && isfinite(n->test_calls) && n->base_calls != n->test_calls)
            culprit_buf_printf(out, "calls %.0f &rarr; %.0f", n->base_calls, n->test_calls);
        else
            culprit_buf_printf(out, "&times;%.0f",
                               isfinite(n->test_calls) ? n->test_calls : n->base_calls);
        culprit_buf_puts(out, "</span>");
    }
    switch (n->status) {
    case CULPRIT_CALLTREE_VIEW_UNDECIDED:
    case CULPRIT_CALLTREE_VIEW_ADDED:
    case CULPRIT_CALLTREE_VIEW_REMOVED:
    case CULPRIT_CALLTREE_VIEW_SHAPE:
        /* What the change column cannot say: the status as a tag. */
        culprit_buf_puts(out, "<span class=\"tag\">");
        h(out, culprit_calltree_view_status_name(n->status));
        culprit_buf_puts(out, "</span>");
        break;
    case CULPRIT_CALLTREE_VIEW_UNKNOWN:
    case CULPRIT_CALLTREE_VIEW_UNCHANGED:
    case CULPRIT_CALLTREE_VIEW_SLOWER:
    case CULPRIT_CALLTREE_VIEW_FASTER:
        break;
    }
}

static void node_lines(culprit_buf *out, const culprit_calltree_view_node *n)
{
    const char *line;

    if (!n->nchanged && !n->diff)
        return;
    culprit_buf_puts(out, "<div class=\"lines\">");
    if (n->nchanged) {
        culprit_buf_puts(out, "changed lines ");
        for (size_t k = 0; k < n->nchanged; k++) {
            culprit_buf_printf(out, "%s%u", k ? ", " : "", n->changed_lines[k][0]);
            if (n->changed_lines[k][1] > n->changed_lines[k][0])
                culprit_buf_printf(out, "&ndash;%u", n->changed_lines[k][1]);
        }
    }
    if (n->diff) {
        culprit_buf_puts(out, "<pre class=\"diff\">");
        for (line = n->diff; *line;) {
            const char *end = strchr(line, '\n');
            size_t len = end ? (size_t)(end - line) : strlen(line);
            char *copy = strndup(line, len);
            const char *cls = *line == '+' ? "a" : *line == '-' ? "d" : NULL;
            if (!copy)
                break;
            if (cls)
                culprit_buf_printf(out, "<span class=\"%s\">", cls);
            h(out, copy);
            culprit_buf_puts(out, cls ? "</span>" : "\n");
            free(copy);
            line += len + (end ? 1 : 0);
        }
        culprit_buf_puts(out, "</pre>");
    }
    culprit_buf_puts(out, "</div>");
}

static void node(culprit_buf *out, const culprit_calltree_view *c, const tree_index *t, size_t i)
{
    const culprit_calltree_view_node *n = &c->nodes[i];
    size_t begin = t->first[i], end = t->first[i + 1];
    int has_children = end > begin, expandable = has_children || n->diff || n->nchanged;

    culprit_buf_printf(out, "<li class=\"node%s%s\">", n->suspect ? " suspect" : "",
                       n->changed ? " changed" : "");
    if (expandable) {
        culprit_buf_printf(out, "<details%s><summary class=\"row\">",
                           t->open[i] || n->suspect ? " open" : "");
        node_row(out, n);
        culprit_buf_puts(out, "</summary>");
        node_lines(out, n);
        if (has_children) {
            culprit_buf_puts(out, "<ul>\n");
            for (size_t k = begin; k < end; k++)
                node(out, c, t, t->order[k]);
            culprit_buf_puts(out, "</ul>");
        }
        culprit_buf_puts(out, "</details>");
    } else {
        culprit_buf_puts(out, "<div class=\"row\">");
        node_row(out, n);
        culprit_buf_puts(out, "</div>");
    }
    culprit_buf_puts(out, "</li>\n");
}

int culprit_report__html_calltree(culprit_buf *out, const culprit_calltree_view *c)
{
    tree_index t = {NULL, NULL, NULL};
    int error;

    culprit_buf_puts(out, "<section id=\"calltree\">\n<h2>Call tree of the culprit</h2>\n");
    culprit_buf_puts(out, "<p class=\"muted\">");
    if (c->base || c->test) {
        culprit_buf_puts(out, "<code>");
        h(out, c->base);
        culprit_buf_puts(out, "</code> &rarr; <code>");
        h(out, c->test);
        culprit_buf_puts(out, "</code>. ");
    }
    culprit_buf_puts(out, "Time per call before &rarr; after. Suspect nodes are highlighted "
                          "(<span class=\"cross\">&#x2716;</span>); "
                          "<span class=\"dot\"></span> marks a function whose own lines the "
                          "culprit commit changed. Click a node to fold it.</p>\n");
    if (c->error) {
        culprit_buf_puts(out, "<p><strong>No call-tree analysis:</strong> ");
        h(out, c->error);
        culprit_buf_puts(out, "</p>\n");
    }
    if (c->nsuspects) {
        culprit_buf_puts(out, "<ol class=\"suspects\">");
        for (size_t i = 0; i < c->nsuspects; i++) {
            culprit_buf_puts(out, "<li><code>");
            h(out, c->suspects[i]);
            culprit_buf_puts(out, "</code></li>");
        }
        culprit_buf_puts(out, "</ol>\n");
    }
    if ((error = index_tree(&t, c)) == 0) {
        culprit_buf_puts(out, "<ul class=\"tree\">\n");
        for (size_t k = t.first[c->nnodes]; k < t.first[c->nnodes + 1]; k++)
            node(out, c, &t, t.order[k]);
        culprit_buf_puts(out, "</ul>\n");
    }
    culprit_buf_puts(out, "</section>\n");
    free(t.first);
    free(t.order);
    free(t.open);
    return error;
}
