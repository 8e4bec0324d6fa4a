/*
 * A paired confirmation (`culprit check --confirm --build CMD --run CMD`): the
 * baseline commit and the commit judged, built in temporary checkouts and measured
 * against each other as one step of a bisection, by the bisection's own comparison
 * (comparison.c: warm-up runs, interleaved pairs in alternating order, the pairs'
 * differences judged, more pairs while undecided up to max_runs). This is how
 * Pinpoint confirms on one bot what a CI history only suggests: the drift of a
 * shared machine cancels in pairs, where one run per commit could not decide.
 */
#include "bisect_internal.h"
#include "culprit/core.h"

#include <math.h>
#include <string.h>

int culprit_bisect__confirm_with_probe(culprit_bisect_confirmation *out,
                                       const culprit_bisect_options *opts,
                                       const culprit_bisect__probe *probe)
{
    culprit_bisect_result result;
    culprit_bisect__session s;
    culprit_bisect_step *step = NULL;
    culprit_bisect__side failed = CULPRIT_BISECT__CANDIDATE;
    int error, slower = 0;

    memset(out, 0, sizeof(*out));
    memset(&result, 0, sizeof(result));
    memset(&s, 0, sizeof(s));
    out->change = out->change_low = out->change_high = NAN;
    out->slower = -1;
    if ((error = culprit_bisect_options_check(opts)) < 0)
        goto cleanup;
    s.opts = opts;
    s.result = &result;
    s.probe = probe;
    if ((error = culprit_vcs_open(&s.repo, opts->repository ? opts->repository : ".")) < 0 ||
        (error = culprit_vcs_resolve(result.good, s.repo, opts->good)) < 0 ||
        (error = culprit_vcs_resolve(result.bad, s.repo, opts->bad)) < 0)
        goto cleanup;
    if ((error =
             culprit_bisect__check_pair(&s, result.good, result.bad, culprit_bisect__max_runs(opts),
                                        &slower, &step, &failed)) < 0) {
        if (error == CULPRIT_ESKIP) { /* say which side could not be built or run */
            culprit_error_prefix(failed == CULPRIT_BISECT__GOOD ? "the baseline "
                                                                : "the commit judged ");
            error = culprit_error_recode(CULPRIT_ERROR);
        }
        goto cleanup;
    }
    out->slower = slower ? 1 : step && step->undecided ? -1 : 0;
    if (step) {
        out->change = step->change;
        out->change_low = step->change_low;
        out->change_high = step->change_high;
        out->runs = step->runs;
        out->pairs = step->paired;
        out->deterministic = step->deterministic;
    }
    out->builds = result.builds;
cleanup:
    if (probe->dispose)
        probe->dispose(probe->payload);
    culprit_vcs_free(s.repo);
    culprit_bisect__dispose_keeping_error(&result);
    return error;
}

int culprit_bisect_confirm(culprit_bisect_confirmation *out, const culprit_bisect_options *opts)
{
    culprit_bisect__probe probe;
    int error;

    memset(out, 0, sizeof(*out));
    out->slower = -1;
    if ((error = culprit_bisect_options_check(opts)) < 0 ||
        (error = culprit_bisect__probe_open(&probe, opts)) < 0)
        return error;
    return culprit_bisect__confirm_with_probe(out, opts, &probe);
}
