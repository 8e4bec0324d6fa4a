/*
 * The culprit block: the line-oriented text a history file keeps in each
 * <testcase>'s <system-out> (the strict JUnit schema allows no <properties> in a
 * testcase). docs/history-format.md describes it; in short:
 *
 *     culprit-result 1
 *     key value            one line per field of the result, table `fields` below
 *     series NAME N|absent one line per series, in order
 *     samples BYTES        byte length of the sample lines that follow
 *     NAME v1 v2 ...       one line per series ("NAME absent" when absent)
 *
 * Everything a summaries-only read needs comes before the samples line, so such a
 * read stops there, and the store's reader can even skip the sample bytes unread
 * (read.c) because their length is announced and they need no XML escaping.
 */
#define _GNU_SOURCE /* memmem */
#include "history_internal.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { FIELD_STRING, FIELD_DOUBLE, FIELD_UINT, FIELD_SIZE } field_type;

#define FIELD(key, type, member)                                                                   \
    {                                                                                              \
        key, sizeof(key) - 1, type, offsetof(culprit_test_result, member)                          \
    }

/* The order here is the order written; the parser expects (not requires) it. */
static const struct field {
    const char *key;
    size_t keylen;
    field_type type;
    size_t offset;
} fields[] = {
    FIELD("category", FIELD_STRING, category),
    FIELD("category-source", FIELD_STRING, category_source),
    FIELD("category-low-ns", FIELD_DOUBLE, category_low_ns),
    FIELD("category-high-ns", FIELD_DOUBLE, category_high_ns),
    FIELD("verdict", FIELD_STRING, verdict),
    FIELD("verdict-message", FIELD_STRING, verdict_message),
    FIELD("metric", FIELD_STRING, metric),
    FIELD("counted-by", FIELD_STRING, counted_by),
    FIELD("batch", FIELD_UINT, batch),
    FIELD("warmup", FIELD_UINT, warmup),
    FIELD("stop", FIELD_STRING, stop),
    FIELD("timer-overhead-ns", FIELD_DOUBLE, timer_overhead_ns),
    FIELD("elapsed-s", FIELD_DOUBLE, elapsed_s),
    /* Written only when a sample was preempted: see put_field(). */
    FIELD("preempted", FIELD_SIZE, preempted),
    FIELD("preempted-kept", FIELD_UINT, preempted_kept),
    /* Written only when the body timed regions. */
    FIELD("region", FIELD_UINT, region),
    FIELD("summary-n", FIELD_SIZE, summary.n),
    FIELD("summary-mean", FIELD_DOUBLE, summary.mean),
    FIELD("summary-sd", FIELD_DOUBLE, summary.sd),
    FIELD("summary-median", FIELD_DOUBLE, summary.median),
    FIELD("summary-min", FIELD_DOUBLE, summary.min),
    FIELD("summary-max", FIELD_DOUBLE, summary.max),
    FIELD("summary-ci-low", FIELD_DOUBLE, summary.ci_low),
    FIELD("summary-ci-high", FIELD_DOUBLE, summary.ci_high),
    FIELD("summary-confidence", FIELD_DOUBLE, summary.confidence),
    FIELD("judged-n", FIELD_SIZE, judged.n),
    FIELD("judged-mean", FIELD_DOUBLE, judged.mean),
    FIELD("judged-sd", FIELD_DOUBLE, judged.sd),
    FIELD("judged-median", FIELD_DOUBLE, judged.median),
    FIELD("judged-min", FIELD_DOUBLE, judged.min),
    FIELD("judged-max", FIELD_DOUBLE, judged.max),
    FIELD("judged-ci-low", FIELD_DOUBLE, judged.ci_low),
    FIELD("judged-ci-high", FIELD_DOUBLE, judged.ci_high),
    FIELD("judged-confidence", FIELD_DOUBLE, judged.confidence),
    FIELD("outliers-q1", FIELD_DOUBLE, outliers.q1),
    FIELD("outliers-q3", FIELD_DOUBLE, outliers.q3),
    FIELD("outliers-iqr", FIELD_DOUBLE, outliers.iqr),
    FIELD("outliers-low-severe", FIELD_DOUBLE, outliers.low_severe),
    FIELD("outliers-low-mild", FIELD_DOUBLE, outliers.low_mild),
    FIELD("outliers-high-mild", FIELD_DOUBLE, outliers.high_mild),
    FIELD("outliers-high-severe", FIELD_DOUBLE, outliers.high_severe),
    FIELD("outliers-n-low-severe", FIELD_SIZE, outliers.n_low_severe),
    FIELD("outliers-n-low-mild", FIELD_SIZE, outliers.n_low_mild),
    FIELD("outliers-n-high-mild", FIELD_SIZE, outliers.n_high_mild),
    FIELD("outliers-n-high-severe", FIELD_SIZE, outliers.n_high_severe),
    /* Written only for load tests (load-calls > 0): see put_field(). */
    FIELD("load-calls", FIELD_SIZE, load_calls),
    FIELD("load-call-mean", FIELD_DOUBLE, load_call_mean),
    FIELD("load-call-sd", FIELD_DOUBLE, load_call_sd),
    FIELD("load-call-min", FIELD_DOUBLE, load_call_min),
    FIELD("load-call-max", FIELD_DOUBLE, load_call_max),
    FIELD("load-warmup-intervals", FIELD_SIZE, load_warmup_intervals),
    FIELD("load-interval-s", FIELD_DOUBLE, load_interval_s),
};

#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

static const char *test_label(const culprit_test_result *test)
{
    return test->name ? test->name : "(unnamed)";
}

/* ------------------------------------------------------------------ writing --- */

static int put_number(culprit_buf *buf, double v)
{
    int error;

    if ((error = culprit_buf_grow(buf, CULPRIT_HISTORY__NUMBER_MAX)) < 0)
        return error;
    buf->size += culprit_history__format_double(buf->ptr + buf->size, v);
    buf->ptr[buf->size] = '\0';
    return 0;
}

/*
 * Series names are identifiers ("wall_ns", "l1d_misses"): printable ASCII with no
 * space (the line separator) and nothing XML would escape, so sample lines can be
 * written raw and their length announced.
 */
static int check_series_name(const culprit_test_result *test, const char *name)
{
    for (const char *p = name; *p; p++)
        if (*p <= ' ' || *p > '~' || *p == '<' || *p == '>' || *p == '&')
            return culprit_error_set(CULPRIT_EINVALID,
                                     "test '%s': series name '%s' has a character other "
                                     "than printable ASCII without space, '<', '>', '&'",
                                     test_label(test), name);
    if (!*name)
        return culprit_error_set(CULPRIT_EINVALID, "test '%s': empty series name",
                                 test_label(test));
    return 0;
}

static int put_field(culprit_buf *head, const culprit_test_result *test, const struct field *f)
{
    const char *base = (const char *)test + f->offset;
    int error;

    if (f->type == FIELD_STRING && !*(char *const *)base)
        return 0;
    /* Blocks of ordinary tests stay as they were. */
    if (strncmp(f->key, "load-", 5) == 0 && test->load_calls == 0)
        return 0;
    if (strncmp(f->key, "preempted", 9) == 0 && test->preempted == 0)
        return 0;
    if (strcmp(f->key, "region") == 0 && !test->region)
        return 0;
    if ((error = culprit_buf_put(head, f->key, f->keylen)) < 0 ||
        (error = culprit_buf_put(head, " ", 1)) < 0)
        return error;
    switch (f->type) {
    case FIELD_STRING: {
        /* A value is one line: a line break or control byte in a name (a verdict
         * message names the test) is written as "\xNN", as the terminal shows it,
         * never a reason not to record (docs/history-format.md, "Names"). */
        error = culprit_buf_put_text(head, *(char *const *)base);
        break;
    }
    case FIELD_DOUBLE:
        error = put_number(head, *(const double *)base);
        break;
    case FIELD_UINT:
        error = culprit_buf_printf(head, "%u", *(const unsigned int *)base);
        break;
    case FIELD_SIZE:
        error = culprit_buf_printf(head, "%zu", *(const size_t *)base);
        break;
    }
    if (error < 0)
        return error;
    return culprit_buf_put(head, "\n", 1);
}

/* " v1 v2 ...", or " ~S BASE64" (pack.c) when that is shorter. */
static int put_values(culprit_buf *samples, const culprit_series *s)
{
    size_t mark = samples->size, packed;
    int error, pack;

    const char *env = getenv("CULPRIT_HISTORY_PACK");

    if ((error = culprit_buf_put(samples, " ", 1)) < 0)
        return error;
    /* CULPRIT_HISTORY_PACK=0: text, to read the samples by eye (docs/history-format.md). */
    pack =
        env && strcmp(env, "0") == 0 ? 0 : culprit_history__pack_series(samples, s->values, s->n);
    if (pack < 0)
        return pack;
    packed = samples->size - mark;
    for (size_t k = 0; k < s->n; k++) {
        if ((error = culprit_buf_put(samples, " ", 1)) < 0 ||
            (error = put_number(samples, s->values[k])) < 0)
            return error;
    }
    /* A handful of values stays readable: packing saves bytes from a few dozen on. */
    if (pack == 1 && s->n >= CULPRIT_HISTORY__PACK_MIN && packed < samples->size - mark - packed) {
        samples->size = mark + packed; /* the packed form, already in place */
    } else {
        memmove(samples->ptr + mark, samples->ptr + mark + packed, samples->size - mark - packed);
        samples->size -= packed;
    }
    samples->ptr[samples->size] = '\0';
    return 0;
}

int culprit_history__block_format(culprit_buf *head, culprit_buf *samples,
                                  const culprit_test_result *test)
{
    int error;

    if ((error = culprit_buf_printf(head, "%s %d\n", CULPRIT_HISTORY__BLOCK_MAGIC,
                                    CULPRIT_HISTORY_FORMAT)) < 0)
        return error;
    for (size_t i = 0; i < NFIELDS; i++)
        if ((error = put_field(head, test, &fields[i])) < 0)
            return error;
    for (size_t i = 0; i < test->nseries; i++) {
        const culprit_series *s = &test->series[i];
        if ((error = check_series_name(test, s->name)) < 0)
            return error;
        if (s->absent)
            error = culprit_buf_printf(head, "series %s absent\n", s->name);
        else
            error = culprit_buf_printf(head, "series %s %zu\n", s->name, s->n);
        if (error < 0)
            return error;
        if ((error = culprit_buf_puts(samples, s->name)) < 0)
            return error;
        if (s->absent || !s->values) {
            /* A present series without values (loaded summaries-only) writes as n = 0. */
            if (!s->absent && s->n)
                return culprit_error_set(CULPRIT_EINVALID,
                                         "test '%s': series '%s' has n = %zu but no values "
                                         "(loaded without samples?)",
                                         test_label(test), s->name, s->n);
            if (s->absent && (error = culprit_buf_puts(samples, " absent")) < 0)
                return error;
        } else if ((error = put_values(samples, s)) < 0) {
            return error;
        }
        if ((error = culprit_buf_put(samples, "\n", 1)) < 0)
            return error;
    }
    return culprit_buf_printf(head, "%s %zu\n", CULPRIT_HISTORY__SAMPLES_KEY, samples->size);
}

/* ------------------------------------------------------------------ reading --- */

typedef struct {
    const char *p, *end; /* what is left of the text */
    size_t lineno;
    culprit_test_result *test;
    size_t series_room; /* entries reserved for the series (culprit_history__series_reserve) */
    unsigned int flags; /* CULPRIT_HISTORY_LOAD_* */
} block_reader;

/* The next line without its '\n' in [*line, *eol); 0 at the end of the text. */
static int next_line(block_reader *r, const char **line, const char **eol)
{
    const char *nl;

    if (r->p >= r->end)
        return 0;
    nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
    *line = r->p;
    *eol = nl ? nl : r->end;
    r->p = nl ? nl + 1 : r->end;
    r->lineno++;
    return 1;
}

static int bad_line(block_reader *r, const char *what, const char *line, const char *eol)
{
    int len = eol - line > 60 ? 60 : (int)(eol - line);
    return culprit_error_set(CULPRIT_EINVALID, "test '%s': culprit block line %zu: %s: '%.*s%s'",
                             test_label(r->test), r->lineno, what, len, line,
                             eol - line > 60 ? "..." : "");
}

static int set_field(block_reader *r, const struct field *f, const char *value, const char *eol,
                     const char *line)
{
    char *base = (char *)r->test + f->offset;
    uint64_t u;

    switch (f->type) {
    case FIELD_STRING: {
        char *copy = malloc((size_t)(eol - value) + 1);
        if (!copy)
            return CULPRIT_ERROR_NOMEM();
        memcpy(copy, value, (size_t)(eol - value));
        copy[eol - value] = '\0';
        free(*(char **)base);
        *(char **)base = copy;
        return 0;
    }
    case FIELD_DOUBLE:
        if (culprit_history__parse_double((double *)base, value, eol) < 0)
            return bad_line(r, "malformed number", line, eol);
        return 0;
    case FIELD_UINT:
        if (culprit_history__parse_uint(&u, value, eol, 0xffffffffu) < 0)
            return bad_line(r, "malformed count", line, eol);
        *(unsigned int *)base = (unsigned int)u;
        return 0;
    case FIELD_SIZE:
        /* At most 2^53: counts enter the statistics as doubles, exact up to there, and
         * no run takes more; 18446744073709551615 samples was accepted before. */
        if (culprit_history__parse_uint(&u, value, eol, (uint64_t)1 << 53) < 0)
            return bad_line(r, "malformed count (at most 2^53)", line, eol);
        *(size_t *)base = (size_t)u;
        return 0;
    }
    return 0;
}

/* The lines from `line` on that start with "series ": the writer puts them together. */
static size_t series_lines(const char *line, const char *end)
{
    size_t n = 0;

    while ((size_t)(end - line) > 7 && !memcmp(line, "series ", 7)) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        n++;
        if (!nl)
            break;
        line = nl + 1;
    }
    return n;
}

static int parse_series_line(block_reader *r, const char *value, const char *eol, const char *line)
{
    const char *sp = memchr(value, ' ', (size_t)(eol - value));
    char name[256];
    uint64_t n = 0;
    int absent, error;

    if (!sp || sp == value || (size_t)(sp - value) >= sizeof(name))
        return bad_line(r, "malformed series line", line, eol);
    memcpy(name, value, (size_t)(sp - value));
    name[sp - value] = '\0';
    absent = (eol - sp - 1 == 6 && !memcmp(sp + 1, "absent", 6));
    if (!absent && culprit_history__parse_uint(&n, sp + 1, eol, SIZE_MAX) < 0)
        return bad_line(r, "malformed series length", line, eol);
    if (r->flags & CULPRIT_HISTORY_LOAD_NO_SERIES) /* checked, not kept */
        return 0;
    if (r->test->nseries == 0)
        r->series_room = culprit_history__series_reserve(r->test, series_lines(line, r->end));
    error = r->test->nseries < r->series_room
                ? culprit_history__series_fill(r->test, name, NULL, 0, absent)
                : culprit_history_test_result_add_series(r->test, name, NULL, 0, absent);
    if (error < 0)
        return CULPRIT_ERROR;
    r->test->series[r->test->nseries - 1].n = (size_t)n;
    return 0;
}

static int parse_samples(block_reader *r)
{
    const char *line, *eol;

    for (size_t i = 0; i < r->test->nseries; i++) {
        culprit_series *s = &r->test->series[i];
        size_t namelen = strlen(s->name), k = 0;
        const char *p;

        if (!next_line(r, &line, &eol))
            return culprit_error_set(CULPRIT_EINVALID,
                                     "test '%s': culprit block: no sample line for series '%s' "
                                     "(truncated?)",
                                     test_label(r->test), s->name);
        if ((size_t)(eol - line) < namelen || memcmp(line, s->name, namelen) ||
            (line + namelen < eol && line[namelen] != ' '))
            return bad_line(r, "sample line does not match the next series", line, eol);
        p = line + namelen;
        if (s->absent) {
            if (eol - p != 7 || memcmp(p, " absent", 7))
                return bad_line(r, "values for an absent series", line, eol);
            continue;
        }
        if (eol - p > 1 && p[1] == '~') {
            if (culprit_history__unpack_series(&s->values, s->n, p + 1, eol) < 0)
                return bad_line(r, "malformed packed samples", line, eol);
            continue;
        }
        /* Each value takes at least two bytes, which bounds what a lying n can allocate. */
        if (s->n > (size_t)(eol - p) / 2)
            return bad_line(r, "fewer values than the series announces", line, eol);
        if (s->n && !(s->values = malloc(s->n * sizeof(double))))
            return CULPRIT_ERROR_NOMEM();
        while (p < eol) {
            const char *tok = ++p, *sp;
            sp = memchr(tok, ' ', (size_t)(eol - tok));
            if (!sp)
                sp = eol;
            if (k == s->n)
                return bad_line(r, "more values than the series announces", line, eol);
            if (culprit_history__parse_double(&s->values[k++], tok, sp) < 0)
                return bad_line(r, "malformed sample value", line, eol);
            p = sp;
        }
        if (k != s->n)
            return bad_line(r, "fewer values than the series announces", line, eol);
    }
    return 0;
}

/* The field of key [key, key + keylen), or NULL. Fields come in table order, some of
 * them left out (written only when set): the search goes on from the cursor, the
 * entry after the last one found, and only then from the top (from the top each
 * time, the optional fields' absence cost 5% of reading a block). */
static const struct field *find_field(const char *key, size_t keylen, size_t *cursor)
{
    for (size_t k = 0; k < NFIELDS; k++) {
        size_t i = (*cursor + k) % NFIELDS;
        if (fields[i].keylen == keylen && !memcmp(fields[i].key, key, keylen)) {
            *cursor = i + 1;
            return &fields[i];
        }
    }
    return NULL;
}

int culprit_history__block_parse(culprit_test_result *test, const char *text, size_t len,
                                 unsigned int flags)
{
    block_reader r = {
        text, text + len, 0, test, 0,
        /* with the samples, their series */
        (flags & CULPRIT_HISTORY_LOAD_SAMPLES) ? flags & ~CULPRIT_HISTORY_LOAD_NO_SERIES : flags};
    const char *line, *eol;
    size_t cursor = 0, magiclen = strlen(CULPRIT_HISTORY__BLOCK_MAGIC);
    uint64_t version;

    /* The JUnit report (CULPRIT_HISTORY_REPORT) puts the runner's line first, which
     * may hold a multi-line message: the block starts at the first magic line. */
    if (len && text[0] == '[') {
        const char *m = memmem(text, len, "\n" CULPRIT_HISTORY__BLOCK_MAGIC " ", magiclen + 2);
        if (m)
            r.p = m + 1;
    }
    if (!next_line(&r, &line, &eol) || (size_t)(eol - line) <= magiclen + 1 ||
        memcmp(line, CULPRIT_HISTORY__BLOCK_MAGIC " ", magiclen + 1))
        return culprit_error_set(CULPRIT_EINVALID,
                                 "test '%s': <system-out> does not start with '%s'",
                                 test_label(test), CULPRIT_HISTORY__BLOCK_MAGIC);
    if (culprit_history__parse_uint(&version, line + magiclen + 1, eol, 1000000) < 0 ||
        version != CULPRIT_HISTORY_FORMAT)
        return bad_line(&r, "unsupported culprit block version", line, eol);

    while (next_line(&r, &line, &eol)) {
        const char *sp = memchr(line, ' ', (size_t)(eol - line));
        const char *value = sp ? sp + 1 : eol;
        size_t keylen = (size_t)((sp ? sp : eol) - line);
        const struct field *f = NULL;
        int error;

        if (line == eol)
            continue;
        if (!(keylen == 6 && !memcmp(line, "series", 6)) &&
            !(keylen == strlen(CULPRIT_HISTORY__SAMPLES_KEY) &&
              !memcmp(line, CULPRIT_HISTORY__SAMPLES_KEY, keylen)))
            f = find_field(line, keylen, &cursor);
        if (f) {
            if ((error = set_field(&r, f, value, eol, line)) < 0)
                return error;
        } else if (keylen == 6 && !memcmp(line, "series", 6)) {
            if ((error = parse_series_line(&r, value, eol, line)) < 0)
                return error;
        } else if (keylen == strlen(CULPRIT_HISTORY__SAMPLES_KEY) &&
                   !memcmp(line, CULPRIT_HISTORY__SAMPLES_KEY, keylen)) {
            uint64_t bytes;
            if (culprit_history__parse_uint(&bytes, value, eol, SIZE_MAX) < 0)
                return bad_line(&r, "malformed samples length", line, eol);
            /* The length is what a summaries-only read jumps by (read.c), so it must be
             * the sample lines' own: one that lies made a test vanish from such reads
             * and not from full ones. Nothing follows when the jump already happened. */
            if ((flags & CULPRIT_HISTORY_LOAD_SAMPLES) && (error = parse_samples(&r)) < 0)
                return error;
            if ((uint64_t)(r.end - (eol + 1)) != bytes && r.end > eol + 1)
                return bad_line(&r, "samples length does not match the sample lines", line, eol);
            return 0;
        }
        /* Unknown keys are skipped: a later minor addition must not break old readers. */
    }
    return culprit_error_set(CULPRIT_EINVALID,
                             "test '%s': culprit block has no samples line (truncated?)",
                             test_label(test));
}
