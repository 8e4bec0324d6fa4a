/*
 * Root-cause case (c), "a slower function called once per run": a routing table.
 * build_routes() is called once: it generates the prefixes and sorts them with
 * sort_routes(); then route_lookup() answers many queries by binary search. The
 * culprit commit (router.patch) replaces qsort() by an insertion sort "to keep
 * equal prefixes in input order": quadratic, called once, and the whole run ten
 * times slower.
 * usage: router [QUERIES]
 */
#include <stdio.h>
#include <stdlib.h>

#define NROUTES 16000

struct route {
    unsigned prefix;
    unsigned len;
    unsigned hop;
};

static struct route routes[NROUTES];

static int cmp_route(const void *a, const void *b)
{
    const struct route *x = a, *y = b;
    return x->prefix < y->prefix ? -1 : x->prefix > y->prefix;
}

static void sort_routes(struct route *r, size_t n)
{
    qsort(r, n, sizeof(*r), cmp_route);
}

static void build_routes(void)
{
    unsigned x = 2463534242u;
    for (size_t i = 0; i < NROUTES; i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        routes[i].prefix = x & 0xffffff00u;
        routes[i].len = 24;
        routes[i].hop = (unsigned)i % 16;
    }
    sort_routes(routes, NROUTES);
}

static unsigned route_lookup(unsigned addr)
{
    size_t lo = 0, hi = NROUTES;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (routes[mid].prefix <= addr)
            lo = mid;
        else
            hi = mid;
    }
    return routes[lo].hop;
}

int main(int argc, char **argv)
{
    long queries = argc > 1 ? atol(argv[1]) : 20000;
    unsigned x = 88172645u, sum = 0;

    build_routes();
    for (long q = 0; q < queries; q++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        sum += route_lookup(x);
    }
    printf("%u\n", sum);
    return 0;
}
