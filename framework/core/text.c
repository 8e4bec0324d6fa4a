/*
 * Names from data, made safe for where they go. A test, suite, category or function
 * name comes from a test author, a file, another machine's history or a pull
 * request: it may hold line breaks, terminal escapes, bytes that are not UTF-8, a
 * '/' or "..". Each kind of output has one escaping function, here or beside its
 * format, and every writer of that output uses it (docs/history-format.md, "Names"):
 *
 *   terminal and plain-text logs   culprit_buf_put_text()     "\xNN"
 *   XML (history, JUnit) and JSON  culprit_buf_put_utf8()     "\xNN" for what cannot be carried
 *   file names                     culprit_fs_name()          "%XX", "~HASH" when too long
 *   Markdown, HTML                 the report module's escapers
 *   folded stacks                  the calltree module's folded writer
 *
 * The "\xNN" form is the same everywhere, so a name reads the same in the terminal,
 * in a JUnit report and in the history, and two names that differ stay different.
 */
#include "culprit/core.h"

#include <string.h>

size_t culprit_utf8_char_len(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    unsigned int c = p[0], cp;
    size_t len;

    if (c < 0x80)
        return c ? 1 : 0;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
        cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80) /* also stops at the NUL terminator */
            return 0;
        cp = (cp << 6) | (p[i] & 0x3f);
    }
    /* Overlong forms, surrogates and code points beyond U+10FFFF are not UTF-8. */
    if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

typedef enum { KIND_TERMINAL, KIND_UTF8, KIND_XML } kind;

/* The length of the character at p when `k` keeps it as it is, else 0. */
static size_t kept(const unsigned char *p, kind k)
{
    size_t len;

    if (p[0] < 0x80) {          /* ASCII, nearly every name: decided here */
        if (k == KIND_TERMINAL) /* C0 and DEL move the cursor, ring, recolour */
            return p[0] >= 0x20 && p[0] != 0x7f;
        if (k == KIND_XML)
            return p[0] >= 0x20 || p[0] == '\t' || p[0] == '\n' || p[0] == '\r';
        return p[0] != 0;
    }
    len = culprit_utf8_char_len((const char *)p);
    /* C1 (U+0080-U+009F): CSI among them, which some terminals obey. */
    if (len == 2 && k == KIND_TERMINAL && p[0] == 0xc2 && p[1] < 0xa0)
        return 0;
    /* U+FFFE and U+FFFF are not XML characters. */
    if (len == 3 && k == KIND_XML && p[0] == 0xef && p[1] == 0xbf && p[2] >= 0xbe)
        return 0;
    return len;
}

/* Past what `k` keeps from p on: printable ASCII, which every kind keeps, a byte at a
 * time without a call (the escaping of 100,000 verdict lines was 6% of `compare`). */
static const unsigned char *skip_kept(const unsigned char *p, kind k)
{
    size_t len;

    for (;;) {
        while (*p >= 0x20 && *p < 0x7f)
            p++;
        if (!(len = kept(p, k)))
            return p;
        p += len;
    }
}

static int put_escaped(culprit_buf *buf, const char *s, kind k)
{
    const unsigned char *p = (const unsigned char *)s;

    while (*p) {
        const unsigned char *start = p;
        p = skip_kept(p, k);
        if (culprit_buf_put(buf, (const char *)start, (size_t)(p - start)) < 0)
            return CULPRIT_ERROR;
        if (*p && culprit_buf_printf(buf, "\\x%02x", (unsigned)*p++) < 0)
            return CULPRIT_ERROR;
    }
    return 0;
}

int culprit_buf_put_text(culprit_buf *buf, const char *name)
{
    return put_escaped(buf, name, KIND_TERMINAL);
}

int culprit_buf_put_glob_literal(culprit_buf *buf, const char *s)
{
    int error = culprit_buf_grow(buf, 0);

    for (const char *p = s; *p && error >= 0; p++)
        error =
            strchr("*?[]\\", *p) ? culprit_buf_printf(buf, "\\%c", *p) : culprit_buf_put(buf, p, 1);
    return error < 0 ? error : 0;
}

int culprit_buf_put_utf8(culprit_buf *buf, const char *s, unsigned int flags)
{
    return put_escaped(buf, s, flags & CULPRIT_TEXT_XML ? KIND_XML : KIND_UTF8);
}

const char *culprit_text_utf8(const char *s, culprit_buf *scratch, unsigned int flags)
{
    kind k = flags & CULPRIT_TEXT_XML ? KIND_XML : KIND_UTF8;
    const unsigned char *p = skip_kept((const unsigned char *)s, k);

    if (!*p)
        return s;
    culprit_buf_clear(scratch);
    return put_escaped(scratch, s, k) < 0 ? NULL : culprit_buf_cstr(scratch);
}

/* ------------------------------------------------------------- file names --- */

/* Bytes a file name keeps as they are; any other, and a leading '.', become %XX.
 * '%' itself is escaped, so the escaping is reversible, and '~' is, so a name cut
 * to length (which ends in "~HASH") never equals one that was not. */
static int plain_byte(unsigned char c, int first)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || (c == '.' && !first);
}

/* FNV-1a, 64 bits: names cut to length stay apart (not a defence against a chosen
 * collision: the real name is always kept inside the file too). */
static unsigned long long name_hash(const char *s)
{
    return culprit_str_hash(CULPRIT_STR_HASH_INIT, s, strlen(s));
}

int culprit_fs_name(culprit_buf *out, const char *name, size_t max)
{
    size_t mark = out->size, cut = 0;
    int error = culprit_buf_grow(out, 0); /* an empty name leaves out->ptr allocated */

    static const char hex[] = "0123456789ABCDEF";

    for (const unsigned char *p = (const unsigned char *)name; *p && error >= 0; p++) {
        char esc[3] = {'%', hex[*p >> 4], hex[*p & 15]};
        error = plain_byte(*p, p == (const unsigned char *)name)
                    ? culprit_buf_put(out, (const char *)p, 1)
                    : culprit_buf_put(out, esc, 3);
        /* Where a cut may fall: never inside a %XX, room left for "~" and 16 digits. */
        if (max && out->size - mark + CULPRIT_FS_NAME_HASH <= max)
            cut = out->size - mark;
    }
    if (error < 0 || (out->size > mark && (!max || out->size - mark <= max)))
        return error;
    out->size = mark + cut;
    out->ptr[out->size] = '\0';
    return culprit_buf_printf(out, "~%016llx", name_hash(name));
}
