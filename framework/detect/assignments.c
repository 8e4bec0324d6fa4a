/*
 * Persisted category assignments. The paper classifies a test by its first
 * measurement and judges later runs against that class; the assignment therefore
 * has to outlive the run. It lives in <history>/categories.json:
 *
 *   { "version": 1, "assignments": { "fib_perf.fib_24": "fast", ... } }
 *
 * Unlike history files this one is updated, always atomically (temporary file and
 * rename) and after merging what other processes wrote since we read it. The
 * re-read, merge and rename happen under a lock (categories.json.lock): without
 * it, 8 test binaries starting at once on a fresh history kept 2 to 6 of their 6
 * assignments, each rename replacing a file another had just merged.
 */
#include "culprit/detect.h"
#include "culprit/core.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

struct culprit_assignments {
    json_t *map;     /* "suite.test" -> category name */
    json_t *removed; /* keys unset since the load: not resurrected by the merge */
};

static int read_map(json_t **out, const char *path)
{
    culprit_buf text = CULPRIT_BUF_INIT;
    json_t *root = NULL, *map, *value;
    json_error_t jerr;
    const char *key;
    int error;

    *out = NULL;
    if ((error = culprit_fs_read_file(&text, path)) < 0) {
        culprit_buf_dispose(&text);
        if (error == CULPRIT_ENOTFOUND) {
            *out = json_object();
            return 0;
        }
        return error;
    }
    root = json_loadb(text.ptr ? text.ptr : "", text.size, 0, &jerr);
    culprit_buf_dispose(&text);
    if (!root)
        return culprit_error_set(CULPRIT_EINVALID, "%s:%d: not valid JSON: %s", path, jerr.line,
                                 jerr.text);
    map = json_object_get(root, "assignments");
    if (json_integer_value(json_object_get(root, "version")) != 1 || !json_is_object(map)) {
        json_decref(root);
        return culprit_error_set(CULPRIT_EINVALID,
                                 "%s: not a culprit category assignment file (version 1)", path);
    }
    json_object_foreach(map, key, value)
    {
        if (!json_is_string(value)) {
            json_decref(root);
            return culprit_error_set(CULPRIT_EINVALID, "%s: assignment of \"%s\" is not a name",
                                     path, key);
        }
    }
    *out = json_incref(map);
    json_decref(root);
    return 0;
}

int culprit_assignments_load(culprit_assignments **out, const char *path)
{
    culprit_assignments *a = calloc(1, sizeof(*a));
    int error;

    *out = NULL;
    if (!a)
        return culprit_error_set(CULPRIT_ERROR, "out of memory");
    if ((error = read_map(&a->map, path)) < 0 || !(a->removed = json_object())) {
        culprit_assignments_free(a);
        return error < 0 ? error : culprit_error_set(CULPRIT_ERROR, "out of memory");
    }
    *out = a;
    return 0;
}

void culprit_assignments_free(culprit_assignments *assignments)
{
    if (!assignments)
        return;
    json_decref(assignments->map);
    json_decref(assignments->removed);
    free(assignments);
}

const char *culprit_assignments_get(const culprit_assignments *assignments, const char *key)
{
    return json_string_value(json_object_get(assignments->map, key));
}

int culprit_assignments_set(culprit_assignments *assignments, const char *key, const char *category)
{
    json_object_del(assignments->removed, key);
    if (json_object_set_new(assignments->map, key, json_string(category)) < 0)
        return culprit_error_set(CULPRIT_ERROR, "cannot assign \"%s\"", key);
    return 0;
}

int culprit_assignments_unset(culprit_assignments *assignments, const char *key)
{
    json_object_del(assignments->map, key);
    json_object_set_new(assignments->removed, key, json_true());
    return 0;
}

size_t culprit_assignments_count(const culprit_assignments *assignments)
{
    return json_object_size(assignments->map);
}

int culprit_assignments_entry(const culprit_assignments *assignments, size_t i, const char **key,
                              const char **category)
{
    const char *k;
    json_t *v;
    size_t at = 0;

    json_object_foreach(assignments->map, k, v)
    {
        if (at++ == i) {
            *key = k;
            *category = json_string_value(v);
            return 0;
        }
    }
    return culprit_error_set(CULPRIT_ENOTFOUND, "no assignment %zu", i);
}

/* A save takes milliseconds; a holder stuck this long is a bug or a dead NFS. */
#define LOCK_TIMEOUT_S 30.0

int culprit_assignments_save(culprit_assignments *assignments, const char *path)
{
    json_t *current = NULL, *root = NULL, *value;
    const char *key;
    char *text = NULL;
    int error, lock = -1;

    if ((error = culprit_fs_lock(&lock, path, LOCK_TIMEOUT_S)) < 0)
        return error;
    /* Merge: keep what others assigned meanwhile, unless we assigned or removed it. */
    if ((error = read_map(&current, path)) < 0)
        goto cleanup;
    json_object_foreach(current, key, value)
    {
        if (!json_object_get(assignments->map, key) && !json_object_get(assignments->removed, key))
            json_object_set(assignments->map, key, value);
    }
    root = json_pack("{s:i, s:O}", "version", 1, "assignments", assignments->map);
    if (!root || !(text = json_dumps(root, JSON_INDENT(2) | JSON_SORT_KEYS))) {
        error = culprit_error_set(CULPRIT_ERROR, "cannot serialize %s", path);
        goto cleanup;
    }
    {
        culprit_buf b = CULPRIT_BUF_INIT;
        if ((error = culprit_buf_puts(&b, text)) >= 0 && (error = culprit_buf_puts(&b, "\n")) >= 0)
            error = culprit_fs_write_atomic(path, b.ptr, b.size, 0);
        culprit_buf_dispose(&b);
    }
cleanup:
    culprit_fs_unlock(lock);
    free(text);
    json_decref(root);
    json_decref(current);
    return error;
}
