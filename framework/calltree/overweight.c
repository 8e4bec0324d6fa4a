/*
 * Overweight analysis: which symbols grew more than their share of a
 * profile's total change. Every node of a tree is a stack, the path from the
 * root, costing the node's exclusive cost (time, or the samples of a folded
 * file). For a symbol s, B(s) and T(s) are the costs of the stacks that contain
 * s before and after, each stack counted once even when s recurses; B0 and T0 are
 * the profiles' totals and D = T0 - B0. If s had only grown in proportion, its
 * cost would have grown by expected(s) = B(s) D / B0; overweight%(s) = 100
 * delta(s) / expected(s) says how much more (100: exactly its share), and
 * responsibility%(s) = 100 delta(s) / D how much of the total change it carries.
 *
 * Recursive mode: a symbol that grew a lot drags every caller on its stacks with
 * it (they all contain its stacks). Dropping every stack that contains the top
 * pivot and computing again shows what grew besides it.
 */
#include "calltree_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FLAG_EXIT ((size_t)1 << (sizeof(size_t) * 8 - 1))

int culprit_calltree_overweight_options_init(culprit_calltree_overweight_options *opts,
                                             unsigned int version)
{
    static const culprit_calltree_overweight_options defaults =
        CULPRIT_CALLTREE_OVERWEIGHT_OPTIONS_INIT;

    return culprit_options_init_from(opts, &defaults, sizeof(defaults), version,
                                     CULPRIT_CALLTREE_OVERWEIGHT_OPTIONS_VERSION, "overweight");
}

/* One profile during the analysis. */
typedef struct {
    const culprit_calltree *tree;
    double *cost;   /* per node: its own cost (0 when unknown) */
    double *incl;   /* per node: cost of the stacks through it, dropped ones excluded */
    char *dropped;  /* per node: a stack that contains a pivot */
    char *banned;   /* per function: a pivot */
    double *sym;    /* per function: B(s) or T(s) */
    size_t *onpath; /* per function: its occurrences on the current path */
    char *present;  /* per function: on a stack that is kept */
    size_t *stack;
    double total;
} profile;

static void profile_dispose(profile *p)
{
    free(p->cost);
    free(p->incl);
    free(p->dropped);
    free(p->banned);
    free(p->sym);
    free(p->onpath);
    free(p->present);
    free(p->stack);
}

static int profile_init(profile *p, const culprit_calltree *tree, const char *which)
{
    size_t nn = tree->nnodes, nf = tree->nfunctions ? tree->nfunctions : 1;

    memset(p, 0, sizeof(*p));
    p->tree = tree;
    if (tree->mode == CULPRIT_CALLTREE_STRUCTURE)
        return culprit_error_set(CULPRIT_EINVALID,
                                 "the %s profile has no costs (a call tree recorded in structure "
                                 "mode)",
                                 which);
    p->cost = malloc(nn * sizeof(*p->cost));
    p->incl = malloc(nn * sizeof(*p->incl));
    p->dropped = calloc(nn, 1);
    p->stack = malloc(2 * nn * sizeof(*p->stack));
    p->banned = calloc(nf, 1);
    p->sym = malloc(nf * sizeof(*p->sym));
    p->onpath = malloc(nf * sizeof(*p->onpath));
    p->present = malloc(nf);
    if (!p->cost || !p->incl || !p->dropped || !p->stack || !p->banned || !p->sym || !p->onpath ||
        !p->present)
        return culprit_error_set(CULPRIT_ERROR, "out of memory in the overweight analysis");
    if (culprit_calltree__exclusive(p->cost, tree) == 0 && nn > 1)
        return culprit_error_set(CULPRIT_EINVALID, "the %s profile has no costs (no node is timed)",
                                 which);
    for (size_t i = 0; i < nn; i++)
        if (!isfinite(p->cost[i]) || i == 0)
            p->cost[i] = 0;
    return 0;
}

/* B(s) for every symbol, B0, and which symbols remain, with the pivots dropped. */
static void profile_compute(profile *p)
{
    const culprit_calltree *t = p->tree;
    size_t top = 0;

    for (size_t i = 1; i < t->nnodes; i++)
        p->dropped[i] = p->banned[t->nodes[i].function] || p->dropped[t->nodes[i].parent];
    for (size_t i = 0; i < t->nnodes; i++)
        p->incl[i] = p->dropped[i] ? 0 : p->cost[i];
    for (size_t i = t->nnodes; i-- > 1;)
        p->incl[t->nodes[i].parent] += p->incl[i];
    p->total = p->incl[0];
    for (size_t f = 0; f < t->nfunctions; f++) {
        p->sym[f] = 0;
        p->onpath[f] = 0;
        p->present[f] = 0;
    }
    /* Depth first with the symbols of the current path counted: a node adds its
     * stacks to its symbol only when it is the outermost occurrence on the path,
     * so a recursive function's stacks count once. */
    for (size_t c = 0; c < t->nodes[0].nchildren; c++)
        p->stack[top++] = t->nodes[0].children[c];
    while (top > 0) {
        size_t x = p->stack[--top], i = x & ~FLAG_EXIT;
        size_t f = t->nodes[i].function;
        if (x & FLAG_EXIT) {
            p->onpath[f]--;
            continue;
        }
        if (p->dropped[i])
            continue;
        p->present[f] = 1;
        if (p->onpath[f]++ == 0)
            p->sym[f] += p->incl[i];
        p->stack[top++] = i | FLAG_EXIT;
        for (size_t c = 0; c < t->nodes[i].nchildren; c++)
            p->stack[top++] = t->nodes[i].children[c];
    }
}

static int compare_rows(const void *x, const void *y)
{
    const culprit_calltree_overweight_row *a = x, *b = y;
    int na = isnan(a->overweight), nb = isnan(b->overweight), c;

    if (na != nb)
        return na - nb;
    if (!na && a->overweight != b->overweight)
        return a->overweight < b->overweight ? 1 : -1;
    if (a->responsibility != b->responsibility && !isnan(a->responsibility) &&
        !isnan(b->responsibility))
        return a->responsibility < b->responsibility ? 1 : -1;
    if ((c = strcmp(a->name, b->name)) != 0)
        return c;
    return strcmp(a->file ? a->file : "", b->file ? b->file : "");
}

/* One round over the profiles as they are now. */
static int make_round(culprit_calltree_overweight_round *r, const profile *pb, const profile *pt,
                      const size_t *map)
{
    const culprit_calltree *t = pt->tree;
    double b0 = pb->total, t0 = pt->total, d = t0 - b0;

    memset(r, 0, sizeof(*r));
    r->base_total = b0;
    r->test_total = t0;
    r->delta_total = d;
    r->pivot = CULPRIT_CALLTREE_NONE;
    if (!(r->rows = malloc((t->nfunctions ? t->nfunctions : 1) * sizeof(*r->rows))))
        return culprit_error_set(CULPRIT_ERROR, "out of memory in the overweight analysis");
    for (size_t f = 0; f < t->nfunctions; f++) {
        culprit_calltree_overweight_row *row = &r->rows[r->nrows];
        size_t g = map[f];
        if (!pt->present[f] || g == CULPRIT_CALLTREE_NONE || !pb->present[g])
            continue;
        row->name = t->functions[f].name;
        row->file = t->functions[f].file;
        row->base = pb->sym[g];
        row->test = pt->sym[f];
        row->delta = row->test - row->base;
        row->expected = b0 > 0 ? row->base * d / b0 : NAN;
        row->overweight = row->expected != 0 ? 100.0 * row->delta / row->expected : NAN;
        row->responsibility = d != 0 ? 100.0 * row->delta / d : NAN;
        r->nrows++;
    }
    if (r->nrows > 1) /* qsort(NULL, 0, ...) is undefined */
        qsort(r->rows, r->nrows, sizeof(*r->rows), compare_rows);
    return 0;
}

int culprit_calltree_overweight_trees(culprit_calltree_overweight *out,
                                      const culprit_calltree *base, const culprit_calltree *test,
                                      const culprit_calltree_overweight_options *opts)
{
    culprit_calltree_overweight_options defaults = CULPRIT_CALLTREE_OVERWEIGHT_OPTIONS_INIT;
    profile pb, pt;
    size_t *map = NULL, *back = NULL;
    int error;

    memset(out, 0, sizeof(*out));
    memset(&pb, 0, sizeof(pb));
    memset(&pt, 0, sizeof(pt));
    if (!opts)
        opts = &defaults;
    if (opts->version != CULPRIT_CALLTREE_OVERWEIGHT_OPTIONS_VERSION)
        return culprit_options_check_version(
            opts->version, CULPRIT_CALLTREE_OVERWEIGHT_OPTIONS_VERSION, "overweight");
    if (!(opts->min_responsibility >= 0) || isnan(opts->min_overweight)) {
        error = culprit_error_set(CULPRIT_EINVALID,
                                  "overweight pivot limits %g%%, %g%% are not "
                                  "usable",
                                  opts->min_responsibility, opts->min_overweight);
        goto cleanup;
    }
    if ((error = profile_init(&pb, base, "base")) < 0 ||
        (error = profile_init(&pt, test, "test")) < 0 ||
        (error = culprit_calltree__function_map(&map, test, base, 1)) < 0 ||
        (error = culprit_calltree__function_map(&back, base, test, 1)) < 0)
        goto cleanup;
    if (!(out->rounds = calloc(opts->recurse + 1, sizeof(*out->rounds)))) {
        error = culprit_error_set(CULPRIT_ERROR, "out of memory in the overweight analysis");
        goto cleanup;
    }
    profile_compute(&pb);
    profile_compute(&pt);
    if (!(pb.total > 0)) {
        error = culprit_error_set(CULPRIT_EINVALID,
                                  "the base profile's total cost is %g: "
                                  "nothing to compare against",
                                  pb.total);
        goto cleanup;
    }
    for (;;) {
        culprit_calltree_overweight_round *r = &out->rounds[out->nrounds];
        if ((error = make_round(r, &pb, &pt, map)) < 0)
            goto cleanup;
        out->nrounds++;
        if (out->nrounds > opts->recurse || !(r->delta_total > 0) || !(r->base_total > 0))
            break;
        /* "Above" beyond rounding: a profile that grew uniformly has every symbol
         * at 100% give or take the last bits, and none of them is a pivot. */
        for (size_t i = 0; i < r->nrows && r->pivot == CULPRIT_CALLTREE_NONE; i++)
            if (r->rows[i].overweight > opts->min_overweight + 1e-6 &&
                r->rows[i].responsibility >= opts->min_responsibility)
                r->pivot = i;
        if (r->pivot == CULPRIT_CALLTREE_NONE)
            break;
        /* Drop the pivot's stacks on both sides: every function of that identity. */
        for (size_t f = 0; f < test->nfunctions; f++)
            if (test->functions[f].name == r->rows[r->pivot].name) {
                pt.banned[f] = 1;
                if (map[f] != CULPRIT_CALLTREE_NONE)
                    pb.banned[map[f]] = 1;
            }
        for (size_t g = 0; g < base->nfunctions; g++)
            if (back[g] != CULPRIT_CALLTREE_NONE && pt.banned[back[g]])
                pb.banned[g] = 1;
        profile_compute(&pb);
        profile_compute(&pt);
    }
cleanup:
    free(map);
    free(back);
    profile_dispose(&pb);
    profile_dispose(&pt);
    if (error < 0)
        culprit_calltree_overweight_dispose(out);
    return error;
}

void culprit_calltree_overweight_dispose(culprit_calltree_overweight *ow)
{
    if (!ow)
        return;
    for (size_t i = 0; i < ow->nrounds; i++)
        free(ow->rounds[i].rows);
    free(ow->rounds);
    memset(ow, 0, sizeof(*ow));
}
