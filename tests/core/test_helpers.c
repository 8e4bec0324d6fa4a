/*
 * Tests of the helpers every module shares through core: context put in front of
 * the last error and the error kept across cleanup, the owned-string setter, and
 * removing a directory tree (the ordinary walk and the signal-safe variant), and
 * copying one with its times.
 */
#include "support/test.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "culprit/core.h"

static void error_prefix_puts_context_in_front_and_keeps_the_code(void **state)
{
    (void)state;
    culprit_error_set(CULPRIT_ENOTFOUND, "'%s' does not exist", "x.xml");
    assert_int_equal(culprit_error_prefix("reading history '%s': ", "h"), CULPRIT_ENOTFOUND);
    assert_string_equal(culprit_error_last(), "reading history 'h': 'x.xml' does not exist");
    assert_int_equal(culprit_error_last_code(), CULPRIT_ENOTFOUND);
    /* Twice: the newest context comes first. */
    culprit_error_prefix("step 3: ");
    assert_string_equal(culprit_error_last(),
                        "step 3: reading history 'h': 'x.xml' does not exist");
}

static void error_save_and_restore_survive_cleanup_errors(void **state)
{
    culprit_error_state saved;
    (void)state;
    culprit_error_set(CULPRIT_ESKIP, "'%s' does not build", "abc");
    culprit_error_save(&saved);
    culprit_error_set(CULPRIT_EIO, "cleanup failed too");
    assert_int_equal(culprit_error_restore(&saved), CULPRIT_ESKIP);
    assert_int_equal(culprit_error_last_code(), CULPRIT_ESKIP);
    assert_string_equal(culprit_error_last(), "'abc' does not build");
}

static void str_set_replaces_copies_and_clears(void **state)
{
    char *s = NULL;
    (void)state;
    assert_int_equal(culprit_str_set(&s, "one"), 0);
    assert_string_equal(s, "one");
    assert_int_equal(culprit_str_set(&s, s + 1), 0); /* a source inside the old string */
    assert_string_equal(s, "ne");
    assert_int_equal(culprit_str_set(&s, NULL), 0);
    assert_null(s);
}

/* FNV-1a's published 64-bit test vectors (Fowler, Noll, Vo), and continuing from a
 * previous result hashes the concatenation: the one hash that names files on disk and
 * keys the fan-out's records must not change its values. */
static void str_hash_is_fnv1a_64(void **state)
{
    (void)state;
    assert_true(culprit_str_hash(CULPRIT_STR_HASH_INIT, "", 0) == 0xcbf29ce484222325ULL);
    assert_true(culprit_str_hash(CULPRIT_STR_HASH_INIT, "a", 1) == 0xaf63dc4c8601ec8cULL);
    assert_true(culprit_str_hash(CULPRIT_STR_HASH_INIT, "foobar", 6) == 0x85944171f73967e8ULL);
    assert_true(culprit_str_hash(culprit_str_hash(CULPRIT_STR_HASH_INIT, "foo", 3), "bar", 3) ==
                0x85944171f73967e8ULL);
}

static void touch(const char *dir, const char *name)
{
    char *path = culprit_fs_join(dir, name);
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "x", 1), 1);
    close(fd);
    free(path);
}

/* A tree as builds leave them: nested, a read-only directory, a link out of it. */
static char *make_tree(const char *outside)
{
    char tmpl[] = "/tmp/culprit-tree-XXXXXX";
    char *dir, *sub, *link_path;

    assert_non_null(mkdtemp(tmpl));
    dir = strdup(tmpl);
    sub = culprit_fs_join(dir, "a/b/c");
    assert_int_equal(culprit_fs_mkdir_p(sub), 0);
    touch(dir, "top.txt");
    touch(sub, "deep.o");
    free(sub);
    sub = culprit_fs_join(dir, "a/ro");
    assert_int_equal(culprit_fs_mkdir_p(sub), 0);
    touch(sub, "locked.txt");
    assert_int_equal(chmod(sub, 0500), 0);
    free(sub);
    link_path = culprit_fs_join(dir, "a/out");
    assert_int_equal(symlink(outside, link_path), 0);
    free(link_path);
    return dir;
}

static void remove_tree_removes_everything_and_follows_no_link(void **state)
{
    char outside[] = "/tmp/culprit-outside-XXXXXX";
    struct stat st;
    char *dir;
    (void)state;

    assert_non_null(mkdtemp(outside));
    touch(outside, "keep.txt");
    dir = make_tree(outside);
    assert_int_equal(culprit_fs_remove_tree(dir), 0);
    assert_int_equal(lstat(dir, &st), -1);
    /* The link was removed, not followed: what it pointed at is intact. */
    char *kept = culprit_fs_join(outside, "keep.txt");
    assert_int_equal(stat(kept, &st), 0);
    /* A path that does not exist is not an error (rm -rf); an empty one is. */
    assert_int_equal(culprit_fs_remove_tree(dir), 0);
    assert_int_equal(culprit_fs_remove_tree(""), CULPRIT_EINVALID);
    /* A single file is removed too. */
    assert_int_equal(culprit_fs_remove_tree(kept), 0);
    assert_int_equal(stat(kept, &st), -1);
    assert_int_equal(culprit_fs_remove_tree(outside), 0);
    free(kept);
    free(dir);
}

/* A build tree copied for an incremental build elsewhere: contents, modes, links
 * (not followed) and modification times to the nanosecond, read-only directories
 * included; a file given as the source is refused. */
static void copy_tree_keeps_contents_modes_links_and_times(void **state)
{
    char outside[] = "/tmp/culprit-outside-XXXXXX", to[] = "/tmp/culprit-copy-XXXXXX";
    struct timespec old[2] = {{1000000000, 123456789}, {1000000000, 123456789}};
    char *dir, *from_o, *to_o, *link_path, target[PATH_MAX];
    struct stat a, b;
    ssize_t n;
    (void)state;

    assert_non_null(mkdtemp(outside));
    assert_non_null(mkdtemp(to));
    dir = make_tree(outside);
    from_o = culprit_fs_join(dir, "a/b/c/deep.o");
    assert_int_equal(utimensat(AT_FDCWD, from_o, old, 0), 0);
    assert_int_equal(chmod(from_o, 0751), 0);
    assert_int_equal(culprit_fs_copy_tree(dir, to), 0);

    to_o = culprit_fs_join(to, "a/b/c/deep.o");
    assert_int_equal(stat(to_o, &b), 0);
    assert_int_equal(stat(from_o, &a), 0);
    assert_int_not_equal(a.st_ino, b.st_ino); /* a copy, not a link */
    assert_int_equal(b.st_mtim.tv_sec, 1000000000);
    assert_int_equal(b.st_mtim.tv_nsec, 123456789);
    assert_int_equal(b.st_mode & 07777, 0751);
    assert_int_equal(b.st_size, 1);
    free(to_o);
    to_o = culprit_fs_join(to, "a/ro");
    assert_int_equal(stat(to_o, &b), 0);
    assert_int_equal(b.st_mode & 07777, 0500);
    link_path = culprit_fs_join(to, "a/out");
    assert_int_equal(lstat(link_path, &b), 0);
    assert_true(S_ISLNK(b.st_mode));
    n = readlink(link_path, target, sizeof(target) - 1);
    assert_true(n > 0);
    target[n] = '\0';
    assert_string_equal(target, outside);

    assert_int_equal(culprit_fs_copy_tree(from_o, to), CULPRIT_EINVALID);
    assert_int_equal(culprit_fs_copy_tree("", to), CULPRIT_EINVALID);
    assert_int_equal(culprit_fs_remove_tree(to), 0);
    assert_int_equal(culprit_fs_remove_tree(dir), 0);
    assert_int_equal(culprit_fs_remove_tree(outside), 0);
    free(link_path);
    free(to_o);
    free(from_o);
    free(dir);
}

static void remove_trees_signal_safe_removes_them_all(void **state)
{
    char outside[] = "/tmp/culprit-outside-XXXXXX";
    struct stat st;
    char *paths[2];
    (void)state;

    assert_non_null(mkdtemp(outside));
    paths[0] = make_tree(outside);
    paths[1] = make_tree(outside);
    assert_int_equal(culprit_fs_remove_trees_signal_safe(paths, 2), 0);
    assert_int_equal(lstat(paths[0], &st), -1);
    assert_int_equal(lstat(paths[1], &st), -1);
    assert_int_equal(stat(outside, &st), 0);
    assert_int_equal(culprit_fs_remove_trees_signal_safe(paths, 0), 0);
    assert_int_equal(culprit_fs_remove_tree(outside), 0);
    free(paths[0]);
    free(paths[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(error_prefix_puts_context_in_front_and_keeps_the_code),
        cmocka_unit_test(error_save_and_restore_survive_cleanup_errors),
        cmocka_unit_test(str_set_replaces_copies_and_clears),
        cmocka_unit_test(str_hash_is_fnv1a_64),
        cmocka_unit_test(remove_tree_removes_everything_and_follows_no_link),
        cmocka_unit_test(remove_trees_signal_safe_removes_them_all),
        cmocka_unit_test(copy_tree_keeps_contents_modes_links_and_times),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
