#!/usr/bin/env bash
# bench_trace_real: the timed call tree's bias on a workload culprit's authors did not
# write (issue 26; docs/calltree.md, "Overhead and bias"): cmark (commonmark/cmark)
# rendering its own benchmark samples, 40 x 20 copies (8 MB), a call-heavy parser
# (about 10 M calls of one-line helpers that a plain build inlines).
#   truth:    `perf record --call-graph dwarf` of the plain build (RelWithDebInfo, no
#             instrumentation), each function's inclusive share of the samples
#             (`perf report --children`, inlined frames included);
#   recorded: `culprit calltree record --baseline PLAIN -- INSTRUMENTED` (the build
#             with culprit-cc), each function's inclusive time over main's.
# Prints per function the two shares and their difference in points, the plain
# build's CPU time against the recorded total, and what culprit said about the bias.
# usage: bench_trace_real.sh CULPRIT      (CULPRIT_BENCH_SRC names the directory that
#        holds a clone of https://github.com/commonmark/cmark; without it, perf or
#        culprit-cc beside CULPRIT or in its build tree: exit 77, skipped)
# Exits 1 when the corrected total is more than 10% off the plain build's CPU time and
# culprit did not warn, or when a share is more than 15 points off.
set -euo pipefail
culprit=$(realpath "$1")
src=${CULPRIT_BENCH_SRC:-}
[ -n "$src" ] && [ -d "$src/cmark/.git" ] || { echo "no cmark clone under CULPRIT_BENCH_SRC: skipped"; exit 77; }
command -v perf > /dev/null || { echo "perf not installed: skipped"; exit 77; }
wrapper=""
for w in "$(dirname "$culprit")/culprit-cc" "$(dirname "$culprit")/../../culprit-cc"; do
  [ -x "$w" ] && { wrapper=$(realpath "$w"); break; }
done
[ -n "$wrapper" ] || { echo "no culprit-cc beside $culprit: skipped"; exit 77; }
work=$(mktemp -d /tmp/culprit-bench-trace-real-XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
tip=${CMARK_REV:-54b2be56}
git clone -q "$src/cmark" "$work/cm"
git -C "$work/cm" -c advice.detachedHead=false checkout -q "$tip"
cfg=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMARK_TESTS=OFF -DCMARK_SHARED=OFF)
(cd "$work/cm" && cmake -S . -B plain "${cfg[@]}" > /dev/null && cmake --build plain --target cmark_exe -j2 > /dev/null &&
  cmake -S . -B inst -DCMAKE_C_COMPILER="$wrapper" "${cfg[@]}" > /dev/null &&
  cmake --build inst --target cmark_exe -j2 > /dev/null)
for i in $(seq 1 40); do cat "$work"/cm/bench/samples/*.md; done > "$work/one.md"
for i in $(seq 1 20); do cat "$work/one.md"; done > "$work/in.md"
echo "cmark $tip on $(du -h "$work/in.md" | cut -f1) of its benchmark samples; before: $(uptime)"

cpu=$(cd "$work/cm" && for k in 1 2 3; do
  /usr/bin/time -f '%U %S' -o "$work/t" plain/src/cmark "$work/in.md" > /dev/null
  awk '{ print $1 + $2 }' "$work/t"; done | sort -n | head -1)
(cd "$work/cm" && perf record -q --call-graph dwarf -F 2000 -o "$work/p.data" -- plain/src/cmark "$work/in.md" > /dev/null 2>&1)
perf report -i "$work/p.data" --children --sort sym --stdio -g none -q 2> /dev/null |
  awk '$3 == "[.]" { sub(/%/, "", $1); n = $4; if (!(n in s)) s[n] = $1 } END { for (n in s) print n, s[n] }' > "$work/truth"
(cd "$work/cm" && "$culprit" calltree record --baseline "plain/src/cmark $work/in.md" --out "$work/rec.calltree" \
  -- inst/src/cmark "$work/in.md" > /dev/null 2> "$work/rec.err")
"$culprit" calltree show "$work/rec.calltree" |
  awk 'function ns(v, u) { return v * (u == "s" ? 1e9 : u == "ms" ? 1e6 : u == "us" ? 1e3 : 1) }
       NR > 3 && $1 ~ /^[0-9]+$/ { t[$6] += ns($2, $3) } END { for (f in t) print f, t[f] }' > "$work/rec"
echo "after: $(uptime)"
main=$(awk '$1 == "main" { print $2 }' "$work/rec")
printf '%-24s %8s %9s %8s\n' function truth recorded points
fail=0
for f in S_parser_feed S_process_line cmark_parser_finish cmark_parse_inlines print_document cmark_render_html cmark_node_free; do
  t=$(awk -v f="$f" '$1 == f { print $2 }' "$work/truth")
  r=$(awk -v f="$f" -v m="$main" '$1 == f { printf "%.1f", 100 * $2 / m }' "$work/rec")
  [ -n "$t" ] && [ -n "$r" ] || { printf '%-24s %8s %9s\n' "$f" "${t:--}" "${r:--}"; continue; }
  d=$(echo "$r - $t" | bc)
  printf '%-24s %7.1f%% %8.1f%% %+8.1f\n' "$f" "$t" "$r" "$d"
  awk -v d="$d" 'BEGIN { exit !(d > 15 || d < -15) }' && fail=1
done
total=$(awk -v m="$main" 'BEGIN { printf "%.3f", m / 1e9 }')
excess=$(awk -v m="$main" -v c="$cpu" 'BEGIN { printf "%+.0f", 100 * (m / 1e9 / c - 1) }')
echo "plain build's CPU time (user+sys, fastest of 3): ${cpu} s; recorded main: ${total} s (${excess}%)"
echo "culprit said:"
grep -v 'timing depth\|recording the structure' "$work/rec.err" | sed 's/^/  /'
if awk -v e="$excess" 'BEGIN { exit !(e > 10 || e < -10) }' && ! grep -q 'off the plain build' "$work/rec.err"; then
  echo "FAIL: the recorded total is ${excess}% off the plain build's CPU time and culprit did not say so"
  fail=1
fi
exit $fail
