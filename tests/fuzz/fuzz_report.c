/*
 * libFuzzer target for the readers of the commands' JSON documents the report
 * loads (framework/bisect/bisect_json_read.c, framework/calltree/calltree_json_read.c, through
 * framework/report/load.c): the first byte picks the reader (bisect, calltree
 * diff, overweight), the rest is the document. Whatever a reader accepts is then
 * rendered in every format, so the renderers see every shape the readers let
 * through (parent indices, line ranges, missing fields). A reader may refuse the
 * input; it must not crash, leak or leave a half-built report.
 */
#include "culprit/report.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    culprit_report *report = NULL;
    FILE *f;

    if (size < 1)
        return 0;
    if (!path[0])
        snprintf(path, sizeof(path), "/tmp/culprit-fuzz-report-%d.json", (int)getpid());
    if (!(f = fopen(path, "wb")))
        return 0;
    fwrite(data + 1, 1, size - 1, f);
    fclose(f);
    if (culprit_report_new(&report) < 0)
        return 0;
    switch (data[0] % 3) {
    case 0:
        culprit_report_load_bisect(report, path);
        break;
    case 1:
        culprit_report_load_calltree(report, path);
        break;
    default:
        culprit_report_load_overweight(report, path);
    }
    for (int format = CULPRIT_REPORT_HTML; format <= CULPRIT_REPORT_TEXT; format++) {
        culprit_buf out = CULPRIT_BUF_INIT;
        culprit_report_render(&out, report, (culprit_report_format)format);
        culprit_buf_dispose(&out);
    }
    culprit_report_free(report);
    return 0;
}
