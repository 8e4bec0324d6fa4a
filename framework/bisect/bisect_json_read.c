/*
 * Reads back the document `culprit bisect --json` prints (its writer is
 * bisect_json.c) into the same culprit_bisect_result a session returns, so the
 * report renders a bisection from the typed result whether it ran in this process
 * or was read from a file. What the result does not hold, the document adds: the
 * perf test bisected ("test") and the call-tree analysis of the culprit ("calltree",
 * read into a culprit_calltree_view: the trees it compared are not in the
 * document). The document is untrusted input: a malformed field is an error naming
 * the file and the field; a missing optional one is left unknown (NAN, NULL, 0).
 */
#include "culprit/bisect.h"

#include "../calltree/calltree_json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define number(...) culprit_calltree__json_number(__VA_ARGS__)
#define count(...)  culprit_calltree__json_count(__VA_ARGS__)
#define string(...) culprit_calltree__json_string(__VA_ARGS__)
#define sha(...)    culprit_calltree__json_sha(__VA_ARGS__)

/* The words of the writer, in the order of culprit_bisect_outcome. */
static const char *const outcome_names[] = {"found", "ambiguous", "no-regression", "slow-decay"};
/* The words of the writer, in the order of culprit_bisect_verdict. */
static const char *const verdict_names[] = {"good", "bad", "skip"};

const char *culprit_bisect_outcome_name(culprit_bisect_outcome outcome)
{
    return (unsigned)outcome < 4 ? outcome_names[outcome] : NULL;
}

const char *culprit_bisect_verdict_name(culprit_bisect_verdict verdict)
{
    return (unsigned)verdict < 3 ? verdict_names[verdict] : NULL;
}

/* The index of the word `field` of `o` names among `names`, or an error naming it. */
static int word(int *out, const json_t *o, const char *field, const char *const *names,
                size_t nnames, const char *path, const char *where)
{
    const json_t *v = json_object_get(o, field);

    if (!json_is_string(v))
        return culprit_error_set(CULPRIT_EINVALID, "'%s'%s has no \"%s\"", path, where, field);
    for (size_t i = 0; i < nnames; i++)
        if (strcmp(json_string_value(v), names[i]) == 0) {
            *out = (int)i;
            return 0;
        }
    return culprit_error_set(CULPRIT_EINVALID, "'%s'%s: \"%s\" '%s' is not one of %s, %s, %s%s%s",
                             path, where, field, json_string_value(v), names[0], names[1], names[2],
                             nnames > 3 ? ", " : "", nnames > 3 ? names[3] : "");
}

/* "change" with its interval: a step's, a culprit's, the whole search's. */
static void read_change(double *change, double *low, double *high, const json_t *o)
{
    *change = number(o, "change");
    *low = number(o, "change_low");
    *high = number(o, "change_high");
}

static int read_steps(culprit_bisect_result *r, const json_t *array, const char *path)
{
    size_t len = json_is_array(array) ? json_array_size(array) : 0;
    int error;

    if (!(r->steps = calloc(len ? len : 1, sizeof(*r->steps))))
        return CULPRIT_ERROR_NOMEM();
    for (size_t i = 0; i < len; i++) {
        const json_t *j = json_array_get(array, i);
        culprit_bisect_step *s = &r->steps[i];
        char where[48];
        int verdict = 0;
        r->nsteps++;
        snprintf(where, sizeof(where), ": step %zu", i);
        if ((error = word(&verdict, j, "verdict", verdict_names, 3, path, where)) < 0 ||
            (error = string(&s->subject, j, "subject")) < 0 ||
            (error = string(&s->skip_reason, j, "skip_reason")) < 0)
            return error;
        s->verdict = (culprit_bisect_verdict)verdict;
        sha(s->sha, j, "commit");
        sha(s->good, j, "good");
        s->good_mean_ns = number(j, "good_mean_ns");
        s->mean_ns = number(j, "mean_ns");
        read_change(&s->change, &s->change_low, &s->change_high, j);
        s->runs = count(j, "runs");
        s->reused = count(j, "reused");
        s->paired = count(j, "paired");
        s->undecided = json_is_true(json_object_get(j, "undecided"));
        s->deterministic = json_is_true(json_object_get(j, "deterministic"));
        s->round = count(j, "round");
    }
    return 0;
}

/* Every culprit (--all) or slow-decay contribution. */
static int read_culprits(culprit_bisect_result *r, const json_t *array)
{
    size_t len = json_is_array(array) ? json_array_size(array) : 0;
    int error;

    if (!(r->culprits = calloc(len ? len : 1, sizeof(*r->culprits))))
        return CULPRIT_ERROR_NOMEM();
    for (size_t i = 0; i < len; i++) {
        const json_t *j = json_array_get(array, i);
        culprit_bisect_culprit *c = &r->culprits[i];
        r->nculprits++;
        if ((error = string(&c->subject, j, "subject")) < 0)
            return error;
        sha(c->sha, j, "commit");
        read_change(&c->change, &c->change_low, &c->change_high, j);
        c->share = number(j, "share");
        c->cpu_share = number(j, "cpu_share");
    }
    return 0;
}

/* AMBIGUOUS: the possible first bad commits. */
static int read_range(culprit_bisect_result *r, const json_t *array)
{
    size_t len = json_is_array(array) ? json_array_size(array) : 0;

    if (!(r->range = calloc(len ? len : 1, sizeof(*r->range))))
        return CULPRIT_ERROR_NOMEM();
    for (size_t i = 0; i < len; i++) {
        const json_t *v = json_array_get(array, i);
        if (json_is_string(v))
            snprintf(r->range[r->nrange++], sizeof(r->range[0]), "%.40s", json_string_value(v));
    }
    return 0;
}

/* The figures of the whole search. */
static void read_totals(culprit_bisect_result *r, const json_t *doc)
{
    const json_t *confirmed = json_object_get(doc, "confirmed");

    sha(r->good, doc, "good");
    sha(r->bad, doc, "bad");
    sha(r->culprit, doc, "culprit");
    read_change(&r->change, &r->change_low, &r->change_high, doc);
    r->ncommits = count(doc, "commits");
    r->builds = count(doc, "builds");
    r->runs = count(doc, "runs");
    r->reused = count(doc, "reused");
    r->nunsearched = count(doc, "unsearched_ranges");
    r->nirrelevant = count(doc, "irrelevant");
    r->backtracks = count(doc, "backtracks");
    r->confirmed = json_is_boolean(confirmed) ? json_is_true(confirmed) : -1;
}

/* bisect --calltree embeds the analysis of the culprit against its parent. */
static int read_calltree(culprit_bisect_result *r, culprit_calltree_view **view, const json_t *doc,
                         const char *path)
{
    const json_t *c = json_object_get(doc, "calltree");
    int error;

    if (!json_is_object(c))
        return 0;
    sha(r->parent, c, "parent");
    r->calltree_corrected = json_is_true(json_object_get(c, "corrected"));
    if ((error = string(&r->calltree_error, c, "error")) < 0 || !view ||
        (error = culprit_calltree__view_read(view, c, path)) < 0)
        return error;
    if (!(*view)->commit && r->culprit[0] && !((*view)->commit = culprit_strdup(r->culprit)))
        return CULPRIT_ERROR;
    return 0;
}

int culprit_bisect_result_from_json(culprit_bisect_result *out, char **test,
                                    culprit_calltree_view **calltree, const char *path)
{
    json_t *doc = NULL;
    int outcome = 0, error;

    memset(out, 0, sizeof(*out));
    if (test)
        *test = NULL;
    if (calltree)
        *calltree = NULL;
    if ((error = culprit_calltree__json_load(&doc, path, "bisect")) < 0)
        return error;
    if ((error = word(&outcome, doc, "outcome", outcome_names, 4, path, "")) < 0)
        goto cleanup;
    out->outcome = (culprit_bisect_outcome)outcome;
    read_totals(out, doc);
    if ((error = string(&out->subject, doc, "subject")) < 0 ||
        (error = string(&out->author, doc, "author")) < 0 ||
        (error = string(&out->date, doc, "date")) < 0 ||
        (error = read_steps(out, json_object_get(doc, "steps"), path)) < 0 ||
        (error = read_culprits(out, json_object_get(doc, "culprits"))) < 0 ||
        (error = read_range(out, json_object_get(doc, "range"))) < 0 ||
        (error = read_calltree(out, calltree, doc, path)) < 0 ||
        (test && (error = string(test, doc, "test")) < 0))
        goto cleanup;
cleanup:
    if (error < 0) {
        culprit_bisect_result_dispose(out);
        if (calltree) {
            culprit_calltree_view_free(*calltree);
            *calltree = NULL;
        }
    }
    json_decref(doc);
    return error;
}
