/*
 * The preamble of every CMocka test program, and of the test-support library:
 * cmocka.h needs va_list, size_t, the fixed-width integers and jmp_buf declared
 * before it and includes none of them itself, so each test file used to repeat
 * these five lines. Include this header first; the fixtures are
 * "support/git_fixture.h", "support/cli_fixture.h", "support/tree_fixture.h" and
 * "support/tmpdir.h".
 */
#ifndef CULPRIT_TESTS_SUPPORT_TEST_H
#define CULPRIT_TESTS_SUPPORT_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#endif
