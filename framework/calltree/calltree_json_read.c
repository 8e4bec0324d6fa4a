/*
 * Reads back the documents `culprit calltree diff --json` and `culprit overweight
 * --json` print (their writer is json_write.c): the diff into a
 * culprit_calltree_view (a diff points into the trees it compared, which the
 * document does not hold), the overweight analysis into its table. Each document
 * must carry its "command"; a missing optional field is left unknown (NAN, NULL)
 * rather than failing, so a document from a newer culprit with extra fields still
 * reads. Where the documents may name a field two ways (a tree as a flat node list
 * with parent indices or nested "children"; "function" or "name"), both are read:
 * docs/report.md lists what is read. The documents are untrusted input: a
 * malformed field is an error naming the file and the field, never a crash.
 */
#include "calltree_json.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- helpers --- */

int culprit_calltree__json_load(json_t **out, const char *path, const char *command)
{
    culprit_buf text = CULPRIT_BUF_INIT;
    json_error_t jerr;
    json_t *doc = NULL, *cmd;
    int error;

    *out = NULL;
    if ((error = culprit_fs_read_file(&text, path)) < 0) {
        if (error == CULPRIT_ENOTFOUND)
            error = culprit_error_set(CULPRIT_ENOTFOUND, "no such file '%s'", path);
        goto cleanup;
    }
    if (!(doc = json_loadb(text.ptr ? text.ptr : "", text.size, 0, &jerr))) {
        error = culprit_error_set(CULPRIT_EINVALID, "'%s' is not JSON: line %d: %s", path,
                                  jerr.line, jerr.text);
        goto cleanup;
    }
    cmd = json_object_get(doc, "command");
    if (!json_is_object(doc) || !json_is_string(cmd) ||
        strcmp(json_string_value(cmd), command) != 0) {
        error = culprit_error_set(CULPRIT_EINVALID,
                                  "'%s' is not the document of `culprit %s --json` "
                                  "(its \"command\" is %s%s%s)",
                                  path, command, json_is_string(cmd) ? "'" : "",
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

double culprit_calltree__json_number_of(const json_t *o, const char *const *keys)
{
    for (; *keys; keys++) {
        json_t *v = json_object_get(o, *keys);
        if (json_is_number(v))
            return json_number_value(v);
    }
    return NAN;
}

double culprit_calltree__json_number(const json_t *o, const char *key)
{
    const char *keys[] = {key, NULL};
    return culprit_calltree__json_number_of(o, keys);
}

size_t culprit_calltree__json_count(const json_t *o, const char *key)
{
    double x = culprit_calltree__json_number(o, key);
    /* Below 2^63: a larger count is no count culprit wrote, and the cast would overflow. */
    return isfinite(x) && x > 0 && x < 9.2e18 ? (size_t)x : 0;
}

int culprit_calltree__json_string_of(char **out, const json_t *o, const char *const *keys)
{
    *out = NULL;
    for (; *keys; keys++) {
        json_t *v = json_object_get(o, *keys);
        if (json_is_string(v))
            return (*out = culprit_strdup(json_string_value(v))) ? 0 : CULPRIT_ERROR;
    }
    return 0;
}

int culprit_calltree__json_string(char **out, const json_t *o, const char *key)
{
    const char *keys[] = {key, NULL};
    return culprit_calltree__json_string_of(out, o, keys);
}

void culprit_calltree__json_sha(char out[41], const json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);

    out[0] = '\0';
    if (json_is_string(v)) {
        strncpy(out, json_string_value(v), 40);
        out[40] = '\0';
    }
}

#define number_of(...) culprit_calltree__json_number_of(__VA_ARGS__)
#define number(...)    culprit_calltree__json_number(__VA_ARGS__)
#define string_of(...) culprit_calltree__json_string_of(__VA_ARGS__)
#define string(...)    culprit_calltree__json_string(__VA_ARGS__)

/* ------------------------------------------------------------------- view --- */

static const char *const status_names[] = {NULL,        "unchanged", "slower",  "faster",
                                           "undecided", "added",     "removed", "shape"};

const char *culprit_calltree_view_status_name(culprit_calltree_view_status status)
{
    return (unsigned)status < sizeof(status_names) / sizeof(status_names[0]) ? status_names[status]
                                                                             : NULL;
}

void culprit_calltree_view_free(culprit_calltree_view *c)
{
    if (!c)
        return;
    free(c->base);
    free(c->test);
    free(c->commit);
    free(c->error);
    for (size_t i = 0; i < c->nnodes; i++) {
        culprit_calltree_view_node *n = &c->nodes[i];
        free(n->function);
        free(n->file);
        free(n->changed_lines);
        free(n->diff);
    }
    free(c->nodes);
    for (size_t i = 0; i < c->nsuspects; i++)
        free(c->suspects[i]);
    free(c->suspects);
    free(c->answer.function);
    free(c->answer.file);
    free(c->answer.where);
    free(c->answer.changed);
    free(c->answer.text);
    free(c);
}

typedef struct {
    culprit_calltree_view *tree;
    size_t cap;
    const char *path;
} tree_reader;

static int new_node(culprit_calltree_view_node **out, tree_reader *t)
{
    culprit_calltree_view *c = t->tree;
    int error;

    *out = NULL;
    if ((error = culprit_array_grow(&c->nodes, &t->cap, c->nnodes, sizeof(*c->nodes), 64)) < 0)
        return error;
    *out = &c->nodes[c->nnodes++];
    memset(*out, 0, sizeof(**out));
    return 0;
}

/* The node's "status" (or "verdict"): a word the documents use, or an error. */
static int read_status(culprit_calltree_view_node *n, const json_t *j, const tree_reader *t,
                       size_t index)
{
    static const char *const keys[] = {"status", "verdict", NULL};

    for (size_t k = 0; keys[k]; k++) {
        const json_t *v = json_object_get(j, keys[k]);
        if (!json_is_string(v))
            continue;
        for (size_t s = 1; s < sizeof(status_names) / sizeof(status_names[0]); s++)
            if (strcmp(json_string_value(v), status_names[s]) == 0) {
                n->status = (culprit_calltree_view_status)s;
                return 0;
            }
        return culprit_error_set(CULPRIT_EINVALID,
                                 "'%s': node %zu has an unknown \"%s\" '%s' (unchanged, slower, "
                                 "faster, undecided, added, removed, shape)",
                                 t->path, index, keys[k], json_string_value(v));
    }
    return 0;
}

static int read_ranges(culprit_calltree_view_node *n, const json_t *ranges)
{
    size_t len = json_is_array(ranges) ? json_array_size(ranges) : 0;

    if (!len)
        return 0;
    if (!(n->changed_lines = calloc(len, sizeof(*n->changed_lines))))
        return CULPRIT_ERROR_NOMEM();
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

/* The figures of node `n` from `j`: lines, times, calls, change, flags. */
static void read_figures(culprit_calltree_view_node *n, const json_t *j)
{
    static const char *const base_keys[] = {"base_ns", "base_mean_ns", "base_inclusive_ns", NULL};
    static const char *const test_keys[] = {"test_ns", "test_mean_ns", "test_inclusive_ns", NULL};
    const json_t *flag;

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
}

static int read_node(tree_reader *t, const json_t *j, size_t parent, size_t depth)
{
    static const char *const name_keys[] = {"function", "name", "symbol", NULL};
    static const char *const lines_keys[] = {"changed_lines", "lines", NULL};
    culprit_calltree_view_node *n = NULL;
    const json_t *children, *lines = NULL;
    size_t index;
    double p;
    int error;

    if (!json_is_object(j))
        return culprit_error_set(CULPRIT_EINVALID, "'%s': a node is not an object", t->path);
    if ((error = new_node(&n, t)) < 0)
        return error;
    index = t->tree->nnodes - 1;
    if ((error = string_of(&n->function, j, name_keys)) < 0 ||
        (error = string(&n->file, j, "file")) < 0 || (error = string(&n->diff, j, "diff")) < 0 ||
        (error = read_status(n, j, t, index)) < 0)
        return error;
    if (!n->function)
        return culprit_error_set(CULPRIT_EINVALID, "'%s': node %zu has no function", t->path,
                                 index);
    p = number(j, "parent");
    /* A flat list names its parent by index in the list; nested nodes by position. */
    n->parent = parent != SIZE_MAX      ? parent
                : isfinite(p) && p >= 0 ? (size_t)fmin(p, 1e18)
                                        : SIZE_MAX;
    if (n->parent != SIZE_MAX && n->parent >= index)
        return culprit_error_set(CULPRIT_EINVALID,
                                 "'%s': node %zu names parent %.0f, which does not come before it",
                                 t->path, index, p);
    n->depth = n->parent == SIZE_MAX ? depth : t->tree->nodes[n->parent].depth + 1;
    read_figures(n, j);
    for (size_t k = 0; lines_keys[k] && !lines; k++)
        lines = json_object_get(j, lines_keys[k]);
    if ((error = read_ranges(n, lines)) < 0)
        return error;
    if (n->nchanged)
        n->changed = 1;
    children = json_object_get(j, "children");
    for (size_t i = 0; json_is_array(children) && i < json_array_size(children); i++) {
        const json_t *c = json_array_get(children, i);
        /* `n` may move as the node array grows: children name their parent by index. */
        if (json_is_object(c) && (error = read_node(t, c, index, 0)) < 0)
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
        const culprit_calltree_view_node *n = &t->tree->nodes[i];
        if (n->parent == parent && name && strcmp(n->function, name) == 0 && (!file == !n->file) &&
            (!file || strcmp(n->file, file) == 0)) {
            *out = i;
            return 0;
        }
    }
    if ((error = read_node(t, j, parent, 1)) < 0)
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
            if (!json_is_object(j))
                break;
            if ((error = path_node(&node, t, j, parent)) < 0)
                return error;
            if (k + 1 == len || t->tree->nodes[node].status == CULPRIT_CALLTREE_VIEW_SLOWER)
                t->tree->nodes[node].suspect = 1;
            parent = node;
        }
    }
    return 0;
}

/* The ranked suspect paths as text, one per suspect that names a path. */
static int read_suspect_texts(culprit_calltree_view *c, const json_t *suspects)
{
    size_t len = json_is_array(suspects) ? json_array_size(suspects) : 0;
    int error;

    if (!len)
        return 0;
    if (!(c->suspects = calloc(len, sizeof(char *))))
        return CULPRIT_ERROR_NOMEM();
    for (size_t i = 0; i < len; i++) {
        char *text;
        if ((error = suspect_text(&text, json_array_get(suspects, i))) < 0)
            return error;
        if (text)
            c->suspects[c->nsuspects++] = text;
    }
    return 0;
}

/* The "function" of an answer's {"function", "file", "line"} (or of a plain string). */
static int answer_name(char **out, const json_t *o)
{
    if (!json_is_string(o))
        return string(out, o, "function");
    return (*out = culprit_strdup(json_string_value(o))) ? 0 : CULPRIT_ERROR;
}

/* The document's "answer" (culprit_calltree_diff_answer()); none leaves it NONE, not given. */
static int read_answer(culprit_calltree_view_answer *a, const json_t *j, const char *path)
{
    static const char *const kinds[] = {"none", "changed", "not-on-path", "uncorrelated"};
    const json_t *kind = json_object_get(j, "kind"), *f = json_object_get(j, "function");
    double line = number(f, "line");
    int error;

    a->share = NAN;
    if (!j)
        return 0;
    if (!json_is_object(j) || !json_is_string(kind))
        return culprit_error_set(CULPRIT_EINVALID,
                                 "'%s': \"answer\" is not an object with a \"kind\"", path);
    for (unsigned i = 0; i < 4; i++)
        if (!strcmp(json_string_value(kind), kinds[i]))
            a->kind = (culprit_calltree_answer_kind)i, a->given = 1;
    if (!a->given)
        return culprit_error_set(CULPRIT_EINVALID, "'%s': unknown answer kind '%s'", path,
                                 json_string_value(kind));
    a->share = number(j, "share");
    a->line = isfinite(line) && line > 0 && line < 4e9 ? (unsigned int)line : 0;
    if ((error = answer_name(&a->function, f)) < 0 || (error = string(&a->file, f, "file")) < 0 ||
        (error = answer_name(&a->where, json_object_get(j, "where"))) < 0 ||
        (error = answer_name(&a->changed, json_object_get(j, "changed"))) < 0 ||
        (error = string(&a->text, j, "text")) < 0)
        return error;
    return 0;
}

int culprit_calltree__view_read(culprit_calltree_view **out, const json_t *doc, const char *path)
{
    static const char *const base_keys[] = {"base", "base_file", "parent", NULL};
    static const char *const test_keys[] = {"test", "test_file", NULL};
    tree_reader t = {NULL, 0, path};
    const json_t *nodes, *suspects;
    int error = 0;

    *out = NULL;
    if (!(t.tree = calloc(1, sizeof(*t.tree))))
        return CULPRIT_ERROR_NOMEM();
    if ((error = string_of(&t.tree->base, doc, base_keys)) < 0 ||
        (error = string_of(&t.tree->test, doc, test_keys)) < 0 ||
        (error = string(&t.tree->commit, doc, "commit")) < 0 ||
        (error = string(&t.tree->error, doc, "error")) < 0)
        goto cleanup;
    nodes = json_object_get(doc, "nodes");
    if (!nodes)
        nodes = json_object_get(doc, "tree");
    if (json_is_object(nodes)) /* one root object */
        error = read_node(&t, nodes, SIZE_MAX, 1);
    for (size_t i = 0; json_is_array(nodes) && i < json_array_size(nodes) && error == 0; i++)
        /* Top nodes of a nested tree carry no "parent"; a flat list's do. */
        error = read_node(&t, json_array_get(nodes, i), SIZE_MAX, 1);
    if (error < 0)
        goto cleanup;
    suspects = json_object_get(doc, "suspects");
    if (!suspects)
        suspects = json_object_get(doc, "paths");
    if ((!nodes && json_is_array(suspects) && (error = read_suspect_paths(&t, suspects)) < 0) ||
        (error = read_suspect_texts(t.tree, suspects)) < 0 ||
        (error = read_answer(&t.tree->answer, json_object_get(doc, "answer"), path)) < 0)
        goto cleanup;
    *out = t.tree;
    t.tree = NULL;
cleanup:
    culprit_calltree_view_free(t.tree);
    return error;
}

int culprit_calltree_view_from_json(culprit_calltree_view **out, const char *path)
{
    json_t *doc = NULL;
    int error;

    *out = NULL;
    if ((error = culprit_calltree__json_load(&doc, path, "calltree diff")) == 0)
        error = culprit_calltree__view_read(out, doc, path);
    json_decref(doc);
    return error;
}

/* -------------------------------------------------------------- overweight --- */

void culprit_calltree_overweight_table_free(culprit_calltree_overweight_table *table)
{
    if (!table)
        return;
    for (size_t i = 0; i < table->nrows; i++)
        free(table->rows[i].symbol);
    free(table->rows);
    free(table);
}

/* The row of `j`; *kept 0 when `j` is not a row (no object, no symbol). */
static int read_row(culprit_calltree_overweight_entry *r, int *kept, const json_t *j)
{
    static const char *const sym_keys[] = {"symbol", "function", "name", NULL};
    static const char *const base_keys[] = {"base_ns", "base", NULL};
    static const char *const test_keys[] = {"test_ns", "test", NULL};
    static const char *const delta_keys[] = {"delta_ns", "delta", NULL};
    static const char *const expected_keys[] = {"expected_ns", "expected", NULL};
    static const char *const over_keys[] = {"overweight_pct", "overweight", NULL};
    static const char *const resp_keys[] = {"responsibility_pct", "responsibility", NULL};
    int error;

    *kept = 0;
    if (!json_is_object(j))
        return 0;
    if ((error = string_of(&r->symbol, j, sym_keys)) < 0 || !r->symbol)
        return error;
    *kept = 1;
    r->base_ns = number_of(j, base_keys);
    r->test_ns = number_of(j, test_keys);
    r->delta_ns = number_of(j, delta_keys);
    r->expected_ns = number_of(j, expected_keys);
    r->overweight_pct = number_of(j, over_keys);
    r->responsibility_pct = number_of(j, resp_keys);
    return 0;
}

int culprit_calltree_overweight_table_from_json(culprit_calltree_overweight_table **out,
                                                const char *path)
{
    culprit_calltree_overweight_table *table = NULL;
    json_t *doc = NULL, *list;
    size_t len;
    int error;

    *out = NULL;
    if ((error = culprit_calltree__json_load(&doc, path, "overweight")) < 0)
        return error;
    list = json_object_get(doc, "rows");
    if (!list)
        list = json_object_get(doc, "symbols");
    if (!list) /* the recursive analysis: its first round is the whole profile */
        list = json_object_get(json_array_get(json_object_get(doc, "rounds"), 0), "functions");
    if (!json_is_array(list)) {
        error =
            culprit_error_set(CULPRIT_EINVALID, "'%s' has no \"rounds\" with \"functions\"", path);
        goto cleanup;
    }
    len = json_array_size(list);
    if (!(table = calloc(1, sizeof(*table))) ||
        !(table->rows = calloc(len ? len : 1, sizeof(*table->rows)))) {
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    for (size_t i = 0; i < len; i++) {
        int kept;
        if ((error = read_row(&table->rows[table->nrows], &kept, json_array_get(list, i))) < 0)
            goto cleanup;
        table->nrows += kept;
    }
    *out = table;
    table = NULL;
cleanup:
    culprit_calltree_overweight_table_free(table);
    json_decref(doc);
    return error;
}
