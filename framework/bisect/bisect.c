/*
 * The bisection algorithm of Heger et al. 2013, section 4.1 (after git bisect's
 * find_bisection by Torvalds and Hamano): over the candidates (ancestors-or-self
 * of the bad end that are not ancestors-or-self of a good end), the next commit
 * to test is the one of highest weight
 *
 *     w = min(a + 1, N - (a + 1))                      (eq. 1)
 *
 * with a its ancestors among the candidates and N their number: testing it
 * leaves a + 1 candidates when it is bad and N - (a + 1) when it is good, so the
 * highest w is the best worst case. Ties go to the lowest index (git keeps the
 * first of its rev-list order). Skipped commits stay candidates but are never
 * proposed; the next best weight is taken instead (git additionally moves away
 * from skipped areas pseudo-randomly; we stay deterministic).
 *
 * Ancestor counts: one bitset per candidate, filled in topological order as the
 * union of its parents' bitsets plus itself, so a = popcount - 1. Merges are
 * exact this way (a shared ancestor is counted once), which plain path counting
 * is not. Per step: O((N + E) * N / 64) word operations and N^2 / 8 bytes; for
 * N = 10,000 that is about 3 M operations and 12.5 MB, and N halves each step.
 *
 * The candidate set is convex (a path between two candidates stays inside), so
 * every walk here follows parents among candidates only; culprit_bisect_check()
 * verifies that property.
 */
#include "culprit/bisect.h"
#include "culprit/core.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct culprit_bisect {
    size_t n;
    size_t *off; /* parents of i: par[off[i] .. off[i+1]), in-range only */
    size_t *par;
    size_t *topo;        /* every commit, parents before children */
    unsigned char *cand; /* 1: may still be the first bad commit */
    unsigned char *skip; /* 1: marked skip */
    size_t ncand;
    size_t bad;
    size_t tested;
    size_t *goods;
    size_t ngoods;
    size_t agoods;
};

/* ---- construction -------------------------------------------------------- */

/* Copies the in-range parents into CSR form and orders the commits (Kahn). */
static int load_dag(culprit_bisect *b, const culprit_bisect_dag *dag)
{
    size_t n = dag->n, i, k, e = 0, head = 0, tail = 0;
    size_t *pending = NULL, *coff = NULL, *child = NULL, *cfill = NULL;
    int error = CULPRIT_ERROR;

    b->n = n;
    if (!(b->off = calloc(n + 1, sizeof(size_t))))
        goto oom;
    for (i = 0; i < n; i++) {
        size_t np = dag->nparents ? dag->nparents[i] : 0;
        for (k = 0; k < np; k++)
            if (dag->parents[i][k] < n)
                e++;
        b->off[i + 1] = e;
    }
    if (!(b->par = malloc((e ? e : 1) * sizeof(size_t))) ||
        !(b->topo = malloc((n ? n : 1) * sizeof(size_t))) ||
        !(pending = calloc(n ? n : 1, sizeof(size_t))) || !(coff = calloc(n + 1, sizeof(size_t))) ||
        !(child = malloc((e ? e : 1) * sizeof(size_t))) ||
        !(cfill = calloc(n ? n : 1, sizeof(size_t))))
        goto oom;
    for (i = 0, e = 0; i < n; i++) {
        size_t np = dag->nparents ? dag->nparents[i] : 0;
        for (k = 0; k < np; k++)
            if (dag->parents[i][k] < n) {
                b->par[e++] = dag->parents[i][k];
                coff[dag->parents[i][k] + 1]++;
            }
        pending[i] = b->off[i + 1] - b->off[i];
    }
    for (i = 0; i < n; i++)
        coff[i + 1] += coff[i];
    for (i = 0; i < n; i++)
        for (k = b->off[i]; k < b->off[i + 1]; k++) {
            size_t p = b->par[k];
            child[coff[p] + cfill[p]++] = i;
        }
    for (i = 0; i < n; i++)
        if (pending[i] == 0)
            b->topo[tail++] = i;
    while (head < tail) {
        size_t v = b->topo[head++];
        for (k = coff[v]; k < coff[v + 1]; k++)
            if (--pending[child[k]] == 0)
                b->topo[tail++] = child[k];
    }
    if (tail != n) {
        error = culprit_error_set(CULPRIT_EINVALID, "bisect: the commit graph has a cycle");
        goto cleanup;
    }
    error = 0;
    goto cleanup;
oom:
    error = culprit_error_set(CULPRIT_ERROR, "bisect: out of memory");
cleanup:
    free(pending);
    free(coff);
    free(child);
    free(cfill);
    return error;
}

/*
 * Sets flag[] to `value` on `from` and its ancestors. With `within`, the walk
 * only enters commits where within[] is set (candidates). `stack` holds n entries.
 * Returns the number of commits whose flag changed.
 */
static size_t walk_ancestors(const culprit_bisect *b, unsigned char *flag, unsigned char value,
                             const unsigned char *within, size_t from, size_t *stack,
                             unsigned char *seen)
{
    size_t top = 0, changed = 0, k;

    memset(seen, 0, b->n);
    stack[top++] = from;
    seen[from] = 1;
    while (top > 0) {
        size_t v = stack[--top];
        if (flag[v] != value) {
            flag[v] = value;
            changed++;
        }
        for (k = b->off[v]; k < b->off[v + 1]; k++) {
            size_t p = b->par[k];
            if (seen[p] || (within && !within[p]))
                continue;
            seen[p] = 1;
            stack[top++] = p;
        }
    }
    return changed;
}

int culprit_bisect_new_range(culprit_bisect **out, const culprit_bisect_dag *dag, size_t bad,
                             const size_t *good, size_t ngood)
{
    culprit_bisect *b = NULL;
    size_t *stack = NULL;
    unsigned char *seen = NULL;
    size_t i;
    int error = CULPRIT_ERROR;

    *out = NULL;
    if (!dag || bad >= dag->n)
        return culprit_error_set(CULPRIT_EINVALID, "bisect: bad commit %zu outside the DAG", bad);
    for (i = 0; i < ngood; i++)
        if (good[i] >= dag->n)
            return culprit_error_set(CULPRIT_EINVALID, "bisect: good commit %zu outside the DAG",
                                     good[i]);
    if (!(b = calloc(1, sizeof(*b)))) {
        error = culprit_error_set(CULPRIT_ERROR, "bisect: out of memory");
        goto cleanup;
    }
    if ((error = load_dag(b, dag)) < 0)
        goto cleanup;
    if (!(b->cand = calloc(b->n, 1)) || !(b->skip = calloc(b->n, 1)) ||
        !(stack = malloc(b->n * sizeof(size_t))) || !(seen = malloc(b->n))) {
        error = culprit_error_set(CULPRIT_ERROR, "bisect: out of memory");
        goto cleanup;
    }
    b->ncand = walk_ancestors(b, b->cand, 1, NULL, bad, stack, seen);
    for (i = 0; i < ngood; i++)
        b->ncand -= walk_ancestors(b, b->cand, 0, NULL, good[i], stack, seen);
    if (!b->cand[bad]) {
        error = culprit_error_set(CULPRIT_EINVALID,
                                  "bisect: bad commit %zu is an ancestor of a good one", bad);
        goto cleanup;
    }
    b->bad = bad;
    *out = b;
    b = NULL;
    error = 0;
cleanup:
    culprit_bisect_free(b);
    free(stack);
    free(seen);
    return error;
}

int culprit_bisect_new(culprit_bisect **out, const culprit_bisect_dag *dag, size_t bad)
{
    return culprit_bisect_new_range(out, dag, bad, NULL, 0);
}

void culprit_bisect_free(culprit_bisect *bisect)
{
    if (!bisect)
        return;
    free(bisect->off);
    free(bisect->par);
    free(bisect->topo);
    free(bisect->cand);
    free(bisect->skip);
    free(bisect->goods);
    free(bisect);
}

/* ---- weights (eq. 1) ----------------------------------------------------- */

/*
 * a for every candidate into anc[] (SIZE_MAX for the others): bitsets over the
 * candidates, filled in topological order (see the top of the file).
 */
static int count_ancestors(size_t *anc, const culprit_bisect *b)
{
    size_t m = b->ncand, words = (m + 63) / 64, i, j, k, c = 0;
    size_t *pos = NULL;
    uint64_t *bits = NULL;
    int error = 0;

    for (i = 0; i < b->n; i++)
        anc[i] = SIZE_MAX;
    if (m == 0)
        return 0;
    if (!(pos = malloc(b->n * sizeof(size_t))) || !(bits = calloc(m * words, sizeof(uint64_t)))) {
        error = culprit_error_set(CULPRIT_ERROR, "bisect: out of memory for %zu candidates", m);
        goto cleanup;
    }
    for (i = 0; i < b->n; i++) {
        size_t v = b->topo[i];
        pos[v] = b->cand[v] ? c++ : SIZE_MAX;
    }
    for (i = 0; i < b->n; i++) {
        size_t v = b->topo[i], count = 0;
        uint64_t *row;
        if (pos[v] == SIZE_MAX)
            continue;
        row = bits + pos[v] * words;
        for (k = b->off[v]; k < b->off[v + 1]; k++) {
            size_t p = b->par[k];
            const uint64_t *prow;
            if (pos[p] == SIZE_MAX)
                continue;
            prow = bits + pos[p] * words;
            /* Parents come earlier in topological order: only their words up to
             * their own position can be non-zero. */
            for (j = 0; j <= pos[p] / 64; j++)
                row[j] |= prow[j];
        }
        row[pos[v] / 64] |= (uint64_t)1 << (pos[v] % 64);
        for (j = 0; j <= pos[v] / 64; j++)
            count += (size_t)__builtin_popcountll(row[j]);
        anc[v] = count - 1;
    }
cleanup:
    free(pos);
    free(bits);
    return error;
}

/* Eq. 1; a + 1 <= N always holds for a candidate. */
static size_t weight_of(size_t a, size_t n)
{
    size_t below = a + 1, above = n - (a + 1);
    return below < above ? below : above;
}

int culprit_bisect_weights(size_t *weights, size_t *ancestors, const culprit_bisect *bisect)
{
    size_t *anc = NULL, i;
    int error;

    if (!(anc = malloc((bisect->n ? bisect->n : 1) * sizeof(size_t))))
        return culprit_error_set(CULPRIT_ERROR, "bisect: out of memory");
    if ((error = count_ancestors(anc, bisect)) < 0)
        goto cleanup;
    for (i = 0; i < bisect->n; i++) {
        if (ancestors)
            ancestors[i] = anc[i];
        if (weights)
            weights[i] = anc[i] == SIZE_MAX ? SIZE_MAX : weight_of(anc[i], bisect->ncand);
    }
cleanup:
    free(anc);
    return error;
}

/* ---- the search ---------------------------------------------------------- */

culprit_bisect_status culprit_bisect_status_get(const culprit_bisect *bisect)
{
    size_t i;

    if (bisect->ncand <= 1)
        return CULPRIT_BISECT_FOUND;
    for (i = 0; i < bisect->n; i++)
        if (bisect->cand[i] && !bisect->skip[i] && i != bisect->bad)
            return CULPRIT_BISECT_RUNNING;
    return CULPRIT_BISECT_AMBIGUOUS;
}

int culprit_bisect_next(size_t *out, const culprit_bisect *bisect)
{
    size_t *anc = NULL, i, best = SIZE_MAX, best_w = 0;
    int error;

    if (culprit_bisect_status_get(bisect) != CULPRIT_BISECT_RUNNING)
        return culprit_error_set(CULPRIT_ENOTFOUND, "bisect: nothing left to test");
    if (!(anc = malloc(bisect->n * sizeof(size_t))))
        return culprit_error_set(CULPRIT_ERROR, "bisect: out of memory");
    if ((error = count_ancestors(anc, bisect)) < 0)
        goto cleanup;
    /* Increasing index with a strict '>': the lowest index wins a tie. */
    for (i = 0; i < bisect->n; i++) {
        size_t w;
        if (!bisect->cand[i] || bisect->skip[i] || i == bisect->bad)
            continue;
        w = weight_of(anc[i], bisect->ncand);
        if (best == SIZE_MAX || w > best_w) {
            best = i;
            best_w = w;
        }
    }
    *out = best;
cleanup:
    free(anc);
    return error;
}

static int remember_good(culprit_bisect *b, size_t commit)
{
    int error;

    if ((error = culprit_array_grow(&b->goods, &b->agoods, b->ngoods, sizeof(*b->goods), 8)) < 0)
        return error;
    b->goods[b->ngoods++] = commit;
    return 0;
}

int culprit_bisect_mark(culprit_bisect *bisect, size_t commit, culprit_bisect_verdict mark)
{
    size_t *stack = NULL, i;
    unsigned char *keep = NULL, *seen = NULL;
    int error = 0;

    if (commit >= bisect->n || !bisect->cand[commit])
        return culprit_error_set(CULPRIT_EINVALID, "bisect: commit %zu is not a candidate", commit);
    if (commit == bisect->bad) {
        if (mark == CULPRIT_BISECT_BAD)
            return 0;
        return culprit_error_set(CULPRIT_EINVALID,
                                 "bisect: commit %zu is the bad end and cannot be %s", commit,
                                 mark == CULPRIT_BISECT_GOOD ? "good" : "skipped");
    }
    if (mark == CULPRIT_BISECT_SKIP) {
        bisect->skip[commit] = 1;
        bisect->tested++;
        return 0;
    }
    if (mark != CULPRIT_BISECT_GOOD && mark != CULPRIT_BISECT_BAD)
        return culprit_error_set(CULPRIT_EINVALID, "bisect: unknown mark %d", (int)mark);
    if (!(stack = malloc(bisect->n * sizeof(size_t))) || !(seen = malloc(bisect->n)) ||
        !(keep = calloc(bisect->n, 1))) {
        error = culprit_error_set(CULPRIT_ERROR, "bisect: out of memory");
        goto cleanup;
    }
    if (mark == CULPRIT_BISECT_GOOD) {
        if ((error = remember_good(bisect, commit)) < 0)
            goto cleanup;
        bisect->ncand -= walk_ancestors(bisect, bisect->cand, 0, bisect->cand, commit, stack, seen);
    } else {
        /* Bad: intersect the candidates with commit's ancestors-or-self. */
        walk_ancestors(bisect, keep, 1, bisect->cand, commit, stack, seen);
        bisect->ncand = 0;
        for (i = 0; i < bisect->n; i++) {
            bisect->cand[i] = bisect->cand[i] && keep[i];
            bisect->ncand += bisect->cand[i];
        }
        bisect->bad = commit;
    }
    bisect->tested++;
cleanup:
    free(stack);
    free(seen);
    free(keep);
    return error;
}

int culprit_bisect_run(culprit_bisect *bisect, culprit_bisect_decide_cb decide, void *payload)
{
    int error = 0;

    while (culprit_bisect_status_get(bisect) == CULPRIT_BISECT_RUNNING) {
        size_t commit;
        culprit_bisect_verdict mark;
        if ((error = culprit_bisect_next(&commit, bisect)) < 0)
            goto cleanup;
        if ((error = decide(&mark, bisect, commit, payload)) < 0)
            goto cleanup;
        if ((error = culprit_bisect_mark(bisect, commit, mark)) < 0)
            goto cleanup;
    }
cleanup:
    return error;
}

/* ---- queries ------------------------------------------------------------- */

size_t culprit_bisect_bad(const culprit_bisect *bisect)
{
    return bisect->bad;
}

size_t culprit_bisect_ncandidates(const culprit_bisect *bisect)
{
    return bisect->ncand;
}

size_t culprit_bisect_ncommits(const culprit_bisect *bisect)
{
    return bisect->n;
}

size_t culprit_bisect_tested(const culprit_bisect *bisect)
{
    return bisect->tested;
}

int culprit_bisect_is_candidate(const culprit_bisect *bisect, size_t commit)
{
    return commit < bisect->n && bisect->cand[commit];
}

int culprit_bisect_is_skipped(const culprit_bisect *bisect, size_t commit)
{
    return commit < bisect->n && bisect->skip[commit];
}

int culprit_bisect_range(size_t **out, size_t *n_out, const culprit_bisect *bisect)
{
    culprit_bisect_status status = culprit_bisect_status_get(bisect);
    size_t i, k = 0;

    *out = NULL;
    *n_out = 0;
    if (status == CULPRIT_BISECT_FOUND) {
        if (!(*out = malloc(sizeof(size_t))))
            return culprit_error_set(CULPRIT_ERROR, "bisect: out of memory");
        (*out)[0] = bisect->bad;
        *n_out = 1;
        return 0;
    }
    /* AMBIGUOUS: every candidate is skipped or the bad end, so both cases list
     * all candidates. */
    if (!(*out = malloc(bisect->ncand * sizeof(size_t))))
        return culprit_error_set(CULPRIT_ERROR, "bisect: out of memory");
    for (i = 0; i < bisect->n; i++)
        if (bisect->cand[i])
            (*out)[k++] = i;
    *n_out = k;
    return 0;
}

int culprit_bisect_goods(size_t **out, size_t *n_out, const culprit_bisect *bisect)
{
    *out = NULL;
    *n_out = 0;
    if (bisect->ngoods == 0)
        return 0;
    if (!(*out = malloc(bisect->ngoods * sizeof(size_t))))
        return culprit_error_set(CULPRIT_ERROR, "bisect: out of memory");
    memcpy(*out, bisect->goods, bisect->ngoods * sizeof(size_t));
    *n_out = bisect->ngoods;
    return 0;
}

/* ---- invariants ---------------------------------------------------------- */

int culprit_bisect_check(const culprit_bisect *bisect)
{
    const culprit_bisect *b = bisect;
    size_t *stack = NULL, i, k, count = 0, top = 0;
    unsigned char *mark = NULL, *seen = NULL;
    int ok = 0;

    if (!b || b->bad >= b->n || !b->cand[b->bad])
        return 0;
    if (!(stack = malloc(b->n * sizeof(size_t))) || !(mark = calloc(b->n, 1)) ||
        !(seen = malloc(b->n)))
        goto cleanup;
    for (i = 0; i < b->n; i++)
        count += b->cand[i] != 0;
    if (count != b->ncand)
        goto cleanup;
    /* Every candidate is an ancestor-or-self of the bad end (through candidates). */
    if (walk_ancestors(b, mark, 1, b->cand, b->bad, stack, seen) != count)
        goto cleanup;
    /* Convexity: the ancestors of any non-candidate parent of a candidate hold no
     * candidate. */
    memset(seen, 0, b->n);
    for (i = 0; i < b->n; i++) {
        if (!b->cand[i])
            continue;
        for (k = b->off[i]; k < b->off[i + 1]; k++) {
            size_t p = b->par[k];
            if (!b->cand[p] && !seen[p]) {
                seen[p] = 1;
                stack[top++] = p;
            }
        }
    }
    while (top > 0) {
        size_t v = stack[--top];
        if (b->cand[v])
            goto cleanup;
        for (k = b->off[v]; k < b->off[v + 1]; k++)
            if (!seen[b->par[k]]) {
                seen[b->par[k]] = 1;
                stack[top++] = b->par[k];
            }
    }
    ok = 1;
cleanup:
    free(stack);
    free(mark);
    free(seen);
    return ok;
}
