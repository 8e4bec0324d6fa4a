#!/usr/bin/env bash
# Instruction counts under Valgrind (docs/measure.md, "Instruction counts"): what
# counting costs and how stable it is, for a ~5 us and a ~1 ms test body.
#  - the wall time of one test binary run measuring the test natively (30 timed
#    repetitions, the runner's default adaptive loop would take up to 5 s) and with
#    --metric instructions (1 warm-up + 5 counted repetitions under callgrind);
#  - the A/A spread of the count: RUNS counted runs of the same binary, the largest
#    relative difference between two of them;
#  - +1% work: the counted change against the A/A spread, and time's view of the
#    same +1% from one native run each (the relative difference of the two means).
# Run it beside a CPU hog to see that counts do not move with load:
#   sh -c 'while :; do :; done' & bash tests/bench/bench_instructions.sh ...; kill %1
# usage: bench_instructions.sh LIBCULPRIT INCLUDE_DIR [--quick]
set -euo pipefail
lib=$1 include=$2 quick=${3:-}
command -v valgrind > /dev/null || { echo "valgrind not installed: skipped"; exit 77; }
runs=10 tries=5; [ "$quick" = --quick ] && runs=2 tries=1
work=$(mktemp -d /tmp/culprit-bench-instructions-XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"

# perf_N: a test whose body loops N times (N iterations ~ N ns here).
make_perf() {
  cat > "perf_$1.c" <<CEOF
#include <culprit/culprit.h>
static volatile unsigned long sink;
static void body(void **state)
{
    (void)state;
    for (unsigned long i = 0; i < $1; i++)
        sink += i * i;
}
int main(int argc, char **argv)
{
    static const culprit_perf_test tests[] = {culprit_perf_test(body, .category = "slow")};
    return culprit_run_group_name("bench", tests, argc, argv);
}
CEOF
  cc -O1 -I"$include" -o "perf_$1" "perf_$1.c" "$lib" \
    $(pkg-config --libs cmocka libgit2 jansson gsl libxml-2.0) -lm
}
# mean VALUE of one run: "wall_s mean" of a run of ./perf_N with ARGS
one_run() {
  local n=$1; shift
  local t0 t1 mean
  t0=$(date +%s.%N)
  mean=$(CULPRIT_FAIL_ON=none "./perf_$n" --no-history --json "$@" 2>/dev/null |
    python3 -c "import json,sys; print(json.load(sys.stdin)['tests'][0]['mean_ns'])")
  t1=$(date +%s.%N)
  echo "$(python3 -c "print($t1 - $t0)") $mean"
}
spread() { python3 -c "import sys; v=[float(x) for x in sys.argv[1:]]; print('%.4f%%' % (100*(max(v)-min(v))/min(v)))" "$@"; }

echo "load before: $(uptime)"
printf '%-8s %14s %14s %9s %16s %14s %14s\n' body native_run_s counted_run_s slowdown instructions aa_spread plus1pct
for n in 5000 1000000; do
  make_perf "$n"; make_perf "$((n + n / 100))"
  read -r native _ < <(one_run "$n" --repetitions 30)
  counts=() walls=()
  for i in $(seq "$runs"); do
    read -r w c < <(one_run "$n" --metric instructions)
    counts+=("$c"); walls+=("$w")
  done
  read -r _ plus < <(one_run "$((n + n / 100))" --metric instructions)
  counted=$(python3 -c "import sys; v=sorted(float(x) for x in sys.argv[1:]); print(v[len(v)//2])" "${walls[@]}")
  change=$(python3 -c "print('%+.3f%%' % (100*($plus/${counts[0]}-1)))")
  printf '%-8s %14.3f %14.3f %8.1fx %16.0f %14s %14s\n' "$n" "$native" "$counted" \
    "$(python3 -c "print($counted/$native)")" "${counts[0]}" "$(spread "${counts[@]}")" "$change"
  # Time's view of the same +1%: one native run of each, $tries times.
  for i in $(seq "$tries"); do
    read -r _ a < <(one_run "$n" --repetitions 30)
    read -r _ b < <(one_run "$((n + n / 100))" --repetitions 30)
    printf '  time, +1%% work, run %d: %+.1f%%\n' "$i" "$(python3 -c "print(100*($b/$a-1))")"
  done
done
echo "load after: $(uptime)"
