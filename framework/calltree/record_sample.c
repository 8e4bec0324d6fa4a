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
#include "calltree_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Below this share of the samples in functions of the tree, the profile is not of
 * this program (another binary, another build): it is not used. */
#define MIN_MATCHED 50.0

/* The share of `name` in `report`, `perf report --sort sym -F overhead,sym` text:
 * lines "  70.44%  [.] leaf" (user-space symbols only; kernel lines are "[k]").
 * Several lines of one name (two static functions) add up. */
static double share_of(const char *report, const char *name)
{
    size_t len = strlen(name);
    double sum = 0;

    for (const char *line = report; line && *line;) {
        const char *end = strchr(line, '\n'), *tag;
        size_t n = end ? (size_t)(end - line) : strlen(line);
        char *num_end;
        double pct = strtod(line, &num_end);
        if (num_end != line && *num_end == '%' && (tag = strstr(num_end, "[.] ")) &&
            tag < line + n) {
            const char *sym = tag + 4;
            size_t symlen = (size_t)(line + n - sym);
            while (symlen && (sym[symlen - 1] == ' ' || sym[symlen - 1] == '\r'))
                symlen--;
            if (symlen == len && memcmp(sym, name, len) == 0 && pct >= 0 && isfinite(pct))
                sum += pct;
        }
        line = end ? end + 1 : NULL;
    }
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

int culprit_calltree__apply_samples(culprit_calltree *t, const char *report, int *applied)
{
    fn_share *fs = calloc(t->nfunctions ? t->nfunctions : 1, sizeof(*fs));
    double *own = calloc(t->nnodes ? 2 * t->nnodes : 2, sizeof(*own)), matched = 0, total = 0;
    double *measured = own ? own + (t->nnodes ? t->nnodes : 1) : NULL;

    *applied = 0;
    if (!fs || !own) {
        free(fs);
        free(own);
        return culprit_error_set(CULPRIT_ERROR, "out of memory applying samples to a call tree");
    }
    for (size_t f = 0; f < t->nfunctions; f++)
        matched += fs[f].pct = share_of(report, t->functions[f].name);
    for (size_t i = 1; i < t->nnodes; i++) {
        const culprit_calltree_node *n = &t->nodes[i];
        measured[i] = own_time(t, i);
        fs[n->function].weight += measured[i];
        fs[n->function].calls += (double)n->calls;
        if (n->depth == 1 && !isnan(n->inclusive_ns))
            total += n->inclusive_ns;
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
    }
    free(fs);
    free(own);
    return 0;
}
