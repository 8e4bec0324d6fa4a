/*
 * The history a command reads: the local store directory, the shared history in
 * the git ref refs/culprit/history (docs/history-format.md), or both, as the
 * caller configured. Every reader of past runs (check, history, report, compare,
 * the bisection's probe, --investigate) loads through one culprit_history_source,
 * so they all see the same runs. The ref's files come from other machines: a file
 * above CULPRIT_SHARED_FILE_MAX or not named as a run is skipped, never read
 * (docs/security.md, docs/vcs.md "Limits").
 */
#include "history_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct culprit_history_source {
    char *dir;         /* the store directory */
    culprit_vcs *repo; /* the repository holding the ref, borrowed; NULL: none */
    unsigned int from; /* CULPRIT_HISTORY_FROM_* */
};

/* GitHub refuses any file above 100 MiB in a push, so a larger run file could not
 * travel through the most common remote anyway; a real run file is far smaller
 * (2.9 MB for 1,000 tests with 200 samples each, docs/history-format.md). */
#define SHARED_FILE_MAX_DEFAULT ((size_t)100 << 20)

int culprit_history_shared_file_max(size_t *out)
{
    const char *text = getenv("CULPRIT_SHARED_FILE_MAX");
    unsigned long long n;
    unsigned int shift = 0;
    char *end = NULL;

    *out = SHARED_FILE_MAX_DEFAULT;
    if (!text || !*text)
        return 0;
    errno = 0;
    n = strtoull(text, &end, 10);
    if (end && *end && strchr("kK", *end))
        shift = 10;
    else if (end && *end && strchr("mM", *end))
        shift = 20;
    else if (end && *end && strchr("gG", *end))
        shift = 30;
    if (end && shift)
        end++;
    if (errno || end == text || *text == '-' || (end && *end) || n > (SIZE_MAX >> shift))
        return culprit_error_set(CULPRIT_EINVALID,
                                 "CULPRIT_SHARED_FILE_MAX='%s' is not a size (bytes, or a number "
                                 "followed by K, M or G; 0 for no limit)",
                                 text);
    *out = (size_t)n << shift;
    return 0;
}

const char *culprit_history_shared_run_name(const char *path)
{
    const char *shard = strncmp(path, "runs/", 5) == 0 ? path + 5 : NULL;
    const char *base = shard ? strchr(shard, '/') : NULL;
    size_t len;

    /* runs/<shard>/<name>.xml: the shard is two characters (the commit's first two
     * hex digits, or "xx"), the name neither hidden nor nested. */
    if (!base || base - shard != 2 || strchr(++base, '/'))
        return NULL;
    len = strlen(base);
    if (base[0] == '.' || len < 5 || strcmp(base + len - 4, ".xml") != 0)
        return NULL;
    return base;
}

int culprit_history_source_open(culprit_history_source **out, const char *dir, culprit_vcs *repo,
                                unsigned int from)
{
    culprit_history_source *src;

    *out = NULL;
    if (!dir || !from || (from & ~(unsigned int)CULPRIT_HISTORY_FROM_BOTH))
        return culprit_error_set(CULPRIT_EINVALID,
                                 "history source: a directory and CULPRIT_HISTORY_FROM_* needed");
    if (!(src = calloc(1, sizeof(*src))) || !(src->dir = culprit_strdup(dir))) {
        free(src);
        return CULPRIT_ERROR_NOMEM();
    }
    src->repo = repo;
    src->from = repo ? from : (from & CULPRIT_HISTORY_FROM_DIR);
    *out = src;
    return 0;
}

void culprit_history_source_free(culprit_history_source *src)
{
    if (!src)
        return;
    free(src->dir);
    free(src);
}

const char *culprit_history_source_dir(const culprit_history_source *src)
{
    return src->dir;
}

/* Reads the ref's file `e` into `data`; 1 when it is over `max` (warned, counted
 * in out->nskipped, `data` untouched). `name` is its "<ref>:<path>". */
static int read_shared_file(culprit_buf *data, culprit_history_runs *out, culprit_vcs *repo,
                            const culprit_vcs_ref_entry *e, size_t max, const char *name,
                            culprit_history_warn_fn warn, void *payload)
{
    culprit_buf why = CULPRIT_BUF_INIT;
    int error = culprit_vcs_blob_read(data, repo, e->oid, max);

    if (error != CULPRIT_EINVALID)
        return error;
    /* (the message is copied: culprit_error_set() overwrites the last one) */
    if (culprit_buf_puts(&why, culprit_error_last()) < 0)
        return CULPRIT_ERROR;
    culprit_error_set(CULPRIT_EINVALID, "%s (CULPRIT_SHARED_FILE_MAX)", culprit_buf_cstr(&why));
    culprit_history__warn_skipped(warn, payload, name);
    culprit_buf_dispose(&why);
    out->nskipped++;
    return 1;
}

/* Adds the runs of the shared history that the directory does not hold (a pushed
 * run is in both, under the same file name). */
static int load_shared(culprit_history_runs *out, const culprit_history_source *src,
                       const culprit_history_query *query, culprit_history_warn_fn warn,
                       void *payload)
{
    culprit_vcs_ref_files files = {NULL, 0};
    culprit_buf data = CULPRIT_BUF_INIT, name = CULPRIT_BUF_INIT;
    size_t max = 0;
    int error;

    if ((error = culprit_history_shared_file_max(&max)) < 0 ||
        (error = culprit_vcs_ref_list(&files, src->repo, CULPRIT_VCS_HISTORY_REF, "runs")) < 0)
        return error;
    for (size_t i = 0; i < files.n && error == 0; i++) {
        const char *base = culprit_history_shared_run_name(files.entries[i].path);
        char *local;
        struct stat st;
        int here = 0;

        if (!base || !culprit_history_query_wants_name(query, base))
            continue;
        if (src->from & CULPRIT_HISTORY_FROM_DIR) {
            if (!(local = culprit_fs_join(src->dir, base))) {
                error = CULPRIT_ERROR;
                break;
            }
            here = stat(local, &st) == 0;
            free(local);
        }
        if (here)
            continue;
        culprit_buf_clear(&data);
        culprit_buf_clear(&name);
        if ((error = culprit_buf_printf(&name, "%s:%s", CULPRIT_VCS_HISTORY_REF,
                                        files.entries[i].path)) < 0 ||
            (error = read_shared_file(&data, out, src->repo, &files.entries[i], max,
                                      culprit_buf_cstr(&name), warn, payload)) < 0)
            break;
        if (error == 1) { /* over the limit: skipped */
            error = 0;
            continue;
        }
        error = culprit_history__runs_add_memory(out, data.ptr ? data.ptr : "", data.size,
                                                 culprit_buf_cstr(&name), query, warn, payload);
    }
    culprit_buf_dispose(&data);
    culprit_buf_dispose(&name);
    culprit_vcs_ref_files_dispose(&files);
    return error < 0 ? error : culprit_history__runs_finish(out);
}

static int compare_commits(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The ref's part of a load: its files filtered by a binary search in the wanted
 * commits, so `query`'s commits are sorted in a copy. */
static int load_shared_sorted(culprit_history_runs *out, const culprit_history_source *src,
                              const culprit_history_query *query, culprit_history_warn_fn warn,
                              void *payload)
{
    culprit_history_query sorted = *query;
    const char **commits = NULL;
    int error;

    if (query->ncommits) {
        if (!(commits = malloc(query->ncommits * sizeof(*commits))))
            return CULPRIT_ERROR_NOMEM();
        memcpy(commits, query->commits, query->ncommits * sizeof(*commits));
        qsort(commits, query->ncommits, sizeof(*commits), compare_commits);
        sorted.commits = commits;
    }
    error = load_shared(out, src, &sorted, warn, payload);
    free(commits);
    return error;
}

int culprit_history_source_load(culprit_history_runs *out, const culprit_history_source *src,
                                const culprit_history_query *query, culprit_history_warn_fn warn,
                                void *payload)
{
    culprit_history_query all = {0};
    culprit_history *history = NULL;
    char shared[41];
    struct stat st;
    int error = 0, have_dir, have_shared;

    memset(out, 0, sizeof(*out));
    query = query ? query : &all;
    have_dir =
        (src->from & CULPRIT_HISTORY_FROM_DIR) && stat(src->dir, &st) == 0 && S_ISDIR(st.st_mode);
    have_shared = (src->from & CULPRIT_HISTORY_FROM_SHARED) &&
                  culprit_vcs_ref_resolve(shared, src->repo, CULPRIT_VCS_HISTORY_REF) == 0;
    culprit_error_clear();
    if (!have_dir && !have_shared)
        return culprit_error_set(CULPRIT_ENOTFOUND,
                                 "no history directory at '%s' and no shared history (run the "
                                 "tests first, name one with --history, or `culprit history "
                                 "pull`)",
                                 src->dir);
    if (have_dir) {
        if ((error = culprit_history_open(&history, src->dir, 0)) < 0)
            return error;
        error = culprit_history_load(out, history, query, warn, payload);
        culprit_history_free(history);
        if (error < 0)
            return error;
    }
    if (have_shared && (error = load_shared_sorted(out, src, query, warn, payload)) < 0)
        culprit_history_runs_dispose(out);
    return error;
}
