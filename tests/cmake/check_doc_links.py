#!/usr/bin/env python3
"""The project's documents are self-contained: every link in README.md and docs/
points inside the repository, at a file that exists (and, with a #fragment into a
Markdown file, at a heading that exists). A user reads them in a clone or on a
forge; a link into the developers' own folders or to a moved file is a dead end.

Run from ctest (cmake_doc_links, label unit) or by hand:
python3 tests/cmake/check_doc_links.py [SOURCE_DIR]. Web addresses (http, https,
mailto) are left alone; the rule is about files.
"""

import os
import re
import sys

LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^(```|~~~)")


def anchors(path):
    """The GitHub-style anchors of the headings of a Markdown file."""
    out = set()
    in_fence = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if FENCE.match(line):
                in_fence = not in_fence
            if in_fence or not line.startswith("#"):
                continue
            text = line.lstrip("#").strip().lower()
            text = re.sub(r"[^\w\- ]", "", text)
            out.add(text.replace(" ", "-"))
    return out


def links(path):
    in_fence = False
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if FENCE.match(line):
                in_fence = not in_fence
            if in_fence:
                continue
            for m in LINK.finditer(line):
                yield number, m.group(1)


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    docs = [os.path.join(root, "README.md")]
    docs += sorted(os.path.join(root, "docs", f) for f in os.listdir(os.path.join(root, "docs"))
                   if f.endswith(".md"))
    problems = []
    for doc in docs:
        rel_doc = os.path.relpath(doc, root)
        for number, target in links(doc):
            if re.match(r"^[a-z]+:", target):
                continue  # a web address or mail link
            path, _, fragment = target.partition("#")
            where = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
            if os.path.commonpath([root, where]) != root:
                problems.append(f"{rel_doc}:{number}: '{target}' leaves the repository")
            elif not os.path.exists(where):
                problems.append(f"{rel_doc}:{number}: '{target}' names no file")
            elif fragment and where.endswith(".md") and fragment not in anchors(where):
                problems.append(f"{rel_doc}:{number}: '{target}': no heading '#{fragment}'")
    for p in problems:
        print(p)
    print(f"check_doc_links: {len(docs)} documents, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
