/*
 * When live progress goes to the terminal: only on an interactive terminal, never
 * in CI logs (where a redrawn line becomes hundreds of lines) nor on a dumb
 * terminal, and without colour when NO_COLOR asks for none (https://no-color.org).
 * The test binaries' spinner and the culprit command's progress bar both ask here,
 * so they agree.
 */
#include "culprit/core.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Set by GitHub Actions, GitLab CI, Travis, CircleCI, Buildkite, Jenkins... */
static const char *const ci_variables[] = {"CI", "BUILD_NUMBER", "TEAMCITY_VERSION", NULL};

int culprit_progress_wanted(int fd)
{
    const char *term = getenv("TERM");

    if (!isatty(fd) || (term && strcmp(term, "dumb") == 0))
        return 0;
    for (size_t i = 0; ci_variables[i]; i++) {
        const char *v = getenv(ci_variables[i]);
        if (v && *v && strcmp(v, "0") != 0 && strcmp(v, "false") != 0)
            return 0;
    }
    return 1;
}

int culprit_color_wanted(int fd)
{
    const char *no_color = getenv("NO_COLOR");

    return isatty(fd) && !(no_color && *no_color);
}

char culprit_progress_frame(unsigned int tick)
{
    return "|/-\\"[tick % 4];
}
