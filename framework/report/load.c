/*
 * Puts the results the other commands printed with --json into the report: each
 * document is read by the module that owns its format (culprit_bisect_result_from_json(),
 * culprit_calltree_view_from_json(), culprit_calltree_overweight_table_from_json()),
 * into the types the report renders from. This file only adds what the report
 * knows: which option named the file (the messages start with it, "--bisect: ...",
 * as the user typed it), and that a bisection's embedded call-tree analysis gives
 * way to one named with --calltree.
 */
#include "report_internal.h"

#include <stdlib.h>

/* Puts "OPTION: " before the reader's message; `error` passes through. */
static int named(int error, const char *option)
{
    if (error >= 0)
        return error;
    culprit_error_prefix("%s: ", option);
    return culprit_error_recode(error);
}

int culprit_report_load_bisect(culprit_report *report, const char *path)
{
    culprit_bisect_result *b = calloc(1, sizeof(*b));
    culprit_calltree_view *calltree = NULL;
    char *test = NULL;
    int error;

    if (!b)
        return CULPRIT_ERROR_NOMEM();
    /* A document named with --calltree, or found in the results directory, takes the
     * place of the analysis bisect --calltree embeds. */
    if ((error = named(
             culprit_bisect_result_from_json(b, &test, report->calltree ? NULL : &calltree, path),
             "--bisect")) < 0) {
        free(b);
        return error;
    }
    culprit_report__bisect_free(report->bisect);
    free(report->bisect_test);
    report->bisect = b;
    report->bisect_test = test;
    if (calltree)
        report->calltree = calltree;
    return 0;
}

int culprit_report_load_calltree(culprit_report *report, const char *path)
{
    culprit_calltree_view *tree = NULL;
    int error;

    if ((error = named(culprit_calltree_view_from_json(&tree, path), "--calltree")) < 0)
        return error;
    culprit_calltree_view_free(report->calltree);
    report->calltree = tree;
    return 0;
}

int culprit_report_load_overweight(culprit_report *report, const char *path)
{
    culprit_calltree_overweight_table *table = NULL;
    int error;

    if ((error = named(culprit_calltree_overweight_table_from_json(&table, path), "--overweight")) <
        0)
        return error;
    culprit_calltree_overweight_table_free(report->overweight);
    report->overweight = table;
    return 0;
}
