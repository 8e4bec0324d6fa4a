/*
 * The instruction-count view of culprit_calltree_record() (options' metric
 * "instructions"): the command runs once under Valgrind's callgrind, every process
 * it starts traced (--trace-children=yes, one dump per process), and the dumps are
 * read into one tree (callgrind.c). Counts of a deterministic program do not move
 * with the machine's load, so two recordings of one build give the same tree, and
 * the diff of two builds shows what the change did, not what the neighbours did.
 * No instrumented build is needed (callgrind names functions from the symbol
 * tables and debug info), and uninstrumented code (libc) is counted too.
 */
#include "calltree_internal.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The dumps' names in `dir`: "cg.PID", sorted (a stable order of the processes). */
static int dumps(char ***out, size_t *n, const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t a = 0;

    *out = NULL;
    *n = 0;
    if (!d)
        return culprit_error_set_os("cannot read '%s'", dir);
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "cg.", 3) != 0)
            continue;
        if (culprit_array_grow(out, &a, *n, sizeof(**out), 8) < 0 ||
            !((*out)[*n] = culprit_fs_join(dir, e->d_name))) {
            closedir(d);
            return CULPRIT_ERROR;
        }
        (*n)++;
    }
    closedir(d);
    for (size_t i = 1; i < *n; i++) /* few: insertion sort */
        for (size_t j = i; j > 0 && strcmp((*out)[j - 1], (*out)[j]) > 0; j--) {
            char *t = (*out)[j];
            (*out)[j] = (*out)[j - 1];
            (*out)[j - 1] = t;
        }
    return 0;
}

/* Runs `argv` under callgrind in `opts`' directory and environment; dumps in `dir`. */
static int run_counted(const char *const *argv, const culprit_calltree_record_options *opts,
                       const char *dir)
{
    culprit_process_options po = CULPRIT_PROCESS_OPTIONS_INIT;
    culprit_process_result result;
    culprit_buf out_opt = CULPRIT_BUF_INIT, msg = CULPRIT_BUF_INIT;
    const char **vargv = NULL, **env = NULL;
    size_t n = 0, nextra = 0, k = 0;
    int error;

    while (argv[n])
        n++;
    while (opts->env && opts->env[nextra])
        nextra++;
    if ((error = culprit_buf_printf(&out_opt, "--callgrind-out-file=%s/cg.%%p", dir)) < 0)
        goto cleanup;
    if (!(vargv = calloc(n + 8, sizeof(*vargv))) || !(env = calloc(nextra + 3, sizeof(*env)))) {
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    vargv[k++] = "valgrind";
    vargv[k++] = "--tool=callgrind";
    vargv[k++] = "-q";
    vargv[k++] = "--trace-children=yes";
    vargv[k++] = "--dump-instr=no";
    vargv[k++] = out_opt.ptr;
    for (size_t i = 0; i < n; i++)
        vargv[k++] = argv[i];
    for (k = 0; k < nextra; k++)
        env[k] = opts->env[k];
    /* An instrumented binary's runtime writes no tree of its own meanwhile. */
    env[k++] = "CULPRIT_TRACE_OUT=";
    env[k++] = "CULPRIT_TRACE_DIR=";
    po.argv = vargv;
    po.dir = opts->workdir;
    po.env = env;
    po.output = opts->quiet ? CULPRIT_PROCESS_QUIET : CULPRIT_PROCESS_INHERIT;
    if ((error = culprit_process_run(&result, &po)) < 0) {
        if (error == CULPRIT_ENOTFOUND)
            error = culprit_error_set(CULPRIT_ENOTFOUND,
                                      "instruction call trees are counted under Valgrind, and "
                                      "'valgrind' is not on PATH (Debian package: valgrind)");
        goto cleanup;
    }
    if (!result.exited) {
        culprit_buf what = CULPRIT_BUF_INIT;
        culprit_buf_printf(&what, "'%s' under callgrind", argv[0]);
        culprit_process_describe(&msg, &result, culprit_buf_cstr(&what), 0);
        culprit_buf_dispose(&what);
        error = culprit_error_set(CULPRIT_ERROR, "%s while recorded", culprit_buf_cstr(&msg));
    }
    culprit_process_result_dispose(&result);
cleanup:
    free(vargv);
    free(env);
    culprit_buf_dispose(&out_opt);
    culprit_buf_dispose(&msg);
    return error;
}

int culprit_calltree_read_callgrind_dir(culprit_calltree *tree, double *total, const char *dir)
{
    char **paths = NULL;
    size_t n = 0;
    int error;

    if (total)
        *total = 0;
    if ((error = dumps(&paths, &n, dir)) == 0 && n == 0)
        error = culprit_error_set(CULPRIT_ENOTFOUND, "no callgrind dump ('cg.*') in '%s'", dir);
    for (size_t i = 0; error == 0 && i < n; i++) {
        culprit_buf text = CULPRIT_BUF_INIT;
        double t = 0;
        if ((error = culprit_fs_read_file(&text, paths[i])) == 0)
            error = culprit_calltree_add_callgrind(tree, &t, culprit_buf_cstr(&text), text.size,
                                                   culprit_fs_base_name(paths[i]));
        if (total)
            *total += t;
        culprit_buf_dispose(&text);
    }
    for (size_t i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
    return error;
}

static int read_dumps(culprit_calltree *tree, const char *dir, const char *const *argv)
{
    int error = culprit_calltree_read_callgrind_dir(tree, NULL, dir);

    if (error == CULPRIT_ENOTFOUND)
        error =
            culprit_error_set(CULPRIT_ENOTFOUND,
                              "'%s' under callgrind wrote no profile: it did not start (not found, "
                              "or not a program valgrind can run)",
                              argv[0]);
    return error;
}

/* The command line as the tree's command, argv[0] as its binary. */
static int name_command(culprit_calltree *tree, const char *const *argv)
{
    culprit_buf cmd = CULPRIT_BUF_INIT;

    for (size_t i = 0; argv[i]; i++)
        if ((i && culprit_buf_puts(&cmd, " ") < 0) || culprit_buf_puts(&cmd, argv[i]) < 0) {
            culprit_buf_dispose(&cmd);
            return CULPRIT_ERROR;
        }
    free(tree->command);
    free(tree->binary);
    tree->binary = culprit_strdup(argv[0]);
    tree->command = culprit_buf_detach(&cmd);
    culprit_buf_dispose(&cmd);
    return tree->binary && tree->command ? 0 : CULPRIT_ERROR;
}

int culprit_calltree__record_callgrind(culprit_calltree **out, const char *const *argv,
                                       const culprit_calltree_record_options *opts)
{
    culprit_calltree *tree = NULL;
    culprit_buf dir = CULPRIT_BUF_INIT;
    int error;

    *out = NULL;
    if (strcmp(opts->metric, "instructions") != 0)
        return culprit_error_set(CULPRIT_EINVALID,
                                 "no call tree of the metric '%s' (instructions, or time: the "
                                 "timed tree of an instrumented build)",
                                 opts->metric);
    if (opts->baseline)
        return culprit_error_set(CULPRIT_EINVALID,
                                 "a baseline corrects times: instruction counts need none");
    if ((error = culprit_fs_make_temp(&dir, NULL, "callgrind", 1)) < 0) {
        culprit_buf_dispose(&dir);
        return error;
    }
    if (opts->progress)
        opts->progress(0, 0, opts->payload);
    if ((error = run_counted(argv, opts, dir.ptr)) == 0 &&
        (error = culprit_calltree_new(&tree)) == 0 &&
        (error = read_dumps(tree, dir.ptr, argv)) == 0 && (error = name_command(tree, argv)) == 0)
        error = tree->nnodes > 1
                    ? 0
                    : culprit_error_set(CULPRIT_ENOTFOUND, "'%s' under callgrind counted no call",
                                        argv[0]);
    if (error == 0) {
        *out = tree;
        tree = NULL;
    }
    culprit_calltree_free(tree);
    {
        culprit_error_state saved;
        culprit_error_save(&saved);
        (void)culprit_fs_remove_tree(dir.ptr);
        culprit_error_restore(&saved);
    }
    culprit_buf_dispose(&dir);
    return error;
}
