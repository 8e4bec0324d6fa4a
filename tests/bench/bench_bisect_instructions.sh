#!/usr/bin/env bash
# culprit bisect --metric instructions over 32 commits (docs/bisect.md): one commit,
# at a random place, does 5% more work; the bisection counts the perf test's
# instructions under Valgrind, one run of each side per step. Reported: how often it
# names that commit, its steps and runs, its wall time, against the timed bisection
# of the same history (the test's time, pairs of runs per step) on a few trials.
# Counts do not move with load: run it beside a CPU hog to see it.
# usage: bench_bisect_instructions.sh CULPRIT LIBCULPRIT INCLUDE_DIR [--quick | TRIALS [TIMED]]
# --quick (ctest): one counted bisection, no timed one; exit 1 unless it names the commit.
set -euo pipefail
culprit=$(realpath "$1") lib=$(realpath "$2") include=$(realpath "$3") trials=${4:-20} timed=${5:-2}
[ "$trials" = --quick ] && trials=1 timed=0
command -v valgrind > /dev/null || { echo "valgrind not installed: skipped"; exit 77; }
work=$(mktemp -d /tmp/culprit-bench-bisect-instr-XXXXXX)
trap 'rm -rf "$work"' EXIT
git() { command git -c user.name=bench -c user.email=bench@example.org "$@"; }
libs=$(pkg-config --libs cmocka libgit2 jansson gsl libxml-2.0)
build="cc -O1 -I'$include' -o perf perf.c work.c '$lib' $libs -lm"

# make_repo DIR AT: 32 commits, the one numbered AT (1..31) does 5% more work.
make_repo() {
  git init -q "$1"
  cat > "$1/perf.c" <<'CEOF'
#include <culprit/culprit.h>
unsigned long work(void);
static void work_test(void **state) { (void)state; assert_true(work() > 0); }
int main(int argc, char **argv)
{
    static const culprit_perf_test tests[] = {
        culprit_perf_test(work_test, .repetitions = 10, .category = "slow"),
    };
    return culprit_run_group_name("bench", tests, argc, argv);
}
CEOF
  for i in $(seq 0 31); do
    n=200000; [ "$i" -ge "$2" ] && n=210000
    printf 'static volatile unsigned long sink;\n/* commit %s */\nunsigned long work(void)\n{\n    for (unsigned long i = 0; i < %s; i++)\n        sink += i;\n    return sink + 1;\n}\n' \
      "$i" "$n" > "$1/work.c"
    git -C "$1" add -A && git -C "$1" commit -q -m "c$i"
  done
}
# bisect DIR [--metric instructions]: "culprit-subject seconds steps runs"
bisect() {
  local dir=$1 start end
  shift
  start=$(date +%s.%N)
  (cd "$dir" && "$culprit" bisect --good HEAD~31 --bad HEAD --build "$build" \
    --run './perf --quiet' --test bench.work_test --no-history --json "$@" \
    > "$work/out.json" 2> "$work/err.log") || true
  end=$(date +%s.%N)
  python3 - "$work/out.json" "$start" "$end" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception:
    print("error 0 0 0"); sys.exit()
print(d.get("subject") or "none", "%.0f" % (float(sys.argv[3]) - float(sys.argv[2])),
      len(d.get("steps", [])), d.get("runs", 0))
PY
}

echo "load before: $(uptime)"
ok=0 secs=() runs=()
for t in $(seq "$trials"); do
  at=$((RANDOM % 31 + 1))
  rm -rf "$work/repo"; make_repo "$work/repo" "$at"
  read -r got s steps nruns < <(bisect "$work/repo" --metric instructions)
  [ "$got" = "c$at" ] && ok=$((ok + 1))
  secs+=("$s"); runs+=("$nruns")
  echo "  trial $t: culprit c$at, named $got, ${s} s, $steps steps, $nruns runs"
  if [ "$got" = error ]; then echo "    bisect said: $(tail -n 1 "$work/err.log")"; fi
done
med() { python3 -c "import sys; v=sorted(float(x) for x in sys.argv[1:]); print('%.0f' % v[len(v)//2])" "$@"; }
[ "$trials" -gt 0 ] && echo "instructions: $ok/$trials correct, median $(med "${secs[@]}") s, median $(med "${runs[@]}") runs"
tok=0 tsecs=()
for t in $(seq "$timed"); do
  at=$((RANDOM % 31 + 1))
  rm -rf "$work/repo"; make_repo "$work/repo" "$at"
  read -r got s steps nruns < <(bisect "$work/repo")
  [ "$got" = "c$at" ] && tok=$((tok + 1))
  tsecs+=("$s")
  echo "  timed trial $t: culprit c$at, named $got, ${s} s, $steps steps, $nruns runs"
  if [ "$got" = error ]; then echo "    bisect said: $(tail -n 1 "$work/err.log")"; fi
done
[ "$timed" -gt 0 ] && echo "time: $tok/$timed correct, median $(med "${tsecs[@]}") s"
echo "load after: $(uptime)"
[ "${4:-}" != --quick ] || [ "$ok" -eq 1 ]
