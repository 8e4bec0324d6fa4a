/*
 * culprit detect: speed categories (the paper's baseline for major regressions)
 * and, in later issues, the verdicts. A category is a named range of response
 * time; the set is ordered from fastest to slowest, each category ending where
 * the next begins (fast < 1 ms <= medium < 100 ms <= slow by default).
 */
#ifndef CULPRIT_DETECT_H
#define CULPRIT_DETECT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** One category: [low_ns, high_ns). high_ns is INFINITY for the slowest. */
typedef struct {
    char *name;
    double low_ns;
    double high_ns;
} culprit_category;

/** An ordered set of categories, fastest first, contiguous from 0 to infinity. */
typedef struct {
    size_t n;
    culprit_category *items;
} culprit_categories;

/** The defaults: fast [0, 1 ms), medium [1 ms, 100 ms), slow [100 ms, inf). */
int culprit_categories_default(culprit_categories **out);
void culprit_categories_free(culprit_categories *categories);
/** The category called `name`, or NULL. Borrowed. */
const culprit_category *culprit_categories_find(const culprit_categories *categories,
                                                const char *name);
/** The category whose range holds `ns`. Never NULL for ns >= 0 (the set is contiguous). */
const culprit_category *culprit_categories_classify(const culprit_categories *categories,
                                                    double ns);
/** 1 when `c` is the fastest category of the set. */
int culprit_categories_is_fastest(const culprit_categories *categories, const culprit_category *c);

/**
 * Parses a duration such as "250us", "1ms", "1.5 s", "100000ns" or a bare number of
 * nanoseconds into ns. CULPRIT_EINVALID for anything else.
 */
int culprit_parse_duration_ns(double *out, const char *text);

/**
 * The project file (culprit.json, checked into the user's repository; see
 * docs/categories.md): categories, per-test category choices, the history directory.
 */
typedef struct culprit_project culprit_project;

/**
 * Loads a project file. CULPRIT_ENOTFOUND when it does not exist; CULPRIT_EINVALID
 * with a message naming the file, the key and what is wrong.
 */
int culprit_project_load(culprit_project **out, const char *path);
/** A project with the default categories and nothing else. */
int culprit_project_default(culprit_project **out);
void culprit_project_free(culprit_project *project);
/** The categories (borrowed). */
const culprit_categories *culprit_project_categories(const culprit_project *project);
/** The category the project file names for test key "suite.test", or NULL. */
const char *culprit_project_test_category(const culprit_project *project, const char *key);
/** The history directory the project file names (relative to the file), or NULL. */
const char *culprit_project_history_dir(const culprit_project *project);

/**
 * Persisted automatic assignments: "suite.test" -> category, kept in
 * <history dir>/categories.json so later runs are judged against the first one.
 */
typedef struct culprit_assignments culprit_assignments;

/** Loads assignments; a missing file gives an empty set. CULPRIT_EINVALID if corrupt. */
int culprit_assignments_load(culprit_assignments **out, const char *path);
void culprit_assignments_free(culprit_assignments *assignments);
/** The category assigned to `key`, or NULL. Borrowed. */
const char *culprit_assignments_get(const culprit_assignments *assignments, const char *key);
/** Assigns (or re-assigns) `key`. */
int culprit_assignments_set(culprit_assignments *assignments, const char *key,
                            const char *category);
/** Removes the assignment of `key`; 0 also when there was none. */
int culprit_assignments_unset(culprit_assignments *assignments, const char *key);
/** Number of assignments, and the i-th key/category (borrowed), for listing. */
size_t culprit_assignments_count(const culprit_assignments *assignments);
int culprit_assignments_entry(const culprit_assignments *assignments, size_t i, const char **key,
                              const char **category);
/**
 * Saves atomically (temporary file and rename). Entries written by another process
 * since the load are kept: the file is re-read and merged just before writing.
 */
int culprit_assignments_save(culprit_assignments *assignments, const char *path);

#ifdef __cplusplus
}
#endif

#endif
