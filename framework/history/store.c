/*
 * The history store: a directory holding one file per run. Files are only ever
 * added (atomically, never replacing one another), so several machines can share
 * the directory and a reader never sees half a file. Their names make
 * collisions practically impossible even without locking:
 * "<UTC timestamp>_<commit12>_<host>_<pid>_<random>.xml", and the name's stem is
 * the run id recorded inside. Files that cannot be read are reported and skipped,
 * never deleted: they may be from a newer culprit, or worth a look by hand.
 */
#include "history_internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct culprit_history {
    char *dir;
};

int culprit_history_open(culprit_history **out, const char *dir, int create)
{
    culprit_history *history = NULL;
    struct stat st;
    int error = 0;

    *out = NULL;
    if (!dir || !*dir)
        return culprit_error_set(CULPRIT_EINVALID, "empty history directory path");
    if (create && (error = culprit_fs_mkdir_p(dir)) < 0)
        return culprit_error_prefix("cannot create the history directory '%s': ", dir);
    if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
        return culprit_error_set(CULPRIT_ENOTFOUND, "history directory '%s' does not exist", dir);
    if (create && access(dir, W_OK | X_OK) < 0)
        return culprit_error_set_os("history directory '%s' is not writable", dir);
    if (!(history = calloc(1, sizeof(*history))) || !(history->dir = culprit_strdup(dir))) {
        free(history);
        return CULPRIT_ERROR_NOMEM();
    }
    *out = history;
    return 0;
}

void culprit_history_free(culprit_history *history)
{
    if (!history)
        return;
    free(history->dir);
    free(history);
}

const char *culprit_history_dir(const culprit_history *history)
{
    return history->dir;
}

/* ------------------------------------------------------------------ store --- */

/* Keeps a name component to [A-Za-z0-9.-] so the file name is portable and unambiguous. */
static int put_component(culprit_buf *buf, const char *s, size_t max)
{
    size_t n = 0;
    int error;

    for (; *s && n < max; s++, n++) {
        char c = *s;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '-'))
            c = '-';
        if ((error = culprit_buf_put(buf, &c, 1)) < 0)
            return error;
    }
    return 0;
}

static uint64_t random_u64(void)
{
    uint64_t r = 0;
    struct timespec ts;

    if (getrandom(&r, sizeof(r), GRND_NONBLOCK) == (ssize_t)sizeof(r))
        return r;
    /* No entropy yet (early boot): the clock and pid still separate concurrent runs. */
    clock_gettime(CLOCK_REALTIME, &ts);
    return ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 40);
}

int culprit_history_run_id(char **out, const culprit_run *run)
{
    culprit_buf id = CULPRIT_BUF_INIT;
    char host[256] = "";
    int error = 0;

    *out = NULL;
    /* "2026-11-22T13:05:00Z" -> "20261122T130500Z": sorts like the time it names. */
    if (run->timestamp) {
        for (const char *p = run->timestamp; *p; p++)
            if (*p != '-' && *p != ':' && (error = put_component(&id, (char[]){*p, 0}, 1)) < 0)
                goto cleanup;
    } else {
        char now[32];
        time_t t = time(NULL);
        struct tm tm;
        gmtime_r(&t, &tm);
        strftime(now, sizeof(now), "%Y%m%dT%H%M%SZ", &tm);
        if ((error = culprit_buf_puts(&id, now)) < 0)
            goto cleanup;
    }
    if ((error = culprit_buf_puts(&id, "_")) < 0 ||
        (error = put_component(&id, run->commit && *run->commit ? run->commit : "unknown", 12)) <
            0 ||
        (error = culprit_buf_puts(&id, "_")) < 0)
        goto cleanup;
    if (!run->host)
        gethostname(host, sizeof(host) - 1);
    if ((error = put_component(&id, run->host ? run->host : (*host ? host : "localhost"), 64)) <
            0 ||
        (error = culprit_buf_printf(&id, "_%ld_%016llx", (long)getpid(),
                                    (unsigned long long)random_u64())) < 0)
        goto cleanup;
    *out = culprit_buf_detach(&id);
cleanup:
    culprit_buf_dispose(&id);
    return error;
}

/* A caller-chosen id becomes a file name: it must stay one path component. */
static int check_id(const char *id)
{
    if (!*id || !strcmp(id, ".") || !strcmp(id, "..") || strchr(id, '/'))
        return culprit_error_set(CULPRIT_EINVALID, "run id '%s' cannot be a file name", id);
    return 0;
}

int culprit_history_store(culprit_history *history, const culprit_run *run, char **path_out)
{
    culprit_run named = *run; /* shallow: the id written inside matches the file name */
    culprit_buf name = CULPRIT_BUF_INIT;
    char *id = NULL, *path = NULL;
    const char *sync = getenv("CULPRIT_HISTORY_SYNC");
    /* CULPRIT_HISTORY_SYNC=0: a scratch store, read at once and deleted (a paired
     * confirmation's run, docs/history-format.md): durability buys nothing there. */
    int error = 0,
        flags = CULPRIT_FS_NO_REPLACE | (sync && !strcmp(sync, "0") ? CULPRIT_FS_NO_SYNC : 0);

    if (path_out)
        *path_out = NULL;
    /* Temporary files of writers killed before their rename. */
    culprit_fs_remove_stale(history->dir, ".tmp.");
    /* A fresh random part on collision; a caller-chosen id is never retried. */
    for (int attempt = 0; attempt < 8; attempt++) {
        free(id);
        id = NULL;
        if (run->id) {
            if ((error = check_id(run->id)) < 0)
                goto cleanup;
        } else if ((error = culprit_history_run_id(&id, run)) < 0) {
            goto cleanup;
        }
        named.id = id ? id : run->id;
        culprit_buf_clear(&name);
        if ((error = culprit_buf_printf(&name, "%s.xml", named.id)) < 0)
            goto cleanup;
        free(path);
        if (!(path = culprit_fs_join(history->dir, name.ptr))) {
            error = CULPRIT_ERROR_NOMEM();
            goto cleanup;
        }
        error = culprit_history_write_file(&named, path, flags);
        if (error != CULPRIT_EEXISTS || run->id)
            break;
    }
    if (error < 0)
        goto cleanup;
    if (path_out) {
        *path_out = path;
        path = NULL;
    }
cleanup:
    free(id);
    free(path);
    culprit_buf_dispose(&name);
    return error;
}

/* ------------------------------------------------------------------- load --- */

static void warn_stderr(const char *path, const char *message, void *payload)
{
    (void)payload;
    fprintf(stderr, "culprit: warning: skipping %s: %s\n", path, message);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !memcmp(s + n - m, suffix, m);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int compare_runs(const void *a, const void *b)
{
    const culprit_run *x = *(culprit_run *const *)a, *y = *(culprit_run *const *)b;
    int c = strcmp(x->timestamp ? x->timestamp : "", y->timestamp ? y->timestamp : "");
    return c ? c : strcmp(x->id ? x->id : "", y->id ? y->id : "");
}

int culprit_history__list_files(char ***out, size_t *count, const char *dir)
{
    DIR *d;
    struct dirent *e;
    char **names = NULL;
    size_t n = 0, alloc = 0;
    int error = 0;

    *out = NULL;
    *count = 0;
    if (!(d = opendir(dir)))
        return culprit_error_set_os("cannot read the history directory '%s'", dir);
    while ((errno = 0, e = readdir(d))) {
        if (e->d_name[0] == '.' || !ends_with(e->d_name, ".xml"))
            continue;
        if ((error = culprit_array_grow(&names, &alloc, n, sizeof(*names), 64)) < 0)
            goto cleanup;
        if (!(names[n] = culprit_strdup(e->d_name))) {
            error = CULPRIT_ERROR;
            goto cleanup;
        }
        n++;
    }
    if (errno) {
        error = culprit_error_set_os("cannot read the history directory '%s'", dir);
        goto cleanup;
    }
    qsort(names, n, sizeof(*names), compare_names);
cleanup:
    closedir(d);
    if (error < 0) {
        while (n)
            free(names[--n]);
        free(names);
        return error;
    }
    *out = names;
    *count = n;
    return 0;
}

static int append_run(culprit_history_runs *runs, size_t *alloc, culprit_run *run)
{
    int error;

    if ((error = culprit_array_grow(&runs->runs, alloc, runs->nruns, sizeof(*runs->runs), 64)) < 0)
        return error;
    runs->runs[runs->nruns++] = run;
    return 0;
}

/* The runs of the report `path` that `q` wants, all or none. */
static int add_report(culprit_history_runs *runs, size_t *alloc, const char *path,
                      const culprit_history_query *q)
{
    culprit_history_runs more;
    size_t i = 0;
    int error;

    if ((error = culprit_history__read_report(&more, path, q)) < 0)
        return error;
    for (; i < more.nruns && (error = append_run(runs, alloc, more.runs[i])) == 0; i++)
        more.runs[i] = NULL;
    culprit_history_runs_dispose(&more);
    return error;
}

void culprit_history__warn_skipped(culprit_history_warn_fn warn, void *payload, const char *path)
{
    /* The reader names the file first; the warning says it already. */
    const char *reason = culprit_error_last();
    size_t plen = strlen(path);

    if (!strncmp(reason, path, plen) && !strncmp(reason + plen, ": ", 2))
        reason += plen + 2;
    (warn ? warn : warn_stderr)(path, reason, payload);
}

int culprit_history_query_wants_name(const culprit_history_query *q, const char *name)
{
    const char *us = strchr(name, '_');
    char c12[13];

    if (!q || !q->ncommits || !us || strlen(us + 1) < 13 || us[13] != '_' ||
        strspn(us + 1, "0123456789abcdef") != 12)
        return 1;
    memcpy(c12, us + 1, 12);
    c12[12] = '\0';
    return culprit_history__commit_wanted(q, c12, 1);
}

/* One run file of a load, read on any thread (culprit_parallel_for): its run, or the
 * error it met with its message, kept for the calling thread to handle in the files'
 * order, as when they were read one by one. */
typedef struct {
    char *path;
    culprit_run *run;
    int error;
    culprit_error_state *why; /* the error's message; NULL when none (or out of memory) */
} load_slot;

typedef struct {
    load_slot *slots;
    const culprit_history_query *q;
} load_job;

static void load_one(size_t i, void *arg)
{
    load_job *job = arg;
    load_slot *s = &job->slots[i];

    s->error = culprit_history__load_file(&s->run, s->path, job->q);
    if (s->error < 0 && (s->why = malloc(sizeof(*s->why))))
        culprit_error_save(s->why);
}

/* The files of `names` that `q` wants, as slots (their paths). */
static int load_slots(load_slot **out, size_t *n, const char *dir, char *const *names,
                      size_t nnames, const culprit_history_query *q)
{
    *n = 0;
    if (!(*out = calloc(nnames ? nnames : 1, sizeof(**out))))
        return CULPRIT_ERROR_NOMEM();
    for (size_t i = 0; i < nnames; i++) {
        if (!culprit_history_query_wants_name(q, names[i]))
            continue;
        if (!((*out)[*n].path = culprit_fs_join(dir, names[i])))
            return CULPRIT_ERROR_NOMEM();
        (*n)++;
    }
    return 0;
}

/* Takes the run of slot `s` into `out`, or warns of the file and counts it skipped;
 * a report of several runs is read as its runs (*reports counts them). */
static int load_take(culprit_history_runs *out, size_t *alloc, size_t *reports, load_slot *s,
                     const culprit_history_query *q, culprit_history_warn_fn warn, void *payload)
{
    int error = s->error;

    if (error < 0 && !s->why)
        return CULPRIT_ERROR_NOMEM(); /* its message was lost */
    if (error < 0)
        culprit_error_restore(s->why);
    /* The run reader refuses a report of several runs (culprit junit's) with this
     * message (read.c); such a file is read as its runs. Any other error stands. */
    if (error == CULPRIT_EINVALID && strstr(culprit_error_last(), "more than one <testsuite>") &&
        (error = add_report(out, alloc, s->path, q)) == 0)
        (*reports)++;
    if (error == CULPRIT_ERROR)
        return error; /* out of memory: the next file would fail too */
    if (error < 0) {
        culprit_history__warn_skipped(warn, payload, s->path);
        out->nskipped++;
        return 0;
    }
    if (s->run && (error = append_run(out, alloc, s->run)) < 0)
        return error;
    s->run = NULL;
    return 0;
}

int culprit_history_load(culprit_history_runs *out, culprit_history *history,
                         const culprit_history_query *query, culprit_history_warn_fn warn,
                         void *payload)
{
    culprit_history_query q = {.flags = 0};
    const char **sorted = NULL;
    char **names = NULL;
    load_slot *slots = NULL;
    load_job job;
    size_t nnames = 0, nslots = 0, alloc = 0, nreports = 0;
    int error;

    memset(out, 0, sizeof(*out));
    if (!warn)
        warn = warn_stderr;
    if (query)
        q = *query;
    if (q.ncommits) { /* sorted, for a binary search per file */
        if (!(sorted = malloc(q.ncommits * sizeof(*sorted))))
            return CULPRIT_ERROR_NOMEM();
        memcpy(sorted, q.commits, q.ncommits * sizeof(*sorted));
        qsort(sorted, q.ncommits, sizeof(*sorted), compare_names);
        q.commits = sorted;
    }
    if ((error = culprit_history__list_files(&names, &nnames, history->dir)) < 0 ||
        (error = load_slots(&slots, &nslots, history->dir, names, nnames, &q)) < 0)
        goto cleanup;
    /* The files on several threads, their runs and warnings taken in their order. */
    job = (load_job){slots, &q};
    culprit_history__parser_init();
    if ((error = culprit_parallel_for(nslots, load_one, &job)) < 0)
        goto cleanup;
    for (size_t i = 0; i < nslots && error == 0; i++)
        error = load_take(out, &alloc, &nreports, &slots[i], &q, warn, payload);
    if (error < 0)
        goto cleanup;
    culprit_history_runs_sort(out);
    if (nreports) /* a report repeats runs that have their own files: one of each */
        error = culprit_history__runs_finish(out);
cleanup:
    for (size_t i = 0; slots && i < nnames; i++) {
        culprit_history_run_free(slots[i].run);
        free(slots[i].why);
        free(slots[i].path);
    }
    free(slots);
    free(sorted);
    for (size_t i = 0; i < nnames; i++)
        free(names[i]);
    free(names);
    if (error < 0)
        culprit_history_runs_dispose(out);
    return error;
}

void culprit_history_runs_sort(culprit_history_runs *runs)
{
    if (runs->nruns) /* none: runs is NULL, which qsort must not get */
        qsort(runs->runs, runs->nruns, sizeof(*runs->runs), compare_runs);
}

int culprit_history_runs_take(culprit_history_runs *runs, culprit_history_runs *more)
{
    culprit_run **grown;

    if (more->nruns &&
        !(grown = realloc(runs->runs, (runs->nruns + more->nruns) * sizeof(*runs->runs)))) {
        culprit_history_runs_dispose(more);
        return CULPRIT_ERROR_NOMEM();
    } else if (more->nruns) {
        runs->runs = grown;
        memcpy(runs->runs + runs->nruns, more->runs, more->nruns * sizeof(*more->runs));
        runs->nruns += more->nruns;
    }
    runs->nskipped += more->nskipped;
    free(more->runs);
    memset(more, 0, sizeof(*more));
    culprit_history_runs_sort(runs);
    return 0;
}

void culprit_history_runs_dispose(culprit_history_runs *runs)
{
    if (!runs)
        return;
    for (size_t i = 0; i < runs->nruns; i++)
        culprit_history_run_free(runs->runs[i]);
    free(runs->runs);
    memset(runs, 0, sizeof(*runs));
}

/* ---------------------------------------------------- a second source --- */

int culprit_history__runs_add_memory(culprit_history_runs *runs, const char *data, size_t len,
                                     const char *name, const culprit_history_query *query,
                                     culprit_history_warn_fn warn, void *payload)
{
    culprit_history_query all = {0};
    culprit_run *run = NULL, **grown;
    int error;

    error = culprit_history__read(&run, data, len, name, query ? query : &all);
    if (error == CULPRIT_ERROR)
        return error; /* out of memory */
    if (error < 0) {
        culprit_history__warn_skipped(warn, payload, name);
        runs->nskipped++;
        return 0;
    }
    if (!run)
        return 0; /* filtered out by the query */
    if (!(grown = realloc(runs->runs, (runs->nruns + 1) * sizeof(*grown)))) {
        culprit_history_run_free(run);
        return CULPRIT_ERROR_NOMEM();
    }
    runs->runs = grown;
    runs->runs[runs->nruns++] = run;
    return 0;
}

typedef struct {
    culprit_run *run;
    size_t order; /* position when loaded */
} loaded_run;

static int compare_ids(const void *a, const void *b)
{
    const loaded_run *x = a, *y = b;
    int c = strcmp(x->run->id ? x->run->id : "", y->run->id ? y->run->id : "");
    return c ? c : (x->order < y->order ? -1 : x->order > y->order);
}

int culprit_history__runs_finish(culprit_history_runs *runs)
{
    loaded_run *all;
    size_t k = 0;

    /* Same id, same run: a pushed run is in the local directory and in the shared
     * history, and a run pulled twice is one run. The first loaded is kept. */
    if (runs->nruns < 2)
        return 0;
    if (!(all = malloc(runs->nruns * sizeof(*all))))
        return CULPRIT_ERROR_NOMEM();
    for (size_t i = 0; i < runs->nruns; i++)
        all[i] = (loaded_run){runs->runs[i], i};
    qsort(all, runs->nruns, sizeof(*all), compare_ids);
    for (size_t i = 0; i < runs->nruns; i++) {
        culprit_run *r = all[i].run;
        if (k > 0 && r->id && runs->runs[k - 1]->id && !strcmp(runs->runs[k - 1]->id, r->id))
            culprit_history_run_free(r);
        else
            runs->runs[k++] = r;
    }
    free(all);
    runs->nruns = k;
    culprit_history_runs_sort(runs);
    return 0;
}
