/*
 * The sampling cross-check of culprit_calltree_record() (docs/calltree.md,
 * "Unbiased times"): the uninstrumented baseline is profiled with `perf record`,
 * and each function's share of the samples, times the tree's total, becomes its
 * exclusive time. The level runs' clock windows cannot time a 20 ns function to
 * better than several ns (the hooks' own instructions overlap the function's work
 * more or less, depending on the code), while samples of the program that has no
 * hooks at all carry no such bias. The call tree keeps what only instrumentation
 * gives: the call paths, the counts and the split of a function's time between its
 * call paths (in proportion to their measured exclusive times); inclusive times
 * are then rebuilt bottom-up, so the tree stays consistent.
 */
#define _GNU_SOURCE /* qsort_r, asprintf */
#include "calltree_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Below this share of the samples in functions of the tree, the profile is not of
 * this program (another binary, another build): it is not used. */
#define MIN_MATCHED 50.0

/* One user-space line of the profile: a symbol (in the report's text) and its share. */
typedef struct {
    const char *sym;
    size_t len;
    double pct;
} sample_row;

static int compare_rows(const void *x, const void *y)
{
    const sample_row *a = x, *b = y;
    int c = memcmp(a->sym, b->sym, a->len < b->len ? a->len : b->len);
    return c ? c : (a->len > b->len) - (a->len < b->len);
}

/* The rows of `report`, `perf report --sort sym -F overhead,sym` text: lines
 * "  70.44%  [.] leaf" (user-space symbols; kernel lines are "[k]"), sorted by
 * symbol, so that each function is one binary search. */
static int parse_report(sample_row **out, size_t *n, const char *report)
{
    size_t cap = 0;

    *out = NULL;
    *n = 0;
    for (const char *line = report; line && *line;) {
        const char *end = strchr(line, '\n'), *tag;
        const char *stop = end ? end : line + strlen(line);
        char *num_end;
        double pct = strtod(line, &num_end);
        if (num_end != line && *num_end == '%' && pct >= 0 && isfinite(pct) &&
            (tag = strstr(num_end, "[.] ")) && tag < stop) {
            const char *sym = tag + 4;
            while (stop > sym && (stop[-1] == ' ' || stop[-1] == '\r'))
                stop--;
            if (*n == cap) {
                sample_row *grown = realloc(*out, (cap = cap ? 2 * cap : 64) * sizeof(**out));
                if (!grown)
                    return culprit_error_set(CULPRIT_ERROR, "out of memory reading a profile");
                *out = grown;
            }
            (*out)[(*n)++] = (sample_row){sym, (size_t)(stop - sym), pct};
        }
        line = end ? end + 1 : NULL;
    }
    if (*n)
        qsort(*out, *n, sizeof(**out), compare_rows);
    return 0;
}

/* The share of the symbol `name` (several rows of one name add up). */
static double share_of(const sample_row *rows, size_t n, const char *name)
{
    sample_row key = {name, strlen(name), 0};
    const sample_row *hit = n ? bsearch(&key, rows, n, sizeof(*rows), compare_rows) : NULL;
    double sum = 0;

    if (!hit)
        return 0;
    while (hit > rows && compare_rows(hit - 1, &key) == 0)
        hit--;
    for (; hit < rows + n && compare_rows(hit, &key) == 0; hit++)
        sum += hit->pct;
    return sum;
}

/* A node's exclusive time from its inclusive and its children's, at least 0. */
static double own_time(const culprit_calltree *t, size_t i)
{
    const culprit_calltree_node *n = &t->nodes[i];
    double x = isnan(n->inclusive_ns) ? 0 : n->inclusive_ns;
    for (size_t c = 0; c < n->nchildren; c++)
        if (!isnan(t->nodes[n->children[c]].inclusive_ns))
            x -= t->nodes[n->children[c]].inclusive_ns;
    return x > 0 ? x : 0;
}

/* Per function: its sampled share (pct), the sum of its nodes' own times (weight)
 * and calls, for splitting the share between its call paths. */
typedef struct {
    double pct, weight, calls;
} fn_share;

/*
 * The new exclusive time of each node (into `own`; `measured` holds the clock's):
 * its function's samples, as a share of the tree's total, split between the
 * function's nodes. The samples outside the tree's functions (uninstrumented
 * library code such as memcpy, the kernel) are the time of whichever nodes called
 * them, which a flat profile does not tell: that remainder goes to the nodes whose
 * measured own time exceeds their sampled one, in proportion to the excess (to all
 * nodes in proportion to their time when none does).
 */
static void split_shares(const culprit_calltree *t, const fn_share *fs, double total,
                         const double *measured, double *own)
{
    double sampled = 0, excess = 0, rest;

    for (size_t i = 1; i < t->nnodes; i++) {
        const fn_share *f = &fs[t->nodes[i].function];
        double e = f->pct / 100.0 * total;
        own[i] = f->weight > 0  ? e * measured[i] / f->weight
                 : f->calls > 0 ? e * (double)t->nodes[i].calls / f->calls
                                : 0;
        sampled += own[i];
        excess += measured[i] > own[i] ? measured[i] - own[i] : 0;
    }
    rest = total - sampled;
    for (size_t i = 1; i < t->nnodes && rest > 0; i++) {
        if (excess > 0)
            own[i] += measured[i] > own[i] ? rest * (measured[i] - own[i]) / excess : 0;
        else if (sampled > 0)
            own[i] += rest * own[i] / sampled;
    }
}

static int compare_names(const void *x, const void *y, void *tree)
{
    const culprit_calltree *t = tree;
    return strcmp(t->functions[*(const size_t *)x].name, t->functions[*(const size_t *)y].name);
}

/* Each function's share (fs[f].pct); functions of one name (static functions of
 * two files: a flat profile names symbols only) share their symbol's samples in
 * proportion to their measured own times. Returns the share of the samples in the
 * tree's functions, or -1 when out of memory. */
static double share_functions(const culprit_calltree *t, fn_share *fs, const sample_row *rows,
                              size_t nrows)
{
    size_t *order = malloc((t->nfunctions ? t->nfunctions : 1) * sizeof(*order));
    double matched = 0;

    if (!order)
        return -1;
    for (size_t f = 0; f < t->nfunctions; f++)
        order[f] = f;
    qsort_r(order, t->nfunctions, sizeof(*order), compare_names, (void *)t);
    for (size_t a = 0, b; a < t->nfunctions; a = b) { /* [a, b): one name */
        const char *name = t->functions[order[a]].name;
        double pct = share_of(rows, nrows, name), group = 0, called = 0;
        for (b = a; b < t->nfunctions && strcmp(t->functions[order[b]].name, name) == 0; b++) {
            group += fs[order[b]].weight;
            called += fs[order[b]].calls > 0;
        }
        for (size_t k = a; k < b; k++) {
            const fn_share *f = &fs[order[k]];
            fs[order[k]].pct = group > 0      ? pct * f->weight / group
                               : f->calls > 0 ? pct / called
                                              : 0;
        }
        matched += pct;
    }
    free(order);
    return matched;
}

int culprit_calltree__apply_samples(culprit_calltree *t, const char *report, int *applied)
{
    fn_share *fs = calloc(t->nfunctions ? t->nfunctions : 1, sizeof(*fs));
    sample_row *rows = NULL;
    size_t nrows = 0;
    int error = 0;
    double *own = calloc(t->nnodes ? 2 * t->nnodes : 2, sizeof(*own)), matched = 0, total = 0;
    double *measured = own ? own + (t->nnodes ? t->nnodes : 1) : NULL;

    *applied = 0;
    if (!fs || !own) {
        error = culprit_error_set(CULPRIT_ERROR, "out of memory applying samples to a call tree");
        goto cleanup;
    }
    if ((error = parse_report(&rows, &nrows, report)) < 0)
        goto cleanup;
    for (size_t i = 1; i < t->nnodes; i++) {
        const culprit_calltree_node *n = &t->nodes[i];
        measured[i] = own_time(t, i);
        fs[n->function].weight += measured[i];
        fs[n->function].calls += (double)n->calls;
    }
    total = culprit_calltree__total(t);
    if ((matched = share_functions(t, fs, rows, nrows)) < 0) {
        error = culprit_error_set(CULPRIT_ERROR, "out of memory applying samples to a call tree");
        goto cleanup;
    }
    if (matched >= MIN_MATCHED && total > 0) {
        split_shares(t, fs, total, measured, own);
        /* Inclusive = own + the children's, deepest first; per-call spreads scaled. */
        for (size_t i = t->nnodes; i-- > 1;) {
            culprit_calltree_node *n = &t->nodes[i];
            double incl = own[i], old = n->inclusive_ns;
            for (size_t c = 0; c < n->nchildren; c++)
                incl += t->nodes[n->children[c]].inclusive_ns;
            if (n->calls == 0)
                continue;
            if (old > 0 && !isnan(old))
                n->inclusive_sq_ns2 *= (incl / old) * (incl / old);
            else
                n->inclusive_sq_ns2 = incl * incl / (double)n->calls;
            n->inclusive_ns = incl;
        }
        *applied = 1;
    } else if (matched < MIN_MATCHED) {
        /* Say why: a profile of mostly other code (libc's malloc, the kernel) would
         * hand the tree's functions time they did not spend. */
        free(t->unsampled);
        if (asprintf(&t->unsampled,
                     "%.0f%% of the plain build's samples fall in the call tree's functions, "
                     "under the %.0f%% needed (the rest in code the tree does not see: the C "
                     "library, the kernel, functions inlined in the plain build)",
                     matched, MIN_MATCHED) < 0)
            t->unsampled = NULL;
    }
cleanup:
    free(rows);
    free(fs);
    free(own);
    return error;
}
