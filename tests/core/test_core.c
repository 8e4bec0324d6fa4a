/* Tests of framework/core: the last error, buffers, atomic writes. */
#include "support/test.h"

#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "culprit/core.h"
#include "support/tmpdir.h"

static void error_last_keeps_code_and_message(void **state)
{
    (void)state;
    culprit_error_clear();
    assert_string_equal(culprit_error_last(), "");
    assert_int_equal(culprit_error_set(CULPRIT_EINVALID, "bad value '%s'", "x"), CULPRIT_EINVALID);
    assert_string_equal(culprit_error_last(), "bad value 'x'");
    assert_int_equal(culprit_error_last_code(), CULPRIT_EINVALID);
}

static void strmap_finds_every_key_and_keeps_the_first(void **state)
{
    culprit_strmap map = CULPRIT_STRMAP_INIT;
    char(*keys)[16] = malloc(5000 * sizeof(*keys));
    size_t v = 0;
    (void)state;

    assert_non_null(keys);
    assert_int_equal(culprit_strmap_get(&map, "absent", &v), 0);
    for (size_t i = 0; i < 5000; i++) { /* grows many times over */
        snprintf(keys[i], sizeof(keys[i]), "key_%zu", i);
        assert_int_equal(culprit_strmap_put(&map, keys[i], i, NULL), 0);
    }
    assert_int_equal(map.n, 5000);
    for (size_t i = 0; i < 5000; i++) {
        assert_int_equal(culprit_strmap_get(&map, keys[i], &v), 1);
        assert_int_equal(v, i);
    }
    /* put keeps the first value and says so; set replaces it */
    assert_int_equal(culprit_strmap_put(&map, "key_7", 99, &v), 1);
    assert_int_equal(v, 7);
    assert_int_equal(culprit_strmap_get(&map, "key_7", &v), 1);
    assert_int_equal(v, 7);
    assert_int_equal(culprit_strmap_set(&map, "key_7", 99), 0);
    assert_int_equal(culprit_strmap_get(&map, "key_7", &v), 1);
    assert_int_equal(v, 99);
    assert_int_equal(culprit_strmap_set(&map, "new", 5), 0);
    assert_int_equal(map.n, 5001);
    assert_int_equal(culprit_strmap_get(&map, "key_5000", NULL), 0);
    assert_int_equal(culprit_strmap_get(&map, "", NULL), 0);
    culprit_strmap_dispose(&map);
    assert_int_equal(culprit_strmap_get(&map, "key_1", NULL), 0);
    culprit_strmap_dispose(NULL);
    free(keys);
}

static void buf_grows_and_stays_terminated(void **state)
{
    culprit_buf buf = CULPRIT_BUF_INIT;
    size_t width;
    (void)state;
    assert_string_equal(culprit_buf_cstr(&buf), "");
    for (int i = 0; i < 1000; i++)
        assert_int_equal(culprit_buf_printf(&buf, "%d,", i % 10), 0);
    assert_int_equal(buf.size, 2000);
    assert_int_equal(strlen(buf.ptr), 2000);
    assert_memory_equal(buf.ptr, "0,1,2,", 6);
    /* Text longer than the room left: cut there first, then written whole. */
    culprit_buf_clear(&buf);
    assert_int_equal(culprit_buf_puts(&buf, "ab"), 0);
    width = buf.asize;
    assert_int_equal(culprit_buf_printf(&buf, "%0*d|", (int)width, 7), 0);
    assert_int_equal(buf.size, 2 + width + 1);
    assert_int_equal(strlen(buf.ptr), buf.size);
    assert_memory_equal(buf.ptr, "ab000", 5);
    assert_int_equal(buf.ptr[buf.size - 2], '7');
    assert_int_equal(buf.ptr[buf.size - 1], '|');
    culprit_buf_clear(&buf);
    assert_string_equal(culprit_buf_cstr(&buf), "");
    culprit_buf_dispose(&buf);
    culprit_buf_dispose(NULL);
}

static void durations_take_the_unit_that_fits_their_size_signed_or_not(void **state)
{
    culprit_buf buf = CULPRIT_BUF_INIT;
    (void)state;
    culprit_buf_put_duration(&buf, 812.34);
    culprit_buf_puts(&buf, " ");
    culprit_buf_put_duration(&buf, 185159.3);
    culprit_buf_puts(&buf, " ");
    culprit_buf_put_duration(&buf, -185159.3); /* was "-185159.3 ns" */
    culprit_buf_puts(&buf, " ");
    culprit_buf_put_duration(&buf, -2.5e9);
    culprit_buf_puts(&buf, " ");
    culprit_buf_put_duration(&buf, NAN);
    assert_string_equal(culprit_buf_cstr(&buf), "812.3 ns 185.2 us -185.2 us -2.500 s -");
    culprit_buf_dispose(&buf);
}

/* Issue 23: culprit_buf_put_fixed() writes what printf's "%.*f" writes, without printf
 * where the digits are plain: random magnitudes, exact ties (printf rounds them to
 * even), values just beside a tie, signed zeros, the limits of the fast path, and
 * the non-finite; put_duration() with it, as its printf formats wrote. */
static void fixed_decimals_are_printf_s(void **state)
{
    static const double special[] = {0.0,    -0.0,  0.05,      0.15,         0.25,         2.5,
                                     -2.5,   0.125, 1e-7,      8589934591.4, 8589934592.0, 1e15,
                                     1e300,  NAN,   INFINITY,  -INFINITY,    999.95,       9.995,
                                     1.0005, 0.45,  1234567.25};
    char want[400];
    culprit_buf got = CULPRIT_BUF_INIT;
    unsigned long long seed = 88172645463325252ull;
    (void)state;

    for (size_t i = 0; i < 300000; i++) {
        double x;
        int d = (int)(i % 7), plus = (int)(i / 7 % 2);
        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17; /* xorshift64 */
        if (i < 21 * 14)
            x = special[i / 14];
        else if (i % 3 == 0) /* a tie, or just beside one, at d decimals */
            x = ((double)(seed % 100000000) + 0.5 + (double)(seed >> 60) * 1e-12 * (seed & 1)) /
                pow(10, d);
        else
            x = ldexp((double)(seed >> 11), -53) * pow(10, (double)(seed % 17) - 4) *
                ((seed >> 5) & 1 ? -1 : 1);
        snprintf(want, sizeof(want), plus ? "%+.*f" : "%.*f", d, x);
        culprit_buf_clear(&got);
        assert_int_equal(culprit_buf_put_fixed(&got, x, d, plus), 0);
        if (strcmp(got.ptr, want) != 0)
            fail_msg("%.17g with %d decimals%s: '%s', printf '%s'", x, d, plus ? ", +" : "",
                     got.ptr, want);
        if (d == 1 && !plus && x >= 0 && x < 1e3) {
            snprintf(want, sizeof(want), "%.1f ns", x);
            culprit_buf_clear(&got);
            culprit_buf_put_duration(&got, x);
            assert_string_equal(got.ptr, want);
        }
    }
    culprit_buf_dispose(&got);
}

static void write_atomic_never_replaces_with_no_replace(void **state)
{
    char dir[256];
    culprit_buf read = CULPRIT_BUF_INIT;
    (void)state;
    assert_int_equal(test_tmpdir_make(dir, sizeof(dir), "core"), 0);
    char *sub = culprit_fs_join(dir, "a/b");
    assert_int_equal(culprit_fs_mkdir_p(sub), 0);
    char *path = culprit_fs_join(sub, "f.txt");
    assert_int_equal(culprit_fs_write_atomic(path, "one", 3, 1), 0);
    assert_int_equal(culprit_fs_write_atomic(path, "two", 3, 1), CULPRIT_EEXISTS);
    assert_non_null(strstr(culprit_error_last(), "f.txt"));
    assert_int_equal(culprit_fs_read_file(&read, path), 0);
    assert_string_equal(read.ptr, "one");
    /* replacing is allowed without no_replace, and leaves no temporary behind */
    assert_int_equal(culprit_fs_write_atomic(path, "three", 5, 0), 0);
    culprit_buf_clear(&read);
    assert_int_equal(culprit_fs_read_file(&read, path), 0);
    assert_string_equal(read.ptr, "three");
    /* CULPRIT_FS_NO_SYNC (no fsync) is no NO_REPLACE: it replaces; with it, not */
    assert_int_equal(culprit_fs_write_atomic(path, "four", 4, CULPRIT_FS_NO_SYNC), 0);
    assert_int_equal(
        culprit_fs_write_atomic(path, "five", 4, CULPRIT_FS_NO_SYNC | CULPRIT_FS_NO_REPLACE),
        CULPRIT_EEXISTS);
    culprit_buf_clear(&read);
    assert_int_equal(culprit_fs_read_file(&read, path), 0);
    assert_string_equal(read.ptr, "four");
    char cmd[256];
    snprintf(cmd, sizeof(cmd), "test $(ls -A %s | wc -l) -eq 1", sub);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(culprit_fs_read_file(&read, "/nonexistent/x"), CULPRIT_ENOTFOUND);
    assert_int_equal(test_tmpdir_remove(dir), 0);
    culprit_buf_dispose(&read);
    free(sub);
    free(path);
}

/* A named output is never replaced by another kind of file (issue: a symlink became
 * a regular file, and as root `--junit /dev/full` replaced the device node). */
static void write_atomic_follows_links_and_writes_devices_through(void **state)
{
    char *dir = test_tmpdir_new("out"), *real = culprit_fs_join(dir, "real.xml"),
         *link = culprit_fs_join(dir, "link.xml"), *fifo = culprit_fs_join(dir, "fifo"),
         *sub = culprit_fs_join(dir, "sub");
    culprit_buf read = CULPRIT_BUF_INIT;
    struct stat st;
    (void)state;

    assert_int_equal(culprit_fs_write_atomic(real, "old", 3, 0), 0);
    assert_int_equal(symlink("real.xml", link), 0);
    assert_int_equal(culprit_fs_write_atomic(link, "new", 3, 0), 0);
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_int_equal(culprit_fs_read_file(&read, real), 0);
    assert_string_equal(culprit_buf_cstr(&read), "new");

    /* Devices are written through: /dev/null takes it, /dev/full says it is full. */
    assert_int_equal(culprit_fs_write_atomic("/dev/null", "x", 1, 0), 0);
    assert_true(culprit_fs_write_atomic("/dev/full", "x", 1, 0) < 0);
    assert_non_null(strstr(culprit_error_last(), "/dev/full"));
    assert_int_equal(stat("/dev/full", &st), 0);
    assert_true(S_ISCHR(st.st_mode));

    /* A FIFO without a reader is an error, not a hang; a directory is refused. */
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_true(culprit_fs_write_atomic(fifo, "x", 1, 0) < 0);
    assert_non_null(strstr(culprit_error_last(), "FIFO without a reader"));
    culprit_buf_clear(&read); /* and read without a writer: empty, not a hang */
    assert_int_equal(culprit_fs_read_file(&read, fifo), 0);
    assert_int_equal(read.size, 0);
    assert_int_equal(culprit_fs_mkdir_p(sub), 0);
    assert_true(culprit_fs_read_file(&read, sub) < 0);
    assert_non_null(strstr(culprit_error_last(), "is a directory"));
    assert_true(culprit_fs_write_atomic(sub, "x", 1, 0) < 0);
    assert_non_null(strstr(culprit_error_last(), "is a directory"));
    assert_int_equal(stat(sub, &st), 0);
    assert_true(S_ISDIR(st.st_mode));

    assert_int_equal(test_tmpdir_remove(dir), 0);
    culprit_buf_dispose(&read);
    free(real);
    free(link);
    free(fifo);
    free(sub);
    free(dir);
}

/* A temporary entry planted in a test directory, and whether a sweep removes it. */
typedef struct {
    const char *marker;
    long pid;
    long long start; /* or TEST_OWN_START, TEST_NO_START */
    int removed;
} planted;

/* Plants each entry in `dir`: a directory holding a file when its marker starts with
 * "culprit-", else a file. */
static void plant(const char *dir, const planted *entries, size_t n)
{
    char name[512];

    for (size_t i = 0; i < n; i++) {
        test_owned_name(name, sizeof(name), dir, entries[i].marker, entries[i].pid,
                        entries[i].start);
        if (strncmp(entries[i].marker, "culprit-", 8) == 0) {
            assert_int_equal(culprit_fs_mkdir_p(name), 0);
            strcat(name, "/file");
        }
        assert_int_equal(culprit_fs_write_atomic(name, "x", 1, 0), 0);
    }
}

/* Each entry is gone when it was to be removed, and still there otherwise. */
static void assert_swept(const char *dir, const planted *entries, size_t n)
{
    char name[512];
    struct stat st;

    for (size_t i = 0; i < n; i++) {
        test_owned_name(name, sizeof(name), dir, entries[i].marker, entries[i].pid,
                        entries[i].start);
        assert_int_equal(stat(name, &st) != 0, entries[i].removed);
    }
}

/* Leftovers of a killed writer (SIGKILL: no cleanup runs) are removed by the next
 * one, and only those: this host's, of a process that no longer exists or whose pid
 * now names a process that started at another time. */
static void leftovers_of_dead_processes_are_removed_and_no_others(void **state)
{
    char *dir = test_tmpdir_new("stale"), name[512];
    culprit_buf made = CULPRIT_BUF_INIT;
    struct stat st;
    long dead = test_dead_pid(), ours = (long)getpid();
    (void)state;

    const planted entries[] = {
        {"run.xml.tmp.", dead, 12345, 1},          /* its process has ended */
        {"run.xml.tmp.", dead, TEST_NO_START, 1},  /* the same, named by an older culprit */
        {"culprit-checkout-", dead, 12345, 1},     /* a directory */
        {"run.xml.tmp.", ours, 1, 1},              /* our pid, another start: pid reused */
        {"run.xml.tmp.", ours, TEST_OWN_START, 0}, /* ours: a live writer */
        {"run.xml.tmp.", (long)getppid(), TEST_NO_START, 0}, /* a live process */
    };
    plant(dir, entries, sizeof(entries) / sizeof(*entries));
    /* Another host's, and a name without an owner. */
    snprintf(name, sizeof(name), "%s/culprit-checkout-other-host-%ld.1-abcdef", dir, dead);
    assert_int_equal(culprit_fs_mkdir_p(name), 0);
    snprintf(name, sizeof(name), "%s/notes.tmp.x", dir);
    assert_int_equal(culprit_fs_write_atomic(name, "x", 1, 0), 0);

    assert_int_equal(culprit_fs_remove_stale(dir, ".tmp."), 3);
    assert_int_equal(culprit_fs_remove_stale(dir, "culprit-checkout-"), 1);
    assert_swept(dir, entries, sizeof(entries) / sizeof(*entries));
    snprintf(name, sizeof(name), "test $(ls -A '%s' | wc -l) -eq 4", dir);
    assert_int_equal(system(name), 0);
    /* A new temporary of a kind in a directory of the caller's is named so, and made. */
    assert_int_equal(culprit_fs_make_temp(&made, dir, "result", 0), 0);
    assert_non_null(strstr(made.ptr, "/culprit-result-"));
    assert_int_equal(stat(made.ptr, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_int_equal(test_tmpdir_remove(dir), 0);
    culprit_buf_dispose(&made);
    free(dir);
}

/* The stale-directory rule of $TMPDIR: a per-process directory is removed once its
 * owner is gone (pid dead, or pid reused by a process with another start time), as
 * are the entries older versions left there; a live process's never. */
static void the_sweep_removes_directories_of_ended_processes_only(void **state)
{
    char *dir = test_tmpdir_new("sweep"), name[512];
    long dead = test_dead_pid(), ours = (long)getpid();
    (void)state;

    const planted entries[] = {
        {"culprit-", dead, 4242, 1},                     /* killed with SIGKILL */
        {"culprit-", ours, 1, 1},                        /* pid reused since */
        {"culprit-", ours, TEST_OWN_START, 0},           /* a live process's */
        {"culprit-", (long)getppid(), TEST_NO_START, 0}, /* live, no start time */
        {"culprit-bisect-run-", dead, TEST_NO_START, 1}, /* an older culprit's */
        {"culprit-result-", dead, TEST_NO_START, 1},
        {"culprit-result-", (long)getppid(), TEST_NO_START, 0},
    };
    plant(dir, entries, sizeof(entries) / sizeof(*entries));
    snprintf(name, sizeof(name), "%s/culprit-tests-abcdef", dir); /* no owner: not ours */
    assert_int_equal(culprit_fs_mkdir_p(name), 0);
    assert_int_equal(culprit_fs_temp_sweep(dir), 4);
    assert_swept(dir, entries, sizeof(entries) / sizeof(*entries));
    assert_int_equal(test_tmpdir_remove(dir), 0);
    free(dir);
}

/* The process's directory: one per process, in $TMPDIR, private, holding what
 * culprit_fs_make_temp(NULL, ...) makes; a fork makes its own and removes it at its
 * exit, never its parent's. */
static void one_temporary_directory_per_process(void **state)
{
    char *tmp = test_tmpdir_new("own"), child_dir[PATH_MAX] = "";
    const char *own, *again;
    culprit_buf made = CULPRIT_BUF_INIT;
    int fds[2], status;
    struct stat st;
    pid_t pid;
    (void)state;

    assert_int_equal(setenv("TMPDIR", tmp, 1), 0);
    assert_int_equal(culprit_fs_temp_dir(&own), 0);
    assert_int_equal(strncmp(own, tmp, strlen(tmp)), 0);
    assert_non_null(strstr(own, "/culprit-"));
    assert_int_equal(stat(own, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    assert_int_equal(culprit_fs_temp_dir(&again), 0);
    assert_ptr_equal(own, again);
    assert_int_equal(culprit_fs_make_temp(&made, NULL, "result", 0), 0);
    assert_int_equal(strncmp(made.ptr, own, strlen(own)), 0);
    assert_non_null(strstr(made.ptr + strlen(own), "/result-"));

    assert_int_equal(pipe(fds), 0);
    if ((pid = fork()) == 0) {
        const char *mine;
        if (culprit_fs_temp_dir(&mine) < 0 || write(fds[1], mine, strlen(mine)) < 0)
            _exit(1);
        exit(0); /* atexit: its own directory goes, ours stays */
    }
    close(fds[1]);
    assert_true(read(fds[0], child_dir, sizeof(child_dir) - 1) > 0);
    close(fds[0]);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_string_not_equal(child_dir, own);
    assert_int_not_equal(stat(child_dir, &st), 0);
    assert_int_equal(stat(made.ptr, &st), 0);

    /* What a signal handler calls: the directory and everything in it go. */
    char saved[PATH_MAX];
    snprintf(saved, sizeof(saved), "%s", own);
    assert_int_equal(culprit_fs_temp_dir_remove_signal_safe(), 0);
    assert_int_not_equal(stat(saved, &st), 0);
    unsetenv("TMPDIR");
    culprit_buf_dispose(&made);
    assert_int_equal(test_tmpdir_remove(tmp), 0);
    free(tmp);
}

static void recode_keeps_the_message(void **state)
{
    (void)state;
    culprit_error_set(CULPRIT_ESKIP, "'%s' does not build", "abc");
    assert_int_equal(culprit_error_recode(CULPRIT_ERROR), CULPRIT_ERROR);
    assert_int_equal(culprit_error_last_code(), CULPRIT_ERROR);
    assert_string_equal(culprit_error_last(), "'abc' does not build");
}

static void tmpdir_follows_the_environment(void **state)
{
    (void)state;
    assert_int_equal(setenv("TMPDIR", "/var/tmp", 1), 0);
    assert_string_equal(culprit_fs_tmpdir(), "/var/tmp");
    assert_int_equal(setenv("TMPDIR", "", 1), 0);
    assert_string_equal(culprit_fs_tmpdir(), "/tmp");
    assert_int_equal(unsetenv("TMPDIR"), 0);
    assert_string_equal(culprit_fs_tmpdir(), "/tmp");
}

static void arrays_grow_by_doubling_and_keep_their_items(void **state)
{
    int *v = NULL;
    size_t alloc = 0;
    (void)state;

    for (size_t i = 0; i < 100; i++) {
        assert_int_equal(culprit_array_grow(&v, &alloc, i, sizeof(*v), 4), 0);
        assert_true(alloc > i);
        v[i] = (int)i;
    }
    assert_int_equal(alloc, 128); /* 4, 8, ..., 128 */
    for (size_t i = 0; i < 100; i++)
        assert_int_equal(v[i], (int)i);
    assert_int_equal(culprit_array_grow(&v, &alloc, 50, sizeof(*v), 4), 0); /* fits: no-op */
    assert_int_equal(alloc, 128);
    /* An impossible size fails and leaves the array as it was. */
    assert_int_equal(culprit_array_grow(&v, &alloc, 128, (size_t)-1 / 4, 4), CULPRIT_ERROR);
    assert_int_equal(alloc, 128);
    assert_int_equal(v[99], 99);
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(arrays_grow_by_doubling_and_keep_their_items),
        cmocka_unit_test(error_last_keeps_code_and_message),
        cmocka_unit_test(buf_grows_and_stays_terminated),
        cmocka_unit_test(fixed_decimals_are_printf_s),
        cmocka_unit_test(durations_take_the_unit_that_fits_their_size_signed_or_not),
        cmocka_unit_test(write_atomic_never_replaces_with_no_replace),
        cmocka_unit_test(write_atomic_follows_links_and_writes_devices_through),
        cmocka_unit_test(leftovers_of_dead_processes_are_removed_and_no_others),
        cmocka_unit_test(the_sweep_removes_directories_of_ended_processes_only),
        cmocka_unit_test(one_temporary_directory_per_process),
        cmocka_unit_test(tmpdir_follows_the_environment),
        cmocka_unit_test(recode_keeps_the_message),
        cmocka_unit_test(strmap_finds_every_key_and_keeps_the_first),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
