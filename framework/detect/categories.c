/*
 * Speed categories (Heger et al. 2013, section 3): named, contiguous ranges of
 * response time that serve as the baseline for major regressions. A test is
 * classified by its first measurement; a category other than the fastest earns a
 * warning, because it usually means a heavier test than intended.
 */
#include "culprit/detect.h"
#include "culprit/core.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The paper's example: fast, medium, slow. 1 ms and 100 ms separate unit-test work
 * that is "instant", "noticeable" and "a real computation". */
static const struct {
    const char *name;
    double high_ns;
} default_categories[] = {{"fast", 1e6}, {"medium", 1e8}, {"slow", INFINITY}};

int culprit_categories__new(culprit_categories **out, size_t n)
{
    culprit_categories *c = calloc(1, sizeof(*c));

    *out = NULL;
    if (!c || !(c->items = calloc(n ? n : 1, sizeof(*c->items)))) {
        free(c);
        return CULPRIT_ERROR_NOMEM();
    }
    c->n = n;
    *out = c;
    return 0;
}

int culprit_detect_categories_default(culprit_categories **out)
{
    size_t n = sizeof(default_categories) / sizeof(default_categories[0]);
    int error;

    if ((error = culprit_categories__new(out, n)) < 0)
        return error;
    for (size_t i = 0; i < n; i++) {
        (*out)->items[i].low_ns = i ? default_categories[i - 1].high_ns : 0;
        (*out)->items[i].high_ns = default_categories[i].high_ns;
        if (!((*out)->items[i].name = culprit_strdup(default_categories[i].name))) {
            culprit_detect_categories_free(*out);
            *out = NULL;
            return CULPRIT_ERROR;
        }
    }
    return 0;
}

void culprit_detect_categories_free(culprit_categories *categories)
{
    if (!categories)
        return;
    for (size_t i = 0; i < categories->n; i++)
        free(categories->items[i].name);
    free(categories->items);
    free(categories);
}

const culprit_category *culprit_detect_categories_find(const culprit_categories *categories,
                                                       const char *name)
{
    for (size_t i = 0; name && i < categories->n; i++)
        if (strcmp(categories->items[i].name, name) == 0)
            return &categories->items[i];
    return NULL;
}

const culprit_category *culprit_detect_categories_classify(const culprit_categories *categories,
                                                           double ns)
{
    for (size_t i = 0; i < categories->n; i++)
        if (ns < categories->items[i].high_ns)
            return &categories->items[i];
    return categories->n ? &categories->items[categories->n - 1] : NULL;
}

int culprit_detect_categories_is_fastest(const culprit_categories *categories,
                                         const culprit_category *c)
{
    return categories->n && c == &categories->items[0];
}

int culprit_detect_category_name_check(const char *name)
{
    culprit_buf shown = CULPRIT_BUF_INIT;
    size_t len = strlen(name), k;
    const char *why = NULL;
    int error;

    for (k = 0; k < len && !why; k += culprit_utf8_char_len(name + k))
        if (culprit_utf8_char_len(name + k) == 0)
            why = "is not UTF-8";
        else if ((unsigned char)name[k] < 0x20 || name[k] == 0x7f ||
                 ((unsigned char)name[k] == 0xc2 && (unsigned char)name[k + 1] < 0xa0))
            why = "has a control character (a line break, tab or escape)";
    if (!why && len == 0)
        why = "is empty";
    else if (!why && len > CULPRIT_CATEGORY_NAME_MAX)
        why = "is too long";
    if (!why)
        return 0;
    culprit_buf_put_text(&shown, name);
    error = culprit_error_set(CULPRIT_EINVALID,
                              "category name \"%.200s%s\" %s: a category name is one line of "
                              "printable text, up to %d bytes, recorded with every run",
                              culprit_buf_cstr(&shown), shown.size > 200 ? "..." : "", why,
                              CULPRIT_CATEGORY_NAME_MAX);
    culprit_buf_dispose(&shown);
    return error;
}

#define DURATION_MAX_NS (86400.0 * 1e9)

int culprit_detect_parse_duration_ns(double *out, const char *text)
{
    static const struct {
        const char *unit;
        double ns;
    } units[] = {{"ns", 1}, {"us", 1e3}, {"\xc2\xb5s", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"", 1}};
    char *end;
    double value;

    if (!text)
        return culprit_error_set(CULPRIT_EINVALID, "missing duration");
    value = strtod(text, &end);
    if (end == text || !isfinite(value) || value < 0)
        return culprit_error_set(CULPRIT_EINVALID,
                                 "'%s' is not a duration (expected e.g. 250us, 1ms, 2s)", text);
    while (isspace((unsigned char)*end))
        end++;
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strcmp(end, units[i].unit) == 0) {
            /* A bound beyond a day is a typo or a crafted file (1e26 s was accepted):
             * no test's response time is that long, and the slowest category is
             * unbounded anyway. */
            if (value * units[i].ns > DURATION_MAX_NS)
                return culprit_error_set(CULPRIT_EINVALID,
                                         "'%s' is longer than a day (86400s), the longest "
                                         "duration a category may name",
                                         text);
            *out = value * units[i].ns;
            return 0;
        }
    }
    return culprit_error_set(CULPRIT_EINVALID,
                             "'%s' has an unknown unit '%s' (use ns, us, ms or s)", text, end);
}
