/*
 * Perf tests of the journal example: a load test that handles requests for two
 * seconds (the runner's --duration changes that), one sample every 50 ms, the
 * warm-up cut by MSER (docs/measure.md). Every sample carries the counters --
 * write_bytes among them -- that `culprit check --detector=time,clusters,rules`
 * judges (docs/counters.md).
 *
 * The number of copies per record comes from JOURNAL_CONFIG when set, otherwise from
 * the journal.conf the build passed as JOURNAL_CONFIG_FILE.
 */
#include <culprit/culprit.h>

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "journal.h"

#ifndef JOURNAL_CONFIG_FILE
#define JOURNAL_CONFIG_FILE "journal.conf"
#endif

typedef struct {
    int in, fd;
    unsigned int copies;
    uint64_t seq;
} journal_fixture;

static int open_journal(void **state)
{
    const char *env = getenv("JOURNAL_CONFIG");
    const char *path = env && *env ? env : JOURNAL_CONFIG_FILE;
    journal_fixture *fx = calloc(1, sizeof(*fx));
    journal_settings settings;

    if (!fx)
        return -1;
    if (journal_config_read(path, &settings) < 0) {
        print_error("cannot read 'copies = <1..>' from %s\n", path);
        free(fx);
        return -1;
    }
    fx->copies = settings.copies;
    if ((fx->in = open("/dev/zero", O_RDONLY)) < 0) {
        free(fx);
        return -1;
    }
    if ((fx->fd = open("/dev/null", O_WRONLY)) < 0) {
        close(fx->in);
        free(fx);
        return -1;
    }
    *state = fx;
    return 0;
}

static int close_journal(void **state)
{
    journal_fixture *fx = *state;
    close(fx->in);
    close(fx->fd);
    free(fx);
    return 0;
}

/* One request per call. */
static void journal_load(void **state)
{
    journal_fixture *fx = *state;
    assert_true(journal_handle(fx->in, fx->fd, fx->seq++, fx->copies) != 0);
}

int main(int argc, char **argv)
{
    static const culprit_perf_test tests[] = {
        culprit_perf_test(journal_load, .setup = open_journal, .teardown = close_journal,
                          .duration_s = 2, .interval_s = 0.05),
    };
    return culprit_run_group(tests, argc, argv);
}
