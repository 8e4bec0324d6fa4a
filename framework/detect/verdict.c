/*
 * Verdicts: the hybrid strategy of Heger et al. 2013 (section 3). A test's
 * category is the baseline for *major* regressions, its history the baseline for
 * *minor* ones, judged at 99% confidence. Two guards keep noise from raising
 * alarms, the complaint users have most about existing tools (and what sank
 * Vogel 2017's evaluation):
 *
 *   - major needs the lower confidence bound of the mean above the category's
 *     limit, so a test hovering at the limit is not flagged by noise;
 *   - minor needs a significant difference (Welch's interval of the difference
 *     of means excludes 0) AND a change beyond a practical threshold (2%), so a
 *     tiny but significant change does not alarm; across the tests of a check the
 *     p-values are then adjusted (Benjamini-Hochberg, culprit_detect_adjust).
 *
 * Everything is computed from the summaries (n, mean, sd), which the history
 * keeps exactly; raw samples are not needed to judge. The summary judged is the
 * one inside Tukey's severe fences (3 IQR): on a shared machine a preempted
 * repetition can be 100x the others, and one such sample widens the interval of
 * the mean until nothing can be decided. Those samples are counted and the
 * message says how many were set aside.
 */
#include "culprit/detect.h"
#include "culprit/core.h"
#include "culprit/stats.h"
#include "detect_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const verdict_names[] = {"unchanged", "minor",       "major", "improvement",
                                            "undecided", "no-baseline", "mixed", "not-run"};

const char *culprit_detect_verdict_name(culprit_verdict_kind kind)
{
    if ((unsigned)kind >= sizeof(verdict_names) / sizeof(verdict_names[0]))
        return "unknown";
    return verdict_names[kind];
}

const char *culprit_detect_evidence_name(culprit_evidence evidence)
{
    static const char *const names[] = {"history", "unconfirmed", "paired", "deterministic",
                                        "pooled"};

    if ((unsigned)evidence >= sizeof(names) / sizeof(names[0]))
        return "unknown";
    return names[evidence];
}

int culprit_detect_options_init(culprit_detect_options *opts, unsigned int version)
{
    static const culprit_detect_options defaults = CULPRIT_DETECT_OPTIONS_INIT;

    return culprit_options_init_from(opts, &defaults, sizeof(defaults), version,
                                     CULPRIT_DETECT_OPTIONS_VERSION, "detect");
}

void culprit_detect_verdict_dispose(culprit_verdict *v)
{
    if (!v)
        return;
    free(v->test);
    free(v->category);
    free(v->baseline);
    free(v->mismatch);
    free(v->message);
    for (size_t i = 0; i < v->nbase_runs; i++) {
        free(v->base_runs[i].commit);
        free(v->base_runs[i].id);
        free(v->base_runs[i].machine);
        free(v->base_runs[i].timestamp);
    }
    free(v->base_runs);
    memset(v, 0, sizeof(*v));
}

static int check_options(const culprit_detect_options *o)
{
    if (o->version != CULPRIT_DETECT_OPTIONS_VERSION)
        return culprit_options_check_version(o->version, CULPRIT_DETECT_OPTIONS_VERSION, "detect");
    if (!(o->confidence > 0 && o->confidence < 1))
        return culprit_error_set(CULPRIT_EINVALID, "confidence %g is not in (0, 1)", o->confidence);
    if (!(o->threshold >= 0 && isfinite(o->threshold)))
        return culprit_error_set(CULPRIT_EINVALID, "threshold %g is not a non-negative number",
                                 o->threshold);
    if (!(o->count_threshold >= 0 && isfinite(o->count_threshold)) ||
        !(o->count_aa_margin >= 0 && isfinite(o->count_aa_margin)))
        return culprit_error_set(CULPRIT_EINVALID,
                                 "count threshold %g or A/A margin %g is not a non-negative number",
                                 o->count_threshold, o->count_aa_margin);
    if (!(o->fdr > 0 && o->fdr <= 1))
        return culprit_error_set(CULPRIT_EINVALID, "false discovery rate %g is not in (0, 1]",
                                 o->fdr);
    return 0;
}

/* The summary verdicts judge: inside the severe fences when recorded (older files
 * have only the plain one). */
static const culprit_summary *judged_summary(const culprit_test_result *t)
{
    return t->judged.n >= 2 ? &t->judged : &t->summary;
}

/* A test result's judged summary as the exact Welford state it came from. */
static void welford_of(culprit_welford *w, const culprit_test_result *t)
{
    culprit_stats_welford_from_summary(w, judged_summary(t));
}

/* "+12.3% (99% CI +8.1% to +16.5%)": without printf where plain (culprit_buf_put_fixed). */
static void put_change(culprit_buf *b, const culprit_verdict *v, double confidence)
{
    culprit_buf_put_fixed(b, 100 * v->change, 1, 1);
    culprit_buf_printf(b, "%% (%g%% CI ", 100 * confidence);
    culprit_buf_put_fixed(b, 100 * v->change_low, 1, 1);
    culprit_buf_puts(b, "% to ");
    culprit_buf_put_fixed(b, 100 * v->change_high, 1, 1);
    culprit_buf_puts(b, "%)");
}

/* A baseline label: a commit sha is shortened to 12 digits, anything else (a pool
 * of commits) is shown whole. */
static void put_label(culprit_buf *b, const char *label)
{
    size_t len = label ? strlen(label) : 0;

    if (!label)
        culprit_buf_puts(b, "the baseline");
    else if (len == 40 && strspn(label, "0123456789abcdef") == 40)
        culprit_buf_put(b, label, 12);
    else
        culprit_buf_puts(b, label);
}

/* ", 6.44 ms at abc123456789 (run ID)": the newest run compared with, by its id,
 * which names its time, commit and host (the JSON lists every run in full). */
static void put_baseline(culprit_buf *b, const culprit_verdict *v)
{
    culprit_buf_puts(b, ", ");
    culprit_buf_put_duration(b, v->base_mean);
    culprit_buf_puts(b, " at ");
    put_label(b, v->baseline);
    if (v->nbase_runs && v->base_runs[0].id)
        culprit_buf_printf(b, " (%srun %s%s)", v->nbase_runs > 1 ? "newest " : "",
                           v->base_runs[0].id, v->base_runs[0].dirty ? ", dirty tree" : "");
}

/* The one line a developer reads: test, time now and before, limit, change, baseline. */
/* "; confirmed by 20 paired runs: +10.2% (99% CI +8.1% to +12.3%)" and its kin. */
static void put_paired(culprit_buf *b, const culprit_paired_confirmation *c, double confidence)
{
    culprit_buf_puts(b, c->slower == 1   ? "; confirmed by "
                        : c->slower == 0 ? "; not confirmed by "
                                         : "; still unknown after ");
    culprit_buf_printf(b, "%zu paired run%s of the baseline and now: %+.1f%%", c->pairs,
                       c->pairs == 1 ? "" : "s", 100 * c->change);
    if (isfinite(c->change_low) && c->change_low != c->change_high)
        culprit_buf_printf(b, " (%.0f%% CI %+.1f%% to %+.1f%%)", 100 * confidence,
                           100 * c->change_low, 100 * c->change_high);
    /* The confirmation's rule, when it is not the plain one (time, pairs to the end). */
    if (c->cpu)
        culprit_buf_printf(b, ", on CPU floors (%zu run%s preempted)", c->preempted,
                           c->preempted == 1 ? "" : "s");
    if (c->below)
        culprit_buf_printf(b, ", stopped early: below the threshold (80%% upper bound %+.1f%%)",
                           100 * c->below_high);
    else if (c->out_of_time)
        culprit_buf_puts(b, ", stopped by the time budget");
    if (c->decide_pairs && c->decide_budget_s > 0)
        culprit_buf_printf(b, " (the next look that could decide is at %zu pairs: about %.0f s)",
                           c->decide_pairs, c->decide_budget_s);
}

/* What the pooled rule decided for a young test's minor or faster verdict, and from
 * what. */
static void put_pooled(culprit_buf *b, const culprit_verdict *v)
{
    const culprit_run_spread *s = &v->spread;
    int faster = v->kind == CULPRIT_VERDICT_IMPROVEMENT;
    const char *side = faster ? "upper" : "lower";
    double bound = faster ? v->change_high : v->change_low;

    if (v->evidence == CULPRIT_EVIDENCE_POOLED)
        culprit_buf_puts(b, "; confirmed by the pooled run-to-run spread: ");
    else
        culprit_buf_printf(b,
                           "; unconfirmed: fewer than %d earlier runs on this machine and "
                           "build, and ",
                           CULPRIT_DETECT_NOISE_MIN_RUNS);
    if (isnan(v->floor_change))
        culprit_buf_printf(b, "the %s bound %+.1f%%", side, 100 * bound);
    else if (v->evidence == CULPRIT_EVIDENCE_POOLED &&
             !culprit_detect__beyond_limit(v, v->floor_change))
        culprit_buf_printf(b, "the means' %s bound %+.1f%% (the floor moved %+.1f%%)", side,
                           100 * bound, 100 * v->floor_change);
    else
        culprit_buf_printf(b, "the floor (fastest sample) moved %+.1f%%", 100 * v->floor_change);
    culprit_buf_printf(b, ", %s %g x the spread (limit %+.1f%%; spread ",
                       v->evidence == CULPRIT_EVIDENCE_POOLED ? "beyond" : "within",
                       CULPRIT_DETECT_SPREAD_FACTOR, 100 * v->spread_limit);
    if (s->tests)
        culprit_buf_printf(b, "%.1f%%, at most %.1f%%, pooled from %zu test%s, %zu runs)",
                           100 * s->sd, 100 * s->upper, s->tests, s->tests == 1 ? "" : "s",
                           s->runs);
    else
        culprit_buf_printf(b, "%.0f%%, the default: no test has %d runs here yet)", 100 * s->upper,
                           CULPRIT_DETECT_NOISE_MIN_RUNS);
    if (v->evidence == CULPRIT_EVIDENCE_UNCONFIRMED)
        culprit_buf_puts(b, " (confirm with --confirm --build CMD --run CMD, or let history "
                            "grow)");
}

static char *compose_message(const culprit_verdict *v, double confidence)
{
    culprit_buf b = CULPRIT_BUF_INIT;
    int compared = isfinite(v->change);

    culprit_buf_grow(&b, 255);                          /* most messages fit: no regrowing */
    culprit_buf_puts(&b, v->test ? v->test : "(null)"); /* as printf's "%s" wrote it */
    culprit_buf_puts(&b, ": ");
    switch (v->kind) {
    case CULPRIT_VERDICT_NOT_RUN:
        culprit_buf_puts(&b, "did not pass, nothing to judge");
        return culprit_buf_detach(&b);
    case CULPRIT_VERDICT_MAJOR:
        culprit_buf_puts(&b, "major regression: ");
        break;
    case CULPRIT_VERDICT_MINOR:
        culprit_buf_puts(&b, "minor regression: ");
        break;
    case CULPRIT_VERDICT_IMPROVEMENT:
        culprit_buf_puts(&b, "faster: ");
        break;
    case CULPRIT_VERDICT_UNDECIDED:
        culprit_buf_puts(&b, "undecided: ");
        break;
    default:
        break;
    }
    culprit_buf_put_duration(&b, v->now_mean);
    culprit_buf_puts(&b, " now");
    if (v->kind == CULPRIT_VERDICT_MAJOR) {
        culprit_buf_puts(&b, " (at least ");
        culprit_buf_put_duration(&b, v->now_low);
        culprit_buf_printf(&b, "), above category '%s' (< ", v->category ? v->category : "?");
        culprit_buf_put_duration(&b, v->category_high_ns);
        culprit_buf_puts(&b, ")");
    }
    if (compared) {
        put_baseline(&b, v);
        culprit_buf_puts(&b, ": ");
        put_change(&b, v, confidence);
    }
    switch (v->kind) {
    case CULPRIT_VERDICT_MINOR:
        if (v->category) {
            culprit_buf_printf(&b, ", still in category '%s'", v->category);
        }
        if (v->evidence == CULPRIT_EVIDENCE_UNCONFIRMED || v->evidence == CULPRIT_EVIDENCE_POOLED)
            put_pooled(&b, v);
        break;
    case CULPRIT_VERDICT_IMPROVEMENT:
        if (v->evidence == CULPRIT_EVIDENCE_UNCONFIRMED || v->evidence == CULPRIT_EVIDENCE_POOLED)
            put_pooled(&b, v);
        break;
    case CULPRIT_VERDICT_UNDECIDED:
        if (v->runs_vary)
            culprit_buf_puts(&b, "; this test varies more from run to run than within a run: "
                                 "more runs would decide, more repetitions would not");
        else if (v->more_samples)
            culprit_buf_printf(&b, "; about %zu more repetitions would decide", v->more_samples);
        break;
    case CULPRIT_VERDICT_NO_BASELINE:
        culprit_buf_puts(&b, "; nothing compared: no earlier run to compare with");
        break;
    case CULPRIT_VERDICT_MIXED:
        if (v->baseline) {
            culprit_buf_puts(&b, "; not compared with ");
            put_label(&b, v->baseline);
            culprit_buf_printf(&b, ": %s", v->mismatch);
        } else {
            culprit_buf_printf(&b, "; nothing compared: %s", v->mismatch);
        }
        culprit_buf_puts(&b, " (--allow-mixed compares anyway)");
        break;
    case CULPRIT_VERDICT_UNCHANGED:
        if (compared)
            culprit_buf_puts(&b, ", unchanged");
        break;
    default:
        break;
    }
    if (v->set_aside && v->kind != CULPRIT_VERDICT_UNCHANGED)
        culprit_buf_printf(&b, " (%zu extreme sample%s of %zu set aside)", v->set_aside,
                           v->set_aside == 1 ? "" : "s", v->set_aside + v->now_n);
    if (v->evidence == CULPRIT_EVIDENCE_PAIRED)
        put_paired(&b, &v->paired, confidence);
    if (v->dirty)
        culprit_buf_puts(&b, CULPRIT_DETECT__DIRTY_NOTE);
    return culprit_buf_detach(&b);
}

int culprit_detect_wants_pairs(const culprit_verdict *v, int flagged)
{
    if (v->evidence == CULPRIT_EVIDENCE_DETERMINISTIC)
        return 0;
    if (flagged || v->kind == CULPRIT_VERDICT_UNDECIDED)
        return 1;
    return isnan(v->between_sd) &&
           (v->kind == CULPRIT_VERDICT_UNCHANGED || v->kind == CULPRIT_VERDICT_IMPROVEMENT);
}

int culprit_detect_apply_paired(culprit_verdict *v, const culprit_paired_confirmation *c,
                                double confidence)
{
    char *message;

    v->evidence = CULPRIT_EVIDENCE_PAIRED;
    v->paired = *c;
    /* A minor rests on the comparison the pairs redid; a major on the category, which
     * the pairs do not judge: it stays, with what they found. */
    if (c->slower == 0 && v->kind == CULPRIT_VERDICT_MINOR)
        v->kind = CULPRIT_VERDICT_UNCHANGED;
    /* An undecided, unchanged or faster test the pairs decide: slower is a
     * (confirmed) minor regression; not slower is unchanged, or still faster when
     * the pairs say so too. */
    if ((v->kind == CULPRIT_VERDICT_UNDECIDED || v->kind == CULPRIT_VERDICT_UNCHANGED ||
         v->kind == CULPRIT_VERDICT_IMPROVEMENT) &&
        c->slower >= 0) {
        if (c->slower)
            v->kind = CULPRIT_VERDICT_MINOR;
        else if (!(v->kind == CULPRIT_VERDICT_IMPROVEMENT && c->change_high < 0))
            v->kind = CULPRIT_VERDICT_UNCHANGED;
    }
    if (!(message = compose_message(v, confidence)))
        return CULPRIT_ERROR_NOMEM();
    free(v->message);
    v->message = message;
    return 0;
}

/*
 * Repetitions that would decide an undecided comparison: the interval's half-width
 * shrinks as 1/sqrt(n), so to reach a target half-width the sample count grows by
 * (h / target)^2. The target is what separates the two answers: below |change| to
 * make a change beyond the threshold significant, or below threshold - |change|
 * to show that the change stays inside the threshold.
 */
static size_t more_samples_needed(double half_rel, double change, double threshold, size_t n)
{
    double target = fabs(change) >= threshold ? fabs(change) : threshold - fabs(change);
    double factor;

    if (!(half_rel > 0) || !(target > 0) || n == 0)
        return 0;
    factor = half_rel / target;
    factor *= factor;
    if (factor <= 1)
        return 0;
    if (factor > 1e6)
        factor = 1e6; /* "many": the test is too noisy for this threshold */
    return (size_t)ceil((double)n * (factor - 1));
}

/*
 * The comparison with a baseline that has enough samples: Welch's interval of the
 * relative change, then the verdict it supports (a major verdict already set
 * stands; the interval is still reported).
 */
static int compare_with_baseline(culprit_verdict *out, const culprit_test_result *now,
                                 const culprit_baseline *base, const culprit_welford *wb,
                                 const culprit_welford *wn, const culprit_detect_options *opts)
{
    culprit_welch welch;
    double extra;
    int error;

    /* Welch's interval of the difference of means (Vogel 2017, section 3.3), as a
     * relative change against the baseline mean. */
    /* The run now and the baseline's runs each carry a run offset: var (1 + 1/K). */
    extra = base->between_var > 0 ? base->between_var * (1.0 + 1.0 / (double)base->n) : 0;
    /* Estimated (possibly as 0) exactly when the noise model has its runs: the same
     * condition as an unconfirmed minor's, read by culprit_detect_wants_pairs(). */
    out->between_sd = base->between_df > 0 ? sqrt(base->between_var) : NAN;
    if ((error = culprit_stats_welch_between(&welch, wb, wn, extra, base->between_df,
                                             opts->confidence)) < 0)
        return error;
    out->p = welch.p;
    if (wb->mean > 0) {
        out->change = welch.diff / wb->mean;
        out->change_low = welch.low / wb->mean;
        out->change_high = welch.high / wb->mean;
    }
    if (out->kind == CULPRIT_VERDICT_MAJOR)
        return 0;
    if (!isfinite(out->change)) {
        out->kind = CULPRIT_VERDICT_UNDECIDED;
        return 0;
    }
    /* Significant AND beyond the threshold (the rule lives in stats, shared with
     * the call-tree diff and the bisection). */
    switch (culprit_stats_judge_change(out->change, out->change_low, out->change_high,
                                       opts->threshold)) {
    case CULPRIT_STATS_CHANGE_SLOWER:
        out->kind = CULPRIT_VERDICT_MINOR;
        /* No alarm without evidence: without an estimate of how much the test's mean
         * moves from run to run (too few earlier runs), the interval knows only the
         * repetitions of two runs, and a shared machine's run-to-run offsets raised
         * false minors in young histories (+9% on a docs-only commit). */
        if (!(base->between_df > 0))
            culprit_detect__judge_by_spread(out, now, base);
        break;
    case CULPRIT_STATS_CHANGE_FASTER:
        out->kind = CULPRIT_VERDICT_IMPROVEMENT;
        if (!(base->between_df > 0)) /* the same young-history rule as a minor's */
            culprit_detect__judge_by_spread(out, now, base);
        break;
    case CULPRIT_STATS_CHANGE_UNCHANGED:
        out->kind = CULPRIT_VERDICT_UNCHANGED;
        break;
    case CULPRIT_STATS_CHANGE_UNDECIDED:
        out->kind = CULPRIT_VERDICT_UNDECIDED;
        /* When the runs' own offsets dominate, repetitions cannot shrink the interval. */
        out->runs_vary = extra > welch.se * welch.se - extra;
        if (!out->runs_vary)
            out->more_samples = more_samples_needed((out->change_high - out->change_low) / 2,
                                                    out->change, opts->threshold, wn->n);
        break;
    }
    return 0;
}

int culprit_detect_judge(culprit_verdict *out, const culprit_run *run,
                         const culprit_test_result *now, const culprit_baseline *base,
                         const culprit_detect_options *opts)
{
    culprit_detect_options defaults = CULPRIT_DETECT_OPTIONS_INIT;
    culprit_welford wn, wb, one;
    culprit_buf key = CULPRIT_BUF_INIT;
    double half;
    int error;

    memset(out, 0, sizeof(*out));
    if (!opts)
        opts = &defaults;
    if ((error = check_options(opts)) < 0)
        return error;
    out->now_mean = out->now_low = out->now_high = NAN;
    out->base_mean = out->change = out->change_low = out->change_high = NAN;
    out->p = out->q = out->between_sd = out->spread_limit = out->floor_change = NAN;
    out->category_high_ns = now->category ? now->category_high_ns : NAN;
    if (culprit_detect__put_key(&key, now->classname ? now->classname : run->suite, now->name) <
            0 ||
        !(out->test = culprit_buf_detach(&key)) ||
        (now->category && !(out->category = culprit_strdup(now->category))))
        goto oom;
    out->dirty = run->dirty;

    if (!culprit_history_test_result_measured(now)) {
        out->kind = CULPRIT_VERDICT_NOT_RUN;
        goto done;
    }
    /* A count (instructions under Valgrind) is judged by the deterministic rule. */
    if ((error = culprit_detect__judge_counted(out, run, now, base, opts)) != 0)
        goto cleanup;
    welford_of(&wn, now);
    half = culprit_stats_welford_ci_halfwidth(&wn, opts->confidence);
    out->now_n = wn.n;
    out->set_aside = now->summary.n > wn.n ? now->summary.n - wn.n : 0;
    out->now_mean = wn.mean;
    out->now_low = wn.mean - half;
    out->now_high = wn.mean + half;

    if (base && base->n > 0) {
        culprit_stats_welford_init(&wb);
        for (size_t i = 0; i < base->n; i++) {
            welford_of(&one, base->results[i]);
            culprit_stats_welford_merge(&wb, &one);
        }
        out->base_n = wb.n;
        out->base_mean = wb.mean;
        if ((error = culprit_detect__name_base_runs(out, base)) < 0)
            goto cleanup;
        if (base->label && !(out->baseline = culprit_strdup(base->label)))
            goto oom;
    }

    /* Major: the category is the baseline; noise alone cannot put the lower bound
     * above the limit. Judged with or without history. */
    if (now->category && isfinite(now->category_high_ns) && out->now_low > now->category_high_ns &&
        wn.n >= 2)
        out->kind = CULPRIT_VERDICT_MAJOR;
    if (!base || base->n == 0 || wb.n == 0) {
        if (out->kind != CULPRIT_VERDICT_MAJOR)
            out->kind = CULPRIT_VERDICT_NO_BASELINE;
        /* Earlier runs exist, none comparable: say which and why. */
        if (base && base->n == 0 && base->incomparable && !opts->allow_mixed &&
            !(out->mismatch = culprit_strdup(base->incomparable)))
            goto oom;
        if (out->mismatch && out->kind != CULPRIT_VERDICT_MAJOR)
            out->kind = CULPRIT_VERDICT_MIXED;
        goto done;
    }

    if (!opts->allow_mixed && (out->mismatch = culprit_detect__fingerprint_mismatch(run, base))) {
        if (out->kind != CULPRIT_VERDICT_MAJOR)
            out->kind = CULPRIT_VERDICT_MIXED;
        goto done;
    }
    if (wn.n < opts->min_samples || wb.n < opts->min_samples || wn.n < 2 || wb.n < 2) {
        if (out->kind != CULPRIT_VERDICT_MAJOR) {
            out->kind = CULPRIT_VERDICT_UNDECIDED;
            out->more_samples = opts->min_samples > wn.n ? opts->min_samples - wn.n : 0;
        }
        goto done;
    }

    if ((error = compare_with_baseline(out, now, base, &wb, &wn, opts)) < 0)
        goto cleanup;
done:
    if (!(out->message = compose_message(out, opts->confidence)))
        goto oom;
    return 0;
oom:
    error = CULPRIT_ERROR; /* the last error is set by the allocation that failed */
cleanup:
    /* On failure `out` holds nothing (its test name included), as on entry. */
    culprit_buf_dispose(&key);
    if (error < 0)
        culprit_detect_verdict_dispose(out);
    return error < 0 ? error : 0;
}

int culprit_detect_adjust(culprit_verdict *verdicts, size_t n, const culprit_detect_options *opts)
{
    culprit_detect_options defaults = CULPRIT_DETECT_OPTIONS_INIT;
    double *p = NULL, *q = NULL;
    size_t *index = NULL, m = 0;
    int error = 0;

    if (!opts)
        opts = &defaults;
    if ((error = check_options(opts)) < 0)
        return error;
    if (n == 0)
        return 0;
    p = malloc(n * sizeof(*p));
    q = malloc(n * sizeof(*q));
    index = malloc(n * sizeof(*index));
    if (!p || !q || !index) {
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    for (size_t i = 0; i < n; i++)
        if (isfinite(verdicts[i].p)) {
            index[m] = i;
            p[m++] = verdicts[i].p;
        }
    if (m && (error = culprit_stats_adjust_bh(q, p, m)) < 0)
        goto cleanup;
    for (size_t k = 0; k < m; k++) {
        culprit_verdict *v = &verdicts[index[k]];
        v->q = q[k];
        if ((v->kind == CULPRIT_VERDICT_MINOR || v->kind == CULPRIT_VERDICT_IMPROVEMENT) &&
            v->q > opts->fdr) {
            /* Possibly real, but among this many tests not proven: say so. */
            v->kind = CULPRIT_VERDICT_UNDECIDED;
            v->evidence = CULPRIT_EVIDENCE_HISTORY;
            v->more_samples = more_samples_needed((v->change_high - v->change_low) / 2, v->change,
                                                  opts->threshold, v->now_n);
            free(v->message);
            if (!(v->message = compose_message(v, opts->confidence))) {
                error = CULPRIT_ERROR;
                goto cleanup;
            }
        }
    }
cleanup:
    free(p);
    free(q);
    free(index);
    return error;
}
