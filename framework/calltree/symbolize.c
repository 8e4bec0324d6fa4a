/*
 * Symbolization: the addresses the trace runtime recorded (offsets into an ELF
 * object, see docs/calltree-format.md) become function identities, name and source
 * file with the line range of the definition, which is what lets trees of two
 * builds be compared (Heger et al. 2013, section 4.3 correlates the suspect
 * functions' lines with the commit's diff hunks).
 *
 * libdwfl does the finding: one session per object, reported at bias 0 so that
 * the recorded offset is the address to look up in both ET_EXEC (load address 0)
 * and ET_DYN objects (PIE executables, shared libraries); the symbol table gives
 * the name (static functions are in .symtab, exported ones also in .dynsym, which
 * survives stripping), DWARF the file and lines, with separate debug files found
 * the elfutils way (.gnu_debuglink, build-id under /usr/lib/debug).
 */
#include "calltree_internal.h"
#include "culprit/calltree.h"

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &debuginfo_path,
};

/* ------------------------------------------------------- per-CU DWARF index --- */

/* A compilation unit can hold thousands of functions and its line table tens of
 * thousands of rows (an amalgamated source); looking each function up by walking
 * them made symbolization quadratic. Each CU met is indexed once: its subprograms'
 * address ranges and its line table, both sorted by address. */
typedef struct {
    Dwarf_Addr lo, hi;
    Dwarf_Die die;
} sub_range;

typedef struct {
    Dwarf_Addr addr;
    int line;
    const char *file;
} line_row;

typedef struct {
    Dwarf_Off offset; /* of the CU DIE */
    sub_range *subs;
    size_t nsubs;
    line_row *rows;
    size_t nrows;
} cu_index;

static int by_lo(const void *a, const void *b)
{
    Dwarf_Addr x = ((const sub_range *)a)->lo, y = ((const sub_range *)b)->lo;
    return x < y ? -1 : x > y;
}

static int by_addr(const void *a, const void *b)
{
    Dwarf_Addr x = ((const line_row *)a)->addr, y = ((const line_row *)b)->addr;
    return x < y ? -1 : x > y;
}

static int add_subs(cu_index *c, size_t *alloc, Dwarf_Die *parent)
{
    Dwarf_Die die;

    if (dwarf_child(parent, &die) != 0)
        return 0;
    do {
        int tag = dwarf_tag(&die);
        if (tag == DW_TAG_subprogram) {
            Dwarf_Addr base, lo, hi;
            ptrdiff_t off = 0;
            while ((off = dwarf_ranges(&die, off, &base, &lo, &hi)) > 0) {
                if (c->nsubs == *alloc) {
                    size_t n = *alloc ? 2 * *alloc : 64;
                    sub_range *v = realloc(c->subs, n * sizeof(*v));
                    if (!v)
                        return -1;
                    c->subs = v;
                    *alloc = n;
                }
                c->subs[c->nsubs++] = (sub_range){lo, hi, die};
            }
        } else if ((tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
                    tag == DW_TAG_structure_type) &&
                   add_subs(c, alloc, &die) < 0) {
            return -1; /* C++ keeps functions one level down */
        }
    } while (dwarf_siblingof(&die, &die) == 0);
    return 0;
}

static int build_index(cu_index *c, Dwarf_Die *cu)
{
    Dwarf_Lines *lines;
    size_t n, alloc = 0;

    c->offset = dwarf_dieoffset(cu);
    if (add_subs(c, &alloc, cu) < 0)
        return -1;
    qsort(c->subs, c->nsubs, sizeof(*c->subs), by_lo);
    if (dwarf_getsrclines(cu, &lines, &n) != 0 || n == 0)
        return 0;
    if (!(c->rows = malloc(n * sizeof(*c->rows))))
        return -1;
    for (size_t i = 0; i < n; i++) {
        Dwarf_Line *l = dwarf_onesrcline(lines, i);
        line_row *r = &c->rows[c->nrows];
        if (l && dwarf_lineaddr(l, &r->addr) == 0 && dwarf_lineno(l, &r->line) == 0 &&
            r->line > 0 && (r->file = dwarf_linesrc(l, NULL, NULL)))
            c->nrows++;
    }
    qsort(c->rows, c->nrows, sizeof(*c->rows), by_addr);
    return 0;
}

/* The subprogram whose code holds `pc`, or NULL. */
static Dwarf_Die *find_subprogram(cu_index *c, Dwarf_Addr pc)
{
    size_t lo = 0, hi = c->nsubs;

    while (lo < hi) { /* the first range starting after pc */
        size_t mid = lo + (hi - lo) / 2;
        if (c->subs[mid].lo <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* Ranges of distinct functions do not overlap; look back a little in case a
     * function's range is listed twice. */
    for (size_t k = lo; k > 0 && k + 4 > lo; k--)
        if (pc >= c->subs[k - 1].lo && pc < c->subs[k - 1].hi)
            return &c->subs[k - 1].die;
    return NULL;
}

/* 1 when `pc` is code of a function inlined into `die` (its lines are the inlined
 * function's, not this one's). */
static int in_inlined(Dwarf_Die *die, Dwarf_Addr pc)
{
    Dwarf_Die child;

    if (dwarf_child(die, &child) != 0)
        return 0;
    do {
        int tag = dwarf_tag(&child);
        if (tag == DW_TAG_inlined_subroutine && dwarf_haspc(&child, pc) > 0)
            return 1;
        if ((tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine) &&
            in_inlined(&child, pc))
            return 1;
    } while (dwarf_siblingof(&child, &child) == 0);
    return 0;
}

/* The line range of a function: from its declaration line to the last line the
 * line table gives any of its own code in the same file (code inlined into it
 * carries the inlined function's lines and is left out, and so do lines before
 * the declaration: a C body follows its declarator). */
static void line_range(unsigned int *low, unsigned int *high, cu_index *c, Dwarf_Die *fn,
                       const char *file)
{
    Dwarf_Addr base, lo, hi;
    ptrdiff_t off = 0;
    int decl = 0;

    *low = *high = 0;
    if (dwarf_decl_line(fn, &decl) == 0 && decl > 0)
        *low = *high = (unsigned int)decl;
    while ((off = dwarf_ranges(fn, off, &base, &lo, &hi)) > 0) {
        size_t a = 0, b = c->nrows;
        while (a < b) { /* the first row at or after lo */
            size_t mid = a + (b - a) / 2;
            if (c->rows[mid].addr < lo)
                a = mid + 1;
            else
                b = mid;
        }
        for (; a < c->nrows && c->rows[a].addr < hi; a++) {
            const line_row *r = &c->rows[a];
            if ((decl > 0 && r->line < decl) || (r->file != file && strcmp(r->file, file) != 0) ||
                in_inlined(fn, r->addr))
                continue;
            if (*low == 0 || (unsigned int)r->line < *low)
                *low = (unsigned int)r->line;
            if ((unsigned int)r->line > *high)
                *high = (unsigned int)r->line;
        }
    }
}

/* One libdwfl session per object, opened on first use and kept until the end,
 * with the index of each compilation unit met. */
typedef struct {
    const char *object;
    Dwfl *dwfl;
    Dwfl_Module *mod;
    char build_id[2 * 64 + 1]; /* of the file on disk, hex; "" when it has none */
    cu_index *cus;
    size_t ncus;
} session;

typedef struct {
    session *v;
    size_t n;
} sessions;

static cu_index *cu_for(session *s, Dwarf_Die *cu, int *error)
{
    Dwarf_Off offset = dwarf_dieoffset(cu);
    cu_index *v;

    for (size_t i = 0; i < s->ncus; i++)
        if (s->cus[i].offset == offset)
            return &s->cus[i];
    if (!(v = realloc(s->cus, (s->ncus + 1) * sizeof(*v)))) {
        *error = culprit_error_set(CULPRIT_ERROR, "out of memory symbolizing '%s'", s->object);
        return NULL;
    }
    s->cus = v;
    v = &s->cus[s->ncus++];
    memset(v, 0, sizeof(*v));
    if (build_index(v, cu) < 0) {
        *error = culprit_error_set(CULPRIT_ERROR, "out of memory symbolizing '%s'", s->object);
        return NULL;
    }
    return v;
}

static session *open_object(sessions *all, const char *object, int *error)
{
    const unsigned char *bits;
    GElf_Addr vaddr;
    struct stat st;
    session *s;
    int len;

    for (size_t i = 0; i < all->n; i++)
        if (strcmp(all->v[i].object, object) == 0)
            return &all->v[i];
    if (!(s = realloc(all->v, (all->n + 1) * sizeof(*s)))) {
        *error = culprit_error_set(CULPRIT_ERROR, "out of memory symbolizing '%s'", object);
        return NULL;
    }
    all->v = s;
    s = &all->v[all->n++];
    memset(s, 0, sizeof(*s));
    s->object = object;
    if (!(s->dwfl = dwfl_begin(&callbacks)))
        return s;
    dwfl_report_begin(s->dwfl);
    /* Bias 0: the recorded offsets are the object's own addresses (st_value). The
     * path comes from the file: only a regular file is opened (a FIFO would wait for
     * a writer forever, a device would be read). */
    if (stat(object, &st) == 0 && S_ISREG(st.st_mode) && access(object, R_OK) == 0)
        s->mod = dwfl_report_elf(s->dwfl, object, object, -1, 0, false);
    dwfl_report_end(s->dwfl, NULL, NULL);
    if (s->mod && (len = dwfl_module_build_id(s->mod, &bits, &vaddr)) > 0 && len <= 64)
        for (int k = 0; k < len; k++)
            snprintf(s->build_id + 2 * k, 3, "%02x", bits[k]);
    return s;
}

static void close_sessions(sessions *all)
{
    for (size_t i = 0; i < all->n; i++) {
        for (size_t k = 0; k < all->v[i].ncus; k++) {
            free(all->v[i].cus[k].subs);
            free(all->v[i].cus[k].rows);
        }
        free(all->v[i].cus);
        if (all->v[i].dwfl)
            dwfl_end(all->v[i].dwfl);
    }
    free(all->v);
}

/* The compilation unit holding `addr`. libdw finds it through .debug_aranges,
 * which clang does not emit: without it, the answer can be another unit (one that
 * has aranges), so it is checked, and the units are searched one by one if wrong. */
static Dwarf_Die *compile_unit(Dwfl_Module *mod, Dwarf_Addr addr, Dwarf_Addr *bias)
{
    Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, bias);

    if (cu && dwarf_haspc(cu, addr - *bias) > 0)
        return cu;
    for (cu = NULL; (cu = dwfl_module_nextcu(mod, cu, bias));)
        if (dwarf_haspc(cu, addr - *bias) > 0)
            return cu;
    return NULL;
}

/* The file a function is declared in. DWARF 5 numbers the unit's primary source
 * file 0; elfutils 0.188 cannot read a file table whose only entry is that one
 * (clang writes such tables when the build directory is not above the source),
 * so a declaration in file 0 falls back to the unit's own name, made absolute
 * with its compilation directory. `buf` holds the joined name. */
static const char *decl_file(Dwarf_Die *sub, Dwarf_Die *cu, culprit_buf *buf)
{
    Dwarf_Attribute attr;
    Dwarf_Word index;
    const char *file = dwarf_decl_file(sub), *name, *dir;

    if (file || !dwarf_attr_integrate(sub, DW_AT_decl_file, &attr) ||
        dwarf_formudata(&attr, &index) != 0 || index != 0 || !(name = dwarf_diename(cu)))
        return file;
    if (name[0] == '/' || !(dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr))))
        return name;
    culprit_buf_clear(buf);
    if (culprit_buf_printf(buf, "%s/%s", dir, name) < 0)
        return NULL;
    return buf->ptr;
}

/* Names function `f` from its object; 1 when named, 0 when it keeps its address. */
static int name_function(culprit_calltree_function *fn, sessions *all, int *error)
{
    session *s = open_object(all, fn->object, error);
    Dwfl_Module *mod = s ? s->mod : NULL;
    GElf_Off off;
    GElf_Sym sym;
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu, *sub;
    cu_index *index;
    const char *name = NULL, *file = NULL;
    unsigned int low = 0, high = 0;
    char *n = NULL, *fl = NULL;
    culprit_buf fallback = CULPRIT_BUF_INIT;
    int named = 0;

    if (!mod)
        return 0;
    /* Rebuilt since the run: its addresses now belong to other functions. */
    if (fn->build_id && strcmp(fn->build_id, s->build_id) != 0)
        return 0;
    name = dwfl_module_addrinfo(mod, fn->address, &off, &sym, NULL, NULL, NULL);
    if ((cu = compile_unit(mod, fn->address, &bias)) && (index = cu_for(s, cu, error)) &&
        (sub = find_subprogram(index, fn->address - bias))) {
        const char *dname = dwarf_diename(sub);
        if (!name && dname)
            name = dname; /* a function the symbol table lost but DWARF describes */
        if ((file = decl_file(sub, cu, &fallback)))
            line_range(&low, &high, index, sub, file);
    }
    if (*error < 0 || !name)
        goto cleanup;
    if (!(n = strdup(name)) || (file && !(fl = strdup(file)))) {
        free(n);
        *error = culprit_error_set(CULPRIT_ERROR, "out of memory symbolizing '%s'", fn->object);
        goto cleanup;
    }
    free(fn->name);
    free(fn->file);
    fn->name = n;
    fn->file = fl;
    fn->line_low = low;
    fn->line_high = high;
    named = 1;
cleanup:
    culprit_buf_dispose(&fallback);
    return named;
}

/* Rebuilds `tree` with functions interned again by identity, so that two entries
 * now sharing a name and file are one function and their call paths one node. */
static int remerge(culprit_calltree *tree)
{
    culprit_calltree *t = NULL, swap;
    size_t *fmap = NULL, *nmap = NULL;
    int error;

    if ((error = culprit_calltree_new(&t)) < 0)
        return error;
    if (!(fmap = calloc(tree->nfunctions + 1, sizeof(*fmap))) ||
        !(nmap = calloc(tree->nnodes, sizeof(*nmap)))) {
        error = culprit_error_set(CULPRIT_ERROR, "out of memory merging a call tree");
        goto cleanup;
    }
    for (size_t i = 0; i < tree->nfunctions; i++) {
        const culprit_calltree_function *fn = &tree->functions[i];
        if ((error = culprit_calltree_function_intern(&fmap[i], t, fn->name, fn->file, fn->line_low,
                                                      fn->line_high)) < 0)
            goto cleanup;
        if (!t->functions[fmap[i]].object && fn->object) {
            if (!(t->functions[fmap[i]].object = culprit_strdup(fn->object)) ||
                (fn->build_id &&
                 !(t->functions[fmap[i]].build_id = culprit_strdup(fn->build_id)))) {
                error = CULPRIT_ERROR;
                goto cleanup;
            }
            t->functions[fmap[i]].address = fn->address;
        }
    }
    t->nodes[0].calls = tree->nodes[0].calls;
    for (size_t i = 1; i < tree->nnodes; i++) {
        const culprit_calltree_node *n = &tree->nodes[i];
        size_t before = t->nnodes;
        if ((error = culprit_calltree_child(&nmap[i], t, nmap[n->parent], fmap[n->function])) < 0)
            goto cleanup;
        if (t->nnodes > before) {
            culprit_calltree_node *m = &t->nodes[nmap[i]];
            m->calls = n->calls;
            m->inclusive_ns = n->inclusive_ns;
            m->inclusive_sq_ns2 = n->inclusive_sq_ns2;
            m->exclusive_ns = n->exclusive_ns;
            m->samples = n->samples;
        } else {
            culprit_calltree__node_add(&t->nodes[nmap[i]], n);
        }
    }
    /* The tree keeps its header; the rebuilt one gives its functions and nodes. */
    t->mode = tree->mode;
    t->binary = tree->binary;
    t->command = tree->command;
    t->overhead_ns = tree->overhead_ns;
    t->wall_ns = tree->wall_ns;
    t->run_delay_ns = tree->run_delay_ns;
    t->runtime_cpu_ns = tree->runtime_cpu_ns;
    t->fitted = tree->fitted;
    t->scaled = tree->scaled;
    t->unsampled = tree->unsampled;
    tree->binary = tree->command = tree->unsampled = NULL;
    swap = *tree;
    *tree = *t;
    *t = swap;
cleanup:
    free(fmap);
    free(nmap);
    culprit_calltree_free(t);
    return error;
}

int culprit_calltree_symbolize(culprit_calltree *tree, size_t *nmissing)
{
    sessions s = {NULL, 0};
    size_t missing = 0, named = 0;
    int error = 0;

    for (size_t i = 0; i < tree->nfunctions && error == 0; i++) {
        culprit_calltree_function *fn = &tree->functions[i];
        if (!culprit_calltree_function_is_raw(tree, i))
            continue;
        if (fn->object && name_function(fn, &s, &error))
            named++;
        else
            missing++;
    }
    close_sessions(&s);
    if (named) { /* renamed in place: the index of identities is rebuilt when next used */
        free(tree->fn_slots);
        tree->fn_slots = NULL;
        tree->fn_nslots = 0;
    }
    if (error == 0 && named)
        error = remerge(tree);
    if (nmissing)
        *nmissing = missing;
    return error;
}
