/*
 * The parts of a bisection session and the seams between them (docs/bisect.md,
 * "The session's parts"):
 *
 *   probe.c       builds and runs one side in a checkout, reuses and records
 *                 history: the probe, an interface (culprit_bisect__probe) so
 *                 that tests can plant samples, as the measuring loop takes its
 *                 clock;
 *   command.c     a build or a measured command run in a checkout, timed;
 *                 a command's instructions counted under callgrind;
 *   comparison.c  one comparison of a candidate with a good end: warm-up, pairs,
 *                 fences, the paired and Welch judgements, more runs up to
 *                 max_runs;
 *   search.c      range bisection, confirmation against the parent, searching
 *                 again, --paths;
 *   scan.c        the commit-by-commit scans: --all and slow decay;
 *   measurement.c the options' one validator, which every entry point calls;
 *   session.c     the entry point: the ends, the result;
 *   calltree.c    the call-tree step, in the checkouts the session built;
 *   fanout.c      the fanned-out bisection: records in history replayed into
 *                 rounds, one probe paired and recorded (uses the range, the
 *                 relevance and the confirmation above);
 *   fanout_finish.c its end: the answer confirmed on this runner and, when
 *                 rejected, searched again there.
 *
 * Errors travel one way only: a return code and the thread-local error. A side
 * that cannot be built or measured is CULPRIT_ESKIP; which side it was is an
 * explicit out-value of the comparison.
 */
#ifndef CULPRIT_BISECT_INTERNAL_H
#define CULPRIT_BISECT_INTERNAL_H

#include "culprit/bisect.h"
#include "culprit/vcs.h"

/* The two sides of a comparison: the good end and the candidate measured against it.
 * With opts->calltree_build, the call trees are recorded in two checkouts of their own
 * built with that command (the CT sides), so the measured builds stay plain. */
typedef enum {
    CULPRIT_BISECT__CANDIDATE = 0,
    CULPRIT_BISECT__GOOD = 1,
    CULPRIT_BISECT__CT_CANDIDATE = 2,
    CULPRIT_BISECT__CT_GOOD = 3
} culprit_bisect__side;
#define CULPRIT_BISECT__NSIDES 4

/*
 * What the search needs of the world to measure a commit. Each side has a place of
 * its own (a checkout) that holds one commit at a time; a commit is built there
 * before it is run. The real probe (culprit_bisect__probe_open) uses temporary
 * checkouts and processes; tests give one that returns planted samples.
 */
typedef struct culprit_bisect__probe {
    /* Puts `sha` on `side` and builds it (a no-op when already built there). *built:
     * a build command ran (counted in the result's builds, failed or not). Returns 0,
     * CULPRIT_ESKIP with the reason as the last error when it does not build, or
     * another negative code. */
    int (*build)(void *payload, culprit_vcs *repo, culprit_bisect__side side, const char *sha,
                 int *built);
    /* One run of the commit built on `side` (`sha`): *value in ns. 0, CULPRIT_ESKIP
     * with the reason when the run fails, or another negative code. */
    int (*measure)(void *payload, culprit_bisect__side side, const char *sha, double *value);
    /* Optional (NULL: no history). 1 when a history store exists whose runs can be
     * matched only once the session has made a run of its own (the build's
     * fingerprint), 0 otherwise. */
    int (*history_pending)(void *payload);
    /* Optional. Appends to x[*n..cap) the samples history holds of `sha`. */
    void (*reuse)(void *payload, const char *sha, double *x, size_t *n, size_t cap);
    /* The candidate became the good end: the two sides trade places (so each commit
     * is built once, and a build directory is reused incrementally). */
    void (*swap)(void *payload);
    /* Optional. The directory holding `side` (for the call trees), or NULL (with the
     * reason as the last error when it could not be put there). A measured side's
     * checkout is first put back at the path where it was built (the two measured
     * sides may take turns at one path), so the directory of the other measured side
     * asked before may hold another checkout now: ask again before each use. */
    const char *(*dir)(void *payload, culprit_bisect__side side);
    /* Releases the probe (removes the checkouts). NULL: nothing to release. */
    void (*dispose)(void *payload);
    void *payload;
    /* Optional (NULL: unknown). What the last measure() of a perf test also saw: its
     * CPU floor (ns: the fastest judged sample's CPU time of the measuring thread)
     * and whether any of its samples were preempted (the runner's count). 0, or
     * CULPRIT_ENOTFOUND when not known. */
    int (*cpu_of_last)(void *payload, double *cpu_ns, int *preempted);
} culprit_bisect__probe;

/* The real probe: checkouts under opts->measure.checkout_parent, opts->measure.build and
 * opts->command.line (or opts->perf.run and opts->perf.test, with opts->perf.history_dir). Loads
 * the history store once. The caller releases it with probe->dispose(probe->payload). */
int culprit_bisect__probe_open(culprit_bisect__probe *out, const culprit_bisect_options *opts);
/* The real probe's runs of a perf test ask the test binary for at most `samples` samples
 * ($CULPRIT_MAX_REPETITIONS; 0: as declared). A paired confirmation's run needs a floor or a
 * mean, not the adaptive stop's 1% interval (docs/detection.md, "Paired confirmation"). */
void culprit_bisect__probe_max_samples(culprit_bisect__probe *probe, unsigned int samples);
/* The real probe's runs run the test declared as `name` alone ($CULPRIT_FILTER) from the
 * first one on, the warm-up runs included (a confirmation knows the name from history; a
 * bisection learns it from its first run, which runs every test of the binary). */
int culprit_bisect__probe_test_name(culprit_bisect__probe *probe, const char *name);
/* The real probe measures another test (opts->perf.test) of the same run command and
 * the same two commits: the checkouts and their builds are kept, what it learned of
 * the test before (its name for $CULPRIT_FILTER, its fingerprint) is not. `opts`
 * must outlive the probe's use with it. */
void culprit_bisect__probe_retarget(culprit_bisect__probe *probe,
                                    const culprit_bisect_options *opts);
/* The samples a confirmation's run asks for: a run's CPU floor or mean needs dozens,
 * and between-run spread, which more samples of one run do not reduce, is what the
 * pairs measure (Kalibera & Jones 2013: more runs, not more repetitions). */
#define CULPRIT_BISECT__CONFIRM_SAMPLES 30

/*
 * command.c. Runs `command` with /bin/sh in `dir` ($CULPRIT_CHECKOUT = dir, plus the
 * NULL-ended `env`), in its own process group, for at most timeout_s. *elapsed_ns gets
 * the wall time, *cpu_ns (when not NULL) the CPU time. 0 when it exited 0;
 * CULPRIT_ESKIP with the reason (exit status or signal, the tail of its output, and on
 * a timeout the option that raises it, `option`) as the last error otherwise.
 */
int culprit_bisect__run_command(double *elapsed_ns, double *cpu_ns, const char *command,
                                const char *dir, double timeout_s, const char *const *env,
                                const char *option);
/* command.c. --command with --metric instructions: the instructions of `command` and
 * every process it starts, counted under callgrind, into *value. */
int culprit_bisect__count_command(double *value, const char *command, const char *dir,
                                  double timeout_s);
/* command.c. Removes a run's temporary directory, keeping the last error as it was. */
void culprit_bisect__remove_tree(const char *dir);

/* A session in progress: what the comparison and the search share. */
typedef struct {
    const culprit_bisect_options *opts;
    culprit_vcs *repo;
    const culprit_bisect__probe *probe;
    culprit_bisect_result *result;
    size_t failures; /* commits that could not be built or measured (max_failures) */
    /* The slowdown of the whole range (the first check's change), and, during a
     * bisection step, the change below which the step is futile (comparison.c): 0
     * none. */
    double effect, futile_below;
    /* The run-to-run spread of the session's timed, paired steps (comparison.c, the
     * pooled look): the sum of squared deviations of the pairs' log ratios from their
     * step's mean, and its degrees of freedom. */
    double pooled_ss;
    size_t pooled_df;
    /* The commit last run on the good end's side with no build there since ("" none):
     * its next comparison needs no warm-up run there (comparison.c; search.c sets it
     * when the candidate just measured becomes the good end). */
    char warm_good[41];
    /* While the culprit's share of the range is pinned (explain.c): the range's change
     * (the first check's), and a step against the parent is not decided before
     * min_runs pairs unless its share's interval lies on one side of the line
     * 1 - CULPRIT_BISECT__EXPLAIN_LEFT (comparison.c); 0 otherwise. */
    double pin_total;
    /* A paired confirmation (confirm.c; 0/NULL in a bisection): judge the runs' CPU
     * floors by the sign test instead (comparison.c, sign.c) when any run of the step
     * had preempted samples; stop taking pairs
     * at `deadline` (culprit_time_now_s(); 0 none; a build moves it on by what the
     * build took), judging the pairs so far; after
     * each pair, `on_pair` with the step's figures so far (NAN before two pairs). */
    int cpu_if_preempted;
    double deadline;
    void (*on_pair)(void *payload, const culprit_bisect_step *so_far);
    void *on_pair_payload;
    /* A counted metric's count of the good end known from elsewhere (confirm_rules'
     * good_count; 0 none): decide_counted() takes it for that side. */
    double good_count;
    /* A confirmation stops, not slower, once its one-sided CULPRIT_BISECT__BELOW_TAIL
     * upper bound is below the threshold (comparison.c, shown_below()). */
    int stop_below;
    /* A regular look of its own between min_runs and the next (0 none): a
     * confirmation's CULPRIT_BISECT__CONFIRM_LOOK (culprit_bisect__next_look()). */
    size_t extra_look;
} culprit_bisect__session;

/* A confirmation's extra regular look, between min_runs (10) and the next (20): the
 * fewest pairs at which the sign test at each look's tail (the regular looks' share of
 * 1 - confidence, 0.0085 at 0.99, split over the four looks 10, 13, 20, 30) lets one
 * pair go the other way: P(X <= 1 | n = 13) = 0.0017 (at 10 none may: P(X <= 1 | 10) =
 * 0.011). Beside two CPU hogs a slow phase turns about a tenth of the pairs of floors
 * around whatever the change (docs/detection.md, "Paired confirmation"): with a tenth
 * of the pairs turned, a +10% commit's 10 pairs all agree with P = 0.35, and at most one
 * of 13 goes the other way with P = 0.62; without this look the rest waited for 20. Only where
 * floors are judged; the time's t interval and bisection steps keep their looks. */
#define CULPRIT_BISECT__CONFIRM_LOOK 13

/* The equivalence stop's one-sided level (docs/detection.md, "Paired confirmation"):
 * a confirmation stops as not slower once the change's upper bound at 1 - this is
 * below the threshold (Pinpoint's "same"). It only ends a confirmation sooner with
 * "not slower" where "still unknown" would follow, so it adds no false alarm. */
#define CULPRIT_BISECT__BELOW_TAIL 0.2

/*
 * The bisection with a given probe: what culprit_bisect_session() does with the
 * real one. The repository queries (the DAG, first parents, commit details,
 * changed files) use opts->measure.repository; every build and run goes through `probe`,
 * which is disposed of on every path (probe->dispose, when not NULL).
 */
int culprit_bisect__session_with_probe(culprit_bisect_result *out,
                                       const culprit_bisect_options *opts,
                                       const culprit_bisect__probe *probe);

/* culprit_bisect_calltree_session() with a given probe, disposed of on every path. */
int culprit_bisect__calltree_with_probe(culprit_bisect_result *out,
                                        const culprit_bisect_options *opts,
                                        const culprit_bisect__probe *probe);

/* The timeout of a build: opts->measure.build_timeout_s, or CULPRIT_BISECT_BUILD_TIMEOUT. */
double culprit_bisect__build_timeout(const culprit_bisect_options *opts);

/* Tells opts->measure.phase (when set) that a phase starts: printf-style. */
void culprit_bisect__phase(const culprit_bisect_options *opts, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* culprit_bisect_options_check() of a template whose ends and perf test are set per
 * use (a confirmation's, an investigation's): `test` stands for the test, or NULL for
 * a template that may measure a command. */
int culprit_bisect__check_template(const culprit_bisect_options *tmpl, const char *test);

/* The metric `opts` judges, whichever way it measures: command.metric with a
 * command, perf.metric with a perf test; NULL for time. */
const char *culprit_bisect__metric(const culprit_bisect_options *opts);

/* The metric a bisection of a command may judge instead of its wall time. */
#define CULPRIT_BISECT__CPU_METRIC "cpu_ns"

/* 1 when steps judge counts by the deterministic rule: a metric of a run/test
 * counted by a tool (instructions). A time (a series of nanoseconds: a command's
 * cpu_ns, a perf test's cpu_ns or wall_ns) is judged as times are. */
int culprit_bisect__counted(const culprit_bisect_options *opts);

/* The policy of the run counts (culprit_bisect_options.min_runs and max_runs): the
 * minimum of a step (min_runs, 0 its default), and the most (max_runs, at least the
 * minimum). A step may stop before the minimum (early looks) only when min_runs is 0. */
size_t culprit_bisect__min_runs(const culprit_bisect_options *opts);
size_t culprit_bisect__max_runs(const culprit_bisect_options *opts);
/* The runs (pairs) of the first regular look after `done`: min_runs, doubling up to
 * max_runs, and `extra` (0 none) when it lies between two of those (comparison.c); 0
 * when max_runs were run. */
size_t culprit_bisect__next_look(const culprit_bisect_options *o, size_t extra, size_t done);

/* 1 when `t` (the test's result in `past`, may be NULL) may stand in for a run of
 * the session at `sha`: `past` ran at that commit on a clean tree, the test passed,
 * and detection would compare it with the session's own run `fp` and its result
 * `fp_test` (culprit_detect_comparable: the machine class, the compiler and flags,
 * the metric counted the same way). The probe's reuse and detection share this rule. */
int culprit_bisect__reusable(const culprit_run *fp, const culprit_test_result *fp_test,
                             const culprit_run *past, const culprit_test_result *t,
                             const char *sha);

/* Disposes of the result of a failed session, keeping the failure's message. */
void culprit_bisect__dispose_keeping_error(culprit_bisect_result *out);

/* A confirmation's rules (the session's fields of the same names). */
typedef struct {
    int cpu_if_preempted;
    double deadline;
    void (*on_pair)(void *payload, const culprit_bisect_step *so_far);
    void *on_pair_payload;
    culprit_bisect__side *failed; /* optional: on CULPRIT_ERROR for a side that cannot be
                                     built or run, which side it was */
    int stop_below;               /* the equivalence stop (comparison.c, shown_below()) */
    /* Optional, a counted metric (fanout.c): on entry, the good end's count when known
     * (> 0: the step takes it instead of building and counting the good end; a count
     * is exact); on return, the good end's count the step judged against (0: none). */
    double *good_count;
} culprit_bisect__confirm_rules;

/* culprit_bisect_confirm() with a given probe (confirm.c), disposed of on every path;
 * `rules` NULL: a bisection step's (time judged, no deadline, silent). */
int culprit_bisect__confirm_with_probe(culprit_bisect_confirmation *out,
                                       const culprit_bisect_options *opts,
                                       const culprit_bisect__probe *probe,
                                       const culprit_bisect__confirm_rules *rules);

/* Runs, or pairs' differences, are judged inside Tukey's severe fences from this many
 * on (sign.c, judged_runs()); with fewer, by all of them. */
#define CULPRIT_BISECT__FENCE_MIN_N 20

/* A step's change and its interval (sign.c): runs made in pairs by the pairs'
 * differences dx[np] (NULL: Welch over the two sides xg[ng] and xc[nc]), each set
 * judged inside the severe fences from CULPRIT_BISECT__FENCE_MIN_N values on. */
int culprit_bisect__judge_runs(culprit_bisect_step *step, const double *xg, size_t ng,
                               const double *xc, size_t nc, const double *dx, size_t np,
                               double confidence);

/*
 * A confirmation's rule where runs were preempted (sign.c; docs/detection.md, "Paired
 * confirmation"): each run's CPU floor (good[ng], cand[nc]), the pairs' differences of
 * floors d[np] judged by the sign test, which a slow phase of the machine moves by
 * one pair's vote, never more. The change is the median difference over the good
 * end's median floor; each bound misses with probability at most (1 - confidence) /
 * looks (the step's regular looks: min_runs, doubling up to max_runs), so that over all
 * the looks a commit that is not slower is called slower at most 1 - confidence of
 * the time (Bonferroni). The early looks' stricter confidence cannot be reached on
 * a handful of pairs: the bounds are then infinite (undecided).
 */
int culprit_bisect__judge_floors(culprit_bisect_step *step, size_t looks, const double *good,
                                 size_t ng, const double *cand, size_t nc, const double *d,
                                 size_t np, double confidence);

/* Builds `sha` on `side` through the probe, counting the build in the result. */
int culprit_bisect__build(culprit_bisect__session *s, culprit_bisect__side side, const char *sha);

/*
 * Measures the candidate `sha` against the good end `good` and fills step's figures
 * and verdict, up to `max_runs` runs of each. CULPRIT_ESKIP when a side cannot be
 * built or measured, *failed saying which (the message names it); a candidate's
 * failure also marks the step skipped with its reason.
 */
int culprit_bisect__compare(culprit_bisect__session *s, culprit_bisect_step *step, const char *good,
                            const char *sha, size_t max_runs, culprit_bisect__side *failed);

/* pooled.c: the pooled look (docs/bisect.md, "Runs per side follow the effect"). A
 * timed step is judged on its first POOLED_N pairs with the session's pooled spread
 * once earlier steps gave it POOLED_MIN_DF degrees of freedom. log_ratio: a pair's
 * log(candidate / good), NAN unless both are positive. pool_add: a finished step's
 * log ratios join the pool. pooled_judge: the step's change, interval and verdict at
 * `confidence` on the pooled spread (never narrower than its own), *decided as
 * comparison.c's looks; 0 (nothing set) without a pool. */
#define CULPRIT_BISECT__POOLED_N      2
#define CULPRIT_BISECT__POOLED_MIN_DF 3
double culprit_bisect__log_ratio(double candidate, double good);
void culprit_bisect__pool_add(culprit_bisect__session *s, const double *lx, size_t n);
int culprit_bisect__pooled_judge(const culprit_bisect__session *s, culprit_bisect_step *step,
                                 const double *lx, size_t n, double confidence, int *decided);

/*
 * Times `bad` against `good` as a step of its own, up to `max_runs` runs of each.
 * *slower: bad is significantly slower; *step_out (optional) the step recorded.
 * CULPRIT_ESKIP when a side cannot be measured, *failed (optional) saying which.
 */
int culprit_bisect__check_pair(culprit_bisect__session *s, const char *good, const char *bad,
                               size_t max_runs, int *slower, culprit_bisect_step **step_out,
                               culprit_bisect__side *failed);

/* ---- the result as it is built (result.c) ---- */

/* Appends a step measuring `sha` against `good` to the result (*out borrowed). */
int culprit_bisect__add_step(culprit_bisect_step **out, culprit_bisect__session *s,
                             const char *good, const char *sha);

/* Records a culprit found with the measurement `step` made of it. */
int culprit_bisect__add_culprit(culprit_bisect__session *s, const char *sha,
                                const culprit_bisect_step *step);

/* The newest step that found `sha` slower than its good end, or NULL. */
const culprit_bisect_step *culprit_bisect__step_of(const culprit_bisect_result *r, const char *sha);

/* The result names `sha` as the culprit: outcome found, its commit's details, the
 * change its step measured. */
void culprit_bisect__describe(culprit_bisect__session *s, const char *sha);

/* ---- the searches (search.c, scan.c) ---- */

/* The commits between one good and one bad end (bad last), as the algorithm's DAG. */
typedef struct {
    culprit_vcs_dag dag;
    culprit_bisect_dag view;
    size_t *nparents;
    const size_t **parents;
} culprit_bisect__range;

/* Opens (good, bad] of s->repo as a range (search.c); dispose it. */
int culprit_bisect__range_open(culprit_bisect__range *rg, culprit_bisect__session *s,
                               const char *good, const char *bad);
void culprit_bisect__range_dispose(culprit_bisect__range *rg);

/* Does `sha` touch one of s->opts->paths (a path, a directory prefix, or a glob)?
 * Without paths everything is relevant (search.c). */
int culprit_bisect__relevant(culprit_bisect__session *s, const char *sha, int *out);

/*
 * One culprit in (good, bad] of the result, whose bad end is slower (search.c):
 * bisected, confirmed against its parent, searched for again below or above it
 * when the confirmation fails (BACKTRACK_MAX times); sets the result's confirmed
 * and backtracks. *found: a culprit in `culprit`; *decay: the parent check ruled a
 * slowdown out, the range decays slowly.
 */
int culprit_bisect__search_one(culprit_bisect__session *s, char culprit[41], int *found,
                               int *decay);

/*
 * Bisects (good, bad], whose bad end is known to be slower (search.c). *found: 1
 * with the culprit in `culprit`, 0 when skips left a range (recorded in the result).
 */
int culprit_bisect__bisect_range(culprit_bisect__session *s, const char *good, const char *bad,
                                 char culprit[41], int *found);

/*
 * --all (scan.c): every commit in (good, bad] that made the command significantly
 * slower than the commit before it, appended to the result's culprits.
 * `known_slower`: bad is already known to be slower than good.
 */
int culprit_bisect__search_all(culprit_bisect__session *s, const char *good, const char *bad,
                               int known_slower);

/* ---- explaining the whole change (explain.c) ---- */

/* The share of the range's slowdown left unexplained below which the search of the
 * rest stops (docs/bisect.md, "Explaining the whole change"). */
#define CULPRIT_BISECT__EXPLAIN_LEFT 0.10

/* share.c. The share of the range's slowdown `total` a change `change` explains, on the log
 * scale: log(1 + change) / log(1 + total); NAN when total is no slowdown. */
double culprit_bisect__share(double change, double total);

/* share.c. 1 when a change known to lie in [low, high] explains a share of the range's
 * slowdown `total` that lies wholly on one side of 1 - CULPRIT_BISECT__EXPLAIN_LEFT
 * (the share is pinned: more runs would not change whether the rest is searched). */
int culprit_bisect__share_pinned(double low, double high, double total);
/* share.c. A step's CPU-time change (culprit_bisect_step.cpu_change): the geometric
 * means of the CPU times cx[side][0..cn[side]) kept with its runs, when each of the
 * n[side] kept runs told one; left unknown otherwise. */
void culprit_bisect__cpu_change(culprit_bisect_step *step, double *const cx[2], const size_t cn[2],
                                const size_t n[2]);

/* `bad` judged against `good`: a step of that pair already decided (bad, or good
 * beyond doubt) is reused, else the pair is measured (check_pair, max_runs). */
int culprit_bisect__judge_pair(culprit_bisect__session *s, const char *good, const char *bad,
                               int *slower, culprit_bisect_step **step);

/* `sha` judged against its first parent (`parent`) with culprit_bisect__judge_pair;
 * CULPRIT_ESKIP when it has none or a side cannot be measured. */
int culprit_bisect__against_parent(culprit_bisect__session *s, const char *sha, char parent[41],
                                   int *slower, culprit_bisect_step **step);

/* Records a culprit with the step against its parent and its share of the range. */
int culprit_bisect__add_explained(culprit_bisect__session *s, const char *sha,
                                  const culprit_bisect_step *step);

/* After the search found `culprit` (the result's confirmed set): records it with its
 * share, and while more than a tenth of the range's slowdown is unexplained searches
 * the rest of the range for more culprits (bounded), each recorded with its share. */
int culprit_bisect__explain(culprit_bisect__session *s, const char *culprit);

/* Slow decay (scan.c): the outcome, and the change each commit of the range's
 * first-parent chain contributes, as the result's culprits. */
int culprit_bisect__slow_decay(culprit_bisect__session *s);

/*
 * Records the call trees of out->parent (built on `sides[0]` of probe `p`) and
 * out->culprit (built on `sides[1]`) with the bisection's command, diffs them and
 * correlates the diff with the culprit's changes, filling out's call-tree fields.
 * Each side's directory is asked of the probe just before its recording (p->dir puts
 * a checkout back where it was built, which may move the other measured side). With
 * `plain`, the parent and the culprit are built plain on the measured sides (GOOD,
 * CANDIDATE), whose runs of the same command are the recordings' baselines
 * (out->calltree_corrected). A failure that is the program's or the build's (not
 * instrumented, the command failed) is kept in out->calltree_error and is not an
 * error of the bisection: returns 0. Returns CULPRIT_ERROR only when out of memory.
 */
int culprit_bisect__calltree(culprit_bisect_result *out, culprit_vcs *repo,
                             const culprit_bisect_options *opts, const culprit_bisect__probe *p,
                             const culprit_bisect__side sides[2], int plain);

/*
 * --calltree's check before bisecting: the good end `sha`, built for call trees in
 * `dir`, must record a call tree (its structure and one timed depth). 0 when it does;
 * otherwise the recorder's error, prefixed to say that the bisection stops before it
 * starts, with the recorder's fix (not instrumented, or the runtime not linked).
 */
int culprit_bisect__calltree_check(const culprit_bisect_options *opts, const char *dir,
                                   const char *sha);

/* 1 when the call trees count instructions (opts->metric "instructions": a
 * bisection judged by instructions records its call trees under callgrind, on the
 * measured builds, opts->calltree_build unused), 0 when they are the timed trees of
 * an instrumented build (calltree.c). */
int culprit_bisect__counted_trees(const culprit_bisect_options *opts);

/* Writes the fan-out record `r` of the bisection `key` as a run of
 * CULPRIT_FANOUT_SUITE into the history directory `dir` (fanout.c; the tests plant
 * records with it); r->host is set to this host when unset. */
int culprit_bisect__fanout_record_write(culprit_fanout_record *r, const char *key, const char *dir);

/* culprit_bisect_fanout_probe() with a given probe (NULL: the real one), disposed of
 * through its dispose as culprit_bisect__confirm_with_probe() does (the tests plant
 * counts with one whose dispose is NULL). */
int culprit_bisect__fanout_probe_with(culprit_fanout_record *out,
                                      const culprit_bisect_options *opts,
                                      const culprit_fanout_options *fo, const char *commit,
                                      const culprit_bisect__probe *probe);

/* culprit_bisect_fanout_finish() with a given probe (NULL: a real one for each
 * session), which each session disposes of through its dispose (the tests' planted
 * probe has none, so that it serves every session; fanout_finish.c). */
int culprit_bisect__fanout_finish_with(culprit_bisect_result *out,
                                       const culprit_bisect_options *opts,
                                       const culprit_fanout_state *state,
                                       const culprit_bisect__probe *probe);

/* Where the records of `st` leave the search when those of the `nexcept` commits of
 * `except` are left out (fanout.c): *bad the bad end, *good the first parent of the
 * lowest candidate (a good commit below every candidate; the good end on a range
 * of one). The range a rejected answer is searched again in (fanout_finish.c). */
int culprit_bisect__fanout_narrow(char good[41], char bad[41], const culprit_bisect_options *opts,
                                  const culprit_fanout_state *st, const char (*except)[41],
                                  size_t nexcept);

#endif
