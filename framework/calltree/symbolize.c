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
#include "culprit/calltree.h"

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &debuginfo_path,
};

/* The subprogram DIE of `cu` whose code holds `pc`; 0 when found. */
static int find_subprogram(Dwarf_Die *out, Dwarf_Die *parent, Dwarf_Addr pc)
{
    Dwarf_Die die;

    if (dwarf_child(parent, &die) != 0)
        return -1;
    do {
        int tag = dwarf_tag(&die);
        if (tag == DW_TAG_subprogram && dwarf_haspc(&die, pc) > 0) {
            *out = die;
            return 0;
        }
        /* C++ namespaces and classes hold their functions one level down. */
        if ((tag == DW_TAG_namespace || tag == DW_TAG_class_type || tag == DW_TAG_structure_type) &&
            find_subprogram(out, &die, pc) == 0)
            return 0;
    } while (dwarf_siblingof(&die, &die) == 0);
    return -1;
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
 * carries the inlined function's lines and is left out). */
static void line_range(unsigned int *low, unsigned int *high, Dwarf_Die *cu, Dwarf_Die *fn,
                       const char *file)
{
    Dwarf_Lines *lines;
    size_t n;
    int decl = 0;

    *low = *high = 0;
    if (dwarf_decl_line(fn, &decl) == 0 && decl > 0)
        *low = *high = (unsigned int)decl;
    if (dwarf_getsrclines(cu, &lines, &n) != 0)
        return;
    for (size_t i = 0; i < n; i++) {
        Dwarf_Line *l = dwarf_onesrcline(lines, i);
        Dwarf_Addr a;
        int no;
        const char *src;
        if (!l || dwarf_lineaddr(l, &a) != 0 || dwarf_lineno(l, &no) != 0 || no <= 0 ||
            dwarf_haspc(fn, a) <= 0 || !(src = dwarf_linesrc(l, NULL, NULL)) ||
            strcmp(src, file) != 0 || in_inlined(fn, a))
            continue;
        if (decl > 0 && no < decl)
            continue; /* a C body follows its declarator: code from elsewhere */
        if (*low == 0 || (unsigned int)no < *low)
            *low = (unsigned int)no;
        if ((unsigned int)no > *high)
            *high = (unsigned int)no;
    }
}

/* One libdwfl session per object, opened on first use and kept until the end. */
typedef struct {
    const char *object;
    Dwfl *dwfl;
    Dwfl_Module *mod;
} session;

typedef struct {
    session *v;
    size_t n;
} sessions;

static Dwfl_Module *open_object(sessions *all, const char *object, int *error)
{
    session *s;

    for (size_t i = 0; i < all->n; i++)
        if (strcmp(all->v[i].object, object) == 0)
            return all->v[i].mod;
    if (!(s = realloc(all->v, (all->n + 1) * sizeof(*s)))) {
        *error = culprit_error_set(CULPRIT_ERROR, "out of memory symbolizing '%s'", object);
        return NULL;
    }
    all->v = s;
    s = &all->v[all->n++];
    s->object = object;
    s->mod = NULL;
    if (!(s->dwfl = dwfl_begin(&callbacks)))
        return NULL;
    dwfl_report_begin(s->dwfl);
    /* Bias 0: the recorded offsets are the object's own addresses (st_value). */
    if (access(object, R_OK) == 0)
        s->mod = dwfl_report_elf(s->dwfl, object, object, -1, 0, false);
    dwfl_report_end(s->dwfl, NULL, NULL);
    return s->mod;
}

/* Names function `f` from its object; 1 when named, 0 when it keeps its address. */
static int name_function(culprit_calltree_function *fn, sessions *all, int *error)
{
    Dwfl_Module *mod = open_object(all, fn->object, error);
    GElf_Off off;
    GElf_Sym sym;
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu, sub;
    const char *name = NULL, *file = NULL;
    unsigned int low = 0, high = 0;
    char *n = NULL, *fl = NULL;

    if (!mod)
        return 0;
    name = dwfl_module_addrinfo(mod, fn->address, &off, &sym, NULL, NULL, NULL);
    if ((cu = dwfl_module_addrdie(mod, fn->address, &bias)) &&
        find_subprogram(&sub, cu, fn->address - bias) == 0) {
        const char *dname = dwarf_diename(&sub);
        if (!name && dname)
            name = dname; /* a function the symbol table lost but DWARF describes */
        if ((file = dwarf_decl_file(&sub)))
            line_range(&low, &high, cu, &sub, file);
    }
    if (!name)
        return 0;
    if (!(n = strdup(name)) || (file && !(fl = strdup(file)))) {
        free(n);
        *error = culprit_error_set(CULPRIT_ERROR, "out of memory symbolizing '%s'", fn->object);
        return 0;
    }
    free(fn->name);
    free(fn->file);
    fn->name = n;
    fn->file = fl;
    fn->line_low = low;
    fn->line_high = high;
    return 1;
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
            if (!(t->functions[fmap[i]].object = culprit_strdup(fn->object))) {
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
        } else {
            culprit_calltree_node_add(&t->nodes[nmap[i]], n);
        }
    }
    /* The tree keeps its header; the rebuilt one gives its functions and nodes. */
    t->mode = tree->mode;
    t->binary = tree->binary;
    t->command = tree->command;
    t->overhead_ns = tree->overhead_ns;
    tree->binary = tree->command = NULL;
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
    for (size_t i = 0; i < s.n; i++)
        if (s.v[i].dwfl)
            dwfl_end(s.v[i].dwfl);
    free(s.v);
    if (error == 0 && named)
        error = remerge(tree);
    if (nmissing)
        *nmissing = missing;
    return error;
}
