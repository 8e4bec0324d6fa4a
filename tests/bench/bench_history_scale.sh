#!/usr/bin/env bash
# Issue 14's scale goal: a synthetic history of COMMITS commits x TESTS tests
# (10,000 x 100 = 1 million test-runs by default), generated without running a test,
# in a git repository of as many first-parent commits (git fast-import). Measures:
#   1. `culprit check --fail-on minor` at the newest commit: wall time and peak RSS
#      (targets <= 2 s, <= 300 MB), against the same check reading the whole store
#      (`--baseline HEAD~1`, how every check read it before it read only what it
#      needs); the planted 30% slowdown of test_000 must be its minor regression;
#   2. the store's bytes per test-run (the newest 20 commits with samples, the rest
#      summaries only: what `culprit history prune` keeps);
#   3. `culprit history compact` and `prune` on a store written as text (as every file
#      was before packing): bytes per test-run before and after.
#   4. with FIB_PERF: a real run of examples/fib written as text, then compacted.
# usage: bench_history_scale.sh [--quick] CULPRIT GENERATOR [FIB_PERF]
#   --quick: 300 commits x 20 tests, seconds (ctest, label bench)
# Full size writes about 1.5 GB to $TMPDIR and takes a few minutes; run it with nice.
set -euo pipefail
quick=0
[ "${1:-}" = "--quick" ] && { quick=1; shift; }
culprit=$1 gen=$2 fib_perf=${3:-}
if [ $quick = 1 ]; then commits=300 tests=20; else commits=10000 tests=100; fi
sampled=20 reps=200
work=$(mktemp -d "${TMPDIR:-/tmp}/culprit-bench-scale-XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

echo "load: $(uptime)"
# 1. the repository: COMMITS commits on main, each changing one file
repo=$work/repo
git init -q "$repo"
python3 - "$commits" > "$work/stream" <<'EOF'
import sys
n = int(sys.argv[1])
for i in range(1, n + 1):
    data = "commit %d\n" % i
    msg = "c%d\n" % i
    print("commit refs/heads/main\nmark :%d\ncommitter bench <bench@example.org> %d +0000" % (i, 1767225600 + i))
    print("data %d\n%s" % (len(msg), msg), end="")
    if i > 1:
        print("from :%d" % (i - 1))
    print("M 644 inline file.txt\ndata %d\n%s" % (len(data), data))
EOF
git -C "$repo" fast-import --quiet < "$work/stream"
git -C "$repo" symbolic-ref HEAD refs/heads/main
git -C "$repo" rev-list --first-parent --reverse HEAD > "$work/commits"
[ "$(wc -l < "$work/commits")" = "$commits" ] || fail "fast-import made the wrong history"

hist=$work/history
t0=$(date +%s.%N)
nice -n 10 "$gen" gen "$hist" "$work/commits" "$tests" "$sampled" "$reps"
echo "generation: $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
bytes=$(du -sb "$hist" | cut -f1)
echo "store: $bytes bytes, $((bytes / (commits * tests))) bytes per test-run" \
  "($sampled newest commits with $reps repetitions x 11 series, the rest summaries only)"

measure() { # measure LABEL ARGS...: one check, its time and peak RSS
  local label=$1 status=0
  shift
  (cd "$repo" && /usr/bin/time -f "%e %M" -o "$work/time" "$culprit" check --history "$hist" \
    --fail-on minor --json "$@" > "$work/check.json" 2> "$work/check.err") || status=$?
  read -r secs kb < <(tail -1 "$work/time")
  echo "$label: exit $status, $secs s, peak RSS $((kb / 1024)) MB" >&2
  [ "$status" = 1 ] || fail "$label: exit $status, not 1: $(head -5 "$work/check.err")"
  python3 - "$work/check.json" <<'EOF' || fail "$label: the planted regression is not the verdict"
import json, sys
d = json.load(open(sys.argv[1]))
v = {t["test"]: t["verdict"] for t in d["tests"]}
assert v["bench_suite.test_000"] == "minor", v["bench_suite.test_000"]
flagged = [t for t, k in v.items() if k in ("minor", "major")]
assert flagged == ["bench_suite.test_000"], flagged
EOF
  echo "$secs $kb"
}
along=$(measure "check at the newest commit (reads what it needs)")
measure "check reading the whole store (--baseline HEAD~1)" --baseline HEAD~1 > /dev/null

# 3. compaction of a store written as text: the newest 50 commits
tail -50 "$work/commits" > "$work/commits50"
CULPRIT_HISTORY_PACK=0 "$gen" gen "$work/text" "$work/commits50" "$tests" 50 "$reps" > /dev/null
per() { echo $(($(du -sb "$work/text" | cut -f1) / (50 * tests))); }
before=$(per)
"$culprit" history compact --history "$work/text" > /dev/null
compacted=$(per)
"$culprit" history prune --history "$work/text" --keep-samples "$sampled" > /dev/null
pruned=$(per)
echo "compaction (50 commits x $tests tests, $reps repetitions): $before bytes per test-run as" \
  "text, $compacted after history compact, $pruned after history prune --keep-samples $sampled"
"$gen" size "$tests" "$reps"
if [ -n "$fib_perf" ]; then # a real run: one test of examples/fib, as the runner writes it
  (cd "$work" && CULPRIT_HISTORY_PACK=0 "$fib_perf" --history real --filter fib_adaptive \
    --no-fork > /dev/null 2>&1) || fail "the real run failed"
  size() { du -b "$work"/real/*.xml | cut -f1; }
  text=$(size)
  "$culprit" history compact --history "$work/real" > /dev/null
  packed=$(size)
  echo "a real run (examples/fib fib_adaptive, its repetitions x 11 series, 2 absent): $text bytes" \
    "as text, $packed after history compact (summaries and samples, lossless)"
fi
echo "load: $(uptime)"

if [ $quick = 0 ]; then
  read -r secs kb <<< "$along"
  # Targets missed by a wide margin only (a loaded machine must not turn it red).
  awk -v s="$secs" -v kb="$kb" 'BEGIN { exit !(s <= 6 && kb <= 300 * 1024) }' ||
    fail "check took $secs s and $((kb / 1024)) MB (targets 2 s, 300 MB)"
fi
