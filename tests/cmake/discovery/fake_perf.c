/*
 * A stand-in for a culprit test binary that speaks the runner's command-line
 * contract (--list, --filter NAME, --history DIR) without measuring anything, so
 * the discovery tests do not depend on the runner. FAKE_PERF_MODE=crash makes
 * --list abort, FAKE_PERF_MODE=garbage makes it print a line that is no test name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[] = {"alpha", "beta_2", "gamma_long_name_3"};
#define NNAMES (sizeof(names) / sizeof(names[0]))

int main(int argc, char **argv)
{
    const char *mode = getenv("FAKE_PERF_MODE");
    const char *filter = NULL, *history = NULL;

    mode = mode ? mode : "";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--list")) {
            if (!strcmp(mode, "crash")) {
                fprintf(stderr, "fake_perf: boom\n");
                abort();
            }
            if (!strcmp(mode, "garbage"))
                puts("Running 3 tests...");
            for (size_t k = 0; k < NNAMES; k++)
                puts(names[k]);
            return 0;
        } else if (!strcmp(argv[i], "--filter") && i + 1 < argc) {
            filter = argv[++i];
        } else if (!strcmp(argv[i], "--history") && i + 1 < argc) {
            history = argv[++i];
        }
    }
    if (!filter)
        return 2;
    for (size_t k = 0; k < NNAMES; k++) {
        if (!strcmp(filter, names[k])) {
            /* The environment set with PROPERTIES must reach the test. */
            const char *a = getenv("FAKE_A"), *b = getenv("FAKE_B");
            if (!a || !b || strcmp(a, "1") || strcmp(b, "2")) {
                fprintf(stderr, "fake_perf: FAKE_A/FAKE_B not set\n");
                return 1;
            }
            printf("ran %s history=%s\n", filter, history ? history : "(default)");
            return 0;
        }
    }
    return 1;
}
