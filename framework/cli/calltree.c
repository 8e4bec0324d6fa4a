/*
 * `culprit calltree <subcommand>`: the call-tree commands, dispatched from a small
 * table. Each subcommand lives in a file of its own (calltree_diff.c,
 * calltree_fold.c, ...), so that the commands of recording and of analysis grow
 * side by side.
 */
#include "cli.h"

#include <string.h>

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} subcommand;

static const subcommand subcommands[] = {
    {"diff", cli_calltree_diff, "name the functions behind a slowdown between two call trees"},
    {"fold", cli_calltree_fold, "print a call tree as folded stacks for flame-graph tools"},
};
#define NSUB (sizeof(subcommands) / sizeof(subcommands[0]))

static void usage(FILE *out)
{
    fputs("usage: culprit calltree <subcommand> [<args>]\n"
          "Call trees recorded from binaries built with -finstrument-functions.\n"
          "\n"
          "subcommands:\n",
          out);
    for (size_t i = 0; i < NSUB; i++)
        fprintf(out, "  %-10s %s\n", subcommands[i].name, subcommands[i].summary);
    fputs("\n'culprit calltree <subcommand> --help' describes one.\n", out);
}

int cli_calltree(int argc, char **argv)
{
    const char *names[NSUB];

    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_ERROR;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return CLI_EXIT_OK;
    }
    for (size_t i = 0; i < NSUB; i++) {
        if (strcmp(argv[1], subcommands[i].name) == 0)
            return subcommands[i].run(argc - 1, argv + 1);
        names[i] = subcommands[i].name;
    }
    return cli_unknown_command("calltree", argv[1], names, NSUB);
}
