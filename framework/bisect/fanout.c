/*
 * A bisection fanned out over many runners (issue 28; docs/bisect.md, "Fanning
 * out"), as Chromium's Pinpoint splits a range across bots: rounds of k probes
 * (plan.c chooses them), each a separate job that measures one commit against the
 * good end on its own runner, paired, and records its verdict into history. The
 * shared history carries the records between runners; every state is computed
 * from the records alone (no state file), so a planner that dies loses nothing and
 * a probe that recorded nothing is planned again, never guessed.
 *
 * A record is a run of the suite CULPRIT_FANOUT_SUITE at the probed commit with one
 * skipped test "fanout-KEY" (KEY: a hash of what makes the bisection, so that
 * another bisection's records never count; skipped, so that checks of the history
 * judge nothing in it): its verdict field is the verdict, its message the round and
 * the figures, its verdict message how it was judged.
 */
#include "bisect_internal.h"
#include "culprit/core.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* FNV-1a of a field with its terminating NUL, which keeps fields apart ("ab","c" is
 * not "a","bc"); NULL hashes as "". */
static uint64_t fnv(uint64_t h, const char *text)
{
    text = text ? text : "";
    return culprit_str_hash(h, text, strlen(text) + 1);
}

/* What makes the bisection: another good end, command or threshold is another one. */
static void key_of(char out[17], const culprit_bisect_options *o, const char *good, const char *bad)
{
    char num[64];
    uint64_t h = CULPRIT_STR_HASH_INIT;

    h = fnv(fnv(fnv(h, good), bad), o->measure.build);
    h = fnv(fnv(fnv(fnv(h, o->command.line), o->perf.run), o->perf.test),
            culprit_bisect__metric(o));
    snprintf(num, sizeof(num), "%.6g %.6g", o->measure.threshold, o->measure.count_threshold);
    h = fnv(h, num);
    for (size_t i = 0; i < o->npaths; i++)
        h = fnv(h, o->paths[i]);
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}

void culprit_bisect_fanout_record_dispose(culprit_fanout_record *record)
{
    if (!record)
        return;
    free(record->host);
    free(record->note);
    memset(record, 0, sizeof(*record));
}

void culprit_bisect_fanout_state_dispose(culprit_fanout_state *state)
{
    if (!state)
        return;
    free(state->plan);
    free(state->range);
    for (size_t i = 0; i < state->nrecords; i++)
        culprit_bisect_fanout_record_dispose(&state->records[i]);
    free(state->records);
    memset(state, 0, sizeof(*state));
}

/* The record `t` of `run` into `r`: 0, or 1 when it is no record (skipped). */
static int parse_record(culprit_fanout_record *r, const culprit_run *run,
                        const culprit_test_result *t)
{
    memset(r, 0, sizeof(*r));
    if (!run->commit || strlen(run->commit) != 40 || !t->verdict || !t->message ||
        sscanf(t->message, "round=%zu change=%lf low=%lf high=%lf pairs=%zu", &r->round, &r->change,
               &r->change_low, &r->change_high, &r->pairs) != 5)
        return 1;
    const char *count = strstr(t->message, " good_count="); /* a counted probe's, optional */
    if (count && (sscanf(count, " good_count=%lf", &r->good_count) != 1 ||
                  !isfinite(r->good_count) || r->good_count < 0))
        r->good_count = 0;
    if (strcmp(t->verdict, "bad") == 0)
        r->verdict = CULPRIT_BISECT_BAD;
    else if (strcmp(t->verdict, "good") == 0)
        r->verdict = CULPRIT_BISECT_GOOD;
    else if (strcmp(t->verdict, "skip") == 0)
        r->verdict = CULPRIT_BISECT_SKIP;
    else
        return 1;
    memcpy(r->sha, run->commit, 41);
    if ((run->host && !(r->host = culprit_strdup(run->host))) ||
        (t->verdict_message && !(r->note = culprit_strdup(t->verdict_message)))) {
        culprit_bisect_fanout_record_dispose(r);
        return CULPRIT_ERROR_NOMEM();
    }
    return 0;
}

/* This bisection's records from the history source, oldest first. */
static int load_records(culprit_fanout_state *out, const culprit_history_source *src)
{
    culprit_history_query q = {NULL, NULL, CULPRIT_FANOUT_SUITE, 0, NULL, 0};
    culprit_history_runs runs = {0, NULL, 0};
    char name[32];
    size_t alloc = 0;
    int error;

    snprintf(name, sizeof(name), "fanout-%s", out->key);
    error = culprit_history_source_load(&runs, src, &q, NULL, NULL);
    if (error == CULPRIT_ENOTFOUND) { /* no history yet: nothing recorded */
        culprit_error_clear();
        return 0;
    }
    for (size_t i = 0; error == 0 && i < runs.nruns; i++) {
        const culprit_test_result *t = culprit_history_run_find_test(runs.runs[i], name);
        int skip;
        if (!t)
            continue;
        if ((error = culprit_array_grow(&out->records, &alloc, out->nrecords, sizeof(*out->records),
                                        16)) < 0)
            break;
        if ((skip = parse_record(&out->records[out->nrecords], runs.runs[i], t)) < 0)
            error = skip;
        else if (!skip)
            out->nrecords++;
    }
    culprit_history_runs_dispose(&runs);
    return error;
}

/* With paths: the commits touching none are skipped before anything is planned (the
 * bad end is measured whatever it touches). */
static int skip_irrelevant(size_t *nirrelevant, culprit_bisect__session *s,
                           const culprit_bisect__range *rg, culprit_bisect *b)
{
    int error = 0, is_relevant;

    for (size_t i = 0; s->opts->npaths && error == 0 && i + 1 < rg->dag.n; i++) {
        if ((error = culprit_bisect__relevant(s, rg->dag.nodes[i].sha, &is_relevant)) < 0)
            break;
        if (!is_relevant) {
            (*nirrelevant)++;
            error = culprit_bisect_mark(b, i, CULPRIT_BISECT_SKIP);
        }
    }
    return error;
}

/* Is `sha` one of except[n]? */
static int excepted(const char *sha, const char (*except)[41], size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(except[i], sha) == 0)
            return 1;
    return 0;
}

/* The records rec[nrec] replayed on the search as one round
 * (culprit_bisect_mark_round): each commit by its newest record, commits outside the
 * range, the bad end and the `nexcept` commits of `except` left out; *round gets the
 * round after the last recorded. */
static int replay(culprit_fanout_record *recs, size_t nrec, size_t *round, const char (*except)[41],
                  size_t nexcept, const culprit_bisect__range *rg, culprit_bisect *b)
{
    size_t n = rg->dag.n, count = 0;
    size_t *commits = calloc(nrec + 1, sizeof(*commits));
    culprit_bisect_verdict *marks = calloc(nrec + 1, sizeof(*marks));
    unsigned char *seen = calloc(n + 1, 1);
    int error = 0;

    if (!commits || !marks || !seen) {
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    for (size_t r = nrec; r-- > 0;) {
        culprit_fanout_record *rec = &recs[r];
        if (rec->round >= *round)
            *round = rec->round + 1;
        if (excepted(rec->sha, except, nexcept))
            continue;
        for (size_t i = 0; i + 1 < n; i++)
            if (strcmp(rg->dag.nodes[i].sha, rec->sha) == 0 && !seen[i] &&
                culprit_bisect_is_candidate(b, i) && !culprit_bisect_is_skipped(b, i)) {
                seen[i] = 1;
                rec->used = 1;
                commits[count] = i;
                marks[count++] = rec->verdict;
            }
    }
    error = culprit_bisect_mark_round(b, commits, marks, count, NULL);
cleanup:
    free(commits);
    free(marks);
    free(seen);
    return error;
}

/* Copies the DAG nodes `ids` into a malloc'd array of shas. */
static int shas_of(char (**out)[41], const culprit_bisect__range *rg, const size_t *ids, size_t n)
{
    if (!(*out = calloc(n ? n : 1, sizeof(**out))))
        return CULPRIT_ERROR_NOMEM();
    for (size_t i = 0; i < n; i++)
        memcpy((*out)[i], rg->dag.nodes[ids[i]].sha, 41);
    return 0;
}

/* Where the search stands: the next round, the culprit, or the range that skips
 * leave (with paths, the one relevant commit of that range is the culprit, as the
 * sequential search settles it). */
static int settle(culprit_fanout_state *out, culprit_bisect__session *s,
                  const culprit_bisect__range *rg, const culprit_bisect *b, size_t k)
{
    size_t *ids = NULL, n = 0, relevant_at = SIZE_MAX, nrelevant = 0;
    int error = 0, is_relevant;

    out->status = culprit_bisect_status_get(b);
    out->ncandidates = culprit_bisect_ncandidates(b);
    if (out->status == CULPRIT_BISECT_FOUND) {
        memcpy(out->culprit, rg->dag.nodes[culprit_bisect_bad(b)].sha, 41);
        return 0;
    }
    if (out->status == CULPRIT_BISECT_RUNNING) {
        if (!(ids = calloc(k, sizeof(*ids))))
            return CULPRIT_ERROR_NOMEM();
        if ((error = culprit_bisect_plan(ids, &n, k, b)) == 0)
            error = shas_of(&out->plan, rg, ids, out->nplan = n);
        free(ids);
        return error;
    }
    if ((error = culprit_bisect_range(&ids, &n, b)) < 0)
        return error;
    for (size_t i = 0; s->opts->npaths && error == 0 && i < n; i++)
        if ((error = culprit_bisect__relevant(s, rg->dag.nodes[ids[i]].sha, &is_relevant)) == 0 &&
            is_relevant) {
            relevant_at = ids[i];
            nrelevant++;
        }
    if (error == 0 && nrelevant == 1) {
        out->status = CULPRIT_BISECT_FOUND;
        memcpy(out->culprit, rg->dag.nodes[relevant_at].sha, 41);
    } else if (error == 0)
        error = shas_of(&out->range, rg, ids, out->nrange = n);
    free(ids);
    return error;
}

int culprit_bisect_fanout_state(culprit_fanout_state *out, const culprit_bisect_options *opts,
                                const culprit_fanout_options *fo)
{
    culprit_bisect__session s;
    culprit_bisect__range rg;
    culprit_bisect *b = NULL;
    int error;

    memset(out, 0, sizeof(*out));
    memset(&s, 0, sizeof(s));
    memset(&rg, 0, sizeof(rg));
    out->round = 1;
    if ((error = culprit_bisect_options_check(opts)) < 0)
        return error;
    if (!fo || fo->version != CULPRIT_FANOUT_OPTIONS_VERSION || fo->k == 0 || !fo->history)
        return culprit_error_set(CULPRIT_EINVALID,
                                 "bisect: a fanned-out bisection needs its options "
                                 "(CULPRIT_FANOUT_OPTIONS_INIT), at least one probe per round "
                                 "and a history source");
    s.opts = opts;
    if ((error = culprit_vcs_open(&s.repo,
                                  opts->measure.repository ? opts->measure.repository : ".")) < 0 ||
        (error = culprit_vcs_resolve(out->good, s.repo, opts->good)) < 0 ||
        (error = culprit_vcs_resolve(out->bad, s.repo, opts->bad)) < 0 ||
        (error = culprit_bisect__range_open(&rg, &s, out->good, out->bad)) < 0)
        goto cleanup;
    key_of(out->key, opts, out->good, out->bad);
    out->ncommits = rg.dag.n;
    if ((error = culprit_bisect_new(&b, &rg.view, rg.dag.n - 1)) < 0 ||
        (error = skip_irrelevant(&out->nirrelevant, &s, &rg, b)) < 0 ||
        (error = load_records(out, fo->history)) < 0 ||
        (error = replay(out->records, out->nrecords, &out->round, NULL, 0, &rg, b)) < 0)
        goto cleanup;
    error = settle(out, &s, &rg, b, fo->k);
cleanup:
    culprit_bisect_free(b);
    culprit_bisect__range_dispose(&rg);
    culprit_vcs_free(s.repo);
    if (error < 0)
        culprit_bisect_fanout_state_dispose(out);
    return error;
}

int culprit_bisect__fanout_narrow(char good[41], char bad[41], const culprit_bisect_options *opts,
                                  const culprit_fanout_state *st, const char (*except)[41],
                                  size_t nexcept)
{
    culprit_bisect__session s;
    culprit_bisect__range rg;
    culprit_bisect *b = NULL;
    culprit_fanout_record *recs = calloc(st->nrecords + 1, sizeof(*recs));
    size_t *ids = NULL, n = 0, round = 1, nirrelevant = 0, k = 0;
    char(*fp)[41] = NULL;
    int error;

    memset(&s, 0, sizeof(s));
    memset(&rg, 0, sizeof(rg));
    s.opts = opts;
    if (!recs)
        return CULPRIT_ERROR_NOMEM();
    memcpy(recs, st->records, st->nrecords * sizeof(*recs)); /* shallow: `used` set on the copy */
    if ((error = culprit_vcs_open(&s.repo,
                                  opts->measure.repository ? opts->measure.repository : ".")) < 0 ||
        (error = culprit_bisect__range_open(&rg, &s, st->good, st->bad)) < 0 ||
        (error = culprit_bisect_new(&b, &rg.view, rg.dag.n - 1)) < 0 ||
        (error = skip_irrelevant(&nirrelevant, &s, &rg, b)) < 0 ||
        (error = replay(recs, st->nrecords, &round, except, nexcept, &rg, b)) < 0 ||
        (error = culprit_bisect_range(&ids, &n, b)) < 0)
        goto cleanup;
    memcpy(bad, rg.dag.nodes[culprit_bisect_bad(b)].sha, 41);
    memcpy(good, st->good, 41);
    /* The lowest candidate's first parent: an ancestor of a good commit (parents come
     * before children, so it is no candidate), or the good end. */
    if (n &&
        (error = culprit_vcs_first_parents(&fp, &k, s.repo, rg.dag.nodes[ids[0]].sha, 2)) == 0 &&
        k == 2)
        memcpy(good, fp[1], 41);
cleanup:
    free(fp);
    free(ids);
    free(recs);
    culprit_bisect_free(b);
    culprit_bisect__range_dispose(&rg);
    culprit_vcs_free(s.repo);
    return error;
}

/* How a probe's verdict was judged, for its record (`known`: the good end's count
 * came from a record). */
static char *note_of(const culprit_bisect_confirmation *c, const char *good, int known)
{
    culprit_buf b = CULPRIT_BUF_INIT;
    int error;

    if (c->deterministic)
        error = culprit_buf_printf(&b, "counted against %.12s (deterministic: no pairing needed%s)",
                                   good,
                                   known ? "; the good end's count from an earlier probe's record, "
                                           "not built again"
                                         : "");
    else
        error = culprit_buf_printf(&b, "%zu pairs against %.12s on this runner%s%s", c->pairs, good,
                                   c->cpu ? " (CPU time: runs were preempted)" : "",
                                   c->slower < 0 ? "; undecided: counted good, as a sequential "
                                                   "step counts it"
                                                 : "");
    return error < 0 ? NULL : culprit_buf_detach(&b);
}

int culprit_bisect__fanout_record_write(culprit_fanout_record *r, const char *key, const char *dir)
{
    static const char *const words[] = {"good", "bad", "skip"};
    culprit_history *h = NULL;
    culprit_run *run = NULL;
    culprit_test_result *t;
    char host[256] = "", stamp[32], name[32], msg[256];
    time_t now = time(NULL);
    struct tm tm;
    int error;

    gmtime_r(&now, &tm);
    strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (gethostname(host, sizeof(host) - 1) < 0 || !host[0])
        snprintf(host, sizeof(host), "unknown");
    snprintf(name, sizeof(name), "fanout-%s", key);
    snprintf(msg, sizeof(msg), "round=%zu change=%.17g low=%.17g high=%.17g pairs=%zu", r->round,
             r->change, r->change_low, r->change_high, r->pairs);
    if (r->good_count > 0)
        snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg), " good_count=%.17g", r->good_count);
    if ((error = culprit_history_run_new(&run)) < 0 ||
        (error = culprit_history_run_add_test(&t, run)) < 0)
        goto cleanup;
    t->status = CULPRIT_STATUS_SKIPPED;
    if (!(run->suite = culprit_strdup(CULPRIT_FANOUT_SUITE)) ||
        !(run->commit = culprit_strdup(r->sha)) || !(run->timestamp = culprit_strdup(stamp)) ||
        !(run->host = culprit_strdup(host)) || !(t->name = culprit_strdup(name)) ||
        !(t->classname = culprit_strdup(CULPRIT_FANOUT_SUITE)) ||
        !(t->message = culprit_strdup(msg)) || !(t->verdict = culprit_strdup(words[r->verdict])) ||
        (r->note && !(t->verdict_message = culprit_strdup(r->note)))) {
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    if ((error = culprit_history_open(&h, dir, 1)) < 0 ||
        (error = culprit_history_store(h, run, NULL)) < 0)
        goto cleanup;
    if (!r->host && !(r->host = culprit_strdup(host)))
        error = CULPRIT_ERROR_NOMEM();
cleanup:
    culprit_history_free(h);
    culprit_history_run_free(run);
    return error;
}

/* A counted metric's count of the good end from this bisection's records (every
 * probe counts against the same good end; a count agrees across runners of the same
 * architecture and build), or 0. */
static double good_count_of(const culprit_fanout_state *st)
{
    for (size_t i = st->nrecords; i-- > 0;)
        if (st->records[i].good_count > 0)
            return st->records[i].good_count;
    return 0;
}

/* The probe's measurement: `sha` against the good end, in checkouts of its own. A
 * time is paired on this runner (history neither reused nor recorded: runs of another
 * runner are not comparable); a count may reuse and record history, and takes the
 * good end's count from an earlier probe's record when one holds it: the probe then
 * builds and counts its commit alone. */
static int measure(culprit_fanout_record *out, const culprit_bisect_options *opts,
                   const culprit_fanout_state *st, const char *sha,
                   const culprit_bisect__probe *given)
{
    culprit_bisect_options o = *opts;
    culprit_bisect_confirmation c;
    culprit_bisect__probe probe;
    culprit_bisect__side failed = CULPRIT_BISECT__CT_GOOD; /* none */
    double known = culprit_bisect__counted(opts) ? good_count_of(st) : 0, count = known;
    culprit_bisect__confirm_rules rules = {0, 0, NULL, NULL, &failed, 0, &count};
    int error;

    o.good = st->good;
    o.bad = sha;
    if (!culprit_bisect__counted(&o)) {
        o.perf.history_dir = NULL;
        o.perf.record = 0;
    }
    if (given)
        probe = *given;
    else if ((error = culprit_bisect__probe_open(&probe, &o)) < 0)
        return error;
    error = culprit_bisect__confirm_with_probe(&c, &o, &probe, &rules);
    if (error < 0 && failed == CULPRIT_BISECT__CANDIDATE) { /* the commit's own failure */
        out->verdict = CULPRIT_BISECT_SKIP;
        out->change = out->change_low = out->change_high = NAN;
        if (!(out->note = culprit_strdup(culprit_error_last())))
            return CULPRIT_ERROR_NOMEM();
        culprit_error_clear();
        return 0;
    }
    if (error < 0)
        return error;
    out->verdict = c.slower == 1 ? CULPRIT_BISECT_BAD : CULPRIT_BISECT_GOOD;
    out->change = c.change;
    out->change_low = c.change_low;
    out->change_high = c.change_high;
    out->pairs = c.pairs;
    out->good_count = c.deterministic ? count : 0;
    return (out->note = note_of(&c, st->good, known > 0 && count == known)) ? 0
                                                                            : CULPRIT_ERROR_NOMEM();
}

int culprit_bisect_fanout_probe(culprit_fanout_record *out, const culprit_bisect_options *opts,
                                const culprit_fanout_options *fo, const char *commit)
{
    return culprit_bisect__fanout_probe_with(out, opts, fo, commit, NULL);
}

int culprit_bisect__fanout_probe_with(culprit_fanout_record *out,
                                      const culprit_bisect_options *opts,
                                      const culprit_fanout_options *fo, const char *commit,
                                      const culprit_bisect__probe *probe)
{
    culprit_fanout_state st;
    culprit_vcs *repo = NULL;
    int error;

    memset(out, 0, sizeof(*out));
    if (!fo || !fo->record_dir || !commit)
        return culprit_error_set(CULPRIT_EINVALID,
                                 "bisect --probe: a commit and a history directory are needed");
    if ((error = culprit_bisect_fanout_state(&st, opts, fo)) < 0)
        return error;
    out->round = st.round;
    if ((error = culprit_vcs_open(&repo,
                                  opts->measure.repository ? opts->measure.repository : ".")) < 0 ||
        (error = culprit_vcs_resolve(out->sha, repo, commit)) < 0)
        goto cleanup;
    if ((error = measure(out, opts, &st, out->sha, probe)) < 0 ||
        (error = culprit_bisect__fanout_record_write(out, st.key, fo->record_dir)) < 0)
        goto cleanup;
cleanup:
    culprit_vcs_free(repo);
    culprit_bisect_fanout_state_dispose(&st);
    if (error < 0)
        culprit_bisect_fanout_record_dispose(out);
    return error;
}
