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

/* --color=always|never of the culprit command (culprit_color_set), -1: auto. */
static int color_choice = -1;

void culprit_color_set(int choice)
{
    color_choice = choice < 0 ? -1 : choice > 0;
}

/* A variable that is set, not empty and not "0" or "false": FORCE_COLOR=0 is how
 * Node's tools spell "no", so it does not force. */
static int env_on(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0 && strcmp(v, "false") != 0;
}

int culprit_color_wanted(int fd)
{
    const char *no_color = getenv("NO_COLOR"), *term = getenv("TERM");

    /* The command line wins, then forcing (CI logs that render colour), then NO_COLOR
     * (https://no-color.org), then whether fd is a terminal that is not dumb. */
    if (color_choice >= 0)
        return color_choice;
    if (env_on("FORCE_COLOR") || env_on("CLICOLOR_FORCE"))
        return 1;
    if (no_color && *no_color)
        return 0;
    return isatty(fd) && !(term && strcmp(term, "dumb") == 0);
}

char culprit_progress_frame(unsigned int tick)
{
    return "|/-\\"[tick % 4];
}
