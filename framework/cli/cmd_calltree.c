/*
 * `culprit calltree <subcommand>`: the dispatch table of the call-tree commands.
 * Each subcommand lives in its own file (cmd_calltree_record.c: record and show;
 * cmd_calltree_diff.c and cmd_calltree_fold.c: the analyses), so that two people can add
 * subcommands without touching each other's code; only this table is shared.
 */
#include "cli.h"

#include <string.h>

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} subcommand;

static const subcommand subcommands[] = {
    {"record", cli_calltree_record, "record a command's call tree (structure, then per level)"},
    {"show", cli_calltree_show, "print a call-tree file as an indented tree"},
    {"diff", cli_calltree_diff, "name the functions behind a slowdown between two call trees"},
    {"fold", cli_calltree_fold, "print a call tree as folded stacks for flame-graph tools"},
};
#define NSUB (sizeof(subcommands) / sizeof(subcommands[0]))

static void usage(FILE *out)
{
    fputs("usage: culprit calltree <subcommand> [<args>]\n"
          "Records, reads and compares the call trees of programs built with\n"
          "culprit_instrument().\n"
          "\nsubcommands:\n",
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
        if (strcmp(subcommands[i].name, argv[1]) == 0)
            return subcommands[i].run(argc - 1, argv + 1);
        names[i] = subcommands[i].name;
    }
    return cli_unknown_command("calltree", argv[1], names, NSUB);
}
