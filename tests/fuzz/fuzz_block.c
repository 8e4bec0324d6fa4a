/*
 * libFuzzer target for the culprit block of a history file (framework/history/
 * block.c): the line-oriented text inside each <system-out>, holding every field,
 * the series and their samples. fuzz_history reaches it only through XML; this
 * target gives it the block text directly, summaries-only and with samples, with
 * inputs up to the raised cap (deep and long lines). Any input either fails with
 * CULPRIT_EINVALID or gives a result whose series hold the announced counts.
 */
#include "culprit/history.h"
#include "history/history_internal.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const unsigned int modes[] = {0, CULPRIT_HISTORY_LOAD_SAMPLES};

    for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
        culprit_run *run = NULL;
        culprit_test_result *t;
        if (culprit_history_run_new(&run) < 0 || culprit_history_run_add_test(&t, run) < 0)
            __builtin_trap();
        if (culprit_history__block_parse(t, (const char *)data, size, modes[m]) == 0) {
            for (size_t i = 0; i < t->nseries; i++)
                if (modes[m] && !t->series[i].absent && t->series[i].n && !t->series[i].values)
                    __builtin_trap(); /* with samples, an announced series has its values */
        } else if (culprit_error_last_code() != CULPRIT_EINVALID &&
                   culprit_error_last_code() != CULPRIT_ERROR) {
            __builtin_trap();
        }
        culprit_history_run_free(run);
    }
    return 0;
}
