/* Tests of the pack of blobs `culprit history push` writes (framework/vcs/packwrite.c,
 * sha1.c): the SHA-1 of the standard's test vectors, fed in uneven pieces; blobs read
 * back through libgit2 and through the git command line, a pack that `git
 * verify-pack` and `git fsck --full` accept (its index's CRCs and checksums, a
 * size header of several bytes), a blob the pack or the database holds already not
 * written twice, and no file left by an empty or an abandoned pack. */
#include "support/test.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "culprit/core.h"
#include "culprit/vcs.h"
#include "support/git_fixture.h"
#include "support/tmpdir.h"
#include "vcs/vcs_internal.h"

static char dir[PATH_MAX], repo[PATH_MAX + 8];

static int setup(void **state)
{
    (void)state;
    if (test_tmpdir_make(dir, sizeof(dir), "pack") < 0)
        return -1;
    snprintf(repo, sizeof(repo), "%s/repo", dir);
    run(GIT " init -q '%s' && " GIT " -C '%s' commit -q --allow-empty -m first", repo, repo);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    test_tmpdir_remove(dir);
    return 0;
}

static void sha1_hex(char out[41], const char *data, size_t len, size_t piece)
{
    culprit_vcs__sha1 s;
    unsigned char sum[20];

    culprit_vcs__sha1_init(&s);
    for (size_t off = 0; off < len; off += piece)
        culprit_vcs__sha1_update(&s, data + off, len - off < piece ? len - off : piece);
    assert_int_equal(culprit_vcs__sha1_final(sum, &s), 0);
    for (int i = 0; i < 20; i++)
        snprintf(out + 2 * i, 3, "%02x", sum[i]);
}

static void sha1_matches_the_standard_vectors(void **state)
{
    static const char two_blocks[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    char hex[41], *million = malloc(1000000);
    (void)state;

    sha1_hex(hex, "", 0, 1);
    assert_string_equal(hex, "da39a3ee5e6b4b0d3255bfef95601890afd80709");
    sha1_hex(hex, "abc", 3, 1);
    assert_string_equal(hex, "a9993e364706816aba3e25717850c26c9cd0d89d");
    for (size_t piece = 1; piece <= 64; piece += 7) {
        sha1_hex(hex, two_blocks, strlen(two_blocks), piece);
        assert_string_equal(hex, "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
    }
    assert_non_null(million);
    memset(million, 'a', 1000000);
    sha1_hex(hex, million, 1000000, 4093);
    assert_string_equal(hex, "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
    free(million);
}

/* The number of files in the repository's pack directory whose names start with
 * `prefix`. */
static int count_files(const char *prefix)
{
    char out[64];

    output_of(out, sizeof(out), "ls '%s/.git/objects/pack' | grep -c '^%s' || true", repo, prefix);
    return atoi(out);
}

static void blobs_are_one_pack_that_git_reads(void **state)
{
    culprit_vcs *vcs = NULL;
    culprit_vcs_blobs *w = NULL;
    culprit_buf back = CULPRIT_BUF_INIT;
    size_t big_len = 300000; /* incompressible, a size header of 3 bytes */
    char *big = malloc(big_len), a[41], b[41], again[41], loose[41], old[41];
    unsigned int x = 12345;
    int packs;
    (void)state;

    assert_non_null(big);
    for (size_t i = 0; i < big_len; i++)
        big[i] = (char)((x = x * 1103515245u + 12345u) >> 24);
    assert_int_equal(culprit_vcs_open(&vcs, repo), 0);
    assert_int_equal(culprit_vcs_blob_write(loose, vcs, "already there", 13), 0);
    packs = count_files("pack-");

    assert_int_equal(culprit_vcs_blobs_begin(&w, vcs), 0);
    assert_int_equal(culprit_vcs_blobs_add(a, w, "<run/>\n", 7), 0);
    assert_int_equal(culprit_vcs_blobs_add(b, w, big, big_len), 0);
    assert_int_equal(culprit_vcs_blobs_add(again, w, "<run/>\n", 7), 0);
    assert_int_equal(culprit_vcs_blobs_add(old, w, "already there", 13), 0);
    assert_string_equal(again, a);
    assert_string_equal(old, loose);
    assert_int_equal(culprit_vcs_blobs_finish(w), 0);
    culprit_vcs_blobs_free(w);

    /* Readable at once through the same handle, and by git. */
    assert_int_equal(culprit_vcs_blob_read(&back, vcs, a, 0), 0);
    assert_int_equal(back.size, 7);
    assert_memory_equal(back.ptr, "<run/>\n", 7);
    culprit_buf_clear(&back);
    assert_int_equal(culprit_vcs_blob_read(&back, vcs, b, 0), 0);
    assert_int_equal(back.size, big_len);
    assert_memory_equal(back.ptr, big, big_len);
    output_of(old, sizeof(old), "git -C '%s' hash-object -t blob --stdin <<'EOF'\n<run/>\nEOF",
              repo);
    assert_string_equal(old, a);
    /* One new pack of two blobs (neither the duplicate nor the loose one again). */
    assert_int_equal(count_files("pack-"), packs + 2);
    assert_int_equal(count_files("tmp_"), 0);
    run("cd '%s/.git/objects/pack' && for i in pack-*.idx; do git verify-pack \"$i\"; done", repo);
    output_of(old, sizeof(old),
              "cd '%s' && git verify-pack -v .git/objects/pack/pack-*.idx | grep -c ' blob '",
              repo);
    assert_string_equal(old, "2");
    run("git -C '%s' fsck --full --no-dangling", repo);
    run("test \"$(git -C '%s' cat-file -p %s)\" = '<run/>'", repo, a);

    culprit_buf_dispose(&back);
    free(big);
    culprit_vcs_free(vcs);
}

/* Many blobs at once (hashed and compressed on several threads): the ids
 * culprit_vcs_blobs_add() gives, one written for a blob given twice in one call or
 * held by the database already, each read back whole; the same with one thread. */
static void many_blobs_at_once_are_the_blobs_added_one_by_one(void **state)
{
    enum { N = 40 };
    culprit_vcs *vcs = NULL;
    culprit_vcs_blobs *w = NULL;
    culprit_buf back = CULPRIT_BUF_INIT;
    char *bufs[N], oids[N][41], one[41], count[16];
    const char *data[N];
    size_t len[N];
    unsigned int x = 777;
    (void)state;

    assert_int_equal(culprit_vcs_open(&vcs, repo), 0);
    assert_int_equal(culprit_vcs_blob_write(one, vcs, "held loose", 10), 0);
    for (size_t i = 0; i < N; i++) {
        len[i] = 1000 + 5000 * i; /* up to 196 KB, half of it incompressible */
        assert_non_null(bufs[i] = malloc(len[i]));
        for (size_t k = 0; k < len[i]; k++)
            bufs[i][k] =
                k % 2 ? 'a' + (char)(i % 26) : (char)((x = x * 1103515245u + 12345u) >> 24);
        data[i] = bufs[i];
    }
    data[7] = data[3], len[7] = len[3];  /* the same blob twice in one call */
    data[9] = "held loose", len[9] = 10; /* one the database holds */
    for (int threads = 1; threads <= 4; threads += 3) {
        char env[8];
        snprintf(env, sizeof(env), "%d", threads);
        setenv("CULPRIT_THREADS", env, 1);
        bufs[0][0] ^= 1; /* a new blob in each round */
        assert_int_equal(culprit_vcs_blobs_begin(&w, vcs), 0);
        assert_int_equal(culprit_vcs_blobs_add_many(oids, w, data, len, N), 0);
        assert_int_equal(culprit_vcs_blobs_finish(w), 0);
        culprit_vcs_blobs_free(w);
        for (size_t i = 0; i < N; i++) {
            assert_int_equal(culprit_vcs_blobs_begin(&w, vcs), 0);
            assert_int_equal(culprit_vcs_blobs_add(one, w, data[i], len[i]), 0);
            culprit_vcs_blobs_free(w);
            assert_string_equal(oids[i], one);
            culprit_buf_clear(&back);
            assert_int_equal(culprit_vcs_blob_read(&back, vcs, oids[i], 0), 0);
            assert_int_equal(back.size, len[i]);
            assert_memory_equal(back.ptr, data[i], len[i]);
        }
    }
    unsetenv("CULPRIT_THREADS");
    /* Each call's pack holds N - 2 blobs: the repeated one and the held one left out
     * (the second call's only new blob is bufs[0], changed). */
    output_of(count, sizeof(count),
              "cd '%s' && for i in .git/objects/pack/pack-*.idx; do git verify-pack -v $i; done "
              "| grep -c ' blob '",
              repo);
    assert_int_equal(atoi(count), 2 + (N - 2) + 1);
    run("git -C '%s' fsck --full --no-dangling", repo);
    for (size_t i = 0; i < N; i++)
        free(bufs[i]);
    culprit_buf_dispose(&back);
    culprit_vcs_free(vcs);
}

/* Issue 23: the ids of packed blobs come from mbed TLS's SHA-1 (not libgit2's): they
 * are the ids libgit2 gives the same bytes, at every length around SHA-1's 64-byte
 * blocks (the "blob N" header shifts them) and beyond. */
static void packed_blob_ids_are_libgit2s_at_every_size(void **state)
{
    culprit_vcs *vcs = NULL;
    culprit_vcs_blobs *w = NULL;
    char *data = malloc(70000), mine[41], theirs[41];
    size_t sizes[200], n = 0;
    (void)state;

    assert_non_null(data);
    for (size_t i = 0; i < 70000; i++)
        data[i] = (char)('a' + (i * 7 + i / 13) % 26);
    for (size_t len = 0; len < 140; len++)
        sizes[n++] = len;
    sizes[n++] = 4095, sizes[n++] = 4096, sizes[n++] = 65536, sizes[n++] = 70000;
    assert_int_equal(culprit_vcs_open(&vcs, repo), 0);
    for (size_t i = 0; i < n; i++) {
        data[0] = (char)('A' + i % 26); /* not held by the database yet */
        assert_int_equal(culprit_vcs_blobs_begin(&w, vcs), 0);
        assert_int_equal(culprit_vcs_blobs_add(mine, w, data, sizes[i]), 0);
        culprit_vcs_blobs_free(w);
        assert_int_equal(culprit_vcs_blob_write(theirs, vcs, data, sizes[i]), 0);
        assert_string_equal(mine, theirs);
    }
    culprit_vcs_free(vcs);
    free(data);
}

static void empty_and_abandoned_packs_leave_no_file(void **state)
{
    culprit_vcs *vcs = NULL;
    culprit_vcs_blobs *w = NULL;
    char oid[41];
    int packs;
    (void)state;

    assert_int_equal(culprit_vcs_open(&vcs, repo), 0);
    packs = count_files("pack-");
    assert_int_equal(culprit_vcs_blobs_begin(&w, vcs), 0);
    assert_int_equal(culprit_vcs_blobs_finish(w), 0);
    culprit_vcs_blobs_free(w);
    assert_int_equal(culprit_vcs_blobs_begin(&w, vcs), 0);
    assert_int_equal(culprit_vcs_blobs_add(oid, w, "never finished", 14), 0);
    assert_int_equal(count_files("tmp_pack_"), 1);
    culprit_vcs_blobs_free(w);
    assert_int_equal(count_files("tmp_"), 0);
    assert_int_equal(count_files("pack-"), packs);
    culprit_vcs_free(vcs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sha1_matches_the_standard_vectors),
        cmocka_unit_test(blobs_are_one_pack_that_git_reads),
        cmocka_unit_test(many_blobs_at_once_are_the_blobs_added_one_by_one),
        cmocka_unit_test(packed_blob_ids_are_libgit2s_at_every_size),
        cmocka_unit_test(empty_and_abandoned_packs_leave_no_file),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
