/*
 * The `culprit` command: a thin consumer of include/culprit/, as git's CLI sits on
 * libgit2 and curl's tool on libcurl. This file dispatches to the subcommands
 * (check, compare, history, categories), answers --version and --help, and turns
 * a mistyped subcommand into a "did you mean". Exit codes (docs/cli.md): 0 clean,
 * 1 a regression according to --fail-on, 2 a usage or I/O error.
 */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"check", cli_check, "judge the tests measured at a commit against their baseline"},
    {"compare", cli_compare, "judge one run, file or revision, against another"},
    {"history", cli_history, "each test's measurements along first-parent history"},
    {"categories", cli_categories, "show and change the tests' speed categories"},
    {"bisect", cli_bisect, "find the commit that made a command slower"},
    {"report", cli_report, "write the HTML report, or a Markdown summary for CI"},
    {"junit", cli_junit, "merge runs into one JUnit report (ctest, dashboards)"},
    {"calltree", cli_calltree, "record, show, fold and diff call trees"},
    {"overweight", cli_overweight, "which functions grew more than their share of a profile"},
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
    fputs("usage: culprit [--version] [--help] [-C DIR] <command> [<args>]\n"
          "Judges the performance history the culprit test binaries record.\n"
          "\n"
          "commands:\n",
          out);
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(out, "  %-12s %s\n", commands[i].name, commands[i].summary);
    fputs("\n'culprit help <command>', 'culprit <command> --help' or 'man culprit-<command>'\n"
          "describes one. --color=auto|always|never colours the verdicts (any command).\n"
          "-C DIR runs as if started in DIR (as git -C does: a build directory outside the\n"
          "repository runs 'culprit -C ../repo check').\n"
          "Exit status: 0 clean, 1 a regression according to --fail-on, 2 usage or I/O "
          "error.\n",
          out);
}

static const command *find_command(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

static int unknown_command(const char *name)
{
    const char *names[NCOMMANDS + 1];

    for (size_t i = 0; i < NCOMMANDS; i++)
        names[i] = commands[i].name;
    names[NCOMMANDS] = "help";
    return cli_unknown_command(NULL, name, names, NCOMMANDS + 1);
}

/*
 * Whatever a command printed must have reached stdout: `culprit check --json >
 * /dev/full` exited 0 with nothing written. stdio reports a failed write only in
 * the stream's error flag or at the final flush, so both are checked once, here,
 * for every command (as coreutils' close_stdout does). A failed write is exit 2.
 */
static int finish(int exit_code)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "culprit: cannot write the output: %s\n",
                errno ? strerror(errno) : "write error");
        return CLI_EXIT_ERROR;
    }
    return exit_code;
}

static int dispatch(int argc, char **argv)
{
    const command *cmd;

    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_ERROR;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("culprit %s\n", CLI_VERSION);
        return CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "help") == 0) {
        char *help_argv[] = {argv[2], "--help", NULL};
        if (argc < 3) {
            usage(stdout);
            return CLI_EXIT_OK;
        }
        if (!(cmd = find_command(argv[2])))
            return unknown_command(argv[2]);
        return cmd->run(2, help_argv);
    }
    if (argv[1][0] == '-') {
        culprit_error_set(CULPRIT_EINVALID, "unknown option '%s'", argv[1]);
        return cli_usage_error(NULL);
    }
    if (!(cmd = find_command(argv[1])))
        return unknown_command(argv[1]);
    /* The subcommand sees argv[0] = its own name, as git's builtins do. */
    return cmd->run(argc - 1, argv + 1);
}

/*
 * `-C DIR` before the command, as git's: run as if started in DIR. Several apply in
 * turn, each relative to the one before; an empty DIR changes nothing. Removes them
 * from argv. 0, or CLI_EXIT_ERROR when DIR cannot be entered (printed).
 */
static int change_directory(int *argc, char **argv)
{
    while (*argc > 1 && strncmp(argv[1], "-C", 2) == 0) {
        const char *dir = argv[1][2] ? argv[1] + 2 : argv[2];
        int used = argv[1][2] ? 1 : 2;
        if (!dir) {
            culprit_error_set(CULPRIT_EINVALID, "-C needs a directory");
            return cli_usage_error(NULL);
        }
        if (*dir && chdir(dir) != 0) {
            culprit_error_set(CULPRIT_EIO, "cannot change to '%s': %s", dir, strerror(errno));
            cli_error(NULL);
            return CLI_EXIT_ERROR;
        }
        memmove(argv + 1, argv + 1 + used, (size_t)(*argc - 1 - used + 1) * sizeof(*argv));
        *argc -= used;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int error;

    /* Every command: any of them may run a child or make a temporary entry (git for
     * the shared history, a recorded program), and Ctrl-C or SIGTERM must end the
     * child and remove them before culprit dies of the signal. */
    cli_clean_up_on_signals();
    if (cli_color_option(&argc, argv) < 0)
        return cli_usage_error(NULL);
    if ((error = change_directory(&argc, argv)) != 0)
        return error;
    return finish(dispatch(argc, argv));
}
