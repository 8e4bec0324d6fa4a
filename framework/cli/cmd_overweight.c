/*
 * `culprit overweight BASE TEST [--recurse N] [--json]`: which symbols grew more
 * than their share of a profile (culprit_calltree_overweight_trees), each input a
 * call-tree file or folded stacks from any profiler, told apart by content. With
 * --recurse, the top pivot's stacks are dropped and the rest analysed again.
 */
#include "cli.h"

#include <math.h>
#include <string.h>

/* The options of culprit overweight, their values going into `o`, `top` and
 * `json`; its --help too. */
#define OVERWEIGHT_OPTIONS(o, top, json, help)                                                     \
    {                                                                                              \
        CULPRIT_OPT("--recurse", 0, CULPRIT_OPT_SIZE, &(o)->recurse, "N",                          \
                    "drop the stacks of the top pivot (overweight above\n"                         \
                    "100% and a sizeable responsibility) and analyse again,\n"                     \
                    "up to N times (default 0)"),                                                  \
            CULPRIT_OPT("--min-responsibility", 0, CULPRIT_OPT_DOUBLE, &(o)->min_responsibility,   \
                        "PCT", "what is sizeable for a pivot (default 10)", .max = 100,            \
                        .what = "a percentage (0 to 100)"),                                        \
            CULPRIT_OPT("--top", 0, CULPRIT_OPT_SIZE, (top), "N",                                  \
                        "functions listed per round in text (default 20;\n"                        \
                        "0: all; --json lists all)"),                                              \
            CULPRIT_OPT("--json", 0, CULPRIT_OPT_FLAG, (json), NULL,                               \
                        "print the result as JSON on stdout"),                                     \
            CLI_OPT_HELP(help), CULPRIT_OPT_END_ROW                                                \
    }

static void usage(FILE *out)
{
    culprit_calltree_overweight_options o;
    size_t top;
    int json, help;
    const culprit_opt options[] = OVERWEIGHT_OPTIONS(&o, &top, &json, &help);

    cli_usage(out,
              "usage: culprit overweight BASE TEST [--recurse N] [--top N] [--json]\n"
              "                          [--min-responsibility PERCENT]\n"
              "Which functions grew more than their share of the total change from BASE to\n"
              "TEST. For a function s with inclusive cost B(s) before and T(s) after (each\n"
              "stack counted once even when s recurses), root costs B0, T0 and D = T0 - B0:\n"
              "  expected(s) = B(s) D / B0     overweight = 100 (T(s) - B(s)) / expected(s)\n"
              "  responsibility = 100 (T(s) - B(s)) / D\n"
              "100% overweight is growth in proportion; sorted by overweight, highest first.\n"
              "Each input is a call-tree file or folded stacks ('main;f;k 10' per line, as\n"
              "stackcollapse-perf.pl writes), told apart by content.\n"
              "\n",
              options, 30,
              "\n"
              "Exit status: 0 analysed, 2 usage or I/O error (unreadable or malformed input,\n"
              "a profile without costs).\n");
}

/* A cost in the profiles' unit: a duration for call trees, a number for weights. */
static void put_cost(culprit_buf *b, double x, int durations, int sign)
{
    if (sign && x >= 0)
        culprit_buf_puts(b, "+");
    if (durations)
        culprit_buf_put_duration(b, x);
    else
        culprit_buf_printf(b, "%.6g", x);
}

static void put_percent(culprit_buf *b, double x)
{
    if (isfinite(x))
        culprit_buf_printf(b, "%10.1f%%", x);
    else
        culprit_buf_printf(b, "%11s", "-");
}

static void print_text(FILE *out, const culprit_calltree_overweight *ow, int durations, size_t top)
{
    for (size_t r = 0; r < ow->nrounds; r++) {
        const culprit_calltree_overweight_round *round = &ow->rounds[r];
        culprit_buf b = CULPRIT_BUF_INIT;
        size_t n = top && top < round->nrows ? top : round->nrows;
        if (r > 0)
            culprit_buf_printf(&b, "\nround %zu, without the stacks of %s", r,
                               ow->rounds[r - 1].rows[ow->rounds[r - 1].pivot].name);
        else
            culprit_buf_puts(&b, "round 0");
        culprit_buf_puts(&b, ": total ");
        put_cost(&b, round->base_total, durations, 0);
        culprit_buf_puts(&b, " -> ");
        put_cost(&b, round->test_total, durations, 0);
        culprit_buf_puts(&b, " (");
        put_cost(&b, round->delta_total, durations, 1);
        culprit_buf_puts(&b, ")\n  overweight  responsib.  delta         function\n");
        for (size_t i = 0; i < n; i++) {
            const culprit_calltree_overweight_row *row = &round->rows[i];
            culprit_buf delta = CULPRIT_BUF_INIT;
            put_cost(&delta, row->delta, durations, 1);
            culprit_buf_puts(&b, " ");
            put_percent(&b, row->overweight);
            culprit_buf_puts(&b, " ");
            put_percent(&b, row->responsibility);
            /* Function and file names are data (profiles, call trees): escaped. */
            culprit_buf_printf(&b, "  %-12s  ", culprit_buf_cstr(&delta));
            culprit_buf_put_text(&b, row->name);
            if (row->file) {
                culprit_buf_puts(&b, " (");
                culprit_buf_put_text(&b, row->file);
                culprit_buf_puts(&b, ")");
            }
            culprit_buf_puts(&b, "\n");
            culprit_buf_dispose(&delta);
        }
        if (n < round->nrows)
            culprit_buf_printf(&b, "  ... %zu more (--top 0 lists all)\n", round->nrows - n);
        if (round->pivot != CULPRIT_CALLTREE_NONE) {
            culprit_buf_puts(&b, "pivot: ");
            culprit_buf_put_text(&b, round->rows[round->pivot].name);
            culprit_buf_puts(&b, "\n");
        }
        fputs(culprit_buf_cstr(&b), out);
        culprit_buf_dispose(&b);
    }
}

int cli_overweight(int argc, char **argv)
{
    culprit_opt_parser p;
    const char *paths[2] = {NULL, NULL};
    culprit_calltree *trees[2] = {NULL, NULL};
    culprit_calltree_overweight ow = {NULL, 0};
    culprit_calltree_overweight_options o = CULPRIT_CALLTREE_OVERWEIGHT_OPTIONS_INIT;
    size_t npositional = 0, top = 20;
    int kind, json = 0, help = 0, durations, error = 0;
    const culprit_opt options[] = OVERWEIGHT_OPTIONS(&o, &top, &json, &help);

    culprit_opt_parser_init(&p, "overweight", options, argc, argv);
    while ((kind = culprit_opt_next(&p)) != CULPRIT_OPT_END) {
        if (kind < 0)
            return cli_usage_error("overweight");
        if (kind == CULPRIT_OPT_POSITIONAL) {
            if (npositional == 2) {
                culprit_error_set(CULPRIT_EINVALID, "overweight: unexpected argument '%s'",
                                  p.value);
                return cli_usage_error("overweight");
            }
            paths[npositional++] = p.value;
        } else if (help) {
            usage(stdout);
            return CLI_EXIT_OK;
        }
    }
    if (npositional != 2) {
        culprit_error_set(CULPRIT_EINVALID, "overweight: needs two profiles, BASE and TEST");
        return cli_usage_error("overweight");
    }
    for (int i = 0; i < 2; i++)
        if ((error = culprit_calltree_load(&trees[i], paths[i])) < 0)
            goto cleanup;
    if ((error = culprit_calltree_overweight_trees(&ow, trees[0], trees[1], &o)) < 0)
        goto cleanup;
    /* Folded weights have no unit (samples, bytes...): shown as plain numbers. */
    durations =
        trees[0]->mode != CULPRIT_CALLTREE_WEIGHTS && trees[1]->mode != CULPRIT_CALLTREE_WEIGHTS;
    /* Under --json the readable lines go to stderr, so a CI log still shows them. */
    print_text(json ? stderr : stdout, &ow, durations, top);
    if (json) {
        culprit_buf doc = CULPRIT_BUF_INIT;
        if ((error = culprit_calltree_overweight_to_json(&doc, &ow, &o, paths[0], paths[1],
                                                         durations)) == 0)
            error = cli_print_document(&doc);
        culprit_buf_dispose(&doc);
    }
cleanup:
    if (error < 0)
        cli_error(NULL);
    culprit_calltree_overweight_dispose(&ow);
    culprit_calltree_free(trees[0]);
    culprit_calltree_free(trees[1]);
    return error < 0 ? CLI_EXIT_ERROR : CLI_EXIT_OK;
}
