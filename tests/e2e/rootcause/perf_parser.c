/* The perf test of the configuration parser (root-cause case (e)). */
#include <culprit/culprit.h>
#include <stdio.h>
#include <stdlib.h>

#include "parser.h"

static char text[1 << 16];

static int make_text(void **state)
{
    size_t n = 0;
    (void)state;
    for (int s = 0; s < 8; s++) {
        n += (size_t)snprintf(text + n, sizeof(text) - n, "[section%d]\n", s);
        for (int e = 0; e < 12; e++)
            n += (size_t)snprintf(
                text + n, sizeof(text) - n,
                "key%d = \"a longer value, with \\\"quotes\\\", commas and spaces: entry %d\"\n", e,
                e);
    }
    return 0;
}

static void parse_config_file(void **state)
{
    struct config c;
    (void)state;
    assert_int_equal(parse_config(&c, text), 0);
    assert_int_equal(c.entries, 96);
}

int main(int argc, char **argv)
{
    static const culprit_perf_test tests[] = {
        culprit_perf_test(parse_config_file, .setup = make_text, .repetitions = 20),
    };
    return culprit_run_group_name("parser", tests, argc, argv);
}
