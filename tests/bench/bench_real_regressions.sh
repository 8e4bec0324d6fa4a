#!/usr/bin/env bash
# bench_real_regressions: `culprit bisect --metric instructions --calltree` on real
# regressions of public C libraries, each known from the project's own issue or fix
# (issue 26), as a new user runs it (docs/bisect.md, docs/calltree.md): a perf command
# kept outside the library's history, built against each checkout ($CULPRIT_CHECKOUT).
#
#   cmark  commonmark/cmark, issue #457 ("This regressed in commit 4470ff33", fixed by
#          6a5126a8): "a" followed by 10,000 "<!--" takes quadratic time. The range is
#          0.30.2..b1d961c8 (21 commits, the parent of the fix's first parent). Expected:
#          4470ff33, answer _scan_html_comment or handle_pointy_brace (both changed by
#          it: the regenerated scanner scans to the end of the input at every "<!--",
#          and the caller that calls it).
#   zlib   madler/zlib, issue #820 (compression 1.5% slower from 1.2.11 to 1.2.13;
#          the maintainer: "due to a bug fix (5c44459c) that now writes two bytes into
#          a table, instead of one 16-bit write"): level-1 deflate of 2 MB of generated
#          text. Range 5c44459c~10..8ba2cdb (14 commits). Expected: 5c44459c, answer
#          deflate_fast (where the changed _tr_tally macros expand) or compress_block
#          (changed to read the new symbol buffer).
#   cmark214  commonmark/cmark, issue #214 ("The commit a9da6782 is responsible for the
#          regression"; 0.27.1 fine): "[a](b" repeated takes quadratic time, because
#          a9da6782 ("Allow balanced nested parens in link destinations") replaced the
#          re2c scanner by manual_scan_link_url, which scans to the end of the input
#          for every unclosed destination. 2,000 repeats (10 kB). Range 0.27.1..88c8ad1
#          (the head the issue names; 72 commits). Expected: a9da6782, answer
#          manual_scan_link_url (added by it) or handle_close_bracket (its caller,
#          changed by it).
#   libxml2  GNOME/libxml2, issue #726, fixed by 122b6130 (b71f09c1 on the 2.12
#          branch; "parser: Fix performance regression when parsing namespaces": "The
#          namespace hash table didn't reuse deleted buckets, leading to quadratic
#          behavior"; it changes xmlParserNsLookup and xmlParserNsPush). That table
#          and both functions were added by e0dd330b ("parser: Use hash tables to
#          avoid quadratic behavior"), the first commit holding them: before it a
#          prefix was looked up in the in-scope namespaces. An element redeclaring the
#          same prefix 10,000 times ("<a xmlns:x='u'/>") leaves a deleted bucket per
#          element with the same hash, which every later lookup walks. Range
#          e0dd330b~10..6337a14a (26 commits; d147f564 in it adds 8% of instructions).
#          Expected: e0dd330b, answer xmlParserNsLookup (where the walk is) or
#          xmlParserNsPush (its caller). xmllint is built with the modules it can do
#          without off (a full build takes a minute, not several).
#
# usage: bench_real_regressions.sh CULPRIT [cmark] [zlib] [cmark214] [libxml2]   (default: all)
# The repositories are not fetched: clone them once and name their parent directory:
#   git clone https://github.com/commonmark/cmark "$CULPRIT_BENCH_SRC/cmark"
#   git clone https://github.com/madler/zlib "$CULPRIT_BENCH_SRC/zlib"
#   git clone https://github.com/GNOME/libxml2 "$CULPRIT_BENCH_SRC/libxml2"
# (cmark214 uses the cmark clone.)
# A case whose clone is absent (or lacks the commits) is skipped; with none left, or
# CULPRIT_BENCH_SRC unset, the script exits 77 (ctest: skipped; ctest fetches
# nothing). Without valgrind: 77.
# GIT=1 also runs `git bisect run` on the same range, as a user who knows Valgrind
# would: each end built and counted (`valgrind --tool=callgrind`, its "I refs"), the
# threshold at their geometric mean, then a script that builds (125 if that fails)
# and says bad above it; its wall time includes all of that. AA=1 records the
# culprit's instruction tree and diffs it with itself (issue 26: no suspect; below).
# Prints wall times, steps, builds, runs, answers and `uptime` before and after each,
# and per case one SUMMARY line with what issue 26's goals judge: the commit right or
# wrong, the function right or wrong, culprit's wall time for the bisection alone (to
# its first "call trees:" progress line, from the end of the check of the call-tree
# build that --calltree-build makes before bisecting: that build is the call-tree
# phase's, and its time is printed apart) and for all phases, and with GIT=1 `git
# bisect run`'s wall time and the two ratios.
# AA=1: four recordings of the culprit's build, the diff of two with the other two as
# each side's second recording (`calltree diff --base-again --test-again`: a program
# whose work varies, docs/calltree.md), and the diff of two alone for comparison.
# METRIC=time judges by CPU time instead of instructions, as a user without Valgrind
# would: `bisect --metric cpu_ns --calltree --calltree-build CMD`, CMD the same build
# with `culprit-cc` (found beside CULPRIT, or in its build tree), so the bisection
# measures plain builds and the timed call trees come from instrumented ones; with
# GIT=1 `git bisect run` judges each commit by the median CPU time (user+sys, GNU
# time) of 5 runs, the threshold at the geometric mean of the ends' medians.
# Exits 1 when culprit names a wrong commit or a function the commit did not change.
set -euo pipefail
culprit=$(realpath "$1"); shift
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(cmark zlib cmark214 libxml2)
src=${CULPRIT_BENCH_SRC:-}
[ -n "$src" ] || { echo "CULPRIT_BENCH_SRC not set (see the usage above): skipped"; exit 77; }
metric=${METRIC:-instructions} wrapper=""
case $metric in
  instructions) command -v valgrind > /dev/null || { echo "valgrind not installed: skipped"; exit 77; } ;;
  time)
    [ -x /usr/bin/time ] || { echo "GNU time (/usr/bin/time) not installed: skipped"; exit 77; }
    for w in "$(dirname "$culprit")/culprit-cc" "$(dirname "$culprit")/../../culprit-cc"; do
      [ -x "$w" ] && { wrapper=$(realpath "$w"); break; }
    done
    [ -n "$wrapper" ] || { echo "METRIC=time: no culprit-cc beside $culprit or in its build tree" >&2; exit 2; } ;;
  *) echo "bench_real_regressions: METRIC must be instructions or time, not '$metric'" >&2; exit 2 ;;
esac
work=$(mktemp -d /tmp/culprit-bench-real-XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
git() { command git -c user.name=bench -c user.email=bench@example.org -c advice.detachedHead=false "$@"; }
now() { date +%s.%N; }
ran=0 failed=0

perf_zlib() { # the deflate program, kept outside zlib's history
  cat > "$1" << 'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "zlib.h"
int main(void)
{
    static const char *words[] = {"the ", "quick ", "brown ", "fox ", "jumps ", "over ",
                                  "lazy ", "dog ", "zlib ", "deflate ", "\n"};
    size_t n = 2u << 20, i;
    unsigned char *in = malloc(n), *out;
    unsigned long seed = 12345, outn = compressBound(n);
    for (i = 0; i < n;) {
        seed = seed * 1103515245u + 12345u;
        const char *w = words[(seed >> 16) % 11];
        size_t l = strlen(w);
        if (i + l > n) l = n - i;
        memcpy(in + i, w, l);
        i += l;
        if ((seed >> 8) % 7 == 0 && i < n) in[i++] = (unsigned char)('A' + (seed >> 20) % 26);
    }
    out = malloc(outn);
    if (compress2(out, &outn, in, n, 1) != Z_OK) return 1;
    printf("%lu\n", outn);
    return 0;
}
EOF
}

setup() { # setup CASE: sets repo good bad expect answers build cmd
  case $1 in
    cmark)
      repo=$src/cmark good=0.30.2 bad=b1d961c8 expect=4470ff33
      answers="_scan_html_comment handle_pointy_brace"
      python3 -c 'print("a" + "<!--" * 10000)' > "$work/cmark.md"
      build="cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMARK_TESTS=OFF -DCMARK_SHARED=OFF >/dev/null && cmake --build build --target cmark_exe -j2 >/dev/null"
      ctbuild="cmake -S . -B build -DCMAKE_C_COMPILER=$wrapper -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMARK_TESTS=OFF -DCMARK_SHARED=OFF >/dev/null && cmake --build build --target cmark_exe -j2 >/dev/null"
      cmd="build/src/cmark $work/cmark.md >/dev/null" ;;
    cmark214)
      repo=$src/cmark good=0.27.1 bad=88c8ad1 expect=a9da6782
      answers="manual_scan_link_url handle_close_bracket"
      python3 -c 'print("[a](b" * 2000)' > "$work/cmark214.md"
      build="cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMARK_TESTS=OFF >/dev/null 2>&1 && cmake --build build --target cmark -j2 >/dev/null 2>&1"
      ctbuild="cmake -S . -B build -DCMAKE_C_COMPILER=$wrapper -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMARK_TESTS=OFF >/dev/null 2>&1 && cmake --build build --target cmark -j2 >/dev/null 2>&1"
      cmd="build/src/cmark $work/cmark214.md >/dev/null" ;;
    libxml2)
      repo=$src/libxml2 good=e0dd330b~10 bad=6337a14a expect=e0dd330b
      answers="xmlParserNsLookup xmlParserNsPush"
      python3 -c 'print("<r>" + "<a xmlns:x=\"u\"/>" * 10000 + "</r>")' > "$work/libxml2.xml"
      local opts="-DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_SHARED_LIBS=OFF -DLIBXML2_WITH_PYTHON=OFF -DLIBXML2_WITH_LZMA=OFF -DLIBXML2_WITH_ZLIB=OFF -DLIBXML2_WITH_ICU=OFF -DLIBXML2_WITH_TESTS=OFF -DLIBXML2_WITH_HTTP=OFF"
      local m # the modules xmllint can do without, so that a build takes a minute, not several
      for m in C14N CATALOG DEBUG HTML SCHEMAS SCHEMATRON XINCLUDE XPTR XPATH READER WRITER PATTERN MODULES REGEXPS VALID ISO8859X; do
        opts+=" -DLIBXML2_WITH_$m=OFF"
      done
      build="cmake -S . -B build $opts >/dev/null 2>&1 && cmake --build build --target xmllint -j2 >/dev/null 2>&1"
      ctbuild="cmake -S . -B build -DCMAKE_C_COMPILER=$wrapper $opts >/dev/null 2>&1 && cmake --build build --target xmllint -j2 >/dev/null 2>&1"
      cmd="build/xmllint --noout $work/libxml2.xml" ;;
    zlib)
      repo=$src/zlib good=5c44459c~10 bad=8ba2cdb expect=5c44459c
      answers="deflate_fast compress_block"
      perf_zlib "$work/zdeflate.c"
      build="cc -O2 -g -I. -o perf $work/zdeflate.c adler32.c crc32.c deflate.c inflate.c inffast.c inftrees.c trees.c zutil.c compress.c uncompr.c"
      ctbuild="$wrapper ${build#cc }"
      cmd="./perf >/dev/null" ;;
    *) echo "bench_real_regressions: unknown case $1" >&2; exit 2 ;;
  esac
}

count() { # count DIR: the instructions of the command in DIR (callgrind's I refs), or
  # with METRIC=time the median CPU time in microseconds of 5 runs (user+sys)
  if [ "$metric" = time ]; then
    (cd "$1" && for k in 1 2 3 4 5; do
       /usr/bin/time -f '%U %S' -o "$work/cpu" sh -c "$cmd" > /dev/null
       awk '{ printf "%.0f\n", ($1 + $2) * 1e6 }' "$work/cpu"
     done | sort -n | sed -n 3p)
    return
  fi
  (cd "$1" && valgrind --tool=callgrind --trace-children=yes --callgrind-out-file=/dev/null \
    sh -c "$cmd" 2>&1 | awk '/I *refs:/ { gsub(",", "", $NF); n += $NF } END { print n }')
}

git_bisect() { # the same range with git bisect run on counts or CPU times (GIT=1)
  local clone=$work/$1-git t0 cg cb thr
  git clone -q "$repo" "$clone"
  t0=$(now)
  (cd "$clone" && git checkout -q "$good" && sh -c "$build") > /dev/null
  cg=$(count "$clone")
  (cd "$clone" && git checkout -q "$bad" && sh -c "$build") > /dev/null
  cb=$(count "$clone")
  thr=$(awk -v a="$cg" -v b="$cb" 'BEGIN { printf "%.0f", sqrt(a * b) }')
  local measure="valgrind --tool=callgrind --trace-children=yes --callgrind-out-file=/dev/null sh -c '$cmd' 2>&1 | awk '/I *refs:/ { gsub(\",\", \"\", \$NF); n += \$NF } END { print n }'"
  [ "$metric" = instructions ] || measure="for k in 1 2 3 4 5; do /usr/bin/time -f '%U %S' -o $work/cpu sh -c '$cmd' > /dev/null; awk '{ printf \"%.0f\\n\", (\$1 + \$2) * 1e6 }' $work/cpu; done | sort -n | sed -n 3p"
  cat > "$work/step.sh" << EOF
#!/bin/sh
sh -c '$build' > /dev/null 2>&1 || exit 125
n=\$($measure)
echo "\$(git rev-parse --short HEAD) \$n" >> $work/git-steps
[ "\$n" -le $thr ]
EOF
  chmod +x "$work/step.sh"
  : > "$work/git-steps"
  (cd "$clone" && git bisect start "$bad" "$good" > /dev/null && git bisect run "$work/step.sh" > "$work/git.log" 2>&1)
  local named
  named=$(awk '/is the first bad commit/ { print $1; exit }' "$work/git.log")
  git_wall=$(echo "$(now) - $t0" | bc)
  echo "$1 git bisect run: $(printf '%.1f' "$git_wall") s wall; names ${named:0:12}; $(($(wc -l < "$work/git-steps") + 2)) builds and counted runs (the ends included)"
}

aa() { # the culprit's tree four times, diffed with itself (AA=1)
  # Two recordings per side, as `bisect --calltree` makes of a program whose work varies:
  # the diff of the first two alone, and with each side's second recording (the band).
  local d=$work/$1-aa
  git clone -q "$repo" "$d"
  (cd "$d" && git checkout -q "$expect" && sh -c "$build") > /dev/null
  (cd "$d" && for k in 1 2 3 4; do
     "$culprit" calltree record --metric instructions --quiet --out "$work/aa$k.calltree" \
       sh -c "$cmd" > /dev/null
   done)
  "$culprit" calltree diff "$work/aa1.calltree" "$work/aa2.calltree" --json > "$work/aa-plain.json" 2> /dev/null
  "$culprit" calltree diff "$work/aa1.calltree" "$work/aa2.calltree" --base-again "$work/aa3.calltree" \
    --test-again "$work/aa4.calltree" --json > "$work/aa.json" 2> /dev/null
  echo "$1 A/A: $(jq '.suspects | length' "$work/aa.json") suspects among $(jq .nodes_compared "$work/aa.json") nodes compared" \
    "($(jq .varying_suspects "$work/aa.json") left out by the band; without it $(jq '.suspects | length' "$work/aa-plain.json"));" \
    "main's instructions: $(for k in 1 2 3 4; do awk '$1 == "function" && $5 == "main" { f[$2] = 1 }
      $1 == "node" && ($4 in f) { s += $7 } END { printf "%.0f ", s }' "$work/aa$k.calltree"; done)$(uptime)"
  jq -e '.suspects | length == 0' "$work/aa.json" > /dev/null || failed=1
}

for c in "${cases[@]}"; do
  setup "$c"
  if [ ! -d "$repo" ] || ! command git -C "$repo" rev-parse -q --verify "$expect^{commit}" > /dev/null; then
    echo "$c: no clone with $expect at $repo: skipped (see the usage above)"
    continue
  fi
  ran=1
  git clone -q "$repo" "$work/$c"
  echo "$c: before: $(uptime)"
  t0=$(now)
  # stderr's lines stamped with the time they came: the bisection ends at the first
  # "call trees:" line.
  how=(--metric instructions --calltree)
  [ "$metric" = instructions ] || how=(--metric cpu_ns --calltree --calltree-build "$ctbuild")
  (cd "$work/$c" && "$culprit" bisect --good "$good" --bad "$bad" --build "$build" --command "$cmd" \
     "${how[@]}" > "$work/$c.out" \
     2> >(while IFS= read -r l; do printf '%s %s\n' "$(now)" "$l"; done > "$work/$c.err")) || true
  wall=$(echo "$(now) - $t0" | bc)
  sleep 1 # the stamping loop's last lines
  ct=$(awk '$2 == "call" && $3 == "trees:" { print $1; exit }' "$work/$c.err")
  # With --calltree-build the good end's instrumented build is made and checked first
  # (it must record a tree): a cost of the call-tree phase, which reuses that build.
  # The bisection starts when the check ends ("bisecting: the call-tree build ...").
  pre=$(awk '$2 == "bisecting:" && $4 == "call-tree" { print $1; exit }' "$work/$c.err")
  alone=$(echo "${ct:-$(now)} - ${pre:-$t0}" | bc)
  precheck=$(echo "${pre:-$t0} - $t0" | bc)
  echo "$c: after: $(uptime)"
  cat "$work/$c.out"
  named=$(awk '/is the first slow commit/ { print $3; exit }' "$work/$c.out")
  # A counted tree names a function by its symbol, a GCC clone's suffix included
  # (libxml2: xmlParserNsLookup.isra.0): the function is the name before it.
  answer=$(awk '$1 == "answer:" { print $2; exit }' "$work/$c.out" |
    sed -E 's/(\.(isra|constprop|part|cold)(\.[0-9]+)?)+$//')
  changed=$(grep -c '^answer: .*, changed by the commit' "$work/$c.out" || true)
  echo "$c culprit bisect: $(printf '%.1f' "$wall") s wall; names ${named:0:12} (expected $expect); answer ${answer:-none}"
  commit_ok=right function_ok=right
  if [[ $named != $(command git -C "$repo" rev-parse "$expect")* ]]; then
    echo "FAIL $c: named ${named:-nothing}, not $expect"; cat "$work/$c.err"; failed=1; commit_ok=WRONG
  fi
  if [ "$changed" != 1 ] || ! [[ " $answers " == *" $answer "* ]]; then
    echo "FAIL $c: the answer is ${answer:-none}, not one of: $answers (changed by the commit)"; failed=1
    function_ok=WRONG
  fi
  [ "$metric" = time ] || ! grep -q 'times not corrected' "$work/$c.out" ||
    { echo "FAIL $c: a counted tree said 'times not corrected'"; failed=1; }
  git_wall=""
  [ -z "${GIT:-}" ] || git_bisect "$c"
  summary="SUMMARY $c ($metric): commit $commit_ok (${named:0:12}), function $function_ok (${answer:-none});"
  summary+=" culprit bisection $(printf '%.1f' "$alone") s (after the call-tree build's check, $(printf '%.1f' "$precheck") s), all phases $(printf '%.1f' "$wall") s"
  if [ -n "$git_wall" ]; then
    summary+="; git bisect run $(printf '%.1f' "$git_wall") s; bisection/git $(echo "scale=2; $alone / $git_wall" | bc)x"
    summary+=", all phases/git $(echo "scale=2; $wall / $git_wall" | bc)x"
  fi
  echo "$summary; $(uptime)"
  [ -z "${AA:-}" ] || aa "$c"
done
[ $ran = 1 ] || { echo "no repository found under $src: skipped"; exit 77; }
exit $failed
