/*
 * Semi-private helpers shared by the files of framework/history: the exact number
 * format of the culprit block, the block itself, and the reader entry point the
 * store uses to filter while parsing. Not part of the public API.
 */
#ifndef CULPRIT_HISTORY_INTERNAL_H
#define CULPRIT_HISTORY_INTERNAL_H

#include "culprit/history.h"

/* Longest text culprit_history__format_double() writes, NUL included ("%.17g" of -1e-308). */
#define CULPRIT_HISTORY__NUMBER_MAX 32

/*
 * Writes `v` so that parsing it back gives the same double bit for bit (NaN's sign
 * and payload aside): "nan", "inf", "-inf", "-0", integers, short decimals, else
 * "%.17g". Returns the length written (no NUL terminator is counted).
 */
size_t culprit_history__format_double(char *buf, double v);

/*
 * Parses one number token [p, end): what culprit_history__format_double() writes,
 * or any plain decimal with an optional exponent. Returns 0 or -1 when malformed.
 */
int culprit_history__parse_double(double *out, const char *p, const char *end);

/* Parses a non-negative decimal integer token [p, end) that fits in `max`. */
int culprit_history__parse_uint(uint64_t *out, const char *p, const char *end, uint64_t max);

/* Parts of a document: [start, start + len) each, in order. */
typedef struct {
    size_t start, len;
    int token; /* 1: the text of the next cut block followed (read.c puts a token there) */
} culprit_history__range;

/* The length of a token's nonce: "@" and 16 random hex digits. */
#define CULPRIT_HISTORY__NONCE_LEN 17

typedef struct {
    culprit_history__range *items;
    size_t n, alloc;
    culprit_history__range *blocks; /* the text of each block cut out whole, in order */
    size_t nblocks, ablocks;
    char nonce[CULPRIT_HISTORY__NONCE_LEN]; /* of the tokens standing for the blocks */
} culprit_history__ranges;

/*
 * The document [data, data + len) without the sample lines of each culprit block,
 * appended to `out` as ranges of it (skip.c). With `cut`, also without the text of
 * each block that the XML parser would hand over unchanged (plain ASCII without '&',
 * '<', ']', '\r'): its range is marked `token` and its text listed in out->blocks, to
 * be parsed straight from the document. Returns 1 when done, 0 when the document
 * does not have the writer's exact shape (then it must be parsed whole), -1 when out
 * of memory.
 */
int culprit_history__skip_samples(culprit_history__ranges *out, const char *data, size_t len,
                                  int cut);

/* The longest token culprit_history__token() writes. */
#define CULPRIT_HISTORY__TOKEN_MAX 40

/*
 * The text the reader puts where block k of `cut` was (skip.c): the read's nonce (random,
 * made by the skip), '-', k; no document can spell it. Returns its length (no NUL).
 */
size_t culprit_history__token(char out[CULPRIT_HISTORY__TOKEN_MAX],
                              const culprit_history__ranges *cut, size_t k);

/*
 * The text [*text, *text + *len) of a <system-out>, when it is the token of cut block
 * *next: that block's text in `data` instead, *next advanced, 1. 0 when it is other
 * text (kept); -1 when it holds a token otherwise (the parser did not see the
 * document as the cut took it: read it again uncut).
 */
int culprit_history__take_block(const culprit_history__ranges *cut, size_t *next, const char *data,
                                const char **text, size_t *len);

/* Makes room for n tests in the run at once (the culprit blocks the skip found: one
 * allocation of the right size, not a doubling array copied ten times over); a
 * hint, nothing changes when memory is short. */
void culprit_history__tests_reserve(culprit_run *run, size_t n);

/* The first line of a culprit block; the version is CULPRIT_HISTORY_FORMAT. */
#define CULPRIT_HISTORY__BLOCK_MAGIC "culprit-result"
/* The line introducing the samples; its value is their byte length. */
#define CULPRIT_HISTORY__SAMPLES_KEY "samples"

/*
 * Formats the culprit block of `test`: `head` receives the header lines (escaped
 * by the XML writer), `samples` the sample lines, which are plain ASCII needing no
 * escaping, so their byte length in the file is known in advance.
 */
int culprit_history__block_format(culprit_buf *head, culprit_buf *samples,
                                  const culprit_test_result *test);

/*
 * Appends "~S BASE64", the packed form of the n values (pack.c), and returns 1; 0
 * (nothing appended) when they cannot be packed exactly; negative on allocation
 * failure.
 */
int culprit_history__pack_series(culprit_buf *out, const double *v, size_t n);
/* Series of fewer values are written as text (block.c). */
#define CULPRIT_HISTORY__PACK_MIN 8

/*
 * For a test without series: one array for its `n` series, as large as adding them
 * one by one would leave it (4, then doubling), so the block parser's 13 series cost
 * one allocation instead of three (issue 23). Returns the entries it holds, 0 when
 * nothing was reserved (the test has series, n is 0, or out of memory: then
 * culprit_history_test_result_add_series() grows the array as usual).
 */
size_t culprit_history__series_reserve(culprit_test_result *test, size_t n);
/* Appends a series as culprit_history_test_result_add_series() does, into an entry
 * already reserved (nseries below what culprit_history__series_reserve() returned). */
int culprit_history__series_fill(culprit_test_result *test, const char *name, const double *values,
                                 size_t n, int absent);

/*
 * Decodes the packed form [p, end) ("~S BASE64") of a series of n values into a
 * malloc'd *values. -1 when malformed, or when it holds other than n values.
 */
int culprit_history__unpack_series(double **values, size_t n, const char *p, const char *end);

/*
 * Parses a culprit block (the text of a <system-out>) into `test`. Without
 * CULPRIT_HISTORY_LOAD_SAMPLES it stops at the samples line. Errors are
 * CULPRIT_EINVALID with a message that does not name the file (the caller adds it).
 */
int culprit_history__block_parse(culprit_test_result *test, const char *text, size_t len,
                                 unsigned int flags);

/* The report's <testcase> time in seconds: the mean of one repetition (junit.c). */
double culprit_history__report_time(const culprit_test_result *test);

/* The report's failure body: message, value and interval, category, commit. */
int culprit_history__failure_body(culprit_buf *out, const culprit_run *run,
                                  const culprit_test_result *test);

/* `s` as XML can carry it: what it cannot as "\xNN" (culprit_text_utf8()); `s`
 * itself when nothing needs it, else held in `tmp`. NULL when out of memory. */
const char *culprit_history__xml_safe(const char *s, culprit_buf *tmp);

/*
 * The reader behind culprit_history_read_memory(), with the store's filters applied
 * while parsing: tests other than query->test are not kept, and a run of another
 * suite or commit yields *out == NULL and 0 (parsing stops early).
 */
int culprit_history__read(culprit_run **out, const char *data, size_t len, const char *name,
                          const culprit_history_query *query);

/* The text of a number macro. */
#define CULPRIT_HISTORY__STR(x)  CULPRIT_HISTORY__STR2(x)
#define CULPRIT_HISTORY__STR2(x) #x

/*
 * A <property> of a run file: `name` with *value, into `run` (a string property
 * takes *value, leaving NULL; unknown names are ignored, as later additions must be);
 * culprit.format sets *have_format. CULPRIT_EINVALID, with a message that does not
 * name the file, for a format version this build does not read or a bad culprit.dirty.
 */
int culprit_history__run_property(culprit_run *run, const char *name, char **value,
                                  int *have_format);

/* Initializes libxml2 once (its xmlInitParser()): on the calling thread before files
 * are read on several (culprit_parallel_for), as libxml2 asks of threaded programs.
 * Harmless to call again. */
void culprit_history__parser_init(void);

/* culprit_history_read_report() with the query's filters: the runs it does not want
 * are left out (report.c). The store reads a report merged by `culprit junit` so. */
int culprit_history__read_report(culprit_history_runs *out, const char *path,
                                 const culprit_history_query *query);

/* Maps and reads one file with the query's filters (see culprit_history__read). */
int culprit_history__load_file(culprit_run **out, const char *path,
                               const culprit_history_query *query);

/*
 * 1 when `commit` (NULL: none) is among q->commits, which culprit_history_load() has
 * sorted; with `prefix`, when one of them starts with `commit` (a file name's 12 hex
 * digits).
 */
int culprit_history__commit_wanted(const culprit_history_query *q, const char *commit, int prefix);

/* The run files of directory `dir`, sorted: "*.xml", not hidden, not a temporary. */
int culprit_history__list_files(char ***out, size_t *count, const char *dir);

/* Reports the file `path` skipped for the last error through `warn` (NULL: stderr). */
void culprit_history__warn_skipped(culprit_history_warn_fn warn, void *payload, const char *path);

/*
 * A second source of runs beside the directory (the shared history in a git ref,
 * culprit_history_source): parses the run file `data` (named `name` in warnings)
 * with the filters of `query` (NULL: all; its `commits`, when given, sorted in strcmp
 * order: culprit_history_load() sorts a copy of its own, a caller adding many files
 * sorts once) and appends it to `runs`. A file that cannot be read is reported
 * through `warn` (NULL: stderr), counted in runs->nskipped and skipped: 0. Call
 * culprit_history__runs_finish() once all are added. Errors: CULPRIT_ERROR (out of
 * memory). Internal since issue 24: a user reads both sources through
 * culprit_history_source_load().
 */
int culprit_history__runs_add_memory(culprit_history_runs *runs, const char *data, size_t len,
                                     const char *name, const culprit_history_query *query,
                                     culprit_history_warn_fn warn, void *payload);

/*
 * After runs from several sources: keeps one run per id (the one added first, so
 * load the local directory first) and sorts as culprit_history_load() does.
 */
int culprit_history__runs_finish(culprit_history_runs *runs);

#endif
