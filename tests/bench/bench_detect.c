/*
 * Benchmark of regression detection (framework/detect) on real measurements, for the
 * "Quality figures" of issue 3 (docs/detection-quality.md has the method and figures):
 *
 *   1. A/A: the example suites (fib_perf, sort_perf) run on unchanged code, one
 *      empty commit per run, each run checked against the previous run's commit:
 *      false alarms (minor + major) per test-run, and majors (there must be none);
 *   2. power: the Fibonacci example slowed by 5%, 10% and 50% through its
 *      configuration (calls 20 -> 21, 22, 30 fib(n) per repetition of fib_config and
 *      fib_adaptive), the slowed commit checked against the base commit just before:
 *      the detection rate of those two tests, and alarms on the unchanged controls;
 *   3. the same loaded summaries judged by the paper's plain test (Heger et al. 2013,
 *      section 3: one-way ANOVA at 99% between the two revisions, any significant
 *      slowdown is a regression; no practical threshold, no FDR), side by side; both
 *      on all samples and on the "judged" ones inside Tukey's severe fences, which
 *      our verdicts use, so the effects of trimming and of threshold + FDR show apart.
 *
 * Everything happens in a temporary git repository, so every run is at its own
 * commit and the runner detects it as a user's would. The test binaries run with
 * their default settings (`--fail-on none --quiet`, nothing overridden).
 *
 *     bench_detect                   20 A/A checks, 20 trials per slowdown (minutes)
 *     bench_detect --quick           3 A/A checks, 1 trial (ctest, label "bench")
 *     bench_detect --aa N --trials N --keep --default-categories --verbose
 *
 * Exit status: 0 figures printed (the goals are judged by a human, not here), 1 a
 * MAJOR verdict in A/A (noise must never raise one: that is a bug), 2 usage error or
 * a hard error (git or a test binary failed, timed out or was interrupted).
 */
#define _GNU_SOURCE /* nftw */

#include "culprit/core.h"
#include "culprit/detect.h"
#include "culprit/history.h"
#include "culprit/stats.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef FIB_PERF
#error "build with -DFIB_PERF=<path of fib_perf>"
#endif
#ifndef SORT_PERF
#error "build with -DSORT_PERF=<path of sort_perf>"
#endif

/* n = 22 with 20 calls makes fib_config and fib_adaptive about 1 ms per repetition
 * here: the goal is stated for tests of 1 ms or more. */
#define FIB_N      22
#define BASE_CALLS 20

/* A git command takes milliseconds; a test binary a second or two (fib_adaptive has
 * a 1 s budget). The limits only catch a hung child, so they are generous. */
#define GIT_TIMEOUT_S   60
#define SUITE_TIMEOUT_S 300
#define POLL_NS         20000000L /* 20 ms between checks of a running child */

/* The plain test's level: Heger et al. 2013 judge at 99% confidence. */
#define PLAIN_ALPHA 0.01

/* Unchanged runs before each slowed run of a power trial. The run-to-run noise model
 * learns a test's spread from its recent runs (at least 4): a history that alternates
 * base and slowed runs, trial after trial, would teach it the very effect it is asked
 * to detect. Real histories have long stretches of unchanged code. */
#define BASE_RUNS 4

/* A/A checks after this many earlier runs are where the noise model is active. */
#define NOISE_MIN_RUNS 4

#define NSLOWDOWNS 3
static const struct {
    const char *label;
    unsigned int calls;
} slowdowns[NSLOWDOWNS] = {{"5%", 21}, {"10%", 22}, {"50%", 30}};

/* The tests the configuration slows (>= 1 ms each); every other test is a control. */
#define NTARGETS 2
static const char *const targets[NTARGETS] = {"fib_perf.fib_config", "fib_perf.fib_adaptive"};

/* The default categories put "fast" below 1 ms, and fib_config declares .category =
 * "fast": at ~1 ms it would be a category MAJOR on every run, which says nothing about
 * noise. The temporary project widens the categories so that a major can only come
 * from a real bug; --default-categories leaves them as they are. */
static const char project_json[] = "{\n"
                                   "  \"categories\": [\n"
                                   "    {\"name\": \"fast\", \"below\": \"10ms\"},\n"
                                   "    {\"name\": \"medium\", \"below\": \"1s\"},\n"
                                   "    {\"name\": \"slow\"}\n"
                                   "  ]\n"
                                   "}\n";

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

/* ------------------------------------------------------------ the sandbox --- */

typedef struct {
    char root[4096]; /* the temporary directory, removed at the end */
    char *repo;      /* root/repo: the git repository the suites run in */
    char *history;   /* root/history: outside the work tree, so it stays clean */
    char *log;       /* root/child.log: output of the last child */
    char *conf;      /* repo/fib.conf */
} sandbox;

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int fail(const char *fmt, ...)
{
    va_list ap;

    fputs("bench_detect: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return -1;
}

/* Prints the captured output of the last child, for a failure message. */
static void show_log(const sandbox *sb)
{
    culprit_buf text = CULPRIT_BUF_INIT;

    if (culprit_fs_read_file(&text, sb->log) == 0 && text.size)
        fprintf(stderr, "---- output ----\n%s---- end ----\n", text.ptr);
    culprit_buf_dispose(&text);
}

/*
 * Runs argv[0] (searched in PATH) in `cwd` with stdout and stderr going to the
 * sandbox's log, FIB_CONFIG set and the variables that would override what the
 * runner detects unset. The child leads its own process group, so a timeout or an
 * interrupt kills whatever it started too. Returns the exit status (>= 0), or -1
 * when it could not start, was killed by a signal, timed out or was interrupted.
 */
static int run_child(const sandbox *sb, const char *const *argv, int timeout_s)
{
    struct timespec start, now, pause = {0, POLL_NS};
    int status = 0;
    pid_t pid;

    fflush(stdout);
    fflush(stderr);
    clock_gettime(CLOCK_MONOTONIC, &start);
    if ((pid = fork()) < 0)
        return fail("fork: %s", strerror(errno));
    if (pid == 0) {
        int out = open(sb->log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int in = open("/dev/null", O_RDONLY);

        setpgid(0, 0);
        if (out < 0 || in < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0 ||
            chdir(sb->repo) < 0)
            _exit(126);
        close(out);
        close(in);
        /* What would make the runner record another commit or history, or git look
         * at another repository. */
        static const char *const unset[] = {
            "CULPRIT_COMMIT", "CULPRIT_BRANCH", "CULPRIT_HISTORY_DIR",    "GIT_DIR",
            "GIT_WORK_TREE",  "GIT_INDEX_FILE", "GIT_CEILING_DIRECTORIES"};
        for (size_t i = 0; i < sizeof(unset) / sizeof(unset[0]); i++)
            unsetenv(unset[i]);
        setenv("FIB_CONFIG", sb->conf, 1);
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    setpgid(pid, pid); /* also here: no window in which a kill would miss the group */
    for (;;) {
        pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid)
            break;
        if (done < 0 && errno != EINTR) {
            fail("waitpid: %s", strerror(errno));
            kill(-pid, SIGKILL);
            return -1;
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (interrupted || now.tv_sec - start.tv_sec > timeout_s) {
            kill(-pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
            show_log(sb);
            return fail("%s %s", argv[0],
                        interrupted ? "interrupted" : "timed out: killed it and its children");
        }
        nanosleep(&pause, NULL);
    }
    if (WIFSIGNALED(status)) {
        show_log(sb);
        return fail("%s killed by signal %d", argv[0], WTERMSIG(status));
    }
    if (WEXITSTATUS(status) == 126 || WEXITSTATUS(status) == 127) {
        show_log(sb);
        return fail("cannot run %s in %s (exit %d)", argv[0], sb->repo, WEXITSTATUS(status));
    }
    return WEXITSTATUS(status);
}

/* git with a fixed identity and no signing, whatever the user's configuration; the
 * arguments end with NULL. */
static int git(const sandbox *sb, ...)
{
    const char *argv[16] = {
        "git", "-c", "user.name=b", "-c", "user.email=b@e", "-c", "commit.gpgsign=false"};
    size_t n = 7;
    va_list ap;
    int rc;

    va_start(ap, sb);
    while (n < 15 && (argv[n] = va_arg(ap, const char *)) != NULL)
        n++;
    va_end(ap);
    argv[n] = NULL;
    if ((rc = run_child(sb, argv, GIT_TIMEOUT_S)) > 0) {
        show_log(sb);
        return fail("git %s failed (exit %d)", argv[7], rc);
    }
    return rc;
}

static int write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    int ok = f && fputs(text, f) >= 0;

    if (f && fclose(f) != 0)
        ok = 0;
    return ok ? 0 : fail("cannot write %s: %s", path, strerror(errno));
}

static int write_conf(const sandbox *sb, unsigned int calls)
{
    char text[128];

    snprintf(text, sizeof(text), "n = %d\ncalls = %u\n", FIB_N, calls);
    return write_text(sb->conf, text);
}

/* Commits the work tree (possibly unchanged) and reads the new HEAD into sha. */
static int commit(const sandbox *sb, const char *message, char sha[41])
{
    culprit_buf text = CULPRIT_BUF_INIT;
    int error;

    if ((error = git(sb, "commit", "-q", "-a", "--allow-empty", "-m", message, NULL)) < 0)
        return error;
    if ((error = git(sb, "rev-parse", "HEAD", NULL)) < 0)
        return error;
    if (culprit_fs_read_file(&text, sb->log) < 0 || text.size < 40) {
        culprit_buf_dispose(&text);
        return fail("cannot read the commit from git rev-parse");
    }
    memcpy(sha, text.ptr, 40);
    sha[40] = '\0';
    culprit_buf_dispose(&text);
    return 0;
}

/* Runs both example suites at the current commit into the sandbox's history. */
static int run_suites(const sandbox *sb)
{
    static const char *const binaries[] = {FIB_PERF, SORT_PERF};

    for (size_t i = 0; i < 2; i++) {
        const char *argv[] = {binaries[i], "--history", sb->history, "--fail-on",
                              "none",      "--quiet",   NULL};
        int rc = run_child(sb, argv, SUITE_TIMEOUT_S);

        if (rc < 0)
            return rc;
        if (rc == 1) {
            /* A test failed or errored: its verdict is "not-run"; carry on. */
            fprintf(stderr, "bench_detect: warning: %s reported a failed test\n", binaries[i]);
            show_log(sb);
        } else if (rc != 0) {
            show_log(sb);
            return fail("%s exited with %d", binaries[i], rc);
        }
    }
    return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    if (remove(path) < 0)
        fprintf(stderr, "bench_detect: cannot remove %s: %s\n", path, strerror(errno));
    return 0;
}

static void sandbox_dispose(sandbox *sb, int keep)
{
    if (sb->root[0]) {
        if (keep)
            printf("kept %s\n", sb->root);
        else
            nftw(sb->root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    }
    free(sb->repo);
    free(sb->history);
    free(sb->log);
    free(sb->conf);
}

static int sandbox_init(sandbox *sb, int default_categories)
{
    const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char sha[41];
    char *project = NULL;
    int error;

    snprintf(sb->root, sizeof(sb->root), "%s/culprit-bench-detect-XXXXXX", tmp);
    if (!mkdtemp(sb->root)) {
        error = fail("cannot create %s: %s", sb->root, strerror(errno));
        sb->root[0] = '\0';
        return error;
    }
    if (!(sb->repo = culprit_fs_join(sb->root, "repo")) ||
        !(sb->history = culprit_fs_join(sb->root, "history")) ||
        !(sb->log = culprit_fs_join(sb->root, "child.log")) ||
        !(sb->conf = culprit_fs_join(sb->repo, "fib.conf")) ||
        !(project = culprit_fs_join(sb->repo, "culprit.json")))
        return fail("out of memory");
    if (mkdir(sb->repo, 0777) < 0 || mkdir(sb->history, 0777) < 0) {
        free(project);
        return fail("cannot create directories in %s: %s", sb->root, strerror(errno));
    }
    error = git(sb, "-c", "init.defaultBranch=main", "init", "-q", NULL);
    if (!error && !default_categories)
        error = write_text(project, project_json);
    free(project);
    if (!error)
        error = write_conf(sb, BASE_CALLS);
    if (!error)
        error = git(sb, "add", "-A", NULL);
    if (!error)
        error = commit(sb, "base", sha);
    return error;
}

/* ----------------------------------------------------------- the figures --- */

/*
 * The judges compared on the same loaded data:
 *   OURS        culprit_detect_check with default options, as shipped (it judges each
 *               result's "judged" summary, the samples inside Tukey's severe fences);
 *   OURS_ALL    the same check on every sample (the judged summaries cleared, so the
 *               verdicts fall back to the full summary): what trimming changes;
 *   PLAIN       the paper's plain test on every sample: one-way ANOVA at 99% between
 *               the two revisions, a regression whenever significant and slower;
 *   PLAIN_JUDGED the plain test on the judged summaries: what threshold + FDR change.
 */
enum { OURS, OURS_ALL, PLAIN, PLAIN_JUDGED, NJUDGES };
static const char *const judge_names[NJUDGES] = {
    "ours (99%, 2%, BH 5%), as shipped", "ours on all samples (no trimming)",
    "plain ANOVA 99%, all samples", "plain ANOVA 99%, judged samples"};

/* The tests the configuration slows are GROUP 0 and 1 (targets[]); 2 is the controls. */
#define NGROUPS  3
#define CONTROLS 2

/* Verdicts of one group of tests under one condition, by one judge. */
typedef struct {
    size_t judged;   /* test-runs compared */
    size_t alarms;   /* ours: minor or major; plain: significant and slower */
    size_t majors;   /* ours: major */
    size_t kinds[8]; /* ours: verdicts by culprit_verdict_kind */
} tally;

/* Per condition (A/A, or one slowdown): a tally per judge and group, and the trials in
 * which both slowed tests were flagged. */
typedef struct {
    tally t[NJUDGES][NGROUPS];
    size_t both[NJUDGES];
    double *changes; /* measured change of each slowed test, for the median */
    size_t nchanges, achanges;
} condition;

static int add_change(condition *c, double x)
{
    if (!isfinite(x))
        return 0;
    if (c->nchanges == c->achanges) {
        size_t cap = c->achanges ? 2 * c->achanges : 64;
        double *grown = realloc(c->changes, cap * sizeof(double));
        if (!grown)
            return fail("out of memory");
        c->changes = grown;
        c->achanges = cap;
    }
    c->changes[c->nchanges++] = x;
    return 0;
}

/* The median: the mean would be one interference spike's. */
static double median_change(condition *c)
{
    if (c->nchanges == 0)
        return NAN;
    culprit_stats_sort(c->changes, c->nchanges);
    return culprit_stats_quantile_sorted(c->changes, c->nchanges, 0.5);
}

static int group_of(const char *key)
{
    for (int i = 0; i < NTARGETS; i++)
        if (strcmp(key, targets[i]) == 0)
            return i;
    return CONTROLS;
}

/* The summary the shipped verdicts judge: the judged one when recorded. */
static const culprit_summary *judged_of(const culprit_test_result *t)
{
    return t->judged.n >= 2 ? &t->judged : &t->summary;
}

/*
 * The paper's plain test (Heger et al. 2013, section 3): one-way ANOVA between the
 * two revisions at 99%, a regression whenever it is significant and the mean grew; on
 * every sample, or on the judged ones. Sets *out to 1 (regression) or 0, *compared to
 * whether there was something to compare. Returns 0 or -1 on error.
 */
static int plain_regression(int *out, int *compared, const culprit_history_runs *runs,
                            const culprit_run *run, const culprit_test_result *now,
                            const char *base_commit, int judged)
{
    const char *const commits[1] = {base_commit};
    culprit_baseline base;
    culprit_welford groups[2];
    culprit_anova anova;
    int rc;

    *out = *compared = 0;
    if (!culprit_history_test_result_measured(now) || now->summary.n == 0)
        return 0;
    if (culprit_detect_baseline(&base, runs, run->suite, now->name, commits, 1, 1) < 0)
        return fail("baseline of %s: %s", now->name, culprit_error_last());
    if (base.n == 1) {
        const culprit_test_result *b = base.results[0];
        culprit_stats_welford_from_summary(&groups[0], judged ? judged_of(b) : &b->summary);
        culprit_stats_welford_from_summary(&groups[1], judged ? judged_of(now) : &now->summary);
        rc = culprit_stats_anova(&anova, groups, 2);
        if (rc < 0 && rc != CULPRIT_EUNDECIDED) {
            culprit_detect_baseline_dispose(&base);
            return fail("anova of %s: %s", now->name, culprit_error_last());
        }
        *compared = 1;
        *out = rc == 0 && anova.p < PLAIN_ALPHA && groups[1].mean > groups[0].mean;
    }
    culprit_detect_baseline_dispose(&base);
    return 0;
}

/*
 * Judges commit `now` against `base` with our check (as judge OURS or OURS_ALL, as
 * the runs are) and, for OURS, the two plain tests too; adds everything to `c`.
 * Prints the control alarms and every major; with verbose, every verdict.
 */
static int judge(condition *c, const culprit_history_runs *runs, int ours, const char *label,
                 const char *now, const char *base, int verbose)
{
    const char *const baseline[1] = {base};
    culprit_check_result res;
    int flagged[NJUDGES] = {0};

    if (culprit_detect_check(&res, runs, now, baseline, 1, NULL) < 0)
        return fail("check of %.12s against %.12s: %s", now, base, culprit_error_last());
    for (size_t i = 0; i < res.n; i++) {
        const culprit_verdict *v = &res.verdicts[i];
        int g = group_of(v->test), alarm[NJUDGES] = {0}, compared[NJUDGES] = {0};
        tally *t = &c->t[ours][g];

        t->judged++;
        t->kinds[(unsigned)v->kind < 8 ? v->kind : 0]++;
        alarm[ours] = v->kind == CULPRIT_VERDICT_MINOR || v->kind == CULPRIT_VERDICT_MAJOR;
        t->alarms += (size_t)alarm[ours];
        t->majors += v->kind == CULPRIT_VERDICT_MAJOR;
        flagged[ours] += g != CONTROLS && alarm[ours];
        if (ours == OURS) {
            for (int j = PLAIN; j <= PLAIN_JUDGED; j++) {
                if (plain_regression(&alarm[j], &compared[j], runs, res.now_runs[i], res.now[i],
                                     base, j == PLAIN_JUDGED) < 0) {
                    culprit_detect_check_result_dispose(&res);
                    return -1;
                }
                c->t[j][g].judged += (size_t)compared[j];
                c->t[j][g].alarms += (size_t)alarm[j];
                flagged[j] += g != CONTROLS && alarm[j];
            }
            if (g != CONTROLS && add_change(c, v->change) < 0) {
                culprit_detect_check_result_dispose(&res);
                return -1;
            }
        }
        if (verbose || (alarm[ours] && g == CONTROLS) || v->kind == CULPRIT_VERDICT_MAJOR)
            printf("    %-4s %s %-30s %-11s q %-8.2g %s\n", ours == OURS ? "" : "all", label,
                   v->test, culprit_detect_verdict_name(v->kind), v->q,
                   v->message ? v->message : "");
    }
    for (int j = 0; j < NJUDGES; j++)
        c->both[j] += flagged[j] == NTARGETS;
    culprit_detect_check_result_dispose(&res);
    return 0;
}

/* Sums the groups in [from, to) of one judge. */
static tally sum_groups(const condition *c, int judge, int from, int to)
{
    tally sum;

    memset(&sum, 0, sizeof(sum));
    for (int g = from; g < to; g++) {
        sum.judged += c->t[judge][g].judged;
        sum.alarms += c->t[judge][g].alarms;
        sum.majors += c->t[judge][g].majors;
        for (int k = 0; k < 8; k++)
            sum.kinds[k] += c->t[judge][g].kinds[k];
    }
    return sum;
}

static double pct(size_t k, size_t n)
{
    return n ? 100.0 * (double)k / (double)n : NAN;
}

static void print_kinds(const tally *t)
{
    static const culprit_verdict_kind order[] = {
        CULPRIT_VERDICT_UNCHANGED, CULPRIT_VERDICT_UNDECIDED,   CULPRIT_VERDICT_MINOR,
        CULPRIT_VERDICT_MAJOR,     CULPRIT_VERDICT_IMPROVEMENT, CULPRIT_VERDICT_NO_BASELINE,
        CULPRIT_VERDICT_MIXED,     CULPRIT_VERDICT_NOT_RUN};
    const char *sep = "";

    for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
        if (t->kinds[order[i]]) {
            printf("%s%s %zu", sep, culprit_detect_verdict_name(order[i]), t->kinds[order[i]]);
            sep = ", ";
        }
}

static void print_figures(condition *aa, condition *aa_steady, condition *power, unsigned int naa,
                          unsigned int trials)
{
    tally all[NJUDGES];

    for (int j = 0; j < NJUDGES; j++)
        all[j] = sum_groups(aa, j, 0, NGROUPS);
    printf("\n== A/A: %u checks of unchanged code, each run against the previous one ==\n", naa);
    printf("%-36s %-24s %s\n", "judge", "false alarms/test-run", "majors");
    for (int j = 0; j < NJUDGES; j++) {
        char r[64];
        snprintf(r, sizeof(r), "%zu / %zu = %.1f%%", all[j].alarms, all[j].judged,
                 pct(all[j].alarms, all[j].judged));
        if (j <= OURS_ALL)
            printf("%-36s %-24s %zu%s\n", judge_names[j], r, all[j].majors,
                   all[j].majors ? " (a bug, unless the categories are too tight)" : "");
        else
            printf("%-36s %-24s -\n", judge_names[j], r);
    }
    for (int j = OURS; j <= OURS_ALL; j++) {
        printf("%s verdicts: ", j == OURS ? "our" : "all-sample");
        print_kinds(&all[j]);
        printf("\n");
    }
    printf("checks with at least %d earlier runs (the run-to-run noise model active):\n",
           NOISE_MIN_RUNS);
    for (int j = 0; j < NJUDGES; j++) {
        tally s = sum_groups(aa_steady, j, 0, NGROUPS);
        char r[64];
        snprintf(r, sizeof(r), "%zu / %zu = %.1f%%", s.alarms, s.judged, pct(s.alarms, s.judged));
        printf("  %-34s %s\n", judge_names[j], r);
    }

    printf("\n== Power: %u trials per slowdown; detected = flagged (minor/major; plain: "
           "p < 0.01 and slower) ==\n",
           trials);
    printf("%-36s", "judge: detection of the slowed tests");
    for (size_t s = 0; s < NSLOWDOWNS; s++)
        printf("  %-22s", slowdowns[s].label);
    printf("\n%-36s", "       (config / adaptive / both)");
    for (size_t s = 0; s < NSLOWDOWNS; s++)
        printf("  median change %+6.1f%% ", 100 * median_change(&power[s]));
    printf("\n");
    for (int j = 0; j < NJUDGES; j++) {
        printf("%-36s", judge_names[j]);
        for (size_t s = 0; s < NSLOWDOWNS; s++) {
            const tally *c = &power[s].t[j][0], *a = &power[s].t[j][1];
            char r[64];
            snprintf(r, sizeof(r), "%3.0f%% / %3.0f%% / %3.0f%%", pct(c->alarms, c->judged),
                     pct(a->alarms, a->judged), pct(power[s].both[j], trials));
            printf("  %-22s", r);
        }
        printf("\n");
    }
    printf("%-36s", "alarms on the unchanged controls");
    printf("\n");
    for (int j = 0; j < NJUDGES; j++) {
        printf("%-36s", judge_names[j]);
        for (size_t s = 0; s < NSLOWDOWNS; s++) {
            const tally *t = &power[s].t[j][CONTROLS];
            char r[64];
            snprintf(r, sizeof(r), "%zu / %zu = %.1f%%", t->alarms, t->judged,
                     pct(t->alarms, t->judged));
            printf("  %-22s", r);
        }
        printf("\n");
    }
    printf("our verdicts on the slowed tests:");
    for (size_t s = 0; s < NSLOWDOWNS; s++) {
        tally k = sum_groups(&power[s], OURS, 0, NTARGETS);
        printf(" %s: ", slowdowns[s].label);
        print_kinds(&k);
        printf(";");
    }
    printf("\n(slowed tests: fib_config, fib_adaptive; controls: fib_region, fib_table, "
           "sort_*)\n");
}

static void print_machine(const culprit_history_runs *runs, const char *when)
{
    char load[128] = "?";
    FILE *f = fopen("/proc/loadavg", "r");

    if (f) {
        if (!fgets(load, sizeof(load), f))
            strcpy(load, "?");
        fclose(f);
        load[strcspn(load, "\n")] = '\0';
    }
    if (runs && runs->nruns && runs->runs[0]->machine)
        printf("machine: %s (%s)\n", runs->runs[0]->machine,
               runs->runs[0]->compiler ? runs->runs[0]->compiler : "?");
    printf("load average %s: %s\n", when, load);
}

/*
 * Why A/A alarms happen: Welch's test and ANOVA take a run's samples as the only
 * source of variance, but every run also gets its own offset from the machine's load.
 * For each test, the spread (sd) of its mean across the A/A runs divided by the
 * within-run standard error of the mean (root mean square): about 1 when runs are
 * exchangeable, k when the tests under-state the run-to-run variance k-fold.
 */
static int print_dispersion(const culprit_history_runs *runs, char (*commits)[41], size_t n,
                            int judged)
{
    printf("run-to-run sd of the mean / within-run standard error, %s samples:\n ",
           judged ? "judged" : "all");
    for (size_t r = 0; r < runs->nruns; r++) {
        const culprit_run *first = runs->runs[r];
        if (!first->commit || strcmp(first->commit, commits[0]) != 0)
            continue;
        for (size_t t = 0; t < first->ntests; t++) {
            culprit_welford means;
            double se2 = 0;
            size_t m = 0;

            culprit_stats_welford_init(&means);
            for (size_t i = 0; i < n; i++) {
                const char *const at[1] = {commits[i]};
                culprit_baseline b;
                if (culprit_detect_baseline(&b, runs, first->suite, first->tests[t].name, at, 1,
                                            1) < 0)
                    return fail("%s", culprit_error_last());
                if (b.n == 1) {
                    const culprit_summary *x =
                        judged ? judged_of(b.results[0]) : &b.results[0]->summary;
                    if (x->n > 1) {
                        culprit_stats_welford_add(&means, x->mean);
                        se2 += x->sd * x->sd / (double)x->n;
                        m++;
                    }
                }
                culprit_detect_baseline_dispose(&b);
            }
            if (m > 1)
                printf(" %s %.1f", first->tests[t].name,
                       culprit_stats_welford_sd(&means) / sqrt(se2 / (double)m));
        }
    }
    printf("\n");
    return 0;
}

/* ------------------------------------------------------------------ main --- */

/* Where the benchmark is, on a terminal only (ctest logs stay clean); NULL ends it. */
static void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void progress(const char *fmt, ...)
{
    va_list ap;

    if (!isatty(2))
        return;
    fputs("\r\033[K", stderr);
    if (fmt) {
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
    }
    fflush(stderr);
}

static int parse_count(const char *text, unsigned int *out)
{
    char *end;
    unsigned long v;

    errno = 0;
    v = strtoul(text ? text : "", &end, 10);
    if (!text || !*text || *end || errno || v == 0 || v > 10000 || text[0] == '-')
        return -1;
    *out = (unsigned int)v;
    return 0;
}

static void usage(FILE *to)
{
    fprintf(to, "usage: bench_detect [--quick] [--aa N] [--trials N] [--default-categories]\n"
                "                    [--keep] [--verbose]\n"
                "  --aa N                A/A checks (N + 1 runs at unchanged code; default 20)\n"
                "  --trials N            trials per slowdown of 5%%, 10%%, 50%% (default 20)\n"
                "  --quick               --aa 3 --trials 1 (what ctest runs)\n"
                "  --default-categories  keep the default categories (fast < 1 ms): fib_config\n"
                "                        then sits above its explicit category on every run\n"
                "  --keep                keep the temporary directory (repository, history)\n"
                "  --verbose             print every verdict, not only the alarms\n"
                "exit: 0 figures printed, 1 a MAJOR in A/A, 2 usage or hard error\n");
}

int main(int argc, char **argv)
{
    unsigned int aa = 20, trials = 20;
    int keep = 0, verbose = 0, default_categories = 0, status = 2;
    sandbox sb;
    culprit_history *history = NULL;
    culprit_history_runs runs = {0, NULL, 0};
    char(*aa_commits)[41] = NULL, (*base_commits)[41] = NULL, (*slow_commits)[41] = NULL;
    condition *aa_cond = NULL, *aa_steady = NULL, *power = NULL;
    struct timespec t0, t1;
    struct sigaction sa;
    char stamp[64];
    time_t wall = time(NULL);

    memset(&sb, 0, sizeof(sb));
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            aa = 3;     /* A/A: what the exit status judges (no MAJOR) */
            trials = 1; /* power: figures only, each slowdown once */
        } else if (strcmp(argv[i], "--aa") == 0) {
            if (parse_count(i + 1 < argc ? argv[++i] : NULL, &aa) < 0)
                goto bad_usage;
        } else if (strcmp(argv[i], "--trials") == 0) {
            if (parse_count(i + 1 < argc ? argv[++i] : NULL, &trials) < 0)
                goto bad_usage;
        } else if (strcmp(argv[i], "--keep") == 0) {
            keep = 1;
        } else if (strcmp(argv[i], "--verbose") == 0 || strcmp(argv[i], "-v") == 0) {
            verbose = 1;
        } else if (strcmp(argv[i], "--default-categories") == 0) {
            default_categories = 1;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "bench_detect: unknown option '%s'\n", argv[i]);
            goto bad_usage;
        }
    }

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);

    aa_commits = calloc(aa + 1, sizeof(*aa_commits));
    base_commits = calloc((size_t)trials * NSLOWDOWNS, sizeof(*base_commits));
    slow_commits = calloc((size_t)trials * NSLOWDOWNS, sizeof(*slow_commits));
    aa_cond = calloc(1, sizeof(*aa_cond));
    aa_steady = calloc(1, sizeof(*aa_steady));
    power = calloc(NSLOWDOWNS, sizeof(*power));
    if (!aa_commits || !base_commits || !slow_commits || !aa_cond || !aa_steady || !power) {
        fail("out of memory");
        goto cleanup;
    }
    strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S UTC", gmtime(&wall));
    printf("bench_detect: %s; fib n = %d, calls %d per repetition; %s categories\n", stamp, FIB_N,
           BASE_CALLS, default_categories ? "default" : "widened (fast < 10 ms)");
    print_machine(NULL, "at start");
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (sandbox_init(&sb, default_categories) < 0)
        goto cleanup;

    /* 1. A/A: one empty commit per run, so each run has the previous as parent. */
    for (unsigned int i = 0; i <= aa; i++) {
        progress("A/A run %u/%u", i + 1, aa + 1);
        if (commit(&sb, "A/A", aa_commits[i]) < 0 || run_suites(&sb) < 0)
            goto cleanup;
    }
    /* 2. Power: BASE_RUNS unchanged runs then the slowed one, trial by trial, the
     * three slowdowns interleaved, so a slow drift of the machine's load touches all
     * three alike. Each slowed commit is checked against the last base commit. */
    for (unsigned int t = 0; t < trials; t++) {
        for (size_t s = 0; s < NSLOWDOWNS; s++) {
            size_t k = (size_t)t * NSLOWDOWNS + s;
            progress("power trial %u/%u, slowdown %s", t + 1, trials, slowdowns[s].label);
            if (write_conf(&sb, BASE_CALLS) < 0)
                goto cleanup;
            for (int b = 0; b < BASE_RUNS; b++)
                if (commit(&sb, "base", base_commits[k]) < 0 || run_suites(&sb) < 0)
                    goto cleanup;
            if (write_conf(&sb, slowdowns[s].calls) < 0 ||
                commit(&sb, "slowed", slow_commits[k]) < 0 || run_suites(&sb) < 0)
                goto cleanup;
        }
    }
    progress(NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("measured in %.0f s: %u A/A runs, %u power runs, 2 suites each\n",
           (double)(t1.tv_sec - t0.tv_sec), aa + 1, (BASE_RUNS + 1) * trials * NSLOWDOWNS);
    print_machine(NULL, "at end");

    /* 3. Judge everything from one load of the history (summaries only). */
    if (culprit_history_open(&history, sb.history, 0) < 0 ||
        culprit_history_load(&runs, history, NULL, NULL, NULL) < 0) {
        fail("cannot load %s: %s", sb.history, culprit_error_last());
        goto cleanup;
    }
    if (runs.nskipped) {
        fail("%zu history files were skipped", runs.nskipped);
        goto cleanup;
    }
    print_machine(&runs, "(recorded)");
    printf("\ncontrol alarms and majors%s (\"all\": on all samples):\n",
           verbose ? ", every verdict" : "");
    for (int mode = OURS; mode <= OURS_ALL; mode++) {
        if (mode == OURS_ALL) {
            /* The same checks on every sample: without a judged summary, verdicts fall
             * back to the full one. The runs are this program's own copy. */
            for (size_t r = 0; r < runs.nruns; r++)
                for (size_t t = 0; t < runs.runs[r]->ntests; t++)
                    memset(&runs.runs[r]->tests[t].judged, 0, sizeof(culprit_summary));
        }
        for (unsigned int i = 1; i <= aa; i++) {
            char label[32];
            snprintf(label, sizeof(label), "A/A %-3u", i);
            if (judge(aa_cond, &runs, mode, label, aa_commits[i], aa_commits[i - 1], verbose) < 0 ||
                (i >= NOISE_MIN_RUNS &&
                 judge(aa_steady, &runs, mode, label, aa_commits[i], aa_commits[i - 1], 0) < 0))
                goto cleanup;
        }
        for (unsigned int t = 0; t < trials; t++)
            for (size_t s = 0; s < NSLOWDOWNS; s++) {
                size_t k = (size_t)t * NSLOWDOWNS + s;
                char label[32];
                snprintf(label, sizeof(label), "%-3s #%-2u", slowdowns[s].label, t + 1);
                if (judge(&power[s], &runs, mode, label, slow_commits[k], base_commits[k],
                          verbose) < 0)
                    goto cleanup;
            }
        if (mode == OURS && print_dispersion(&runs, aa_commits, aa + 1, 1) < 0)
            goto cleanup;
        if (mode == OURS_ALL && print_dispersion(&runs, aa_commits, aa + 1, 0) < 0)
            goto cleanup;
    }

    /* 4. The figures. */
    print_figures(aa_cond, aa_steady, power, aa, trials);
    {
        size_t majors = sum_groups(aa_cond, OURS, 0, NGROUPS).majors +
                        sum_groups(aa_cond, OURS_ALL, 0, NGROUPS).majors;
        status = majors ? 1 : 0;
        if (majors)
            fprintf(stderr, "bench_detect: %zu MAJOR verdict(s) on unchanged code: a bug\n",
                    majors);
    }

cleanup:
    culprit_history_runs_dispose(&runs);
    culprit_history_free(history);
    sandbox_dispose(&sb, keep);
    free(aa_commits);
    free(base_commits);
    free(slow_commits);
    if (aa_cond)
        free(aa_cond->changes);
    for (size_t s = 0; power && s < NSLOWDOWNS; s++)
        free(power[s].changes);
    free(aa_cond);
    if (aa_steady)
        free(aa_steady->changes);
    free(aa_steady);
    free(power);
    return status;

bad_usage:
    usage(stderr);
    return 2;
}
