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
#  - judged through `culprit check --metric instructions`, as a CI job judges: in a
#    repository whose commits r0, e0 (a comment changes: A/A) and e1 (+1% work in
#    both bodies), each trial records one counted run of each commit into a fresh
#    history and checks e0 and e1 against r0: a minor or major on e0 is a false
#    alarm, a minor on e1 a detection (TRIALS trials, 50 by default).
# Run it beside a CPU hog to see that counts do not move with load:
#   sh -c 'while :; do :; done' & bash tests/bench/bench_instructions.sh ...; kill %1
# usage: bench_instructions.sh CULPRIT LIBCULPRIT INCLUDE_DIR [--quick | TRIALS [--no-cost]]
# --no-cost: only the trials judged by culprit check (to add trials in parallel).
set -euo pipefail
culprit=$(realpath "$1") lib=$(realpath "$2") include=$(realpath "$3") mode=${4:-50}
command -v valgrind > /dev/null || { echo "valgrind not installed: skipped"; exit 77; }
# --quick (ctest; figures only): the ~5 us body's cost, 2 counted runs, 1 trial.
runs=10 tries=5 trials=$mode sizes="5000 1000000"
[ "$mode" = --quick ] && runs=2 tries=1 trials=1 sizes=5000
[ "${5:-}" = --no-cost ] && sizes=
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
[ -n "$sizes" ] && printf '%-8s %14s %14s %9s %16s %14s %14s\n' body native_run_s counted_run_s slowdown instructions aa_spread plus1pct
for n in $sizes; do
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

# Judged through culprit check: one repository, three commits, one counted run each
# per trial.
git() { command git -c user.name=bench -c user.email=bench@example.org "$@"; }
repo=$work/repo
git init -q "$repo"
cat > "$repo/perf.c" <<'CEOF'
#include <culprit/culprit.h>
unsigned long work(unsigned long n);
static void body_5us(void **state) { (void)state; assert_true(work(N_5US) > 0); }
static void body_1ms(void **state) { (void)state; assert_true(work(N_1MS) > 0); }
int main(int argc, char **argv)
{
    static const culprit_perf_test tests[] = {
        culprit_perf_test(body_5us, .category = "slow"),
        culprit_perf_test(body_1ms, .category = "slow"),
    };
    return culprit_run_group_name("bench", tests, argc, argv);
}
CEOF
commit() { # commit TAG N_5US N_1MS COMMENT
  printf '#define N_5US %s\n#define N_1MS %s\n/* %s */\n' "$2" "$3" "$4" > "$repo/sizes.h"
  printf 'static volatile unsigned long sink;\nunsigned long work(unsigned long n)\n{\n    for (unsigned long i = 0; i < n; i++)\n        sink += i * i;\n    return sink + 1;\n}\n' > "$repo/work.c"
  git -C "$repo" add -A && git -C "$repo" commit -q -m "$1" && git -C "$repo" tag "$1"
  (cd "$repo" && cc -O1 -I"$include" -include sizes.h -o "$work/perf_$1" perf.c work.c "$lib" \
    $(pkg-config --libs cmocka libgit2 jansson gsl libxml-2.0) -lm)
}
commit r0 5000 1000000 "the work"
commit e0 5000 1000000 "the work, described better"
commit e1 5050 1010000 "the work"
# judge REV HISTORY: "VERDICT_5US VERDICT_1MS" of check REV --baseline r0
judge() {
  git -C "$repo" checkout -q "$1"
  (cd "$repo" && "$culprit" check --commit "$1" --baseline r0 --history "$2" \
    --metric instructions --json > "$work/check.json" 2> /dev/null) || true
  python3 - "$work/check.json" <<'PY'
import json, sys
try:
    tests = {t["test"].split(".")[-1]: t for t in json.load(open(sys.argv[1]))["tests"]}
except Exception:
    print("error error"); sys.exit()
def say(name):
    t = tests.get(name)
    return "missing" if t is None else "%s/%s" % (t["verdict"], t["evidence"])
print(say("body_5us"), say("body_1ms"))
PY
}
declare -A aa_alarms plus_found
for b in body_5us body_1ms; do aa_alarms[$b]=0 plus_found[$b]=0; done
for t in $(seq "$trials"); do
  hist=$work/hist; rm -rf "$hist"
  for r in r0 e0 e1; do
    git -C "$repo" checkout -q "$r"
    (cd "$repo" && CULPRIT_HISTORY_DIR=$hist CULPRIT_FAIL_ON=none "$work/perf_$r" \
      --metric instructions --quiet > /dev/null 2>&1) || echo "  the counted run at $r failed"
  done
  read -r a5 a1 < <(judge e0 "$hist")
  read -r p5 p1 < <(judge e1 "$hist")
  case $a5 in minor/* | major/*) aa_alarms[body_5us]=$((aa_alarms[body_5us] + 1)) ;; esac
  case $a1 in minor/* | major/*) aa_alarms[body_1ms]=$((aa_alarms[body_1ms] + 1)) ;; esac
  [ "$p5" = minor/deterministic ] && plus_found[body_5us]=$((plus_found[body_5us] + 1))
  [ "$p1" = minor/deterministic ] && plus_found[body_1ms]=$((plus_found[body_1ms] + 1))
  echo "  trial $t: A/A $a5 $a1, +1% $p5 $p1"
done
for b in body_5us body_1ms; do
  echo "check --metric instructions, $b: A/A false alarms ${aa_alarms[$b]}/$trials," \
    "+1% detected ${plus_found[$b]}/$trials"
done
echo "load after: $(uptime)"
