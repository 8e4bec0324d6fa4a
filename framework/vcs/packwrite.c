/*
 * Many blobs written as one pack file of the object database (git's pack format,
 * version 2, with its index version 2: gitformat-pack(5)), for `culprit history
 * push`. Written as loose objects, each run file was compressed by libgit2, read
 * back and inflated by `git pack-objects`, compressed again for the pack it sends and
 * inflated by the receiver: 1,000 runs of 1,000 tests (1.1 GB) cost 61 s of CPU, 75%
 * of it in zlib. A pack is sent as it is (git reuses packed data), so each blob is
 * compressed once, here, and inflated once, by the receiver.
 *
 * The blobs of a batch are hashed and compressed on several threads
 * (culprit_vcs_blobs_add_many, core's culprit_parallel_for) and written in their order.
 *
 * Every blob is stored whole (no deltas: run files differ in their samples, and a
 * delta search cost more than it saved, remote.c). The pack is written under
 * objects/pack/tmp_pack_XXXXXX (git's own name for a pack being written, which `git
 * gc` removes when a crash left one) and renamed to pack-<checksum>.pack, then its
 * index beside it: a reader sees the pack only once its index is there.
 */
#include "vcs_internal.h"

#include "culprit/core.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

typedef struct {
    git_oid oid;
    uint64_t offset;
    uint32_t crc;
    char *hex; /* the key of `seen` (a stable pointer) */
} pack_entry;

struct culprit_vcs_blobs {
    culprit_vcs *repo;
    git_odb *odb;
    char *dir;  /* objects/pack/ */
    char *temp; /* the pack being written, NULL once moved */
    int fd;
    int made; /* the temporary file exists */
    uint64_t size;
    pack_entry *entries;
    size_t n, alloc;
    culprit_strmap seen;
};

static int io_error(const char *what, const char *path)
{
    return culprit_error_set_os("cannot %s '%s'", what, path);
}

static int write_all(int fd, const void *data, size_t len, const char *path)
{
    const char *p = data;

    while (len > 0) {
        ssize_t k = write(fd, p, len);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return io_error("write", path);
        p += k, len -= (size_t)k;
    }
    return 0;
}

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8), p[3] = (unsigned char)v;
}

int culprit_vcs_blobs_begin(culprit_vcs_blobs **out, culprit_vcs *repo)
{
    culprit_vcs_blobs *w = calloc(1, sizeof(*w));
    git_buf objects = GIT_BUF_INIT;
    /* "PACK", version 2, the count (written at the end). */
    unsigned char header[12] = {'P', 'A', 'C', 'K', 0, 0, 0, 2, 0, 0, 0, 0};
    int error = 0;

    *out = NULL;
    if (!w)
        return CULPRIT_ERROR_NOMEM();
    w->repo = repo;
    w->fd = -1;
    if (git_repository_odb(&w->odb, repo->git) < 0 ||
        git_repository_item_path(&objects, repo->git, GIT_REPOSITORY_ITEM_OBJECTS) < 0) {
        error = culprit_vcs__git_error(CULPRIT_ERROR, "cannot open the object database");
        goto cleanup;
    }
    if (!(w->dir = culprit_fs_join(objects.ptr, "pack")) ||
        !(w->temp = culprit_fs_join(w->dir, "tmp_pack_XXXXXX"))) {
        error = CULPRIT_ERROR;
        goto cleanup;
    }
    if ((error = culprit_fs_mkdir_p(w->dir)) < 0)
        goto cleanup;
    if ((w->fd = mkstemp(w->temp)) < 0) {
        error = io_error("create", w->temp);
        goto cleanup;
    }
    w->made = 1;
    w->size = sizeof(header);
    error = write_all(w->fd, header, sizeof(header), w->temp);
cleanup:
    git_buf_dispose(&objects);
    if (error < 0)
        culprit_vcs_blobs_free(w);
    else
        *out = w;
    return error;
}

/* The entry's header: type 3 (blob) and the size, 4 bits then 7 bits a byte. */
static size_t entry_header(unsigned char out[16], size_t len)
{
    size_t k = 0;
    unsigned char c = (unsigned char)(3 << 4 | (len & 15));

    for (len >>= 4; len; len >>= 7) {
        out[k++] = c | 0x80;
        c = (unsigned char)(len & 0x7f);
    }
    out[k++] = c;
    return k;
}

/* A blob on its way into the pack: hashed, then compressed when new, on any thread
 * (culprit_vcs_blobs_add_many), then written in its order on the calling one. */
typedef struct {
    const char *data;
    size_t len;
    git_oid id;
    int fresh;          /* neither in the object database nor in this pack: to be written */
    const char *failed; /* what went wrong (its message, set on the calling thread) */
    unsigned char header[16];
    size_t nheader;
    culprit_buf z; /* the compressed bytes */
    uint32_t crc;
} blob;

/* Its id: git's, the SHA-1 of "blob <size>\0" and the bytes, by mbed TLS (sha1.c).
 * libgit2's git_odb_hash() is the same SHA-1 with collision detection (sha1dc), which
 * took twice as long, a tenth of a push of 1,000 runs; the receiving git computes
 * every id again, with the detection, before it takes the pack. */
static void hash_blob(blob *b)
{
    char head[32];
    int n = snprintf(head, sizeof(head), "blob %zu", b->len);
    culprit_vcs__sha1 sha;

    culprit_vcs__sha1_init(&sha);
    culprit_vcs__sha1_update(&sha, head, (size_t)n + 1); /* with its NUL */
    culprit_vcs__sha1_update(&sha, b->data, b->len);
    if (culprit_vcs__sha1_final(b->id.id, &sha) < 0)
        b->failed = "cannot hash a file of the history store";
}

static void compress_blob(blob *b)
{
    uLongf zlen = compressBound((uLong)b->len);

    b->nheader = entry_header(b->header, b->len);
    if (culprit_buf_grow(&b->z, (size_t)zlen) < 0) {
        b->failed = "out of memory";
        return;
    }
    /* The fastest level, as git and libgit2 compress loose objects: the level-6 pack
     * `git push` made was 9% smaller and took 15% longer to compress. */
    if (compress2((Bytef *)b->z.ptr, &zlen, (const Bytef *)b->data, (uLong)b->len, Z_BEST_SPEED) !=
        Z_OK) {
        b->failed = "cannot compress a file of the history store";
        return;
    }
    b->z.size = (size_t)zlen;
    b->z.ptr[b->z.size] = '\0';
    b->crc =
        (uint32_t)crc32(crc32(0, b->header, (uInt)b->nheader), (const Bytef *)b->z.ptr, (uInt)zlen);
}

/* Appends the compressed blob to the pack and records its entry. */
static int append_blob(culprit_vcs_blobs *w, const blob *b)
{
    pack_entry *e;
    int error;

    if ((error = culprit_array_grow(&w->entries, &w->alloc, w->n, sizeof(*w->entries), 64)) < 0)
        return error;
    e = &w->entries[w->n];
    e->oid = b->id;
    e->offset = w->size;
    e->crc = b->crc;
    if (!(e->hex = malloc(GIT_OID_HEXSZ + 1)))
        return CULPRIT_ERROR_NOMEM();
    git_oid_tostr(e->hex, GIT_OID_HEXSZ + 1, &b->id);
    w->n++;
    if ((error = culprit_strmap_put(&w->seen, e->hex, w->n - 1, NULL)) < 0 ||
        (error = write_all(w->fd, b->header, b->nheader, w->temp)) < 0 ||
        (error = write_all(w->fd, b->z.ptr, b->z.size, w->temp)) < 0)
        return error;
    w->size += b->nheader + (uint64_t)b->z.size;
    return 0;
}

/* Its id in `oid`, and whether the pack still lacks it (neither the database nor an
 * earlier blob of this pack has it; the caller adds it to `seen` when written). */
static int blob_fresh(char oid[41], culprit_vcs_blobs *w, const blob *b)
{
    git_oid_tostr(oid, 41, &b->id);
    return !culprit_strmap_get(&w->seen, oid, NULL) && !git_odb_exists(w->odb, &b->id);
}

int culprit_vcs_blobs_add(char oid[41], culprit_vcs_blobs *w, const char *data, size_t len)
{
    blob b = {.data = data, .len = len};
    int error = 0;

    oid[0] = '\0';
    if (w->fd < 0)
        return culprit_error_set(CULPRIT_EINVALID, "the pack is closed");
    hash_blob(&b);
    if (b.failed)
        return culprit_error_set(CULPRIT_ERROR, "%s", b.failed);
    if (!blob_fresh(oid, w, &b))
        return 0;
    compress_blob(&b);
    error = b.failed ? culprit_error_set(CULPRIT_ERROR, "%s", b.failed) : append_blob(w, &b);
    culprit_buf_dispose(&b.z);
    return error;
}

static void hash_one(size_t i, void *arg)
{
    hash_blob(&((blob *)arg)[i]);
}

static void compress_one(size_t i, void *arg)
{
    blob *b = &((blob *)arg)[i];

    if (b->fresh)
        compress_blob(b);
}

/* Marks the blobs to write: new to the pack, and not an earlier one of `bs` again. */
static int mark_fresh(char (*oids)[41], culprit_vcs_blobs *w, blob *bs, size_t n)
{
    culprit_strmap batch = CULPRIT_STRMAP_INIT; /* ids borrowed from `oids` */
    int error = 0;

    for (size_t i = 0; i < n && error == 0; i++) {
        bs[i].fresh = blob_fresh(oids[i], w, &bs[i]) && !culprit_strmap_get(&batch, oids[i], NULL);
        if (bs[i].fresh)
            error = culprit_strmap_put(&batch, oids[i], i, NULL);
    }
    culprit_strmap_dispose(&batch);
    return error;
}

int culprit_vcs_blobs_add_many(char (*oids)[41], culprit_vcs_blobs *w, const char *const *data,
                               const size_t *len, size_t n)
{
    blob *bs = calloc(n ? n : 1, sizeof(*bs));
    int error = 0;

    for (size_t i = 0; i < n; i++)
        oids[i][0] = '\0';
    if (!bs)
        return CULPRIT_ERROR_NOMEM();
    if (w->fd < 0) {
        error = culprit_error_set(CULPRIT_EINVALID, "the pack is closed");
        goto cleanup;
    }
    for (size_t i = 0; i < n; i++)
        bs[i].data = data[i], bs[i].len = len[i];
    if ((error = culprit_parallel_for(n, hash_one, bs)) < 0)
        goto cleanup;
    for (size_t i = 0; i < n; i++)
        if (bs[i].failed) {
            error = culprit_error_set(CULPRIT_ERROR, "%s", bs[i].failed);
            goto cleanup;
        }
    if ((error = mark_fresh(oids, w, bs, n)) < 0 ||
        (error = culprit_parallel_for(n, compress_one, bs)) < 0)
        goto cleanup;
    for (size_t i = 0; i < n && error == 0; i++)
        if (bs[i].failed)
            error = culprit_error_set(CULPRIT_ERROR, "%s", bs[i].failed);
        else if (bs[i].fresh)
            error = append_blob(w, &bs[i]);
cleanup:
    for (size_t i = 0; i < n; i++)
        culprit_buf_dispose(&bs[i].z);
    free(bs);
    return error;
}

/* The pack's count, then its checksum: the SHA-1 of everything before it, read
 * back (from the page cache) rather than hashed while writing, since the count at
 * its start is known only now. */
static int close_pack(unsigned char sum[20], culprit_vcs_blobs *w)
{
    unsigned char count[4], buf[65536];
    culprit_vcs__sha1 sha;
    ssize_t k;
    int error;

    put32(count, (uint32_t)w->n);
    if (pwrite(w->fd, count, 4, 8) != 4 || lseek(w->fd, 0, SEEK_SET) != 0)
        return io_error("write", w->temp);
    culprit_vcs__sha1_init(&sha);
    while ((k = read(w->fd, buf, sizeof(buf))) != 0) {
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            break;
        culprit_vcs__sha1_update(&sha, buf, (size_t)k);
    }
    if ((error = culprit_vcs__sha1_final(sum, &sha)) < 0)
        return error;
    if (k < 0)
        return io_error("read", w->temp);
    return write_all(w->fd, sum, 20, w->temp);
}

static int compare_entries(const void *a, const void *b)
{
    return git_oid_cmp(&((const pack_entry *)a)->oid, &((const pack_entry *)b)->oid);
}

/* The index (version 2): the fan-out, the sorted ids, their CRC-32s, their offsets
 * (above 2^31 through the table of 8-byte offsets), the pack's checksum and its
 * own. */
static int build_index(culprit_buf *idx, culprit_vcs_blobs *w, const unsigned char sum[20])
{
    unsigned char b[8] = {0xff, 't', 'O', 'c', 0, 0, 0, 2}, own[20];
    culprit_vcs__sha1 sha;
    uint32_t nlarge = 0;
    size_t k = 0;
    int error = culprit_buf_put(idx, (const char *)b, 8);

    qsort(w->entries, w->n, sizeof(*w->entries), compare_entries);
    for (unsigned int byte = 0; byte < 256 && error == 0; byte++) {
        while (k < w->n && w->entries[k].oid.id[0] <= byte)
            k++;
        put32(b, (uint32_t)k);
        error = culprit_buf_put(idx, (const char *)b, 4);
    }
    for (size_t i = 0; i < w->n && error == 0; i++)
        error = culprit_buf_put(idx, (const char *)w->entries[i].oid.id, GIT_OID_RAWSZ);
    for (size_t i = 0; i < w->n && error == 0; i++) {
        put32(b, w->entries[i].crc);
        error = culprit_buf_put(idx, (const char *)b, 4);
    }
    for (size_t i = 0; i < w->n && error == 0; i++) {
        int large = w->entries[i].offset >= 0x80000000u;
        put32(b, large ? 0x80000000u | nlarge++ : (uint32_t)w->entries[i].offset);
        error = culprit_buf_put(idx, (const char *)b, 4);
    }
    for (size_t i = 0; i < w->n && error == 0; i++) {
        if (w->entries[i].offset < 0x80000000u)
            continue;
        put32(b, (uint32_t)(w->entries[i].offset >> 32));
        put32(b + 4, (uint32_t)w->entries[i].offset);
        error = culprit_buf_put(idx, (const char *)b, 8);
    }
    if (error == 0)
        error = culprit_buf_put(idx, (const char *)sum, 20);
    if (error < 0)
        return error;
    culprit_vcs__sha1_init(&sha);
    culprit_vcs__sha1_update(&sha, idx->ptr, idx->size);
    if ((error = culprit_vcs__sha1_final(own, &sha)) < 0)
        return error;
    return culprit_buf_put(idx, (const char *)own, 20);
}

/* Writes the index beside the pack and moves both to their names (the pack first:
 * git and libgit2 look for packs by their index). Read-only, as git leaves them. */
static int install(culprit_vcs_blobs *w, const unsigned char sum[20], const culprit_buf *idx)
{
    culprit_buf pack = CULPRIT_BUF_INIT, index = CULPRIT_BUF_INIT;
    char hex[41], *temp_idx = culprit_fs_join(w->dir, "tmp_idx_XXXXXX");
    int fd = -1, error = 0;

    for (int i = 0; i < 20; i++)
        snprintf(hex + 2 * i, 3, "%02x", sum[i]);
    if (!temp_idx || (error = culprit_buf_printf(&pack, "%s/pack-%s.pack", w->dir, hex)) < 0 ||
        (error = culprit_buf_printf(&index, "%s/pack-%s.idx", w->dir, hex)) < 0) {
        error = CULPRIT_ERROR;
        goto cleanup;
    }
    if ((fd = mkstemp(temp_idx)) < 0) {
        error = io_error("create", temp_idx);
        goto cleanup;
    }
    if ((error = write_all(fd, idx->ptr, idx->size, temp_idx)) < 0)
        goto cleanup;
    if (fchmod(w->fd, 0444) < 0 || fchmod(fd, 0444) < 0 || rename(w->temp, pack.ptr) < 0) {
        error = io_error("move the pack", w->temp);
        goto cleanup;
    }
    w->made = 0;
    if (rename(temp_idx, index.ptr) < 0)
        error = io_error("move the pack index", temp_idx);
cleanup:
    if (fd >= 0) {
        close(fd);
        if (error < 0)
            unlink(temp_idx);
    }
    culprit_buf_dispose(&pack);
    culprit_buf_dispose(&index);
    free(temp_idx);
    return error;
}

int culprit_vcs_blobs_finish(culprit_vcs_blobs *w)
{
    culprit_buf idx = CULPRIT_BUF_INIT;
    unsigned char sum[20];
    int error = 0;

    if (w->fd < 0)
        return culprit_error_set(CULPRIT_EINVALID, "the pack is closed");
    if (w->n > 0 && ((error = close_pack(sum, w)) < 0 || (error = build_index(&idx, w, sum)) < 0 ||
                     (error = install(w, sum, &idx)) < 0))
        goto cleanup;
    if (w->n > 0 && git_odb_refresh(w->odb) < 0)
        error = culprit_vcs__git_error(CULPRIT_ERROR, "cannot read the new pack");
cleanup:
    close(w->fd);
    w->fd = -1;
    culprit_buf_dispose(&idx);
    return error;
}

void culprit_vcs_blobs_free(culprit_vcs_blobs *w)
{
    if (!w)
        return;
    if (w->fd >= 0)
        close(w->fd);
    if (w->temp && w->made) /* created, never moved: an unfinished pack */
        unlink(w->temp);
    for (size_t i = 0; i < w->n; i++)
        free(w->entries[i].hex);
    free(w->entries);
    culprit_strmap_dispose(&w->seen);
    git_odb_free(w->odb);
    free(w->temp);
    free(w->dir);
    free(w);
}
