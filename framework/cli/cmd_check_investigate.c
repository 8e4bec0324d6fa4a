/*
 * `culprit check --investigate`: after the check has judged, the library's
 * culprit_bisect_investigate() bisects each regressed range and diffs the call
 * trees of the culprit and its parent. This file sets its options from the command
 * line and the project file, writes the documents `culprit report` reads into the
 * results directory, and renders the answer, "test — commit — function", in the
 * check's text, JSON and JUnit.
 */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_set_budget(const culprit_opt *opt, const char *value)
{
    double *target = opt->target, x;
    char *end;

    errno = 0;
    x = strtod(value, &end);
    if (end != value) {
        if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
            x *= 60;
        else if (strcmp(end, "h") == 0)
            x *= 3600;
        else if (*end && strcmp(end, "s") != 0)
            end = (char *)value;
    }
    if (end == value || errno || !(x >= 0) || x > 1e7)
        return culprit_error_set(CULPRIT_EINVALID,
                                 "%s: '%s' is not a duration (seconds, or with s, m or h: "
                                 "\"90\", \"30m\", \"2h\"; 0 for no limit)",
                                 opt->name, value);
    *target = x;
    return 0;
}

int cli_investigate_prepare(cli_investigate *inv, culprit_bisect_options *pair, const cli_env *env)
{
    const char *build = culprit_detect_project_command(env->project, CULPRIT_PROJECT_BUILD);
    const char *run = culprit_detect_project_command(env->project, CULPRIT_PROJECT_RUN);
    const char *trees =
        culprit_detect_project_command(env->project, CULPRIT_PROJECT_CALLTREE_BUILD);

    /* The command line first, then culprit.json. */
    inv->build_given = pair->measure.build != NULL;
    inv->run_given = pair->perf.run != NULL;
    if (!pair->measure.build)
        pair->measure.build = build;
    if (!pair->perf.run)
        pair->perf.run = run;
    if (!inv->calltree_build) /* --calltree-build first */
        inv->calltree_build = trees;
    if (!inv->enabled)
        return 0;
    if (!pair->perf.run)
        return culprit_error_set(CULPRIT_EINVALID,
                                 "check --investigate needs the command that runs the test "
                                 "binary in a checkout: --run CMD, or \"run\" in %s",
                                 env->settings.project_file ? env->settings.project_file
                                                            : "culprit.json");
    /* As culprit bisect: the history's runs are reused; whether the investigation's
     * own are recorded there is the settings' (culprit_settings.record_sessions). */
    pair->perf.history_dir = env->settings.history_dir;
    pair->perf.record = env->settings.record_sessions;
    return 0;
}

int cli_investigate_run(culprit_investigation **out, size_t *n, const cli_investigate *inv,
                        const culprit_bisect_options *pair, const culprit_check_result *result,
                        const culprit_history_runs *runs, const char *const *bases, size_t nbases)
{
    culprit_investigate_options o = CULPRIT_INVESTIGATE_OPTIONS_INIT;
    cli_bisect_progress p;
    size_t flagged = 0;
    int error;

    for (size_t i = 0; i < result->n; i++) {
        culprit_verdict_kind k = culprit_detect_check_counts_as(result, i);
        flagged += k == CULPRIT_VERDICT_MAJOR || k == CULPRIT_VERDICT_MINOR;
    }
    if (flagged && inv->budget_s > 0)
        fprintf(stderr,
                "culprit: investigating %zu regression%s: bisecting the range of each, then "
                "the call trees of the culprit; time budget %.0f %s (--investigate-budget)\n",
                flagged, flagged == 1 ? "" : "s",
                inv->budget_s >= 120 ? inv->budget_s / 60 : inv->budget_s,
                inv->budget_s >= 120 ? "min" : "s");
    else if (flagged)
        fprintf(stderr,
                "culprit: investigating %zu regression%s: bisecting the range of each, then "
                "the call trees of the culprit; no time budget\n",
                flagged, flagged == 1 ? "" : "s");
    o.bisect = *pair;
    o.calltree_build = inv->calltree_build;
    o.budget_s = inv->budget_s;
    /* A line per bisection step and per phase, a heartbeat between them (CI logs). */
    p.confidence = pair->measure.confidence;
    p.series = NULL;
    o.bisect.measure.progress = cli_bisect_step_line;
    o.bisect.measure.phase = cli_bisect_phase_line;
    o.bisect.measure.payload = &p;
    cli_progress_start(&p.bar, "investigating");
    error = culprit_bisect_investigate(out, n, result, runs, bases, nbases, &o);
    cli_progress_stop(&p.bar);
    return error;
}

/* ----------------------------------------------------------- the documents --- */

/* Writes `doc` to DIR/NAME atomically. */
static int write_doc(const char *dir, const char *name, const culprit_buf *doc)
{
    char *path = culprit_fs_join(dir, name);
    int error;

    if (!path)
        return CULPRIT_ERROR_NOMEM();
    error = culprit_fs_write_atomic(path, doc->ptr ? doc->ptr : "", doc->size, 0);
    free(path);
    return error;
}

/*
 * The results directory: bisect.json (with the call-tree analysis) and calltree.json
 * of the first investigation that found a culprit, the ones `culprit report` reads;
 * every investigation as bisect-N.json (N from 1, in the order of the check's text).
 * An overweight.json or calltree.json left from an earlier culprit is removed: the
 * report would pair it with this one.
 */
int cli_investigate_write_results(const char *dir, const culprit_investigation *invs, size_t n)
{
    culprit_buf doc = CULPRIT_BUF_INIT;
    int error = 0, first = 1;

    if (n == 0)
        return 0;
    if ((error = culprit_fs_mkdir_p(dir)) < 0)
        return error;
    for (size_t k = 0; k < n && error == 0; k++) {
        const culprit_investigation *inv = &invs[k];
        char name[48];
        if (inv->status != CULPRIT_INVESTIGATION_FOUND &&
            inv->status != CULPRIT_INVESTIGATION_UNRESOLVED)
            continue;
        culprit_buf_clear(&doc);
        snprintf(name, sizeof(name), "bisect-%zu.json", k + 1);
        if ((error = culprit_bisect_result_to_json(&doc, &inv->result, inv->tests[0], 1)) < 0 ||
            (error = write_doc(dir, name, &doc)) < 0)
            break;
        if (!first || inv->status != CULPRIT_INVESTIGATION_FOUND)
            continue;
        first = 0;
        if ((error = write_doc(dir, "bisect.json", &doc)) < 0)
            break;
        for (int i = 0; i < 2; i++) {
            char *stale = culprit_fs_join(dir, i ? "overweight.json" : "calltree.json");
            if (stale && unlink(stale) < 0 && errno != ENOENT)
                error =
                    culprit_error_set(CULPRIT_EIO, "cannot remove %s: %s", stale, strerror(errno));
            free(stale);
        }
        culprit_buf_clear(&doc);
        if (error == 0 && !inv->result.calltree_error && inv->result.calltree.npairs &&
            ((error = culprit_calltree_diff_to_json(&doc, &inv->result.calltree, NULL, NULL,
                                                    inv->result.culprit)) < 0 ||
             (error = write_doc(dir, "calltree.json", &doc)) < 0))
            break;
    }
    culprit_buf_dispose(&doc);
    return error;
}

/* ------------------------------------------------------------ rendering --- */

/* Puts `s` in single quotes for a shell. */
static void put_quoted(culprit_buf *out, const char *s)
{
    culprit_buf_puts(out, "'");
    for (; *s; s++) {
        if (*s == '\'')
            culprit_buf_puts(out, "'\\''");
        else
            culprit_buf_put(out, &(char){*s}, 1);
    }
    culprit_buf_puts(out, "'");
}

void cli_investigate_continue(culprit_buf *out, const cli_investigate *inv,
                              const culprit_bisect_options *pair, const cli_judge *judge,
                              const culprit_investigation *one)
{
    culprit_buf_printf(out, "culprit check --commit %.12s --baseline %.12s --test ", one->bad,
                       one->good);
    put_quoted(out, one->tests[0]);
    culprit_buf_puts(out, " --investigate --investigate-budget 0");
    if (judge->history_dir) {
        culprit_buf_puts(out, " --history ");
        put_quoted(out, judge->history_dir);
    }
    if (judge->project_file) {
        culprit_buf_puts(out, " --project ");
        put_quoted(out, judge->project_file);
    }
    if (inv->build_given && pair->measure.build) {
        culprit_buf_puts(out, " --build ");
        put_quoted(out, pair->measure.build);
    }
    if (inv->run_given && pair->perf.run) {
        culprit_buf_puts(out, " --run ");
        put_quoted(out, pair->perf.run);
    }
}

void cli_investigation_answer(culprit_buf *out, const culprit_investigation *one)
{
    const culprit_bisect_result *r = &one->result;

    switch (one->status) {
    case CULPRIT_INVESTIGATION_FOUND:
        culprit_buf_printf(out, "%.12s", r->culprit);
        if (r->subject) {
            culprit_buf_puts(out, " \"");
            culprit_buf_put_text(out, r->subject);
            culprit_buf_puts(out, "\"");
        }
        culprit_buf_puts(out, " — ");
        if (one->function) {
            culprit_buf_put_text(out, one->function);
            culprit_buf_puts(out, "()");
            if (one->file) {
                culprit_buf_puts(out, " ");
                culprit_buf_put_text(out, one->file);
                if (one->line)
                    culprit_buf_printf(out, ":%u", one->line);
            }
        } else if (one->answer) {
            culprit_buf_put_text(out, one->answer);
        } else if (r->calltree_error) {
            culprit_buf_puts(out, "no function: ");
            culprit_buf_put_text(out, r->calltree_error);
        } else {
            culprit_buf_puts(out, "no function: the call trees show no slower function");
        }
        break;
    case CULPRIT_INVESTIGATION_UNRESOLVED:
        culprit_buf_printf(out, "no single commit (%s)", culprit_bisect_outcome_name(r->outcome));
        break;
    default:
        culprit_buf_puts(out, one->status == CULPRIT_INVESTIGATION_FAILED ? "failed: "
                                                                          : "not investigated: ");
        culprit_buf_put_text(out, one->error ? one->error : "unknown");
    }
}

void cli_print_investigations(FILE *out, const culprit_investigation *invs, size_t n,
                              const cli_investigate *inv, const culprit_bisect_options *pair,
                              const cli_judge *judge)
{
    culprit_buf line = CULPRIT_BUF_INIT;

    for (size_t k = 0; k < n; k++) {
        const culprit_investigation *one = &invs[k];
        for (size_t t = 0; t < one->ntests; t++) {
            culprit_buf_clear(&line);
            culprit_buf_puts(&line, one->status == CULPRIT_INVESTIGATION_FOUND
                                        ? "INVESTIGATED "
                                        : "NOT INVESTIGATED ");
            culprit_buf_put_text(&line, one->tests[t]);
            culprit_buf_puts(&line, " — ");
            cli_investigation_answer(&line, one);
            fprintf(out, "%s\n", culprit_buf_cstr(&line));
        }
        if (one->status == CULPRIT_INVESTIGATION_FOUND) {
            fprintf(out,
                    "  %s %zu commit%s between %.12s and %.12s in %.0f s (%zu builds, %zu runs)\n",
                    one->bisected ? "bisected" : "one commit, not bisected:", one->ncommits,
                    one->ncommits == 1 ? "" : "s", one->good, one->bad, one->seconds,
                    one->result.builds, one->result.runs);
        } else {
            culprit_buf_clear(&line);
            cli_investigate_continue(&line, inv, pair, judge, one);
            fprintf(out, "  to continue: %s\n", culprit_buf_cstr(&line));
        }
    }
    culprit_buf_dispose(&line);
}

json_t *cli_json_investigations(const culprit_investigation *invs, size_t n,
                                const cli_investigate *inv, const culprit_bisect_options *pair,
                                const cli_judge *judge)
{
    json_t *array = json_array();
    culprit_buf scratch = CULPRIT_BUF_INIT;

    for (size_t k = 0; array && k < n; k++) {
        const culprit_investigation *one = &invs[k];
        const culprit_bisect_result *r = &one->result;
        int found = one->status == CULPRIT_INVESTIGATION_FOUND;
        json_t *o = json_object(), *tests = json_array();
        for (size_t t = 0; tests && t < one->ntests; t++)
            json_array_append_new(tests, json_string(one->tests[t]));
        json_object_set_new(o, "status",
                            json_string(culprit_bisect_investigation_status_name(one->status)));
        json_object_set_new(o, "tests", tests ? tests : json_null());
        json_object_set_new(o, "good", json_string(one->good));
        json_object_set_new(o, "bad", json_string(one->bad));
        json_object_set_new(o, "commits", json_integer((json_int_t)one->ncommits));
        json_object_set_new(o, "bisected", json_boolean(one->bisected));
        json_object_set_new(o, "threshold", cli_json_number(one->threshold));
        json_object_set_new(o, "culprit", found ? json_string(r->culprit) : json_null());
        json_object_set_new(o, "subject", cli_json_string(found ? r->subject : NULL));
        json_object_set_new(o, "function", cli_json_string(one->function));
        json_object_set_new(o, "file", cli_json_string(one->file));
        json_object_set_new(o, "line", one->line ? json_integer(one->line) : json_null());
        json_object_set_new(o, "answer", cli_json_string(one->answer));
        json_object_set_new(o, "calltree_error", cli_json_string(r->calltree_error));
        json_object_set_new(o, "error", cli_json_string(one->error));
        json_object_set_new(o, "builds", json_integer((json_int_t)r->builds));
        json_object_set_new(o, "runs", json_integer((json_int_t)r->runs));
        json_object_set_new(o, "seconds", cli_json_number(one->seconds));
        culprit_buf_clear(&scratch);
        if (!found)
            cli_investigate_continue(&scratch, inv, pair, judge, one);
        json_object_set_new(o, "continue",
                            found ? json_null() : json_string(culprit_buf_cstr(&scratch)));
        json_array_append_new(array, o);
    }
    culprit_buf_dispose(&scratch);
    return array;
}
