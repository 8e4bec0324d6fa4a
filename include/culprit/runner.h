/*
 * culprit runner (library side): what the test binaries' runner and the culprit
 * command share, so both find the same project file and history directory.
 * Test authors include culprit.h instead.
 */
#ifndef CULPRIT_RUNNER_H
#define CULPRIT_RUNNER_H

#include "culprit/detect.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Where culprit's files are for one working tree. Strings owned. */
typedef struct {
    char *project_file; /**< the project file loaded; NULL when the defaults apply */
    char *history_dir;  /**< the history directory */
} culprit_settings;

/**
 * Resolves the settings in culprit's order of precedence, command line first:
 *   project file: `project_file`, else culprit.json at `workdir` (the git working-tree
 *   root; NULL: the current directory) when it exists, else the defaults;
 *   history: `history_dir`, else $CULPRIT_HISTORY_DIR, else the project file's
 *   "history", else <workdir>/.culprit/history.
 * `*project_out` receives the loaded project (free with culprit_project_free()).
 * CULPRIT_EINVALID for a malformed project file, CULPRIT_ENOTFOUND when an explicit
 * `project_file` does not exist.
 */
int culprit_settings_resolve(culprit_settings *out, culprit_project **project_out,
                             const char *workdir, const char *project_file,
                             const char *history_dir);
void culprit_settings_dispose(culprit_settings *settings);

#ifdef __cplusplus
}
#endif

#endif
