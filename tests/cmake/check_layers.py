#!/usr/bin/env python3
"""The layering check: the module map of docs/architecture.md, enforced.

Reads every #include in framework/ and include/ and every call from one library
file to a function defined in another, maps files to modules, and reports:

  (a) an include circle between files, or a circle of calls between the .c files
      of one module (a.c calls b.c which calls a.c: the two are one unit, split
      the wrong way);
  (b) a module that uses (includes, or calls a function of) a module it may not
      use: one above it in the map, or one it does not list; or that includes
      another module's private header (framework/<other>/*.h) instead of going
      through its public one (include/culprit/<other>.h);
  (c) a library function over MAX_FUNCTION_LINES lines, or a library .c file
      over MAX_FILE_LINES lines;
  (d) the tool (framework/cli/) calling a function that decides (DECIDING): the
      tool parses, calls the library's entry points and prints;
  (e) mutable state at file scope in framework/ that FILE_STATE does not list
      with its reason;
  (f) a public function whose prefix does not name its header: culprit_<header>_
      in include/culprit/<header>.h, except the prefixes PREFIXES lists
      (docs/conventions.md, "Names").

Every finding is printed, so the whole list of what is left is visible at once;
the exit status is 1 when there is any. Run from ctest (tests/cmake/CMakeLists.txt,
label unit) or by hand: python3 tests/cmake/check_layers.py [SOURCE_DIR].

The C "parser" is a few regular expressions that rely on the repository's
clang-format style (BreakBeforeBraces: Linux): a function body opens with "{" at
column 0 and closes with "}" at column 0, and its name is the identifier before
the first "(" of the lines above. Comments and string literals are blanked first.
"""

import os
import re
import sys

# --- the one table: docs/architecture.md's module map --------------------------------
# Module -> the modules it may use directly. What those may use is allowed too (the
# closure), so "bisect uses detect" lets bisect use stats, which detect uses.
# Order is bottom-up: a module may only list modules before it. The lists are what
# the modules use today, no more: a new dependency is a decision, made here and in
# docs/architecture.md together.
MODULES = [
    # owner: the temp-file rule's owner tag, libc only and header-only (framework/owner/
    # owner.h), shared by core's temporary files and the trace runtime's writer
    ("owner", []),
    ("trace", ["owner"]),  # libc only: linked into instrumented programs
    ("core", ["owner"]),
    ("stats", ["core"]),
    ("measure", ["core", "stats"]),
    ("vcs", ["core"]),
    # history: the shared ref beside the directory, one source (history/source.c)
    ("history", ["core", "stats", "vcs"]),
    ("detect", ["core", "stats", "history"]),
    ("calltree", ["core", "stats", "vcs"]),
    # trace: a weak reference (culprit_trace_reset), set only in instrumented binaries;
    # calltree: the one reader of callgrind's dumps (instruction counts)
    ("runner", ["core", "measure", "history", "vcs", "detect", "calltree", "trace"]),
    ("bisect", ["core", "vcs", "history", "detect", "calltree"]),
    ("report", ["core", "history", "detect", "bisect", "calltree"]),
    ("cli", ["core", "stats", "measure", "history", "vcs", "detect", "runner", "calltree",
             "bisect", "report"]),  # the tool: uses everything, holds no algorithm
]
MAX_FUNCTION_LINES = 100  # a library function, signature to closing brace
MAX_FILE_LINES = 600  # a library .c file
TOOL_MODULES = {"cli"}  # not the library: exempt from (c)
# Public headers whose name is not their module's.
HEADER_MODULE = {"culprit.h": "runner"}  # what a test author includes
# Internal headers a module shares with the modules above it: semi-private
# `culprit_<module>__` functions that cannot be public (they name a third-party
# type), each with the reason.
SHARED_INTERNAL = {
    # jansson's json_t: the --json writers' and readers' helpers, used by the
    # bisection's document (it embeds the call-tree diff) as well as calltree's own
    "framework/calltree/calltree_json.h",
    # libc-only static inline functions, the one copy of the temp-file rule's owner tag
    # that the trace runtime (which cannot link libculprit) and core both compile in
    "framework/owner/owner.h",
}
# Functions that decide a verdict, a comparison or a statistic. The tool may not call
# them: it calls the library's entry points (culprit_detect_check_commit, culprit_detect_check,
# culprit_detect_compare_runs, culprit_bisect_confirm, ...), which do. A prefix
# ending in "_" names a whole family.
DECIDING = [
    "culprit_stats_",  # statistics: the library computes them
    "culprit_detect_judge", "culprit_detect_baseline", "culprit_detect_baseline_for",
    "culprit_detect_wants_pairs", "culprit_detect_apply_paired", "culprit_detect_adjust",
    "culprit_detect_select_metric", "culprit_detect_run_noise",
    "culprit_detect_count_spread", "culprit_detect_counted_change",
    "culprit_detect_counted_value", "culprit_detect_count_threshold",
    "culprit_detect_comparable", "culprit_detect_rules_level", "culprit_detect_rules_mine",
    "culprit_stats_judge_change",
]
# Public headers whose functions do not all start culprit_<header>_, with the prefixes
# they use instead (docs/conventions.md, "Names"): core.h is one header of small
# sections, each named for its kind of thing as libgit2's buf.h, errors.h, ...;
# culprit.h, the test author's header named after the library, has the runner's
# entry point, named after CMocka's cmocka_run_group_tests.
PREFIXES = {
    "core.h": ("culprit_array_", "culprit_buf_", "culprit_color_", "culprit_edit_distance",
               "culprit_error_", "culprit_fs_", "culprit_opt_", "culprit_options_",
               "culprit_parallel_", "culprit_process_", "culprit_progress_", "culprit_str_", "culprit_strdup",
               "culprit_strmap_", "culprit_suggest", "culprit_text_", "culprit_time_",
               "culprit_utf8_"),
    "culprit.h": ("culprit_run_",),
}
# The mutable state at file scope in framework/, each with its reason: process-wide
# on purpose (signal handlers, one-time initialization, per-thread slots). Anything
# else is an object the caller owns (docs/conventions.md, "Thread safety and state").
FILE_STATE = {
    "framework/core/error.c": ("last_message last_code", "the last error, per thread"),
    "framework/core/buf.c": ("empty_string", "what an empty buffer's text points to"),
    "framework/core/term.c": ("color_choice", "the process's --color, set once at start"),
    "framework/core/fs_temp.c": ("own_dir own_pid own_lock",
                                 "the process's temporary directory, removed by a signal"),
    "framework/core/process.c": ("running_pid running_group running_grace_ms interrupting",
                                 "the child a signal handler forwards SIGINT/SIGTERM to"),
    "framework/history/number.c": ("c_locale_once c_locale", "the C locale, made once"),
    "framework/measure/counters.c": ("own_io_bytes counters_key counters_once "
                                     "counters_key_ok cached_counters",
                                     "per-thread counter handles and the history's own I/O"),
    "framework/measure/loop.c": ("region", "the measured region of this thread's test"),
    "framework/runner/execute.c": ("current child_group",
                                   "the test in this process, reached from CMocka's "
                                   "trampoline; the child a signal handler ends"),
    "framework/vcs/checkout.c": ("registry registry_lock registry_claimed",
                                 "temporary checkouts a signal handler removes"),
    "framework/calltree/symbolize.c": ("debuginfo_path", "libdw's search path: a "
                                       "char ** it keeps"),
    "framework/cli/env.c": ("ending", "a signal arrived: set by its handler"),
    "framework/trace/state.c": ("trace__config trace__lock trace__threads",
                                "the instrumented program's trace runtime"),
    "framework/trace/runtime.c": ("self init_once disabled",
                                  "the trace runtime's per-thread state"),
}
# ---------------------------------------------------------------------------------------

ORDER = [m for m, _ in MODULES]


def closure():
    allowed = {}
    for m, uses in MODULES:
        for u in uses:
            if ORDER.index(u) >= ORDER.index(m):
                raise SystemExit(f"check_layers: table: {m} lists {u}, not below it")
        s = set(uses)
        for u in uses:
            s |= allowed[u]
        allowed[m] = s
    return allowed


def module_of(rel):
    parts = rel.split("/")
    if parts[0] == "framework" and len(parts) > 2:
        return parts[1] if parts[1] in ORDER else None
    if parts[0] == "include" and len(parts) == 3:
        name = parts[2]
        if name in HEADER_MODULE:
            return HEADER_MODULE[name]
        base = os.path.splitext(name)[0]
        return base if base in ORDER else None
    return None


def strip_comments(text):
    """Blanks comments and string/char literals, keeping line breaks."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (min(j, n) - i - 1) + (c if j < n else ""))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
# A public function's prototype: at column 0, not a typedef, static or extern.
PROTOTYPE = re.compile(r"^(?!typedef\b|static\b|extern\b)[A-Za-z_][^;{}()#]*?\b(culprit_\w+)\s*\(",
                       re.M)
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "defined", "_Alignof",
            "__attribute__", "typeof", "__typeof__", "_Static_assert", "alignof"}


def functions(lines):
    """(name, first line, last line, body, static) of each function definition."""
    found = []
    i = 0
    while i < len(lines):
        if lines[i].rstrip() == "{" and i > 0:
            start = i - 1
            # walk up to the start of the signature: a line at column 0 that is not
            # a continuation of the previous one (which would end with "," or "(")
            while start > 0 and lines[start - 1].strip() and \
                    lines[start - 1].rstrip().endswith((",", "(")) :
                start -= 1
            sig = " ".join(lines[start:i])
            m = re.search(r"([A-Za-z_]\w*)\s*\(", sig)
            j = i + 1
            while j < len(lines) and lines[j].rstrip() != "}":
                j += 1
            if m and "=" not in sig.split("(")[0]:
                static = re.search(r"\bstatic\b", sig.split("(")[0]) is not None
                found.append((m.group(1), start + 1, j + 1, "\n".join(lines[i:j + 1]), static))
            i = j + 1
        else:
            i += 1
    return found


def scc(graph):
    """Tarjan's strongly connected components of size > 1 (or self-loops)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in graph.get(v, ()):
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def file_state(text):
    """(line, name, declaration) of each mutable variable at file scope. text has
    comments and literals blanked (strip_comments)."""
    # preprocessor lines, with their continuations, keeping line breaks
    text = re.sub(r"(?m)^[ \t]*#(?:[^\n]*\\\n)*[^\n]*",
                  lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    out = []
    i, n, start = 0, len(text), 0
    while i < n:
        c = text[i]
        if c == "{":
            depth, j = 0, i
            while j < n:
                depth += {"{": 1, "}": -1}.get(text[j], 0)
                if depth == 0:
                    break
                j += 1
            stmt = text[start:i]
            if "(" in stmt.split("=")[0] and "=" not in stmt:  # a function body
                start = j + 1
            i = j + 1  # a type's members or an initializer: the statement goes on
            continue
        if c == ";":
            stmt = text[start:i]
            line = text.count("\n", 0, start + len(stmt) - len(stmt.lstrip())) + 1
            start = i + 1
            flat = stmt
            while re.search(r"\{[^{}]*\}", flat):
                flat = re.sub(r"\{[^{}]*\}", " ", flat)
            head = " ".join(flat.split("=")[0].split())
            if head and "(" not in head and not re.match(r"(typedef|extern)\b", head) and \
                    not re.fullmatch(r"(static\s+)?(struct|union|enum)\s+\w+", head):
                for part in [p.strip() for p in head.split(",")]:
                    m = re.search(r"(\w+)\s*(\[[^\]]*\])*\s*$", part)
                    if not m or re.search(r"\bconst\s+" + m.group(1) + r"\b", part) or \
                            (re.search(r"\bconst\b", head) and "*" not in part):
                        continue
                    out.append((line, m.group(1), head))
        i += 1
    return out


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), "..", ".."))
    allowed = closure()
    files = {}
    for top in ("framework", "include"):
        for d, _, names in os.walk(os.path.join(root, top)):
            for name in names:
                if name.endswith((".c", ".h")):
                    path = os.path.join(d, name)
                    rel = os.path.relpath(path, root)
                    with open(path, encoding="utf-8", errors="replace") as f:
                        files[rel] = f.read()

    problems = []
    includes = {}
    module_uses = {}  # (from module, to module) -> an example "file: why"

    def use(src, dst_module, why):
        m = module_of(src)
        if m and dst_module and dst_module != m:
            module_uses.setdefault((m, dst_module), f"{src}: {why}")

    for rel, text in files.items():
        edges = set()
        for kind, name in INCLUDE.findall(text):
            if kind == '"':
                local = os.path.normpath(os.path.join(os.path.dirname(rel), name))
                target = local if local in files else None
            else:
                target = None
            if target is None:
                cand = os.path.normpath(os.path.join("include", name))
                target = cand if cand in files else None
            if target is None:
                continue  # a system or third-party header
            edges.add(target)
            use(rel, module_of(target), f'#include "{name}"')
            if target.startswith("framework/") and module_of(target) != module_of(rel) and \
                    rel.startswith(("framework/", "include/")) and target not in SHARED_INTERNAL:
                problems.append(f"private header: {rel} includes {target}, a header "
                                f"private to {module_of(target)}")
        includes[rel] = edges

    # (a) include circles
    for comp in scc(includes):
        problems.append("include circle: " + " -> ".join(comp))

    # function definitions and calls
    defined = {}  # name -> file
    bodies = {}
    for rel, text in files.items():
        if not rel.endswith(".c"):
            continue
        lines = strip_comments(text).split("\n")
        funcs = functions(lines)
        bodies[rel] = funcs
        for name, _, _, _, static in funcs:
            if not static:  # a static function is called from its own file only
                defined.setdefault(name, rel)
        m = module_of(rel)
        if m not in TOOL_MODULES and rel.startswith("framework/"):
            if len(text.split("\n")) - 1 > MAX_FILE_LINES:
                problems.append(f"long file: {rel}: {len(text.splitlines())} lines "
                                f"(limit {MAX_FILE_LINES})")
            for name, first, last, _, _ in funcs:
                if last - first + 1 > MAX_FUNCTION_LINES:
                    problems.append(f"long function: {rel}:{first}: {name}: "
                                    f"{last - first + 1} lines (limit {MAX_FUNCTION_LINES})")

    calls = {}
    for rel, funcs in bodies.items():
        out = set()
        local = {f[0] for f in funcs}
        for name, _, _, body, _ in funcs:
            for callee in CALL.findall(body):
                if callee in KEYWORDS or callee in local:
                    continue
                where = defined.get(callee)
                if where and where != rel:
                    out.add(where)
                    use(rel, module_of(where), f"calls {callee}()")
        calls[rel] = out

    # (d) the tool calling a function that decides
    for rel, funcs in sorted(bodies.items()):
        if module_of(rel) not in TOOL_MODULES:
            continue
        for name, first, _, body, _ in funcs:
            for callee in sorted(set(CALL.findall(body))):
                if any(callee == d or (d.endswith("_") and callee.startswith(d))
                       for d in DECIDING):
                    problems.append(f"tool decides: {rel}:{first}: {name}() calls "
                                    f"{callee}(), which decides: call the library's "
                                    f"entry point instead")

    # (e) mutable state at file scope
    for rel, text in sorted(files.items()):
        if not (rel.startswith("framework/") and rel.endswith(".c")):
            continue
        allowed_state = FILE_STATE.get(rel, ("", ""))[0].split()
        for line, name, _ in file_state(strip_comments(text)):
            if name not in allowed_state:
                problems.append(f"file state: {rel}:{line}: '{name}' is mutable state at "
                                f"file scope: make it part of an object the caller owns, "
                                f"or list it in FILE_STATE with its reason")

    # (f) a public function's prefix names its header
    for rel, text in sorted(files.items()):
        parts = rel.split("/")
        if len(parts) != 3 or parts[:2] != ["include", "culprit"] or \
                not rel.endswith(".h") or parts[2] == "deprecated.h":
            continue
        header = parts[2]
        prefixes = PREFIXES.get(header, ("culprit_" + header[:-2] + "_",))
        for m in PROTOTYPE.finditer(strip_comments(text)):
            if not m.group(1).startswith(prefixes):
                line = text.count("\n", 0, m.start(1)) + 1
                problems.append(f"prefix: {rel}:{line}: {m.group(1)}() does not start with "
                                f"{' or '.join(prefixes)}: a public function's prefix "
                                f"names its header")

    # (a) circles of calls between the .c files of one module
    same_module = {f: {g for g in out if module_of(g) == module_of(f)}
                   for f, out in calls.items()}
    for comp in scc(same_module):
        problems.append("call circle: " + " <-> ".join(comp))

    # (b) a module using one it may not use
    for (m, d), example in sorted(module_uses.items()):
        if d not in allowed.get(m, set()):
            where = "above it in the map" if ORDER.index(d) > ORDER.index(m) else \
                "not in its list"
            problems.append(f"layering: {m} uses {d} ({where}), e.g. {example}")

    # (c) a file name used twice in framework/ (docs/architecture.md: "No file name
    # repeats across framework/"), so a name in a message or a document is one file
    seen = {}
    for rel in sorted(files):
        if rel.startswith("framework/") and rel.endswith(".c"):
            seen.setdefault(os.path.basename(rel), []).append(rel)
    for name, where in sorted(seen.items()):
        if len(where) > 1:
            problems.append(f"file name repeats: {name}: " + ", ".join(where))

    for p in problems:
        print(p)
    if problems:
        print(f"check_layers: {len(problems)} problem(s)")
        return 1
    print("check_layers: the module map holds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
