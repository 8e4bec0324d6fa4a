/*
 * bench_bisect_steps: how many builds (tested commits) the bisection of
 * framework/bisect spends, against the goals of issue 4:
 *
 *   - linear histories of 16, 64, 256 and 1,024 commits, the culprit at every
 *     position (a sample for 1,024 in the quick run): max and mean against
 *     ceil(log2 N) + 1;
 *   - seeded merge DAGs of a few hundred commits: the same DAG is written into a
 *     real temporary git repository (git fast-import), where each commit's file
 *     `marker` says "bad" from the culprit on (descendants inherit it), and
 *     `git bisect run` with a shell oracle reading the marker is counted against
 *     our search with the same oracle.
 *
 * Usage: bench_bisect_steps [--full]. ctest runs the quick variant. Exits 1 only
 * when ours exceeds ceil(log2 N) + 1 on a linear history, needs more builds than
 * git on average on the DAGs, or names a wrong culprit; the table is printed
 * either way (docs/bisect.md).
 */
#include "culprit/bisect.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_PARENTS 4

typedef struct {
    size_t n;
    size_t *np;
    size_t (*par)[MAX_PARENTS];
    const size_t **rows;
    culprit_bisect_dag dag;
} graph;

static void graph_init(graph *g, size_t n)
{
    size_t i;
    g->n = n;
    g->np = calloc(n, sizeof(size_t));
    g->par = calloc(n, sizeof(*g->par));
    g->rows = calloc(n, sizeof(*g->rows));
    if (!g->np || !g->par || !g->rows) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    for (i = 0; i < n; i++)
        g->rows[i] = g->par[i];
    g->dag.n = n;
    g->dag.nparents = g->np;
    g->dag.parents = g->rows;
}

static void graph_dispose(graph *g)
{
    free(g->np);
    free(g->par);
    free(g->rows);
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Branches (at most 4 live tips) forked 1 in 8, merged 1 in 5; parents have lower
 * indices; the last commit merges the remaining tips. */
static void generate(graph *g, size_t n, uint64_t seed)
{
    size_t tips[MAX_PARENTS] = {0}, ntips = 1, i, k;
    graph_init(g, n);
    for (i = 1; i + 1 < n; i++) {
        size_t t = (size_t)(splitmix(&seed) % ntips);
        g->par[i][g->np[i]++] = tips[t];
        if (ntips > 1 && splitmix(&seed) % 5 == 0) {
            size_t u = (size_t)(splitmix(&seed) % ntips);
            if (u != t) {
                g->par[i][g->np[i]++] = tips[u];
                tips[u] = tips[--ntips];
                if (t == ntips)
                    t = u;
            }
        }
        if (ntips < MAX_PARENTS && splitmix(&seed) % 8 == 0)
            tips[ntips++] = tips[t];
        tips[t] = i;
    }
    for (k = 0; k < ntips; k++) {
        int dup = 0;
        size_t j;
        for (j = 0; j < g->np[n - 1]; j++)
            dup |= g->par[n - 1][j] == tips[k];
        if (!dup)
            g->par[n - 1][g->np[n - 1]++] = tips[k];
    }
}

static void linear_graph(graph *g, size_t n)
{
    size_t i;
    graph_init(g, n);
    for (i = 1; i < n; i++)
        g->par[i][g->np[i]++] = i - 1;
}

/* bad[i]: the culprit is an ancestor-or-self of i. */
static void descendants(unsigned char *bad, const graph *g, size_t culprit)
{
    size_t i, k;
    for (i = 0; i < g->n; i++) {
        bad[i] = i == culprit;
        for (k = 0; k < g->np[i]; k++)
            bad[i] |= bad[g->par[i][k]];
    }
}

static int decide(culprit_bisect_verdict *out, const culprit_bisect *b, size_t commit,
                  void *payload)
{
    const unsigned char *bad = payload;
    (void)b;
    *out = bad[commit] ? CULPRIT_BISECT_BAD : CULPRIT_BISECT_GOOD;
    return 0;
}

/* Our builds for one culprit; -1 when the answer is wrong. */
static long ours(const graph *g, const unsigned char *bad, size_t culprit)
{
    culprit_bisect *b = NULL;
    long steps = -1;
    if (culprit_bisect_new(&b, &g->dag, g->n - 1) < 0 ||
        culprit_bisect_run(b, decide, (void *)bad) < 0)
        goto cleanup;
    if (culprit_bisect_status_get(b) == CULPRIT_BISECT_FOUND && culprit_bisect_bad(b) == culprit)
        steps = (long)culprit_bisect_tested(b);
cleanup:
    culprit_bisect_free(b);
    return steps;
}

static size_t ceil_log2(size_t n)
{
    size_t k = 0;
    while (((size_t)1 << k) < n)
        k++;
    return k;
}

/* ---- git --------------------------------------------------------------------- */

/*
 * Writes the DAG into a fresh repository `dir` with git fast-import: a good root
 * (tag `good`) below commit 0, commit i's marker "bad" iff bad[i], the culprit
 * tagged `culprit`, main at the last commit.
 */
static int write_repo(const char *dir, const graph *g, const unsigned char *bad, size_t culprit)
{
    char cmd[4096];
    FILE *fi;
    size_t i, k;

    snprintf(cmd, sizeof(cmd),
             "git init -q -b main '%s' && cd '%s' && git fast-import --quiet >/dev/null", dir, dir);
    if (!(fi = popen(cmd, "w")))
        return -1;
    fprintf(fi, "commit refs/heads/main\nmark :1\ncommitter B <b@x> 1000000000 +0000\n"
                "data 4\ngood\nM 100644 inline marker\ndata 5\ngood\n\n");
    for (i = 0; i < g->n; i++) {
        fprintf(fi, "commit refs/heads/main\nmark :%zu\n", i + 2);
        fprintf(fi, "committer B <b@x> %zu +0000\ndata %d\nc%05zu\n", (size_t)1000000000 + i + 1, 7,
                i);
        if (g->np[i] == 0)
            fprintf(fi, "from :1\n");
        for (k = 0; k < g->np[i]; k++)
            fprintf(fi, "%s :%zu\n", k == 0 ? "from" : "merge", g->par[i][k] + 2);
        fprintf(fi, "deleteall\nM 100644 inline marker\ndata 5\n%s\n\n", bad[i] ? "bad " : "good");
    }
    fprintf(fi, "reset refs/tags/good\nfrom :1\n\n");
    fprintf(fi, "reset refs/tags/culprit\nfrom :%zu\n\n", culprit + 2);
    fprintf(fi, "reset refs/heads/main\nfrom :%zu\n\n", g->n + 1);
    return pclose(fi) == 0 ? 0 : -1;
}

/* Steps `git bisect run` needs with the marker oracle; -1 on failure or a wrong answer. */
static long git_steps(const graph *g, const unsigned char *bad, size_t culprit)
{
    char dir[] = "/tmp/culprit-bench-bisect-XXXXXX", cmd[8192], line[256];
    long steps = -1;
    FILE *f;

    if (!mkdtemp(dir))
        return -1;
    if (write_repo(dir, g, bad, culprit) < 0)
        goto cleanup;
    snprintf(cmd, sizeof(cmd),
             "cd '%s' && git checkout -q main 2>/dev/null && git bisect start main good >/dev/null "
             "2>&1 &&"
             " git bisect run sh -c 'echo x >> ../%s.count; grep -q bad marker && exit 1;"
             " exit 0' >/dev/null 2>&1 && test \"$(git rev-parse refs/bisect/bad)\" ="
             " \"$(git rev-parse culprit^{commit})\" && wc -l < ../%s.count",
             dir, dir + 5, dir + 5);
    if ((f = popen(cmd, "r")) != NULL) {
        if (fgets(line, sizeof(line), f))
            steps = strtol(line, NULL, 10);
        if (pclose(f) != 0)
            steps = -1;
    }
cleanup:
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s.count'", dir, dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return steps;
}

int main(int argc, char **argv)
{
    int full = argc > 1 && strcmp(argv[1], "--full") == 0, failed = 0;
    const size_t sizes[] = {16, 64, 256, 1024};
    size_t s;

    printf("bisect steps (%s run)\n\n", full ? "full" : "quick");
    printf("linear histories: builds for the culprit at each position\n");
    printf("%6s %9s %5s %6s %9s %s\n", "N", "culprits", "max", "mean", "bound", "");
    for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        size_t n = sizes[s], c, stride = (!full && n > 256) ? 13 : 1, count = 0, i;
        size_t bound = ceil_log2(n) + 1;
        long max = 0, sum = 0;
        graph g;
        unsigned char *bad = malloc(n);
        linear_graph(&g, n);
        for (c = 0; c < n; c += stride) {
            long steps;
            for (i = 0; i < n; i++)
                bad[i] = i >= c;
            steps = ours(&g, bad, c);
            if (steps < 0) {
                printf("wrong culprit at N=%zu c=%zu\n", n, c);
                failed = 1;
                continue;
            }
            max = steps > max ? steps : max;
            sum += steps;
            count++;
        }
        printf("%6zu %9zu %5ld %6.2f %9zu %s\n", n, count, max, (double)sum / (double)count, bound,
               (size_t)max <= bound ? "ok" : "EXCEEDED");
        failed |= (size_t)max > bound;
        free(bad);
        graph_dispose(&g);
    }

    {
        size_t nseeds = full ? 8 : 3, nculprits = full ? 12 : 4, n = full ? 400 : 200;
        uint64_t seed;
        long all_ours = 0, all_git = 0, runs = 0;
        printf("\nmerge DAGs (%zu commits): builds, ours vs git bisect run, same DAG\n", n);
        printf("%5s %7s %9s %10s %9s %8s %8s\n", "seed", "merges", "culprits", "ours mean",
               "git mean", "ours max", "git max");
        for (seed = 1; seed <= nseeds; seed++) {
            graph g;
            unsigned char *bad = malloc(n);
            size_t k, merges = 0, i;
            long so = 0, sg = 0, mo = 0, mg = 0, cnt = 0;
            generate(&g, n, seed);
            for (i = 0; i < n; i++)
                merges += g.np[i] > 1;
            for (k = 0; k < nculprits; k++) {
                uint64_t st = seed * 1000 + k;
                size_t c = (size_t)(splitmix(&st) % (n - 1));
                long o, gs;
                descendants(bad, &g, c);
                o = ours(&g, bad, c);
                gs = git_steps(&g, bad, c);
                if (o < 0 || gs < 0) {
                    printf("seed %llu culprit %zu: %s failed\n", (unsigned long long)seed, c,
                           o < 0 ? "ours" : "git bisect");
                    failed = 1;
                    continue;
                }
                so += o;
                sg += gs;
                mo = o > mo ? o : mo;
                mg = gs > mg ? gs : mg;
                cnt++;
            }
            if (cnt)
                printf("%5llu %7zu %9ld %10.2f %9.2f %8ld %8ld\n", (unsigned long long)seed, merges,
                       cnt, (double)so / (double)cnt, (double)sg / (double)cnt, mo, mg);
            all_ours += so;
            all_git += sg;
            runs += cnt;
            free(bad);
            graph_dispose(&g);
        }
        if (runs) {
            printf("%5s %7s %9ld %10.2f %9.2f   (ceil(log2 N)+1 = %zu)\n", "all", "", runs,
                   (double)all_ours / (double)runs, (double)all_git / (double)runs,
                   ceil_log2(n) + 1);
            if (all_ours > all_git) {
                printf("ours needs more builds than git bisect on average\n");
                failed = 1;
            }
        }
    }
    return failed;
}
