/*
 * libFuzzer target for the project file reader (culprit.json, framework/detect/
 * project.c): a file from the user's repository, or from a pull request. Any input
 * either fails with CULPRIT_EINVALID or gives a project whose categories classify
 * durations consistently (contiguous, increasing limits) and whose per-test entries
 * name one of them. No crash, leak or undefined behaviour on any input.
 */
#include "culprit/detect.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    culprit_project *p = NULL;

    if (culprit_detect_project_parse(&p, (const char *)data, size, "fuzz/culprit.json") == 0) {
        const culprit_categories *c = culprit_detect_project_categories(p);
        const double probes[] = {0, 1, 1e3, 1e6, 1e9, 1e12, INFINITY};
        for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
            if (isfinite(probes[i]) && !culprit_detect_categories_classify(c, probes[i]))
                __builtin_trap(); /* every finite duration has a category */
        culprit_detect_project_test_category(p, "suite.test");
    } else if (culprit_error_last_code() != CULPRIT_EINVALID) {
        __builtin_trap();
    }
    culprit_detect_project_free(p);
    return 0;
}
