#!/usr/bin/env bash
# Borrowing strength across tests (docs/detection.md, "Borrowing strength across
# tests"): with ONE earlier run of a young test, what does `culprit check` confirm,
# on real runs of this machine?
#
# Two test binaries share a machine: "pool" (three tests, ~0.5, 1 and 2 ms) is run
# often enough to have a history, and "young" (one ~1 ms test) has one earlier run.
# The young test's work is set at build time: base, the same code at another commit
# (A/A), x3 and x10 the work, and +10%. All runs are recorded once, interleaved in
# time (pool, base, A/A, x3, x10, +10%, pool, ...), so a drift of the load touches
# every effect alike. Then each trial judges one run of an effect against one
# earlier base run, as a CI job with a one-run history would, re-judging the runs
# already recorded (cheap, so the A/A trials are many: each A/A run with the base
# runs of its round and of the AA_BACK rounds before):
#   pooled   the history holds the pool's runs too: the machine's pooled spread
#            judges the young test's minor;
#   default  the history holds the two runs alone: the default spread (25%) judges;
# for each, how many trials are a flagged minor at all (what an alarm on any
# significant change would raise; unconfirmed ones fail no job) and how many a
# confirmed one (what fails `--fail-on minor`). The tests sample as the runner does by
# default (adaptive, at least 0.5 s a run); REPS=30 fixes 30 repetitions instead
# (a run then lasts ~15 ms and lands inside one speed phase of a shared VM).
# RECORD_ONLY=1 (with KEEP=1) stops after recording; RUNS_FROM=DIR re-judges them.
# usage: bench_verdict_prior.sh CULPRIT LIBCULPRIT INCLUDE_DIR [--quick | RUNS]
#   RUNS: recorded runs per effect (default 20; A/A trials about RUNS x (AA_BACK + 1),
#   AA_BACK=5 by default: 105 at 20 runs)
#   --quick (ctest): 1 run per effect at 30 fixed repetitions (REPS=30, unless REPS is
#   set), A/A judged against its own round only (AA_BACK=0): every step runs once, in
#   seconds; its figures are no figures (none is judged).
set -euo pipefail
culprit=$(realpath "$1") lib=$(realpath "$2") include=$(realpath "$3") mode=${4:-20}
aa_back=${AA_BACK:-5}
if [ "$mode" = --quick ]; then runs=1 REPS=${REPS:-30} aa_back=${AA_BACK:-0}; else runs=$mode; fi
reps=${REPS:+.repetitions = $REPS, }
work=$(mktemp -d /tmp/culprit-bench-prior-XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
git() { command git -c user.name=bench -c user.email=bench@example.org "$@"; }

repo=$work/repo
if [ -n "${RUNS_FROM:-}" ]; then
  # Re-judge the runs of an earlier bench (its repo and runs_* directories, kept
  # with KEEP=1) instead of recording new ones.
  cp -r "$RUNS_FROM"/repo "$RUNS_FROM"/runs_* "$work/"
else
git init -q "$repo"
cat > "$work/perf.c" <<'CEOF'
#include <culprit/culprit.h>
static volatile unsigned long sink;
static void spin(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++)
        sink += i * i;
}
#ifdef POOL
static void work_05ms(void **state) { (void)state; spin(500000); }
static void work_1ms(void **state) { (void)state; spin(1000000); }
static void work_2ms(void **state) { (void)state; spin(2000000); }
int main(int argc, char **argv)
{
    static const culprit_perf_test tests[] = {
        culprit_perf_test(work_05ms, REPS_ .category = "slow"),
        culprit_perf_test(work_1ms, REPS_ .category = "slow"),
        culprit_perf_test(work_2ms, REPS_ .category = "slow"),
    };
    return culprit_run_group_name("pool", tests, argc, argv);
}
#else
static void young_1ms(void **state) { (void)state; spin(WORK); }
int main(int argc, char **argv)
{
    static const culprit_perf_test tests[] = {
        culprit_perf_test(young_1ms, REPS_ .category = "slow"),
    };
    return culprit_run_group_name("young", tests, argc, argv);
}
#endif
CEOF
sed -i "s/REPS_ /$reps/" "$work/perf.c"
libs=$(pkg-config --libs cmocka libgit2 jansson gsl libxml-2.0)
cc_() { cc -O1 -I"$include" "$@" "$work/perf.c" "$lib" -Wl,-rpath,"$(dirname "$lib")" $libs -lm; }
cc_ -DPOOL -o "$work/pool"
base=1000000
declare -A n=([r0]=$base [aa]=$base [x3]=$((3 * base)) [x10]=$((10 * base))
  [p10]=$((base + base / 10)))
for e in r0 aa x3 x10 p10; do
  cc_ -DWORK="${n[$e]}UL" -o "$work/young_$e"
  echo "$e" > "$repo/effect.txt"
  git -C "$repo" add -A && git -C "$repo" commit -q -m "$e" && git -C "$repo" tag "$e"
done

# record BINARY REV DIR: one run of BINARY at REV, its file moved into DIR.
record() {
  local tmp=$work/tmp
  rm -rf "$tmp"
  git -C "$repo" checkout -q "$2"
  # (a run that fails under the load, as a timed-out test may, is run again: at most 3)
  for _ in 1 2 3; do
    (cd "$repo" && CULPRIT_HISTORY_DIR=$tmp CULPRIT_FAIL_ON=none "$work/$1" --quiet >/dev/null 2>&1) &&
      break || echo "  $1 at $2 failed; again" >&2
  done
  mkdir -p "$3"
  mv "$tmp"/*.xml "$3/"
}

echo "load before: $(uptime)"
# The pool's history first (6 runs), then everything interleaved.
for _ in 1 2 3 4 5 6; do record pool r0 "$work/runs_pool"; done
for _ in $(seq "$runs"); do
  record pool r0 "$work/runs_pool"
  for e in r0 aa x3 x10 p10; do record "young_$e" "$e" "$work/runs_$e"; done
done
echo "load after recording: $(uptime)"
if [ -n "${RECORD_ONLY:-}" ]; then echo "recorded in $work"; exit 0; fi
fi

# judge MODE EFFECT BASEFILE NOWFILE: "flagged confirmed evidence change limit
# by_mean": by_mean 1 when the mean rule would confirm the flagged minor (the lower
# bound of the means' change beyond the same limit the floor has to pass), to
# replay "confirmed when either rule confirms" on the same runs.
judge() {
  local h=$work/h
  rm -rf "$h" && mkdir -p "$h"
  cp "$3" "$4" "$h/"
  [ "$1" = pooled ] && cp "$work"/runs_pool/*.xml "$h/"
  (cd "$repo" && "$culprit" check --commit "$2" --baseline r0 --history "$h" --json \
    --test young.young_1ms 2>/dev/null) > "$work/v.json" || true
  python3 - "$work/v.json" <<'PY'
import json, sys
try:
    t = json.load(open(sys.argv[1]))["tests"][0]
except Exception:
    print("0 0 error nan nan 0"); sys.exit()
flagged = t["verdict"] in ("minor", "major")
s = t.get("run_spread") or {}
limit, low = s.get("limit"), t.get("change_low")
by_mean = flagged and limit is not None and low is not None and low > limit
print(int(flagged), int(flagged and t["confirmed"]), t["evidence"], t["change"],
      s.get("limit", float("nan")), int(by_mean))
PY
}

mapfile -t bases < <(ls "$work/runs_r0"/*.xml | sort)
printf '%-5s %-8s %7s %9s %10s %8s %7s %14s %12s\n' effect mode trials flagged confirmed by_mean either \
  median_change median_limit
for e in aa x3 x10 p10; do
  mapfile -t nows < <(ls "$work/runs_$e"/*.xml | sort)
  for m in ${MODES:-pooled default}; do
    t=0 f=0 c=0 bm=0 ei=0 changes="" limits=""
    for j in "${!nows[@]}"; do
      # A/A: the base runs of this round and the AA_BACK before it (earlier runs,
      # under other loads); effects: the base run of the same round.
      if [ "$e" = aa ]; then first=$((j > aa_back ? j - aa_back : 0)); else first=$j; fi
      for ((i = first; i <= j; i++)); do
        read -r fl co _ ch li me < <(judge "$m" "$e" "${bases[$i]}" "${nows[$j]}")
        t=$((t + 1)) f=$((f + fl)) c=$((c + co)) bm=$((bm + me))
        ei=$((ei + (co || me ? 1 : 0)))
        changes+=" $ch" limits+=" $li"
      done
    done
    med=$(python3 -c "import sys,math; v=sorted(float(x) for x in sys.argv[1:] if x not in ('nan','None')); print('%+.1f%%' % (100*v[len(v)//2]) if v else '-')" $changes)
    lim=$(python3 -c "import sys,math; v=sorted(float(x) for x in sys.argv[1:] if x not in ('nan','None')); print('%+.1f%%' % (100*v[len(v)//2]) if v else '-')" $limits)
    printf '%-5s %-8s %7d %9d %10d %8d %7d %14s %12s\n' "$e" "$m" "$t" "$f" "$c" "$bm" "$ei" "$med" \
      "$lim"
  done
done
# What the last +10% trial says with the pool (its message names the spread).
judge pooled p10 "${bases[-1]}" "${nows[-1]}" > /dev/null
python3 -c "import json,sys; t=json.load(open(sys.argv[1]))['tests'][0]; print('p10 pooled:', t['message']); print('run_spread:', json.dumps(t['run_spread']))" "$work/v.json"
echo "load after: $(uptime)"
