/*
 * culprit.h: what a test author includes. Performance-aware unit tests on CMocka.
 *
 *     #include <culprit/culprit.h>
 *
 *     static void fib_30(void **state) { assert_int_equal(fib(30), 832040); }
 *
 *     int main(int argc, char **argv)
 *     {
 *         static const culprit_perf_test tests[] = {
 *             culprit_perf_test(fib_30, .repetitions = 50, .category = "fast"),
 *             culprit_perf_test(serve_one, .duration_s = 60),   (a load test)
 *         };
 *         return culprit_run_group(tests, argc, argv);
 *     }
 *
 * The test binary then understands --list, --filter GLOB, --repetitions N,
 * --history DIR, --junit FILE, --json and --help (docs/runner.md).
 */
#ifndef CULPRIT_CULPRIT_H
#define CULPRIT_CULPRIT_H

#if !defined(__cplusplus) && (!defined(__STDC_VERSION__) || __STDC_VERSION__ < 199901L)
#error "culprit.h needs C99 or later, and this file is compiled as C89/C90 (-std=c89 or -ansi, perhaps in the project's CMAKE_C_FLAGS): give the perf test's target C_STANDARD 99 (CMake) or compile it with -std=c99"
#endif

/* CMocka needs these before its header. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "culprit/core.h"
#include "culprit/measure.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * One performance-aware test: a CMocka test function plus its measurement options.
 * Declare it with culprit_perf_test(); fields left out take the defaults below.
 */
typedef struct culprit_perf_test {
    const char *name;               /**< set by the macro from the function name */
    CMUnitTestFunction test_func;   /**< the CMocka test body: one repetition */
    CMFixtureFunction setup;        /**< per test, untimed (CMocka fixture) */
    CMFixtureFunction teardown;     /**< per test, untimed */
    CMFixtureFunction rep_setup;    /**< per repetition, untimed (disables batching) */
    CMFixtureFunction rep_teardown; /**< per repetition, untimed */
    void *initial_state;            /**< *state before setup, as cmocka_unit_test_prestate */

    unsigned int repetitions;     /**< > 0: fixed sample count; 0: adaptive (default) */
    unsigned int warmup;          /**< untimed repetitions first; 0: the default (1) */
    unsigned int min_repetitions; /**< adaptive: at least (default 10) */
    unsigned int max_repetitions; /**< adaptive: at most (default 100000) */
    double budget_s;              /**< time budget per test; 0: default (5 s) */
    double target_ci;             /**< adaptive: relative 99% CI half-width; 0: 1% */
    unsigned int batch;           /**< iterations per sample; 0: automatic */
    const char *category;         /**< "fast", "medium", ... or NULL: automatic */
    const char *metric;           /**< judged series: "wall_ns" (default), "cpu_ns", ... */
    double timeout_s;             /**< kill the test after this long; 0: no limit */
    double duration_s;            /**< > 0: a load test, calling the body for this long, one sample
                                       per interval, warm-up cut by MSER (docs/measure.md) */
    double interval_s;            /**< load test: seconds per sample; 0: duration_s / 60 */

    const char *file; /**< where it was declared (set by the macro) */
    int line;
} culprit_perf_test;

/**
 * Declares a perf test in a table: culprit_perf_test(f, .repetitions = 50, .category = "fast").
 * Expands to a braced initializer, so it works in static arrays the CMocka way.
 *
 * The macro is variadic as a whole and the position (.file, .line) comes last, so
 * culprit_perf_test(f) alone still passes an argument to the inner "...": ISO C
 * before C23 wants at least one there, and -Wpedantic says so otherwise.
 *
 * C++ before C++20 has no designated initializers: there the macro takes the test
 * alone, culprit_perf_test(f), initialized positionally; options need C++20 (where
 * the C form works, fields in declaration order) and are a compile error before it.
 */
#if defined(__cplusplus) && __cplusplus < 202002L
#define culprit_perf_test(...) CULPRIT__PERF_TEST_CXX(__VA_ARGS__, )
/* Options given here land after __LINE__ and do not compile: never dropped silently. */
/* clang-format off */
#define CULPRIT__PERF_TEST_CXX(f, ...)                                                             \
    {                                                                                              \
        #f, f, nullptr, nullptr, nullptr, nullptr, nullptr, 0, 0, 0, 0, 0.0, 0.0, 0, nullptr,      \
        nullptr, 0.0, 0.0, 0.0, __FILE__, __LINE__ __VA_ARGS__                                     \
    }
/* clang-format on */
#else
#define culprit_perf_test(...) CULPRIT__PERF_TEST(__VA_ARGS__, .file = __FILE__)
#define CULPRIT__PERF_TEST(f, ...)                                                                 \
    {                                                                                              \
        .name = #f, .test_func = f, __VA_ARGS__, .line = __LINE__                                  \
    }
#endif

/** Build facts of the test binary, recorded in history (compiler and flags). */
typedef struct {
    const char *compiler; /**< e.g. "gcc 12.2.0" */
    const char *flags;    /**< the compile flags, when the build passes CULPRIT_BUILD_FLAGS */
} culprit_build_info;

#if defined(__clang__)
#define CULPRIT__COMPILER "clang " __clang_version__
#elif defined(__GNUC__)
#define CULPRIT__COMPILER "gcc " __VERSION__
#else
#define CULPRIT__COMPILER "unknown"
#endif
#ifndef CULPRIT_BUILD_FLAGS
#define CULPRIT_BUILD_FLAGS ""
#endif

/**
 * Turns the program into a perf-test runner over `tests` (argv as given to main).
 * `group` names the suite (JUnit classname); NULL uses the program's name.
 * Returns the process exit code: 0 all passed, 1 a test failed or errored,
 * 2 usage or I/O error (see docs/runner.md).
 */
int culprit_run_perf_tests(const char *group, const culprit_perf_test *tests, size_t ntests,
                           int argc, char **argv, const culprit_build_info *build);

/* The build facts as a pointer: a compound literal in C; C++ has none (a GNU
 * extension there, which -Wpedantic flags), so a lambda's static object instead. */
#ifdef __cplusplus
#define CULPRIT__BUILD_INFO                                                                        \
    ([]() -> const culprit_build_info * {                                                          \
        static const culprit_build_info info = {CULPRIT__COMPILER, CULPRIT_BUILD_FLAGS};           \
        return &info;                                                                              \
    }())
#else
#define CULPRIT__BUILD_INFO (&(const culprit_build_info){CULPRIT__COMPILER, CULPRIT_BUILD_FLAGS})
#endif

/** culprit_run_perf_tests() over a static array, named after the program. */
#define culprit_run_group(tests, argc, argv)                                                       \
    culprit_run_perf_tests(NULL, (tests), sizeof(tests) / sizeof((tests)[0]), (argc), (argv),      \
                           CULPRIT__BUILD_INFO)

/** culprit_run_group() with an explicit group name. */
#define culprit_run_group_name(group, tests, argc, argv)                                           \
    culprit_run_perf_tests((group), (tests), sizeof(tests) / sizeof((tests)[0]), (argc), (argv),   \
                           CULPRIT__BUILD_INFO)

#ifdef __cplusplus
}
#endif

#endif
