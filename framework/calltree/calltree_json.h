/*
 * The --json documents inside the library. Writing: the JSON objects of the
 * call-tree analyses, for the writers of other modules (the bisection embeds the
 * diff of the culprit's tree in its document, framework/bisect/bisect_json.c).
 * Reading: what the readers of the commands' documents share (reading a document
 * and checking its "command", the lenient field getters: the first of several
 * keys that has the right type; a missing field is unknown, not an error). The
 * call-tree module owns them because it is the lowest module that writes or reads
 * a document; the bisection's reader (framework/bisect/bisect_json_read.c) uses
 * them. jansson stays out of the public headers; only library files include this.
 */
#ifndef CULPRIT_CALLTREE_JSON_H
#define CULPRIT_CALLTREE_JSON_H

#include "culprit/calltree.h"

#include <jansson.h>

/*
 * The object of a diff (docs/cli.md, "culprit calltree diff"): options, pairs
 * compared and the ranked suspects with their paths and marks. NULL when out of
 * memory; the caller owns the reference.
 */
json_t *culprit_calltree__diff_json(const culprit_calltree_diff *diff);

/* A JSON number of `x`, or null for NaN and the infinities (JSON has neither). NULL
 * only when out of memory. */
json_t *culprit_calltree__json_double(double x);
/* A JSON string of `s` (a name, a subject: data), or null for NULL: a byte that is not
 * UTF-8 as \xNN (culprit_text_utf8()), since jansson refuses it and the key went
 * missing. NULL only when out of memory. */
json_t *culprit_calltree__json_text(const char *s);
/* Prints `doc` into `out` as every culprit document is printed (indented, keys in
 * insertion order, 12 significant digits, a final newline) and frees it. */
int culprit_calltree__json_put(culprit_buf *out, json_t *doc);

/* Reads `path` as the document of `culprit COMMAND --json`. CULPRIT_ENOTFOUND when
 * the file does not exist; CULPRIT_EINVALID naming the file when it is not JSON or
 * its "command" is not `command`. The caller json_decref()s *out. */
int culprit_calltree__json_load(json_t **out, const char *path, const char *command);

/* The first of `keys` (NULL-terminated) that is a number, else NAN. */
double culprit_calltree__json_number_of(const json_t *o, const char *const *keys);
double culprit_calltree__json_number(const json_t *o, const char *key);
/* A non-negative count; 0 when missing or not a positive number. */
size_t culprit_calltree__json_count(const json_t *o, const char *key);
/* A copy of the first of `keys` that is a string; *out NULL when none. */
int culprit_calltree__json_string_of(char **out, const json_t *o, const char *const *keys);
int culprit_calltree__json_string(char **out, const json_t *o, const char *key);
/* A sha: the string's first 40 characters; "" when missing. */
void culprit_calltree__json_sha(char out[41], const json_t *o, const char *key);

/* The call-tree part of `doc`: a calltree diff document, or the "calltree" object
 * `culprit bisect --calltree --json` embeds (with "parent" and "error"). Errors
 * name `path`. */
int culprit_calltree__view_read(culprit_calltree_view **out, const json_t *doc, const char *path);

#endif
