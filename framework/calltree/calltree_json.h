/*
 * The JSON objects of the call-tree analyses, for the writers of other modules
 * inside the library: the bisection embeds the diff of the culprit's tree in its
 * document (framework/bisect/bisect_json.c). jansson stays out of the public
 * headers; only library files include this one.
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

/* Prints `doc` into `out` as every culprit document is printed (indented, keys in
 * insertion order, 12 significant digits, a final newline) and frees it. */
int culprit_calltree__json_put(culprit_buf *out, json_t *doc);

#endif
