/*
 * Names from data made safe for each output (framework/core/text.c, issue 23): the
 * terminal's escaping, UTF-8 for JSON and XML, and file names.
 */
#include "support/test.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "culprit/core.h"

static void expect_text(const char *in, const char *want)
{
    culprit_buf b = CULPRIT_BUF_INIT;
    assert_int_equal(culprit_buf_put_text(&b, in), 0);
    assert_string_equal(culprit_buf_cstr(&b), want);
    culprit_buf_dispose(&b);
}

/* Control characters (C0, DEL, C1) and bytes that are not UTF-8 cannot reach a
 * terminal; UTF-8 text and backslashes are kept. */
static void terminal_text_escapes_controls_and_broken_utf8(void **state)
{
    (void)state;
    expect_text("fib_30", "fib_30");
    expect_text("a\nb\r\t\x1b[31m\x7f", "a\\x0ab\\x0d\\x09\\x1b[31m\\x7f");
    expect_text("caf\xc3\xa9 \xe2\x86\x92", "caf\xc3\xa9 \xe2\x86\x92");
    expect_text("csi \xc2\x9b"
                "31m nbsp \xc2\xa0",
                "csi \\xc2\\x9b31m nbsp \xc2\xa0");
    expect_text("bad \xff\xfe end \xc3", "bad \\xff\\xfe end \\xc3");
    expect_text("overlong \xc0\xaf surrogate \xed\xa0\x80",
                "overlong \\xc0\\xaf surrogate \\xed\\xa0\\x80");
    expect_text("", "");
}

/* JSON keeps every character but needs UTF-8; XML 1.0 refuses more. */
static void utf8_escapes_what_json_and_xml_cannot_carry(void **state)
{
    culprit_buf b = CULPRIT_BUF_INIT, scratch = CULPRIT_BUF_INIT;
    const char *clean = "t\xc3\xa9st\nline";
    (void)state;

    assert_int_equal(culprit_buf_put_utf8(&b, "a\x01\xff\xef\xbf\xbe", 0), 0);
    assert_string_equal(b.ptr, "a\x01\\xff\xef\xbf\xbe");
    culprit_buf_clear(&b);
    assert_int_equal(culprit_buf_put_utf8(&b, "a\x01\t\n\r\xff\xef\xbf\xbe", CULPRIT_TEXT_XML), 0);
    assert_string_equal(b.ptr, "a\\x01\t\n\r\\xff\\xef\\xbf\\xbe");
    /* Nothing to escape: the string itself, no copy. */
    assert_ptr_equal(culprit_text_utf8(clean, &scratch, CULPRIT_TEXT_XML), clean);
    assert_string_equal(culprit_text_utf8("x\x1by", &scratch, CULPRIT_TEXT_XML), "x\\x1by");
    /* Escaping twice changes nothing more: a name read back from history meets the
     * name it was written from. */
    assert_string_equal(culprit_text_utf8(scratch.ptr, &b, CULPRIT_TEXT_XML), "x\\x1by");
    assert_int_equal(culprit_utf8_char_len("\xf0\x9f\x98\x80"), 4);
    assert_int_equal(culprit_utf8_char_len("\xf4\x90\x80\x80"), 0); /* beyond U+10FFFF */
    assert_int_equal(culprit_utf8_char_len(""), 0);
    culprit_buf_dispose(&b);
    culprit_buf_dispose(&scratch);
}

static char *fs_name(const char *name, size_t max)
{
    culprit_buf b = CULPRIT_BUF_INIT;
    assert_int_equal(culprit_fs_name(&b, name, max), 0);
    return culprit_buf_detach(&b);
}

static void expect_fs_name(const char *in, const char *want)
{
    char *got = fs_name(in, CULPRIT_FS_NAME_MAX);
    assert_string_equal(got, want);
    free(got);
}

/* Issue 23: a suite "../outside" wrote beside the --junit directory, "net/http"
 * failed. Every name becomes one safe, portable path component. */
static void file_names_from_data_are_one_safe_component(void **state)
{
    static const char *const hostile[] = {
        "..",       ".",        "../outside", "net/http", "/etc/passwd", ".hidden", "a\nb",
        "\x1b[31m", "\xff\xfe", "a b*?",      "C:\\x",    "~",           "%2F"};
    (void)state;

    expect_fs_name("fib_perf.fib_30", "fib_perf.fib_30");
    expect_fs_name("net/http", "net%2Fhttp");
    expect_fs_name("../outside", "%2E.%2Foutside");
    expect_fs_name(".hidden", "%2Ehidden");
    expect_fs_name("a\nb", "a%0Ab");
    expect_fs_name("a~b%c", "a%7Eb%25c");
    for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
        char *got = fs_name(hostile[i], CULPRIT_FS_NAME_MAX);
        assert_null(strchr(got, '/'));
        assert_true(got[0] != '.' && got[0] != '\0');
        for (const char *p = got; *p; p++)
            assert_true(*p > ' ' && *p < 0x7f);
        for (size_t j = 0; j < i; j++) {
            char *other = fs_name(hostile[j], CULPRIT_FS_NAME_MAX);
            assert_string_not_equal(got, other);
            free(other);
        }
        free(got);
    }
}

/* Too long or empty: cut, never inside a %XX, and ended by a hash of the whole name,
 * so names cut alike stay apart; without a limit, nothing is cut. */
static void long_and_empty_names_get_a_hash(void **state)
{
    char a[400], b[400], *x, *y, *z;
    (void)state;

    memset(a, 'a', sizeof(a) - 1);
    a[sizeof(a) - 1] = '\0';
    memcpy(b, a, sizeof(a));
    b[398] = 'b';
    x = fs_name(a, CULPRIT_FS_NAME_MAX);
    y = fs_name(b, CULPRIT_FS_NAME_MAX);
    assert_int_equal(strlen(x), CULPRIT_FS_NAME_MAX);
    assert_int_equal(x[CULPRIT_FS_NAME_MAX - CULPRIT_FS_NAME_HASH], '~');
    assert_string_not_equal(x, y);
    free(x);
    free(y);
    memset(a, '/', 100);
    x = fs_name(a, CULPRIT_FS_NAME_MAX);
    assert_true(strlen(x) <= CULPRIT_FS_NAME_MAX);
    z = strchr(x, '~');
    assert_non_null(z);
    assert_int_equal((z - x) % 3, 0); /* whole %2F only */
    free(x);
    x = fs_name("", CULPRIT_FS_NAME_MAX);
    assert_int_equal(x[0], '~');
    assert_int_equal(strlen(x), CULPRIT_FS_NAME_HASH);
    free(x);
    x = fs_name(b, 0);
    assert_int_equal(strlen(x), strlen(b));
    free(x);
}

/* "did you mean" lists names from history too: escaped as on the terminal. */
static void suggestions_are_escaped(void **state)
{
    const char *names[] = {"perf.ok", "perf.evil\n[ PERF ] fake\x1b[2J"};
    culprit_buf b = CULPRIT_BUF_INIT;
    (void)state;

    assert_int_equal(culprit_suggest_format(&b, names, 2), 0);
    assert_string_equal(b.ptr,
                        "; did you mean 'perf.ok' or 'perf.evil\\x0a[ PERF ] fake\\x1b[2J'?");
    culprit_buf_dispose(&b);
}

/* A name as a glob matching it alone: fnmatch's specials escaped, nothing else. */
static void glob_literal_matches_the_name_alone(void **state)
{
    culprit_buf b = CULPRIT_BUF_INIT;
    (void)state;
    assert_int_equal(culprit_buf_put_glob_literal(&b, "fib_[1]*?\\x.y"), 0);
    assert_string_equal(culprit_buf_cstr(&b), "fib_\\[1\\]\\*\\?\\\\x.y");
    assert_int_equal(fnmatch(culprit_buf_cstr(&b), "fib_[1]*?\\x.y", 0), 0);
    assert_int_not_equal(fnmatch(culprit_buf_cstr(&b), "fib_1ab\\x.y", 0), 0);
    culprit_buf_clear(&b);
    assert_int_equal(culprit_buf_put_glob_literal(&b, ""), 0);
    assert_string_equal(culprit_buf_cstr(&b), "");
    culprit_buf_dispose(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(terminal_text_escapes_controls_and_broken_utf8),
        cmocka_unit_test(utf8_escapes_what_json_and_xml_cannot_carry),
        cmocka_unit_test(file_names_from_data_are_one_safe_component),
        cmocka_unit_test(long_and_empty_names_get_a_hash),
        cmocka_unit_test(suggestions_are_escaped),
        cmocka_unit_test(glob_literal_matches_the_name_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
