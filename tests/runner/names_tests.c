/*
 * A culprit test binary whose names come from the environment, for the names that a
 * test author (or a generator of test tables) may give: $CULPRIT_NAMES_SUITE names
 * the suite (default "names"), $CULPRIT_NAMES_TEST the one test (default "quick"),
 * "\n", "\t", "\e" and "\xNN" in either written as escapes. tests/e2e/names.sh runs
 * it with a slash, "..", line breaks, control bytes and broken UTF-8 in the names.
 */
#include <culprit/culprit.h>

#include <stdlib.h>
#include <string.h>

static volatile unsigned long sink;

static void quick(void **state)
{
    unsigned long x = 0;

    (void)state;
    for (unsigned long i = 0; i < 2000; i++)
        x += i * i ^ (x >> 3);
    sink = x;
}

/* "\n", "\t", "\e", "\\" and "\xNN" of `s` as the bytes they name, in place. */
static char *unescape(char *s)
{
    char *out = s;

    for (const char *p = s; *p; p++) {
        if (*p != '\\' || !p[1]) {
            *out++ = *p;
            continue;
        }
        p++;
        if (*p == 'n')
            *out++ = '\n';
        else if (*p == 't')
            *out++ = '\t';
        else if (*p == 'e')
            *out++ = 0x1b;
        else if (*p == 'x' && p[1] && p[2]) {
            char hex[3] = {p[1], p[2], 0};
            *out++ = (char)strtol(hex, NULL, 16);
            p += 2;
        } else
            *out++ = *p;
    }
    *out = '\0';
    return s;
}

int main(int argc, char **argv)
{
    const char *suite = getenv("CULPRIT_NAMES_SUITE"), *test = getenv("CULPRIT_NAMES_TEST");
    culprit_perf_test tests[] = {culprit_perf_test(quick, .repetitions = 5)};
    char *s = strdup(suite ? suite : "names"), *t = strdup(test ? test : "quick");
    int code;

    tests[0].name = unescape(t);
    code = culprit_run_perf_tests(unescape(s), tests, 1, argc, argv, NULL);
    free(s);
    free(t);
    return code;
}
