/*
 * The association-rule detector of Foo, Jiang, Adams, Hassan, Zou and Flora
 * (ICSM 2010, §IV): learn from the history of passing runs which counter levels go
 * together ("when wall time and CPU are medium, bytes written are medium"), and
 * flag the counters of the new run that break those habits.
 *
 *   - Windows: the observations of a run are cut into windows of `window`
 *     consecutive observations, each represented by its median per counter (the
 *     paper's time intervals; a repetition or a load-test interval is already one).
 *   - Discretization (Figure 5): per counter, from the history's windows, medium is
 *     median +- 1 sd, low below, high above.
 *   - Apriori (Agrawal & Srikant 1994) finds the itemsets of (counter, level) items
 *     with support >= min_support; a rule premise => consequent from each with
 *     confidence >= min_confidence. The consequent is one item (the paper's
 *     example, Figure 6), and itemsets are capped at max_itemset items: with a
 *     dozen counters that are mostly "medium", every subset would be frequent.
 *   - Confidence change (eq. 1): 1 - cosine of (conf_b, 1 - conf_b) and
 *     (conf_n, 1 - conf_n); above the threshold the rule's consequent counter is
 *     flagged. A rule whose premise never occurs in the new run has no confidence
 *     there and is not judged: the premise's counters changed, and rules in which
 *     they are the consequent say so.
 *   - Severity (eq. 3): the fraction of the new run's windows in which the counter
 *     is flagged, i.e. in which one of its flagged rules is violated (the premise
 *     holds, the consequent does not).
 *   - A counter constant within every earlier run (max RSS, a level) is left out:
 *     its windows only say which run they came from.
 */
#include "culprit/core.h"
#include "culprit/detect.h"
#include "culprit/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define KEEP_RULES 10 /* violated rules kept per counter for the report */

int culprit_detect_rules_options_init(culprit_rules_options *opts, unsigned int version)
{
    static const culprit_rules_options defaults = CULPRIT_RULES_OPTIONS_INIT;

    return culprit_options_init_from(opts, &defaults, sizeof(defaults), version,
                                     CULPRIT_RULES_OPTIONS_VERSION, "rules");
}

const char *culprit_detect_level_name(culprit_level level)
{
    switch (level) {
    case CULPRIT_LEVEL_LOW:
        return "low";
    case CULPRIT_LEVEL_MEDIUM:
        return "medium";
    case CULPRIT_LEVEL_HIGH:
        return "high";
    }
    return "?";
}

culprit_level culprit_detect_rules_level(double x, double median, double sd)
{
    if (x < median - sd)
        return CULPRIT_LEVEL_LOW;
    if (x > median + sd)
        return CULPRIT_LEVEL_HIGH;
    return CULPRIT_LEVEL_MEDIUM;
}

double culprit_detect_rules_confidence_change(double b, double n)
{
    double dot = b * n + (1 - b) * (1 - n);
    double norms = sqrt(b * b + (1 - b) * (1 - b)) * sqrt(n * n + (1 - n) * (1 - n));
    double cosine = dot / norms;
    /* Both norms are >= 1/sqrt(2): never a division by zero. Clamp rounding. */
    return cosine >= 1 ? 0 : 1 - cosine;
}

/* ------------------------------------------------------------------ Apriori --- */

#define MAX_ITEMS 8

typedef struct {
    size_t n;
    culprit_item items[MAX_ITEMS]; /* sorted by (counter, level); distinct counters */
    size_t count;                  /* transactions containing it */
} itemset;

typedef struct {
    itemset *v;
    size_t n, cap;
} itemsets;

static int push_set(itemsets *s, const itemset *x)
{
    int error;

    if ((error = culprit_array_grow(&s->v, &s->cap, s->n, sizeof(*s->v), 64)) < 0)
        return error;
    s->v[s->n++] = *x;
    return 0;
}

static int item_cmp(culprit_item a, culprit_item b)
{
    if (a.counter != b.counter)
        return a.counter < b.counter ? -1 : 1;
    return a.level < b.level ? -1 : a.level > b.level;
}

static int contains(const unsigned char *row, const culprit_item *items, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (row[items[i].counter] != items[i].level)
            return 0;
    return 1;
}

static size_t count_in(const unsigned char *levels, size_t ntrans, size_t k,
                       const culprit_item *items, size_t n)
{
    size_t c = 0;
    for (size_t t = 0; t < ntrans; t++)
        c += contains(levels + t * k, items, n);
    return c;
}

/* Index of the itemset equal to `items` among [from, to) of s, or (size_t)-1. */
static size_t find_set(const itemsets *s, size_t from, size_t to, const culprit_item *items,
                       size_t n)
{
    for (size_t i = from; i < to; i++) {
        if (s->v[i].n != n)
            continue;
        size_t j = 0;
        while (j < n && item_cmp(s->v[i].items[j], items[j]) == 0)
            j++;
        if (j == n)
            return i;
    }
    return (size_t)-1;
}

int culprit_detect_rules_mine(culprit_rule **out, size_t *nout, const unsigned char *levels,
                              size_t ntrans, size_t k, double min_support, double min_confidence,
                              size_t max_itemset)
{
    itemsets all = {NULL, 0, 0};
    culprit_rule *rules = NULL;
    size_t nrules = 0, cap = 0, level_start = 0, level_end;
    double need = min_support * (double)ntrans;
    int error = 0;

    *out = NULL;
    *nout = 0;
    if (max_itemset < 2)
        max_itemset = 2;
    if (max_itemset > MAX_ITEMS)
        max_itemset = MAX_ITEMS;
    if (ntrans == 0)
        return 0;
    /* Frequent 1-itemsets. */
    for (size_t c = 0; c < k; c++)
        for (unsigned char l = 0; l < 3; l++) {
            itemset x = {1, {{(unsigned short)c, l}}, 0};
            x.count = count_in(levels, ntrans, k, x.items, 1);
            if ((double)x.count >= need && x.count > 0 && (error = push_set(&all, &x)) < 0)
                goto cleanup;
        }
    level_end = all.n;
    /* Level-wise: join two frequent s-itemsets sharing their first s - 1 items. */
    for (size_t s = 1; s < max_itemset && level_end > level_start; s++) {
        size_t next_start = all.n;
        for (size_t i = level_start; i < level_end; i++)
            for (size_t j = i + 1; j < level_end; j++) {
                const itemset *a = &all.v[i], *b = &all.v[j];
                itemset x;
                size_t p = 0;
                while (p + 1 < s && item_cmp(a->items[p], b->items[p]) == 0)
                    p++;
                /* Not a join pair, or two levels of one counter (never together). */
                if (p + 1 != s || a->items[s - 1].counter == b->items[s - 1].counter)
                    continue;
                if (a->items[s - 1].counter > b->items[s - 1].counter) {
                    const itemset *t = a;
                    a = b;
                    b = t;
                }
                x.n = s + 1;
                memcpy(x.items, a->items, s * sizeof(culprit_item));
                x.items[s] = b->items[s - 1];
                /* Apriori pruning: every s-subset must be frequent. */
                int keep = 1;
                for (size_t drop = 0; keep && drop + 2 < x.n; drop++) {
                    culprit_item sub[MAX_ITEMS];
                    size_t m = 0;
                    for (size_t q = 0; q < x.n; q++)
                        if (q != drop)
                            sub[m++] = x.items[q];
                    keep = find_set(&all, level_start, level_end, sub, m) != (size_t)-1;
                }
                if (!keep)
                    continue;
                x.count = count_in(levels, ntrans, k, x.items, x.n);
                if ((double)x.count >= need && x.count > 0 && (error = push_set(&all, &x)) < 0)
                    goto cleanup;
            }
        level_start = next_start;
        level_end = all.n;
    }
    /* Rules with one consequent from every itemset of two items or more. */
    for (size_t i = 0; i < all.n; i++) {
        const itemset *x = &all.v[i];
        if (x->n < 2)
            continue;
        for (size_t c = 0; c < x->n; c++) {
            culprit_rule r;
            size_t m = 0, at;
            memset(&r, 0, sizeof(r));
            for (size_t q = 0; q < x->n; q++)
                if (q != c)
                    r.premise[m++] = x->items[q];
            r.npremise = m;
            r.consequent = x->items[c];
            if ((at = find_set(&all, 0, all.n, r.premise, m)) == (size_t)-1)
                continue; /* cannot happen: subsets of frequent sets are frequent */
            r.support = (double)x->count / (double)ntrans;
            r.confidence = (double)x->count / (double)all.v[at].count;
            if (r.confidence < min_confidence)
                continue;
            if ((error = culprit_array_grow(&rules, &cap, nrules, sizeof(*rules), 64)) < 0)
                goto cleanup;
            rules[nrules++] = r;
        }
    }
    *out = rules;
    *nout = nrules;
    rules = NULL;
cleanup:
    free(rules);
    free(all.v);
    return error;
}

/* ----------------------------------------------------------------- detector --- */

void culprit_detect_rules_verdict_dispose(culprit_rules_verdict *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->ncounters; i++) {
        for (size_t r = 0; r < v->counters[i].nrules; r++)
            free(v->counters[i].rules[r].text);
        free(v->counters[i].rules);
        free(v->counters[i].counter);
    }
    free(v->counters);
    free(v->message);
    memset(v, 0, sizeof(*v));
}

/* 1 when column c of t takes more than one value. */
static int varies_within(const culprit_counter_table *t, int c)
{
    for (size_t i = 1; i < t->n; i++)
        if (t->values[c][i] != t->values[c][0])
            return 1;
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Window medians of column `x` (n values) into out; returns the number of windows. */
static size_t windows_of(double *out, const double *x, size_t n, size_t window, double *scratch)
{
    size_t nw = n / window;
    for (size_t w = 0; w < nw; w++) {
        memcpy(scratch, x + w * window, window * sizeof(double));
        qsort(scratch, window, sizeof(double), cmp_double);
        out[w] = culprit_stats_quantile_sorted(scratch, window, 0.5);
    }
    return nw;
}

static char *rule_text(const culprit_rule *r, const char *const *names)
{
    culprit_buf b = CULPRIT_BUF_INIT;
    for (size_t i = 0; i < r->npremise; i++)
        culprit_buf_printf(&b, "%s%s=%s", i ? ", " : "", names[r->premise[i].counter],
                           culprit_detect_level_name((culprit_level)r->premise[i].level));
    culprit_buf_printf(&b, " => %s=%s", names[r->consequent.counter],
                       culprit_detect_level_name((culprit_level)r->consequent.level));
    return culprit_buf_detach(&b);
}

static int by_change(const void *a, const void *b)
{
    double x = ((const culprit_violated_rule *)a)->change;
    double y = ((const culprit_violated_rule *)b)->change;
    return x < y ? 1 : x > y ? -1 : 0;
}

static int by_severity(const void *a, const void *b)
{
    const culprit_flagged_counter *x = a, *y = b;
    if (x->severity != y->severity)
        return x->severity < y->severity ? 1 : -1;
    return strcmp(x->counter, y->counter);
}

static int message_of(culprit_rules_verdict *v, const culprit_rules_options *opts)
{
    culprit_buf b = CULPRIT_BUF_INIT;

    if (v->ncounters == 0)
        culprit_buf_printf(&b, "%zu association rules from %zu runs, none violated", v->nrules,
                           v->history_runs);
    else {
        culprit_buf_printf(&b, "%s rules violated:", v->flagged ? "association" : "a few");
        for (size_t i = 0; i < v->ncounters && i < 5; i++)
            culprit_buf_printf(&b, "%s %s (severity %.2f, %zu rule%s)", i ? "," : "",
                               v->counters[i].counter, v->counters[i].severity,
                               v->counters[i].nviolated, v->counters[i].nviolated == 1 ? "" : "s");
        if (v->ncounters > 5)
            culprit_buf_printf(&b, " and %zu more", v->ncounters - 5);
        if (!v->flagged)
            culprit_buf_printf(&b, "; below severity %.2f", opts->min_severity);
    }
    v->message = culprit_buf_detach(&b);
    return v->message ? 0 : CULPRIT_ERROR_NOMEM();
}

/* The working data of one culprit_detect_rules() call. */
typedef struct {
    size_t nhistory;    /* earlier runs */
    size_t k;           /* counters judged: present everywhere, varying somewhere */
    const char **names; /* their names (borrowed from `now`) */
    int **where;        /* where[h][c]: column of counter c in history h; h == nhistory: now */
    size_t nhw, nnw;    /* windows of the history, of the new run */
    /* Window medians, column-major: vals[c * nw + w]; levels row-major: [w * k + c]. */
    double *hist_vals, *new_vals, *scratch, *median, *sd;
    unsigned char *hist_levels, *new_levels, *marked;
} rules_work;

static void rules_work_dispose(rules_work *w)
{
    for (size_t h = 0; w->where && h <= w->nhistory; h++)
        free(w->where[h]);
    free(w->where);
    free(w->names);
    free(w->hist_vals);
    free(w->new_vals);
    free(w->scratch);
    free(w->median);
    free(w->sd);
    free(w->hist_levels);
    free(w->new_levels);
    free(w->marked);
}

/* The counters present everywhere (w->names, w->where, w->k). */
static int common_counters(rules_work *w, const culprit_counter_table *history,
                           const culprit_counter_table *now)
{
    size_t nhistory = w->nhistory;
    if (!(w->names = calloc(now->ncounters + 1, sizeof(char *))) ||
        !(w->where = calloc(nhistory + 1, sizeof(int *))))
        return CULPRIT_ERROR_NOMEM();
    for (size_t h = 0; h <= nhistory; h++)
        if (!(w->where[h] = calloc(now->ncounters + 1, sizeof(int))))
            return CULPRIT_ERROR_NOMEM();
    for (size_t c = 0; c < now->ncounters; c++) {
        int everywhere = 1, varies = 0;
        for (size_t h = 0; h < nhistory && everywhere; h++) {
            everywhere = (w->where[h][w->k] =
                              culprit_detect_counter_table_find(&history[h], now->names[c])) >= 0;
            varies |= everywhere && varies_within(&history[h], w->where[h][w->k]);
        }
        /* A level constant within every earlier run (max RSS) says which run a window
         * came from, not how counters move together; its run-to-run jitter would
         * violate every rule about it in every new run. */
        if (!everywhere || !varies)
            continue;
        w->where[nhistory][w->k] = (int)c;
        w->names[w->k++] = now->names[c];
    }
    return 0;
}

/* The window medians of every counter and their levels (low, medium, high). */
static int discretize(rules_work *w, const culprit_counter_table *history,
                      const culprit_counter_table *now, size_t window)
{
    size_t k = w->k, nhw = w->nhw, nnw = w->nnw, nhistory = w->nhistory;
    size_t longest = now->n;
    for (size_t h = 0; h < nhistory; h++)
        longest = history[h].n > longest ? history[h].n : longest;
    if (!(w->hist_vals = malloc(k * nhw * sizeof(double))) ||
        !(w->new_vals = malloc(k * nnw * sizeof(double))) ||
        !(w->scratch = malloc((longest > nhw ? longest : nhw) * sizeof(double))) ||
        !(w->median = malloc(k * sizeof(double))) || !(w->sd = malloc(k * sizeof(double))) ||
        !(w->hist_levels = malloc(k * nhw)) || !(w->new_levels = malloc(k * nnw)) ||
        !(w->marked = calloc(k * nnw, 1)))
        return CULPRIT_ERROR_NOMEM();
    for (size_t c = 0; c < k; c++) {
        size_t at = 0;
        culprit_welford wf = {0};
        for (size_t h = 0; h < nhistory; h++)
            at += windows_of(w->hist_vals + c * nhw + at, history[h].values[w->where[h][c]],
                             history[h].n, window, w->scratch);
        windows_of(w->new_vals + c * nnw, now->values[w->where[nhistory][c]], now->n, window,
                   w->scratch);
        /* Figure 5: the levels come from the historical dataset. */
        memcpy(w->scratch, w->hist_vals + c * nhw, nhw * sizeof(double));
        qsort(w->scratch, nhw, sizeof(double), cmp_double);
        w->median[c] = culprit_stats_quantile_sorted(w->scratch, nhw, 0.5);
        for (size_t i = 0; i < nhw; i++)
            culprit_stats_welford_add(&wf, w->hist_vals[c * nhw + i]);
        w->sd[c] = culprit_stats_welford_sd(&wf);
        for (size_t i = 0; i < nhw; i++)
            w->hist_levels[i * k + c] = (unsigned char)culprit_detect_rules_level(
                w->hist_vals[c * nhw + i], w->median[c], w->sd[c]);
        for (size_t i = 0; i < nnw; i++)
            w->new_levels[i * k + c] = (unsigned char)culprit_detect_rules_level(
                w->new_vals[c * nnw + i], w->median[c], w->sd[c]);
    }
    return 0;
}

/* The flagged counter `name` of `out`, added when it is not there yet; NULL: no memory. */
static culprit_flagged_counter *flagged_counter(culprit_rules_verdict *out, const char *name)
{
    size_t f;
    for (f = 0; f < out->ncounters && strcmp(out->counters[f].counter, name) != 0; f++)
        ;
    if (f == out->ncounters) {
        culprit_flagged_counter *grown = realloc(out->counters, (f + 1) * sizeof(*out->counters));
        if (!grown)
            return NULL;
        out->counters = grown;
        memset(&grown[f], 0, sizeof(grown[f]));
        out->ncounters++;
        if (!(grown[f].counter = culprit_strdup(name)) ||
            !(grown[f].rules = calloc(KEEP_RULES + 1, sizeof(culprit_violated_rule))))
            return NULL;
    }
    return &out->counters[f];
}

/* Judges one rule on the new run: flags its consequent when its confidence changed. */
static int judge_rule(culprit_rules_verdict *out, rules_work *w, const culprit_rule *rule,
                      const culprit_rules_options *opts)
{
    size_t premise = 0, both = 0, k = w->k, nnw = w->nnw;
    for (size_t t = 0; t < nnw; t++) {
        const unsigned char *row = w->new_levels + t * k;
        if (!contains(row, rule->premise, rule->npremise))
            continue;
        premise++;
        both += row[rule->consequent.counter] == rule->consequent.level;
    }
    if (premise == 0)
        return 0;
    double conf_n = (double)both / (double)premise;
    double change = culprit_detect_rules_confidence_change(rule->confidence, conf_n);
    if (!(change > opts->threshold))
        return 0;
    size_t c = rule->consequent.counter;
    for (size_t t = 0; t < nnw; t++) {
        const unsigned char *row = w->new_levels + t * k;
        if (contains(row, rule->premise, rule->npremise) && row[c] != rule->consequent.level)
            w->marked[c * nnw + t] = 1;
    }
    culprit_flagged_counter *fc = flagged_counter(out, w->names[c]);
    if (!fc)
        return CULPRIT_ERROR_NOMEM();
    culprit_violated_rule vr = {NULL, rule->confidence, conf_n, change};
    fc->nviolated++;
    /* Keep the KEEP_RULES largest changes: insert, sort, drop the smallest. */
    if (fc->nrules == KEEP_RULES && !(change > fc->rules[KEEP_RULES - 1].change))
        return 0;
    if (!(vr.text = rule_text(rule, w->names)))
        return CULPRIT_ERROR_NOMEM();
    if (fc->nrules == KEEP_RULES)
        free(fc->rules[--fc->nrules].text);
    fc->rules[fc->nrules++] = vr;
    qsort(fc->rules, fc->nrules, sizeof(*fc->rules), by_change);
    return 0;
}

/* Severity (eq. 3) of each flagged counter: the fraction of windows it is violated in. */
static void severities(culprit_rules_verdict *out, const rules_work *w,
                       const culprit_rules_options *opts)
{
    for (size_t f = 0; f < out->ncounters; f++) {
        int c = -1;
        size_t hits = 0;
        for (size_t i = 0; i < w->k; i++)
            if (strcmp(w->names[i], out->counters[f].counter) == 0)
                c = (int)i;
        for (size_t t = 0; t < w->nnw; t++)
            hits += w->marked[(size_t)c * w->nnw + t];
        out->counters[f].severity = (double)hits / (double)w->nnw;
        out->flagged |= out->counters[f].severity >= opts->min_severity;
    }
    if (out->ncounters > 1)
        qsort(out->counters, out->ncounters, sizeof(*out->counters), by_severity);
}

int culprit_detect_rules(culprit_rules_verdict *out, const culprit_counter_table *history,
                         size_t nhistory, const culprit_counter_table *now,
                         const culprit_rules_options *opts)
{
    culprit_rules_options defaults = CULPRIT_RULES_OPTIONS_INIT;
    rules_work w;
    size_t nrules = 0, window;
    culprit_rule *rules = NULL;
    int error = 0;

    memset(out, 0, sizeof(*out));
    memset(&w, 0, sizeof(w));
    if (!opts)
        opts = &defaults;
    if (opts->version != CULPRIT_RULES_OPTIONS_VERSION)
        return culprit_options_check_version(opts->version, CULPRIT_RULES_OPTIONS_VERSION, "rules");
    window = opts->window ? opts->window : 1;
    out->history_runs = nhistory;
    w.nhistory = nhistory;
    if ((error = common_counters(&w, history, now)) < 0)
        goto cleanup;
    for (size_t h = 0; h < nhistory; h++)
        w.nhw += history[h].n / window;
    w.nnw = now->n / window;
    out->history_windows = w.nhw;
    out->new_windows = w.nnw;
    if (w.k == 0 || w.nnw < opts->min_windows || w.nhw < 2 * opts->min_windows) {
        culprit_buf why = CULPRIT_BUF_INIT;
        culprit_buf_printf(&why,
                           "association rules not judged: %zu windows in %zu earlier runs, %zu "
                           "now (at least %zu and %zu)",
                           w.nhw, nhistory, w.nnw, 2 * opts->min_windows, opts->min_windows);
        if (!(out->message = culprit_buf_detach(&why)))
            error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    if ((error = discretize(&w, history, now, window)) < 0 ||
        (error = culprit_detect_rules_mine(&rules, &nrules, w.hist_levels, w.nhw, w.k,
                                           opts->min_support, opts->min_confidence,
                                           opts->max_itemset)) < 0)
        goto cleanup;
    out->nrules = nrules;
    out->judged = 1;
    /* Judge every rule on the new run. */
    for (size_t r = 0; r < nrules; r++)
        if ((error = judge_rule(out, &w, &rules[r], opts)) < 0)
            goto cleanup;
    severities(out, &w, opts);
    error = message_of(out, opts);
cleanup:
    if (error < 0)
        culprit_detect_rules_verdict_dispose(out);
    rules_work_dispose(&w);
    free(rules);
    return error;
}
