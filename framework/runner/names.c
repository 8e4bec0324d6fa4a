/*
 * Names from the test table in the runner: the form a name is recorded in, the
 * terminal lines that show names, the --filter match, and the one file name made
 * from a name, the --junit DIR/ report's. Names are data (a test table may hold any
 * C string): docs/history-format.md, "Names".
 */
#include "runner_internal.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * A suite or test name as the history records it: what XML cannot carry (control
 * bytes but tab and line breaks, bytes that are not UTF-8) as "\xNN". Set once here,
 * so the terminal, --json, the JUnit report, the history and the category
 * assignments all name the test alike, and a name is never a reason not to record.
 */
int culprit_runner__set_name(char **dst, const char *name)
{
    culprit_buf scratch = CULPRIT_BUF_INIT;
    const char *safe = culprit_text_utf8(name, &scratch, CULPRIT_TEXT_XML);
    int error = safe ? culprit_str_set(dst, safe) : CULPRIT_ERROR;

    culprit_buf_dispose(&scratch);
    return error;
}

/* Prints `prefix`, then `text` (it names tests: data) escaped for the terminal, and a
 * line break. */
void culprit_runner__text_line(FILE *out, const char *prefix, const char *text)
{
    culprit_buf line = CULPRIT_BUF_INIT;

    if (culprit_buf_puts(&line, prefix) == 0 && culprit_buf_put_text(&line, text) == 0)
        fprintf(out, "%s\n", line.ptr);
    culprit_buf_dispose(&line);
}

/* --filter GLOB on the declared name, or exactly the name as recorded (set_name):
 * the name `culprit check --confirm` and a bisection read from history and pass. */
int culprit_runner__selected(const char *filter, const culprit_perf_test *t)
{
    culprit_buf scratch = CULPRIT_BUF_INIT;
    const char *recorded;
    int match;

    if (!filter || fnmatch(filter, t->name, 0) == 0)
        return 1;
    recorded = culprit_text_utf8(t->name, &scratch, CULPRIT_TEXT_XML);
    match = recorded && recorded != t->name && strcmp(filter, recorded) == 0;
    /* ... or as --list and the result lines show it (culprit_buf_put_text()). */
    culprit_buf_clear(&scratch);
    if (!match && culprit_buf_put_text(&scratch, t->name) == 0)
        match = strcmp(filter, culprit_buf_cstr(&scratch)) == 0;
    culprit_buf_dispose(&scratch);
    return match;
}

/*
 * $CULPRIT_JUNIT as the user meant it. ctest runs each test in the test's working
 * directory (the build tree), not where `CULPRIT_JUNIT=junit/ ctest --test-dir build`
 * was typed, and tells the test nothing about that place; the shell does: $PWD is
 * the directory the command was started in, and ctest's chdir does not change it.
 * So under ctest (--ctest, which culprit_discover_tests passes) a relative
 * CULPRIT_JUNIT is taken relative to $PWD when that is an absolute path to a
 * directory, else to the working directory (docs/runner.md). Returns `env`, or a
 * path in `buf`.
 */
static const char *junit_from_env(bool ctest, const char *env, culprit_buf *buf)
{
    const char *pwd = getenv("PWD");
    struct stat st;

    if (!ctest || env[0] == '/' || !pwd || pwd[0] != '/' || stat(pwd, &st) != 0 ||
        !S_ISDIR(st.st_mode))
        return env;
    if (culprit_buf_printf(buf, "%s/%s", pwd, env) < 0)
        return env;
    return culprit_buf_cstr(buf);
}

/*
 * The JUnit report (--junit, else $CULPRIT_JUNIT). A directory (one that exists, or
 * a path ending in '/') collects one new file per run, never replaced, so that the
 * runs of a whole ctest invocation (one per perf test) can be merged afterwards with
 * `culprit junit DIR`; a file is replaced, as before.
 */
int culprit_runner__write_junit(const culprit_run *run, const char *option, bool ctest)
{
    const char *env = getenv("CULPRIT_JUNIT"), *dest = option;
    culprit_buf name = CULPRIT_BUF_INIT, from_env = CULPRIT_BUF_INIT;
    char *path = NULL;
    struct stat st;
    size_t len;
    int error;

    if (!dest && env && *env)
        dest = junit_from_env(ctest, env, &from_env);
    if (!dest)
        return 0;
    len = strlen(dest);
    if (dest[len - 1] != '/' && !(stat(dest, &st) == 0 && S_ISDIR(st.st_mode))) {
        error = culprit_history_write_report(&run, 1, dest, 0);
        goto cleanup;
    }
    /* Unique per run: the suite, when, and the process (ctest may run binaries at once).
     * The suite is data ("net/http", "../x"): made a file name by core's one function;
     * its real name is in the file. */
    if ((error = culprit_fs_mkdir_p(dest)) < 0 ||
        (error = culprit_fs_name(&name, run->suite ? run->suite : "run", CULPRIT_FS_NAME_MAX)) <
            0 ||
        (error = culprit_buf_printf(&name, ".%s.%ld.xml", run->timestamp ? run->timestamp : "",
                                    (long)getpid())) < 0)
        goto cleanup;
    if (!(path = culprit_fs_join(dest, name.ptr))) {
        error = CULPRIT_ERROR;
        goto cleanup;
    }
    error = culprit_history_write_report(&run, 1, path, 1);
cleanup:
    free(path);
    culprit_buf_dispose(&name);
    culprit_buf_dispose(&from_env);
    return error;
}
