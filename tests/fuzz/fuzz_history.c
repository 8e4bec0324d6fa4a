/*
 * libFuzzer target for the history reader, the parser of files that may come
 * from anywhere. Each input is read twice, summaries-only (which takes the
 * sample-skipping path when the shape allows) and with samples, and whatever
 * parses must format again: no crash, leak or undefined behaviour on any input.
 */
#include "culprit/history.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const unsigned int modes[] = {0, CULPRIT_HISTORY_LOAD_SAMPLES};

    for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
        culprit_run *run = NULL;
        culprit_buf out = CULPRIT_BUF_INIT;

        if (culprit_history_read_memory(&run, (const char *)data, size, "fuzz", modes[i]) == 0) {
            /* With samples, what was read must be writable again. */
            if (modes[i] && culprit_history_format(&out, run) < 0 &&
                culprit_error_last_code() != CULPRIT_EINVALID)
                __builtin_trap();
        }
        culprit_buf_dispose(&out);
        culprit_history_run_free(run);
    }
    return 0;
}
