/*
 * culprit runner (library side): what the test binaries' runner and the culprit
 * command share, so both find the same project file and history directory.
 * Test authors include culprit.h instead.
 */
#ifndef CULPRIT_RUNNER_H
#define CULPRIT_RUNNER_H

#include "culprit/detect.h"
#include "culprit/deprecated.h" /* the old names, until 0.2 */

#ifdef __cplusplus
extern "C" {
#endif

/** Where culprit's files are for one working tree. Strings owned. */
typedef struct {
    char *project_file; /**< the project file loaded; NULL when the defaults apply */
    char *history_dir;  /**< the history directory */
    /** Whether a bisection's or an investigation's own runs are recorded into
     * history_dir (culprit_bisect_perf_test.record): 1 when the directory was named
     * (the `history_dir` argument or $CULPRIT_HISTORY_DIR), 0 when it is the project
     * file's or the default, which live in the working tree that a bisection leaves as
     * it found it. Their runs are reused from history_dir either way. */
    int record_sessions;
} culprit_settings;

/**
 * Resolves the settings in culprit's order of precedence, command line first:
 *   project file: `project_file`, else culprit.json at `workdir` (the git working-tree
 *   root; NULL: the current directory) when it exists, else the defaults;
 *   history: `history_dir`, else $CULPRIT_HISTORY_DIR, else the project file's
 *   "history", else <workdir>/.culprit/history (`record_sessions` says which).
 * `*project_out` receives the loaded project (free with culprit_detect_project_free()).
 * CULPRIT_EINVALID for a malformed project file, CULPRIT_ENOTFOUND when an explicit
 * `project_file` does not exist.
 */
int culprit_runner_settings_resolve(culprit_settings *out, culprit_project **project_out,
                                    const char *workdir, const char *project_file,
                                    const char *history_dir);
void culprit_runner_settings_dispose(culprit_settings *settings);

/**
 * The binary a re-run of `test` may execute, from `hint`, the test binary a run
 * recorded (culprit_run.binary). A run may come from anyone who can push to the
 * shared history, so the hint never chooses a program (docs/security.md): it is
 * taken only when it is an absolute path that resolves (symbolic links followed)
 * inside one of the `ntrees` trusted build `trees` (NULL or empty entries skipped),
 * outside any .git directory, through directories below the tree that others
 * cannot write, to a regular ELF file that is executable, owned by the user or root,
 * not writable by others and linking culprit's runner, and whose `--list` names
 * `test`. `*resolved` then receives the real path to execute (free() it). Otherwise CULPRIT_ESKIP
 * with a message naming the path and the rule it broke ("test binary '...' is outside the trusted
 * build trees ('/src')"), and `*resolved` is NULL.
 */
int culprit_runner_trusted_binary(char **resolved, const char *hint, const char *test,
                                  const char *const *trees, size_t ntrees);

/**
 * Runs `binary --filter=TEST --history=DIR --commit=SHA --quiet`: one run of `test`
 * recorded into `history_dir` at `commit`. No shell, every value joined to its
 * option (no name is ever read as an option), the test's glob characters escaped
 * (the filter matches that test alone). The binary's output goes to stderr. Returns
 * 0 when it exited 0 or 1 (a failing test is recorded too); CULPRIT_ERROR saying how
 * it ended otherwise, CULPRIT_ENOTFOUND when it cannot be started. Give it only a
 * path from culprit_runner_trusted_binary().
 */
int culprit_runner_rerun(const char *binary, const char *test, const char *history_dir,
                         const char *commit);

#ifdef __cplusplus
}
#endif

#endif
