/*
 * `culprit bisect --plan K | --probe COMMIT | --jobs K`: a bisection fanned out over
 * many runners (docs/bisect.md, "Fanning out"). The library decides everything
 * (framework/bisect/fanout.c: the state from the records in history, the next
 * round, a probe's verdict, the last steps); this file parses, pulls and pushes the
 * shared history as `culprit history pull/push` do, runs the probe processes of
 * --jobs, and prints.
 */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef int (*print_result_fn)(const culprit_bisect_result *r, const culprit_bisect_options *o,
                               int json);

void cli_bisect_progress_attach(culprit_bisect_options *o, cli_bisect_progress *p)
{
    p->confidence = o->measure.confidence;
    p->series = o->command.metric;
    o->measure.progress = cli_bisect_step_line;
    o->measure.phase = cli_bisect_phase_line;
    o->measure.payload = p;
}

int cli_bisect_fanout_wanted(const cli_bisect_fanout_args *f)
{
    return f->plan || f->probe || f->jobs;
}

/* `culprit history pull|push REMOTE --history DIR`, as the user would type it; what
 * it prints goes to stderr (stdout is the plan's). */
static int sync_history(const char *verb, const char *remote, const char *dir)
{
    char *argv[] = {(char *)verb, (char *)remote, "--history", (char *)dir, NULL};
    int saved, status;

    fflush(stdout);
    if ((saved = dup(STDOUT_FILENO)) < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        cli_error("cannot redirect the output of history %s: %s", verb, strerror(errno));
        return CULPRIT_ERROR;
    }
    status = cli_history_sync(4, argv);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    return status == CLI_EXIT_OK ? 0 : CULPRIT_ERROR;
}

static const char *verdict_word(culprit_bisect_verdict v)
{
    return v == CULPRIT_BISECT_BAD ? "bad" : v == CULPRIT_BISECT_GOOD ? "good" : "skip";
}

/* One record as a progress line on stderr. */
static void print_record(const culprit_fanout_record *r, double confidence)
{
    fprintf(stderr, "  round %-2zu %.12s %-4s ", r->round, r->sha, verdict_word(r->verdict));
    if (isfinite(r->change))
        fprintf(stderr, "%+.1f%% (%g%% CI %+.1f%% to %+.1f%%) ", 100 * r->change, 100 * confidence,
                100 * r->change_low, 100 * r->change_high);
    fprintf(stderr, "%s on %s%s\n", r->note ? r->note : "", r->host ? r->host : "?",
            r->used ? "" : " (not used: an older record, or no candidate)");
}

/* The state's records and the next round, as text on stderr (progress) and the plan
 * on stdout. */
static void print_plan_text(const culprit_fanout_state *st, double confidence, FILE *out)
{
    if (st->nrecords)
        fprintf(stderr, "culprit bisect: %zu probe%s recorded:\n", st->nrecords,
                st->nrecords == 1 ? "" : "s");
    for (size_t i = 0; i < st->nrecords; i++)
        print_record(&st->records[i], confidence);
    if (st->status != CULPRIT_BISECT_RUNNING)
        return;
    fprintf(out, "culprit bisect: round %zu: %zu commit%s to probe (%zu candidates of %zu commits",
            st->round, st->nplan, st->nplan == 1 ? "" : "s", st->ncandidates, st->ncommits);
    if (st->nirrelevant)
        fprintf(out, "; %zu irrelevant to --paths", st->nirrelevant);
    fprintf(out, ")\n");
    for (size_t i = 0; i < st->nplan; i++)
        fprintf(out, "  %s\n", st->plan[i]);
}

static json_t *records_json(const culprit_fanout_state *st)
{
    json_t *a = json_array();

    for (size_t i = 0; a && i < st->nrecords; i++) {
        const culprit_fanout_record *r = &st->records[i];
        json_t *o =
            json_pack("{s:s, s:I, s:s, s:I, s:s?, s:s?, s:b}", "commit", r->sha, "round",
                      (json_int_t)r->round, "verdict", verdict_word(r->verdict), "pairs",
                      (json_int_t)r->pairs, "host", r->host, "note", r->note, "used", r->used);
        if (o && r->good_count > 0)
            json_object_set_new(o, "good_count", json_real(r->good_count));
        if (o && isfinite(r->change)) {
            json_object_set_new(o, "change", json_real(r->change));
            json_object_set_new(o, "change_low", json_real(r->change_low));
            json_object_set_new(o, "change_high", json_real(r->change_high));
        }
        json_array_append_new(a, o);
    }
    return a;
}

/* The plan (or the end, `result` when found) as one JSON document on stdout. */
static int print_plan_json(const culprit_fanout_state *st, const culprit_bisect_result *result,
                           const culprit_bisect_options *o)
{
    json_t *doc =
        json_pack("{s:i, s:s, s:b, s:I, s:s, s:s, s:I, s:I}", "format", CLI_JSON_FORMAT, "command",
                  "bisect --plan", "done", st->status != CULPRIT_BISECT_RUNNING, "round",
                  (json_int_t)st->round, "good", st->good, "bad", st->bad, "ncommits",
                  (json_int_t)st->ncommits, "candidates", (json_int_t)st->ncandidates);
    json_t *list = json_array();
    culprit_buf text = CULPRIT_BUF_INIT;
    int error = 0;

    for (size_t i = 0; list && i < st->nplan; i++)
        json_array_append_new(list, json_string(st->plan[i]));
    for (size_t i = 0; list && i < st->nrange; i++)
        json_array_append_new(list, json_string(st->range[i]));
    json_object_set_new(doc, st->status == CULPRIT_BISECT_AMBIGUOUS ? "range" : "commits", list);
    json_object_set_new(doc, "records", records_json(st));
    if (result) {
        culprit_buf r = CULPRIT_BUF_INIT;
        if ((error = culprit_bisect_result_to_json(&r, result, o->perf.test, o->calltree)) == 0)
            json_object_set_new(doc, "result", json_loads(culprit_buf_cstr(&r), 0, NULL));
        culprit_buf_dispose(&r);
    }
    char *dumped = json_dumps(doc, JSON_INDENT(2));
    if (!dumped || culprit_buf_puts(&text, dumped) < 0 || culprit_buf_puts(&text, "\n") < 0 ||
        cli_print_document(&text) < 0)
        error = CULPRIT_ERROR;
    free(dumped);
    json_decref(doc);
    culprit_buf_dispose(&text);
    return error;
}

/* What the records decided: the next round, or the end (the last steps on this
 * runner for a culprit). The exit status. */
static int plan_or_finish(culprit_bisect_options *o, const culprit_fanout_state *st, int json,
                          print_result_fn print_result)
{
    culprit_bisect_result r;
    cli_bisect_progress p;
    int status = CLI_EXIT_OK;

    print_plan_text(st, o->measure.confidence, json ? stderr : stdout);
    if (st->status == CULPRIT_BISECT_RUNNING)
        return json && print_plan_json(st, NULL, o) < 0 ? CLI_EXIT_ERROR : CLI_EXIT_OK;
    if (st->status == CULPRIT_BISECT_AMBIGUOUS) {
        fprintf(json ? stderr : stdout,
                "culprit bisect: skipped commits leave %zu possible first slow commits:\n",
                st->nrange);
        for (size_t i = 0; i < st->nrange; i++)
            fprintf(json ? stderr : stdout, "  %s\n", st->range[i]);
        return json && print_plan_json(st, NULL, o) < 0 ? CLI_EXIT_ERROR : CLI_EXIT_OK;
    }
    fprintf(stderr,
            "culprit bisect: the probes found %.12s after %zu round%s; confirming it against its "
            "parent on this runner\n",
            st->culprit, st->round - 1, st->round == 2 ? "" : "s");
    cli_bisect_progress_attach(o, &p);
    cli_clean_up_on_signals();
    cli_progress_start(&p.bar, "bisecting: confirming the culprit against its parent");
    int error = culprit_bisect_fanout_finish(&r, o, st);
    cli_progress_stop(&p.bar);
    if (error < 0) {
        cli_error(NULL);
        return CLI_EXIT_ERROR;
    }
    if (r.outcome == CULPRIT_BISECT_RESULT_NO_REGRESSION)
        fprintf(stderr,
                "culprit bisect: the probes' answer %.12s is NOT confirmed: it is no slower than "
                "its parent on this runner, and bisecting again on this runner found no commit "
                "slower than its parent either; on a noisy machine, try a higher --max-runs\n",
                st->culprit);
    else if (r.backtracks)
        fprintf(stderr,
                "culprit bisect: the probes' answer %.12s was not confirmed against its parent "
                "(a record misjudged a commit); the answer below comes from bisecting again on "
                "this runner\n",
                st->culprit);
    if (json) {
        status = print_plan_json(st, &r, o) < 0 ? CLI_EXIT_ERROR : CLI_EXIT_OK;
        if (status == CLI_EXIT_OK && r.outcome == CULPRIT_BISECT_RESULT_NO_REGRESSION)
            status = CLI_EXIT_REGRESSION;
    } else
        status = print_result(&r, o, 0);
    culprit_bisect_result_dispose(&r);
    return status;
}

/* --probe COMMIT: one probe, its record written and (with --remote) pushed. */
static int probe(culprit_bisect_options *o, const culprit_fanout_options *fo,
                 const cli_bisect_fanout_args *f)
{
    culprit_fanout_record r;

    if (f->remote && sync_history("pull", f->remote, fo->record_dir) < 0)
        return CLI_EXIT_ERROR; /* the round it belongs to is read from the shared records */
    cli_clean_up_on_signals();
    fprintf(stderr, "culprit bisect --probe %s: building and measuring against the good end\n",
            f->probe);
    if (culprit_bisect_fanout_probe(&r, o, fo, f->probe) < 0) {
        culprit_error_prefix("bisect --probe %s: nothing recorded (it will be planned again): ",
                             f->probe);
        cli_error(NULL);
        return CLI_EXIT_ERROR;
    }
    fprintf(stdout, "culprit bisect --probe: recorded\n");
    r.used = 1;
    print_record(&r, o->measure.confidence);
    culprit_bisect_fanout_record_dispose(&r);
    if (f->remote && sync_history("push", f->remote, fo->record_dir) < 0)
        return CLI_EXIT_ERROR;
    return CLI_EXIT_OK;
}

/* The command line of a probe process of --jobs: bisect's own, with --probe SHA for
 * --jobs K, and without --json, --rounds and --plan. */
static char **probe_argv(int argc, char **argv, const char *sha)
{
    char **out = calloc((size_t)argc + 5, sizeof(*out));
    int n = 0;

    if (!out)
        return NULL;
    out[n++] = "culprit";
    out[n++] = "bisect";
    out[n++] = "--probe";
    out[n++] = (char *)sha;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int pair =
            strcmp(a, "--jobs") == 0 || strcmp(a, "--rounds") == 0 || strcmp(a, "--plan") == 0;
        if (pair) {
            i++;
            continue;
        }
        if (strcmp(a, "--json") == 0 || strncmp(a, "--jobs=", 7) == 0 ||
            strncmp(a, "--rounds=", 9) == 0 || strncmp(a, "--plan=", 7) == 0)
            continue;
        out[n++] = (char *)a;
    }
    return out;
}

/* One round of --jobs: a probe process per planned commit, at once, each with its
 * own checkouts; their output goes to stderr. The number that failed. */
static size_t run_round(const culprit_fanout_state *st, int argc, char **argv)
{
    pid_t *pids = calloc(st->nplan ? st->nplan : 1, sizeof(*pids));
    size_t failed = 0;

    fflush(stdout);
    fflush(stderr);
    for (size_t i = 0; pids && i < st->nplan; i++) {
        char **args = probe_argv(argc, argv, st->plan[i]);
        if (!args || (pids[i] = fork()) < 0) {
            pids[i] = -1;
            free(args);
            continue;
        }
        if (pids[i] == 0) {
            dup2(STDERR_FILENO, STDOUT_FILENO);
            execv("/proc/self/exe", args);
            _exit(127);
        }
        free(args);
    }
    for (size_t i = 0; i < st->nplan; i++) {
        int ws = 0;
        if (!pids || pids[i] < 0) {
            failed++;
            continue;
        }
        while (waitpid(pids[i], &ws, 0) < 0 && errno == EINTR)
            ;
        if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
            fprintf(stderr, "culprit bisect: the probe of %.12s failed: planned again\n",
                    st->plan[i]);
            failed++;
        }
    }
    free(pids);
    return failed;
}

/* The state now (after a pull with --remote). */
static int load_state(culprit_fanout_state *st, const culprit_bisect_options *o,
                      const culprit_fanout_options *fo, const cli_bisect_fanout_args *f)
{
    if (f->remote && sync_history("pull", f->remote, fo->record_dir) < 0)
        return CULPRIT_ERROR;
    if (culprit_bisect_fanout_state(st, o, fo) < 0) {
        cli_error(NULL);
        return CULPRIT_ERROR;
    }
    return 0;
}

/* --jobs K: rounds of K probe processes until the records decide (or --rounds). */
static int jobs(culprit_bisect_options *o, const culprit_fanout_options *fo,
                const cli_bisect_fanout_args *f, int json, print_result_fn print_result, int argc,
                char **argv)
{
    culprit_fanout_state st;
    size_t rounds = 0;
    int status;

    for (;;) {
        if (load_state(&st, o, fo, f) < 0)
            return CLI_EXIT_ERROR;
        if (st.status != CULPRIT_BISECT_RUNNING || (f->rounds && rounds == f->rounds))
            break;
        print_plan_text(&st, o->measure.confidence, stderr);
        if (run_round(&st, argc, argv) == st.nplan) {
            fprintf(stderr,
                    "culprit: error: bisect --jobs: every probe of round %zu failed; "
                    "stopping (the probes' messages say why)\n",
                    st.round);
            culprit_bisect_fanout_state_dispose(&st);
            return CLI_EXIT_ERROR;
        }
        rounds++;
        culprit_bisect_fanout_state_dispose(&st);
    }
    status = plan_or_finish(o, &st, json, print_result);
    culprit_bisect_fanout_state_dispose(&st);
    return status;
}

int cli_bisect_fanout(culprit_bisect_options *o, const cli_bisect_fanout_args *f,
                      const char *history_dir, int json, print_result_fn print_result, int argc,
                      char **argv)
{
    culprit_fanout_options fo = CULPRIT_FANOUT_OPTIONS_INIT;
    culprit_fanout_state st;
    cli_env env;
    int status;

    if ((f->plan != 0) + (f->probe != NULL) + (f->jobs != 0) > 1 || (f->rounds && !f->jobs)) {
        culprit_error_set(CULPRIT_EINVALID, "bisect: --plan, --probe and --jobs exclude each "
                                            "other, and --rounds goes with --jobs");
        return cli_usage_error("bisect");
    }
    if ((f->probe || f->jobs) && !history_dir && !getenv("CULPRIT_HISTORY_DIR")) {
        culprit_error_set(CULPRIT_EINVALID,
                          "bisect: %s records into history: name the directory with --history "
                          "DIR (or $CULPRIT_HISTORY_DIR)",
                          f->probe ? "--probe" : "--jobs");
        return cli_usage_error("bisect");
    }
    if (cli_env_open(&env, NULL, history_dir, 1) < 0) {
        cli_error(NULL);
        return CLI_EXIT_ERROR;
    }
    fo.k = f->plan ? f->plan : f->jobs ? f->jobs : 1;
    fo.history = env.history;
    fo.record_dir = env.settings.history_dir;
    if (o->perf.run) { /* a counted metric's runs are reused and recorded (fanout.c) */
        o->perf.history_dir = env.settings.history_dir;
        o->perf.record = 1;
    }
    if (f->probe)
        status = probe(o, &fo, f);
    else if (f->jobs)
        status = jobs(o, &fo, f, json, print_result, argc, argv);
    else if (load_state(&st, o, &fo, f) < 0)
        status = CLI_EXIT_ERROR;
    else {
        status = plan_or_finish(o, &st, json, print_result);
        culprit_bisect_fanout_state_dispose(&st);
    }
    cli_env_dispose(&env);
    return status;
}
