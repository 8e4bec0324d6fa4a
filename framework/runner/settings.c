/*
 * Settings shared by the runner in the test binaries and the culprit command:
 * which project file applies and where the history is. Both must agree, or
 * `culprit check` would look for results where the tests did not write them.
 */
#include "culprit/runner.h"
#include "culprit/core.h"

#include <stdlib.h>
#include <string.h>

int culprit_runner_settings_resolve(culprit_settings *out, culprit_project **project_out,
                                    const char *workdir, const char *project_file,
                                    const char *history_dir)
{
    const char *env = getenv("CULPRIT_HISTORY_DIR");
    culprit_project *project = NULL;
    char *found = NULL;
    int error;

    memset(out, 0, sizeof(*out));
    *project_out = NULL;
    if (project_file) {
        if ((error = culprit_detect_project_load(&project, project_file)) < 0)
            return error;
        out->project_file = culprit_strdup(project_file);
    } else {
        if (!(found = culprit_fs_join(workdir ? workdir : ".", "culprit.json")))
            return CULPRIT_ERROR;
        error = culprit_detect_project_load(&project, found);
        if (error == CULPRIT_ENOTFOUND) {
            free(found);
            found = NULL;
            error = culprit_detect_project_default(&project);
        }
        if (error < 0) {
            free(found);
            return error;
        }
        out->project_file = found;
    }

    out->record_sessions = history_dir || (env && *env);
    if (history_dir)
        out->history_dir = culprit_strdup(history_dir);
    else if (env && *env)
        out->history_dir = culprit_strdup(env);
    else if (culprit_detect_project_history_dir(project))
        out->history_dir = culprit_strdup(culprit_detect_project_history_dir(project));
    else
        out->history_dir = culprit_fs_join(workdir ? workdir : ".", ".culprit/history");
    if (!out->history_dir || (project_file && !out->project_file)) {
        culprit_detect_project_free(project);
        culprit_runner_settings_dispose(out);
        return CULPRIT_ERROR;
    }
    *project_out = project;
    return 0;
}

void culprit_runner_settings_dispose(culprit_settings *settings)
{
    if (!settings)
        return;
    free(settings->project_file);
    free(settings->history_dir);
    memset(settings, 0, sizeof(*settings));
}
