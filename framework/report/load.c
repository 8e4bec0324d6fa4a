/*
 * Reads the JSON documents the other commands print with --json into the report
 * model: `culprit bisect` (docs/cli.md), `culprit calltree diff` and `culprit
 * overweight` (docs/calltree.md). Each document must carry its "command"; a
 * missing optional field is left unknown (NAN, NULL) rather than failing, so a
 * document from a newer culprit with extra fields still renders. Where the
 * call-tree documents may name a field two ways (a tree as a flat node list with
 * parent indices or nested "children"; "function" or "name"), both are read:
 * docs/report.md lists what is read.
 */
#include "report_internal.h"

#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- helpers --- */

static int load_document(json_t **out, const char *path, const char *command, const char *what)
{
    culprit_buf text = CULPRIT_BUF_INIT;
    json_error_t jerr;
    json_t *doc = NULL, *cmd;
    int error;

    *out = NULL;
    if ((error = culprit_fs_read_file(&text, path)) < 0) {
        if (error == CULPRIT_ENOTFOUND)
            error = culprit_error_set(CULPRIT_ENOTFOUND, "%s: no such file '%s'", what, path);
        goto cleanup;
    }
    if (!(doc = json_loadb(text.ptr ? text.ptr : "", text.size, 0, &jerr))) {
        error = culprit_error_set(CULPRIT_EINVALID, "%s: '%s' is not JSON: line %d: %s", what, path,
                                  jerr.line, jerr.text);
        goto cleanup;
    }
    cmd = json_object_get(doc, "command");
    if (!json_is_object(doc) || !json_is_string(cmd) ||
        strcmp(json_string_value(cmd), command) != 0) {
        error = culprit_error_set(CULPRIT_EINVALID,
                                  "%s: '%s' is not the document of `culprit %s --json` "
                                  "(its \"command\" is %s%s%s)",
                                  what, path, command, json_is_string(cmd) ? "'" : "",
                                  json_is_string(cmd) ? json_string_value(cmd) : "missing",
                                  json_is_string(cmd) ? "'" : "");
        goto cleanup;
    }
    *out = doc;
    doc = NULL;
cleanup:
    json_decref(doc);
    culprit_buf_dispose(&text);
    return error;
}

/* The first of `keys` (NULL-terminated) that is a number, else NAN. */
static double number_of(const json_t *o, const char *const *keys)
{
    for (; *keys; keys++) {
        json_t *v = json_object_get(o, *keys);
        if (json_is_number(v))
            return json_number_value(v);
    }
    return NAN;
}

static double number(const json_t *o, const char *key)
{
    const char *keys[] = {key, NULL};
    return number_of(o, keys);
}

static size_t count(const json_t *o, const char *key)
{
    double x = number(o, key);
    return isfinite(x) && x > 0 ? (size_t)x : 0;
}

/* A copy of the first of `keys` that is a string; *out NULL when none. */
static int string_of(char **out, const json_t *o, const char *const *keys)
{
    *out = NULL;
    for (; *keys; keys++) {
        json_t *v = json_object_get(o, *keys);
        if (json_is_string(v))
            return (*out = culprit_strdup(json_string_value(v))) ? 0 : CULPRIT_ERROR;
    }
    return 0;
}

static int string(char **out, const json_t *o, const char *key)
{
    const char *keys[] = {key, NULL};
    return string_of(out, o, keys);
}

static void sha(char out[41], const json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);

    out[0] = '\0';
    if (json_is_string(v)) {
        strncpy(out, json_string_value(v), 40);
        out[40] = '\0';
    }
}

static int read_calltree(culprit_report_calltree **out, const json_t *doc, const char *path);

/* --------------------------------------------------------------- bisection --- */

static void step_dispose(culprit_report_step *s)
{
    free(s->subject);
    free(s->verdict);
    free(s->skip_reason);
}

void culprit_report__bisect_free(culprit_report_bisect *b)
{
    if (!b)
        return;
    free(b->outcome);
    free(b->test);
    free(b->subject);
    free(b->author);
    free(b->date);
    for (size_t i = 0; i < b->nsteps; i++)
        step_dispose(&b->steps[i]);
    free(b->steps);
    for (size_t i = 0; i < b->nculprits; i++)
        step_dispose(&b->culprits[i]);
    free(b->culprits);
    free(b);
}

static int read_steps(culprit_report_step **out, size_t *n, const json_t *array)
{
    size_t len = json_is_array(array) ? json_array_size(array) : 0;
    int error;

    *n = 0;
    if (!(*out = calloc(len ? len : 1, sizeof(**out))))
        return culprit_error_set(CULPRIT_ERROR, "out of memory");
    for (size_t i = 0; i < len; i++) {
        const json_t *j = json_array_get(array, i);
        culprit_report_step *s = &(*out)[i];
        (*n)++;
        sha(s->commit, j, "commit");
        if ((error = string(&s->subject, j, "subject")) < 0 ||
            (error = string(&s->verdict, j, "verdict")) < 0 ||
            (error = string(&s->skip_reason, j, "skip_reason")) < 0)
            return error;
        s->good_mean_ns = number(j, "good_mean_ns");
        s->mean_ns = number(j, "mean_ns");
        s->change = number(j, "change");
        s->change_low = number(j, "change_low");
        s->change_high = number(j, "change_high");
        s->runs = count(j, "runs");
    }
    return 0;
}

int culprit_report_load_bisect(culprit_report *report, const char *path)
{
    culprit_report_bisect *b = NULL;
    json_t *doc = NULL, *confirmed;
    int error;

    if ((error = load_document(&doc, path, "bisect", "--bisect")) < 0)
        return error;
    if (!(b = calloc(1, sizeof(*b)))) {
        error = culprit_error_set(CULPRIT_ERROR, "out of memory");
        goto cleanup;
    }
    if ((error = string(&b->outcome, doc, "outcome")) < 0)
        goto cleanup;
    if (!b->outcome) {
        error = culprit_error_set(CULPRIT_EINVALID, "--bisect: '%s' has no \"outcome\"", path);
        goto cleanup;
    }
    sha(b->good, doc, "good");
    sha(b->bad, doc, "bad");
    sha(b->culprit, doc, "culprit");
    if ((error = string(&b->test, doc, "test")) < 0 ||
        (error = string(&b->subject, doc, "subject")) < 0 ||
        (error = string(&b->author, doc, "author")) < 0 ||
        (error = string(&b->date, doc, "date")) < 0 ||
        (error = read_steps(&b->steps, &b->nsteps, json_object_get(doc, "steps"))) < 0 ||
        (error = read_steps(&b->culprits, &b->nculprits, json_object_get(doc, "culprits"))) < 0)
        goto cleanup;
    b->change = number(doc, "change");
    b->change_low = number(doc, "change_low");
    b->change_high = number(doc, "change_high");
    b->commits = count(doc, "commits");
    b->builds = count(doc, "builds");
    b->runs = count(doc, "runs");
    confirmed = json_object_get(doc, "confirmed");
    b->confirmed = json_is_boolean(confirmed) ? json_is_true(confirmed) : -1;
    /* bisect --calltree embeds the analysis of the culprit; a document named with
     * --calltree, or found in the results directory, takes its place. */
    if (json_is_object(json_object_get(doc, "calltree")) && !report->calltree) {
        if ((error = read_calltree(&report->calltree, json_object_get(doc, "calltree"), path)) < 0)
            goto cleanup;
        if (!report->calltree->commit && b->culprit[0] &&
            !(report->calltree->commit = culprit_strdup(b->culprit))) {
            error = CULPRIT_ERROR;
            goto cleanup;
        }
    }
    culprit_report__bisect_free(report->bisect);
    report->bisect = b;
    b = NULL;
cleanup:
    culprit_report__bisect_free(b);
    json_decref(doc);
    return error;
}

/* --------------------------------------------------------------- call tree --- */

void culprit_report__calltree_free(culprit_report_calltree *c)
{
    if (!c)
        return;
    free(c->base);
    free(c->test);
    free(c->commit);
    free(c->error);
    for (size_t i = 0; i < c->nnodes; i++) {
        culprit_report_node *n = &c->nodes[i];
        free(n->function);
        free(n->file);
        free(n->status);
        free(n->changed_lines);
        free(n->diff);
    }
    free(c->nodes);
    for (size_t i = 0; i < c->nsuspects; i++)
        free(c->suspects[i]);
    free(c->suspects);
    free(c);
}

typedef struct {
    culprit_report_calltree *tree;
    size_t cap;
    const char *path;
} tree_reader;

static int new_node(culprit_report_node **out, tree_reader *t)
{
    culprit_report_calltree *c = t->tree;
    int error;

    *out = NULL;
    if ((error = culprit_array_grow(&c->nodes, &t->cap, c->nnodes, sizeof(*c->nodes), 64)) < 0)
        return error;
    *out = &c->nodes[c->nnodes++];
    memset(*out, 0, sizeof(**out));
    return 0;
}

static int read_ranges(culprit_report_node *n, const json_t *ranges)
{
    size_t len = json_is_array(ranges) ? json_array_size(ranges) : 0;

    if (!len)
        return 0;
    if (!(n->changed_lines = calloc(len, sizeof(*n->changed_lines))))
        return culprit_error_set(CULPRIT_ERROR, "out of memory");
    for (size_t i = 0; i < len; i++) {
        const json_t *r = json_array_get(ranges, i);
        double lo = NAN, hi = NAN;
        if (json_is_array(r) && json_array_size(r) == 2) {
            lo = json_number_value(json_array_get(r, 0));
            hi = json_number_value(json_array_get(r, 1));
        } else if (json_is_number(r)) {
            lo = hi = json_number_value(r);
        } else if (json_is_object(r) && isfinite(number(r, "start"))) {
            /* A diff hunk's new side, "+start,lines": a pure deletion (lines 0)
             * is shown at the line it follows. */
            lo = number(r, "start");
            hi = lo + fmax(number(r, "lines"), 1) - 1;
        } else if (json_is_object(r)) {
            lo = number(r, "low");
            hi = number(r, "high");
        }
        if (!(lo >= 0 && hi >= lo && hi < 1e9))
            continue; /* not a line range: left out, the dot still says "changed" */
        n->changed_lines[n->nchanged][0] = (unsigned int)lo;
        n->changed_lines[n->nchanged][1] = (unsigned int)hi;
        n->nchanged++;
    }
    return 0;
}

static int read_node(tree_reader *t, const json_t *j, size_t parent, size_t depth, size_t base)
{
    static const char *const name_keys[] = {"function", "name", "symbol", NULL};
    static const char *const base_keys[] = {"base_ns", "base_mean_ns", "base_inclusive_ns", NULL};
    static const char *const test_keys[] = {"test_ns", "test_mean_ns", "test_inclusive_ns", NULL};
    static const char *const lines_keys[] = {"changed_lines", "lines", NULL};
    static const char *const status_keys[] = {"status", "verdict", NULL};
    culprit_report_node *n = NULL;
    const json_t *children, *flag, *lines = NULL;
    size_t index;
    double p;
    int error;

    if (!json_is_object(j))
        return culprit_error_set(CULPRIT_EINVALID, "--calltree: '%s': a node is not an object",
                                 t->path);
    if ((error = new_node(&n, t)) < 0)
        return error;
    index = t->tree->nnodes - 1;
    if ((error = string_of(&n->function, j, name_keys)) < 0 ||
        (error = string(&n->file, j, "file")) < 0 ||
        (error = string_of(&n->status, j, status_keys)) < 0 ||
        (error = string(&n->diff, j, "diff")) < 0)
        return error;
    if (!n->function)
        return culprit_error_set(CULPRIT_EINVALID, "--calltree: '%s': node %zu has no function",
                                 t->path, index - base);
    p = number(j, "parent");
    /* A flat list names its parent by index in the list; nested nodes by position. */
    n->parent = parent != SIZE_MAX ? parent : isfinite(p) && p >= 0 ? base + (size_t)p : SIZE_MAX;
    if (n->parent != SIZE_MAX && n->parent >= index)
        return culprit_error_set(CULPRIT_EINVALID,
                                 "--calltree: '%s': node %zu names parent %.0f, which does not "
                                 "come before it",
                                 t->path, index - base, p);
    n->depth = n->parent == SIZE_MAX ? depth : t->tree->nodes[n->parent].depth + 1;
    n->line_low = (unsigned int)fmax(0, fmin(number(j, "line_low"), 1e9));
    n->line_high = (unsigned int)fmax(0, fmin(number(j, "line_high"), 1e9));
    n->base_ns = number_of(j, base_keys);
    n->test_ns = number_of(j, test_keys);
    n->base_calls = number(j, "base_calls");
    n->test_calls = number(j, "test_calls");
    n->change = number(j, "change");
    if (!isfinite(n->change) && n->base_ns > 0 && isfinite(n->test_ns))
        n->change = n->test_ns / n->base_ns - 1;
    flag = json_object_get(j, "suspect");
    n->suspect = json_is_true(flag);
    flag = json_object_get(j, "changed");
    /* A boolean, or how the function relates to the commit: "lines", "file", "no". */
    n->changed =
        json_is_true(flag) || (json_is_string(flag) && strcmp(json_string_value(flag), "no") != 0);
    for (size_t k = 0; lines_keys[k] && !lines; k++)
        lines = json_object_get(j, lines_keys[k]);
    if ((error = read_ranges(&t->tree->nodes[index], lines)) < 0)
        return error;
    if (t->tree->nodes[index].nchanged)
        t->tree->nodes[index].changed = 1;
    children = json_object_get(j, "children");
    for (size_t i = 0; json_is_array(children) && i < json_array_size(children); i++) {
        const json_t *c = json_array_get(children, i);
        if (json_is_object(c) && (error = read_node(t, c, index, 0, base)) < 0)
            return error;
    }
    return 0;
}

/* A suspect path: a string, an array of names, or an object with "path". */
static int suspect_text(char **out, const json_t *s)
{
    culprit_buf text = CULPRIT_BUF_INIT;
    const json_t *path = json_is_object(s) ? json_object_get(s, "path") : s;

    *out = NULL;
    if (json_is_object(s) && json_is_string(json_object_get(s, "path_text")))
        path = json_object_get(s, "path_text");
    if (json_is_string(path))
        return (*out = culprit_strdup(json_string_value(path))) ? 0 : CULPRIT_ERROR;
    for (size_t i = 0; json_is_array(path) && i < json_array_size(path); i++) {
        const json_t *e = json_array_get(path, i);
        const char *name = json_is_string(e)   ? json_string_value(e)
                           : json_is_object(e) ? json_string_value(json_object_get(e, "function"))
                                               : NULL;
        if (!name)
            continue;
        if ((i && culprit_buf_puts(&text, " \xe2\x86\x92 ") < 0) || /* U+2192 */
            culprit_buf_puts(&text, name) < 0) {
            culprit_buf_dispose(&text);
            return CULPRIT_ERROR;
        }
    }
    *out = text.size ? culprit_buf_detach(&text) : NULL;
    culprit_buf_dispose(&text);
    return 0;
}

/* The node for path element `j` under `parent`: an existing one with the same
 * function and file, or a new one read from `j`. */
static int path_node(size_t *out, tree_reader *t, const json_t *j, size_t parent)
{
    const char *name = json_string_value(json_object_get(j, "function"));
    const char *file = json_string_value(json_object_get(j, "file"));
    int error;

    for (size_t i = 0; i < t->tree->nnodes; i++) {
        const culprit_report_node *n = &t->tree->nodes[i];
        if (n->parent == parent && name && strcmp(n->function, name) == 0 && (!file == !n->file) &&
            (!file || strcmp(n->file, file) == 0)) {
            *out = i;
            return 0;
        }
    }
    if ((error = read_node(t, j, parent, 1, 0)) < 0)
        return error;
    *out = t->tree->nnodes - 1;
    return 0;
}

/*
 * A document that lists only its suspects, each with the path of nodes from the
 * top of the tree down to it: the tree shown is the union of those paths (the part
 * of the call tree a reader has to look at). The path's last node is the suspect;
 * the slower nodes on the way are highlighted too (Fig. 6 crosses the whole path).
 */
static int read_suspect_paths(tree_reader *t, const json_t *suspects)
{
    int error;

    for (size_t i = 0; i < json_array_size(suspects); i++) {
        const json_t *path = json_object_get(json_array_get(suspects, i), "path");
        size_t parent = SIZE_MAX, node = SIZE_MAX, len = json_array_size(path);
        for (size_t k = 0; k < len; k++) {
            const json_t *j = json_array_get(path, k);
            const char *v;
            if (!json_is_object(j))
                break;
            if ((error = path_node(&node, t, j, parent)) < 0)
                return error;
            v = t->tree->nodes[node].status;
            if (k + 1 == len || (v && strcmp(v, "slower") == 0))
                t->tree->nodes[node].suspect = 1;
            parent = node;
        }
    }
    return 0;
}

/* The call-tree part of `doc`: a calltree diff document, or the "calltree" object
 * `culprit bisect --calltree --json` embeds (with "parent" and "error"). */
static int read_calltree(culprit_report_calltree **out, const json_t *doc, const char *path)
{
    static const char *const base_keys[] = {"base", "base_file", "parent", NULL};
    static const char *const test_keys[] = {"test", "test_file", NULL};
    tree_reader t = {NULL, 0, path};
    const json_t *nodes, *suspects;
    int error = 0;

    *out = NULL;
    if (!(t.tree = calloc(1, sizeof(*t.tree))))
        return culprit_error_set(CULPRIT_ERROR, "out of memory");
    if ((error = string_of(&t.tree->base, doc, base_keys)) < 0 ||
        (error = string_of(&t.tree->test, doc, test_keys)) < 0 ||
        (error = string(&t.tree->commit, doc, "commit")) < 0 ||
        (error = string(&t.tree->error, doc, "error")) < 0)
        goto cleanup;
    nodes = json_object_get(doc, "nodes");
    if (!nodes)
        nodes = json_object_get(doc, "tree");
    if (json_is_object(nodes)) /* one root object */
        error = read_node(&t, nodes, SIZE_MAX, 1, 0);
    for (size_t i = 0; json_is_array(nodes) && i < json_array_size(nodes) && error == 0; i++)
        /* Top nodes of a nested tree carry no "parent"; a flat list's do. */
        error = read_node(&t, json_array_get(nodes, i), SIZE_MAX, 1, 0);
    if (error < 0)
        goto cleanup;
    suspects = json_object_get(doc, "suspects");
    if (!suspects)
        suspects = json_object_get(doc, "paths");
    if (!nodes && json_is_array(suspects) && (error = read_suspect_paths(&t, suspects)) < 0)
        goto cleanup;
    if (json_is_array(suspects) && json_array_size(suspects)) {
        size_t len = json_array_size(suspects);
        if (!(t.tree->suspects = calloc(len, sizeof(char *)))) {
            error = culprit_error_set(CULPRIT_ERROR, "out of memory");
            goto cleanup;
        }
        for (size_t i = 0; i < len; i++) {
            char *text;
            if ((error = suspect_text(&text, json_array_get(suspects, i))) < 0)
                goto cleanup;
            if (text)
                t.tree->suspects[t.tree->nsuspects++] = text;
        }
    }
    *out = t.tree;
    t.tree = NULL;
cleanup:
    culprit_report__calltree_free(t.tree);
    return error;
}

int culprit_report_load_calltree(culprit_report *report, const char *path)
{
    culprit_report_calltree *tree = NULL;
    json_t *doc = NULL;
    int error;

    if ((error = load_document(&doc, path, "calltree diff", "--calltree")) < 0 ||
        (error = read_calltree(&tree, doc, path)) < 0)
        goto cleanup;
    culprit_report__calltree_free(report->calltree);
    report->calltree = tree;
cleanup:
    json_decref(doc);
    return error;
}

/* -------------------------------------------------------------- overweight --- */

int culprit_report_load_overweight(culprit_report *report, const char *path)
{
    static const char *const sym_keys[] = {"symbol", "function", "name", NULL};
    static const char *const base_keys[] = {"base_ns", "base", NULL};
    static const char *const test_keys[] = {"test_ns", "test", NULL};
    static const char *const delta_keys[] = {"delta_ns", "delta", NULL};
    static const char *const expected_keys[] = {"expected_ns", "expected", NULL};
    static const char *const over_keys[] = {"overweight_pct", "overweight", NULL};
    static const char *const resp_keys[] = {"responsibility_pct", "responsibility", NULL};
    culprit_report_overweight_row *rows = NULL;
    json_t *doc = NULL, *list;
    size_t n = 0, len;
    int error;

    if ((error = load_document(&doc, path, "overweight", "--overweight")) < 0)
        return error;
    list = json_object_get(doc, "rows");
    if (!list)
        list = json_object_get(doc, "symbols");
    if (!list) /* the recursive analysis: its first round is the whole profile */
        list = json_object_get(json_array_get(json_object_get(doc, "rounds"), 0), "functions");
    if (!json_is_array(list)) {
        error = culprit_error_set(CULPRIT_EINVALID,
                                  "--overweight: '%s' has no \"rounds\" with \"functions\"", path);
        goto cleanup;
    }
    len = json_array_size(list);
    if (!(rows = calloc(len ? len : 1, sizeof(*rows)))) {
        error = culprit_error_set(CULPRIT_ERROR, "out of memory");
        goto cleanup;
    }
    for (size_t i = 0; i < len; i++) {
        const json_t *j = json_array_get(list, i);
        culprit_report_overweight_row *r = &rows[n];
        if (!json_is_object(j))
            continue;
        if ((error = string_of(&r->symbol, j, sym_keys)) < 0)
            goto cleanup;
        if (!r->symbol)
            continue;
        n++;
        r->base_ns = number_of(j, base_keys);
        r->test_ns = number_of(j, test_keys);
        r->delta_ns = number_of(j, delta_keys);
        r->expected_ns = number_of(j, expected_keys);
        r->overweight_pct = number_of(j, over_keys);
        r->responsibility_pct = number_of(j, resp_keys);
    }
    for (size_t i = 0; i < report->noverweight; i++)
        free(report->overweight[i].symbol);
    free(report->overweight);
    report->overweight = rows;
    report->noverweight = n;
    report->have_overweight = 1;
    rows = NULL;
cleanup:
    for (size_t i = 0; rows && i < n; i++)
        free(rows[i].symbol);
    free(rows);
    json_decref(doc);
    return error;
}
