/*
 * The trace runtime end to end: the fixture programs (fixture.c, fixture_lib.c) are
 * built with culprit_instrument(), run with CULPRIT_TRACE_* set, and their files read
 * and symbolized. Counts are asserted exactly; times only for what the mode says
 * (timed or not), never for their size.
 */
#include "support/test.h"

#include "culprit/calltree.h"
#include "support/tmpdir.h"

#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The group's directory (support/tmpdir.h). */
static const char *const dir = test_tmpdir;

static char *path_in_dir(const char *name)
{
    static char buf[4][512];
    static int k;
    char *p = buf[k++ % 4];
    snprintf(p, 512, "%s/%s", dir, name);
    return p;
}

/* Runs `prog what [arg]` with the trace variables; returns its exit status. */
static int run(const char *prog, const char *out, const char *mode, const char *level,
               const char *what, const char *arg)
{
    pid_t pid = fork();
    int status;

    assert_true(pid >= 0);
    if (pid == 0) {
        setenv("CULPRIT_TRACE_OUT", out, 1);
        setenv("CULPRIT_TRACE_MODE", mode, 1);
        setenv("CULPRIT_TRACE_LEVEL", level, 1);
        unsetenv("CULPRIT_TRACE_DIR");
        execl(prog, prog, what, arg, (char *)NULL);
        _exit(127);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static culprit_calltree *record_raw(const char *mode, const char *level, const char *what,
                                    const char *arg)
{
    culprit_calltree *t = NULL;
    char *out = path_in_dir("run.calltree");
    assert_int_equal(run(FIXTURE, out, mode, level, what, arg), 0);
    assert_int_equal(culprit_calltree_read_file(&t, out), 0);
    assert_true(culprit_calltree_check(t));
    return t;
}

static culprit_calltree *record(const char *mode, const char *level, const char *what,
                                const char *arg)
{
    culprit_calltree *t = record_raw(mode, level, what, arg);
    size_t missing = 99;
    assert_int_equal(culprit_calltree_symbolize(t, &missing), 0);
    assert_int_equal(missing, 0);
    assert_true(culprit_calltree_check(t));
    return t;
}

/* The node reached from the root by the functions named, or NONE. */
static size_t find(const culprit_calltree *t, ...)
{
    va_list ap;
    const char *name;
    size_t node = 0;

    va_start(ap, t);
    while (node != CULPRIT_CALLTREE_NONE && (name = va_arg(ap, const char *))) {
        size_t next = CULPRIT_CALLTREE_NONE;
        for (size_t c = 0; c < t->nodes[node].nchildren; c++) {
            size_t k = t->nodes[node].children[c];
            if (strcmp(t->functions[t->nodes[k].function].name, name) == 0)
                next = k;
        }
        node = next;
    }
    va_end(ap);
    return node;
}

static uint64_t calls(const culprit_calltree *t, size_t node)
{
    assert_int_not_equal(node, CULPRIT_CALLTREE_NONE);
    return t->nodes[node].calls;
}

/* The line of `marker` in `file` (1-based). */
static unsigned int line_of(const char *file, const char *marker)
{
    char line[512];
    unsigned int n = 0;
    FILE *f = fopen(file, "r");

    assert_non_null(f);
    while (fgets(line, sizeof(line), f)) {
        n++;
        if (strstr(line, marker)) {
            fclose(f);
            return n;
        }
    }
    fclose(f);
    fail_msg("'%s' not in %s", marker, file);
    return 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = s ? strlen(s) : 0, b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static void static_functions_of_a_pie_are_named_with_file_and_lines(void **state)
{
    culprit_buf raw = CULPRIT_BUF_INIT;
    culprit_calltree *t = record("full", "1", "threads", NULL);
    size_t leaf = find(t, "worker", "leaf", NULL);
    const culprit_calltree_function *fn;
    unsigned int line = line_of(FIXTURE_SOURCE, "/* LEAF */");
    (void)state;

    /* A PIE: the executable was loaded at a non-zero address. */
    assert_int_equal(culprit_fs_read_file(&raw, path_in_dir("run.calltree")), 0);
    assert_non_null(strstr(raw.ptr, "\nobject 0 0x"));
    assert_null(strstr(raw.ptr, "\nobject 0 0x0 "));
    fn = &t->functions[t->nodes[leaf].function];
    assert_string_equal(fn->name, "leaf");
    assert_true(ends_with(fn->file, "tests/trace/fixture.c"));
    assert_int_equal(fn->line_low, line);
    assert_int_equal(fn->line_high, line + 3); /* the closing brace */
    assert_true(ends_with(fn->object, "trace_fixture"));
    culprit_buf_dispose(&raw);
    culprit_calltree_free(t);
}

static void two_threads_on_the_same_path_merge_with_exact_counts(void **state)
{
    culprit_calltree *t = record("full", "1", "threads", NULL);
    (void)state;

    assert_int_equal(calls(t, find(t, "worker", NULL)), 2);
    assert_int_equal(calls(t, find(t, "worker", "leaf", NULL)), 2000);
    assert_int_equal(calls(t, find(t, "main", NULL)), 1);
    assert_true(t->nodes[find(t, "worker", "leaf", NULL)].inclusive_ns > 0);
    culprit_calltree_free(t);
}

static void recursion_counts_each_depth(void **state)
{
    culprit_calltree *t = record("structure", "1", "fib", "10");
    uint64_t total = 0;
    size_t deepest = 0;
    (void)state;

    for (size_t i = 1; i < t->nnodes; i++) {
        if (strcmp(t->functions[t->nodes[i].function].name, "fib") != 0)
            continue;
        total += t->nodes[i].calls;
        if (t->nodes[i].depth > deepest)
            deepest = t->nodes[i].depth;
    }
    assert_int_equal(total, 177);  /* fib(10) makes 2 fib(11) - 1 calls */
    assert_int_equal(deepest, 11); /* main, then fib(10) down to fib(1) */
    assert_int_equal(calls(t, find(t, "main", "fib", NULL)), 1);
    assert_int_equal(calls(t, find(t, "main", "fib", "fib", NULL)), 2);
    culprit_calltree_free(t);
}

/* A recursion 100,000 deep: a tree that deep is read, checked, symbolized and
 * written without recursing on the C stack. */
static void a_deep_recursion_is_one_node_per_depth(void **state)
{
    culprit_calltree *t = record("structure", "1", "deep", "100000");
    culprit_buf out = CULPRIT_BUF_INIT;
    size_t deepest = 0;
    (void)state;

    for (size_t i = 1; i < t->nnodes; i++) {
        assert_int_equal(t->nodes[i].calls, 1);
        if (t->nodes[i].depth > deepest)
            deepest = t->nodes[i].depth;
    }
    assert_int_equal(deepest, 100002); /* main, then down(100000) .. down(0) */
    assert_int_equal(culprit_calltree_write_buf(&out, t), 0);
    culprit_buf_dispose(&out);
    culprit_calltree_free(t);
}

static void a_longjmp_closes_the_frames_it_leaves(void **state)
{
    culprit_calltree *t = record("full", "1", "longjmp", NULL);
    (void)state;

    assert_int_equal(calls(t, find(t, "main", "catcher", "jumper", "deep", "leaf", NULL)), 1);
    /* after() is main's child, not deep()'s: catcher()'s exit popped the frames the
     * longjmp abandoned, and closed them (timed). */
    assert_int_equal(calls(t, find(t, "main", "after", "leaf", NULL)), 1);
    assert_int_equal(find(t, "main", "catcher", "jumper", "deep", "after", NULL),
                     CULPRIT_CALLTREE_NONE);
    assert_false(isnan(t->nodes[find(t, "main", "catcher", "jumper", "deep", NULL)].inclusive_ns));
    assert_true(t->nodes[find(t, "main", "catcher", NULL)].inclusive_ns >=
                t->nodes[find(t, "main", "catcher", "jumper", NULL)].inclusive_ns);
    culprit_calltree_free(t);
}

static void exit_writes_the_tree_with_open_frames_closed(void **state)
{
    culprit_calltree *t = record("full", "1", "exit", NULL);
    size_t in_exit = find(t, "main", "in_exit", NULL);
    (void)state;

    assert_int_equal(calls(t, in_exit), 1);
    assert_int_equal(calls(t, find(t, "main", "in_exit", "inner", "spin", NULL)), 1);
    /* main and in_exit never returned: closed at the time of writing. */
    assert_true(t->nodes[in_exit].inclusive_ns >=
                t->nodes[find(t, "main", "in_exit", "inner", NULL)].inclusive_ns);
    assert_true(t->nodes[find(t, "main", NULL)].inclusive_ns > 0);
    culprit_calltree_free(t);
}

/* Makes the temporary file a writer of `out` in this process would: 0, or -1. */
static int make_leftover(culprit_buf *name, const char *out)
{
    int fd;

    if (culprit_buf_printf(name, "%s.tmp.", out) < 0 || culprit_fs_owner_tag(name) < 0 ||
        culprit_buf_puts(name, "XXXXXX") < 0 || (fd = mkstemp(name->ptr)) < 0)
        return -1;
    close(fd);
    return 0;
}

/* A traced run killed while writing its tree leaves <out>.tmp.<host>-<pid>.<start>-*
 * (the temp-file rule, docs/security.md): the next run writing beside it removes it,
 * and leaves a live process's and another host's alone. */
static void a_killed_writers_temporary_file_is_removed_by_the_next_run(void **state)
{
    char *out = path_in_dir("killed.calltree"), dead[1024] = "", other[1024];
    culprit_buf live = CULPRIT_BUF_INIT;
    int fds[2], status, fd;
    pid_t pid;
    (void)state;

    assert_int_equal(pipe(fds), 0);
    assert_true((pid = fork()) >= 0);
    if (pid == 0) { /* the writer, killed before its rename */
        culprit_buf name = CULPRIT_BUF_INIT;
        if (make_leftover(&name, out) < 0 ||
            write(fds[1], name.ptr, name.size + 1) != (ssize_t)name.size + 1)
            _exit(1);
        raise(SIGKILL);
    }
    close(fds[1]);
    assert_true(read(fds[0], dead, sizeof(dead) - 1) > 0);
    close(fds[0]);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    assert_int_equal(access(dead, F_OK), 0);
    assert_int_equal(make_leftover(&live, out), 0);
    snprintf(other, sizeof(other), "%s.tmp.another-host-%ld.1-abcdef", out, (long)pid);
    assert_true((fd = open(other, O_CREAT | O_WRONLY, 0600)) >= 0);
    close(fd);

    assert_int_equal(run(FIXTURE, out, "full", "1", "exit", NULL), 0);
    assert_int_equal(access(out, F_OK), 0);
    assert_int_equal(access(dead, F_OK), -1);
    assert_int_equal(access(live.ptr, F_OK), 0);
    assert_int_equal(access(other, F_OK), 0);
    unlink(live.ptr);
    unlink(other);
    unlink(out);
    culprit_buf_dispose(&live);
}

static void structure_mode_keeps_counts_only(void **state)
{
    culprit_calltree *t = record("structure", "1", "levels", NULL);
    culprit_buf raw = CULPRIT_BUF_INIT;
    (void)state;

    /* The runtime says which clock it read per call: none. */
    assert_int_equal(culprit_fs_read_file(&raw, path_in_dir("run.calltree")), 0);
    assert_non_null(strstr(raw.ptr, "\nclock none\n"));
    assert_non_null(strstr(raw.ptr, "\noverhead-ns 0\n"));
    culprit_buf_dispose(&raw);
    assert_int_equal(t->mode, CULPRIT_CALLTREE_STRUCTURE);
    assert_int_equal(calls(t, find(t, "main", "outer", "inner", "spin", NULL)), 3);
    for (size_t i = 1; i < t->nnodes; i++) {
        assert_true(isnan(t->nodes[i].inclusive_ns));
        assert_true(isnan(t->nodes[i].exclusive_ns));
    }
    assert_true(t->overhead_ns == 0);
    culprit_calltree_free(t);
}

static void level_mode_times_only_its_depth(void **state)
{
    culprit_calltree *t = record("level", "2", "levels", NULL);
    (void)state;

    assert_int_equal(t->mode, CULPRIT_CALLTREE_LEVEL);
    assert_int_equal(calls(t, find(t, "main", "outer", "inner", NULL)), 3);
    for (size_t i = 1; i < t->nnodes; i++)
        assert_int_equal(isnan(t->nodes[i].inclusive_ns), t->nodes[i].depth != 2);
    assert_true(t->nodes[find(t, "main", "outer", NULL)].inclusive_ns > 0);
    culprit_calltree_free(t);
}

static void full_mode_times_every_call(void **state)
{
    culprit_calltree *t = record("full", "1", "levels", NULL);
    size_t outer = find(t, "main", "outer", NULL), inner = find(t, "main", "outer", "inner", NULL);
    (void)state;

    assert_int_equal(t->mode, CULPRIT_CALLTREE_FULL);
    assert_true(t->overhead_ns > 0);
    for (size_t i = 1; i < t->nnodes; i++)
        assert_false(isnan(t->nodes[i].inclusive_ns));
    /* outer's three calls of inner run inside it. */
    assert_true(t->nodes[outer].inclusive_ns >= 0.99 * t->nodes[inner].inclusive_ns);
    assert_true(t->nodes[inner].inclusive_sq_ns2 > 0);
    culprit_calltree_free(t);
}

static void static_functions_of_a_shared_library_are_named(void **state)
{
    culprit_calltree *t = record("full", "1", "lib", NULL);
    size_t helper = find(t, "main", "fixture_lib_entry", "lib_helper", NULL);
    const culprit_calltree_function *fn;
    (void)state;

    assert_int_equal(calls(t, helper), 10);
    fn = &t->functions[t->nodes[helper].function];
    assert_true(ends_with(fn->file, "tests/trace/fixture_lib.c"));
    assert_int_equal(fn->line_low, line_of(FIXTURE_LIB_SOURCE, "static long lib_helper"));
    assert_non_null(strstr(fn->object, "libtrace_fixture_lib.so"));
    culprit_calltree_free(t);
}

static void an_instrumented_library_in_a_plain_program_is_recorded(void **state)
{
    culprit_calltree *t = NULL;
    char *out = path_in_dir("lib-user.calltree");
    (void)state;

    assert_int_equal(run(LIB_USER, out, "structure", "1", NULL, NULL), 0);
    assert_int_equal(culprit_calltree_read_file(&t, out), 0);
    assert_int_equal(culprit_calltree_symbolize(t, NULL), 0);
    /* No main: the program is not instrumented; the library's entry is depth 1. */
    assert_int_equal(calls(t, find(t, "fixture_lib_entry", "lib_helper", NULL)), 7);
    culprit_calltree_free(t);
}

/* clang's DWARF 5 has no .debug_aranges: the compilation unit is still found. */
static void a_clang_build_is_symbolized_with_files(void **state)
{
#ifdef CLANG_FIXTURE
    const char *argv[] = {CLANG_FIXTURE, NULL};
    culprit_calltree_record_options opts = CULPRIT_CALLTREE_RECORD_OPTIONS_INIT;
    culprit_calltree *t = NULL;
    size_t twice;
    (void)state;

    opts.quiet = 1;
    assert_int_equal(culprit_calltree_record(&t, argv, &opts), 0);
    twice = find(t, "main", "twice", NULL);
    assert_int_equal(calls(t, twice), 1);
    assert_true(ends_with(t->functions[t->nodes[twice].function].file, "tests/trace/plain.c"));
    assert_true(t->functions[t->nodes[twice].function].line_low > 0);
    culprit_calltree_free(t);
#else
    (void)state;
    skip(); /* clang is not installed */
#endif
}

static void record_merges_a_structure_run_and_one_run_per_level(void **state)
{
    const char *argv[] = {FIXTURE, "levels", NULL};
    culprit_calltree_record_options opts = CULPRIT_CALLTREE_RECORD_OPTIONS_INIT;
    culprit_calltree *t = NULL;
    (void)state;

    /* Left over from the user's shell: must not redirect the runs' files. */
    setenv("CULPRIT_TRACE_OUT", "/nonexistent/dir/x.calltree", 1);
    opts.quiet = 1;
    opts.workdir = "/";
    assert_int_equal(culprit_calltree_record(&t, argv, &opts), 0);
    unsetenv("CULPRIT_TRACE_OUT");
    assert_true(culprit_calltree_check(t));
    assert_int_equal(t->mode, CULPRIT_CALLTREE_LEVEL);
    assert_int_equal(calls(t, find(t, "main", "outer", NULL)), 1);
    assert_int_equal(calls(t, find(t, "main", "outer", "inner", NULL)), 3);
    assert_int_equal(calls(t, find(t, "main", "outer", "inner", "spin", NULL)), 3);
    /* Every depth timed, each in its own run. */
    for (size_t i = 1; i < t->nnodes; i++) {
        assert_false(isnan(t->nodes[i].inclusive_ns));
        assert_false(isnan(t->nodes[i].exclusive_ns));
    }
    assert_string_equal(t->command, FIXTURE " levels");
    assert_int_equal(t->nodes[find(t, "main", "outer", "inner", NULL)].samples, 3);
    culprit_calltree_free(t);

    /* Three runs per depth: the call counts stay, the samples triple. */
    opts.repeat = 3;
    assert_int_equal(culprit_calltree_record(&t, argv, &opts), 0);
    assert_int_equal(calls(t, find(t, "main", "outer", NULL)), 1);
    assert_int_equal(t->nodes[find(t, "main", "outer", NULL)].samples, 3);
    assert_int_equal(calls(t, find(t, "main", "outer", "inner", NULL)), 3);
    assert_int_equal(t->nodes[find(t, "main", "outer", "inner", NULL)].samples, 9);
    assert_true(t->nodes[find(t, "main", "outer", "inner", NULL)].inclusive_sq_ns2 > 0);
    culprit_calltree_free(t);
}

static void copy_fixture(const char *to)
{
    char cmd[1024];
    snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", FIXTURE, to);
    assert_int_equal(system(cmd), 0);
}

static void a_symbolized_tree_loads_after_the_binary_is_gone(void **state)
{
    char *copy = path_in_dir("fixture-copy"), *file = path_in_dir("copy.calltree");
    const char *argv[] = {copy, "lib", NULL};
    culprit_calltree_record_options opts = CULPRIT_CALLTREE_RECORD_OPTIONS_INIT;
    culprit_calltree *t = NULL, *u = NULL;
    size_t missing = 0;
    (void)state;

    copy_fixture(copy);
    opts.quiet = 1;
    assert_int_equal(culprit_calltree_record(&t, argv, &opts), 0);
    assert_int_equal(culprit_calltree_write_file(t, file), 0);
    unlink(copy);
    assert_int_equal(culprit_calltree_read_file(&u, file), 0);
    assert_int_equal(culprit_calltree_symbolize(u, &missing), 0);
    assert_int_equal(missing, 0);
    assert_int_equal(calls(u, find(u, "main", "fixture_lib_entry", "lib_helper", NULL)), 10);
    assert_true(
        ends_with(u->functions[t->nodes[find(u, "main", NULL)].function].file, "fixture.c"));
    culprit_calltree_free(t);
    culprit_calltree_free(u);
    unlink(file);
}

/* A raw tree outlives a rebuild of its binary: the build-id recorded at run time no
 * longer matches the file, so its functions keep their addresses, not wrong names. */
static void a_rebuilt_binary_is_not_used_to_name_an_old_tree(void **state)
{
    char *copy = path_in_dir("fixture-rebuilt"), *out = path_in_dir("rebuilt.calltree");
    char cmd[1024];
    culprit_calltree *t = NULL;
    size_t missing = 0;
    (void)state;

    copy_fixture(copy);
    assert_int_equal(run(copy, out, "structure", "1", "threads", NULL), 0);
    /* "Rebuilt": another program at the same path. */
    snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", PLAIN, copy);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(culprit_calltree_read_file(&t, out), 0);
    assert_non_null(t->functions[0].build_id);
    assert_int_equal(culprit_calltree_symbolize(t, &missing), 0);
    assert_int_equal(missing, t->nfunctions);
    for (size_t i = 0; i < t->nfunctions; i++)
        assert_true(culprit_calltree_function_is_raw(t, i));
    culprit_calltree_free(t);
    unlink(copy);
    unlink(out);
}

static void a_stripped_binary_shows_addresses(void **state)
{
    char *copy = path_in_dir("fixture-stripped"), cmd[1024];
    const char *argv[] = {copy, "threads", NULL};
    culprit_calltree_record_options opts = CULPRIT_CALLTREE_RECORD_OPTIONS_INIT;
    culprit_calltree *t = NULL;
    size_t missing = 0, raw = 0;
    (void)state;

    copy_fixture(copy);
    snprintf(cmd, sizeof(cmd), "strip '%s'", copy);
    assert_int_equal(system(cmd), 0);
    opts.quiet = 1;
    assert_int_equal(culprit_calltree_record(&t, argv, &opts), 0);
    assert_int_equal(culprit_calltree_symbolize(t, &missing), 0);
    for (size_t i = 0; i < t->nfunctions; i++) {
        raw += culprit_calltree_function_is_raw(t, i);
        assert_null(t->functions[i].file);
        assert_int_equal(strncmp(t->functions[i].name, "0x", 2), 0);
    }
    assert_int_equal(missing, raw);
    assert_true(raw >= 3); /* main, worker, leaf */
    /* Counts do not need names. */
    assert_int_equal(
        t->nodes[t->nodes[0].children[0]].calls + t->nodes[t->nodes[0].children[1]].calls, 3);
    culprit_calltree_free(t);
    unlink(copy);
}

static void an_uninstrumented_binary_is_named_with_the_fix(void **state)
{
    const char *argv[] = {PLAIN, NULL};
    culprit_calltree_record_options opts = CULPRIT_CALLTREE_RECORD_OPTIONS_INIT;
    culprit_calltree *t = NULL;
    (void)state;

    opts.quiet = 1;
    assert_int_equal(culprit_calltree_record(&t, argv, &opts), CULPRIT_ENOTFOUND);
    assert_null(t);
    assert_non_null(strstr(culprit_error_last(), "not built with instrumentation"));
    assert_non_null(strstr(culprit_error_last(), "culprit_instrument"));
    assert_non_null(strstr(culprit_error_last(), "-finstrument-functions"));
}

/* culprit_calltree_inspect: the instrumented fixture has the runtime linked, the plain
 * build calls no hook, a file that is not ELF cannot tell, a missing one is an error.
 * (A program with glibc's hooks only is tests/e2e/instrument_build.sh's.) */
static void inspect_tells_instrumented_from_plain(void **state)
{
    culprit_calltree_link link;
    (void)state;

    assert_int_equal(culprit_calltree_inspect(&link, FIXTURE), 0);
    assert_int_equal(link, CULPRIT_CALLTREE_LINK_RUNTIME);
    assert_int_equal(culprit_calltree_inspect(&link, PLAIN), 0);
    assert_int_equal(link, CULPRIT_CALLTREE_LINK_NOT_INSTRUMENTED);
    assert_int_equal(culprit_calltree_inspect(&link, "/etc/passwd"), 0);
    assert_int_equal(link, CULPRIT_CALLTREE_LINK_UNKNOWN);
    assert_int_equal(culprit_calltree_inspect(&link, "/nonexistent/program"), CULPRIT_ENOTFOUND);
}

static void a_command_that_cannot_run_is_an_error(void **state)
{
    const char *argv[] = {"/nonexistent/program", NULL};
    culprit_calltree_record_options opts = CULPRIT_CALLTREE_RECORD_OPTIONS_INIT;
    culprit_calltree *t = NULL;
    (void)state;

    opts.quiet = 1;
    assert_int_equal(culprit_calltree_record(&t, argv, &opts), CULPRIT_ERROR);
    assert_non_null(strstr(culprit_error_last(), "cannot run '/nonexistent/program'"));
    {
        const char *killed[] = {"/bin/sh", "-c", "kill -9 $$", NULL};
        assert_int_equal(culprit_calltree_record(&t, killed, &opts), CULPRIT_ERROR);
        assert_non_null(strstr(culprit_error_last(),
                               "'/bin/sh' was killed by signal 9 (Killed) while recorded"));
    }
}

/* The runner's hook: one tree per perf test, with that test's calls only. */
static void the_runner_writes_a_tree_per_perf_test(void **state)
{
    char *trees = path_in_dir("trees");
    culprit_calltree *hot = NULL, *cold = NULL;
    size_t body, helper;
    int status;
    pid_t pid = fork();
    (void)state;

    assert_true(pid >= 0);
    if (pid == 0) {
        setenv("CULPRIT_TRACE_DIR", trees, 1);
        unsetenv("CULPRIT_TRACE_OUT");
        unsetenv("CULPRIT_TRACE_MODE");
        execl(PERF_FIXTURE, PERF_FIXTURE, "--no-history", "-q", "--fail-on", "none", "--warmup",
              "0", (char *)NULL);
        _exit(127);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(culprit_calltree_read_file(&hot, path_in_dir("trees/perf.hot.calltree")), 0);
    assert_int_equal(culprit_calltree_read_file(&cold, path_in_dir("trees/perf.cold.calltree")), 0);
    assert_int_equal(culprit_calltree_symbolize(hot, NULL), 0);
    assert_int_equal(culprit_calltree_symbolize(cold, NULL), 0);
    assert_int_equal(hot->mode, CULPRIT_CALLTREE_FULL);
    /* The test body ran at least its 5 repetitions, each calling helper 100 times. */
    body = find(hot, "main", "hot", NULL);
    helper = find(hot, "main", "hot", "helper", NULL);
    assert_true(calls(hot, body) >= 5);
    assert_int_equal(calls(hot, helper), 100 * calls(hot, body));
    assert_int_equal(find(hot, "main", "cold", NULL), CULPRIT_CALLTREE_NONE);
    assert_int_equal(calls(cold, find(cold, "main", "cold", "helper", NULL)),
                     calls(cold, find(cold, "main", "cold", NULL)));
    assert_int_equal(find(cold, "main", "hot", NULL), CULPRIT_CALLTREE_NONE);
    /* The harness is not instrumented: main's only children are the test bodies. */
    assert_int_equal(hot->nodes[find(hot, "main", NULL)].nchildren, 1);
    culprit_calltree_free(hot);
    culprit_calltree_free(cold);
}

/* Recording a perf-test binary as a whole: the runner keeps the tests in its own
 * process, so their calls are in the tree. */
static void recording_a_perf_test_binary_keeps_its_tests_in_process(void **state)
{
    const char *argv[] = {PERF_FIXTURE, "--no-history", "-q", "--fail-on", "none", NULL};
    culprit_calltree_record_options opts = CULPRIT_CALLTREE_RECORD_OPTIONS_INIT;
    culprit_calltree *t = NULL;
    (void)state;

    opts.quiet = 1;
    opts.max_levels = 2;
    assert_int_equal(culprit_calltree_record(&t, argv, &opts), 0);
    assert_int_equal(calls(t, find(t, "main", "hot", "helper", NULL)),
                     100 * calls(t, find(t, "main", "hot", NULL)));
    assert_true(calls(t, find(t, "main", "cold", NULL)) >= 5);
    assert_false(isnan(t->nodes[find(t, "main", "hot", NULL)].inclusive_ns));
    assert_true(isnan(t->nodes[find(t, "main", "hot", "helper", NULL)].inclusive_ns));
    culprit_calltree_free(t);
}

/* A failed CMocka assertion longjmps out of the test body; the runner closes the
 * abandoned frames, so the next test is main's child, not the failed one's. */
static void a_failed_assertion_does_not_adopt_the_next_test(void **state)
{
    const char *argv[] = {PERF_FIXTURE, "--no-history", "-q", "--fail-on", "none", NULL};
    const char *env[] = {"PERF_FIXTURE_FAIL=1", NULL};
    culprit_calltree_record_options opts = CULPRIT_CALLTREE_RECORD_OPTIONS_INIT;
    culprit_calltree *t = NULL;
    (void)state;

    opts.quiet = 1;
    opts.env = env;
    opts.max_levels = 1;
    assert_int_equal(culprit_calltree_record(&t, argv, &opts), 0);
    assert_int_equal(calls(t, find(t, "main", "fails", NULL)), 1);
    assert_true(calls(t, find(t, "main", "cold", NULL)) >= 5);
    assert_int_equal(find(t, "main", "fails", "cold", NULL), CULPRIT_CALLTREE_NONE);
    culprit_calltree_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(static_functions_of_a_pie_are_named_with_file_and_lines),
        cmocka_unit_test(two_threads_on_the_same_path_merge_with_exact_counts),
        cmocka_unit_test(recursion_counts_each_depth),
        cmocka_unit_test(a_deep_recursion_is_one_node_per_depth),
        cmocka_unit_test(a_longjmp_closes_the_frames_it_leaves),
        cmocka_unit_test(exit_writes_the_tree_with_open_frames_closed),
        cmocka_unit_test(a_killed_writers_temporary_file_is_removed_by_the_next_run),
        cmocka_unit_test(structure_mode_keeps_counts_only),
        cmocka_unit_test(level_mode_times_only_its_depth),
        cmocka_unit_test(full_mode_times_every_call),
        cmocka_unit_test(static_functions_of_a_shared_library_are_named),
        cmocka_unit_test(an_instrumented_library_in_a_plain_program_is_recorded),
        cmocka_unit_test(a_clang_build_is_symbolized_with_files),
        cmocka_unit_test(record_merges_a_structure_run_and_one_run_per_level),
        cmocka_unit_test(a_symbolized_tree_loads_after_the_binary_is_gone),
        cmocka_unit_test(a_rebuilt_binary_is_not_used_to_name_an_old_tree),
        cmocka_unit_test(a_stripped_binary_shows_addresses),
        cmocka_unit_test(an_uninstrumented_binary_is_named_with_the_fix),
        cmocka_unit_test(inspect_tells_instrumented_from_plain),
        cmocka_unit_test(a_command_that_cannot_run_is_an_error),
        cmocka_unit_test(the_runner_writes_a_tree_per_perf_test),
        cmocka_unit_test(recording_a_perf_test_binary_keeps_its_tests_in_process),
        cmocka_unit_test(a_failed_assertion_does_not_adopt_the_next_test),
    };
    return cmocka_run_group_tests(tests, test_tmpdir_setup, test_tmpdir_teardown);
}
