/*
 * `culprit calltree fold FILE`: a call tree (or folded stacks, normalized) printed
 * as folded stacks on stdout, the input of flamegraph.pl, speedscope, inferno and
 * the other flame-graph tools (culprit_calltree_write_folded).
 */
#include "cli.h"

#include <string.h>

static void usage(FILE *out)
{
    /* No option but --help, so no option lines. */
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
    const char *path = NULL;
    culprit_calltree *tree = NULL;
    culprit_buf out = CULPRIT_BUF_INIT;
    int kind, help = 0, error = 0;
    const culprit_opt options[] = {CLI_OPT_HELP(&help), CULPRIT_OPT_END_ROW};
    culprit_opt_parser p;

    culprit_opt_parser_init(&p, "calltree fold", options, argc, argv);
    while ((kind = culprit_opt_next(&p)) != CULPRIT_OPT_END) {
        if (kind < 0)
            return cli_usage_error("calltree fold");
        if (help) {
            usage(stdout);
            return CLI_EXIT_OK;
        }
        if (path) {
            culprit_error_set(CULPRIT_EINVALID, "calltree fold: unexpected argument '%s'", p.value);
            return cli_usage_error("calltree fold");
        }
        path = p.value;
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
