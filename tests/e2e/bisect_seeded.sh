#!/usr/bin/env bash
# End to end: the second checkout of a bisection is seeded from the first one's
# build (docs/bisect.md, "Seeding the second checkout"). A CMake project whose
# program loads a shared library from its build tree (an absolute rpath, and a
# CMake cache naming the directory): the slowdown (10x) is in the library at r4.
# The bisection must name r4, confirmed, and the file that never changes (main.c)
# must be compiled once in the whole session: every build after the first is
# incremental, the second checkout's too. The same with --calltree counted (the trees
# recorded in the measured checkouts) and with --calltree-build (the call-tree
# checkouts seeded from each other).
# usage: bisect_seeded.sh CULPRIT
set -euo pipefail
culprit=$1
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
e2e_workdir bisect-seeded

repo=$work/repo
git init -q "$repo"
cat > "$repo/CMakeLists.txt" <<'CEOF'
cmake_minimum_required(VERSION 3.13)
project(seeded C)
add_library(work SHARED work.c)
add_executable(prog main.c)
target_link_libraries(prog work)
CEOF
cat > "$repo/main.c" <<'CEOF'
#include <stdio.h>
unsigned long work(void);
int main(void) { printf("%lu\n", work()); return 0; }
CEOF
# Every compilation is logged: main.c must be compiled once.
cat > "$work/launcher" <<CEOF
#!/bin/sh
for a in "\$@"; do case \$a in *main.c) echo main >> '$work/compiles' ;; esac; done
exec "\$@"
CEOF
chmod +x "$work/launcher"
: > "$work/compiles"
for r in 1 2 3 4 5 6; do
  n=3000000; [ "$r" -ge 4 ] && n=30000000
  cat > "$repo/work.c" <<CEOF
unsigned long work(void)
{
    volatile unsigned long x = 1;
    for (unsigned long i = 0; i < ${n}UL; i++)
        x = x * 6364136223846793005UL + 1;
    return x;
}
CEOF
  echo "r$r" > "$repo/notes.txt"
  git -C "$repo" add -A
  git -C "$repo" commit -q -m "r$r"
  git -C "$repo" tag "r$r"
done
build="cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER_LAUNCHER='$work/launcher' >/dev/null && cmake --build build >/dev/null"
(cd "$repo" && "$culprit" bisect --good r1 --bad r6 --build "$build" --command build/prog \
  --json > "$work/out.json" 2> "$work/err") || { cat "$work/err" >&2; fail "bisect failed"; }
want=$(git -C "$repo" rev-parse r4)
grep -q "\"culprit\": \"$want\"" "$work/out.json" || { cat "$work/err" >&2; fail "culprit is not r4"; }
grep -q '"confirmed": true' "$work/out.json" || { cat "$work/err" >&2; fail "r4 not confirmed"; }
compiles=$(wc -l < "$work/compiles")
[ "$compiles" = 1 ] || fail "main.c compiled $compiles times: a build after the first was not incremental"
echo "PASS: r4 found and confirmed, main.c compiled once"

# The same with --calltree counted by callgrind (no --calltree-build): the trees are
# recorded in the two measured checkouts, each put back at the path where it was
# built (the library is loaded through the rpath of that path), so the second
# checkout is seeded too. Before, it was made afresh: main.c compiled twice. The
# answer must be the library's loop, changed by r4, which only the right library
# (r4's, loaded at that path) shows.
if command -v valgrind > /dev/null; then
  : > "$work/compiles"
  build_g=${build/Release/RelWithDebInfo} # debug info: the changed lines' function
  (cd "$repo" && "$culprit" bisect --good r1 --bad r6 --build "$build_g" --command build/prog \
    --metric instructions --calltree --json > "$work/ct.json" 2> "$work/ct.err") ||
    { cat "$work/ct.err" >&2; fail "bisect --calltree failed"; }
  grep -q "\"culprit\": \"$want\"" "$work/ct.json" || { cat "$work/ct.err" >&2; fail "--calltree: culprit is not r4"; }
  jq -e '.calltree.error == null and .calltree.answer.kind == "changed" and .calltree.answer.function.function == "work"' \
    "$work/ct.json" > /dev/null ||
    { jq .calltree "$work/ct.json" >&2; fail "--calltree: the answer is not work(), changed by r4"; }
  compiles=$(wc -l < "$work/compiles")
  [ "$compiles" = 1 ] || fail "--calltree: main.c compiled $compiles times: the second checkout was not seeded"
  echo "PASS: --calltree: r4 and work() found, main.c compiled once"
else
  echo "valgrind not installed: the --calltree part skipped"
fi

# With --calltree-build (timed trees from an instrumented build, culprit-cc) the
# call-tree checkouts are a pair of their own, seeded the same way: the instrumented
# build of the good end (made before bisecting, to check that it records a tree) is
# switched to the parent, and the culprit's checkout is a copy of it. main.c is then
# compiled once plain and once instrumented; before, the culprit's instrumented
# checkout was made afresh (three times). Skipped without culprit-cc in the build tree.
cc_wrapper=""
for w in "$(dirname "$culprit")/culprit-cc" "$(dirname "$culprit")/../../culprit-cc"; do
  [ -x "$w" ] && { cc_wrapper=$(realpath "$w"); break; }
done
if [ -n "$cc_wrapper" ]; then
  : > "$work/compiles"
  ctbuild="cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER='$cc_wrapper' -DCMAKE_C_COMPILER_LAUNCHER='$work/launcher' >/dev/null && cmake --build build >/dev/null"
  (cd "$repo" && "$culprit" bisect --good r1 --bad r6 --build "$build" --command build/prog \
    --metric cpu_ns --calltree --calltree-build "$ctbuild" --json > "$work/tb.json" 2> "$work/tb.err") ||
    { cat "$work/tb.err" >&2; fail "bisect --calltree-build failed"; }
  grep -q "\"culprit\": \"$want\"" "$work/tb.json" || { cat "$work/tb.err" >&2; fail "--calltree-build: culprit is not r4"; }
  jq -e '.calltree.error == null' "$work/tb.json" > /dev/null ||
    { jq .calltree.error "$work/tb.json" >&2; fail "--calltree-build: no call trees"; }
  compiles=$(wc -l < "$work/compiles")
  [ "$compiles" = 2 ] ||
    fail "--calltree-build: main.c compiled $compiles times (once plain, once instrumented expected): the culprit's call-tree checkout was not seeded"
  # The check of the call-tree build before bisecting says where it starts and ends,
  # so a log tells the call-tree phase's cost from the bisection's.
  grep -q '^call trees, before bisecting: building the good end ' "$work/tb.err" &&
    grep -q '^bisecting: the call-tree build records a tree' "$work/tb.err" ||
    { cat "$work/tb.err" >&2; fail "--calltree-build: no phase lines around the check before bisecting"; }
  echo "PASS: --calltree-build: r4, call trees, main.c compiled once plain and once instrumented"
else
  echo "no culprit-cc beside $culprit: the --calltree-build part skipped"
fi
