/*
 * Tests of `culprit report` (framework/report, framework/cli/cmd_report.c) on the
 * scenario of tests/cli/cli_fixture.c: eight tests at c3, one per verdict, plus
 * the bisection, call-tree and overweight documents of tests/report/data/ (their
 * <c1>..<c3> replaced by the fixture's shas). The JSON document and the Markdown
 * summary are compared with tests/report/golden/ (CULPRIT_UPDATE_GOLDEN=1 rewrites
 * them); the HTML page is checked for the elements a reader relies on and for
 * being self-contained; bad inputs must fail with exit 2 and a message naming them.
 * The page in a real browser is tests/report/report_browser.sh.
 */
#include "support/test.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "support/cli_fixture.h"
#include "report/report_internal.h"

/* Copies data file `name` into `dir` with the fixture's shas in place of <cN>. */
static void put_data(const repo_fixture *repo, const char *name, const char *dir)
{
    char path[1024], token[8];
    char *text, *at;
    FILE *f;

    snprintf(path, sizeof(path), "%s/tests/report/data/%s", CULPRIT_SOURCE_DIR, name);
    assert_non_null(text = read_text(path));
    for (int i = 0; i < 4; i++) {
        snprintf(token, sizeof(token), "<c%d>", i);
        while ((at = strstr(text, token))) {
            /* "<cN>" is 4 characters, a sha 40: rebuild the string around it. */
            size_t head = (size_t)(at - text);
            char *grown = malloc(strlen(text) + 41);
            assert_non_null(grown);
            memcpy(grown, text, head);
            memcpy(grown + head, repo->sha[i], 40);
            strcpy(grown + head + 40, at + 4);
            free(text);
            text = grown;
        }
    }
    snprintf(path, sizeof(path), "mkdir -p '%s'", dir);
    assert_int_equal(system(path), 0);
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    assert_non_null(f = fopen(path, "w"));
    fputs(text, f);
    fclose(f);
    free(text);
}

static int setup(void **state)
{
    repo_fixture *repo;
    char results[512];

    fixture_setup(state);
    repo = *state;
    snprintf(results, sizeof(results), "%s/.culprit/results", repo->dir);
    put_data(repo, "bisect.json", results);
    put_data(repo, "calltree.json", results);
    put_data(repo, "overweight.json", results);
    return 0;
}

static void report_json_matches_golden(void **state)
{
    repo_fixture *repo = *state;
    cli_result r = run_culprit(repo->dir, NULL, "report --format json");
    char *actual;

    assert_int_equal(r.status, 0);
    actual = golden_normalize(r.out, repo);
    r.out = NULL;
    /* The fixture's golden directory is tests/cli/golden; ours is next to it. */
    assert_json_golden(actual, "../../report/golden/report.json", "report --format json");
    free(actual);
    cli_result_dispose(&r);
}

static void report_json_without_results_has_null_parts(void **state)
{
    repo_fixture *repo = *state;
    cli_result r = run_culprit(repo->dir, NULL, "report --format json --results /nonexistent");

    assert_int_equal(r.status, 0);
    assert_contains(r.out, "\"bisect\": null");
    assert_contains(r.out, "\"calltree\": null");
    assert_contains(r.out, "\"overweight\": null");
    assert_contains(r.out, "\"major\": 1");
    cli_result_dispose(&r);
}

static void report_markdown_matches_golden(void **state)
{
    repo_fixture *repo = *state;
    char path[1024];
    cli_result r = run_culprit(repo->dir, NULL, "report --format markdown");
    char *actual, *expected;

    assert_int_equal(r.status, 0);
    actual = golden_normalize(r.out, repo);
    r.out = NULL;
    snprintf(path, sizeof(path), "%s/tests/report/golden/report.md", CULPRIT_SOURCE_DIR);
    expected = golden_read(path, actual);
    if (strcmp(actual, expected) != 0)
        fail_msg("culprit report --format markdown differs from %s:\n--- actual:\n%s\n--- "
                 "expected:\n%s",
                 path, actual, expected);
    free(actual);
    free(expected);
    cli_result_dispose(&r);
}

static void report_markdown_lists_flagged_tests_only(void **state)
{
    repo_fixture *repo = *state;
    cli_result r = run_culprit(repo->dir, NULL, "report --format markdown");

    assert_int_equal(r.status, 0);
    /* The unconfirmed minor fails no check: named apart, not counted (issue 27). */
    assert_contains(r.out, "## culprit: 1 major regression at `");
    assert_contains(r.out, "`; 1 unconfirmed minor (fails no check)\n");
    assert_contains(r.out, "| **MAJOR** | `perf.major` |");
    assert_lacks(r.out, "`perf.stable`"); /* unchanged: counted, not listed */
    assert_contains(r.out, "Suspect path: `foo \xe2\x86\x92 doo \xe2\x86\x92 fem`");
    assert_contains(r.out, "`fem` (src/fem.c:20-22, 31)");
    cli_result_dispose(&r);
}

static void report_html_is_self_contained_with_plots_and_tree(void **state)
{
    repo_fixture *repo = *state;
    char path[1024];
    cli_result r = run_culprit(repo->dir, NULL, "report");
    char *html;

    assert_int_equal(r.status, 0);
    snprintf(path, sizeof(path), "%s/.culprit/report/index.html", repo->dir);
    /* The summary block on stdout, the page's path last. */
    assert_contains(r.out, "culprit report at ");
    assert_contains(r.out, ": 8 tests measured: 1 major, 1 minor, 1 faster, 1 undecided");
    assert_contains(r.out, "\n  MAJOR      perf.major: major regression: 1.50 ms now");
    assert_contains(r.out, "\n  culprit    ");
    assert_contains(r.out, "+200.0% (CI +196.0% to +204.0%); 3 steps, 3 builds, 30 runs among 2 "
                           "commits\n");
    assert_contains(r.out, "\n  where      foo \xe2\x86\x92 doo \xe2\x86\x92 fem\n");
    /* The document's one answer (culprit_calltree_diff_answer()), as every output gives it. */
    assert_contains(r.out,
                    "\n  answer     fem (src/fem.c:12), changed by the commit, explains 100% "
                    "of the regression\n");
    assert_contains(r.out, "\n  report     ");
    assert_contains(r.out, path);
    assert_non_null(html = read_text(path));
    /* One plot per test, with whiskers, limits, marked regressions and hover text. */
    assert_contains(html, "<svg class=\"plot\"");
    assert_contains(html, "class=\"whisker\"");
    assert_contains(html, "<line class=\"limit\"");
    assert_contains(html, "fast &lt; 1.00 ms");
    assert_contains(html, "<g class=\"pt v-major\"><title>");
    assert_contains(html, "class=\"pt v-minor"); /* unconfirmed in this young history */
    assert_contains(html, "MAJOR +200.0%");
    assert_contains(html, "class=\"culprit\"");
    /* The bisection was of perf.major: named first, its steps drawn on its plot only. */
    assert_contains(html, "<p><strong>Test:</strong> <a href=\"#test-");
    assert_contains(html, "<code>perf.major</code></a> <span class=\"tag major\">MAJOR</span> "
                          "1.50 ms now</p>");
    assert_contains(html, "<g class=\"step bad\"><title>bisection check: ");
    assert_contains(html, "<g class=\"step\"><title>bisection step 1: ");
    assert_contains(html, "id=\"legend\"");
    /* The bisection, escaped. */
    assert_contains(html, "id=\"steps\"");
    assert_contains(html, "commit 2 &lt;with&gt; &quot;markup&quot; &amp; more");
    assert_lacks(html, "<with>");
    /* The call tree: suspect nodes open and highlighted, the changed one dotted. */
    assert_contains(html, "<li class=\"node suspect changed\"><details open><summary "
                          "class=\"row\"><span class=\"fn\">fem</span><span class=\"dot\"");
    assert_contains(html, "<li class=\"node\"><div class=\"row\"><span class=\"fn\">qux");
    assert_contains(html, "<span class=\"a\">+        for (k = 0; k &lt; 4; k++)</span>");
    assert_contains(html, "id=\"overweight\"");
    /* Self-contained: no script, no external resource; a dark scheme. */
    assert_lacks(html, "<script");
    assert_lacks(html, "http://");
    assert_lacks(html, "https://");
    assert_lacks(html, " src=");
    assert_contains(html, "prefers-color-scheme:dark");
    /* report_browser.sh opens this page in a real browser. */
    if (getenv("CULPRIT_REPORT_KEEP")) {
        FILE *f = fopen(getenv("CULPRIT_REPORT_KEEP"), "w");
        assert_non_null(f);
        fputs(html, f);
        fclose(f);
    }
    free(html);
    cli_result_dispose(&r);
}

static void report_out_writes_markdown_file(void **state)
{
    repo_fixture *repo = *state;
    char dir[600], path[700];
    cli_result r;
    char *md;

    snprintf(dir, sizeof(dir), "%s/out dir", repo->dir);
    r = run_culprit(repo->dir, NULL, "report --format md --out '%s'", dir);
    assert_int_equal(r.status, 0);
    snprintf(path, sizeof(path), "%s/report.md", dir);
    assert_contains(r.out, path);
    assert_non_null(md = read_text(path));
    assert_contains(md, "## culprit:");
    free(md);
    cli_result_dispose(&r);
}

/* The shape `culprit calltree diff --json` prints: only the suspects, each with the
 * path of nodes down to it; the tree shown is the union of the paths. */
static void report_reads_suspect_paths(void **state)
{
    repo_fixture *repo = *state;
    char dir[600];
    cli_result r;

    snprintf(dir, sizeof(dir), "%s/paths", repo->dir);
    put_data(repo, "calltree_paths.json", dir);
    r = run_culprit(repo->dir, NULL, "report --format json --calltree paths/calltree_paths.json");
    assert_int_equal(r.status, 0);
    /* foo once (both paths start there), then doo, fem, bar, wug: five nodes. */
    assert_contains(r.out, "\"suspects\": [\n      \"foo \u2192 doo \u2192 fem\",\n      "
                           "\"foo \u2192 bar \u2192 wug\"\n    ]");
    assert_contains(r.out, "\"function\": \"wug\"");
    assert_lacks(strstr(r.out, "\"function\": \"fem\"") + 1, "\"function\": \"foo\"");
    cli_result_dispose(&r);
    r = run_culprit(repo->dir, NULL, "report --calltree paths/calltree_paths.json --out paths");
    assert_int_equal(r.status, 0);
    cli_result_dispose(&r);
    snprintf(dir, sizeof(dir), "%s/paths/index.html", repo->dir);
    char *html = read_text(dir);
    assert_non_null(html);
    /* fem: changed lines 20-22 and the deletion after 31; bar is not highlighted. */
    assert_contains(html, "changed lines 20&ndash;22, 31");
    assert_contains(html, "<li class=\"node\"><details open><summary class=\"row\"><span "
                          "class=\"fn\">bar</span>");
    free(html);
}

/* `culprit bisect --calltree --json` embeds the analysis: the report shows it without
 * a separate document, and says why when the analysis could not run. */
static void report_reads_the_call_tree_inside_the_bisect_document(void **state)
{
    repo_fixture *repo = *state;
    char dir[600], path[700];
    json_t *bisect, *tree;
    cli_result r;

    snprintf(dir, sizeof(dir), "%s/embedded", repo->dir);
    put_data(repo, "bisect.json", dir);
    put_data(repo, "calltree_paths.json", dir);
    snprintf(path, sizeof(path), "%s/bisect.json", dir);
    assert_non_null(bisect = json_load_file(path, 0, NULL));
    snprintf(path, sizeof(path), "%s/calltree_paths.json", dir);
    assert_non_null(tree = json_load_file(path, 0, NULL));
    json_object_del(tree, "command");
    json_object_set_new(tree, "parent", json_string(repo->sha[2]));
    json_object_set_new(tree, "error", json_null());
    json_object_set(bisect, "calltree", tree);
    snprintf(path, sizeof(path), "%s/bisect.json", dir);
    assert_int_equal(json_dump_file(bisect, path, 0), 0);
    r = run_culprit(repo->dir, NULL, "report --format markdown --results embedded");
    assert_int_equal(r.status, 0);
    assert_contains(r.out, "Suspect path: `foo \xe2\x86\x92 doo \xe2\x86\x92 fem`");
    assert_contains(r.out, "`fem` (src/fem.c:20-22, 31)");
    cli_result_dispose(&r);

    json_object_set_new(bisect, "calltree",
                        json_pack("{s:s,s:s}", "parent", repo->sha[2], "error",
                                  "the program is not instrumented (-finstrument-functions)"));
    assert_int_equal(json_dump_file(bisect, path, 0), 0);
    r = run_culprit(repo->dir, NULL, "report --format markdown --results embedded");
    assert_int_equal(r.status, 0);
    assert_contains(r.out, "No call-tree analysis: the program is not instrumented "
                           "(-finstrument-functions)");
    cli_result_dispose(&r);
    json_decref(tree);
    json_decref(bisect);
}

/* A fanned-out bisection (bisect --plan/--jobs): each step measured by a probe
 * carries its round, the page's bisection table shows the rounds, and so does the
 * Markdown summary. */
static void report_html_shows_the_rounds_of_a_fanned_out_bisection(void **state)
{
    repo_fixture *repo = *state;
    char dir[600], path[700];
    json_t *bisect, *steps;
    cli_result r;
    char *html;

    snprintf(dir, sizeof(dir), "%s/fanned", repo->dir);
    put_data(repo, "bisect.json", dir);
    snprintf(path, sizeof(path), "%s/bisect.json", dir);
    assert_non_null(bisect = json_load_file(path, 0, NULL));
    assert_non_null(steps = json_object_get(bisect, "steps"));
    assert_true(json_array_size(steps) >= 2);
    json_object_set_new(json_array_get(steps, 0), "round", json_integer(1));
    json_object_set_new(json_array_get(steps, 1), "round", json_integer(2));
    assert_int_equal(json_dump_file(bisect, path, 0), 0);
    json_decref(bisect);
    r = run_culprit(repo->dir, NULL, "report --results fanned --out fanned/page");
    assert_int_equal(r.status, 0);
    cli_result_dispose(&r);
    snprintf(path, sizeof(path), "%s/fanned/page/index.html", repo->dir);
    assert_non_null(html = read_text(path));
    assert_contains(html, "Fanned out: 2 rounds of probes");
    assert_contains(html, "<th class=\"num\">step</th><th class=\"num\">round</th><th>commit</th>");
    assert_contains(html, "<tr><td class=\"num\">1</td><td class=\"num\">1</td><td><code>");
    assert_contains(html, "<tr><td class=\"num\">2</td><td class=\"num\">2</td><td><code>");
    assert_contains(html, "<td class=\"num\">last</td>");
    free(html);
    /* The Markdown summary gives the rounds too, each with its probes' verdicts. */
    r = run_culprit(repo->dir, NULL, "report --format markdown --results fanned");
    assert_int_equal(r.status, 0);
    assert_contains(r.out, "Fanned out in 2 rounds of probes, each on its own runner against the "
                           "good end, then ");
    assert_contains(r.out, "\n- round 1: `");
    assert_contains(r.out, "\n- round 2: `");
    cli_result_dispose(&r);
}

/* The call trees' one answer is the document's "answer" (culprit_calltree_diff_answer()
 * chose it): text, Markdown, HTML and JSON all give it, never a function of their own
 * choosing (the Markdown summary once named the first changed suspect node). */
static void report_gives_the_documents_answer_in_every_format(void **state)
{
    static const char text[] = "no function the commit changed is on the slow path: the time "
                               "went to wug (src/wug.c:3); the commit changed bar (src/bar.c:5), "
                               "which ran elsewhere";
    static const char *const formats[] = {"text", "markdown", "html", "json"};
    repo_fixture *repo = *state;
    char dir[600], path[700], *html;
    json_t *tree;
    cli_result r;

    snprintf(dir, sizeof(dir), "%s/answer", repo->dir);
    put_data(repo, "calltree.json", dir);
    snprintf(path, sizeof(path), "%s/calltree.json", dir);
    assert_non_null(tree = json_load_file(path, 0, NULL));
    json_object_set_new(tree, "answer",
                        json_pack("{s:s,s:n,s:{s:s},s:{s:s},s:s}", "kind", "not-on-path",
                                  "function", "where", "function", "wug", "changed", "function",
                                  "bar", "text", text));
    assert_int_equal(json_dump_file(tree, path, 0), 0);
    json_decref(tree);
    for (size_t i = 0; i < 4; i++) {
        r = run_culprit(repo->dir, NULL, "report --format %s --calltree answer/calltree.json%s",
                        formats[i], i == 2 ? " --out answer" : "");
        assert_int_equal(r.status, 0);
        if (i == 2) {
            snprintf(path, sizeof(path), "%s/index.html", dir);
            assert_non_null(html = read_text(path));
            assert_contains(html, "<p><strong>Answer:</strong> no function the commit changed");
            assert_contains(html, "the time went to wug (src/wug.c:3); the commit changed bar");
            free(html);
        } else {
            assert_contains(r.out, text);
        }
        /* fem is changed and on the suspect path, but not the answer. */
        assert_lacks(r.out, "`fem` (src/fem.c:12)");
        cli_result_dispose(&r);
    }
}

static void report_bad_inputs_fail_naming_them(void **state)
{
    repo_fixture *repo = *state;
    char bad[600];
    FILE *f;

    expect_culprit(repo->dir, 2, "--bisect: no such file 'missing.json'",
                   "report --bisect missing.json");
    expect_culprit(repo->dir, 2,
                   "is not the document of `culprit calltree diff --json` (its \"command\" is "
                   "'bisect')",
                   "report --calltree .culprit/results/bisect.json");
    snprintf(bad, sizeof(bad), "%s/broken.json", repo->dir);
    assert_non_null(f = fopen(bad, "w"));
    fputs("{\"command\": \"overweight\",\n \"rows\": [1,\n", f);
    fclose(f);
    expect_culprit(repo->dir, 2, "--overweight: 'broken.json' is not JSON: line 3",
                   "report --overweight broken.json");
    expect_culprit(repo->dir, 2, "'pdf' is not a report format", "report --format pdf");
    expect_culprit(repo->dir, 2, "did you mean '--bisect'", "report --bisct x");
    expect_culprit(repo->dir, 2, "no history directory", "report --history nowhere");
    expect_culprit(repo->dir, 2, "no test 'perf.majr'", "report --test perf.majr");
    expect_culprit(repo->dir, 0, "usage: culprit report", "report --help");
}

/* Names are data (history comes from other machines and pull requests): a test name
 * with a backquote, '|', a line break or HTML cannot leave its code span in the
 * Markdown summary (extra cells, a fake row, a link, raw HTML), nor print a line
 * break or an escape sequence in `check` and `history`. */
static void report_markdown_names_stay_in_their_code_span(void **state)
{
    static repo_fixture evil;
    const synthetic_test before[] = {
        {"tick`|x", 1e5, 1e3, 30, "fast", CULPRIT_STATUS_PASS},
        {"row\n| fake | row |", 1e5, 1e3, 30, "fast", CULPRIT_STATUS_PASS},
        {"<img src=x onerror=alert(1)>", 1e5, 1e3, 30, "fast", CULPRIT_STATUS_PASS},
        {"csi\xc2\x9b"
         "31m",
         1e5, 1e3, 30, "fast", CULPRIT_STATUS_PASS}};
    const synthetic_test now[] = {
        {"tick`|x", 5e6, 1e4, 30, "fast", CULPRIT_STATUS_PASS},
        {"row\n| fake | row |", 5e6, 1e4, 30, "fast", CULPRIT_STATUS_PASS},
        {"<img src=x onerror=alert(1)>", 5e6, 1e4, 30, "fast", CULPRIT_STATUS_PASS},
        {"csi\xc2\x9b"
         "31m",
         5e6, 1e4, 30, "fast", CULPRIT_STATUS_PASS}};
    cli_result r;
    (void)state;

    fixture_repo(&evil);
    fixture_store(evil.history,
                  fixture_run("perf", evil.sha[2], "2024-03-03T12:00:00Z", NULL, before, 4));
    fixture_store(evil.history,
                  fixture_run("perf", evil.sha[3], "2024-03-04T12:00:00Z", NULL, now, 4));
    r = run_culprit(evil.dir, NULL, "report --format markdown");
    assert_int_equal(r.status, 0);
    assert_contains(r.out, "| **MAJOR** | ``perf.tick`\\|x`` |");
    assert_contains(r.out, "| **MAJOR** | `perf.row\\x0a\\| fake \\| row \\|` |");
    assert_contains(r.out, "| **MAJOR** | `perf.<img src=x onerror=alert(1)>` |");
    assert_lacks(r.out, "\n| fake");
    /* A C1 control (CSI, which some terminals obey) is escaped as on the terminal. */
    assert_contains(r.out, "`perf.csi\\xc2\\x9b31m`");
    assert_lacks(r.out, "\xc2\x9b");
    cli_result_dispose(&r);
    /* On a terminal or in a log: control characters escaped, no line break in a name. */
    r = run_culprit(evil.dir, NULL, "check --fail-on none");
    assert_int_equal(r.status, 0);
    assert_contains(r.out, "perf.row\\x0a| fake | row |");
    assert_lacks(r.out, "\n| fake");
    cli_result_dispose(&r);
    r = run_culprit(evil.dir, NULL, "history");
    assert_int_equal(r.status, 0);
    assert_contains(r.out, "perf.row\\x0a| fake | row |\n");
    cli_result_dispose(&r);
    fixture_remove(&evil);
}

/* In HTML, a name's control characters (ESC, a NUL-less C0) and bytes that are not
 * UTF-8 are written "\xNN" as in JUnit, before HTML's own escapes; tab and line
 * breaks, which HTML carries, are kept. */
static void report_html_escapes_control_bytes_in_names(void **state)
{
    culprit_buf out = CULPRIT_BUF_INIT;
    (void)state;

    assert_int_equal(culprit_report__put_html(&out, "a\x1b[31m<b>\xff\x01\tz\n\"'&"), 0);
    assert_string_equal(culprit_buf_cstr(&out),
                        "a\\x1b[31m&lt;b&gt;\\xff\\x01\tz\n&quot;&#39;&amp;");
    culprit_buf_dispose(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(report_json_matches_golden),
        cmocka_unit_test(report_json_without_results_has_null_parts),
        cmocka_unit_test(report_markdown_matches_golden),
        cmocka_unit_test(report_markdown_lists_flagged_tests_only),
        cmocka_unit_test(report_html_is_self_contained_with_plots_and_tree),
        cmocka_unit_test(report_out_writes_markdown_file),
        cmocka_unit_test(report_reads_suspect_paths),
        cmocka_unit_test(report_reads_the_call_tree_inside_the_bisect_document),
        cmocka_unit_test(report_gives_the_documents_answer_in_every_format),
        cmocka_unit_test(report_bad_inputs_fail_naming_them),
        cmocka_unit_test(report_markdown_names_stay_in_their_code_span),
        cmocka_unit_test(report_html_escapes_control_bytes_in_names),
        cmocka_unit_test(report_html_shows_the_rounds_of_a_fanned_out_bisection),
    };
    return cmocka_run_group_tests(tests, setup, fixture_teardown);
}
