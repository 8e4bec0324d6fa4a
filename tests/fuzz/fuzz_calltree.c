/*
 * libFuzzer target for the call-tree reader (docs/calltree-format.md): any input
 * either fails with CULPRIT_EINVALID or reads into a tree that satisfies the
 * model's invariants and writes out again to a file that reads back to the same
 * text. No crash, leak or undefined behaviour on any input.
 */
#include "culprit/calltree.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    culprit_calltree *tree = NULL, *again = NULL;
    culprit_buf a = CULPRIT_BUF_INIT, b = CULPRIT_BUF_INIT;

    if (culprit_calltree_read_buffer(&tree, (const char *)data, size, "fuzz") == 0) {
        if (!culprit_calltree_check(tree) || culprit_calltree_write_buf(&a, tree) < 0 ||
            culprit_calltree_read_buffer(&again, a.ptr, a.size, "fuzz-again") < 0 ||
            culprit_calltree_write_buf(&b, again) < 0 || a.size != b.size ||
            memcmp(a.ptr, b.ptr, a.size) != 0)
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
