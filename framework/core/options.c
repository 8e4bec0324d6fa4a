/*
 * Table-driven command-line options, shared by the `culprit` tool's subcommands and
 * the test binaries. Each option is one row (culprit_opt in culprit/core.h): its
 * name, whether and what value it takes, where the value goes, the allowed range
 * and the help line. Parsing, the error messages and the help text are all read
 * from that row, so an option is declared once and its help cannot drift from what
 * is parsed (libgit2's src/cli/opt.h is the model).
 *
 * "--opt value" and "--opt=value" are accepted as getopt_long accepts them; "--"
 * ends the options. Every mistake names the option and the value (and, for a
 * mistyped option, the near matches), so a typo in a CI script fails loudly
 * instead of checking something else.
 */
#include "culprit/core.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The largest integer an option takes when its row sets no maximum: far above any
 * count of runs or levels, far below an overflow of size_t or unsigned int. */
#define DEFAULT_MAX_INTEGER 1e9

static int value_error(const char *source, const char *value, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "SOURCE: 'VALUE' is not ...": the one shape of every bad-value message. */
static int value_error(const char *source, const char *value, const char *fmt, ...)
{
    char what[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    return culprit_error_set(CULPRIT_EINVALID, "%s: '%s' is not %s", source, value, what);
}

static int parse_integer(unsigned long long *out, const culprit_opt *opt, const char *source,
                         const char *value)
{
    double max = opt->max > 0 ? opt->max : DEFAULT_MAX_INTEGER;
    unsigned long long v;
    char *end;

    errno = 0;
    v = strtoull(value, &end, 10);
    if (!*value || *end || errno || value[0] == '-' || value[0] == '+' || (double)v < opt->min ||
        (double)v > max) {
        if (opt->max > 0)
            return value_error(source, value, "an integer from %.0f to %.0f", opt->min, max);
        return value_error(source, value, "an integer of at least %.0f", opt->min);
    }
    *out = v;
    return 0;
}

static int parse_double(double *out, const culprit_opt *opt, const char *source, const char *value)
{
    int ranged = opt->min != 0 || opt->max != 0;
    char *end;
    double v;

    errno = 0;
    v = strtod(value, &end);
    if (!*value || *end || errno || !isfinite(v) ||
        (ranged &&
         (v < opt->min || v > opt->max || ((opt->flags & CULPRIT_OPT_ABOVE_MIN) && v == opt->min) ||
          ((opt->flags & CULPRIT_OPT_BELOW_MAX) && v == opt->max)))) {
        if (opt->what)
            return value_error(source, value, "%s", opt->what);
        if (!ranged)
            return value_error(source, value, "a number");
        return value_error(source, value, "a number in %c%g, %g%c",
                           opt->flags & CULPRIT_OPT_ABOVE_MIN ? '(' : '[', opt->min, opt->max,
                           opt->flags & CULPRIT_OPT_BELOW_MAX ? ')' : ']');
    }
    *out = v * (opt->scale != 0 ? opt->scale : 1);
    return 0;
}

static int parse_choice(int *out, const culprit_opt *opt, const char *source, const char *value)
{
    culprit_buf list = CULPRIT_BUF_INIT;
    int error;

    for (int i = 0; opt->choices && opt->choices[i]; i++)
        if (strcmp(value, opt->choices[i]) == 0) {
            *out = i;
            return 0;
        }
    if (opt->what)
        return value_error(source, value, "%s", opt->what);
    for (int i = 0; opt->choices && opt->choices[i]; i++)
        culprit_buf_printf(&list, "%s%s", i ? ", " : "", opt->choices[i]);
    error = value_error(source, value, "one of %s", culprit_buf_cstr(&list));
    culprit_buf_dispose(&list);
    return error;
}

/* A setter's message gets the option's name in front unless it already has it. */
static int call_setter(const culprit_opt *opt, const char *source, const char *value)
{
    culprit_buf msg = CULPRIT_BUF_INIT;
    int error;

    if ((error = opt->set(opt, value)) >= 0)
        return error;
    if (strncmp(culprit_error_last(), source, strlen(source)) == 0)
        return error;
    culprit_buf_printf(&msg, "%s: %s", source, culprit_error_last());
    culprit_error_set(error, "%s", culprit_buf_cstr(&msg));
    culprit_buf_dispose(&msg);
    return error;
}

int culprit_opt_apply(const culprit_opt *opt, const char *source, const char *value)
{
    unsigned long long n = 0;
    double d = 0;
    int error = 0, choice = 0;

    if (opt->type != CULPRIT_OPT_FLAG && (opt->flags & CULPRIT_OPT_NONEMPTY) && value && !*value)
        return culprit_error_set(CULPRIT_EINVALID, "%s: empty value", source);
    switch (opt->type) {
    case CULPRIT_OPT_FLAG:
        if (opt->target)
            *(int *)opt->target = 1;
        break;
    case CULPRIT_OPT_STRING:
        if (opt->target)
            *(const char **)opt->target = value;
        break;
    case CULPRIT_OPT_SIZE:
    case CULPRIT_OPT_UINT:
        if ((error = parse_integer(&n, opt, source, value)) < 0)
            return error;
        if (opt->target && opt->type == CULPRIT_OPT_SIZE)
            *(size_t *)opt->target = (size_t)n;
        else if (opt->target)
            *(unsigned int *)opt->target = (unsigned int)n;
        break;
    case CULPRIT_OPT_DOUBLE:
        if ((error = parse_double(&d, opt, source, value)) < 0)
            return error;
        if (opt->target)
            *(double *)opt->target = d;
        break;
    case CULPRIT_OPT_ENUM:
        if ((error = parse_choice(&choice, opt, source, value)) < 0)
            return error;
        if (opt->target)
            *(int *)opt->target = choice;
        break;
    case CULPRIT_OPT_CALLBACK:
        if (opt->set && (error = call_setter(opt, source, value)) < 0)
            return error;
        break;
    }
    if (opt->given)
        *opt->given = 1;
    return 0;
}

const culprit_opt *culprit_opt_find(const culprit_opt *opts, const char *name)
{
    for (const culprit_opt *o = opts; o->name; o++)
        if (strcmp(o->name, name) == 0)
            return o;
    return NULL;
}

void culprit_opt_parser_init(culprit_opt_parser *p, const char *command, const culprit_opt *opts,
                             int argc, char **argv)
{
    memset(p, 0, sizeof(*p));
    p->command = command;
    p->opts = opts;
    p->argc = argc;
    p->argv = argv;
}

/* "CMD: " in front of a message about the command line, when there is a command. */
static const char *prefix(const culprit_opt_parser *p, culprit_buf *b)
{
    if (p->command)
        culprit_buf_printf(b, "%s: ", p->command);
    return culprit_buf_cstr(b);
}

static int unknown_option(const culprit_opt_parser *p, const char *arg, size_t len)
{
    culprit_buf msg = CULPRIT_BUF_INIT, typed = CULPRIT_BUF_INIT;
    const char **names = NULL, **near = NULL;
    size_t n = 0, nnear = 0;
    int error;

    culprit_buf_put(&typed, arg, len);
    while (p->opts[n].name)
        n++;
    if ((names = calloc(n + 1, sizeof(*names)))) {
        for (size_t i = 0; i < n; i++)
            names[i] = p->opts[i].name;
        culprit_suggest(&near, &nnear, culprit_buf_cstr(&typed), names, n, 3);
    }
    prefix(p, &msg);
    culprit_buf_printf(&msg, "unknown option '%s'", culprit_buf_cstr(&typed));
    culprit_suggest_format(&msg, near, nnear);
    error = culprit_error_set(CULPRIT_EINVALID, "%s", culprit_buf_cstr(&msg));
    free(near);
    free(names);
    culprit_buf_dispose(&msg);
    culprit_buf_dispose(&typed);
    return error;
}

static int usage_error(const culprit_opt_parser *p, const char *what)
{
    culprit_buf msg = CULPRIT_BUF_INIT;
    int error;

    prefix(p, &msg);
    culprit_buf_printf(&msg, "option '%s' %s", p->opt->name, what);
    error = culprit_error_set(CULPRIT_EINVALID, "%s", culprit_buf_cstr(&msg));
    culprit_buf_dispose(&msg);
    return error;
}

static const culprit_opt *lookup(const culprit_opt *opts, const char *arg, size_t len)
{
    for (const culprit_opt *o = opts; o->name; o++) {
        if (arg[1] != '-' && len == 2 && o->short_name && o->short_name == arg[1])
            return o;
        if (strlen(o->name) == len && strncmp(o->name, arg, len) == 0)
            return o;
    }
    return NULL;
}

int culprit_opt_next(culprit_opt_parser *p)
{
    const char *arg, *eq;
    size_t len;
    int error;

    p->opt = NULL;
    p->value = NULL;
    if (++p->i >= p->argc)
        return CULPRIT_OPT_END;
    arg = p->argv[p->i];
    if (p->only_positional || arg[0] != '-' || strcmp(arg, "-") == 0) {
        p->value = arg;
        return CULPRIT_OPT_POSITIONAL;
    }
    if (strcmp(arg, "--") == 0) {
        p->only_positional = 1;
        return culprit_opt_next(p);
    }
    eq = strncmp(arg, "--", 2) == 0 ? strchr(arg, '=') : NULL;
    len = eq ? (size_t)(eq - arg) : strlen(arg);
    if (!(p->opt = lookup(p->opts, arg, len)))
        return unknown_option(p, arg, len);
    if (p->opt->type == CULPRIT_OPT_FLAG) {
        if (eq)
            return usage_error(p, "takes no value");
    } else if (eq) {
        p->value = eq + 1;
    } else if (p->i + 1 < p->argc) {
        p->value = p->argv[++p->i];
    } else {
        return usage_error(p, "needs a value");
    }
    if ((error = culprit_opt_apply(p->opt, p->opt->name, p->value)) < 0)
        return error;
    return CULPRIT_OPT_OPTION;
}

int culprit_opt_help(culprit_buf *out, const culprit_opt *opts, size_t column)
{
    int error = 0;

    for (const culprit_opt *o = opts; o->name && error == 0; o++) {
        size_t start = out->size;
        const char *line = o->help, *nl;

        if (!o->help)
            continue;
        culprit_buf_puts(out, "  ");
        if (o->short_name)
            culprit_buf_printf(out, "-%c, ", o->short_name);
        culprit_buf_puts(out, o->name);
        if (o->metavar)
            culprit_buf_printf(out, " %s", o->metavar);
        /* At least one space between the name and its help, else the next line. */
        if (out->size - start + 1 > column)
            culprit_buf_puts(out, "\n"), start = out->size;
        while (out->size - start < column)
            culprit_buf_puts(out, " ");
        for (; (nl = strchr(line, '\n')); line = nl + 1)
            culprit_buf_printf(out, "%.*s\n%*s", (int)(nl - line), line, (int)column, "");
        error = culprit_buf_printf(out, "%s\n", line);
    }
    return error;
}
