/*
 * Compact storage (framework/history/pack.c, compact.c): packed samples read back bit
 * for bit and refuse every malformed form; files written as text (as every file was
 * before packing) still read, and compacting or pruning a store gives the same
 * verdicts while the files shrink; unreadable files are left as they are.
 */
#include "support/test.h"
#include "support/tmpdir.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "culprit/detect.h"
#include "culprit/history.h"

static culprit_run *run_with(const char *commit, const char *stamp)
{
    culprit_run *run = NULL;
    assert_int_equal(culprit_history_run_new(&run), 0);
    culprit_str_set(&run->suite, "s");
    culprit_str_set(&run->commit, commit);
    culprit_str_set(&run->timestamp, stamp);
    culprit_str_set(&run->machine, "cpu; 2 cpus; Linux 6.1 x86_64");
    return run;
}

/* A passing test with its series "wall_ns" (the judged metric, summary computed) and
 * a counter that is mostly zero. */
static void add_test(culprit_run *run, const char *name, const double *x, size_t n)
{
    culprit_test_result *t = NULL;
    double *zeros = calloc(n, sizeof(*zeros));
    culprit_welford w;
    assert_int_equal(culprit_history_run_add_test(&t, run), 0);
    culprit_str_set(&t->name, name);
    culprit_str_set(&t->classname, "s");
    culprit_str_set(&t->metric, "wall_ns");
    t->status = CULPRIT_STATUS_PASS;
    culprit_stats_welford_init(&w);
    for (size_t i = 0; i < n; i++)
        culprit_stats_welford_add(&w, x[i]);
    t->summary.n = n;
    t->summary.mean = w.mean;
    t->summary.sd = sqrt(culprit_stats_welford_variance(&w));
    zeros[n / 2] = 1;
    assert_int_equal(culprit_history_test_result_add_series(t, "wall_ns", x, n, 0), 0);
    assert_int_equal(culprit_history_test_result_add_series(t, "minflt", zeros, n, 0), 0);
    assert_int_equal(culprit_history_test_result_add_series(t, "cycles", NULL, 0, 1), 0);
    free(zeros);
}

static culprit_run *round_trip(const culprit_run *run, culprit_buf *doc)
{
    culprit_run *back = NULL;
    culprit_buf_clear(doc);
    assert_int_equal(culprit_history_format(doc, run), 0);
    assert_int_equal(culprit_history_read_memory(&back, doc->ptr, doc->size, "mem",
                                                 CULPRIT_HISTORY_LOAD_SAMPLES),
                     0);
    return back;
}

static void packed_series_read_back_bit_for_bit(void **state)
{
    static const double tricky[][4] = {
        {1187.5, 1190, 1201.0625, -3},                   /* binary fractions, negative */
        {9007199254740992.0, -9007199254740992.0, 0, 1}, /* +-2^53 */
        {0.1, 0.2, 0.3, 0.4},                            /* no short binary fraction: text */
        {1, NAN, 2, 3},                                  /* NaN: text */
        {1, -0.0, 2, 3},                                 /* -0: text */
        {INFINITY, 1, 2, 3},                             /* text */
        {5e-300, 1, 2, 3},                               /* beyond 2^-32: text */
    };
    static const int packable[] = {1, 1, 0, 0, 0, 0, 0};
    culprit_buf doc = CULPRIT_BUF_INIT;
    double x[300];
    (void)state;

    for (size_t k = 0; k < sizeof(tricky) / sizeof(tricky[0]); k++) {
        culprit_run *run = run_with("c", "t"), *back;
        const culprit_series *s;
        for (size_t i = 0; i < 300; i++) /* long runs of one value, then the tricky ones */
            x[i] = i < 200 ? 42 : tricky[k][i % 4];
        add_test(run, "x", x, 300);
        back = round_trip(run, &doc);
        s = culprit_history_test_result_series(&back->tests[0], "wall_ns");
        assert_int_equal(s->n, 300);
        assert_memory_equal(s->values, x, sizeof(x)); /* bit for bit, NaN included */
        assert_int_equal(strstr(doc.ptr, "wall_ns ~") != NULL, packable[k]);
        assert_non_null(strstr(doc.ptr, "minflt ~0 ")); /* zeros and one 1: packed */
        assert_non_null(strstr(doc.ptr, "cycles absent"));
        culprit_history_run_free(back);
        culprit_history_run_free(run);
    }
    culprit_buf_dispose(&doc);
}

static void short_series_and_text_mode_stay_text(void **state)
{
    culprit_run *run = run_with("c", "t"), *back;
    culprit_buf doc = CULPRIT_BUF_INIT;
    double x[300];
    (void)state;

    for (size_t i = 0; i < 300; i++)
        x[i] = 1000 + (double)(i % 7);
    add_test(run, "few", x, 5);
    back = round_trip(run, &doc);
    assert_non_null(strstr(doc.ptr, "wall_ns 1000 1001 1002 1003 1004\n"));
    culprit_history_run_free(back);
    culprit_history_run_free(run);
    run = run_with("c", "t");
    add_test(run, "many", x, 300);
    setenv("CULPRIT_HISTORY_PACK", "0", 1);
    back = round_trip(run, &doc);
    unsetenv("CULPRIT_HISTORY_PACK");
    assert_null(strstr(doc.ptr, " ~"));
    assert_memory_equal(culprit_history_test_result_series(&back->tests[0], "wall_ns")->values, x,
                        sizeof(x));
    culprit_history_run_free(back);
    culprit_history_run_free(run);
    culprit_buf_dispose(&doc);
}

/* The document of one test with a packed series, edited: must be refused. */
static void expect_refused(const culprit_buf *doc, const char *from, const char *to)
{
    culprit_buf bad = CULPRIT_BUF_INIT;
    culprit_run *run = NULL;
    const char *at = strstr(doc->ptr, from), *samples;
    char len[32];

    assert_non_null(at);
    culprit_buf_put(&bad, doc->ptr, (size_t)(at - doc->ptr));
    culprit_buf_puts(&bad, to);
    culprit_buf_puts(&bad, at + strlen(from));
    /* Keep the announced samples length true, so only the packed line is wrong. */
    samples = strstr(bad.ptr, "\nsamples ");
    snprintf(len, sizeof(len), "%zu",
             strtoul(samples + 9, NULL, 10) +
                 (at > strstr(doc->ptr, "\nsamples ") ? strlen(to) - strlen(from) : 0));
    {
        culprit_buf fixed = CULPRIT_BUF_INIT;
        const char *eol = strchr(samples + 1, '\n');
        culprit_buf_put(&fixed, bad.ptr, (size_t)(samples - bad.ptr) + 9);
        culprit_buf_puts(&fixed, len);
        culprit_buf_puts(&fixed, eol);
        culprit_buf_dispose(&bad);
        bad = fixed;
    }
    assert_int_equal(culprit_history_read_memory(&run, bad.ptr, bad.size, "bad.xml",
                                                 CULPRIT_HISTORY_LOAD_SAMPLES),
                     CULPRIT_EINVALID);
    assert_non_null(strstr(culprit_error_last(), "packed samples"));
    /* A summaries-only read never decodes them. */
    assert_int_equal(culprit_history_read_memory(&run, bad.ptr, bad.size, "bad.xml", 0), 0);
    culprit_history_run_free(run);
    culprit_buf_dispose(&bad);
}

static void malformed_packed_samples_are_refused(void **state)
{
    culprit_run *run = run_with("c", "t");
    culprit_buf doc = CULPRIT_BUF_INIT;
    double x[16];
    (void)state;

    for (size_t i = 0; i < 16; i++)
        x[i] = (double)(i * i);
    add_test(run, "x", x, 16);
    assert_int_equal(culprit_history_format(&doc, run), 0);
    {
        /* Find the packed wall_ns line: "wall_ns ~0 BASE64\n". */
        const char *p = strstr(doc.ptr, "wall_ns ~0 "), *eol = strchr(p, '\n');
        char line[200], cut[200], extra[256];
        snprintf(line, sizeof(line), "%.*s", (int)(eol - p), p);
        snprintf(cut, sizeof(cut), "%.*s", (int)(eol - p - 4), p);
        snprintf(extra, sizeof(extra), "%sAAAA", line);
        expect_refused(&doc, line, cut);   /* fewer values than announced */
        expect_refused(&doc, line, extra); /* bytes beyond the values */
        expect_refused(&doc, "wall_ns ~0 ", "wall_ns ~0 *");
        expect_refused(&doc, "wall_ns ~0 ", "wall_ns ~99 ");
        expect_refused(&doc, "wall_ns ~0 ", "wall_ns ~x ");
        expect_refused(&doc, "series wall_ns 16", "series wall_ns 9999999");
    }
    culprit_history_run_free(run);
    culprit_buf_dispose(&doc);
}

/* ------------------------------------------------------------- the store --- */

typedef struct {
    culprit_verdict_kind kind[2];
    char *message[2];
} verdicts;

static verdicts check_at_c3(const char *dir)
{
    culprit_history *h = NULL;
    culprit_history_runs runs;
    culprit_check_result r;
    const char *fp[] = {"c2", "c1"};
    verdicts v;

    assert_int_equal(culprit_history_open(&h, dir, 0), 0);
    assert_int_equal(culprit_history_load(&runs, h, NULL, NULL, NULL), 0);
    assert_int_equal(culprit_detect_check(&r, &runs, "c3", fp, 2, NULL), 0);
    assert_int_equal(r.n, 2);
    for (size_t i = 0; i < 2; i++) {
        v.kind[i] = r.verdicts[i].kind;
        v.message[i] = strdup(r.verdicts[i].message);
    }
    culprit_detect_check_result_dispose(&r);
    culprit_history_runs_dispose(&runs);
    culprit_history_free(h);
    return v;
}

static void same_verdicts(verdicts a, verdicts b)
{
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(a.kind[i], b.kind[i]);
        assert_string_equal(a.message[i], b.message[i]);
        free(b.message[i]);
    }
}

static size_t store_bytes(const char *dir, char names[][256], size_t n)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        char path[512];
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        assert_int_equal(stat(path, &st), 0);
        total += (size_t)st.st_size;
    }
    return total;
}

static void compacting_and_pruning_keep_the_verdicts(void **state)
{
    char *dir = test_tmpdir_new("compact"), names[8][256], *path = NULL;
    static const char *commits[] = {"c1", "c1", "c2", "c2", "c3"};
    culprit_history *h = NULL;
    culprit_history_compact_stats st;
    culprit_history_compact_options o = CULPRIT_HISTORY_COMPACT_OPTIONS_INIT;
    culprit_history_runs runs;
    size_t before, after, n = 0;
    double x[400];
    verdicts v;
    (void)state;

    /* Five runs written as text, as every file was before packing; "slow" is 30%
     * slower at c3. */
    setenv("CULPRIT_HISTORY_PACK", "0", 1);
    assert_int_equal(culprit_history_open(&h, dir, 1), 0);
    for (size_t r = 0; r < 5; r++) {
        char stamp[32];
        culprit_run *run;
        snprintf(stamp, sizeof(stamp), "2026-01-0%zuT00:00:00Z", r + 1);
        run = run_with(commits[r], stamp);
        for (size_t i = 0; i < 400; i++)
            x[i] = 1000 + (double)((i * 7919 + r * 31) % 41) * 0.5;
        add_test(run, "flat", x, 400);
        for (size_t i = 0; r == 4 && i < 400; i++)
            x[i] *= 1.3;
        add_test(run, "slow", x, 400);
        assert_int_equal(culprit_history_store(h, run, &path), 0);
        snprintf(names[n++], sizeof(names[0]), "%s", strrchr(path, '/') + 1);
        free(path);
        culprit_history_run_free(run);
    }
    unsetenv("CULPRIT_HISTORY_PACK");
    /* A corrupt file is reported, left as it is, and does not stop the compaction. */
    snprintf(names[n], sizeof(names[0]), "zz-corrupt.xml");
    path = culprit_fs_join(dir, names[n++]);
    assert_int_equal(culprit_fs_write_atomic(path, "<testsuites>", 12, 0), 0);
    free(path);
    v = check_at_c3(dir);
    assert_int_equal(v.kind[1], CULPRIT_VERDICT_MINOR);
    before = store_bytes(dir, names, n);

    assert_int_equal(culprit_history_compact(&st, h, NULL, NULL, NULL), 0);
    assert_int_equal(st.files, 5);
    assert_int_equal(st.rewritten, 5);
    assert_int_equal(st.skipped, 1);
    assert_int_equal(st.test_runs, 10);
    after = store_bytes(dir, names, n);
    assert_int_equal(after, st.bytes_after + 12);
    assert_true(after * 2 < before);
    same_verdicts(v, check_at_c3(dir));
    /* Again: nothing left to do. */
    assert_int_equal(culprit_history_compact(&st, h, NULL, NULL, NULL), 0);
    assert_int_equal(st.rewritten, 0);

    /* Prune to the newest run of each test: same verdicts, samples only at c3. */
    o.keep_samples = 1;
    o.dry_run = 1;
    assert_int_equal(culprit_history_compact(&st, h, &o, NULL, NULL), 0);
    assert_int_equal(st.pruned, 8);
    assert_int_equal(store_bytes(dir, names, n), after); /* dry run: nothing written */
    o.dry_run = 0;
    assert_int_equal(culprit_history_compact(&st, h, &o, NULL, NULL), 0);
    assert_int_equal(st.pruned, 8);
    assert_true(store_bytes(dir, names, n) < after);
    same_verdicts(v, check_at_c3(dir));
    {
        culprit_history_query q = {.flags = CULPRIT_HISTORY_LOAD_SAMPLES};
        assert_int_equal(culprit_history_load(&runs, h, &q, NULL, NULL), 0);
        assert_int_equal(runs.nruns, 5);
        assert_int_equal(culprit_history_test_result_series(&runs.runs[0]->tests[0], "wall_ns")->n,
                         0);
        assert_int_equal(runs.runs[0]->tests[0].summary.n, 400); /* the summary stays */
        assert_int_equal(culprit_history_test_result_series(&runs.runs[4]->tests[1], "wall_ns")->n,
                         400);
        culprit_history_runs_dispose(&runs);
    }
    for (size_t i = 0; i < 2; i++)
        free(v.message[i]);
    culprit_history_free(h);
    test_tmpdir_remove(dir);
    free(dir);
}

/* A compaction or store killed before its rename leaves <run>.xml.tmp.<owner>: the
 * next compaction removes the ones whose writer has ended (and never counts them as
 * history), and leaves a live writer's. Before, every leftover stayed. */
static void compact_removes_temporary_files_of_ended_writers_only(void **state)
{
    char *dir = test_tmpdir_new("compact-tmp"), *path = NULL, dead_new[512], dead_old[512],
         live[512], marker[300];
    culprit_history *h = NULL;
    culprit_history_compact_stats st;
    culprit_history_compact_options o = CULPRIT_HISTORY_COMPACT_OPTIONS_INIT;
    culprit_run *run = run_with("c1", "2026-01-01T00:00:00Z");
    long dead = test_dead_pid();
    double x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    struct stat sb;
    (void)state;

    add_test(run, "t", x, 8);
    assert_int_equal(culprit_history_open(&h, dir, 1), 0);
    assert_int_equal(culprit_history_store(h, run, &path), 0);
    snprintf(marker, sizeof(marker), "%s.tmp.", strrchr(path, '/') + 1);
    test_owned_name(dead_new, sizeof(dead_new), dir, marker, dead, 777);
    test_owned_name(dead_old, sizeof(dead_old), dir, marker, dead, TEST_NO_START);
    test_owned_name(live, sizeof(live), dir, marker, (long)getpid(), TEST_OWN_START);
    assert_int_equal(culprit_fs_write_atomic(dead_new, "<testsuites>", 12, 0), 0);
    assert_int_equal(culprit_fs_write_atomic(dead_old, "<testsuites>", 12, 0), 0);
    assert_int_equal(culprit_fs_write_atomic(live, "<testsuites>", 12, 0), 0);
    o.dry_run = 1; /* a dry run changes nothing */
    assert_int_equal(culprit_history_compact(&st, h, &o, NULL, NULL), 0);
    assert_int_equal(stat(dead_new, &sb), 0);
    assert_int_equal(culprit_history_compact(&st, h, NULL, NULL, NULL), 0);
    assert_int_equal(st.files, 1);
    assert_int_equal(st.skipped, 0);
    assert_int_not_equal(stat(dead_new, &sb), 0);
    assert_int_not_equal(stat(dead_old, &sb), 0);
    assert_int_equal(stat(live, &sb), 0);
    culprit_history_run_free(run);
    culprit_history_free(h);
    free(path);
    test_tmpdir_remove(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(packed_series_read_back_bit_for_bit),
        cmocka_unit_test(short_series_and_text_mode_stay_text),
        cmocka_unit_test(malformed_packed_samples_are_refused),
        cmocka_unit_test(compacting_and_pruning_keep_the_verdicts),
        cmocka_unit_test(compact_removes_temporary_files_of_ended_writers_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
