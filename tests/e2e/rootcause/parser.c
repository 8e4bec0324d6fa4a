/*
 * Root-cause case (e), "a perf test whose body's call count differs between the
 * two builds": an INI-style configuration parser, measured by the perf test
 * perf_parser.c. parse_config() -> parse_section() -> parse_entry() ->
 * parse_value() -> parse_string() -> unescape(). The culprit commit
 * (parser.patch) makes unescape() look for the closing quote from every
 * character: quadratic in the string's length, unescape() some 15 times slower.
 * The runner batches the fast body and not the slow one, so the body is called a
 * different number of times in the two builds.
 */
#include <string.h>

#include "parser.h"

static size_t unescape(char *out, const char *in, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (in[i] == '\\' && i + 1 < n)
            i++;
        out[k++] = in[i];
    }
    out[k] = '\0';
    return k;
}

static size_t parse_string(char *out, const char *p, size_t n)
{
    if (n >= 2 && p[0] == '"' && p[n - 1] == '"')
        return unescape(out, p + 1, n - 2);
    return unescape(out, p, n);
}

static size_t parse_value(char *out, const char *p, size_t n)
{
    while (n > 0 && *p == ' ')
        p++, n--;
    return parse_string(out, p, n);
}

static int parse_entry(struct config *c, const char *line, size_t n)
{
    const char *eq = memchr(line, '=', n);
    char value[256];
    if (!eq || (size_t)(line + n - eq) > sizeof(value))
        return -1;
    c->bytes += parse_value(value, eq + 1, (size_t)(line + n - eq - 1));
    c->entries++;
    return 0;
}

static const char *parse_section(struct config *c, const char *p)
{
    p = strchr(p, '\n');
    c->sections++;
    while (p && *++p && *p != '[') {
        size_t n = strcspn(p, "\n");
        if (n > 0)
            parse_entry(c, p, n);
        p += n;
        if (!*p)
            break;
    }
    return p && *p == '[' ? p : NULL;
}

int parse_config(struct config *c, const char *text)
{
    const char *p = strchr(text, '[');
    memset(c, 0, sizeof(*c));
    while (p)
        p = parse_section(c, p);
    return c->sections > 0 ? 0 : -1;
}
