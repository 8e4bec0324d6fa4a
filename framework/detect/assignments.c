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

int culprit_detect_assignments_load(culprit_assignments **out, const char *path)
{
    culprit_assignments *a = calloc(1, sizeof(*a));
    int error;

    *out = NULL;
    if (!a)
        return CULPRIT_ERROR_NOMEM();
    if ((error = read_map(&a->map, path)) < 0 || !(a->removed = json_object())) {
        culprit_detect_assignments_free(a);
        return error < 0 ? error : CULPRIT_ERROR_NOMEM();
    }
    *out = a;
    return 0;
}

void culprit_detect_assignments_free(culprit_assignments *assignments)
{
    if (!assignments)
        return;
    json_decref(assignments->map);
    json_decref(assignments->removed);
    free(assignments);
}

/*
 * Keys are test names, which need not be UTF-8 (a C string in a test table); JSON
 * keys must be. A key is kept as the history records the name, what XML cannot
 * carry as "\xNN" (core's culprit_text_utf8()), so the runner (raw names) and the
 * commands (names read back from history) meet on one key, and an assignment is
 * never refused for its name.
 */
const char *culprit_detect_assignments_get(const culprit_assignments *assignments, const char *key)
{
    culprit_buf scratch = CULPRIT_BUF_INIT;
    const char *k = culprit_text_utf8(key, &scratch, CULPRIT_TEXT_XML);
    const char *category = k ? json_string_value(json_object_get(assignments->map, k)) : NULL;

    culprit_buf_dispose(&scratch);
    return category;
}

int culprit_detect_assignments_set(culprit_assignments *assignments, const char *key,
                                   const char *category)
{
    culprit_buf scratch = CULPRIT_BUF_INIT;
    const char *k = culprit_text_utf8(key, &scratch, CULPRIT_TEXT_XML);
    int error = 0;

    if (!k) {
        error = CULPRIT_ERROR;
    } else {
        json_object_del(assignments->removed, k);
        if (json_object_set_new(assignments->map, k, json_string(category)) < 0)
            error = culprit_error_set(CULPRIT_EINVALID,
                                      "cannot assign \"%s\": category \"%s\" is not UTF-8", k,
                                      category);
    }
    culprit_buf_dispose(&scratch);
    return error;
}

int culprit_detect_assignments_unset(culprit_assignments *assignments, const char *key)
{
    culprit_buf scratch = CULPRIT_BUF_INIT;
    const char *k = culprit_text_utf8(key, &scratch, CULPRIT_TEXT_XML);

    if (k) {
        json_object_del(assignments->map, k);
        json_object_set_new(assignments->removed, k, json_true());
    }
    culprit_buf_dispose(&scratch);
    return k ? 0 : CULPRIT_ERROR;
}

size_t culprit_detect_assignments_count(const culprit_assignments *assignments)
{
    return json_object_size(assignments->map);
}

int culprit_detect_assignments_entry(const culprit_assignments *assignments, size_t i,
                                     const char **key, const char **category)
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

/*
 * Writes `ours` merged with the file's current assignments, under the lock,
 * atomically. ours_win: ours replaces the file's entry for a key both hold, and
 * keys in `removed` are not taken from the file (a save). Otherwise the file's
 * entry wins and only keys it lacks are added (*added counts them; none: no write).
 */
static int merge_and_write(size_t *added, const char *path, json_t *ours, json_t *removed,
                           int ours_win)
{
    json_t *current = NULL, *root = NULL, *value, *out;
    const char *key;
    char *text = NULL;
    int error, lock = -1;

    *added = 0;
    if ((error = culprit_fs_lock(&lock, path, LOCK_TIMEOUT_S)) < 0)
        return error;
    if ((error = read_map(&current, path)) < 0)
        goto cleanup;
    out = ours_win ? ours : current;
    json_object_foreach(ours_win ? current : ours, key, value)
    {
        if (!json_object_get(out, key) && !(removed && json_object_get(removed, key))) {
            json_object_set(out, key, value);
            (*added)++;
        }
    }
    if (!ours_win && *added == 0)
        goto cleanup;
    root = json_pack("{s:i, s:O}", "version", 1, "assignments", out);
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

int culprit_detect_assignments_save(culprit_assignments *assignments, const char *path)
{
    size_t taken;

    /* Merge: keep what others assigned meanwhile, unless we assigned or removed it. */
    return merge_and_write(&taken, path, assignments->map, assignments->removed, 1);
}

int culprit_detect_assignments_adopt(size_t *added, const char *path,
                                     const culprit_assignments *from)
{
    size_t dummy;

    return merge_and_write(added ? added : &dummy, path, from->map, NULL, 0);
}

/* ------------------------------------------- in the shared history's ref --- */

/* A category name read from elsewhere: one a project file may define
 * (culprit_detect_category_name_check(): names come from the project file, where any
 * string is one). */
static int valid_category(const char *s, size_t len)
{
    culprit_buf name = CULPRIT_BUF_INIT;
    int ok = len > 0 && !memchr(s, '\0', len) && culprit_buf_put(&name, s, len) == 0 &&
             culprit_detect_category_name_check(name.ptr) == 0;

    culprit_buf_dispose(&name);
    return ok;
}

int culprit_detect_assignments_encode(culprit_buf *name, culprit_buf *content, const char *key,
                                      const char *category)
{
    int error = 0;

    if (!key || !*key || !category || !valid_category(category, strlen(category)))
        return culprit_error_set(CULPRIT_EINVALID, "assignment of \"%s\" cannot be shared",
                                 key ? key : "");
    /* The file name: core's one function for names made file names, without a length
     * limit (git keeps long names, and this one is decoded back into the key). */
    error = culprit_fs_name(name, key, 0);
    if (error >= 0)
        error = culprit_buf_printf(content, "%s\n", category);
    return error < 0 ? error : 0;
}

static int hex_digit(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                  : -1;
}

int culprit_detect_assignments_decode(culprit_assignments *into, const char *name, const char *data,
                                      size_t len)
{
    culprit_buf key = CULPRIT_BUF_INIT, category = CULPRIT_BUF_INIT, again = CULPRIT_BUF_INIT;
    int error = 0;

    for (const char *p = name; *p && error >= 0; p++) {
        int hi, lo;
        if (*p != '%') {
            error = culprit_buf_put(&key, p, 1);
        } else if ((hi = hex_digit(p[1])) < 0 || (lo = hex_digit(p[2])) < 0 || !(hi | lo)) {
            error = CULPRIT_EINVALID;
        } else {
            char c = (char)(hi * 16 + lo);
            error = culprit_buf_put(&key, &c, 1);
            p += 2;
        }
    }
    /* Only the name encode() writes for the key: anything else is not ours. */
    if (error >= 0 && key.size > 0 &&
        ((error = culprit_fs_name(&again, key.ptr, 0)) < 0 || strcmp(again.ptr, name) != 0))
        error = CULPRIT_EINVALID;
    if (len > 0 && data[len - 1] == '\n')
        len--;
    if (error == CULPRIT_EINVALID || key.size == 0)
        error = culprit_error_set(CULPRIT_EINVALID, "%s: not an encoded test name", name);
    else if (error >= 0 && !valid_category(data, len))
        error =
            culprit_error_set(CULPRIT_EINVALID, "%s: not a category name (one line of text)", name);
    else if (error >= 0 && (error = culprit_buf_put(&category, data, len)) >= 0 &&
             !culprit_detect_assignments_get(into, key.ptr))
        error = culprit_detect_assignments_set(into, key.ptr, category.ptr);
    culprit_buf_dispose(&key);
    culprit_buf_dispose(&category);
    culprit_buf_dispose(&again);
    return error < 0 ? error : 0;
}
