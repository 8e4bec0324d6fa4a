/*
 * The renderings of a check's verdicts: the lines a developer reads (a tag, then
 * the verdict's own message, coloured only on a terminal and never under
 * NO_COLOR, https://no-color.org), the JSON document (jansson, numbers that are not
 * finite as null) and the JUnit file, written by the history module so it is the
 * same schema-valid format the test binaries write.
 */
#include "../calltree/calltree_json.h"
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int cli_use_color(void)
{
    return culprit_color_wanted(STDOUT_FILENO);
}

int cli_color_for(FILE *out)
{
    return culprit_color_wanted(fileno(out));
}

int cli_color_option(int *argc, char **argv)
{
    int kept = 1;

    /* --color[=WHEN] anywhere before "--", for every command, as git and ls take it;
     * removed here so that the commands' own option tables need no row for it. */
    for (int i = 1; i < *argc; i++) {
        const char *a = argv[i], *when = NULL;
        if (strcmp(a, "--") == 0) {
            while (i < *argc)
                argv[kept++] = argv[i++];
            break;
        }
        if (strcmp(a, "--color") == 0)
            when = "always";
        else if (strncmp(a, "--color=", 8) == 0)
            when = a + 8;
        if (!when) {
            argv[kept++] = argv[i];
            continue;
        }
        if (!strcmp(when, "always"))
            culprit_color_set(1);
        else if (!strcmp(when, "never"))
            culprit_color_set(0);
        else if (!strcmp(when, "auto"))
            culprit_color_set(-1);
        else
            return culprit_error_set(CULPRIT_EINVALID, "--color: '%s' is not auto, always or never",
                                     when);
    }
    argv[kept] = NULL;
    *argc = kept;
    return 0;
}

const char *cli_verdict_tag(culprit_verdict_kind kind)
{
    return culprit_report_verdict_tag(kind);
}

const char *cli_verdict_color(culprit_verdict_kind kind)
{
    switch (kind) {
    case CULPRIT_VERDICT_MAJOR:
        return "\033[1;31m";
    case CULPRIT_VERDICT_MINOR:
        return "\033[33m";
    case CULPRIT_VERDICT_IMPROVEMENT:
        return "\033[32m";
    case CULPRIT_VERDICT_UNDECIDED:
        return "\033[36m";
    default:
        return "";
    }
}

const char *cli_text(culprit_buf *scratch, const char *s)
{
    culprit_buf_clear(scratch);
    if (s && culprit_buf_put_text(scratch, s) < 0)
        return "(out of memory)";
    return culprit_buf_cstr(scratch);
}

/* The lines of the counter detectors under a test's verdict line. */
static void print_counter_lines(FILE *out, const culprit_check_result *result, size_t i, int color)
{
    const char *c = color ? cli_verdict_color(CULPRIT_VERDICT_MINOR) : "";
    const char *reset = *c ? CLI_COLOR_RESET : "";

    if (result->clusters) {
        const culprit_clusters_verdict *v = &result->clusters[i];
        fprintf(out, "  %s%-9s%s %s\n", v->flagged ? c : "", v->flagged ? "CLUSTERS" : "clusters",
                v->flagged ? reset : "", v->message ? v->message : "");
    }
    if (result->rules) {
        const culprit_rules_verdict *v = &result->rules[i];
        fprintf(out, "  %s%-9s%s %s\n", v->flagged ? c : "", v->flagged ? "RULES" : "rules",
                v->flagged ? reset : "", v->message ? v->message : "");
        /* The rules a flagged counter violates, the largest confidence change first. */
        for (size_t f = 0; v->flagged && f < v->ncounters && f < 3; f++)
            for (size_t r = 0; r < v->counters[f].nrules && r < 2; r++)
                fprintf(out, "            %s: %s (confidence %.2f -> %.2f)\n",
                        v->counters[f].counter, v->counters[f].rules[r].text,
                        v->counters[f].rules[r].conf_base, v->counters[f].rules[r].conf_new);
    }
}

void cli_print_verdicts(FILE *out, const culprit_check_result *result, int color)
{
    culprit_buf text = CULPRIT_BUF_INIT;

    for (size_t i = 0; i < result->n; i++) {
        const culprit_verdict *v = &result->verdicts[i];
        const char *c = color ? cli_verdict_color(v->kind) : "";
        /* The message names the test, which is data: escaped for the terminal. */
        fprintf(out, "%s%-11s%s %s\n", c, cli_verdict_tag(v->kind), *c ? CLI_COLOR_RESET : "",
                cli_text(&text, v->message ? v->message : v->test));
        print_counter_lines(out, result, i, color);
    }
    culprit_buf_dispose(&text);
}

/* The order counts are listed in: the ones a reader looks for first. */
static const culprit_verdict_kind count_order[] = {
    CULPRIT_VERDICT_MAJOR,     CULPRIT_VERDICT_MINOR,     CULPRIT_VERDICT_IMPROVEMENT,
    CULPRIT_VERDICT_UNDECIDED, CULPRIT_VERDICT_UNCHANGED, CULPRIT_VERDICT_NO_BASELINE,
    CULPRIT_VERDICT_MIXED,     CULPRIT_VERDICT_NOT_RUN};
#define NKINDS (sizeof(count_order) / sizeof(count_order[0]))

static size_t count_of(const culprit_check_result *result, culprit_verdict_kind kind)
{
    size_t n = 0;

    for (size_t i = 0; i < result->n; i++)
        n += result->verdicts[i].kind == kind;
    return n;
}

void cli_put_counts(culprit_buf *out, const culprit_check_result *result)
{
    culprit_buf_printf(out, "%zu test%s", result->n, result->n == 1 ? "" : "s");
    for (size_t k = 0; k < NKINDS; k++) {
        culprit_verdict_kind kind = count_order[k];
        size_t n = count_of(result, kind);
        /* The four every summary has; the others only when they occur. */
        if (n == 0 && kind != CULPRIT_VERDICT_MAJOR && kind != CULPRIT_VERDICT_MINOR &&
            kind != CULPRIT_VERDICT_UNDECIDED && kind != CULPRIT_VERDICT_UNCHANGED)
            continue;
        culprit_buf_printf(out, "%s%zu %s", k == 0 ? ": " : ", ", n,
                           kind == CULPRIT_VERDICT_IMPROVEMENT   ? "faster"
                           : kind == CULPRIT_VERDICT_NO_BASELINE ? "no baseline"
                           : kind == CULPRIT_VERDICT_NOT_RUN     ? "not run"
                                                             : culprit_detect_verdict_name(kind));
    }
    if (result->n && culprit_detect_check_compared(result) == 0)
        culprit_buf_puts(out, "; nothing compared (no comparable baseline)");
}

/* ----------------------------------------------------------------------- JSON --- */

json_t *cli_json_document(const char *command)
{
    json_t *doc = json_object();

    if (doc) {
        json_object_set_new(doc, "culprit_json", json_integer(CLI_JSON_FORMAT));
        json_object_set_new(doc, "command", json_string(command));
    }
    return doc;
}

json_t *cli_json_number(double x)
{
    return culprit_calltree__json_double(x);
}

/* JSON carries UTF-8 only (jansson refuses the rest, and the key went missing): a
 * byte that is not is written as "\xNN" (core's culprit_text_utf8()). */
json_t *cli_json_string(const char *s)
{
    return culprit_calltree__json_text(s);
}

json_t *cli_json_counts(const culprit_check_result *result)
{
    json_t *counts = json_object();

    for (size_t k = 0; counts && k < NKINDS; k++)
        json_object_set_new(counts, culprit_detect_verdict_name(count_order[k]),
                            json_integer((json_int_t)count_of(result, count_order[k])));
    return counts;
}

/* A paired confirmation's figures; null when none was made. */
static json_t *json_paired(const culprit_paired_confirmation *c)
{
    json_t *o;

    if (c->pairs == 0 || !(o = json_object()))
        return json_null();
    json_object_set_new(o, "pairs", json_integer((json_int_t)c->pairs));
    json_object_set_new(o, "change", cli_json_number(c->change));
    json_object_set_new(o, "change_low", cli_json_number(c->change_low));
    json_object_set_new(o, "change_high", cli_json_number(c->change_high));
    json_object_set_new(o, "slower", c->slower < 0 ? json_null() : json_boolean(c->slower));
    /* The rule: CPU time when a run was preempted, else the test's time. */
    json_object_set_new(o, "judged", json_string(c->cpu ? "cpu_ns" : "time"));
    json_object_set_new(o, "preempted_runs", json_integer((json_int_t)c->preempted));
    json_object_set_new(o, "out_of_time", json_boolean(c->out_of_time));
    /* The equivalence stop: not slower, its one-sided 80% upper bound below the
     * threshold (null when it did not stop that way). */
    json_object_set_new(o, "below_high", c->below ? cli_json_number(c->below_high) : json_null());
    /* Stopped by the budget, still unknown: the next look's pairs and about the budget
     * they need (null otherwise). */
    json_object_set_new(o, "decide_pairs",
                        c->decide_pairs ? json_integer((json_int_t)c->decide_pairs) : json_null());
    json_object_set_new(o, "decide_budget_s",
                        c->decide_pairs ? cli_json_number(c->decide_budget_s) : json_null());
    return o;
}

static json_t *json_names(char *const *names, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        json_array_append_new(a, json_string(names[i]));
    return a;
}

static json_t *json_clusters(const culprit_clusters_verdict *v)
{
    json_t *o = json_object(), *clusters = json_array(), *redundant = json_array();

    if (!o || !clusters || !redundant) {
        json_decref(o);
        json_decref(clusters);
        json_decref(redundant);
        return NULL;
    }
    json_object_set_new(o, "judged", json_boolean(v->judged));
    json_object_set_new(o, "flagged", json_boolean(v->flagged));
    json_object_set_new(o, "message", cli_json_string(v->message));
    json_object_set_new(o, "threshold", cli_json_number(v->threshold));
    json_object_set_new(o, "calibrated", json_boolean(v->calibrated));
    json_object_set_new(o, "aa_pairs", json_integer((json_int_t)v->aa_pairs));
    json_object_set_new(o, "n_old", json_integer((json_int_t)v->n_old));
    json_object_set_new(o, "n_new", json_integer((json_int_t)v->n_new));
    json_object_set_new(o, "constant", json_names(v->constant, v->nconstant));
    for (size_t i = 0; i < v->nredundant; i++) {
        json_t *r = json_object();
        json_object_set_new(r, "counter", json_string(v->redundant[i]));
        json_object_set_new(r, "r2", cli_json_number(v->redundant_r2[i]));
        json_array_append_new(redundant, r);
    }
    json_object_set_new(o, "redundant", redundant);
    for (size_t i = 0; i < v->nclusters; i++) {
        const culprit_counter_cluster *c = &v->clusters[i];
        json_t *j = json_object();
        json_object_set_new(j, "dependent", json_string(c->counters[0]));
        json_object_set_new(j, "counters", json_names(c->counters, c->ncounters));
        json_object_set_new(j, "ks_p", cli_json_number(c->ks_p));
        json_object_set_new(j, "r2", cli_json_number(c->r2));
        json_object_set_new(j, "error", cli_json_number(c->error));
        json_object_set_new(j, "threshold", cli_json_number(c->threshold));
        json_object_set_new(j, "calibrated", json_boolean(c->calibrated));
        json_object_set_new(j, "flagged", json_boolean(c->flagged));
        json_array_append_new(clusters, j);
    }
    json_object_set_new(o, "clusters", clusters);
    return o;
}

static json_t *json_rules(const culprit_rules_verdict *v)
{
    json_t *o = json_object(), *counters = json_array();

    if (!o || !counters) {
        json_decref(o);
        json_decref(counters);
        return NULL;
    }
    json_object_set_new(o, "judged", json_boolean(v->judged));
    json_object_set_new(o, "flagged", json_boolean(v->flagged));
    json_object_set_new(o, "message", cli_json_string(v->message));
    json_object_set_new(o, "history_runs", json_integer((json_int_t)v->history_runs));
    json_object_set_new(o, "history_windows", json_integer((json_int_t)v->history_windows));
    json_object_set_new(o, "new_windows", json_integer((json_int_t)v->new_windows));
    json_object_set_new(o, "rules", json_integer((json_int_t)v->nrules));
    for (size_t i = 0; i < v->ncounters; i++) {
        const culprit_flagged_counter *f = &v->counters[i];
        json_t *c = json_object(), *rules = json_array();
        json_object_set_new(c, "counter", json_string(f->counter));
        json_object_set_new(c, "severity", cli_json_number(f->severity));
        json_object_set_new(c, "violated", json_integer((json_int_t)f->nviolated));
        for (size_t r = 0; r < f->nrules; r++) {
            json_t *j = json_object();
            json_object_set_new(j, "rule", json_string(f->rules[r].text));
            json_object_set_new(j, "conf_base", cli_json_number(f->rules[r].conf_base));
            json_object_set_new(j, "conf_new", cli_json_number(f->rules[r].conf_new));
            json_object_set_new(j, "change", cli_json_number(f->rules[r].change));
            json_array_append_new(rules, j);
        }
        json_object_set_new(c, "rules", rules);
        json_array_append_new(counters, c);
    }
    json_object_set_new(o, "counters", counters);
    return o;
}

/* The pooled rule's figures for a young test's minor (null when it did not judge). */
static json_t *json_spread(const culprit_verdict *v)
{
    const culprit_run_spread *s = &v->spread;

    if (isnan(v->spread_limit))
        return json_null();
    return json_pack("{s:o, s:o, s:o, s:I, s:I, s:b, s:f, s:o, s:o}", "sd", cli_json_number(s->sd),
                     "upper", cli_json_number(s->upper), "df", cli_json_number(s->df), "tests",
                     (json_int_t)s->tests, "runs", (json_int_t)s->runs, "default", s->tests == 0,
                     "factor", CULPRIT_DETECT_SPREAD_FACTOR, "limit",
                     cli_json_number(v->spread_limit), "floor_change",
                     cli_json_number(v->floor_change));
}

/* Every run a verdict compared with, in full. */
static json_t *json_base_runs(const culprit_verdict *v)
{
    json_t *a = json_array();

    for (size_t i = 0; a && i < v->nbase_runs; i++) {
        const culprit_verdict_run *r = &v->base_runs[i];
        json_array_append_new(
            a,
            json_pack("{s:o, s:o, s:o, s:o, s:o, s:I, s:b}", "commit", cli_json_string(r->commit),
                      "run_id", cli_json_string(r->id), "machine", cli_json_string(r->machine),
                      "timestamp", cli_json_string(r->timestamp), "mean_ns",
                      cli_json_number(r->mean), "n", (json_int_t)r->n, "dirty", r->dirty));
    }
    return a;
}

json_t *cli_json_verdicts(const culprit_check_result *result)
{
    json_t *tests = json_array();

    for (size_t i = 0; tests && i < result->n; i++) {
        const culprit_verdict *v = &result->verdicts[i];
        json_t *t = json_object();
        if (!t || json_array_append_new(tests, t) < 0) {
            json_decref(tests);
            return NULL;
        }
        json_object_set_new(t, "test", cli_json_string(v->test));
        json_object_set_new(t, "verdict", json_string(culprit_detect_verdict_name(v->kind)));
        json_object_set_new(t, "message", cli_json_string(v->message));
        json_object_set_new(t, "now_mean_ns", cli_json_number(v->now_mean));
        json_object_set_new(t, "now_low_ns", cli_json_number(v->now_low));
        json_object_set_new(t, "now_high_ns", cli_json_number(v->now_high));
        json_object_set_new(t, "now_n", json_integer((json_int_t)v->now_n));
        json_object_set_new(t, "set_aside", json_integer((json_int_t)v->set_aside));
        json_object_set_new(t, "base_mean_ns", cli_json_number(v->base_mean));
        json_object_set_new(t, "base_n", json_integer((json_int_t)v->base_n));
        json_object_set_new(t, "baseline", cli_json_string(v->baseline));
        json_object_set_new(t, "baseline_runs", json_base_runs(v));
        json_object_set_new(t, "change", cli_json_number(v->change));
        json_object_set_new(t, "change_low", cli_json_number(v->change_low));
        json_object_set_new(t, "change_high", cli_json_number(v->change_high));
        json_object_set_new(t, "p", cli_json_number(v->p));
        json_object_set_new(t, "q", cli_json_number(v->q));
        json_object_set_new(t, "category", cli_json_string(v->category));
        json_object_set_new(t, "category_high_ns", cli_json_number(v->category_high_ns));
        json_object_set_new(t, "more_samples", json_integer((json_int_t)v->more_samples));
        json_object_set_new(t, "between_sd_ns", cli_json_number(v->between_sd));
        json_object_set_new(t, "runs_vary", json_boolean(v->runs_vary));
        json_object_set_new(t, "mismatch", cli_json_string(v->mismatch));
        json_object_set_new(t, "compared", json_boolean(culprit_detect_verdict_compared(v)));
        json_object_set_new(t, "dirty", json_boolean(v->dirty));
        json_object_set_new(t, "evidence", json_string(culprit_detect_evidence_name(v->evidence)));
        json_object_set_new(t, "confirmed", json_boolean(culprit_detect_verdict_confirmed(v)));
        json_object_set_new(t, "run_spread", json_spread(v));
        json_object_set_new(t, "paired", json_paired(&v->paired));
        if (result->clusters)
            json_object_set_new(t, "clusters", json_clusters(&result->clusters[i]));
        if (result->rules)
            json_object_set_new(t, "rules", json_rules(&result->rules[i]));
    }
    return tests;
}

void cli_json_add_judged(json_t *doc, const culprit_check_result *result, culprit_fail_on fail_on,
                         int exit_code)
{
    json_t *detectors = json_array();
    unsigned int set = result->detectors ? result->detectors : CULPRIT_DETECTOR_TIME;

    for (unsigned int d = CULPRIT_DETECTOR_TIME; detectors && d <= CULPRIT_DETECTOR_RULES; d <<= 1)
        if (set & d)
            json_array_append_new(detectors, json_string(culprit_detect_detector_name(d)));
    json_object_set_new(doc, "detectors", detectors);
    json_object_set_new(doc, "fail_on", json_string(culprit_detect_fail_on_names()[fail_on]));
    json_object_set_new(doc, "exit_code", json_integer(exit_code));
    json_object_set_new(doc, "counts", cli_json_counts(result));
    json_object_set_new(doc, "compared",
                        json_integer((json_int_t)culprit_detect_check_compared(result)));
    json_object_set_new(doc, "nothing_compared",
                        json_boolean(result->n && !culprit_detect_check_compared(result)));
    json_object_set_new(doc, "tests", cli_json_verdicts(result));
}

int cli_json_print(json_t *doc)
{
    int error = 0;

    if (!doc)
        return culprit_error_set(CULPRIT_ERROR, "out of memory building the JSON document");
    /* 12 significant digits: far beyond the precision of any timing, and the same
     * text on every run of the same data (stable output for scripts and diffs). */
    if (json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12)) <
            0 ||
        fputc('\n', stdout) == EOF)
        error = culprit_error_set(CULPRIT_EIO, "cannot write the JSON document");
    json_decref(doc);
    return error;
}

int cli_print_document(const culprit_buf *doc)
{
    if (fwrite(doc->ptr ? doc->ptr : "", 1, doc->size, stdout) != doc->size || fflush(stdout) != 0)
        return culprit_error_set(CULPRIT_EIO, "cannot write the JSON document");
    return 0;
}

/* ---------------------------------------------------------------------- JUnit --- */

/*
 * The verdict line of test i of a JUnit document: the time verdict's message, then
 * those of the counter detectors that judged, separated by "; ".
 */
static char *junit_message(const culprit_check_result *result, size_t i)
{
    culprit_buf b = CULPRIT_BUF_INIT;
    const culprit_verdict *v = &result->verdicts[i];

    culprit_buf_puts(&b, v->message ? v->message : v->test);
    if (result->clusters && result->clusters[i].message)
        culprit_buf_printf(&b, "; %s", result->clusters[i].message);
    if (result->rules && result->rules[i].message)
        culprit_buf_printf(&b, "; %s", result->rules[i].message);
    return culprit_buf_detach(&b);
}

static int junit_test(culprit_run *run, const culprit_check_result *result, size_t i,
                      culprit_fail_on fail_on, const char *note)
{
    const culprit_verdict *v = &result->verdicts[i];
    const culprit_test_result *now = result->now[i];
    const culprit_run *from = result->now_runs[i];
    int time = !result->detectors || (result->detectors & CULPRIT_DETECTOR_TIME);
    culprit_verdict_kind kind = time ? v->kind : CULPRIT_VERDICT_UNCHANGED;
    culprit_test_result *t;
    char *message = NULL;
    const char *verdict;
    int failing, error;

    if ((error = culprit_history_run_add_test(&t, run)) < 0 ||
        (error = cli_copy_test(t, now, from->suite)) < 0)
        return error;
    /* As the exit code: a counter detector's flag is a minor regression (the time
     * stayed, a counter moved); an unconfirmed minor fails nothing. */
    failing = culprit_detect_check_test_fails(result, i, fail_on);
    verdict = culprit_detect_verdict_name(v->kind);
    if (kind != CULPRIT_VERDICT_MAJOR && culprit_detect_check_counters_flagged(result, i))
        verdict = "minor";
    if (!(message = junit_message(result, i)))
        return CULPRIT_ERROR_NOMEM();
    if ((error = culprit_str_set(&t->verdict, verdict)) < 0 ||
        (error = culprit_str_set(&t->verdict_message, message)) < 0)
        goto cleanup;
    if (failing) {
        culprit_buf full = CULPRIT_BUF_INIT;
        t->status = CULPRIT_STATUS_FAILURE;
        culprit_buf_puts(&full, message);
        if (note)
            culprit_buf_printf(&full, "; %s", note);
        error = culprit_str_set(&t->message, culprit_buf_cstr(&full));
        culprit_buf_dispose(&full);
        if (error < 0)
            goto cleanup;
    } else if (v->kind == CULPRIT_VERDICT_NO_BASELINE || v->kind == CULPRIT_VERDICT_MIXED) {
        /* Nothing compared: shown as skipped, which every CI's test view makes visible
         * (a pass would claim a comparison that did not happen). */
        t->status = CULPRIT_STATUS_SKIPPED;
        if ((error = culprit_str_set(&t->message, message)) < 0)
            goto cleanup;
    } else if (v->kind != CULPRIT_VERDICT_NOT_RUN) {
        /* The test itself passed; minor/undecided are recorded in the verdict. */
        t->status = CULPRIT_STATUS_PASS;
        if ((error = culprit_str_set(&t->message, NULL)) < 0)
            goto cleanup;
    }
cleanup:
    free(message);
    return error;
}

int cli_write_junit(const char *path, const culprit_check_result *result, const char *suite,
                    const char *commit, culprit_fail_on fail_on)
{
    return cli_write_junit_notes(path, result, suite, commit, fail_on, NULL);
}

int cli_write_junit_notes(const char *path, const culprit_check_result *result, const char *suite,
                          const char *commit, culprit_fail_on fail_on, const char *const *notes)
{
    culprit_run *run = NULL;
    const culprit_run *first = result->n ? result->now_runs[0] : NULL;
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    int error;

    if ((error = culprit_history_run_new(&run)) < 0)
        return error;
    strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    if ((error = culprit_str_set(&run->suite, suite)) < 0 ||
        (error = culprit_str_set(&run->commit, commit)) < 0 ||
        (error = culprit_str_set(&run->timestamp, stamp)) < 0)
        goto cleanup;
    /* The fingerprints of the runs judged (the first one's: a check of mixed runs
     * says so in its verdicts). */
    if (first && ((error = culprit_str_set(&run->host, first->host)) < 0 ||
                  (error = culprit_str_set(&run->machine, first->machine)) < 0 ||
                  (error = culprit_str_set(&run->compiler, first->compiler)) < 0 ||
                  (error = culprit_str_set(&run->flags, first->flags)) < 0))
        goto cleanup;
    for (size_t i = 0; i < result->n; i++)
        if ((error = junit_test(run, result, i, fail_on, notes ? notes[i] : NULL)) < 0)
            goto cleanup;
    error = culprit_history_write_file(run, path, 0);
cleanup:
    culprit_history_run_free(run);
    return error;
}
