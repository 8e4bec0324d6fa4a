#!/usr/bin/env bash
# What a JUnit dashboard plots for a perf test that becomes 2.6x as costly (fib(n) to
# fib(n+2) in the fib example), per run, from three sources of `time`:
#   report   culprit's JUnit report (--junit): the mean of one repetition
#   sampling culprit's history `time` before the report form (elapsed-s): how long
#            sampling ran, set by the budget and the stopping rule
#   process  the wall time of the test binary, what ctest's own --output-junit and
#            a plain CMocka/ctest JUnit step record
# A dashboard's duration trend shows a regression only if the ratio new/old of its
# `time` tracks the cost ratio (2.6) and varies little between runs.
# Usage: bench_junit_time.sh FIB_PERF [--quick]   (--quick: 2 runs per side, 1 s budget)
# Prints figures only: on a shared machine no ratio is certain enough to fail on.
set -euo pipefail
fib_perf=$1
runs=8 budget=5
[ "${2:-}" = --quick ] && { runs=2; budget=1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "load before: $(uptime)"
measure() { # n -> lines "report sampling process"
  printf 'n = %s\ncalls = 1\n' "$1" >"$work/fib$1.conf"
  for ((i = 0; i < runs; i++)); do
    local t0 t1 xml=$work/r$1.$i.xml
    t0=$(date +%s.%N)
    FIB_CONFIG=$work/fib$1.conf CULPRIT_FAIL_ON=none "$fib_perf" --filter fib_adaptive \
      --no-history --budget "$budget" --junit "$xml" >/dev/null 2>&1
    t1=$(date +%s.%N)
    local report sampling
    report=$(grep -o '<testcase [^>]*time="[0-9.]*"' "$xml" | grep -o 'time="[0-9.]*"' | tr -dc '0-9.')
    sampling=$(grep -m1 '^elapsed-s ' "$xml" | cut -d' ' -f2)
    echo "$report $sampling $(echo "$t1 - $t0" | bc -l)"
  done
}
measure 24 >"$work/old"
measure 26 >"$work/new"
echo "load after:  $(uptime)"

# Per source: the median ratio new/old over the runs paired in order, and the spread
# (min..max) of the ratios: what a trend line would jump by from run to run.
python3 - "$work/old" "$work/new" "$runs" "$budget" <<'PY'
import statistics, sys
old = [list(map(float, l.split())) for l in open(sys.argv[1])]
new = [list(map(float, l.split())) for l in open(sys.argv[2])]
print(f"fib_adaptive, fib(24) -> fib(26) (cost x2.6), {sys.argv[3]} runs per side, budget {sys.argv[4]} s")
print(f"{'time source':<40} {'old median':>11} {'new median':>11} {'ratio':>6} {'ratio range':>14}")
names = ["report: mean of one repetition", "sampling time (history elapsed-s)",
         "process wall time (ctest --output-junit)"]
for k, name in enumerate(names):
    r = [n[k] / o[k] for o, n in zip(old, new) if o[k] > 0]
    print(f"{name:<40} {statistics.median(o[k] for o in old):>10.6f}s "
          f"{statistics.median(n[k] for n in new):>10.6f}s {statistics.median(r):>6.2f} "
          f"{min(r):>6.2f}..{max(r):<6.2f}")
PY
