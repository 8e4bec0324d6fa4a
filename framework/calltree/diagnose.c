/*
 * Why a command recorded no call tree: the program it runs is inspected (its ELF
 * symbol tables, with libelf) so that "not instrumented" and "instrumented, but the
 * trace runtime was not linked" get different messages, each with its fix.
 *
 * The second case is the usual trap of instrumenting someone else's build: the
 * runtime archive given in the linker flags (CMAKE_EXE_LINKER_FLAGS, LDFLAGS) comes
 * before the objects on the command line, so the linker, which pulls an archive's
 * members only for symbols already undefined, takes nothing from it; the hooks
 * stay undefined in the program and glibc's empty ones run. Its sign in the binary
 * is exactly that: __cyg_profile_func_enter referenced but not defined. The fix is
 * to link the runtime as a whole archive (what culprit-cc and culprit-trace.pc do,
 * docs/calltree.md "Instrumenting any build").
 */
#define _GNU_SOURCE /* strndup */
#include "calltree_internal.h"
#include "culprit/calltree.h"
#include "culprit/core.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HOOK "__cyg_profile_func_enter"

/* What the symbol tables of an open ELF say of the hook and of the runtime. */
static culprit_calltree_link link_of(Elf *elf)
{
    int referenced = 0, defined = 0, runtime = 0;
    Elf_Scn *scn = NULL;

    while ((scn = elf_nextscn(elf, scn))) {
        GElf_Shdr sh;
        Elf_Data *data;
        if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
            !sh.sh_entsize || !(data = elf_getdata(scn, NULL)))
            continue;
        for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
            GElf_Sym sym;
            const char *name;
            if (!gelf_getsym(data, (int)i, &sym) ||
                !(name = elf_strptr(elf, sh.sh_link, sym.st_name)))
                continue;
            if (!strcmp(name, HOOK)) {
                referenced = 1;
                defined |= sym.st_shndx != SHN_UNDEF;
            } else if (!strcmp(name, "culprit_trace_dump") && sym.st_shndx != SHN_UNDEF) {
                runtime = 1;
            }
        }
    }
    if (runtime || defined)
        return CULPRIT_CALLTREE_LINK_RUNTIME;
    return referenced ? CULPRIT_CALLTREE_LINK_HOOKS_ONLY : CULPRIT_CALLTREE_LINK_NOT_INSTRUMENTED;
}

int culprit_calltree_inspect(culprit_calltree_link *out, const char *path)
{
    Elf *elf = NULL;
    int fd;

    *out = CULPRIT_CALLTREE_LINK_UNKNOWN;
    if (elf_version(EV_CURRENT) == EV_NONE)
        return culprit_error_set(CULPRIT_ERROR, "libelf: %s", elf_errmsg(-1));
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return culprit_error_set(CULPRIT_ENOTFOUND, "cannot open '%s'", path);
    if ((elf = elf_begin(fd, ELF_C_READ, NULL)) && elf_kind(elf) == ELF_K_ELF)
        *out = link_of(elf);
    elf_end(elf);
    close(fd);
    return 0;
}

/* The program of a shell command that is a plain program and its arguments (after
 * any NAME=value assignments); NULL when it has shell syntax (a pipe, a list, a
 * redirection, quotes, expansions): which program records is then unknown. */
static char *first_word(const char *command)
{
    const char *p = command, *end;

    if (strpbrk(command, "'\"`$\\|&;<>()*?[{~\n"))
        return NULL;

    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        end = p + strcspn(p, " \t\n");
        if (end == p || memchr(p, '=', (size_t)(end - p)) == NULL)
            break;
        p = end;
    }
    if (end == p)
        return NULL;
    return strndup(p, (size_t)(end - p));
}

/* `name` as a path: relative to `dir` when it has a slash, else found in PATH. */
static char *resolve(const char *name, const char *dir)
{
    const char *path = getenv("PATH");
    char *found = NULL;

    if (strchr(name, '/'))
        return name[0] == '/' || !dir ? culprit_strdup(name) : culprit_fs_join(dir, name);
    while (path && *path && !found) {
        size_t len = strcspn(path, ":");
        char *d = strndup(path, len);
        if (d && (found = culprit_fs_join(len ? d : ".", name)) && access(found, X_OK) != 0) {
            free(found);
            found = NULL;
        }
        free(d);
        path += len + (path[len] == ':');
    }
    return found;
}

char *culprit_calltree__program(const char *const *argv, const char *workdir)
{
    const char *base = culprit_fs_base_name(argv[0]);
    char *word, *path;

    if ((!strcmp(base, "sh") || !strcmp(base, "bash")) && argv[1] && !strcmp(argv[1], "-c") &&
        argv[2]) {
        if (!(word = first_word(argv[2])))
            return NULL;
        path = resolve(word, workdir);
        free(word);
        return path;
    }
    return resolve(argv[0], workdir);
}

int culprit_calltree__explain_empty(const char *const *argv, const char *workdir, const char *what)
{
    const char *shown = argv[1] && !strcmp(argv[1], "-c") && argv[2] ? argv[2] : argv[0];
    culprit_calltree_link link = CULPRIT_CALLTREE_LINK_UNKNOWN;
    char *program = culprit_calltree__program(argv, workdir);

    if (program && culprit_calltree_inspect(&link, program) < 0)
        link = CULPRIT_CALLTREE_LINK_UNKNOWN;
    culprit_error_clear();
    free(program);
    if (link == CULPRIT_CALLTREE_LINK_HOOKS_ONLY)
        return culprit_error_set(
            CULPRIT_ENOTFOUND,
            "'%s' %s: it is instrumented but the trace runtime was not linked (it calls "
            "__cyg_profile_func_enter, which nothing in it defines, so glibc's empty hooks "
            "ran); link libculprit_trace as a whole archive: -Wl,--whole-archive "
            "LIBDIR/libculprit_trace.a -Wl,--no-whole-archive -lpthread (what `pkg-config "
            "--libs culprit-trace` gives; or build with CC=culprit-cc; docs/calltree.md, "
            "\"Instrumenting any build\")",
            shown, what);
    return culprit_error_set(
        CULPRIT_ENOTFOUND,
        "'%s' %s: it was not built with instrumentation%s; build it with "
        "culprit_instrument(<target>) in CMake (docs/cmake.md), with CC=culprit-cc, or with "
        "-finstrument-functions -g and the runtime linked as a whole archive (`pkg-config "
        "--cflags --libs culprit-trace`; docs/calltree.md, \"Instrumenting any build\")",
        shown, what,
        link == CULPRIT_CALLTREE_LINK_NOT_INSTRUMENTED
            ? " (it calls no __cyg_profile_func_enter)"
            : ", or the trace runtime was not linked into it");
}
