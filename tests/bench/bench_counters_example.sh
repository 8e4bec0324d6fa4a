#!/usr/bin/env bash
# The journal example (examples/journal) measured commit by commit in a temporary git
# repository as a load test, then judged by `culprit check` with the time detector
# alone and with the counter detectors, side by side:
#   c1..c6  copies = 1, one run each (c6 twice: an A/A pair that calibrates the
#           clusters); the rules are mined from these runs
#   c7      a comment only: an A/A step
#   c8      copies = 8: eight times the bytes written per request; the bytes read,
#           the CPU work and the wall time per request nearly unchanged (a write to
#           /dev/null costs well under a microsecond against ~100 us of checksumming)
# Exits 1 when the counter detectors miss c8: clusters must flag write_bytes, rules
# must name it among the violated counters. The A/A step
# and the time verdict are reported, not asserted: on a shared 2-core machine a load
# test's wall and CPU time move by up to 30% from one run to the next, and the rules
# (levels from the history's median +- sd) flag such a run-level shift as it is.
# usage: bench_counters_example.sh CULPRIT JOURNAL_PERF [--quick]
set -euo pipefail
culprit=$1 journal_perf=$2
duration=2
[ "${3:-}" = "--quick" ] && duration=1

work=$(mktemp -d "${TMPDIR:-/tmp}/culprit-bench-counters-XXXXXX")
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT; echo "work: $work" >&2
repo=$work/repo history=$work/history
git init -q "$repo"
cd "$repo"
git() { command git -c user.name=bench -c user.email=bench@example.org "$@"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

commit() { # MESSAGE COPIES
  printf 'copies = %s\n' "$2" > journal.conf
  [ "$1" = "comment" ] && echo "# $(date +%s%N)" >> journal.conf
  git add journal.conf
  git commit -q -m "$1"
}
measure() {
  JOURNAL_CONFIG=$repo/journal.conf "$journal_perf" --duration "$duration" \
    --history "$history" --fail-on none --quiet > "$work/run.log" 2>&1 ||
    fail "the load test failed: $(cat "$work/run.log")"
}
check() { "$culprit" check --history "$history" --fail-on minor "$@" || true; }

commit base 1 && measure
for _ in 1 2 3 4; do commit comment 1 && measure; done
commit comment 1 && measure && measure
commit comment 1 && measure
c7=$(git rev-parse HEAD)
check --detector=time,clusters,rules > "$work/c7.txt"
commit "write every record 8 times" 8 && measure
check --detector=time > "$work/c8_time.txt"
check --detector=time,clusters,rules > "$work/c8_all.txt"
check --detector=time,clusters,rules --json > "$work/c8_all.json"

echo "== c7 (A/A step), all detectors"
cat "$work/c7.txt"
echo
echo "== c8 (8x the bytes written): --detector=time"
cat "$work/c8_time.txt"
echo
echo "== c8 (8x the bytes written): --detector=time,clusters,rules"
cat "$work/c8_all.txt"

if grep -qE "^  (CLUSTERS|RULES) " "$work/c7.txt"; then
  echo "note: the A/A step ${c7:0:12} was flagged by a counter detector (run-to-run noise)"
fi
grep -E "^  CLUSTERS " "$work/c8_all.txt" | grep -q write_bytes ||
  fail "the clusters detector did not flag write_bytes at c8"
grep -E "^  (RULES|rules) " "$work/c8_all.txt" | grep -q write_bytes ||
  fail "the rules detector did not name write_bytes at c8"
# The rules' severity of write_bytes depends on the run's other levels: when the
# machine slows a whole run, the premises (cpu_ns=medium, ...) stop holding.
grep -E "^  RULES " "$work/c8_all.txt" | grep -qE "write_bytes \(severity (0\.[5-9]|1\.)" ||
  echo "note: rules named write_bytes below severity 0.5 (the run's CPU levels moved too)"
if grep -qE "^(MAJOR|MINOR) " "$work/c8_time.txt"; then
  echo "note: the time detector flagged c8 too (run-to-run noise or the writes' cost)"
else
  echo "result: time alone misses c8; clusters and rules flag write_bytes"
fi
