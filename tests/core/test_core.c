/* Tests of framework/core: the last error, buffers, atomic writes. */
#include "support/test.h"

#include <stdio.h>
#include <stdlib.h>
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
    (void)state;
    assert_string_equal(culprit_buf_cstr(&buf), "");
    for (int i = 0; i < 1000; i++)
        assert_int_equal(culprit_buf_printf(&buf, "%d,", i % 10), 0);
    assert_int_equal(buf.size, 2000);
    assert_int_equal(strlen(buf.ptr), 2000);
    assert_memory_equal(buf.ptr, "0,1,2,", 6);
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

/* Leftovers of a killed writer (SIGKILL: no cleanup runs) are removed by the next
 * one, and only those: this host's, of a process that no longer exists. */
static void leftovers_of_dead_processes_are_removed_and_no_others(void **state)
{
    char *dir = test_tmpdir_new("stale"), name[512];
    culprit_buf tag = CULPRIT_BUF_INIT, made = CULPRIT_BUF_INIT;
    struct stat st;
    pid_t dead = fork();
    (void)state;

    assert_true(dead >= 0);
    if (dead == 0)
        _exit(0);
    assert_int_equal(waitpid(dead, NULL, 0), dead);
    assert_int_equal(culprit_fs_owner_tag(&tag), 0); /* <host>-<our pid>- */
    const char *host_end = strrchr(tag.ptr, '-');
    *(char *)host_end = '\0';
    *(char *)(host_end = strrchr(tag.ptr, '-')) = '\0'; /* tag.ptr is the host now */
    const char *mine[][2] = {{"run.xml.tmp.", "dead"},
                             {"culprit-checkout-", "dead"}, /* removed */
                             {"run.xml.tmp.", "live"},
                             {"culprit-checkout-", "other"},
                             {"notes.tmp.", "short"}};
    for (size_t i = 0; i < 5; i++) {
        if (strcmp(mine[i][1], "dead") == 0)
            snprintf(name, sizeof(name), "%s/%s%s-%ld-abcdef", dir, mine[i][0], tag.ptr,
                     (long)dead);
        else if (strcmp(mine[i][1], "live") == 0)
            snprintf(name, sizeof(name), "%s/%s%s-%ld-abcdef", dir, mine[i][0], tag.ptr,
                     (long)getppid());
        else if (strcmp(mine[i][1], "other") == 0)
            snprintf(name, sizeof(name), "%s/%sother-host-%ld-abcdef", dir, mine[i][0], (long)dead);
        else
            snprintf(name, sizeof(name), "%s/%sx", dir, mine[i][0]);
        if (i == 1)
            assert_int_equal(culprit_fs_mkdir_p(name), 0);
        else
            assert_int_equal(culprit_fs_write_atomic(name, "x", 1, 0), 0);
    }
    assert_int_equal(culprit_fs_remove_stale(dir, ".tmp."), 1);
    assert_int_equal(culprit_fs_remove_stale(dir, "culprit-checkout-"), 1);
    snprintf(name, sizeof(name), "test $(ls -A '%s' | wc -l) -eq 3", dir);
    assert_int_equal(system(name), 0);
    /* A new temporary of a kind is named so, and made. */
    assert_int_equal(culprit_fs_make_temp(&made, dir, "result", 0), 0);
    assert_non_null(strstr(made.ptr, "/culprit-result-"));
    assert_int_equal(stat(made.ptr, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_int_equal(test_tmpdir_remove(dir), 0);
    culprit_buf_dispose(&made);
    culprit_buf_dispose(&tag);
    free(dir);
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
        cmocka_unit_test(durations_take_the_unit_that_fits_their_size_signed_or_not),
        cmocka_unit_test(write_atomic_never_replaces_with_no_replace),
        cmocka_unit_test(write_atomic_follows_links_and_writes_devices_through),
        cmocka_unit_test(leftovers_of_dead_processes_are_removed_and_no_others),
        cmocka_unit_test(tmpdir_follows_the_environment),
        cmocka_unit_test(recode_keeps_the_message),
        cmocka_unit_test(strmap_finds_every_key_and_keeps_the_first),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
