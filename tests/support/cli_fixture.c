/* Helpers of the culprit command's tests and the report's (see cli_fixture.h): the
 * repository with fixed dates, synthetic history, running the built binary, golden
 * comparisons. */
#include "support/test.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support/cli_fixture.h"
#include "support/git_fixture.h"
#include "support/tmpdir.h"

char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *text;
    long len;

    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    fseek(f, 0, SEEK_SET);
    assert_non_null(text = malloc((size_t)len + 1));
    assert_int_equal(fread(text, 1, (size_t)len, f), (size_t)len);
    text[len] = '\0';
    fclose(f);
    return text;
}

void fixture_repo(repo_fixture *repo)
{
    char path[512];

    memset(repo, 0, sizeof(*repo));
    assert_int_equal(test_tmpdir_make(repo->dir, sizeof(repo->dir), "cli"), 0);
    snprintf(repo->history, sizeof(repo->history), "%s/.culprit/history", repo->dir);
    run("cd '%s' && git init -q -b main . && "
        "printf '.culprit/\\n' > .gitignore && git add .gitignore",
        repo->dir);
    /* Fixed dates and names: the same shas on every machine. */
    for (int i = 0; i < 4; i++) {
        run("cd '%s' && GIT_AUTHOR_DATE='2024-03-0%dT12:00:00+00:00' "
            "GIT_COMMITTER_DATE='2024-03-0%dT12:00:00+00:00' "
            "git -c user.name=t -c user.email=t@e -c commit.gpgsign=false commit -q "
            "--allow-empty -m 'commit %d'",
            repo->dir, i + 1, i + 1, i);
        snprintf(path, sizeof(path), "%s/sha", repo->dir);
        run("cd '%s' && git rev-parse HEAD > '%s'", repo->dir, path);
        char *text = read_text(path);
        assert_non_null(text);
        memcpy(repo->sha[i], text, 40);
        repo->sha[i][40] = '\0';
        free(text);
        unlink(path);
    }
}

void fixture_remove(repo_fixture *repo)
{
    if (repo->dir[0])
        assert_int_equal(test_tmpdir_remove(repo->dir), 0);
}

culprit_run *fixture_run(const char *suite, const char *commit, const char *timestamp,
                         const char *machine, const synthetic_test *tests, size_t n)
{
    culprit_run *run;

    assert_int_equal(culprit_history_run_new(&run), 0);
    culprit_str_set(&run->suite, suite);
    culprit_str_set(&run->commit, commit);
    culprit_str_set(&run->timestamp, timestamp);
    culprit_str_set(&run->host, "testhost");
    culprit_str_set(&run->machine, machine ? machine : "test machine");
    culprit_str_set(&run->compiler, "cc 1.0");
    culprit_str_set(&run->flags, "-O2");
    for (size_t i = 0; i < n; i++) {
        const synthetic_test *s = &tests[i];
        int fast = strcmp(s->category, "fast") == 0;
        culprit_test_result *t;
        double half;
        assert_int_equal(culprit_history_run_add_test(&t, run), 0);
        culprit_str_set(&t->name, s->name);
        culprit_str_set(&t->classname, suite);
        t->status = s->status;
        if (s->status != CULPRIT_STATUS_PASS) {
            culprit_str_set(&t->message, "assertion failed");
            t->summary.n = 0;
            t->summary.mean = t->summary.sd = NAN;
            continue;
        }
        culprit_str_set(&t->category, s->category);
        culprit_str_set(&t->category_source, "auto");
        t->category_low_ns = fast ? 0 : 1e6;
        t->category_high_ns = fast ? 1e6 : 1e8;
        culprit_str_set(&t->metric, "wall_ns");
        culprit_str_set(&t->stop, "fixed");
        t->batch = 1;
        t->elapsed_s = (double)s->n * s->mean_ns / 1e9;
        /* The interval is recomputed by detection from n, mean and sd; these are only
         * what the file records. */
        half = 2.576 * s->sd_ns / sqrt((double)s->n);
        t->summary = (culprit_summary){s->n,
                                       s->mean_ns,
                                       s->sd_ns,
                                       s->mean_ns,
                                       s->mean_ns - 2 * s->sd_ns,
                                       s->mean_ns + 2 * s->sd_ns,
                                       s->mean_ns - half,
                                       s->mean_ns + half,
                                       0.99};
    }
    return run;
}

void fixture_store(const char *history_dir, culprit_run *run)
{
    culprit_history *history;

    assert_int_equal(culprit_history_open(&history, history_dir, 1), 0);
    assert_int_equal(culprit_history_store(history, run, NULL), 0);
    culprit_history_free(history);
    culprit_history_run_free(run);
}

#define NT(a) (sizeof(a) / sizeof((a)[0]))
#define PASS  CULPRIT_STATUS_PASS

/*
 * One test per verdict at c[3] against c[2] (c[1] is older data, c[0] has none):
 *   perf.stable   2 ms both times                          -> unchanged
 *   perf.major    500 us (fast) -> 1.5 ms                  -> major
 *   perf.minor    2.0 ms -> 2.4 ms inside medium           -> minor (2.4 ms at c[1])
 *   perf.faster   4 ms -> 3 ms                             -> improvement
 *   perf.noisy    2.0 ms -> 2.1 ms, sd 0.4 ms, n = 6       -> undecided
 *   perf.fresh    only at c[3]                             -> no baseline
 *   perf.broken   failed at c[3]                           -> not run
 *   other.mixed   c[2] on another machine                  -> mixed
 */
void fixture_scenario(repo_fixture *repo)
{
    const synthetic_test c1[] = {
        {"stable", 2e6, 2e4, 30, "medium", PASS},  {"major", 5e5, 5e3, 30, "fast", PASS},
        {"minor", 2.4e6, 2e4, 30, "medium", PASS}, {"faster", 4e6, 2e4, 30, "medium", PASS},
        {"noisy", 2e6, 4e5, 6, "medium", PASS},    {"broken", 1e5, 1e3, 30, "fast", PASS}};
    const synthetic_test c2[] = {
        {"stable", 2e6, 2e4, 30, "medium", PASS}, {"major", 5e5, 5e3, 30, "fast", PASS},
        {"minor", 2e6, 2e4, 30, "medium", PASS},  {"faster", 4e6, 2e4, 30, "medium", PASS},
        {"noisy", 2e6, 4e5, 6, "medium", PASS},   {"broken", 1e5, 1e3, 30, "fast", PASS}};
    const synthetic_test c3[] = {{"stable", 2e6, 2e4, 30, "medium", PASS},
                                 {"major", 1.5e6, 1e4, 30, "fast", PASS},
                                 {"minor", 2.4e6, 2e4, 30, "medium", PASS},
                                 {"faster", 3e6, 2e4, 30, "medium", PASS},
                                 {"noisy", 2.1e6, 4e5, 6, "medium", PASS},
                                 {"fresh", 3e5, 3e3, 30, "fast", PASS},
                                 {"broken", 0, 0, 0, "fast", CULPRIT_STATUS_FAILURE}};
    const synthetic_test mixed[] = {{"mixed", 1e6 + 5e5, 1e4, 30, "medium", PASS}};

    fixture_store(repo->history,
                  fixture_run("perf", repo->sha[1], "2024-03-02T12:00:00Z", NULL, c1, NT(c1)));
    fixture_store(repo->history,
                  fixture_run("perf", repo->sha[2], "2024-03-03T12:00:00Z", NULL, c2, NT(c2)));
    fixture_store(repo->history, fixture_run("other", repo->sha[2], "2024-03-03T12:00:00Z",
                                             "other machine", mixed, NT(mixed)));
    fixture_store(repo->history,
                  fixture_run("perf", repo->sha[3], "2024-03-04T12:00:00Z", NULL, c3, NT(c3)));
    fixture_store(repo->history,
                  fixture_run("other", repo->sha[3], "2024-03-04T12:00:00Z", NULL, mixed, 1));
}

int fixture_setup(void **state)
{
    static repo_fixture repo;

    fixture_repo(&repo);
    fixture_scenario(&repo);
    *state = &repo;
    return 0;
}

int fixture_teardown(void **state)
{
    fixture_remove(*state);
    return 0;
}

cli_result run_culprit(const char *cwd, const char *env, const char *fmt, ...)
{
    char args[4096], cmd[8192], out[512], err[512];
    cli_result r;
    va_list ap;
    int status;

    va_start(ap, fmt);
    vsnprintf(args, sizeof(args), fmt, ap);
    va_end(ap);
    snprintf(out, sizeof(out), "%s.out", cwd);
    snprintf(err, sizeof(err), "%s.err", cwd);
    snprintf(cmd, sizeof(cmd),
             "cd '%s' && env -u NO_COLOR -u CULPRIT_HISTORY_DIR %s '%s' %s >'%s' 2>'%s' </dev/null",
             cwd, env ? env : "", CULPRIT_BIN, args, out, err);
    status = system(cmd);
    assert_true(WIFEXITED(status));
    r.status = WEXITSTATUS(status);
    assert_non_null(r.out = read_text(out));
    assert_non_null(r.err = read_text(err));
    unlink(out);
    unlink(err);
    return r;
}

void expect_culprit(const char *cwd, int status, const char *needle, const char *fmt, ...)
{
    char args[4096];
    cli_result r;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(args, sizeof(args), fmt, ap);
    va_end(ap);
    r = run_culprit(cwd, NULL, "%s", args);
    if (r.status != status || (needle && !strstr(r.out, needle) && !strstr(r.err, needle)))
        fail_msg("culprit %s: exit %d (expected %d), '%s' expected in:\n%s%s", args, r.status,
                 status, needle ? needle : "", r.out, r.err);
    cli_result_dispose(&r);
}

void cli_result_dispose(cli_result *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

void assert_contains_at(const char *haystack, const char *needle, const char *file, int line)
{
    if (!strstr(haystack, needle)) {
        print_error("'%s' not found in:\n%s\n", needle, haystack);
        _fail(file, line);
    }
}

void assert_lacks(const char *haystack, const char *needle)
{
    if (strstr(haystack, needle))
        fail_msg("'%s' unexpectedly found in:\n%s", needle, haystack);
}

char *line_with(const char *text, const char *needle)
{
    const char *at = strstr(text, needle), *start, *end;
    char *line;

    if (!at)
        fail_msg("no line with '%s' in:\n%s", needle, text);
    for (start = at; start > text && start[-1] != '\n'; start--)
        ;
    end = strchr(at, '\n');
    if (!end)
        end = at + strlen(at);
    assert_non_null(line = strndup(start, (size_t)(end - start)));
    return line;
}

/* Replaces every occurrence of `from` in `text` (reallocated) with `to`. */
char *replace_all(char *text, const char *from, const char *to)
{
    size_t lf = strlen(from), lt = strlen(to), n = 0;
    char *out, *w;
    const char *r;

    for (r = text; (r = strstr(r, from)); r += lf)
        n++;
    if (n == 0)
        return text;
    assert_non_null(out = malloc(strlen(text) + n * lt + 1));
    for (r = text, w = out;;) {
        const char *at = strstr(r, from);
        size_t keep = at ? (size_t)(at - r) : strlen(r);
        memcpy(w, r, keep);
        w += keep;
        if (!at)
            break;
        memcpy(w, to, lt);
        w += lt;
        r = at + lf;
    }
    *w = '\0';
    free(text);
    return out;
}

/* A generated run id's process and random parts ("_testhost_4711_0123456789abcdef")
 * become "_testhost_<pid>_<random>": they differ on every run of the fixture. */
static char *normalize_run_ids(char *text)
{
    static const char host[] = "_testhost_";
    char *at = text;

    while ((at = strstr(at, host))) {
        char *r = at + sizeof(host) - 1, *w = r;
        size_t digits = strspn(r, "0123456789"), hex;
        if (!digits || r[digits] != '_' ||
            (hex = strspn(r + digits + 1, "0123456789abcdef")) != 16) {
            at = r;
            continue;
        }
        memmove(w + strlen("<pid>_<random>"), r + digits + 1 + hex,
                strlen(r + digits + 1 + hex) + 1);
        memcpy(w, "<pid>_<random>", strlen("<pid>_<random>"));
        at = w;
    }
    return text;
}

char *golden_normalize(char *text, const repo_fixture *repo)
{
    char name[8], prefix[13];

    text = replace_all(text, repo->dir, "<TMP>");
    for (int i = 0; i < 4; i++) {
        snprintf(name, sizeof(name), "<c%d>", i);
        text = replace_all(text, repo->sha[i], name);
        snprintf(prefix, sizeof(prefix), "%.12s", repo->sha[i]);
        text = replace_all(text, prefix, name);
    }
    return normalize_run_ids(text);
}

static int same_json(const json_t *a, const json_t *b, char *where, size_t size)
{
    if (json_is_number(a) && json_is_number(b)) {
        double x = json_number_value(a), y = json_number_value(b);
        if (fabs(x - y) <= 1e-9 * fmax(fabs(x), fabs(y)))
            return 1;
        snprintf(where, size, "%.17g != %.17g", x, y);
        return 0;
    }
    if (json_typeof(a) != json_typeof(b)) {
        snprintf(where, size, "types differ");
        return 0;
    }
    if (json_is_object(a)) {
        const char *key;
        json_t *v;
        if (json_object_size(a) != json_object_size(b)) {
            snprintf(where, size, "object sizes differ");
            return 0;
        }
        json_object_foreach((json_t *)a, key, v)
        {
            if (!json_object_get(b, key) || !same_json(v, json_object_get(b, key), where, size)) {
                size_t len = strlen(where);
                snprintf(where + len, size - len, " in \"%s\"", key);
                return 0;
            }
        }
        return 1;
    }
    if (json_is_array(a)) {
        if (json_array_size(a) != json_array_size(b)) {
            snprintf(where, size, "array sizes differ");
            return 0;
        }
        for (size_t i = 0; i < json_array_size(a); i++)
            if (!same_json(json_array_get(a, i), json_array_get(b, i), where, size)) {
                size_t len = strlen(where);
                snprintf(where + len, size - len, " at [%zu]", i);
                return 0;
            }
        return 1;
    }
    if (json_equal((json_t *)a, (json_t *)b))
        return 1;
    snprintf(where, size, "'%s' != '%s'", json_string_value(a) ? json_string_value(a) : "?",
             json_string_value(b) ? json_string_value(b) : "?");
    return 0;
}

char *golden_read(const char *path, const char *actual)
{
    char *expected;

    if (getenv("CULPRIT_UPDATE_GOLDEN")) {
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(actual, f);
        fclose(f);
    }
    if (!(expected = read_text(path)))
        fail_msg("no golden file %s (CULPRIT_UPDATE_GOLDEN=1 writes it)", path);
    return expected;
}

void assert_json_golden(const char *actual, const char *golden_name, const char *what)
{
    char path[1024], where[2048] = "";
    char *expected;
    json_t *a, *e;
    json_error_t jerr;

    snprintf(path, sizeof(path), "%s/tests/cli/golden/%s", CULPRIT_SOURCE_DIR, golden_name);
    expected = golden_read(path, actual);
    if (!(a = json_loads(actual, 0, &jerr)))
        fail_msg("culprit %s: not JSON: %s\n%s", what, jerr.text, actual);
    assert_non_null(e = json_loads(expected, 0, NULL));
    if (!same_json(a, e, where, sizeof(where)))
        fail_msg("culprit %s differs from %s: %s\n--- actual:\n%s", what, path, where, actual);
    json_decref(a);
    json_decref(e);
    free(expected);
}
