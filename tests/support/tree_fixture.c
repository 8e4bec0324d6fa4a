/* Hand-built call trees (tree_fixture.h). */
#include "support/test.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "support/tree_fixture.h"

void fixture_lines(const char *name, unsigned int *low, unsigned int *high)
{
    /* One function per 10 lines, in this order, as examples/fig5 lays them out. */
    static const char *const order[] = {"qux", "wug", "fem", "doo", "bar", "foo", "main"};

    *low = *high = 0;
    for (unsigned int i = 0; i < sizeof(order) / sizeof(order[0]); i++)
        if (strcmp(order[i], name) == 0) {
            *low = 10 * i + 1;
            *high = 10 * i + 8;
        }
}

static size_t walk(culprit_calltree *tree, const char *path, const char *file, int create)
{
    size_t node = 0;
    char name[256];

    for (const char *p = path; *p;) {
        size_t n = strcspn(p, ";"), fn, next = CULPRIT_CALLTREE_NONE;
        unsigned int lo, hi;
        assert_true(n > 0 && n < sizeof(name));
        memcpy(name, p, n);
        name[n] = '\0';
        if (create) {
            fixture_lines(name, &lo, &hi);
            assert_int_equal(culprit_calltree_function_intern(&fn, tree, name, file, lo, hi), 0);
            assert_int_equal(culprit_calltree_child(&next, tree, node, fn), 0);
        } else {
            for (size_t c = 0; c < tree->nodes[node].nchildren; c++) {
                size_t k = tree->nodes[node].children[c];
                if (strcmp(tree->functions[tree->nodes[k].function].name, name) == 0)
                    next = k;
            }
            if (next == CULPRIT_CALLTREE_NONE)
                return next;
        }
        node = next;
        p += n + (p[n] == ';');
    }
    return node;
}

size_t fixture_node(culprit_calltree *tree, const char *path, const char *file, uint64_t calls,
                    double mean_ns, double sd_ns)
{
    size_t node = walk(tree, path, file, 1);
    culprit_calltree_node *n = &tree->nodes[node];
    double c = (double)calls;

    n->calls = calls;
    n->inclusive_ns = c * mean_ns;
    /* sum x^2 = (n - 1) s^2 + n mean^2 */
    n->inclusive_sq_ns2 = (c - 1) * sd_ns * sd_ns + c * mean_ns * mean_ns;
    return node;
}

size_t fixture_find(const culprit_calltree *tree, const char *path)
{
    return walk((culprit_calltree *)tree, path, NULL, 0);
}

void fixture_finish(culprit_calltree *tree)
{
    for (size_t i = 1; i < tree->nnodes; i++) {
        culprit_calltree_node *n = &tree->nodes[i];
        n->exclusive_ns = n->inclusive_ns;
        for (size_t c = 0; c < n->nchildren; c++)
            n->exclusive_ns -= tree->nodes[n->children[c]].inclusive_ns;
    }
    assert_true(culprit_calltree_check(tree));
}

culprit_calltree *fixture_fig5(uint64_t calls, double fem_own_ns)
{
    culprit_calltree *t;
    /* Per-call means: wug 1 us, qux 2 us, bar 3 us; fem = own + qux + 3 wug; doo =
     * 0.5 us + fem; foo = 0.1 us + bar + doo. Spread: 2% of each mean. */
    double fem = fem_own_ns + 2000 + 3 * 1000, doo = 500 + fem, foo = 100 + 3000 + doo;
    const char *file = "/home/dev/fig5/src/fig5.c";

    assert_int_equal(culprit_calltree_new(&t), 0);
    t->mode = CULPRIT_CALLTREE_FULL;
    fixture_node(t, "foo", file, calls, foo, 0.02 * foo);
    fixture_node(t, "foo;bar", file, calls, 3000, 60);
    fixture_node(t, "foo;doo", file, calls, doo, 0.02 * doo);
    fixture_node(t, "foo;doo;fem", file, calls, fem, 0.02 * fem);
    fixture_node(t, "foo;doo;fem;qux", file, calls, 2000, 40);
    fixture_node(t, "foo;doo;fem;wug", file, 3 * calls, 1000, 20);
    fixture_finish(t);
    return t;
}
