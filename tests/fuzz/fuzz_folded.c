/*
 * libFuzzer target for the folded-stack reader (framework/calltree/folded.c): any
 * input either fails with CULPRIT_EINVALID or reads into a tree that satisfies the
 * model's invariants, whose folded form reads back to a tree written the same way
 * (the round trip `culprit calltree fold` promises). Writing turns ';' and control
 * characters in names into ',' and '?', one way, so two names that differ only
 * there become one: the text is stable from the second writing on. No crash, leak
 * or undefined behaviour on any input.
 */
#include "culprit/calltree.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Parses `text` and writes it folded into `out`: 0, or -1 when either step fails. */
static int round_trip(culprit_buf *out, const char *text, size_t len)
{
    culprit_calltree *tree = NULL;
    int ok = culprit_calltree_parse_folded(&tree, text, len, "fuzz-again") == 0 &&
             culprit_calltree_check(tree) && culprit_calltree_write_folded(out, tree) == 0;

    culprit_calltree_free(tree);
    return ok ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    culprit_calltree *tree = NULL;
    culprit_buf a = CULPRIT_BUF_INIT, b = CULPRIT_BUF_INIT, c = CULPRIT_BUF_INIT;

    if (culprit_calltree_parse_folded(&tree, (const char *)data, size, "fuzz") == 0) {
        if (!culprit_calltree_check(tree) || culprit_calltree_write_folded(&a, tree) < 0 ||
            round_trip(&b, a.ptr ? a.ptr : "", a.size) < 0 ||
            round_trip(&c, b.ptr ? b.ptr : "", b.size) < 0 || b.size != c.size ||
            (b.size && memcmp(b.ptr, c.ptr, b.size) != 0))
            __builtin_trap();
    } else if (culprit_error_last_code() != CULPRIT_EINVALID) {
        __builtin_trap();
    }
    culprit_calltree_free(tree);
    culprit_buf_dispose(&a);
    culprit_buf_dispose(&b);
    culprit_buf_dispose(&c);
    return 0;
}
