/* Shell commands for the tests (see git_fixture.h): run, their output, files. Used by
 * the vcs, call-tree and command tests, and by the CLI fixture. */
#include "support/test.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/git_fixture.h"

static void format_command(char *cmd, size_t size, const char *fmt, va_list ap)
{
    int len = vsnprintf(cmd, size, fmt, ap);
    if (len < 0 || (size_t)len >= size)
        fail_msg("command too long: %s", fmt);
}

void run(const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;

    va_start(ap, fmt);
    format_command(cmd, sizeof(cmd), fmt, ap);
    va_end(ap);
    if (system(cmd) != 0)
        fail_msg("command failed: %s", cmd);
}

/* Formats the command into `cmd` and starts it with its stdout to be read. */
static FILE *open_command(char *cmd, size_t size, const char *fmt, va_list ap)
{
    FILE *p;

    format_command(cmd, size, fmt, ap);
    assert_non_null(p = popen(cmd, "r"));
    return p;
}

void output_of(char *out, size_t size, const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    FILE *p;

    va_start(ap, fmt);
    p = open_command(cmd, sizeof(cmd), fmt, ap);
    va_end(ap);
    if (!fgets(out, (int)size, p))
        fail_msg("no output from: %s", cmd);
    out[strcspn(out, "\n")] = '\0';
    pclose(p);
}

char *all_output_of(const char *fmt, ...)
{
    char cmd[8192], chunk[4096];
    char *text = NULL;
    size_t len = 0, n;
    va_list ap;
    FILE *p;

    va_start(ap, fmt);
    p = open_command(cmd, sizeof(cmd), fmt, ap);
    va_end(ap);
    assert_non_null(text = calloc(1, 1));
    while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0) {
        assert_non_null(text = realloc(text, len + n + 1));
        memcpy(text + len, chunk, n);
        text[len += n] = '\0';
    }
    if (pclose(p) != 0)
        fail_msg("command failed: %s", cmd);
    return text;
}

void write_file(const char *dir, const char *name, const char *text)
{
    char path[PATH_MAX + 256];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    assert_non_null(f = fopen(path, "w"));
    fputs(text, f);
    fclose(f);
}

void write_numbered_lines(const char *dir, const char *name, int n)
{
    char path[PATH_MAX + 256];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    assert_non_null(f = fopen(path, "w"));
    for (int i = 1; i <= n; i++)
        fprintf(f, "line %d\n", i);
    fclose(f);
}
