#!/usr/bin/env python3
"""The layering check checks: a small tree with each kind of finding planted, and the
same tree without them, through check_layers.py's own main(). Run from ctest
(cmake_layers_test) or by hand."""

import contextlib
import io
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_layers  # noqa: E402

CLEAN = {
    "include/culprit/stats.h": "int culprit_stats_welch(int);\n",
    "include/culprit/detect.h": '#include "stats.h"\nint culprit_detect_check_commit(int);\n',
    "framework/stats/welch.c": "#include <culprit/stats.h>\n\nint culprit_stats_welch(int x)\n{\n"
                               "    return x;\n}\n",
    "framework/detect/check.c": "#include <culprit/detect.h>\n\n"
                                "#define ROW(k) \\\n    {     \\\n        k \\\n    }\n"
                                "typedef struct {\n    int a;\n} row;\n"
                                "static const struct {\n    const char *name;\n} table[] = {{\"x\"}};\n"
                                "static const char *const names[] = {\"a\"};\n"
                                "struct later;\n"
                                "static int helper(int x);\n\n"
                                "int culprit_detect_check_commit(int x)\n{\n"
                                "    static int local_ok;\n"
                                "    return culprit_stats_welch(x) + helper(local_ok);\n}\n\n"
                                "static int helper(int x)\n{\n    return x + (int)sizeof(table)"
                                " + (int)sizeof(names);\n}\n",
    "framework/cli/main.c": "#include <culprit/detect.h>\n\nint main(void)\n{\n"
                            "    return culprit_detect_check_commit(1);\n}\n",
}
PLANTED = {
    "framework/cli/main.c": "#include <culprit/detect.h>\n\nint main(void)\n{\n"
                            "    return culprit_stats_welch(1);\n}\n",
    "framework/detect/cache.c": "#include <culprit/detect.h>\n\nstatic int calls;\n"
                                "const char *last_name, *other = 0;\n"
                                "static const char *pointer_to_const;\n\n"
                                "int culprit_detect_cached(void)\n{\n    return calls++;\n}\n",
    "include/culprit/stats.h": "int culprit_stats_welch(int);\n/* culprit_welch_old(x) */\n"
                               "typedef int (*culprit_stats_fn)(int);\n"
                               "const char *\nculprit_welford_name(int);\n",
}


def run(tree):
    with tempfile.TemporaryDirectory() as root:
        for rel, text in tree.items():
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        out = io.StringIO()
        saved = sys.argv
        sys.argv = ["check_layers.py", root]
        try:
            with contextlib.redirect_stdout(out):
                status = check_layers.main()
        finally:
            sys.argv = saved
        return status, out.getvalue()


def expect(cond, what, output):
    if not cond:
        print(f"FAIL: {what}\n--- output ---\n{output}")
        sys.exit(1)


def main():
    status, out = run(CLEAN)
    expect(status == 0, "a clean tree passes", out)
    status, out = run({**CLEAN, **PLANTED})
    expect(status == 1, "a tree with findings fails", out)
    expect("tool decides: framework/cli/main.c:3: main() calls culprit_stats_welch()" in out,
           "the tool calling a statistic is reported", out)
    for name in ("calls", "last_name", "other", "pointer_to_const"):
        expect(f"file state: framework/detect/cache.c:" in out and f"'{name}'" in out,
               f"file-scope state '{name}' is reported", out)
    expect(out.count("file state:") == 4, "only the four planted variables are reported", out)
    expect("prefix: include/culprit/stats.h:5: culprit_welford_name() does not start with "
           "culprit_stats_" in out, "a public function named for another header is reported",
           out)
    expect(out.count("prefix:") == 1, "only the planted prototype is reported", out)
    print("check_layers_test: the check finds what was planted, and only that")
    return 0


if __name__ == "__main__":
    sys.exit(main())
