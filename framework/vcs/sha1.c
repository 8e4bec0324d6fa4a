/*
 * SHA-1 over a stream, for the checksums that close a pack file and its index
 * (packwrite.c): git names and verifies packs by them, and libgit2 exposes no
 * streaming hash. The hash is mbed TLS's (libmbedcrypto, which Debian's libgit2 is
 * built with, so libgit2-dev brings its headers). It also gives the ids of the blobs
 * `history push` packs (the local run files): twice as fast as libgit2's SHA-1 with
 * collision detection, which the receiving git applies to every object anyway.
 */
#include "vcs_internal.h"

void culprit_vcs__sha1_init(culprit_vcs__sha1 *s)
{
    mbedtls_md_init(&s->md);
    s->ok = mbedtls_md_setup(&s->md, mbedtls_md_info_from_type(MBEDTLS_MD_SHA1), 0) == 0 &&
            mbedtls_md_starts(&s->md) == 0;
}

void culprit_vcs__sha1_update(culprit_vcs__sha1 *s, const void *data, size_t len)
{
    if (s->ok && len)
        s->ok = mbedtls_md_update(&s->md, data, len) == 0;
}

int culprit_vcs__sha1_final(unsigned char out[20], culprit_vcs__sha1 *s)
{
    int ok = s->ok && mbedtls_md_finish(&s->md, out) == 0;

    mbedtls_md_free(&s->md);
    return ok ? 0 : culprit_error_set(CULPRIT_ERROR, "cannot compute a pack's SHA-1 checksum");
}
