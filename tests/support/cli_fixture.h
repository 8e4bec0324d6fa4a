/*
 * Fixture of the culprit command's tests: a throw-away git repository with fixed
 * commit dates (so the shas are the same on every machine), synthetic history
 * files written with the history API, and a runner for the built `culprit` binary
 * that captures its exit code, stdout and stderr.
 */
#ifndef CULPRIT_TESTS_SUPPORT_CLI_FIXTURE_H
#define CULPRIT_TESTS_SUPPORT_CLI_FIXTURE_H

#include "culprit/history.h"

#include <stddef.h>

/* The repository: c[0] (no data), c[1], c[2], c[3] = HEAD of branch main. */
typedef struct {
    char dir[256];     /* the working tree */
    char history[300]; /* dir/.culprit/history */
    char sha[4][41];
} repo_fixture;

/* One synthetic result: its summary and category. */
typedef struct {
    const char *name;
    double mean_ns, sd_ns;
    size_t n;
    const char *category; /* "fast" (< 1 ms) or "medium" (< 100 ms) */
    culprit_status status;
} synthetic_test;

/* Makes the repository with its four commits (history left empty). */
void fixture_repo(repo_fixture *repo);
/* Removes it. */
void fixture_remove(repo_fixture *repo);

/* A run of `suite` at `commit` holding `tests`; caller frees. */
culprit_run *fixture_run(const char *suite, const char *commit, const char *timestamp,
                         const char *machine, const synthetic_test *tests, size_t n);
/* Stores a run in `history_dir` (created when needed) and frees it. */
void fixture_store(const char *history_dir, culprit_run *run);

/* The scenario most tests judge: eight tests at c[3], one per verdict (see the .c). */
void fixture_scenario(repo_fixture *repo);

/* cmocka group setup and teardown: the scenario in a fresh repository as *state. */
int fixture_setup(void **state);
int fixture_teardown(void **state);

/* What one invocation of culprit did. */
typedef struct {
    int status; /* exit code */
    char *out;
    char *err;
} cli_result;

/* Runs `culprit ARGS` (a shell-quoted string) in `cwd`, NO_COLOR and
 * CULPRIT_HISTORY_DIR unset unless `env` sets them ("NAME=value ..." or NULL). */
cli_result run_culprit(const char *cwd, const char *env, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void cli_result_dispose(cli_result *r);
/* Runs `culprit ARGS` in `cwd` and asserts its exit code and that `needle` (or NULL)
 * is in its stdout or stderr. */
void expect_culprit(const char *cwd, int status, const char *needle, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Asserts that `haystack` contains `needle`, printing both when it does not. */
#define assert_contains(haystack, needle) assert_contains_at(haystack, needle, __FILE__, __LINE__)
void assert_contains_at(const char *haystack, const char *needle, const char *file, int line);
void assert_lacks(const char *haystack, const char *needle);

/* The line of `text` that contains `needle` (malloc'd), or fails. */
char *line_with(const char *text, const char *needle);

/* Replaces every occurrence of `from` in `text` (reallocated) with `to`. */
char *replace_all(char *text, const char *from, const char *to);

/* Replaces the temporary directory with <TMP> and the commit ids (full and 12-digit)
 * with <c0>..<c3> in `text` (reallocated), for golden comparisons. */
char *golden_normalize(char *text, const repo_fixture *repo);

/*
 * Compares the JSON text `actual` with tests/cli/golden/`golden_name`: numbers to
 * 1e-9 relative (another libm may differ in the last digits), every key, string
 * and count exactly. CULPRIT_UPDATE_GOLDEN=1 rewrites the file. `what` names the
 * command in the failure message.
 */
void assert_json_golden(const char *actual, const char *golden_name, const char *what);

/* The golden file at `path` (malloc'd), first rewritten with `actual` when
 * CULPRIT_UPDATE_GOLDEN is set; fails the test when it does not exist. */
char *golden_read(const char *path, const char *actual);

/* Reads a whole file (malloc'd), or NULL when it does not exist. */
char *read_text(const char *path);

#endif
