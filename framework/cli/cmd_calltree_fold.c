/*
 * `culprit calltree fold FILE`: a call tree (or folded stacks, normalized) printed
 * as folded stacks on stdout, the input of flamegraph.pl, speedscope, inferno and
 * the other flame-graph tools (culprit_calltree_write_folded).
 */
#include "cli.h"

#include <string.h>

static const cli_option options[] = {{"--help", 0}, {NULL, 0}};

static void usage(FILE *out)
{
    fputs("usage: culprit calltree fold FILE\n"
          "Prints FILE, a call-tree file (or folded stacks), as folded stacks: one line per\n"
          "call path, its functions from main down separated by ';', then the time spent in\n"
          "the last function itself in nanoseconds (its call count for a tree recorded in\n"
          "structure mode). For flame graphs: culprit calltree fold t.calltree | flamegraph.pl\n"
          "\n"
          "Exit status: 0 printed, 2 usage or I/O error.\n",
          out);
}

int cli_calltree_fold(int argc, char **argv)
{
    cli_args args;
    const char *path = NULL;
    culprit_calltree *tree = NULL;
    culprit_buf out = CULPRIT_BUF_INIT;
    int kind, error = 0;

    cli_args_init(&args, "calltree fold", argc, argv, options);
    while ((kind = cli_args_next(&args)) != CLI_ARG_END) {
        if (kind < 0)
            return cli_usage_error("calltree fold");
        if (kind == CLI_ARG_OPTION) { /* --help */
            usage(stdout);
            return CLI_EXIT_OK;
        }
        if (path) {
            culprit_error_set(CULPRIT_EINVALID, "calltree fold: unexpected argument '%s'",
                              args.value);
            return cli_usage_error("calltree fold");
        }
        path = args.value;
    }
    if (!path) {
        culprit_error_set(CULPRIT_EINVALID, "calltree fold: needs a call-tree FILE");
        return cli_usage_error("calltree fold");
    }
    if ((error = culprit_calltree_load(&tree, path)) < 0 ||
        (error = culprit_calltree_write_folded(&out, tree)) < 0)
        goto cleanup;
    if (fwrite(culprit_buf_cstr(&out), 1, out.size, stdout) != out.size || fflush(stdout) != 0)
        error = culprit_error_set(CULPRIT_EIO, "cannot write the folded stacks");
cleanup:
    if (error < 0)
        cli_error(NULL);
    culprit_buf_dispose(&out);
    culprit_calltree_free(tree);
    return error < 0 ? CLI_EXIT_ERROR : CLI_EXIT_OK;
}
