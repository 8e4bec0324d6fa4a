/*
 * `culprit categories`: the speed category of every test in the history, where it
 * comes from (explicit, project, assigned, auto: as its newest run recorded it),
 * and the changes a developer makes to the persisted assignments in
 * <history>/categories.json: set, unset, or accept the latest measurement (a
 * deliberate change of speed, so the test is judged against its new category
 * instead of raising a major regression on every run).
 */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *key;
    const culprit_test_result *newest;   /* its newest result */
    const culprit_test_result *measured; /* its newest passing result with a mean */
} test_info;

typedef struct {
    size_t n, cap;
    test_info *items;
} test_set;

static int compare_info(const void *a, const void *b)
{
    return strcmp(((const test_info *)a)->key, ((const test_info *)b)->key);
}

static int collect(test_set *set, const culprit_history_runs *runs)
{
    /* Runs are sorted by time: a later result replaces an earlier one. */
    for (size_t r = 0; r < runs->nruns; r++) {
        const culprit_run *run = runs->runs[r];
        for (size_t t = 0; t < run->ntests; t++) {
            const culprit_test_result *res = &run->tests[t];
            char *key = cli_test_key(run, res);
            test_info *info = NULL;
            if (!key)
                return CULPRIT_ERROR;
            for (size_t i = 0; i < set->n && !info; i++)
                if (strcmp(set->items[i].key, key) == 0)
                    info = &set->items[i];
            if (info) {
                free(key);
            } else {
                if (culprit_array_grow(&set->items, &set->cap, set->n, sizeof(*set->items), 32) <
                    0) {
                    free(key);
                    return CULPRIT_ERROR;
                }
                info = &set->items[set->n++];
                memset(info, 0, sizeof(*info));
                info->key = key;
            }
            info->newest = res;
            if (res->status == CULPRIT_STATUS_PASS && res->summary.n > 0 &&
                isfinite(res->summary.mean))
                info->measured = res;
        }
    }
    if (set->n)
        qsort(set->items, set->n, sizeof(*set->items), compare_info);
    return 0;
}

/* The test `name` names: "suite.test" or a bare test name that is unambiguous. */
static int find_test(test_info **out, const test_set *set, const culprit_history_runs *runs,
                     const char *name, const char *dir)
{
    culprit_buf shown = CULPRIT_BUF_INIT;
    test_info *found = NULL;

    for (size_t i = 0; i < set->n; i++) {
        test_info *info = &set->items[i];
        /* As recorded, or as the listing shows it (control bytes as \xNN). */
        int same = strcmp(info->key, name) == 0 || strcmp(cli_text(&shown, info->key), name) == 0;
        if (same) {
            culprit_buf_dispose(&shown);
            *out = info;
            return 0;
        }
        if (strcmp(info->newest->name, name) == 0) {
            if (found) {
                culprit_buf_dispose(&shown);
                return culprit_error_set(CULPRIT_EINVALID,
                                         "test name '%s' is ambiguous: '%s' or '%s'", name,
                                         found->key, info->key);
            }
            found = info;
        }
    }
    culprit_buf_dispose(&shown);
    if (found) {
        *out = found;
        return 0;
    }
    return culprit_history_require_test(runs, name, dir);
}

static int unknown_category(const culprit_categories *cats, const char *name)
{
    culprit_buf msg = CULPRIT_BUF_INIT;
    int error;

    culprit_buf_printf(&msg, "unknown category '%s'; the categories are", name);
    for (size_t i = 0; i < cats->n; i++)
        culprit_buf_printf(&msg, "%s '%s'", i ? "," : "", cats->items[i].name);
    error = culprit_error_set(CULPRIT_EINVALID, "%s", culprit_buf_cstr(&msg));
    culprit_buf_dispose(&msg);
    return error;
}

/* One change asked for on the command line, applied in order. */
typedef struct {
    const char *option;
    const char *value;
} change;

/* Applies one change; records "test: from -> to" in `changes` (JSON array). */
static int apply(culprit_assignments *assignments, const change *c, test_set *set,
                 const culprit_history_runs *runs, const culprit_categories *cats, const char *dir,
                 json_t *changes)
{
    char *key = NULL;
    const char *to = NULL, *from;
    test_info *info = NULL;
    json_t *record;
    int error = 0;

    if (strcmp(c->option, "--set") == 0) {
        const char *eq = strrchr(c->value, '=');
        if (!eq || eq == c->value || !eq[1])
            return culprit_error_set(CULPRIT_EINVALID, "--set: '%s' is not SUITE.TEST=CATEGORY",
                                     c->value);
        if (!(key = strndup(c->value, (size_t)(eq - c->value))))
            return CULPRIT_ERROR_NOMEM();
        to = eq + 1;
        if (!culprit_detect_categories_find(cats, to)) {
            error = unknown_category(cats, to);
            goto cleanup;
        }
    } else {
        if ((error = find_test(&info, set, runs, c->value, dir)) < 0)
            return error;
        if (!(key = culprit_strdup(info->key)))
            return CULPRIT_ERROR;
        if (strcmp(c->option, "--accept") == 0) {
            if (!info->measured) {
                error = culprit_error_set(CULPRIT_EINVALID,
                                          "--accept: %s has no passing measurement", key);
                goto cleanup;
            }
            to = culprit_detect_categories_classify(cats, info->measured->summary.mean)->name;
        }
    }
    from = culprit_detect_assignments_get(assignments, key);
    if (!(record = json_object()) || json_array_append_new(changes, record) < 0) {
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    json_object_set_new(record, "test", json_string(key));
    json_object_set_new(record, "from", cli_json_string(from));
    json_object_set_new(record, "to", cli_json_string(to));
    if (to)
        error = culprit_detect_assignments_set(assignments, key, to);
    else
        error = culprit_detect_assignments_unset(assignments, key);
    /* An assignment does not override a category chosen in the test or the project. */
    if (error == 0 && !info)
        for (size_t i = 0; i < set->n && !info; i++)
            if (strcmp(set->items[i].key, key) == 0)
                info = &set->items[i];
    if (error == 0 && info && info->newest->category_source &&
        (strcmp(info->newest->category_source, "explicit") == 0 ||
         strcmp(info->newest->category_source, "project") == 0))
        fprintf(stderr,
                "culprit: warning: %s takes its category from the %s; the assignment does not "
                "override it\n",
                key,
                strcmp(info->newest->category_source, "explicit") == 0 ? "test itself"
                                                                       : "project file");
cleanup:
    free(key);
    return error;
}

static void put_range(culprit_buf *b, double low, double high)
{
    culprit_buf_puts(b, "[");
    culprit_buf_put_duration(b, low);
    culprit_buf_puts(b, ", ");
    if (isfinite(high))
        culprit_buf_put_duration(b, high);
    else
        culprit_buf_puts(b, "inf");
    culprit_buf_puts(b, ")");
}

/* The category's range from the project's set, else as the run recorded it. */
static void range_of(double *low, double *high, const culprit_categories *cats,
                     const culprit_test_result *t)
{
    const culprit_category *c =
        t->category ? culprit_detect_categories_find(cats, t->category) : NULL;

    *low = c ? c->low_ns : t->category_low_ns;
    *high = c ? c->high_ns : t->category_high_ns;
}

static int not_fastest(const culprit_categories *cats, const culprit_test_result *t)
{
    const culprit_category *c =
        t->category ? culprit_detect_categories_find(cats, t->category) : NULL;

    return c && !culprit_detect_categories_is_fastest(cats, c);
}

static int print_json(const test_set *set, const culprit_categories *cats,
                      const culprit_assignments *assignments, const char *file, json_t *changes)
{
    json_t *doc = cli_json_document("categories"), *jc = json_array(), *tests = json_array();

    if (!doc || !jc || !tests) {
        json_decref(jc);
        json_decref(tests);
        json_decref(changes);
        return cli_json_print(doc);
    }
    json_object_set_new(doc, "file", json_string(file));
    json_object_set_new(doc, "categories", jc);
    for (size_t i = 0; i < cats->n; i++) {
        json_t *c = json_object();
        json_array_append_new(jc, c);
        json_object_set_new(c, "name", json_string(cats->items[i].name));
        json_object_set_new(c, "low_ns", cli_json_number(cats->items[i].low_ns));
        json_object_set_new(c, "high_ns", cli_json_number(cats->items[i].high_ns));
    }
    json_object_set_new(doc, "changes", changes);
    json_object_set_new(doc, "tests", tests);
    for (size_t i = 0; i < set->n; i++) {
        const culprit_test_result *t = set->items[i].newest;
        json_t *j = json_object();
        double low, high;
        range_of(&low, &high, cats, t);
        json_array_append_new(tests, j);
        json_object_set_new(j, "test", json_string(set->items[i].key));
        json_object_set_new(j, "category", cli_json_string(t->category));
        json_object_set_new(j, "source", cli_json_string(t->category_source));
        json_object_set_new(j, "low_ns", t->category ? cli_json_number(low) : json_null());
        json_object_set_new(j, "high_ns", t->category ? cli_json_number(high) : json_null());
        json_object_set_new(j, "mean_ns",
                            set->items[i].measured
                                ? cli_json_number(set->items[i].measured->summary.mean)
                                : json_null());
        json_object_set_new(j, "fastest", json_boolean(t->category && !not_fastest(cats, t)));
        json_object_set_new(
            j, "assigned",
            cli_json_string(culprit_detect_assignments_get(assignments, set->items[i].key)));
    }
    return cli_json_print(doc);
}

static void print_text(FILE *out, const test_set *set, const culprit_categories *cats,
                       const culprit_assignments *assignments, json_t *changes)
{
    /* Test and category names are data (history, other machines): escaped. */
    culprit_buf line = CULPRIT_BUF_INIT, t1 = CULPRIT_BUF_INIT, t2 = CULPRIT_BUF_INIT,
                t3 = CULPRIT_BUF_INIT;
    size_t width = 4, marked = 0, i;
    json_t *c;

    json_array_foreach(changes, i, c)
    {
        const char *from = json_string_value(json_object_get(c, "from"));
        const char *to = json_string_value(json_object_get(c, "to"));
        fprintf(out, "%s: %s%s%s -> %s%s%s\n",
                cli_text(&t1, json_string_value(json_object_get(c, "test"))), from ? "'" : "",
                from ? cli_text(&t2, from) : "unassigned", from ? "'" : "", to ? "'" : "",
                to ? cli_text(&t3, to) : "unassigned", to ? "'" : "");
    }
    if (json_array_size(changes))
        fprintf(out, "\n");
    for (i = 0; i < set->n; i++)
        if (strlen(cli_text(&t1, set->items[i].key)) > width)
            width = strlen(t1.ptr);
    fprintf(out, "  %-*s  %-10s %-9s %-22s %s\n", (int)width, "TEST", "CATEGORY", "SOURCE", "RANGE",
            "LATEST MEAN");
    for (i = 0; i < set->n; i++) {
        const culprit_test_result *t = set->items[i].newest;
        const char *assigned = culprit_detect_assignments_get(assignments, set->items[i].key);
        double low, high;
        int mark = not_fastest(cats, t);
        marked += mark;
        culprit_buf_clear(&line);
        if (t->category) {
            range_of(&low, &high, cats, t);
            put_range(&line, low, high);
        } else {
            culprit_buf_puts(&line, "-");
        }
        fprintf(out, "%s %-*s  %-10s %-9s %-22s ", mark ? "*" : " ", (int)width,
                cli_text(&t1, set->items[i].key), cli_text(&t2, t->category ? t->category : "-"),
                cli_text(&t3, t->category_source ? t->category_source : "-"),
                culprit_buf_cstr(&line));
        culprit_buf_clear(&line);
        culprit_buf_put_duration(
            &line, set->items[i].measured ? set->items[i].measured->summary.mean : NAN);
        if (t->category && set->items[i].measured) {
            double low, high, mean = set->items[i].measured->summary.mean;
            range_of(&low, &high, cats, t);
            if (mean >= high || mean < low)
                culprit_buf_puts(&line, "  (outside its category; --accept re-assigns)");
        }
        if (assigned && (!t->category || strcmp(assigned, t->category) != 0))
            culprit_buf_printf(&line, "  (assigned '%s' for the next run)",
                               cli_text(&t1, assigned));
        fprintf(out, "%s\n", culprit_buf_cstr(&line));
    }
    if (marked)
        fprintf(out, "\n* not in the fastest category ('%s')\n",
                cli_text(&t1, cats->items[0].name));
    culprit_buf_dispose(&line);
    culprit_buf_dispose(&t1);
    culprit_buf_dispose(&t2);
    culprit_buf_dispose(&t3);
}

/* The changes asked for, in the order given. */
typedef struct {
    change *items;
    size_t n;
} change_list;

/* --set, --unset and --accept: one change each, applied in order after parsing. */
static int add_change(const culprit_opt *opt, const char *value)
{
    change_list *list = opt->target;

    list->items[list->n++] = (change){opt->name, value};
    return 0;
}

/* The options of culprit categories; its --help too. */
#define CATEGORIES_OPTIONS(changes, json, accept_all, history_dir, project_file, help)             \
    {                                                                                              \
        CULPRIT_OPT("--set", 0, CULPRIT_OPT_CALLBACK, (changes), "SUITE.TEST=CATEGORY",            \
                    "assign a category", .set = add_change),                                       \
            CULPRIT_OPT("--unset", 0, CULPRIT_OPT_CALLBACK, (changes), "SUITE.TEST",               \
                        "remove an assignment (the next run assigns again)", .set = add_change),   \
            CULPRIT_OPT("--accept", 0, CULPRIT_OPT_CALLBACK, (changes), "SUITE.TEST",              \
                        "assign the category of the latest measured mean", .set = add_change),     \
            CULPRIT_OPT("--accept-all", 0, CULPRIT_OPT_FLAG, (accept_all), NULL,                   \
                        "the same for every test"),                                                \
            CLI_OPT_JSON(json), CLI_OPT_HISTORY(history_dir), CLI_OPT_PROJECT(project_file),       \
            CLI_OPT_HELP(help), CULPRIT_OPT_END_ROW                                                \
    }

static void usage(FILE *out)
{
    change_list changes;
    const char *history_dir, *project_file;
    int json, accept_all, help;
    const culprit_opt options[] =
        CATEGORIES_OPTIONS(&changes, &json, &accept_all, &history_dir, &project_file, &help);

    cli_usage(out,
              "usage: culprit categories [--json] [--set SUITE.TEST=CATEGORY]...\n"
              "                          [--unset SUITE.TEST]... [--accept SUITE.TEST]...\n"
              "                          [--accept-all]\n"
              "Lists each test of the history with its category, where the category comes\n"
              "from, its range and the latest mean ('*': not the fastest category), after\n"
              "applying the changes asked for to <history>/categories.json.\n"
              "\n",
              options, 30,
              "\nExit status: 0, or 2 on a usage or I/O error (unknown category or test).\n");
}

int cli_categories(int argc, char **argv)
{
    culprit_opt_parser p;
    cli_env env;
    culprit_history_runs runs = {0, NULL, 0};
    culprit_assignments *assignments = NULL;
    test_set set = {0, 0, NULL};
    change_list list = {NULL, 0};
    change *changes = NULL;
    json_t *done = NULL;
    const char *history_dir = NULL, *project_file = NULL;
    const culprit_categories *cats;
    char *file = NULL;
    size_t nchanges = 0;
    int kind, help = 0, json = 0, accept_all = 0, error = 0;
    const culprit_opt options[] =
        CATEGORIES_OPTIONS(&list, &json, &accept_all, &history_dir, &project_file, &help);

    memset(&env, 0, sizeof(env));
    /* At most one change per argument. */
    if (!(changes = list.items = calloc((size_t)argc + 1, sizeof(*changes))))
        return CLI_EXIT_ERROR;
    culprit_opt_parser_init(&p, "categories", options, argc, argv);
    while ((kind = culprit_opt_next(&p)) != CULPRIT_OPT_END) {
        if (kind < 0) {
            free(changes);
            return cli_usage_error("categories");
        }
        if (kind == CULPRIT_OPT_POSITIONAL) {
            culprit_error_set(CULPRIT_EINVALID, "categories: unexpected argument '%s'", p.value);
            free(changes);
            return cli_usage_error("categories");
        }
    }
    nchanges = list.n;
    if (help) {
        free(changes);
        usage(stdout);
        return CLI_EXIT_OK;
    }

    if ((error = cli_env_open(&env, project_file, history_dir, 0)) < 0 ||
        (error = cli_load_history(&runs, &env)) < 0 || (error = collect(&set, &runs)) < 0)
        goto cleanup;
    cats = culprit_detect_project_categories(env.project);
    if (!(file = culprit_fs_join(env.settings.history_dir, "categories.json")) ||
        !(done = json_array())) {
        error = CULPRIT_ERROR_NOMEM();
        goto cleanup;
    }
    if ((error = culprit_detect_assignments_load(&assignments, file)) < 0)
        goto cleanup;
    for (size_t i = 0; i < nchanges; i++)
        if ((error = apply(assignments, &changes[i], &set, &runs, cats, env.settings.history_dir,
                           done)) < 0)
            goto cleanup;
    for (size_t i = 0; accept_all && i < set.n; i++) {
        change c = {"--accept", set.items[i].key};
        if (set.items[i].measured &&
            (error = apply(assignments, &c, &set, &runs, cats, env.settings.history_dir, done)) < 0)
            goto cleanup;
    }
    if ((nchanges || accept_all) &&
        (error = culprit_detect_assignments_save(assignments, file)) < 0)
        goto cleanup;
    /* Under --json the readable lines go to stderr, so a CI log still shows them. */
    print_text(json ? stderr : stdout, &set, cats, assignments, done);
    if (json) {
        error = print_json(&set, cats, assignments, file, done);
        done = NULL;
    }
cleanup:
    if (error < 0)
        cli_error(NULL);
    json_decref(done);
    for (size_t i = 0; i < set.n; i++)
        free(set.items[i].key);
    free(set.items);
    free(changes);
    free(file);
    culprit_detect_assignments_free(assignments);
    culprit_history_runs_dispose(&runs);
    cli_env_dispose(&env);
    return error < 0 ? CLI_EXIT_ERROR : CLI_EXIT_OK;
}
