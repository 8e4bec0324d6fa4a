/*
 * `culprit bisect --good REV --bad REV [--build CMD] --command CMD`: finds the
 * first commit between good and bad that made CMD significantly slower, building
 * each step in a temporary checkout (culprit_bisect_session). The user's working
 * tree is never touched; Ctrl-C removes the temporary checkouts.
 */
#include "cli.h"

#include "culprit/bisect.h"
#include "culprit/vcs.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What the command line of culprit bisect sets besides the session's options. */
typedef struct {
    int json, help, automatic, no_history;
    const char *history_dir;
    const char *metric; /* the measured way's: command.metric or perf.metric */
    cli_strings paths;
    cli_bisect_fanout_args fanout;
} bisect_args;

/* The options of culprit bisect, their values going into the session's options `o`
 * and `a`; its --help too. */
#define BISECT_OPTIONS(o, a)                                                                       \
    {                                                                                              \
        CULPRIT_OPT("--good", 0, CULPRIT_OPT_STRING, &(o)->good, "REV",                            \
                    "a revision known to be fast"),                                                \
            CULPRIT_OPT("--bad", 0, CULPRIT_OPT_STRING, &(o)->bad, "REV",                          \
                        "a revision known to be slow (descendant of good)"),                       \
            CLI_OPT_BUILD(o),                                                                      \
            CULPRIT_OPT("--command", 0, CULPRIT_OPT_STRING, &(o)->command.line, "CMD",             \
                        "the command whose run time is bisected"),                                 \
            CULPRIT_OPT("--run", 0, CULPRIT_OPT_STRING, &(o)->perf.run, "CMD",                     \
                        "or: runs a culprit test binary (it gets $CULPRIT_HISTORY_DIR,\n"          \
                        "$CULPRIT_COMMIT and CULPRIT_FAIL_ON=none) ..."),                          \
            CULPRIT_OPT("--test", 0, CULPRIT_OPT_STRING, &(o)->perf.test, "NAME",                  \
                        "... and the perf test (SUITE.TEST or TEST) whose mean is\n"               \
                        "bisected, as the test binary measured it"),                               \
            CLI_OPT_RUNS(o),                                                                       \
            CLI_OPT_THRESHOLD(&(o)->measure.threshold,                                             \
                              "smallest slowdown that makes a commit bad (default 2)"),            \
            CLI_OPT_CONFIDENCE(&(o)->measure.confidence,                                           \
                               "of each step's decision (default 0.99)"),                          \
            CULPRIT_OPT("--metric", 0, CULPRIT_OPT_STRING, &(a)->metric, "NAME",                   \
                        "with --run/--test: bisect this series of the test\n"                      \
                        "($CULPRIT_METRIC): cpu_ns its CPU time, judged as time is;\n"             \
                        "a counted one (instructions, under Valgrind) with one run\n"              \
                        "of each side per step instead of the test's time;\n"                      \
                        "with --command: cpu_ns judges the command's CPU time (user +\n"           \
                        "system, with the children it waits for) instead of its wall\n"            \
                        "time, for an oversubscribed machine; instructions counts\n"               \
                        "the command's instructions under callgrind"),                             \
            CLI_OPT_COUNT_THRESHOLD(&(o)->measure.count_threshold), CLI_OPT_TIMEOUT(o),            \
            CULPRIT_OPT("--all", 0, CULPRIT_OPT_FLAG, &(o)->all, NULL,                             \
                        "find every commit that made it slower, not only one"),                    \
            CULPRIT_OPT("--auto", 0, CULPRIT_OPT_FLAG, &(a)->automatic, NULL,                      \
                        "take good and bad from the history of --test: the last\n"                 \
                        "commit where it was fine and the first flagged after it"),                \
            CULPRIT_OPT("--history", 0, CULPRIT_OPT_STRING, &(a)->history_dir, "DIR",              \
                        "the history directory (default: as culprit check): with\n"                \
                        "--test, runs of the test it holds are reused instead of\n"                \
                        "re-run, and given explicitly (or $CULPRIT_HISTORY_DIR),\n"                \
                        "the bisection's own runs are recorded there"),                            \
            CULPRIT_OPT("--no-history", 0, CULPRIT_OPT_FLAG, &(a)->no_history, NULL,               \
                        "neither reuse nor record runs"),                                          \
            CULPRIT_OPT("--paths", 0, CULPRIT_OPT_CALLBACK, &(a)->paths, "P",                      \
                        "relevant path (file, directory or glob; repeatable):\n"                   \
                        "commits touching none are not built, and the culprit\n"                   \
                        "is confirmed against its parent",                                         \
                        .set = cli_opt_append),                                                    \
            CULPRIT_OPT("--calltree", 0, CULPRIT_OPT_FLAG, &(o)->calltree, NULL,                   \
                        "then record the call trees of the culprit and its parent\n"               \
                        "(the command's binary built with culprit_instrument) and\n"               \
                        "name the functions and lines behind the slowdown"),                       \
            CULPRIT_OPT("--calltree-build", 0, CULPRIT_OPT_STRING, &(o)->calltree_build, "CMD",    \
                        "with --calltree: builds a checkout for the call trees\n"                  \
                        "(instrumented, e.g. CC=culprit-cc) while --build makes the\n"             \
                        "plain build the bisection measures"),                                     \
            CULPRIT_OPT("--json", 0, CULPRIT_OPT_FLAG, &(a)->json, NULL,                           \
                        "print the result as JSON on stdout (the text on stderr)"),                \
            CLI_OPT_BISECT_FANOUT(&(a)->fanout), CLI_OPT_HELP(&(a)->help), CULPRIT_OPT_END_ROW     \
    }

static void usage(FILE *out)
{
    culprit_bisect_options o;
    bisect_args a;
    const culprit_opt options[] = BISECT_OPTIONS(&o, &a);

    cli_usage(out,
              "usage: culprit bisect (--good REV --bad REV | --auto) [--build CMD]\n"
              "                      (--command CMD | --run CMD --test NAME) [--metric NAME]\n"
              "                      [--all] [--paths P]... [--calltree [--calltree-build CMD]]\n"
              "                      [--history DIR | --no-history] [--json]\n"
              "                      [--min-runs N] [--max-runs N] [--threshold PERCENT]\n"
              "                      [--confidence C] [--instructions-threshold PERCENT]\n"
              "                      [--timeout SECONDS] [--build-timeout SECONDS]\n"
              "                      [--plan K | --probe COMMIT | --jobs K [--rounds N]]\n"
              "                      [--remote REMOTE]\n"
              "Finds the first commit between good and bad that made CMD significantly slower.\n"
              "Each commit is checked out in a temporary directory outside the working tree,\n"
              "built with CMD's --build command there, and timed against the good end with the\n"
              "runs of the two interleaved; the working tree, index and HEAD are never touched.\n"
              "Both commands run with /bin/sh in the checkout, $CULPRIT_CHECKOUT naming it.\n"
              "\n",
              options, 24,
              "\n"
              "Exit status: 0 the culprit (or, with skipped commits, a range) was found,\n"
              "1 bad is not significantly slower than good, 2 usage or I/O error, a good or\n"
              "bad end that does not build, or too many commits that do not.\n");
}

static void put_change(FILE *out, double change, double low, double high, double confidence)
{
    if (isfinite(change))
        fprintf(out, "%+.1f%% (%g%% CI %+.1f%% to %+.1f%%)", 100 * change, 100 * confidence,
                100 * low, 100 * high);
    else
        fputs("-", out);
}

static const char *verdict_word(culprit_bisect_verdict v)
{
    return v == CULPRIT_BISECT_BAD ? "bad" : v == CULPRIT_BISECT_GOOD ? "good" : "skip";
}

/* One line per step on stderr: commit, step k of about log2 N, verdict, effect with
 * its interval; on a terminal, below it the live status line with the bar. Where
 * stderr is not a terminal (a CI log) the lines alone, as they come, so a long
 * bisection is not silent for minutes. */
void cli_bisect_step_line(const culprit_bisect_step *step, size_t index, size_t candidates,
                          void *payload)
{
    cli_bisect_progress *p = payload;
    size_t left = (size_t)ceil(log2((double)(candidates > 1 ? candidates : 2)));
    char *text = NULL;
    size_t size = 0;
    FILE *line;
    culprit_buf mean = CULPRIT_BUF_INIT;

    if (!(line = open_memstream(&text, &size)))
        return;
    if (step->deterministic) /* a count, not a time */
        culprit_buf_printf(&mean, "%.0f", step->mean_ns);
    else
        culprit_buf_put_duration(&mean, step->mean_ns);
    if (candidates == 0)
        fprintf(line, "check   %.12s             %-4s %10s ", step->sha,
                verdict_word(step->verdict), culprit_buf_cstr(&mean));
    else
        fprintf(line, "step %-2zu %.12s ~%zu left   %-4s %10s ", index, step->sha, left,
                verdict_word(step->verdict), culprit_buf_cstr(&mean));
    if (step->verdict == CULPRIT_BISECT_SKIP)
        fprintf(line, "%s\n", step->skip_reason ? step->skip_reason : "");
    else {
        put_change(line, step->change, step->change_low, step->change_high, p->confidence);
        fprintf(line, " in %zu run%s each%s", step->runs, step->runs == 1 ? "" : "s",
                step->deterministic ? " (counted: deterministic)" : "");
        if (p->series)
            fprintf(line, " (%s)", p->series);
        if (step->reused)
            fprintf(line, " (%zu from history)", step->reused);
        fputc('\n', line);
    }
    fclose(line);
    cli_progress_print(&p->bar, text);
    /* The bar: steps done against steps done plus the ones about left. */
    if (candidates == 0)
        cli_progress_status(&p->bar, NAN,
                            "bisecting: the bad end is slower; building and measuring step 1");
    else
        cli_progress_status(&p->bar, (double)(index + 1) / (double)(index + 1 + left),
                            "bisecting: step %zu done, about %zu left", index, left);
    free(text);
    culprit_buf_dispose(&mean);
}

void cli_bisect_phase_line(const char *what, void *payload)
{
    cli_bisect_progress *p = payload;
    char line[300];

    snprintf(line, sizeof(line), "%s\n", what);
    cli_progress_print(&p->bar, line);
    cli_progress_status(&p->bar, NAN, "%s", what);
}

/* " (N% of its CPU time)" when the culprit's share of the range's CPU-time slowdown is
 * known (docs/bisect.md, "Explaining the whole change"), else "". */
static const char *cpu_share(culprit_buf *b, const culprit_bisect_culprit *c)
{
    culprit_buf_clear(b);
    if (!isnan(c->cpu_share))
        culprit_buf_printf(b, " (%.0f%% of its CPU time)", 100 * c->cpu_share);
    return culprit_buf_cstr(b);
}

static void print_calltree(FILE *out, const culprit_bisect_result *r,
                           const culprit_bisect_options *o)
{
    if (r->calltree_error) {
        fprintf(stderr, "culprit: warning: no call-tree analysis: %s\n", r->calltree_error);
        return;
    }
    fprintf(out, "\ncall trees of %.12s against its parent %.12s:\n",
            r->outcome == CULPRIT_BISECT_RESULT_FOUND ? r->culprit : r->culprits[0].sha, r->parent);
    if (r->calltree_corrected && r->parent_tree && r->culprit_tree) {
        culprit_buf note = CULPRIT_BUF_INIT;
        fprintf(out,
                "times corrected against the plain builds of both commits (%s%s; %.1f and "
                "%.1f ns per instrumented call taken out, %s)\n",
                r->parent_tree->sampled && r->culprit_tree->sampled
                    ? "own times from a perf profile of them"
                    : "own times from the timing runs, not perf: ",
                r->parent_tree->sampled && r->culprit_tree->sampled
                    ? ""
                    : culprit_calltree_unsampled(r->parent_tree, r->culprit_tree),
                r->parent_tree->overhead_ns, r->culprit_tree->overhead_ns,
                r->parent_tree->fitted && r->culprit_tree->fitted
                    ? "measured against them"
                    : "the runtime's estimate: the instrumented calls cost under 2% of the "
                      "plain run, too little to measure");
        /* The culprit's tree first: its times are what the suspects are read from. */
        if (culprit_calltree_bias_note(&note, r->culprit_tree) == 0 && !note.size)
            (void)culprit_calltree_bias_note(&note, r->parent_tree);
        if (note.size)
            fprintf(out, "times still biased: %s\n", note.ptr);
        culprit_buf_dispose(&note);
    } else if (r->parent_tree && r->parent_tree->instructions)
        fprintf(out, "instructions counted by callgrind (exact: nothing to correct)\n");
    else if (r->parent_tree)
        fprintf(out, "times not corrected for the instrumentation (%s)\n",
                o->perf.run ? "a perf test's plain build repeats its body another number of times"
                            : "no plain build of the same commits: --calltree-build gives one");
    cli_print_calltree_diff(out, &r->calltree);
    fprintf(out, "%zu suspect%s among %zu functions compared\n", r->calltree.nsuspects,
            r->calltree.nsuspects == 1 ? "" : "s", r->calltree.npairs ? r->calltree.npairs - 1 : 0);
}

static void print_text(FILE *out, const culprit_bisect_result *r, double confidence)
{
    size_t skipped = 0;

    for (size_t i = 0; i < r->nsteps; i++)
        skipped += r->steps[i].verdict == CULPRIT_BISECT_SKIP;
    if (r->outcome == CULPRIT_BISECT_RESULT_NO_REGRESSION) {
        const culprit_bisect_step *s = &r->steps[0];
        fprintf(out, "culprit bisect: %.12s is not significantly slower than %.12s: ", r->bad,
                r->good);
        put_change(out, s->change, s->change_low, s->change_high, confidence);
        fprintf(out, " in %zu runs each; nothing to bisect\n", s->runs);
        if (s->undecided)
            fprintf(out,
                    "  the runs could not rule a slowdown beyond the threshold out either: they "
                    "vary too much to tell; more runs (--max-runs) may decide\n");
        return;
    }
    if (r->outcome == CULPRIT_BISECT_RESULT_SLOW_DECAY) {
        const culprit_bisect_step *s = &r->steps[0];
        fprintf(out, "culprit bisect: %.12s is slower than %.12s (", r->bad, r->good);
        put_change(out, s->change, s->change_low, s->change_high, confidence);
        fprintf(out, "), but no single commit is: a slow decay. What each commit contributes:\n");
        for (size_t i = 0; i < r->nculprits; i++) {
            fprintf(out, "  %.12s %-40.40s ", r->culprits[i].sha,
                    r->culprits[i].subject ? r->culprits[i].subject : "");
            put_change(out, r->culprits[i].change, r->culprits[i].change_low,
                       r->culprits[i].change_high, confidence);
            fprintf(out, "\n");
        }
        if (!r->nculprits)
            fprintf(out,
                    "  (the range is too long, or not on one first-parent line, to time commit by "
                    "commit)\n");
    } else if (r->outcome == CULPRIT_BISECT_RESULT_FOUND) {
        /* Subject and author come from the repository (a pull request): escaped. */
        culprit_buf t1 = CULPRIT_BUF_INIT, t2 = CULPRIT_BUF_INIT;
        fprintf(out, "culprit bisect: %s is the first slow commit\n", r->culprit);
        fprintf(out, "  %s\n  %s, %s\n  ", cli_text(&t1, r->subject ? r->subject : ""),
                cli_text(&t2, r->author ? r->author : ""), r->date ? r->date : "");
        put_change(out, r->change, r->change_low, r->change_high, confidence);
        if (r->nculprits && !isnan(r->culprits[0].share))
            fprintf(out, " against its parent; it explains %.0f%% of the good->bad change%s\n",
                    100 * r->culprits[0].share, cpu_share(&t1, &r->culprits[0]));
        else
            fprintf(out, " against the commit before it that was measured good\n");
        for (size_t i = 1; i < r->nculprits; i++) {
            fprintf(out, "  also %s %s: ", r->culprits[i].sha,
                    cli_text(&t1, r->culprits[i].subject ? r->culprits[i].subject : ""));
            put_change(out, r->culprits[i].change, r->culprits[i].change_low,
                       r->culprits[i].change_high, confidence);
            if (!isnan(r->culprits[i].share))
                fprintf(out, " against its parent; explains %.0f%%%s", 100 * r->culprits[i].share,
                        cpu_share(&t1, &r->culprits[i]));
            fprintf(out, "\n");
        }
        culprit_buf_dispose(&t1);
        culprit_buf_dispose(&t2);
        if (r->confirmed == 1)
            fprintf(out, "  confirmed: slower than its parent (%zu irrelevant commits not built)\n",
                    r->nirrelevant);
        else if (r->confirmed == 0 && r->nirrelevant)
            fprintf(out,
                    "  NOT confirmed: no slower than its parent; the cause may be in one of the "
                    "%zu commits judged irrelevant to --paths\n",
                    r->nirrelevant);
        else if (r->confirmed == 0)
            fprintf(out,
                    "  NOT confirmed: its runs could not be told from its parent's (the machine's "
                    "noise); more runs (--max-runs) may decide\n");
        if (r->backtracks)
            fprintf(out,
                    "  searched again %zu time(s): an earlier answer was no slower than its "
                    "parent, and the slowdown was measured below or above it (a step had "
                    "misjudged a commit)\n",
                    r->backtracks);
        if (r->nunsearched)
            fprintf(out,
                    "  %zu range(s) without an overall slowdown were too long to scan commit by "
                    "commit\n",
                    r->nunsearched);
    } else {
        fprintf(out, "culprit bisect: skipped commits leave %zu possible first slow commits:\n",
                r->nrange);
        for (size_t i = 0; i < r->nrange; i++)
            fprintf(out, "  %s\n", r->range[i]);
    }
    fprintf(out,
            "  %zu commits between %.12s and %.12s; %zu steps, %zu builds, %zu runs, "
            "%zu skipped",
            r->ncommits, r->good, r->bad, r->nsteps, r->builds, r->runs, skipped);
    if (r->reused)
        fprintf(out, "; %zu runs reused from history", r->reused);
    putchar('\n');
}

/* --auto: the ends the library chooses from the history of --test (as culprit check
 * finds it), printed on stderr before the bisection starts. */
static int auto_range(char good[41], char bad[41], const char *test, const char *history_dir)
{
    cli_env env;
    culprit_history_runs runs = {0, NULL, 0};
    int error;

    memset(&env, 0, sizeof(env));
    if ((error = cli_env_open(&env, NULL, history_dir, 1)) < 0 ||
        (error = cli_load_history(&runs, &env)) < 0 ||
        (error = culprit_history_require_test(&runs, test, env.settings.history_dir)) < 0 ||
        (error = culprit_bisect_auto_range(good, bad, env.repo, &runs, test)) < 0)
        goto cleanup;
    fprintf(stderr, "culprit bisect --auto: good %.12s (last fine), bad %.12s (first flagged)\n",
            good, bad);
cleanup:
    culprit_history_runs_dispose(&runs);
    cli_env_dispose(&env);
    return error;
}

/* What the command line asks besides the session's options. */
typedef struct {
    const char *history_dir;
    int json, automatic, no_history;
    char good[41], bad[41]; /* --auto's ends */
} bisect_request;

/* --auto's ends, the options checked by the library, and the flags only the command
 * has: CLI_EXIT_OK, or the exit code of the error printed. */
static int settle_options(culprit_bisect_options *o, bisect_request *q)
{
    if (q->automatic) {
        if (o->good || o->bad || !o->perf.test) {
            culprit_error_set(CULPRIT_EINVALID,
                              "bisect: --auto takes good and bad from the history of --test; "
                              "give --test, not --good or --bad");
            return cli_usage_error("bisect");
        }
        if (auto_range(q->good, q->bad, o->perf.test, q->history_dir) < 0) {
            cli_error(NULL);
            return CLI_EXIT_ERROR;
        }
        o->good = q->good;
        o->bad = q->bad;
    }
    if (culprit_bisect_options_check(o) < 0) { /* the library's one check */
        culprit_error_prefix("bisect: ");
        return cli_usage_error("bisect");
    }
    if (q->no_history && (q->history_dir || q->automatic)) {
        culprit_error_set(CULPRIT_EINVALID, "bisect: --no-history contradicts %s",
                          q->history_dir ? "--history" : "--auto");
        return cli_usage_error("bisect");
    }
    return CLI_EXIT_OK;
}

/* The result on stdout, as JSON or text: 0 found, 1 no regression, 2 on error. */
static int print_result(const culprit_bisect_result *r, const culprit_bisect_options *o, int json)
{
    int status =
        r->outcome == CULPRIT_BISECT_RESULT_NO_REGRESSION ? CLI_EXIT_REGRESSION : CLI_EXIT_OK;

    if (json) {
        culprit_buf doc = CULPRIT_BUF_INIT;
        if (culprit_bisect_result_to_json(&doc, r, o->perf.test, o->calltree) < 0 ||
            cli_print_document(&doc) < 0)
            status = CLI_EXIT_ERROR;
        culprit_buf_dispose(&doc);
    }
    /* Under --json the readable lines go to stderr, so a CI log still shows them. */
    print_text(json ? stderr : stdout, r, o->measure.confidence);
    if (o->calltree && (r->outcome == CULPRIT_BISECT_RESULT_FOUND || r->nculprits))
        print_calltree(json ? stderr : stdout, r, o);
    return status;
}

/* The session, with its progress lines and the signal handlers that clean up. */
static int run_session(culprit_bisect_options *o, const char **paths, size_t npaths,
                       const bisect_request *q)
{
    culprit_bisect_result r;
    cli_bisect_progress p;
    cli_env env;
    int error, status;

    /* The store the test's runs are reused from (as culprit check finds it), and
     * whether this session's runs are recorded there (culprit_settings). */
    memset(&env, 0, sizeof(env));
    if (o->perf.run && !q->no_history) {
        if (cli_env_open(&env, NULL, q->history_dir, 0) < 0) {
            cli_error(NULL);
            return CLI_EXIT_ERROR;
        }
        o->perf.history_dir = env.settings.history_dir;
        o->perf.record = env.settings.record_sessions;
    }
    o->paths = paths;
    o->npaths = npaths;
    cli_bisect_progress_attach(o, &p);
    cli_clean_up_on_signals();
    cli_progress_start(&p.bar, "bisecting: timing the bad end against the good end");
    error = culprit_bisect_session(&r, o);
    cli_progress_stop(&p.bar);
    cli_env_dispose(&env);
    if (error < 0) {
        cli_error(NULL);
        return CLI_EXIT_ERROR;
    }
    status = print_result(&r, o, q->json);
    culprit_bisect_result_dispose(&r);
    return status;
}

/* A usage error once --paths may have been collected. */
static int usage_error(const char **paths)
{
    free(paths);
    return cli_usage_error("bisect");
}

int cli_bisect(int argc, char **argv)
{
    culprit_bisect_options o = CULPRIT_BISECT_OPTIONS_INIT;
    bisect_args a = {0, 0, 0, 0, NULL, NULL, {NULL, 0}, {0, 0, 0, NULL, NULL}};
    const culprit_opt options[] = BISECT_OPTIONS(&o, &a);
    culprit_opt_parser parser;
    int kind, status;

    culprit_opt_parser_init(&parser, "bisect", options, argc, argv);
    while ((kind = culprit_opt_next(&parser)) != CULPRIT_OPT_END) {
        if (kind < 0)
            return usage_error(a.paths.items);
        if (kind == CULPRIT_OPT_POSITIONAL) {
            culprit_error_set(CULPRIT_EINVALID, "bisect: unexpected argument '%s'", parser.value);
            return usage_error(a.paths.items);
        }
    }
    if (a.help) {
        free(a.paths.items);
        usage(stdout);
        return CLI_EXIT_OK;
    }
    {
        bisect_request q = {a.history_dir, a.json, a.automatic, a.no_history, "", ""};
        char *owned[2] = {NULL, NULL}; /* "build" and "run" of culprit.json */
        if (cli_project_commands(&o, owned) < 0) {
            cli_error(NULL);
            status = CLI_EXIT_ERROR;
        } else {
            /* --metric names the series of the way measured (a perf test's or a command's) */
            *(o.perf.run ? &o.perf.metric : &o.command.metric) = a.metric;
            if ((status = settle_options(&o, &q)) == CLI_EXIT_OK &&
                cli_bisect_fanout_wanted(&a.fanout)) {
                o.paths = a.paths.items;
                o.npaths = a.paths.n;
                status = cli_bisect_fanout(&o, &a.fanout, q.history_dir, q.json, print_result, argc,
                                           argv);
            } else if (status == CLI_EXIT_OK)
                status = run_session(&o, a.paths.items, a.paths.n, &q);
        }
        free(owned[0]);
        free(owned[1]);
    }
    free(a.paths.items);
    return status;
}
