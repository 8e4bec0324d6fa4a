/*
 * `culprit history push [REMOTE]` and `culprit history pull [REMOTE]`: the shared
 * history, run files kept in the git ref refs/culprit/history of the user's
 * repository and exchanged with a remote (origin by default) as any ref is. Push
 * adds the local directory's runs the ref lacks (with the ancestry records of their
 * commits, so a shallow clone can walk past its boundary), then pushes, merging and
 * retrying when another job pushed first; pull fetches and merges. Every reading
 * command then reads the ref beside the directory (env.c). The automatic category
 * assignments travel too, one file per test under categories/: push adds those of
 * the directory's categories.json the ref lacks, pull writes those of the ref that
 * categories.json lacks into it, so a fresh runner judges a test against the
 * category the first runner gave it (docs/categories.md). The library does the
 * work (framework/vcs/refstore.c, remote.c, ancestry.c); this file lists the local
 * runs, calls it and prints what happened.
 */
#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* How far back a push records first-parent ancestry from each run's commit (the
 * walk also stops at a commit recorded already and at a shallow clone's boundary). */
#define ANCESTRY_DEPTH 100

#define SYNC_OPTIONS(history, project, help)                                                       \
    {                                                                                              \
        CLI_OPT_HISTORY(history), CLI_OPT_PROJECT(project), CLI_OPT_HELP(help),                    \
            CULPRIT_OPT_END_ROW                                                                    \
    }

static void usage(FILE *out, const char *verb)
{
    const char *history, *project;
    int help;
    const culprit_opt options[] = SYNC_OPTIONS(&history, &project, &help);

    fprintf(out, "usage: culprit history %s [REMOTE] [--history DIR]\n", verb);
    cli_usage(out,
              strcmp(verb, "push") == 0
                  ? "Adds the runs of the history directory and its category assignments to the\n"
                    "shared history, the git ref refs/culprit/history, and pushes it to REMOTE\n"
                    "(default origin). A push that another job's push beat is merged and tried\n"
                    "again: no run is lost. A refusal for any other reason (a hook, a protected\n"
                    "ref) stops the push at once with the remote's message.\n\n"
                  : "Fetches the shared history, the git ref refs/culprit/history, from REMOTE\n"
                    "(default origin) and merges it into the local one. check, compare, history,\n"
                    "report and bisect read it beside the history directory; its category\n"
                    "assignments that the directory's categories.json lacks are added to it.\n"
                    "Only valid runs are counted; other files are named and skipped.\n\n",
              options, 24,
              "\nThe network is your `git`: its credentials and configuration apply.\n"
              "CULPRIT_SHARED_FILE_MAX (default 100M) bounds the size of a file read from\n"
              "the shared history or pushed into it.\n"
              "Exit status: 0, or 2 on a usage, git or I/O error.\n");
}

/* The run files of `dir` ("*.xml", not hidden). A missing directory has none. */
static int list_runs(char ***out, size_t *n, const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t alloc = 0;

    *out = NULL;
    *n = 0;
    if (!d)
        return errno == ENOENT ? 0 : culprit_error_set_os("cannot read '%s'", dir);
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.' || len < 5 || strcmp(e->d_name + len - 4, ".xml"))
            continue;
        if (culprit_array_grow(out, &alloc, *n, sizeof(**out), 64) < 0 ||
            !((*out)[*n] = culprit_strdup(e->d_name))) {
            closedir(d);
            return CULPRIT_ERROR;
        }
        (*n)++;
    }
    closedir(d);
    return 0;
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The file names of the shared history's runs (any shard), sorted, borrowed from
 * `shared`, for a binary search. */
static const char **shared_names(const culprit_vcs_ref_files *shared)
{
    const char **names = calloc(shared->n ? shared->n : 1, sizeof(*names));

    for (size_t i = 0; names && i < shared->n; i++) {
        const char *base = strrchr(shared->entries[i].path, '/');
        names[i] = base ? base + 1 : shared->entries[i].path;
    }
    if (names)
        qsort(names, shared->n, sizeof(*names), compare_strings);
    return names;
}

typedef struct {
    culprit_vcs_blobs *blobs; /* the runs' contents, one pack */
    culprit_vcs_file *files;
    size_t n, alloc;
    char **commits; /* the runs' commits, for their ancestry */
    size_t ncommits, acommits;
} pending;

static void pending_dispose(pending *p)
{
    culprit_vcs_blobs_free(p->blobs);
    culprit_vcs_files_free(p->files, p->n);
    for (size_t i = 0; i < p->ncommits; i++)
        free(p->commits[i]);
    free(p->commits);
}

/* The commit of the local run file `name` (content `data`) into `sha` (40 hex
 * digits, or "" when unknown) and `shard` (its first two hex digits, or "xx"). A
 * generated name ("<stamp>_<commit12>_<host>_...", culprit_history_run_id()) carries
 * the first 12 digits, as the readers take them (culprit_history_query_wants_name),
 * and the repository the rest: the file is not parsed, which made a push of 1,000
 * runs of 1,000 tests cost 20 s. A name of another shape: the file is read for it.
 * CULPRIT_EINVALID (with the reader's message) when that file is no run. */
static int run_commit(char sha[41], char shard[3], culprit_vcs *repo, const char *name,
                      const culprit_buf *data, const char *file)
{
    const char *us = strchr(name, '_');
    culprit_run *run = NULL;
    char c12[13];
    int error;

    sha[0] = '\0';
    memcpy(shard, "xx", 3);
    if (us && strncmp(us + 1, "unknown_", 8) == 0)
        return 0;
    if (us && strspn(us + 1, "0123456789abcdef") == 12 && us[13] == '_') {
        memcpy(c12, us + 1, 12);
        c12[12] = '\0';
        memcpy(shard, c12, 2);
        if (culprit_vcs_commit_by_prefix(sha, repo, c12) < 0)
            culprit_error_clear(); /* a commit this clone lacks: no ancestry to record */
        return 0;
    }
    if ((error = culprit_history_read_memory(&run, data->ptr ? data->ptr : "", data->size, file,
                                             0)) < 0)
        return error;
    if (run->commit && strlen(run->commit) == 40 && strspn(run->commit, "0123456789abcdef") == 40) {
        memcpy(sha, run->commit, 41);
        memcpy(shard, sha, 2);
    }
    culprit_history_run_free(run);
    return 0;
}

/* Run files read and waiting to be added to the pack, so many at a time: the library
 * hashes and compresses them on several threads (culprit_vcs_blobs_add_many), and
 * holds no more than this many files (about 1 MB each at 1,000 tests) twice over. */
#define PUSH_BATCH 16

typedef struct {
    culprit_buf data;
    const char *name; /* borrowed from the listing */
    char sha[41], shard[3];
} queued;

/* Reads the run file `name` of `dir` into the next entry of `batch` (*k of them
 * taken). Unreadable files, and files above the size limit (which every reader would
 * skip), are left out with a warning. */
static int queue_run(queued *batch, size_t *k, culprit_vcs *repo, const char *dir, const char *name,
                     size_t max)
{
    queued *q = &batch[*k];
    char *file = culprit_fs_join(dir, name);
    struct stat st;
    int error = 0;

    if (!file)
        return CULPRIT_ERROR;
    culprit_buf_clear(&q->data);
    if (max && stat(file, &st) == 0 && (size_t)st.st_size > max) {
        fprintf(stderr,
                "culprit: warning: not pushed: %s is %lld bytes, over the limit of %zu bytes "
                "(CULPRIT_SHARED_FILE_MAX)\n",
                file, (long long)st.st_size, max);
    } else if (culprit_fs_read_file(&q->data, file) < 0 ||
               run_commit(q->sha, q->shard, repo, name, &q->data, file) < 0) {
        fprintf(stderr, "culprit: warning: not pushed: %s\n", culprit_error_last());
    } else {
        q->name = name;
        (*k)++;
    }
    free(file);
    return error;
}

/* Writes the `k` files of `batch` as blobs of the pending pack (so that the pending
 * files hold ids, not contents: a push of 1,000 runs held 1.1 GB; and one pack, which
 * `git push` sends as it is) and queues each as runs/<shard>/<name>. */
static int flush_runs(pending *p, queued *batch, size_t k)
{
    char(*oids)[41] = calloc(k ? k : 1, sizeof(*oids));
    const char **data = calloc(k ? k : 1, sizeof(*data));
    size_t *len = calloc(k ? k : 1, sizeof(*len));
    int error = oids && data && len ? 0 : CULPRIT_ERROR_NOMEM();

    for (size_t i = 0; i < k && error == 0; i++) {
        data[i] = batch[i].data.ptr ? batch[i].data.ptr : "";
        len[i] = batch[i].data.size;
    }
    if (error == 0)
        error = culprit_vcs_blobs_add_many(oids, p->blobs, data, len, k);
    for (size_t i = 0; i < k && error == 0; i++) {
        culprit_buf path = CULPRIT_BUF_INIT;
        const queued *q = &batch[i];

        if ((error = culprit_buf_printf(&path, "runs/%s/%s", q->shard, q->name)) < 0 ||
            (error = culprit_array_grow(&p->files, &p->alloc, p->n, sizeof(*p->files), 64)) < 0) {
            culprit_buf_dispose(&path);
            break;
        }
        p->files[p->n] =
            (culprit_vcs_file){culprit_buf_detach(&path), NULL, 0, culprit_strdup(oids[i])};
        if (!p->files[p->n++].oid)
            error = CULPRIT_ERROR_NOMEM();
        else if (q->sha[0] && ((error = culprit_array_grow(&p->commits, &p->acommits, p->ncommits,
                                                           sizeof(char *), 64)) < 0 ||
                               !(p->commits[p->ncommits++] = culprit_strdup(q->sha))))
            error = error < 0 ? error : CULPRIT_ERROR;
    }
    free(oids);
    free(data);
    free(len);
    return error;
}

/* Adds the local runs `names` (of `nnames`) that the shared history (`known`, sorted,
 * of `nknown`) lacks to the pending pack, PUSH_BATCH at a time. */
static int queue_runs(pending *p, culprit_vcs *repo, const char *dir, char **names, size_t nnames,
                      const char **known, size_t nknown, size_t max)
{
    queued batch[PUSH_BATCH];
    size_t k = 0;
    int error = 0;

    memset(batch, 0, sizeof(batch));
    for (size_t i = 0; i < nnames && error == 0; i++) {
        if (!bsearch(&names[i], known, nknown, sizeof(*known), compare_strings))
            error = queue_run(batch, &k, repo, dir, names[i], max);
        if (error == 0 && (k == PUSH_BATCH || (i + 1 == nnames && k > 0))) {
            error = flush_runs(p, batch, k);
            k = 0;
        }
    }
    for (size_t i = 0; i < PUSH_BATCH; i++)
        culprit_buf_dispose(&batch[i].data);
    return error;
}

/* Sorts the commits of `p` and keeps each once: 1,000 runs of one commit record
 * its ancestry once. */
static void unique_commits(pending *p)
{
    size_t k = 0;

    qsort(p->commits, p->ncommits, sizeof(*p->commits), compare_strings);
    for (size_t i = 0; i < p->ncommits; i++) {
        if (k > 0 && strcmp(p->commits[k - 1], p->commits[i]) == 0)
            free(p->commits[i]);
        else
            p->commits[k++] = p->commits[i];
    }
    p->ncommits = k;
}

/* Commits the local runs the shared history lacks, with their ancestry records. */
static int add_local_runs(size_t *added, size_t *local, culprit_vcs *repo, const char *dir)
{
    culprit_vcs_ref_files shared = {NULL, 0};
    pending p;
    culprit_vcs_file *ancestry = NULL;
    size_t nancestry = 0;
    char **names = NULL;
    const char **known = NULL;
    size_t nnames = 0, max = 0;
    int error;

    memset(&p, 0, sizeof(p));
    *added = 0;
    if ((error = culprit_history_shared_file_max(&max)) < 0 ||
        (error = list_runs(&names, &nnames, dir)) < 0 ||
        (error = culprit_vcs_ref_list(&shared, repo, CULPRIT_VCS_HISTORY_REF, "runs")) < 0)
        goto cleanup;
    *local = nnames;
    if (!(known = shared_names(&shared))) {
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    if ((error = culprit_vcs_blobs_begin(&p.blobs, repo)) < 0)
        goto cleanup;
    if ((error = queue_runs(&p, repo, dir, names, nnames, known, shared.n, max)) < 0 ||
        (error = culprit_vcs_blobs_finish(p.blobs)) < 0 || p.n == 0)
        goto cleanup;
    unique_commits(&p);
    if ((error =
             culprit_vcs_ancestry_files(&ancestry, &nancestry, repo, (const char *const *)p.commits,
                                        p.ncommits, ANCESTRY_DEPTH)) < 0)
        goto cleanup;
    for (size_t i = 0; i < nancestry && error == 0; i++)
        if ((error = culprit_array_grow(&p.files, &p.alloc, p.n, sizeof(*p.files), 64)) == 0) {
            p.files[p.n++] = ancestry[i];
            ancestry[i] = (culprit_vcs_file){NULL, NULL, 0, NULL};
        }
    if (error == 0)
        error = culprit_vcs_ref_add(added, repo, CULPRIT_VCS_HISTORY_REF, p.files, p.n,
                                    "culprit: add runs");
    *added = error == 0 ? p.n - nancestry : 0; /* runs, not records */
cleanup:
    free(known);
    culprit_vcs_files_free(ancestry, nancestry);
    pending_dispose(&p);
    culprit_vcs_ref_files_dispose(&shared);
    for (size_t i = 0; i < nnames; i++)
        free(names[i]);
    free(names);
    return error;
}

static size_t count_runs(culprit_vcs *repo)
{
    culprit_vcs_ref_files files = {NULL, 0};
    size_t n;

    if (culprit_vcs_ref_list(&files, repo, CULPRIT_VCS_HISTORY_REF, "runs") < 0)
        culprit_error_clear();
    n = files.n;
    culprit_vcs_ref_files_dispose(&files);
    return n;
}

/* Unique names make a path held with two contents a corruption, never an edit. */
static void warn_conflicts(size_t conflicts, const char *remote)
{
    if (conflicts)
        fprintf(stderr,
                "culprit: warning: %zu file%s of the shared history differed between here and "
                "%s; the local version was kept\n",
                conflicts, conflicts == 1 ? "" : "s", remote);
}

/* The history directory's category assignments file. */
static char *assignments_file(const char *dir)
{
    char *path = culprit_fs_join(dir, "categories.json");

    if (!path)
        CULPRIT_ERROR_NOMEM();
    return path;
}

/* Adds the assignments of the directory's categories.json that the shared history
 * lacks, as categories/<test>. The store is append-only: a test's first shared
 * assignment stays. A corrupt local file is a warning: the runs still go. */
static int push_assignments(culprit_vcs *repo, const char *dir)
{
    char *path = assignments_file(dir);
    culprit_assignments *a = NULL;
    culprit_vcs_file *files = NULL;
    size_t n = 0, count;
    int error = path ? 0 : CULPRIT_ERROR;

    if (error < 0 || (error = culprit_detect_assignments_load(&a, path)) < 0) {
        if (path)
            fprintf(stderr, "culprit: warning: category assignments not pushed: %s\n",
                    culprit_error_last());
        error = path ? 0 : error;
        goto cleanup;
    }
    count = culprit_detect_assignments_count(a);
    if (count == 0 || !(files = calloc(count, sizeof(*files)))) {
        error = count == 0 ? 0 : CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    for (size_t i = 0; i < count && error == 0; i++) {
        culprit_buf name = CULPRIT_BUF_INIT, content = CULPRIT_BUF_INIT;
        const char *key, *category;

        if ((error = culprit_detect_assignments_entry(a, i, &key, &category)) == 0 &&
            (error = culprit_buf_puts(&name, "categories/")) == 0 &&
            (error = culprit_detect_assignments_encode(&name, &content, key, category)) == 0) {
            files[n].len = content.size;
            files[n].data = culprit_buf_detach(&content);
            files[n++].path = culprit_buf_detach(&name);
        } else if (error == CULPRIT_EINVALID) {
            fprintf(stderr, "culprit: warning: %s: %s; not pushed\n", path, culprit_error_last());
            error = 0;
        }
        culprit_buf_dispose(&name);
        culprit_buf_dispose(&content);
    }
    if (error == 0 && n > 0)
        error = culprit_vcs_ref_add(NULL, repo, CULPRIT_VCS_HISTORY_REF, files, n,
                                    "culprit: add category assignments");
cleanup:
    culprit_vcs_files_free(files, n);
    culprit_detect_assignments_free(a);
    free(path);
    return error;
}

/* A category file holds one name of at most 128 bytes and a newline: anything
 * larger is refused from the blob's header, unread. */
#define CATEGORY_FILE_MAX 1024

/* Why the shared file categories/`name` (content `data`, `error` from reading it)
 * cannot be adopted, into `why` ("categories/<name>: <reason>", escaped for the
 * terminal); left empty when it can. A category the project does not define would
 * leave the test judged against nothing the project knows (docs/categories.md). */
static int refused_assignment(culprit_buf *why, const char *name, const culprit_buf *data,
                              int error, const culprit_categories *categories)
{
    culprit_assignments *scratch = NULL;
    const char *key, *category;

    culprit_buf_clear(why);
    if (error == CULPRIT_EINVALID) /* too large: the name, then the reason */
        return culprit_buf_puts(why, "categories/") < 0 || culprit_buf_put_text(why, name) < 0 ||
                       culprit_buf_printf(why, ": %s", culprit_error_last()) < 0
                   ? CULPRIT_ERROR
                   : 0;
    /* The file decoded alone, into an empty set (a missing file loads as one). */
    if (error < 0 || (error = culprit_detect_assignments_load(&scratch, "")) < 0)
        return error;
    if (culprit_detect_assignments_decode(scratch, name, data->ptr ? data->ptr : "", data->size) <
        0)
        /* the message starts with the name */
        error = culprit_buf_puts(why, "categories/") < 0 ||
                        culprit_buf_put_text(why, culprit_error_last()) < 0
                    ? CULPRIT_ERROR
                    : 0;
    else if ((error = culprit_detect_assignments_entry(scratch, 0, &key, &category)) == 0 &&
             !culprit_detect_categories_find(categories, category) &&
             (culprit_buf_puts(why, "categories/") < 0 || culprit_buf_put_text(why, name) < 0 ||
              culprit_buf_puts(why, ": category \"") < 0 ||
              culprit_buf_put_text(why, category) < 0 ||
              culprit_buf_puts(why, "\" is not defined by the project (culprit.json)") < 0))
        error = CULPRIT_ERROR;
    culprit_detect_assignments_free(scratch);
    return error;
}

/* Writes the shared history's assignments that the directory's categories.json
 * lacks into it, under its lock (the local assignment of a test wins). The ref's
 * files come from other machines: a bad one (not an encoded test name, not a
 * category name, a category the project does not define, too large) is a warning
 * naming it, and skipped; the others are adopted. */
static int pull_assignments(size_t *adopted, culprit_vcs *repo, const char *dir,
                            const culprit_categories *categories)
{
    culprit_vcs_ref_files shared = {NULL, 0};
    culprit_assignments *local = NULL;
    culprit_buf data = CULPRIT_BUF_INIT, why = CULPRIT_BUF_INIT;
    char *path = assignments_file(dir);
    int error = path ? 0 : CULPRIT_ERROR;

    *adopted = 0;
    if (error < 0 ||
        (error = culprit_vcs_ref_list(&shared, repo, CULPRIT_VCS_HISTORY_REF, "categories")) < 0 ||
        shared.n == 0)
        goto cleanup;
    if ((error = culprit_detect_assignments_load(&local, path)) < 0) {
        fprintf(stderr, "culprit: warning: category assignments not pulled: %s\n",
                culprit_error_last());
        error = 0;
        goto cleanup;
    }
    for (size_t i = 0; i < shared.n && error == 0; i++) {
        const char *name = shared.entries[i].path + strlen("categories/");

        culprit_buf_clear(&data);
        error = culprit_vcs_blob_read(&data, repo, shared.entries[i].oid, CATEGORY_FILE_MAX);
        error = refused_assignment(&why, name, &data, error, categories);
        if (error == 0 && why.size)
            fprintf(stderr, "culprit: warning: %s: %s; skipped\n", CULPRIT_VCS_HISTORY_REF,
                    culprit_buf_cstr(&why));
        else if (error == 0)
            error =
                culprit_detect_assignments_decode(local, name, data.ptr ? data.ptr : "", data.size);
    }
    if (error == 0 && (error = culprit_fs_mkdir_p(dir)) == 0)
        error = culprit_detect_assignments_adopt(adopted, path, local);
cleanup:
    culprit_buf_dispose(&data);
    culprit_buf_dispose(&why);
    culprit_detect_assignments_free(local);
    culprit_vcs_ref_files_dispose(&shared);
    free(path);
    return error;
}

static int push(culprit_vcs *repo, const char *remote, const char *dir)
{
    culprit_vcs_push_result res;
    size_t added = 0, local = 0;
    char sha[41];
    int error;

    if ((error = add_local_runs(&added, &local, repo, dir)) < 0 ||
        (error = push_assignments(repo, dir)) < 0)
        return error;
    if (culprit_vcs_ref_resolve(sha, repo, CULPRIT_VCS_HISTORY_REF) < 0) {
        culprit_error_clear();
        printf("culprit history push: no runs in '%s' and no shared history: nothing to push\n",
               dir);
        return 0;
    }
    if ((error = culprit_vcs_history_push(&res, repo, remote)) < 0)
        return error;
    printf("culprit history push: %zu new run%s of %zu in '%s' pushed to %s (%zu in the shared "
           "history, %u round%s)\n",
           added, added == 1 ? "" : "s", local, dir, remote, count_runs(repo), res.attempts,
           res.attempts == 1 ? "" : "s");
    warn_conflicts(res.conflicts, remote);
    return 0;
}

static int pull(culprit_vcs *repo, const char *remote, const char *dir,
                const culprit_categories *categories)
{
    culprit_vcs_merge_result res;
    size_t adopted = 0, runs = 0, skipped = 0;
    char before[41];
    int error;

    if (culprit_vcs_ref_resolve(before, repo, CULPRIT_VCS_HISTORY_REF) < 0) {
        culprit_error_clear();
        before[0] = '\0';
    }
    /* The new runs come from a diff of the store before and after, which skips the
     * shards both share: a pull into a large store does not list it. Only files
     * that are runs count; the others are named and left out (the readers skip
     * them too), as are files above the size limit, unread. */
    if ((error = culprit_vcs_history_pull(&res, repo, remote)) < 0 ||
        (res.changed && (error = cli_shared_count_pulled(&runs, &skipped, repo, before)) < 0))
        return error;
    printf("culprit history pull: %zu new run%s from %s", runs, runs == 1 ? "" : "s", remote);
    if (skipped)
        printf(" (%zu other file%s skipped, not runs)", skipped, skipped == 1 ? "" : "s");
    printf("\n");
    warn_conflicts(res.conflicts, remote);
    if ((error = pull_assignments(&adopted, repo, dir, categories)) < 0)
        return error;
    if (adopted)
        printf("culprit history pull: %zu category assignment%s added to '%s'\n", adopted,
               adopted == 1 ? "" : "s", dir);
    return 0;
}

int cli_history_sync(int argc, char **argv)
{
    const char *verb = argv[0], *history = NULL, *project = NULL, *remote = NULL;
    culprit_opt_parser p;
    cli_env env;
    char command[32];
    int kind, help = 0, error;
    const culprit_opt options[] = SYNC_OPTIONS(&history, &project, &help);

    snprintf(command, sizeof(command), "history %s", verb);
    culprit_opt_parser_init(&p, command, options, argc, argv);
    while ((kind = culprit_opt_next(&p)) != CULPRIT_OPT_END) {
        if (kind < 0)
            return cli_usage_error(command);
        if (kind == CULPRIT_OPT_POSITIONAL && !remote) {
            remote = p.value;
        } else if (kind == CULPRIT_OPT_POSITIONAL) {
            culprit_error_set(CULPRIT_EINVALID, "%s: unexpected argument '%s'", command, p.value);
            return cli_usage_error(command);
        }
    }
    if (help) {
        usage(stdout, verb);
        return CLI_EXIT_OK;
    }
    if ((error = cli_env_open(&env, project, history, 1)) < 0) {
        cli_error(NULL);
        return CLI_EXIT_ERROR;
    }
    if (strcmp(verb, "push") == 0)
        error = push(env.repo, remote ? remote : "origin", env.settings.history_dir);
    else
        error = pull(env.repo, remote ? remote : "origin", env.settings.history_dir,
                     culprit_detect_project_categories(env.project));
    if (error < 0)
        cli_error(NULL);
    cli_env_dispose(&env);
    return error < 0 ? CLI_EXIT_ERROR : CLI_EXIT_OK;
}
