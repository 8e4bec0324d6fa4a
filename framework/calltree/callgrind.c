/*
 * Valgrind's callgrind output as a call tree: the one reader of callgrind's format
 * in culprit (the runner's instruction counts read their totals through it too).
 *
 * The format ("Callgrind Format Specification", valgrind.org): a header of
 * "key: value" lines (events, summary, totals, cmd), then per function ("fn=") cost
 * lines "POSITION... COST..." holding its own cost, and its calls: "cfn=" names the
 * callee, "calls=COUNT TARGET" how often, and the cost line after it the inclusive
 * cost of those calls. Names may be compressed ("fn=(12) name" defines 12, "fn=(12)"
 * refers to it; files share one table: fl, fi, fe, cfi, cfl), positions may be
 * relative ("+3", "-1", "*"). Only the event "Ir" (instructions) is read, the first
 * event when there is no Ir.
 *
 * callgrind keeps a call graph: per function its own cost, per caller-callee arc
 * the calls and their inclusive cost, not per call path. The tree is the graph
 * unrolled from the functions nobody calls: a callee's node under a path gets the
 * arc's calls and cost scaled by the share of its caller's cost that path holds (a
 * caller called from two paths passes on its callees' costs in proportion: what
 * gprof does too), exact for every function called from one path only. A call of a
 * function already on the path (recursion) is not unrolled; its cost stays in the
 * caller's own. Paths worth less than half an instruction are left out.
 * docs/calltree.md, "Instruction counts".
 */
#include "calltree_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The most nodes an unrolled graph may give (each a path of at least one
 * instruction): beyond it the graph is refused, not written half. */
#define MAX_NODES 4000000

typedef struct {
    size_t callee; /* graph function */
    double calls, inclusive;
} arc;

typedef struct {
    size_t fn; /* the tree's function */
    double self;
    unsigned int low, high; /* executed lines in its own file */
    arc *arcs;
    size_t narcs, aarcs;
    double in; /* inclusive cost of its callers' calls of it */
} gfn;

/* Compressed names: id -> string, one table per kind. */
typedef struct {
    char **v; /* by id */
    size_t n, a;
    char **u; /* uncompressed names seen */
    size_t nu, au;
} names;

typedef struct {
    const char *name; /* in messages */
    size_t line;
    culprit_calltree *tree;
    names files, fns, objs;
    gfn *g;
    size_t ng, ag;
    size_t *of_fn;             /* tree function -> graph function (NONE) */
    size_t nof_fn, aof_fn;     /* entries set, allocated */
    int npos, line_col, event; /* position columns, which is the line, Ir's column */
    long long last[2];
    const char *ob, *fl, *fi, *cob, *cfi; /* current names (borrowed from the tables) */
    size_t cur, callee;                   /* graph functions; NONE: none */
    double call_count;                    /* the pending calls= line, -1: none */
    double summary, totals;
    int has_summary, has_totals, seen_events;
} parser;

static int fail(parser *p, const char *what)
{
    return culprit_error_set(CULPRIT_EINVALID, "%s:%zu: %s (not callgrind output?)", p->name,
                             p->line, what);
}

static void names_dispose(names *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->v[i]);
    for (size_t i = 0; i < t->nu; i++)
        free(t->u[i]);
    free(t->v);
    free(t->u);
}

/* "(12) name" defines id 12, "(12)" refers to it, "name" is itself. *out is borrowed
 * from the table, which keeps uncompressed names too. */
static int resolve(parser *p, names *t, const char *value, const char **out)
{
    char *end;
    unsigned long id;

    if (value[0] != '(') { /* kept as an entry past the ids, the line being gone */
        if (t->nu && strcmp(t->u[t->nu - 1], value) == 0) {
            *out = t->u[t->nu - 1];
            return 0;
        }
        if (culprit_array_grow(&t->u, &t->au, t->nu, sizeof(*t->u), 64) < 0 ||
            !(t->u[t->nu] = culprit_strdup(value)))
            return CULPRIT_ERROR;
        *out = t->u[t->nu++];
        return 0;
    }
    id = strtoul(value + 1, &end, 10);
    if (*end != ')' || id > 100000000)
        return fail(p, "a bad compressed name");
    end += 1 + (end[1] == ' ');
    if (*end) {
        if (culprit_array_grow(&t->v, &t->a, id, sizeof(*t->v), 64) < 0)
            return CULPRIT_ERROR;
        while (t->n <= id)
            t->v[t->n++] = NULL;
        if (!t->v[id] && !(t->v[id] = culprit_strdup(end))) /* a second definition: the first */
            return CULPRIT_ERROR;
    } else if (id >= t->n || !t->v[id]) {
        return fail(p, "a compressed name used before it is defined");
    }
    *out = t->v[id];
    return 0;
}

/* The graph function of `name` in `file` ("???": unknown), interned in the tree. */
static int function(parser *p, size_t *out, const char *name, const char *file, const char *ob)
{
    const char *f = file && strcmp(file, "???") != 0 ? file : NULL;
    size_t fn, old = p->tree->nfunctions;

    if (culprit_calltree_function_intern(&fn, p->tree, name, f, 0, 0) < 0)
        return CULPRIT_ERROR;
    if (fn >= old && ob && strcmp(ob, "???") != 0 &&
        !(p->tree->functions[fn].object = culprit_strdup(ob)))
        return CULPRIT_ERROR;
    if (culprit_array_grow(&p->of_fn, &p->aof_fn, p->tree->nfunctions, sizeof(*p->of_fn), 64) < 0)
        return CULPRIT_ERROR;
    for (; p->nof_fn < p->tree->nfunctions; p->nof_fn++) /* the tree's earlier ones too */
        p->of_fn[p->nof_fn] = CULPRIT_CALLTREE_NONE;
    if (p->of_fn[fn] == CULPRIT_CALLTREE_NONE) {
        if (culprit_array_grow(&p->g, &p->ag, p->ng, sizeof(*p->g), 64) < 0)
            return CULPRIT_ERROR;
        memset(&p->g[p->ng], 0, sizeof(*p->g));
        p->g[p->ng].fn = fn;
        p->of_fn[fn] = p->ng++;
    }
    *out = p->of_fn[fn];
    return 0;
}

static int add_arc(gfn *caller, size_t callee, double calls, double inclusive)
{
    for (size_t i = 0; i < caller->narcs; i++)
        if (caller->arcs[i].callee == callee) {
            caller->arcs[i].calls += calls;
            caller->arcs[i].inclusive += inclusive;
            return 0;
        }
    if (culprit_array_grow(&caller->arcs, &caller->aarcs, caller->narcs, sizeof(arc), 4) < 0)
        return CULPRIT_ERROR;
    caller->arcs[caller->narcs++] = (arc){callee, calls, inclusive};
    return 0;
}

/* A cost line: positions (absolute, "+N", "-N", "*"), then the events' costs. */
static int cost_line(parser *p, char *s)
{
    double cost = 0;
    long long line = -1;

    for (int c = 0; c < p->npos; c++) {
        char *end;
        long long v;
        while (*s == ' ')
            s++;
        if (*s == '*') {
            v = p->last[c];
            end = s + 1;
        } else if (*s == '+' || *s == '-') {
            v = p->last[c] + strtoll(s, &end, 0);
        } else {
            v = strtoll(s, &end, 0);
        }
        if (end == s || (*end && *end != ' '))
            return fail(p, "a bad position in a cost line");
        p->last[c] = v;
        if (c == p->line_col)
            line = v;
        s = end;
    }
    for (int e = 0; e <= p->event; e++) {
        char *end;
        double v = strtod(s, &end);
        if (end == s)
            break; /* missing costs are 0 */
        if (e == p->event)
            cost = v;
        s = end;
    }
    if (p->cur == CULPRIT_CALLTREE_NONE)
        return p->call_count >= 0 ? fail(p, "a call outside a function") : 0;
    if (p->call_count >= 0) { /* the inclusive cost of the calls= line before */
        double n = p->call_count;
        p->call_count = -1;
        return p->callee == p->cur ? 0 : add_arc(&p->g[p->cur], p->callee, n, cost);
    }
    gfn *g = &p->g[p->cur];
    g->self += cost;
    if (line > 0 && line < 0x7fffffff && p->fi && p->fl && strcmp(p->fi, p->fl) == 0) {
        g->low = g->low == 0 || (unsigned int)line < g->low ? (unsigned int)line : g->low;
        g->high = (unsigned int)line > g->high ? (unsigned int)line : g->high;
    }
    return 0;
}

/* "positions: line", "events: Ir ...", "summary:", "totals:", "cmd:". */
static int header_line(parser *p, const char *key, const char *value)
{
    if (strcmp(key, "positions") == 0) {
        p->npos = 0;
        p->line_col = -1;
        for (const char *s = value; *s && p->npos < 2;) {
            size_t n = strcspn(s, " ");
            if (n == 4 && strncmp(s, "line", 4) == 0)
                p->line_col = p->npos;
            p->npos++;
            s += n;
            s += strspn(s, " ");
        }
        if (p->npos == 0)
            return fail(p, "'positions:' names no position");
    } else if (strcmp(key, "events") == 0) {
        int k = 0;
        p->event = 0;
        p->seen_events = 1;
        for (const char *s = value; *s; k++) {
            size_t n = strcspn(s, " ");
            if (n == 2 && strncmp(s, "Ir", 2) == 0)
                p->event = k;
            s += n;
            s += strspn(s, " ");
        }
    } else if (strcmp(key, "summary") == 0 || strcmp(key, "totals") == 0) {
        double v = 0;
        const char *s = value;
        for (int e = 0; e <= p->event; e++) {
            char *end;
            v = strtod(s, &end);
            s = end;
        }
        if (key[0] == 's')
            p->summary = v, p->has_summary = 1;
        else
            p->totals += v, p->has_totals = 1;
    } else if (strcmp(key, "cmd") == 0 && p->tree && !p->tree->command && *value) {
        if (!(p->tree->command = culprit_strdup(value)) ||
            !(p->tree->binary = culprit_strdup(value)))
            return CULPRIT_ERROR;
        p->tree->binary[strcspn(p->tree->binary, " ")] = '\0';
    }
    return 0;
}

/* "fn=", "cfn=", "calls=", "fl=" and the other "key=value" lines. */
static int spec_line(parser *p, const char *key, const char *value)
{
    const char *s;
    int error;

    if (strcmp(key, "ob") == 0)
        return resolve(p, &p->objs, value, &p->ob);
    if (strcmp(key, "cob") == 0)
        return resolve(p, &p->objs, value, &p->cob);
    if (strcmp(key, "fl") == 0) {
        if ((error = resolve(p, &p->files, value, &p->fl)) == 0)
            p->fi = p->fl;
        return error;
    }
    if (strcmp(key, "fi") == 0 || strcmp(key, "fe") == 0)
        return resolve(p, &p->files, value, &p->fi);
    if (strcmp(key, "cfi") == 0 || strcmp(key, "cfl") == 0)
        return resolve(p, &p->files, value, &p->cfi);
    if (strcmp(key, "fn") == 0) {
        if ((error = resolve(p, &p->fns, value, &s)) < 0 ||
            (error = function(p, &p->cur, s, p->fl, p->ob)) < 0)
            return error;
        p->fi = p->fl;
        return 0;
    }
    if (strcmp(key, "cfn") == 0) {
        if ((error = resolve(p, &p->fns, value, &s)) < 0 ||
            (error = function(p, &p->callee, s, p->cfi ? p->cfi : p->fi, p->cob ? p->cob : p->ob)) <
                0)
            return error;
        p->cfi = p->cob = NULL;
        return 0;
    }
    if (strcmp(key, "calls") == 0) {
        char *end;
        p->call_count = strtod(value, &end);
        if (end == value || p->call_count < 0 || p->callee == CULPRIT_CALLTREE_NONE)
            return fail(p, "a 'calls=' line without its count or its 'cfn='");
    }
    return 0; /* jump=, jcnd=, jfi=, jfn=: not costs */
}

static int parse_line(parser *p, char *s)
{
    char *sep;

    if (*s == '\0' || *s == '#')
        return 0;
    if ((*s >= '0' && *s <= '9') || *s == '+' || *s == '-' || *s == '*')
        return p->seen_events || p->npos ? cost_line(p, s)
                                         : fail(p, "a cost line before 'events:'");
    sep = s + strcspn(s, ":=");
    if (*sep == '\0')
        return fail(p, "a line that is neither 'key: value', 'key=value' nor costs");
    if (p->call_count >= 0)
        return fail(p, "a 'calls=' line not followed by its cost line");
    char kind = *sep;
    *sep++ = '\0';
    while (*sep == ' ')
        sep++;
    return kind == ':' ? header_line(p, s, sep) : spec_line(p, s, sep);
}

/* ------------------------------------------------------------ unrolling --- */

typedef struct {
    size_t node, g;
    double scale; /* the share of g's cost this path holds */
    size_t next;  /* the next arc to unroll */
} frame;

/* The cost of g's calls, callees included: its own and its arcs' (not to itself). */
static double total_of(const parser *p, size_t g)
{
    double t = p->g[g].self;
    for (size_t i = 0; i < p->g[g].narcs; i++)
        if (p->g[g].arcs[i].callee != g)
            t += p->g[g].arcs[i].inclusive;
    return t;
}

/* Adds a node for graph function g under `parent`, with its calls and cost. */
static int add_node(parser *p, size_t *out, size_t parent, size_t g, double calls, double cost)
{
    culprit_calltree_node *n;
    double rounded = floor(calls + 0.5);

    if (culprit_calltree_child(out, p->tree, parent, p->g[g].fn) < 0)
        return CULPRIT_ERROR;
    if (p->tree->nnodes > MAX_NODES)
        return culprit_error_set(CULPRIT_EINVALID,
                                 "%s: its call graph unrolls into more than %d call paths", p->name,
                                 MAX_NODES);
    n = &p->tree->nodes[*out];
    n->calls += rounded < 1 ? 1 : (uint64_t)rounded;
    n->samples = n->calls;
    n->inclusive_ns += cost;
    n->inclusive_sq_ns2 = NAN; /* exact counts: no per-call variance to test */
    return 0;
}

/* Unrolls the graph from root function r, depth first with an explicit stack. */
static int unroll(parser *p, size_t r, const double *total, unsigned char *onpath, frame **stack,
                  size_t *astack)
{
    size_t n = 0, node;

    if (add_node(p, &node, 0, r, 1, total[r]) < 0 ||
        culprit_array_grow(stack, astack, 0, sizeof(**stack), 64) < 0)
        return CULPRIT_ERROR;
    (*stack)[n++] = (frame){node, r, 1.0, 0};
    onpath[r] = 1;
    while (n > 0) {
        frame *f = &(*stack)[n - 1];
        const gfn *g = &p->g[f->g];
        if (f->next == g->narcs) {
            onpath[f->g] = 0;
            n--;
            continue;
        }
        const arc *a = &g->arcs[f->next++];
        double cost = a->inclusive * f->scale;
        if (onpath[a->callee] || cost < 0.5)
            continue; /* recursion, or less than half an instruction */
        size_t parent = f->node;
        double scale = f->scale, share = total[a->callee] > 0 ? cost / total[a->callee] : 0;
        if (add_node(p, &node, parent, a->callee, a->calls * scale, cost) < 0 ||
            culprit_array_grow(stack, astack, n, sizeof(**stack), 64) < 0)
            return CULPRIT_ERROR;
        (*stack)[n++] = (frame){node, a->callee, share > 1 ? 1 : share, 0};
        onpath[a->callee] = 1;
    }
    return 0;
}

/* The tree of the parsed graph: unrolled from each function nobody calls. */
static int build(parser *p)
{
    double *total = calloc(p->ng ? p->ng : 1, sizeof(*total));
    unsigned char *onpath = calloc(p->ng ? p->ng : 1, 1);
    frame *stack = NULL;
    size_t astack = 0;
    int error = 0;

    if (!total || !onpath)
        error = CULPRIT_ERROR_NOMEM();
    for (size_t g = 0; error == 0 && g < p->ng; g++) {
        total[g] = total_of(p, g);
        for (size_t i = 0; i < p->g[g].narcs; i++)
            if (p->g[g].arcs[i].callee != g)
                p->g[p->g[g].arcs[i].callee].in += p->g[g].arcs[i].inclusive;
    }
    for (size_t g = 0; error == 0 && g < p->ng; g++) {
        culprit_calltree_function *fn = &p->tree->functions[p->g[g].fn];
        if (p->g[g].low && (fn->line_low == 0 || p->g[g].low < fn->line_low))
            fn->line_low = p->g[g].low;
        if (p->g[g].high > fn->line_high)
            fn->line_high = p->g[g].high;
    }
    for (size_t g = 0; error == 0 && g < p->ng; g++)
        if (p->g[g].in == 0 && total[g] >= 0.5)
            error = unroll(p, g, total, onpath, &stack, &astack);
    free(total);
    free(onpath);
    free(stack);
    return error;
}

/* Each node's own cost: its inclusive cost minus its children's (clamped at 0). */
static void exclusive_costs(culprit_calltree *tree)
{
    for (size_t i = 1; i < tree->nnodes; i++) {
        culprit_calltree_node *n = &tree->nodes[i];
        double below = 0;
        for (size_t c = 0; c < n->nchildren; c++)
            below += tree->nodes[n->children[c]].inclusive_ns;
        n->exclusive_ns = n->inclusive_ns > below ? n->inclusive_ns - below : 0;
    }
}

static void parser_dispose(parser *p)
{
    for (size_t g = 0; g < p->ng; g++)
        free(p->g[g].arcs);
    free(p->g);
    free(p->of_fn);
    names_dispose(&p->files);
    names_dispose(&p->fns);
    names_dispose(&p->objs);
}

/* Parses `text` (NUL-terminated, changed in place); with a tree, adds its graph. */
static int parse(parser *p, char *text)
{
    int error = 0;

    p->npos = 1;
    p->line_col = 0;
    p->cur = p->callee = CULPRIT_CALLTREE_NONE;
    p->call_count = -1;
    for (char *s = text; error == 0 && s && *s;) {
        char *nl = strchr(s, '\n');
        if (nl)
            *nl = '\0';
        if (nl && nl > s && nl[-1] == '\r')
            nl[-1] = '\0';
        p->line++;
        if (p->tree)
            error = parse_line(p, s);
        else if (s[strcspn(s, ":=")] == ':') /* only the totals wanted: header lines */
            error = parse_line(p, s);
        else if (p->has_summary && *s && *s != '#')
            break; /* the body: the summary is known */
        s = nl ? nl + 1 : NULL;
    }
    if (error == 0 && p->line > 0 && p->call_count >= 0)
        error = fail(p, "the file ends after a 'calls=' line");
    if (error == 0 && !p->tree && !p->has_summary && !p->has_totals)
        error = culprit_error_set(CULPRIT_EINVALID,
                                  "%s: no instruction count in it (no 'summary:' or 'totals:')",
                                  p->name);
    if (error == 0 && !p->seen_events && !p->has_summary)
        error = culprit_error_set(CULPRIT_EINVALID, "%s: no 'events:' line: not callgrind output",
                                  p->name);
    return error;
}

int culprit_calltree_add_callgrind(culprit_calltree *tree, double *total, const char *text,
                                   size_t len, const char *name)
{
    parser p;
    char *copy = malloc(len + 1);
    int error;

    memset(&p, 0, sizeof(p));
    p.name = name ? name : "callgrind output";
    p.tree = tree;
    if (!copy)
        return CULPRIT_ERROR_NOMEM();
    memcpy(copy, text, len);
    copy[len] = '\0';
    if ((error = parse(&p, copy)) == 0 && tree) {
        tree->mode = CULPRIT_CALLTREE_FULL;
        tree->instructions = 1;
        tree->nodes[0].calls++;
        if ((error = build(&p)) == 0)
            exclusive_costs(tree);
    }
    if (error == 0 && total)
        *total = p.has_summary ? p.summary : p.totals;
    parser_dispose(&p);
    free(copy);
    return error;
}

int culprit_calltree_read_callgrind(culprit_calltree **out, double *total, const char *path)
{
    culprit_buf text = CULPRIT_BUF_INIT;
    culprit_calltree *tree = NULL;
    int error;

    if (out)
        *out = NULL;
    if ((error = culprit_fs_read_file(&text, path)) < 0 ||
        (out && (error = culprit_calltree_new(&tree)) < 0) ||
        (error = culprit_calltree_add_callgrind(tree, total, culprit_buf_cstr(&text), text.size,
                                                path)) < 0) {
        culprit_calltree_free(tree);
        culprit_buf_dispose(&text);
        return error;
    }
    if (out)
        *out = tree;
    culprit_buf_dispose(&text);
    return 0;
}
