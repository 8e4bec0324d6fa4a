/*
 * libFuzzer target for the folded-stack reader (framework/calltree/folded.c): any
 * input either fails with CULPRIT_EINVALID or reads into a tree that satisfies the
 * model's invariants, whose folded form reads back to a tree written the same way
 * (the round trip `culprit calltree fold` promises). No crash, leak or undefined
 * behaviour on any input.
 */
#include "culprit/calltree.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    culprit_calltree *tree = NULL, *again = NULL;
    culprit_buf a = CULPRIT_BUF_INIT, b = CULPRIT_BUF_INIT;

    if (culprit_calltree_parse_folded(&tree, (const char *)data, size, "fuzz") == 0) {
        if (!culprit_calltree_check(tree) || culprit_calltree_write_folded(&a, tree) < 0 ||
            culprit_calltree_parse_folded(&again, a.ptr ? a.ptr : "", a.size, "fuzz-again") < 0 ||
            !culprit_calltree_check(again) || culprit_calltree_write_folded(&b, again) < 0 ||
            a.size != b.size || (a.size && memcmp(a.ptr, b.ptr, a.size) != 0))
            __builtin_trap();
    } else if (culprit_error_last_code() != CULPRIT_EINVALID) {
        __builtin_trap();
    }
    culprit_calltree_free(tree);
    culprit_calltree_free(again);
    culprit_buf_dispose(&a);
    culprit_buf_dispose(&b);
    return 0;
}
