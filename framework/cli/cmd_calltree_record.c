/*
 * `culprit calltree record` and `culprit calltree show`: the trace side of the
 * call-tree commands. record runs culprit_calltree_record() (a structure run, then
 * one timing run per level) and writes the symbolized tree; show reads a tree file,
 * symbolizes what is still an address when the binary is there, and prints the
 * indented tree with calls, inclusive and exclusive time and where each function
 * is defined, with a hint when functions are unnamed or the tree is empty.
 */
#include "cli.h"

#include "culprit/calltree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The options of culprit calltree record, their values going into `opts` and
 * `out`; its --help too. */
#define RECORD_OPTIONS(opts, out, baseline, help)                                                  \
    {                                                                                              \
        CULPRIT_OPT("--out", 0, CULPRIT_OPT_STRING, (out), "FILE",                                 \
                    "the call-tree file to write (default culprit.calltree)"),                     \
            CULPRIT_OPT("--levels", 0, CULPRIT_OPT_UINT, &(opts)->max_levels, "N",                 \
                        "time depths 1..N only (default: every depth)", .min = 1),                 \
            CULPRIT_OPT("--repeat", 0, CULPRIT_OPT_UINT, &(opts)->repeat, "N",                     \
                        "N timing runs per depth (default 1), so that even a function\n"           \
                        "called once has N samples for culprit calltree diff",                     \
                        .min = 1),                                                                 \
            CULPRIT_OPT("--metric", 0, CULPRIT_OPT_STRING, &(opts)->metric, "NAME",                \
                        "instructions: count each function's instructions and calls\n"             \
                        "under Valgrind's callgrind (any build with -g; exact under\n"             \
                        "load); default: the timed tree of an instrumented build"),                \
            CULPRIT_OPT("--quiet", 0, CULPRIT_OPT_FLAG, &(opts)->quiet, NULL,                      \
                        "send CMD's output to /dev/null"),                                         \
            CULPRIT_OPT("--baseline", 0, CULPRIT_OPT_STRING, (baseline), "SHELL-CMD",              \
                        "the same work built without instrumentation (run with /bin/sh -c):\n"     \
                        "the cost of the instrumentation is measured against it and\n"             \
                        "taken out of the times (unbiased times, docs/calltree.md)"),              \
            CLI_OPT_HELP(help), CULPRIT_OPT_END_ROW                                                \
    }

static void record_usage(FILE *out)
{
    culprit_calltree_record_options opts;
    const char *file, *baseline;
    int help;
    const culprit_opt options[] = RECORD_OPTIONS(&opts, &file, &baseline, &help);

    cli_usage(out,
              "usage: culprit calltree record [--out FILE] [--levels N] [--repeat N] [--quiet]\n"
              "                               [--baseline SHELL-CMD] [--metric instructions]\n"
              "                               [--] CMD [ARG...]\n"
              "Runs CMD, built with culprit_instrument(), once to record the structure of its\n"
              "call tree (call counts, no clock read), then once per depth of the tree timing\n"
              "only the calls at that depth, and writes the merged, symbolized tree. With\n"
              "--metric instructions, runs CMD once under Valgrind's callgrind instead and\n"
              "writes each call path's instructions and calls.\n"
              "\n",
              options, 15,
              "\nExit status: 0, or 2 on a usage or I/O error, a command that is not\n"
              "instrumented or dies of a signal.\n");
}

static void progress(unsigned int run, unsigned int nruns, void *payload)
{
    if (run == 0 && payload)
        fprintf(stderr, "culprit: counting instructions under callgrind\n");
    else if (run == 0)
        fprintf(stderr, "culprit: recording the structure\n");
    else
        fprintf(stderr, "culprit: timing depth %u of %u\n", run, nruns);
}

int cli_calltree_record(int argc, char **argv)
{
    culprit_calltree_record_options opts = CULPRIT_CALLTREE_RECORD_OPTIONS_INIT;
    culprit_calltree *tree = NULL;
    const char *out = "culprit.calltree", *baseline = NULL;
    const char *baseline_argv[] = {"/bin/sh", "-c", NULL, NULL};
    char **command = NULL;
    culprit_opt_parser p;
    int kind, help = 0, exit_code = CLI_EXIT_ERROR;
    const culprit_opt options[] = RECORD_OPTIONS(&opts, &out, &baseline, &help);

    culprit_opt_parser_init(&p, "calltree record", options, argc, argv);
    while (!command && (kind = culprit_opt_next(&p)) != CULPRIT_OPT_END) {
        if (kind < 0)
            return cli_usage_error("calltree record");
        if (kind == CULPRIT_OPT_POSITIONAL) {
            command = argv + p.i; /* the command takes every argument after it */
        } else if (help) {
            record_usage(stdout);
            return CLI_EXIT_OK;
        }
    }
    if (!command) {
        culprit_error_set(CULPRIT_EINVALID, "calltree record: no command to record");
        return cli_usage_error("calltree record");
    }
    opts.progress = progress;
    opts.payload = opts.metric && strcmp(opts.metric, "instructions") == 0 ? (void *)&opts : NULL;
    if (baseline) {
        baseline_argv[2] = baseline;
        opts.baseline = baseline_argv;
    }
    if (culprit_calltree_record(&tree, (const char *const *)command, &opts) < 0 ||
        culprit_calltree_write_file(tree, out) < 0) {
        cli_error(NULL);
        goto cleanup;
    }
    fprintf(stderr, "culprit: wrote %s (%zu nodes, %zu functions)\n", out, tree->nnodes - 1,
            tree->nfunctions);
    if (baseline && !tree->fitted)
        fprintf(stderr,
                "culprit: the instrumented calls cost less than 2%% of the baseline's time, "
                "too little to measure: the runtime's estimate of one (%.1f ns) kept\n",
                tree->overhead_ns);
    if (baseline) {
        culprit_buf note = CULPRIT_BUF_INIT;
        if (culprit_calltree_bias_note(&note, tree) < 0) {
            culprit_buf_dispose(&note);
            cli_error(NULL);
            goto cleanup;
        }
        if (note.size)
            fprintf(stderr, "culprit: warning: %s\n", note.ptr);
        culprit_buf_dispose(&note);
    }
    if (baseline)
        fprintf(stderr, "culprit: %s%s\n",
                tree->sampled ? "own times from perf samples of the baseline"
                              : "own times from the timing runs alone, not perf: ",
                tree->sampled ? "" : culprit_calltree_unsampled(tree, NULL));
    exit_code = CLI_EXIT_OK;
cleanup:
    culprit_calltree_free(tree);
    return exit_code;
}

/* ------------------------------------------------------------------- show --- */

/* The options of culprit calltree show; its --help too. */
#define SHOW_OPTIONS(max_depth, help)                                                              \
    {                                                                                              \
        CULPRIT_OPT("--depth", 0, CULPRIT_OPT_SIZE, (max_depth), "N",                              \
                    "print the nodes down to depth N only (1 = main and thread entries)",          \
                    .min = 1),                                                                     \
            CLI_OPT_HELP(help), CULPRIT_OPT_END_ROW                                                \
    }

static void show_usage(FILE *out)
{
    size_t max_depth;
    int help;
    const culprit_opt options[] = SHOW_OPTIONS(&max_depth, &help);

    cli_usage(out,
              "usage: culprit calltree show [--depth N] FILE\n"
              "Prints the call tree of FILE, one node per line, indented by depth: calls,\n"
              "inclusive and exclusive time summed over the calls ('-': not timed), the\n"
              "function and where it is defined. Functions still named by their address are\n"
              "symbolized from their binary when it is still there.\n"
              "\n",
              options, 14, "\nExit status: 0, or 2 on a usage or I/O error or an empty tree.\n");
}

static void put_time(culprit_buf *line, double ns)
{
    culprit_buf cell = CULPRIT_BUF_INIT;
    culprit_buf_put_duration(&cell, ns);
    culprit_buf_printf(line, " %11s", culprit_buf_cstr(&cell));
    culprit_buf_dispose(&cell);
}

#define SHOW_MAX_INDENT 40

static void print_node(const culprit_calltree *t, size_t i, culprit_buf *line)
{
    const culprit_calltree_node *n = &t->nodes[i];
    const culprit_calltree_function *fn = &t->functions[n->function];

    culprit_buf_clear(line);
    culprit_buf_printf(line, "%10llu", (unsigned long long)n->calls);
    put_time(line, n->inclusive_ns);
    put_time(line, n->exclusive_ns);
    /* Indented up to SHOW_MAX_INDENT levels, then the depth is written out: an
     * indent per level made a chain a million calls deep print 16.8 GB. */
    if (n->depth - 1 <= SHOW_MAX_INDENT)
        culprit_buf_printf(line, "  %*s", (int)(2 * (n->depth - 1)), "");
    else
        culprit_buf_printf(line, "  %*s[depth %zu] ", 2 * SHOW_MAX_INDENT, "", n->depth);
    culprit_buf_put_text(line, fn->name);
    if (fn->file) {
        culprit_buf_puts(line, "  ");
        culprit_buf_put_text(line, fn->file);
    }
    if (fn->file && fn->line_low)
        culprit_buf_printf(line, ":%u-%u", fn->line_low, fn->line_high);
    puts(culprit_buf_cstr(line));
}

/* Depth first, children in the order they were first called; with an explicit
 * stack, since a deep recursion makes a tree deeper than the C stack. */
static int print_tree(const culprit_calltree *t, size_t max_depth)
{
    culprit_buf line = CULPRIT_BUF_INIT;
    size_t *stack = malloc(t->nnodes * sizeof(*stack)), n = 0;

    if (!stack)
        return CULPRIT_ERROR_NOMEM();
    stack[n++] = 0;
    while (n > 0) {
        size_t i = stack[--n];
        if (i != 0)
            print_node(t, i, &line);
        if (max_depth && t->nodes[i].depth >= max_depth)
            continue;
        for (size_t c = t->nodes[i].nchildren; c > 0; c--)
            stack[n++] = t->nodes[i].children[c - 1];
    }
    free(stack);
    culprit_buf_dispose(&line);
    return 0;
}

static const char *mode_name(culprit_calltree_mode mode, int instructions)
{
    return mode == CULPRIT_CALLTREE_FULL && instructions
               ? "instructions (counted by callgrind; times below are instructions)"
           : mode == CULPRIT_CALLTREE_STRUCTURE ? "structure (call counts only)"
           : mode == CULPRIT_CALLTREE_LEVEL     ? "level (each depth timed in its own run)"
                                                : "full (every call timed)";
}

int cli_calltree_show(int argc, char **argv)
{
    culprit_calltree *tree = NULL;
    const char *file = NULL;
    size_t unnamed = 0, nofile = 0, max_depth = 0;
    culprit_opt_parser p;
    int kind, help = 0, exit_code = CLI_EXIT_ERROR;
    const culprit_opt options[] = SHOW_OPTIONS(&max_depth, &help);

    culprit_opt_parser_init(&p, "calltree show", options, argc, argv);
    while ((kind = culprit_opt_next(&p)) != CULPRIT_OPT_END) {
        if (kind < 0)
            return cli_usage_error("calltree show");
        if (help) {
            show_usage(stdout);
            return CLI_EXIT_OK;
        }
        if (kind == CULPRIT_OPT_OPTION)
            continue;
        if (file) {
            culprit_error_set(CULPRIT_EINVALID, "calltree show: one file only ('%s')", p.value);
            return cli_usage_error("calltree show");
        }
        file = p.value;
    }
    if (!file) {
        culprit_error_set(CULPRIT_EINVALID, "calltree show: which file?");
        return cli_usage_error("calltree show");
    }
    if (culprit_calltree_read_file(&tree, file) < 0 ||
        culprit_calltree_symbolize(tree, &unnamed) < 0) {
        cli_error(NULL);
        goto cleanup;
    }
    if (tree->nnodes <= 1) {
        cli_error("%s: the tree is empty: %s ran no instrumented function; build it with "
                  "culprit_instrument(<target>) in CMake, or compile with "
                  "-finstrument-functions -g and link libculprit_trace",
                  file, tree->binary ? tree->binary : "the program");
        goto cleanup;
    }
    for (size_t i = 0; i < tree->nfunctions; i++)
        nofile += tree->functions[i].file == NULL;
    printf("%s: %s\n", file, tree->command ? tree->command : tree->binary ? tree->binary : "");
    printf("mode %s", mode_name(tree->mode, tree->instructions));
    if (tree->overhead_ns > 0)
        printf(", %.1f ns per instrumented call subtracted", tree->overhead_ns);
    printf("\n\n%10s %11s %11s  %s\n", "calls", "inclusive", "exclusive", "function");
    if (print_tree(tree, max_depth) < 0) {
        cli_error(NULL);
        goto cleanup;
    }
    if (unnamed)
        fprintf(stderr,
                "culprit: hint: %zu function(s) are shown by address: their binary is gone, "
                "rebuilt since the run, stripped or without symbols; keep the unstripped "
                "binary built with -g (culprit_instrument adds it), or record with "
                "'culprit calltree record', which names functions right away\n",
                unnamed);
    else if (nofile)
        fprintf(stderr,
                "culprit: hint: %zu function(s) have no source file: build with -g for files "
                "and lines\n",
                nofile);
    exit_code = CLI_EXIT_OK;
cleanup:
    culprit_calltree_free(tree);
    return exit_code;
}
