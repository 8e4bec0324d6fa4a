/*
 * Writing the call-tree file (docs/calltree-format.md) from the runtime: the trees
 * of all threads are merged (the same call path in two threads is one node), the
 * frames still open are closed at the time of writing (in the file only), the
 * clock ticks become nanoseconds, and each function's address is written relative
 * to the load address of the ELF object holding it (found with dl_iterate_phdr),
 * so that calltree can symbolize it later from the file on disk, whatever address
 * space layout the run had. Runs at exit or at the end of a perf test: allocating
 * here is fine, the hot path never comes here.
 */
#define _GNU_SOURCE
#include "trace_dump.h"
#include "trace_internal.h"
#include "../owner/owner.h"

#include <dirent.h>
#include <errno.h>
#include <link.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    void *fn;
    uint32_t parent, depth;
    uint64_t calls;
    double sum, sq, child_sum;
    uint32_t out;  /* index in the file; UINT32_MAX when left out */
    uint32_t func; /* function index */
} merged;

typedef struct {
    merged *v;
    size_t n, a;
    uint32_t *slots; /* open addressing on (parent, fn): node index + 1 */
    size_t nslots;
} tree;

typedef struct {
    char *name;
    char build_id[2 * 64 + 1]; /* hex; "" when the object has none */
    uintptr_t load;
    uintptr_t lo[16], hi[16]; /* its executable segments */
    int nseg;
} object;

typedef struct {
    object *v;
    size_t n, a;
} objects;

static size_t hash(uint32_t parent, void *fn, size_t mask) NOINSTR;
static size_t hash(uint32_t parent, void *fn, size_t mask)
{
    /* splitmix64's finalizer: every input bit reaches the low bits the mask keeps
     * (a recursion is one function under 10^5 different parents). */
    uint64_t x = (uint64_t)(uintptr_t)fn ^ ((uint64_t)parent * 0x9E3779B97F4A7C15ull);
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 31;
    return (size_t)x & mask;
}

static int rehash(tree *t) NOINSTR;
static int rehash(tree *t)
{
    size_t n = t->nslots ? t->nslots * 2 : 1024;
    uint32_t *s = calloc(n, sizeof(*s));

    if (!s)
        return -1;
    for (size_t i = 1; i < t->n; i++) {
        size_t h = hash(t->v[i].parent, t->v[i].fn, n - 1);
        while (s[h])
            h = (h + 1) & (n - 1);
        s[h] = (uint32_t)i + 1;
    }
    free(t->slots);
    t->slots = s;
    t->nslots = n;
    return 0;
}

/* The merged node of `fn` under `parent`, created when absent; UINT32_MAX when out
 * of memory. */
static uint32_t child(tree *t, uint32_t parent, void *fn) NOINSTR;
static uint32_t child(tree *t, uint32_t parent, void *fn)
{
    size_t h;

    if (t->n * 2 >= t->nslots && rehash(t) < 0)
        return UINT32_MAX;
    for (h = hash(parent, fn, t->nslots - 1); t->slots[h]; h = (h + 1) & (t->nslots - 1)) {
        merged *m = &t->v[t->slots[h] - 1];
        if (m->parent == parent && m->fn == fn)
            return t->slots[h] - 1;
    }
    if (t->n == t->a) {
        size_t a = t->a * 2;
        merged *v = realloc(t->v, a * sizeof(*v));
        if (!v)
            return UINT32_MAX;
        t->v = v;
        t->a = a;
    }
    memset(&t->v[t->n], 0, sizeof(t->v[0]));
    t->v[t->n].fn = fn;
    t->v[t->n].parent = parent;
    t->v[t->n].depth = t->v[parent].depth + 1;
    t->slots[h] = (uint32_t)t->n + 1;
    return (uint32_t)t->n++;
}

/* The object's GNU build-id, from its PT_NOTE segments in memory: it tells whether
 * the file on disk is still the one that ran when the tree is symbolized later. */
static void build_id(object *o, struct dl_phdr_info *info) NOINSTR;
static void build_id(object *o, struct dl_phdr_info *info)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        const char *p, *end;
        if (ph->p_type != PT_NOTE)
            continue;
        p = (const char *)(info->dlpi_addr + ph->p_vaddr);
        end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
            const unsigned char *desc =
                (const unsigned char *)(p + sizeof(*n) + ((n->n_namesz + 3) & ~3u));
            if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
                memcmp(p + sizeof(*n), "GNU", 4) == 0 && n->n_descsz <= 64 &&
                (const char *)desc + n->n_descsz <= end) {
                for (unsigned int k = 0; k < n->n_descsz; k++)
                    snprintf(o->build_id + 2 * k, 3, "%02x", desc[k]);
                return;
            }
            p = (const char *)desc + ((n->n_descsz + 3) & ~3u);
        }
    }
}

static int add_object(struct dl_phdr_info *info, size_t size, void *payload) NOINSTR;
static int add_object(struct dl_phdr_info *info, size_t size, void *payload)
{
    objects *objs = payload;
    object o;
    char exe[4096];

    (void)size;
    memset(&o, 0, sizeof(o));
    o.load = (uintptr_t)info->dlpi_addr;
    for (int i = 0; i < info->dlpi_phnum && o.nseg < 16; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            o.lo[o.nseg] = o.load + ph->p_vaddr;
            o.hi[o.nseg++] = o.load + ph->p_vaddr + ph->p_memsz;
        }
    }
    if (!o.nseg)
        return 0;
    build_id(&o, info);
    if (objs->n == 0 && (!info->dlpi_name || !*info->dlpi_name)) {
        /* The first entry is the executable, without a name. */
        ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
        if (len <= 0)
            return 0;
        exe[len] = '\0';
        o.name = strdup(exe);
    } else if (info->dlpi_name && info->dlpi_name[0] == '/') {
        o.name = strdup(info->dlpi_name);
    } else {
        return 0; /* the vDSO and other objects without a file */
    }
    if (!o.name)
        return 0;
    if (objs->n == objs->a) {
        size_t a = objs->a ? objs->a * 2 : 16;
        object *v = realloc(objs->v, a * sizeof(*v));
        if (!v) {
            free(o.name);
            return 1;
        }
        objs->v = v;
        objs->a = a;
    }
    objs->v[objs->n++] = o;
    return 0;
}

/* Percent-encodes bytes that would break the space-separated fields; "-" is NULL. */
static void put_string(FILE *f, const char *s) NOINSTR;
static void put_string(FILE *f, const char *s)
{
    if (!s || !*s) {
        fputc('-', f);
        return;
    }
    if (strcmp(s, "-") == 0) {
        fputs("%2D", f);
        return;
    }
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c <= 0x20 || c >= 0x7f || c == '%')
            fprintf(f, "%%%02X", c);
        else
            fputc(c, f);
    }
}

static void put_time(FILE *f, int timed, double ns) NOINSTR;
static void put_time(FILE *f, int timed, double ns)
{
    if (timed)
        fprintf(f, " %.17g", ns);
    else
        fputs(" -", f);
}

static void put_command(FILE *f) NOINSTR;
static void put_command(FILE *f)
{
    char buf[8192];
    FILE *in = fopen("/proc/self/cmdline", "r");
    size_t n = in ? fread(buf, 1, sizeof(buf) - 1, in) : 0;

    if (in)
        fclose(in);
    buf[n] = '\0';
    fputs("command", f);
    for (size_t i = 0; i < n; i += strlen(buf + i) + 1) {
        fputc(' ', f);
        put_string(f, buf + i);
    }
    fputc('\n', f);
}

/* Nanoseconds per tick, from the interval since start-up: at least 20 ms of it,
 * slept for when the program was shorter (asleep, not spinning: the wait must not
 * add CPU time to a run that `record` compares with its uninstrumented baseline),
 * so the rate is known to 0.1%. */
static double ns_per_tick(void) NOINSTR;
static double ns_per_tick(void)
{
    uint64_t ns, ticks;

    if (!trace__config.use_tsc)
        return 1.0;
    for (;;) {
        uint64_t left;
        struct timespec ts;
        ns = trace__mono_ns();
        ticks = trace__ticks();
        if (ns - trace__config.t0_ns >= 20000000u)
            break;
        left = 20000000u - (ns - trace__config.t0_ns);
        ts.tv_sec = 0;
        ts.tv_nsec = (long)left;
        nanosleep(&ts, NULL);
    }
    return (double)(ns - trace__config.t0_ns) / (double)(ticks - trace__config.t0_ticks);
}

static const char *mode_name(culprit_trace_mode m) NOINSTR;
static const char *mode_name(culprit_trace_mode m)
{
    return m == CULPRIT_TRACE_STRUCTURE ? "structure" : m == CULPRIT_TRACE_LEVEL ? "level" : "full";
}

static int merge(tree *out, size_t *nthreads) NOINSTR;
static int merge(tree *out, size_t *nthreads)
{
    const trace_config *c = &trace__config;
    uint64_t now = c->mode == CULPRIT_TRACE_STRUCTURE ? 0 : trace__ticks();
    double per = c->mode == CULPRIT_TRACE_FULL ? c->overhead_pair : c->overhead_untimed;
    int error = 0;

    out->a = 1024;
    if (!(out->v = calloc(out->a, sizeof(*out->v))))
        return -1;
    out->n = 1; /* the root */
    *nthreads = 0;
    pthread_mutex_lock(&trace__lock);
    for (trace_thread *t = trace__threads; t && !error; t = t->next) {
        uint32_t n = atomic_load_explicit(&t->nnodes, memory_order_acquire);
        uint32_t *map = malloc((size_t)n * sizeof(*map));
        if (!map) {
            error = -1;
            break;
        }
        map[0] = 0;
        ++*nthreads;
        for (uint32_t i = 1; i < n; i++) {
            trace_node *tn = trace__node(t, i);
            uint32_t m = child(out, map[tn->parent], tn->fn);
            if (m == UINT32_MAX) {
                error = -1;
                break;
            }
            map[i] = m;
            out->v[m].calls += tn->calls;
            out->v[m].sum += tn->sum;
            out->v[m].sq += tn->sq;
        }
        /* Frames still open end now (in the file; the program goes on). */
        for (uint32_t d = 1; !error && d <= t->depth && d < TRACE_STACK_MAX; d++) {
            trace_frame *f = &t->stack[d];
            /* Another thread's frame may be mid-push: a slot never used is NULL, a
             * reused one points at a node of this thread (nodes are never freed). */
            if (f->timed && f->node && f->node->self < n) {
                double x = (double)(now - f->start) - c->overhead_in -
                           (double)(t->count - f->count0) * per;
                if (x < 0)
                    x = 0;
                out->v[map[f->node->self]].sum += x;
                out->v[map[f->node->self]].sq += x * x;
            }
        }
        free(map);
    }
    pthread_mutex_unlock(&trace__lock);
    return error;
}

/* Which nodes are written (called since the last reset, under a written parent),
 * their indices in the file and their functions': `*fns` gets the distinct
 * functions (malloc'd), `*nout` the nodes written. 0 or -1 (out of memory). */
static int number_nodes(tree *t, void ***fns, size_t *nfns, size_t *nout) NOINSTR;
static int number_nodes(tree *t, void ***fns, size_t *nfns, size_t *nout)
{
    uint32_t *slots = NULL;
    size_t nslots = 64, h;

    while (nslots < 2 * t->n)
        nslots *= 2;
    if (!(*fns = malloc(t->n * sizeof(**fns))) || !(slots = calloc(nslots, sizeof(*slots))))
        return -1;
    t->v[0].out = 0;
    *nout = 1;
    for (size_t i = 1; i < t->n; i++) {
        merged *m = &t->v[i];
        m->out = UINT32_MAX;
        if (m->calls == 0 || t->v[m->parent].out == UINT32_MAX)
            continue;
        m->out = (uint32_t)(*nout)++;
        /* fn -> function index, open addressing (trees reach 10^5 nodes). */
        for (h = hash(0, m->fn, nslots - 1); slots[h] && (*fns)[slots[h] - 1] != m->fn;
             h = (h + 1) & (nslots - 1))
            ;
        if (!slots[h]) {
            (*fns)[(*nfns)++] = m->fn;
            slots[h] = (uint32_t)*nfns;
        }
        m->func = slots[h] - 1;
        t->v[m->parent].child_sum += m->sum;
    }
    free(slots);
    return 0;
}

/* The header lines, through the list of objects. `write_cpu_ns`: the CPU time the
 * write has taken so far. */
static void write_header(FILE *f, const objects *objs, size_t nthreads, double scale,
                         double write_cpu_ns) NOINSTR;
static void write_header(FILE *f, const objects *objs, size_t nthreads, double scale,
                         double write_cpu_ns)
{
    const trace_config *c = &trace__config;
    char exe[4096];
    ssize_t len;

    fputs("culprit-calltree 1\n", f);
    len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    exe[len > 0 ? len : 0] = '\0';
    fputs("binary ", f);
    put_string(f, exe);
    fputc('\n', f);
    put_command(f);
    fprintf(f, "pid %ld\n", (long)getpid());
    fprintf(f, "mode %s\n", mode_name(c->mode));
    fprintf(f, "level %u\n", c->mode == CULPRIT_TRACE_LEVEL ? c->level : 0);
    fprintf(f, "clock %s\n",
            c->mode == CULPRIT_TRACE_STRUCTURE ? "none"
            : c->use_tsc                       ? "tsc"
                                               : "monotonic");
    fprintf(f, "overhead-ns %.17g\n",
            c->mode == CULPRIT_TRACE_FULL    ? c->overhead_pair * scale
            : c->mode == CULPRIT_TRACE_LEVEL ? c->overhead_untimed * scale
                                             : 0.0);
    if (c->mode != CULPRIT_TRACE_STRUCTURE && c->delay0_ns >= 0) {
        double delay = trace__run_delay_ns(c->tid);
        if (delay >= c->delay0_ns)
            fprintf(f, "wall-ns %.17g\nrun-delay-ns %.17g\n", (double)(trace__mono_ns() - c->t0_ns),
                    delay - c->delay0_ns);
    }
    /* The runtime's own CPU time outside the program's calls (configuration,
     * calibration, this write up to here): `record` takes it out of the run's. */
    fprintf(f, "runtime-cpu-ns %.17g\n", c->setup_cpu_ns + write_cpu_ns);
    fprintf(f, "threads %zu\n", nthreads);
    fprintf(f, "objects %zu\n", objs->n);
    for (size_t i = 0; i < objs->n; i++) {
        fprintf(f, "object %zu 0x%jx %s ", i, (uintmax_t)objs->v[i].load,
                objs->v[i].build_id[0] ? objs->v[i].build_id : "-");
        put_string(f, objs->v[i].name);
        fputc('\n', f);
    }
}

/* Each function's address, relative to the object whose executable segment holds it. */
static void write_functions(FILE *f, void *const *fns, size_t nfns, const objects *objs) NOINSTR;
static void write_functions(FILE *f, void *const *fns, size_t nfns, const objects *objs)
{
    fprintf(f, "functions %zu\n", nfns);
    for (size_t i = 0; i < nfns; i++) {
        uintptr_t a = (uintptr_t)fns[i];
        size_t o;
        int found = 0;
        for (o = 0; o < objs->n && !found; o++)
            for (int s = 0; s < objs->v[o].nseg && !found; s++)
                found = a >= objs->v[o].lo[s] && a < objs->v[o].hi[s];
        if (found)
            fprintf(f, "function %zu %zu 0x%jx - - 0 0\n", i, o - 1,
                    (uintmax_t)(a - objs->v[o - 1].load));
        else
            fprintf(f, "function %zu - 0x%jx - - 0 0\n", i, (uintmax_t)a);
    }
}

static void write_nodes(FILE *f, const tree *t, size_t nout, double scale) NOINSTR;
static void write_nodes(FILE *f, const tree *t, size_t nout, double scale)
{
    const trace_config *c = &trace__config;

    fprintf(f, "nodes %zu\n", nout);
    fputs("node 0 - - 0 0 - - -\n", f);
    for (size_t i = 1; i < t->n; i++) {
        const merged *m = &t->v[i];
        int timed = c->mode == CULPRIT_TRACE_FULL ||
                    (c->mode == CULPRIT_TRACE_LEVEL && m->depth == c->level);
        if (m->out == UINT32_MAX)
            continue;
        fprintf(f, "node %u %u %u %u %ju", m->out, t->v[m->parent].out, m->func, m->depth,
                (uintmax_t)m->calls);
        put_time(f, timed, m->sum * scale);
        put_time(f, timed, m->sq * scale * scale);
        /* Noise and the overhead correction can leave a sliver below 0. */
        put_time(f, c->mode == CULPRIT_TRACE_FULL,
                 m->sum > m->child_sum ? (m->sum - m->child_sum) * scale : 0.0);
        fputc('\n', f);
    }
    fputs("end\n", f);
}

/*
 * The temp-file rule (docs/security.md, "Temporary files") in the runtime, which
 * cannot call libculprit: the file is written as <path>.tmp.<host>-<pid>.<start>-
 * XXXXXX beside it and renamed over it, and before that the leftovers of writers that
 * have ended (a traced run killed while writing) are removed from the directory,
 * as the history's atomic writer does (framework/owner/owner.h decides whose they are).
 * Only our own regular files: another user's are theirs, and a directory is never ours.
 */
static void remove_stale(const char *path) NOINSTR;
static void remove_stale(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : NULL;
    char host[256], entry[4096];
    struct dirent *e;
    struct stat st;
    DIR *d;

    if ((slash && !dir) || !(d = opendir(dir ? dir : "."))) {
        free(dir);
        return;
    }
    culprit_owner__host(host, sizeof(host));
    while ((e = readdir(d)))
        if (culprit_owner__stale(e->d_name, ".tmp.", host) &&
            snprintf(entry, sizeof(entry), "%s/%s", dir ? dir : ".", e->d_name) <
                (int)sizeof(entry) &&
            lstat(entry, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid())
            unlink(entry);
    closedir(d);
    free(dir);
}

/* Creates <path>.tmp.<tag>XXXXXX: a stream on it with *tmp its name, or NULL. */
static FILE *open_temp(const char *path, char **tmp) NOINSTR;
static FILE *open_temp(const char *path, char **tmp)
{
    char tag[320];
    unsigned long long start = 0;
    int len, fd;
    FILE *f;

    if (culprit_owner__start(&start, (long)getpid()) != 0)
        start = 0;
    culprit_owner__tag(tag, sizeof(tag), start);
    len = snprintf(NULL, 0, "%s.tmp.%sXXXXXX", path, tag);
    if (!(*tmp = malloc((size_t)len + 1)))
        return NULL;
    snprintf(*tmp, (size_t)len + 1, "%s.tmp.%sXXXXXX", path, tag);
    if ((fd = mkstemp(*tmp)) < 0) {
        free(*tmp);
        *tmp = NULL;
        return NULL;
    }
    /* mkstemp makes it 0600; the tree is read by the user's other tools, as fopen's. */
    {
        mode_t mask = umask(0);
        umask(mask);
        fchmod(fd, 0666 & ~mask);
    }
    if (!(f = fdopen(fd, "w")))
        close(fd);
    return f;
}

int trace__write(const char *path)
{
    const trace_config *c = &trace__config;
    tree t = {0};
    objects objs = {0};
    void **fns = NULL;
    size_t nfns = 0, nthreads = 0, nout = 0;
    double cpu0 = trace__thread_cpu_ns();
    double scale = c->mode == CULPRIT_TRACE_STRUCTURE ? 1.0 : ns_per_tick();
    char *tmp = NULL;
    FILE *f = NULL;
    int error = -1, saved_errno = 0;

    if (merge(&t, &nthreads) < 0)
        goto cleanup;
    dl_iterate_phdr(add_object, &objs);
    if (number_nodes(&t, &fns, &nfns, &nout) < 0)
        goto cleanup;

    remove_stale(path);
    if (!(f = open_temp(path, &tmp)))
        goto cleanup;
    write_header(f, &objs, nthreads, scale, trace__thread_cpu_ns() - cpu0);
    write_functions(f, fns, nfns, &objs);
    write_nodes(f, &t, nout, scale);
    if (fflush(f) != 0 || ferror(f))
        goto cleanup;
    if (fclose(f) != 0) {
        f = NULL;
        goto cleanup;
    }
    f = NULL;
    if (rename(tmp, path) < 0)
        goto cleanup;
    free(tmp);
    tmp = NULL;
    error = 0;
cleanup:
    saved_errno = errno;
    if (f)
        fclose(f);
    if (tmp) {
        unlink(tmp);
        free(tmp);
    }
    for (size_t i = 0; i < objs.n; i++)
        free(objs.v[i].name);
    free(objs.v);
    free(fns);
    free(t.v);
    free(t.slots);
    errno = saved_errno;
    return error;
}
