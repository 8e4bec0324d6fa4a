/* Tests of framework/core/options.c: the table-driven option parser and its help. */
#include "support/test.h"

#include <math.h>
#include <string.h>

#include "culprit/core.h"

#define ARGV(...) ((char *[]){"prog", __VA_ARGS__, NULL})
#define ARGC(...) ((int)(sizeof((char *[]){"prog", __VA_ARGS__}) / sizeof(char *)))

static const char *const colours[] = {"red", "green", "blue", NULL};

/* What a command line of the test table sets. */
typedef struct {
    int verbose, colour, seen_count;
    const char *name;
    size_t count;
    unsigned int level;
    double percent, level_of_confidence;
    char joined[64];
} values;

/* A repeated option: appends its values, comma-separated. */
static int join(const culprit_opt *opt, const char *value)
{
    values *v = opt->target;

    if (strcmp(value, "bad") == 0)
        return culprit_error_set(CULPRIT_EINVALID, "'bad' is refused");
    if (*v->joined)
        strcat(v->joined, ",");
    strcat(v->joined, value);
    return 0;
}

#define TABLE(v)                                                                                   \
    {                                                                                              \
        CULPRIT_OPT("--verbose", 'v', CULPRIT_OPT_FLAG, &(v)->verbose, NULL, "say more"),          \
            CULPRIT_OPT("--name", 0, CULPRIT_OPT_STRING, &(v)->name, "NAME",                       \
                        "the name\nover two lines"),                                               \
            CULPRIT_OPT("--count", 'n', CULPRIT_OPT_SIZE, &(v)->count, "N", "how many", .min = 1,  \
                        .given = &(v)->seen_count),                                                \
            CULPRIT_OPT("--level", 0, CULPRIT_OPT_UINT, &(v)->level, "L", "a level", .min = 0,     \
                        .max = 9),                                                                 \
            CULPRIT_OPT("--percent", 0, CULPRIT_OPT_DOUBLE, &(v)->percent, "PERCENT",              \
                        "a percentage", .max = 1000, .scale = 0.01,                                \
                        .what = "a percentage (0 to 1000)"),                                       \
            CULPRIT_OPT("--confidence", 0, CULPRIT_OPT_DOUBLE, &(v)->level_of_confidence, "C",     \
                        "strictly between 0 and 1", .max = 1,                                      \
                        .flags = CULPRIT_OPT_ABOVE_MIN | CULPRIT_OPT_BELOW_MAX),                   \
            CULPRIT_OPT("--colour", 0, CULPRIT_OPT_ENUM, &(v)->colour, "red|green|blue",           \
                        "a colour", .choices = colours),                                           \
            CULPRIT_OPT("--add", 0, CULPRIT_OPT_CALLBACK, (v), "X", "repeatable", .set = join,     \
                        .flags = CULPRIT_OPT_NONEMPTY),                                            \
            CULPRIT_OPT("--hidden", 0, CULPRIT_OPT_FLAG, NULL, NULL, NULL), CULPRIT_OPT_END_ROW    \
    }

/* Parses argv against the table into *v; the first error, or the positionals
 * joined with spaces into `positional`. */
static int parse(values *v, char *positional, int argc, char **argv)
{
    const culprit_opt table[] = TABLE(v);
    culprit_opt_parser p;
    int kind;

    memset(v, 0, sizeof(*v));
    *positional = '\0';
    culprit_opt_parser_init(&p, "cmd", table, argc, argv);
    while ((kind = culprit_opt_next(&p)) != CULPRIT_OPT_END) {
        if (kind < 0)
            return kind;
        if (kind == CULPRIT_OPT_POSITIONAL) {
            strcat(positional, *positional ? " " : "");
            strcat(positional, p.value);
        }
    }
    return 0;
}

#define PARSE(v, pos, ...) parse((v), (pos), ARGC(__VA_ARGS__), ARGV(__VA_ARGS__))

static void every_type_is_stored_in_its_target(void **state)
{
    values v;
    char pos[256];
    (void)state;
    assert_int_equal(PARSE(&v, pos, "--verbose", "--name", "x", "--count", "3", "--level=9",
                           "--percent", "2.5", "--confidence=0.95", "--colour", "blue", "--add",
                           "a", "--add=b", "file"),
                     0);
    assert_true(v.verbose);
    assert_string_equal(v.name, "x");
    assert_int_equal(v.count, 3);
    assert_true(v.seen_count);
    assert_int_equal(v.level, 9);
    assert_true(fabs(v.percent - 0.025) < 1e-12); /* scaled by 0.01 */
    assert_true(v.level_of_confidence == 0.95);
    assert_int_equal(v.colour, 2);
    assert_string_equal(v.joined, "a,b"); /* repeated, in order */
    assert_string_equal(pos, "file");
}

static void short_names_equals_form_and_double_dash(void **state)
{
    values v;
    char pos[256];
    (void)state;
    assert_int_equal(PARSE(&v, pos, "-v", "-n", "7", "--name=a=b", "-", "--", "--verbose", "-n"),
                     0);
    assert_true(v.verbose);
    assert_int_equal(v.count, 7);
    assert_string_equal(v.name, "a=b"); /* only the first '=' splits */
    assert_string_equal(pos, "- --verbose -n");
    /* A value may start with '-': it is taken as the value, as getopt_long does. */
    assert_int_equal(PARSE(&v, pos, "--name", "-x"), 0);
    assert_string_equal(v.name, "-x");
}

static void values_out_of_range_name_option_and_value(void **state)
{
    values v;
    char pos[256];
    (void)state;
    assert_int_equal(PARSE(&v, pos, "--count", "0"), CULPRIT_EINVALID);
    assert_string_equal(culprit_error_last(), "--count: '0' is not an integer of at least 1");
    assert_int_equal(PARSE(&v, pos, "--count", "-2"), CULPRIT_EINVALID);
    assert_int_equal(PARSE(&v, pos, "--count", "2x"), CULPRIT_EINVALID);
    assert_int_equal(PARSE(&v, pos, "--count", ""), CULPRIT_EINVALID);
    assert_int_equal(PARSE(&v, pos, "--level", "10"), CULPRIT_EINVALID);
    assert_string_equal(culprit_error_last(), "--level: '10' is not an integer from 0 to 9");
    assert_int_equal(PARSE(&v, pos, "--percent", "lots"), CULPRIT_EINVALID);
    assert_string_equal(culprit_error_last(), "--percent: 'lots' is not a percentage (0 to 1000)");
    assert_int_equal(PARSE(&v, pos, "--percent", "1001"), CULPRIT_EINVALID);
    assert_int_equal(PARSE(&v, pos, "--percent", "1000"), 0);
    assert_int_equal(PARSE(&v, pos, "--percent", "nan"), CULPRIT_EINVALID);
    /* Open bounds: 0 and 1 themselves are refused, the message says so. */
    assert_int_equal(PARSE(&v, pos, "--confidence", "1"), CULPRIT_EINVALID);
    assert_string_equal(culprit_error_last(), "--confidence: '1' is not a number in (0, 1)");
    assert_int_equal(PARSE(&v, pos, "--confidence", "0"), CULPRIT_EINVALID);
    assert_int_equal(PARSE(&v, pos, "--confidence", "0.5"), 0);
    assert_int_equal(PARSE(&v, pos, "--colour", "pink"), CULPRIT_EINVALID);
    assert_string_equal(culprit_error_last(), "--colour: 'pink' is not one of red, green, blue");
}

static void setter_errors_get_the_option_name(void **state)
{
    values v;
    char pos[256];
    (void)state;
    assert_int_equal(PARSE(&v, pos, "--add", "bad"), CULPRIT_EINVALID);
    assert_string_equal(culprit_error_last(), "--add: 'bad' is refused");
    assert_int_equal(PARSE(&v, pos, "--add="), CULPRIT_EINVALID);
    assert_string_equal(culprit_error_last(), "--add: empty value");
}

static void unknown_option_suggests_near_names(void **state)
{
    values v;
    char pos[256];
    (void)state;
    assert_int_equal(PARSE(&v, pos, "--verbse"), CULPRIT_EINVALID);
    assert_string_equal(culprit_error_last(),
                        "cmd: unknown option '--verbse'; did you mean '--verbose'?");
    /* The value after '=' is not part of the name looked up. */
    assert_int_equal(PARSE(&v, pos, "--nmae=x"), CULPRIT_EINVALID);
    assert_string_equal(culprit_error_last(),
                        "cmd: unknown option '--nmae'; did you mean '--name'?");
    assert_int_equal(PARSE(&v, pos, "--zzzzzzzz"), CULPRIT_EINVALID);
    assert_string_equal(culprit_error_last(), "cmd: unknown option '--zzzzzzzz'");
    assert_int_equal(PARSE(&v, pos, "-x"), CULPRIT_EINVALID);
}

static void missing_value_and_value_to_a_flag(void **state)
{
    values v;
    char pos[256];
    (void)state;
    assert_int_equal(PARSE(&v, pos, "--name"), CULPRIT_EINVALID);
    assert_string_equal(culprit_error_last(), "cmd: option '--name' needs a value");
    assert_int_equal(PARSE(&v, pos, "--verbose=yes"), CULPRIT_EINVALID);
    assert_string_equal(culprit_error_last(), "cmd: option '--verbose' takes no value");
}

static void apply_uses_the_row_with_another_source(void **state)
{
    values v;
    const culprit_opt table[] = TABLE(&v);
    (void)state;
    memset(&v, 0, sizeof(v));
    assert_non_null(culprit_opt_find(table, "--colour"));
    assert_null(culprit_opt_find(table, "--color"));
    assert_int_equal(culprit_opt_apply(culprit_opt_find(table, "--colour"), "COLOUR", "green"), 0);
    assert_int_equal(v.colour, 1);
    assert_int_equal(culprit_opt_apply(culprit_opt_find(table, "--colour"), "COLOUR", "x"),
                     CULPRIT_EINVALID);
    assert_string_equal(culprit_error_last(), "COLOUR: 'x' is not one of red, green, blue");
}

static void help_is_printed_from_the_table(void **state)
{
    values v;
    const culprit_opt table[] = TABLE(&v);
    culprit_buf help = CULPRIT_BUF_INIT;
    (void)state;
    assert_int_equal(culprit_opt_help(&help, table, 20), 0);
    assert_string_equal(culprit_buf_cstr(&help), "  -v, --verbose     say more\n"
                                                 "  --name NAME       the name\n"
                                                 "                    over two lines\n"
                                                 "  -n, --count N     how many\n"
                                                 "  --level L         a level\n"
                                                 "  --percent PERCENT a percentage\n"
                                                 "  --confidence C    strictly between 0 and 1\n"
                                                 "  --colour red|green|blue\n"
                                                 "                    a colour\n"
                                                 "  --add X           repeatable\n");
    culprit_buf_dispose(&help);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_type_is_stored_in_its_target),
        cmocka_unit_test(short_names_equals_form_and_double_dash),
        cmocka_unit_test(values_out_of_range_name_option_and_value),
        cmocka_unit_test(setter_errors_get_the_option_name),
        cmocka_unit_test(unknown_option_suggests_near_names),
        cmocka_unit_test(missing_value_and_value_to_a_flag),
        cmocka_unit_test(apply_uses_the_row_with_another_source),
        cmocka_unit_test(help_is_printed_from_the_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
