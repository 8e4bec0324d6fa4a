/*
 * The project file, culprit.json, which users check into their repository:
 *
 *   { "categories": [ {"name": "fast", "below": "1ms"},
 *                     {"name": "medium", "below": "100ms"},
 *                     {"name": "slow"} ],
 *     "tests": { "fib_perf.fib_24": {"category": "medium"} },
 *     "history": ".culprit/history",
 *     "build": "cmake --build build", "run": "build/perf_tests --quiet",
 *     "calltree_build": "..." }
 *
 * Every key is optional. Parsed with jansson; every mistake is reported with the
 * file, the key and what is wrong, because a silently ignored setting is worse
 * than a refused one.
 */
#include "culprit/detect.h"
#include "culprit/core.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int culprit_categories__new(culprit_categories **out, size_t n);

struct culprit_project {
    culprit_categories *categories;
    json_t *tests;                             /* object: "suite.test" -> {"category": name} */
    char *history;                             /* resolved against the file's directory */
    char *commands[CULPRIT_PROJECT_NCOMMANDS]; /* "build", "run", "calltree_build" */
    char *fail_on;                             /* "fail_on": what fails, or NULL */
};

/* The keys of the commands, in culprit_detect_project_command's order. */
static const char *const command_keys[CULPRIT_PROJECT_NCOMMANDS] = {"build", "run",
                                                                    "calltree_build"};

int culprit_detect_project_default(culprit_project **out)
{
    culprit_project *p = calloc(1, sizeof(*p));
    int error;

    *out = NULL;
    if (!p)
        return CULPRIT_ERROR_NOMEM();
    if ((error = culprit_detect_categories_default(&p->categories)) < 0) {
        free(p);
        return error;
    }
    *out = p;
    return 0;
}

void culprit_detect_project_free(culprit_project *project)
{
    if (!project)
        return;
    culprit_detect_categories_free(project->categories);
    json_decref(project->tests);
    free(project->history);
    for (int i = 0; i < CULPRIT_PROJECT_NCOMMANDS; i++)
        free(project->commands[i]);
    free(project->fail_on);
    free(project);
}

/* A category's "below": a duration string, or a number of nanoseconds, which is held
 * to the same rules (a number was taken as it was: 1e308 passed). */
static int parse_below(double *out, json_t *below)
{
    char text[64];

    if (json_is_string(below))
        return culprit_detect_parse_duration_ns(out, json_string_value(below));
    if (!json_is_number(below))
        return culprit_error_set(CULPRIT_EINVALID, "%s: a duration such as \"1ms\" is needed",
                                 below ? "not a duration" : "missing");
    snprintf(text, sizeof(text), "%.17gns", json_number_value(below));
    return culprit_detect_parse_duration_ns(out, text);
}

static int parse_categories(culprit_categories **out, json_t *array, const char *path)
{
    size_t n = json_array_size(array), i;
    int error;

    if (!json_is_array(array) || n == 0)
        return culprit_error_set(CULPRIT_EINVALID,
                                 "%s: \"categories\" must be a non-empty array of "
                                 "{\"name\": ..., \"below\": ...}",
                                 path);
    if ((error = culprit_categories__new(out, n)) < 0)
        return error;
    for (i = 0; i < n; i++) {
        json_t *item = json_array_get(array, i);
        json_t *name = json_object_get(item, "name");
        json_t *below = json_object_get(item, "below");
        culprit_category *c = &(*out)->items[i];

        if (!json_is_string(name) || !*json_string_value(name)) {
            error =
                culprit_error_set(CULPRIT_EINVALID, "%s: categories[%zu] has no \"name\"", path, i);
            goto fail;
        }
        /* Refused here, at load time, what a run could not record (issue 23: a line
         * break was accepted, then every run failed to record). */
        if ((error = culprit_detect_category_name_check(json_string_value(name))) < 0) {
            culprit_error_prefix("%s: categories[%zu] \"name\": ", path, i);
            goto fail;
        }
        if (!(c->name = culprit_strdup(json_string_value(name)))) {
            error = CULPRIT_ERROR;
            goto fail;
        }
        for (size_t j = 0; j < i; j++)
            if (strcmp((*out)->items[j].name, c->name) == 0) {
                error = culprit_error_set(CULPRIT_EINVALID, "%s: category \"%s\" is defined twice",
                                          path, c->name);
                goto fail;
            }
        c->low_ns = i ? (*out)->items[i - 1].high_ns : 0;
        if (i == n - 1) {
            if (below && !json_is_null(below)) {
                error = culprit_error_set(CULPRIT_EINVALID,
                                          "%s: the last category \"%s\" must have no \"below\" "
                                          "(it holds everything slower)",
                                          path, c->name);
                goto fail;
            }
            c->high_ns = INFINITY;
            continue;
        }
        if ((error = parse_below(&c->high_ns, below)) < 0) {
            culprit_error_prefix("%s: category \"%s\" \"below\": ", path, c->name);
            goto fail;
        }
        if (!(c->high_ns > c->low_ns)) {
            error = culprit_error_set(CULPRIT_EINVALID,
                                      "%s: categories must be ordered fastest first: \"%s\" ends "
                                      "at or before the previous one",
                                      path, c->name);
            goto fail;
        }
    }
    return 0;
fail:
    culprit_detect_categories_free(*out);
    *out = NULL;
    return error;
}

/* The index of a command key in command_keys, or -1. */
static int command_index(const char *key)
{
    for (int i = 0; i < CULPRIT_PROJECT_NCOMMANDS; i++)
        if (strcmp(key, command_keys[i]) == 0)
            return i;
    return -1;
}

/*
 * The line (1-based) where the top-level key `key` of the object in `text` is
 * written, for messages: jansson keeps no positions of values, and "file:line" is
 * what an editor jumps to. A scan of strings and nesting depth (the document has
 * been parsed already, so it is valid JSON); 1 when not found.
 */
static unsigned key_line(const char *text, size_t len, const char *key)
{
    size_t klen = strlen(key);
    unsigned line = 1, depth = 0;

    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\n')
            line++;
        else if (text[i] == '{' || text[i] == '[')
            depth++;
        else if (text[i] == '}' || text[i] == ']')
            depth--;
        else if (text[i] == '"') {
            size_t start = ++i, j;
            while (i < len && text[i] != '"')
                i += text[i] == '\\' ? 2 : 1;
            if (depth != 1 || i - start != klen || memcmp(text + start, key, klen) != 0)
                continue;
            for (j = i + 1; j < len && strchr(" \t\r\n", text[j]); j++)
                ;
            if (j < len && text[j] == ':')
                return line;
        }
    }
    return 1;
}

/*
 * "build", "run", "calltree_build": shell commands, each a non-empty string that is
 * not only blanks. A mistake names the file and the key's line.
 */
static int parse_commands(culprit_project *p, json_t *root, const char *text, size_t len,
                          const char *path)
{
    for (int i = 0; i < CULPRIT_PROJECT_NCOMMANDS; i++) {
        json_t *value = json_object_get(root, command_keys[i]);
        const char *cmd = json_string_value(value);
        if (!value)
            continue;
        if (!cmd || !cmd[strspn(cmd, " \t\r\n")])
            return culprit_error_set(CULPRIT_EINVALID,
                                     "%s:%u: \"%s\" must be a shell command, a non-empty string "
                                     "(as culprit bisect --%s takes)",
                                     path, key_line(text, len, command_keys[i]), command_keys[i],
                                     i == CULPRIT_PROJECT_CALLTREE_BUILD ? "calltree-build"
                                                                         : command_keys[i]);
        if (!(p->commands[i] = culprit_strdup(cmd)))
            return CULPRIT_ERROR_NOMEM();
    }
    return 0;
}

/* "fail_on": the default of --fail-on for `culprit check` and the test binaries, one
 * of check's values. */
static int parse_fail_on(culprit_project *p, json_t *root, const char *text, size_t len,
                         const char *path)
{
    json_t *value = json_object_get(root, "fail_on");
    const char *s = json_string_value(value);
    culprit_fail_on fail_on;

    if (!value)
        return 0;
    if (culprit_detect_fail_on_parse(s, &fail_on) == 0)
        return (p->fail_on = culprit_strdup(s)) ? 0 : CULPRIT_ERROR_NOMEM();
    return culprit_error_set(CULPRIT_EINVALID,
                             "%s:%u: \"fail_on\" must be \"major\", \"minor\", \"none\" or "
                             "\"uncompared\" (as culprit check --fail-on takes)",
                             path, key_line(text, len, "fail_on"));
}

int culprit_detect_project_load(culprit_project **out, const char *path)
{
    culprit_buf text = CULPRIT_BUF_INIT;
    int error;

    *out = NULL;
    if ((error = culprit_fs_read_file(&text, path)) == 0)
        error = culprit_detect_project_parse(out, text.ptr ? text.ptr : "", text.size, path);
    culprit_buf_dispose(&text);
    return error;
}

int culprit_detect_project_parse(culprit_project **out, const char *text, size_t len,
                                 const char *path)
{
    culprit_project *p = NULL;
    json_t *root = NULL, *value;
    json_error_t jerr;
    const char *key;
    int error = 0;

    *out = NULL;
    if (!(root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr))) {
        error = culprit_error_set(CULPRIT_EINVALID, "%s:%d:%d: not valid JSON: %s", path, jerr.line,
                                  jerr.column, jerr.text);
        goto cleanup;
    }
    if (!json_is_object(root)) {
        error = culprit_error_set(CULPRIT_EINVALID, "%s: must hold a JSON object", path);
        goto cleanup;
    }
    if (!(p = calloc(1, sizeof(*p)))) {
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    json_object_foreach(root, key, value)
    {
        if (strcmp(key, "categories") && strcmp(key, "tests") && strcmp(key, "history") &&
            strcmp(key, "fail_on") && command_index(key) < 0) {
            error = culprit_error_set(CULPRIT_EINVALID,
                                      "%s:%u: unknown key \"%s\" (known: categories, tests, "
                                      "history, build, run, calltree_build, fail_on)",
                                      path, key_line(text, len, key), key);
            goto cleanup;
        }
    }
    if ((value = json_object_get(root, "categories")))
        error = parse_categories(&p->categories, value, path);
    else
        error = culprit_detect_categories_default(&p->categories);
    if (error < 0)
        goto cleanup;
    if ((value = json_object_get(root, "tests"))) {
        json_t *entry;
        if (!json_is_object(value)) {
            error = culprit_error_set(CULPRIT_EINVALID,
                                      "%s: \"tests\" must be an object of \"suite.test\": "
                                      "{\"category\": name}",
                                      path);
            goto cleanup;
        }
        json_object_foreach(value, key, entry)
        {
            json_t *cat = json_object_get(entry, "category");
            if (!json_is_string(cat) ||
                !culprit_detect_categories_find(p->categories, json_string_value(cat))) {
                error = culprit_error_set(CULPRIT_EINVALID,
                                          "%s: tests.\"%s\".category must name one of the "
                                          "categories",
                                          path, key);
                goto cleanup;
            }
        }
        p->tests = json_incref(value);
    }
    if ((value = json_object_get(root, "history"))) {
        const char *dir = json_string_value(value);
        if (!dir || !*dir) {
            error = culprit_error_set(CULPRIT_EINVALID, "%s: \"history\" must be a path", path);
            goto cleanup;
        }
        if (dir[0] == '/') {
            p->history = culprit_strdup(dir);
        } else {
            /* Relative to the project file, so it means the same from any directory. */
            const char *slash = strrchr(path, '/');
            culprit_buf b = CULPRIT_BUF_INIT;
            if (slash)
                culprit_buf_put(&b, path, (size_t)(slash - path + 1));
            culprit_buf_puts(&b, dir);
            p->history = culprit_buf_detach(&b);
        }
        if (!p->history) {
            error = CULPRIT_ERROR;
            goto cleanup;
        }
    }
    if ((error = parse_commands(p, root, text, len, path)) < 0 ||
        (error = parse_fail_on(p, root, text, len, path)) < 0)
        goto cleanup;
    *out = p;
    p = NULL;
cleanup:
    culprit_detect_project_free(p);
    json_decref(root);
    return error;
}

const culprit_categories *culprit_detect_project_categories(const culprit_project *project)
{
    return project->categories;
}

const char *culprit_detect_project_test_category(const culprit_project *project, const char *key)
{
    return json_string_value(json_object_get(json_object_get(project->tests, key), "category"));
}

const char *culprit_detect_project_history_dir(const culprit_project *project)
{
    return project->history;
}

const char *culprit_detect_project_fail_on(const culprit_project *project)
{
    return project->fail_on;
}

const char *culprit_detect_project_command(const culprit_project *project,
                                           culprit_project_command_kind which)
{
    if (!project || (int)which < 0 || which >= CULPRIT_PROJECT_NCOMMANDS)
        return NULL;
    return project->commands[which];
}
