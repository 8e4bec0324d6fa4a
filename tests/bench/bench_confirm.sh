#!/usr/bin/env bash
# Paired confirmation on a loaded machine (docs/detection-quality.md, "Paired
# confirmation"): does `culprit check --confirm --build --run` tell a +5% and a +10%
# slowdown of a ~1 ms test from none, where one run per commit cannot?
# The binary holds three tests (the judged one and two others of ~1 ms that do not
# change), as a real test binary does: the pairs run the judged test alone
# ($CULPRIT_FILTER), stop at the budget (60 s, --max-runs 30 pairs) and, when runs
# were preempted, judge each run's CPU floor (its fastest sample's CPU time), by the
# sign test, and stop, not slower, once the change's one-sided 80%
# upper bound is below the threshold (docs/detection.md, "Paired confirmation").
# Goals (issue 25, at load >= 8): +10% confirmed >= 95%, +5% >= 80%, A/A <= 1%,
# median time per confirmation <= 20 s. The load is printed with every trial.
# Also issue 25's goals with one earlier run (x3 confirmed 20/20, A/A confirmed
# <= 1%): each trial's history holds one earlier run (r0), so the unpaired check is
# that rule (counted when it fails `--fail-on minor`), and a x3 commit is an effect too.
#
# A repository holds a perf test whose body loops n times (n from the checkout's
# work.conf): r0 the base, then one commit per effect: +0% (a comment changes: A/A),
# +5%, +10% more iterations, and x3 (e200: +200%). Each trial, as a CI job would,
# records one run (30 repetitions) of r0 and one of the commit into a fresh history,
# then judges the commit three ways on the same two runs and commits:
#   unpaired  `culprit check --baseline r0 --fail-on minor`: flagged minor (or
#             major), whatever its evidence (the alarm one run per commit raises), and
#             confirmed: it fails the job (exit 1; unconfirmed minors fail nothing, see
#             docs/detection.md, "Borrowing strength across tests");
#   mw        Mann-Whitney U at alpha = 0.05 (one-sided, slower) on the two runs'
#             samples: Google Benchmark compare.py's rule;
#   paired    `culprit check --baseline r0 --confirm --build CC --run ./perf`: the
#             pairs say slower (the only answer that fails a job).
# The effects take turns within each trial (A/A, +5%, +10%, x3), so a drift of the
# load touches them all alike; A/A gets AA_TRIALS trials (default 2 x TRIALS), as its
# goal (<= 1%) needs more. Each trial's verdicts are printed as they come, and with
# LOG=DIR each trial's JSON documents are kept there.
# The build command: the test's source is the same at every commit (n is read from
# work.conf at run time), so by default it copies the binary built once, as an
# incremental build or ccache would find it unchanged, and a confirmation's time is
# its checkouts, runs and judging (BUILD=compile compiles each end, as before).
# The median time per confirmation is the paired check's whole run: its start, the
# history read, two checkouts and builds, the warm-up pair and the pairs.
# Run it beside two CPU hogs; the load is printed before and after.
# usage: bench_confirm.sh CULPRIT LIBCULPRIT INCLUDE_DIR [--quick | TRIALS [AA_TRIALS]]
#        [--parallel N]
set -euo pipefail
culprit=$(realpath "$1") lib=$(realpath "$2") include=$(realpath "$3")
shift 3
# --parallel N: N trials at a time, each in its own clone and history (to reach a
# load and a count in a measuring slot; the load is sampled every 30 s).
parallel=1 numbers=()
while [ $# -gt 0 ]; do
  case $1 in
    --parallel) parallel=${2:?--parallel needs a number}; shift 2 ;;
    *) numbers+=("$1"); shift ;;
  esac
done
case $parallel in ''|*[!0-9]*|0) echo "bench_confirm.sh: --parallel '$parallel': not a positive number" >&2; exit 2 ;; esac
mode=${numbers[0]:-40}
# --quick (ctest): one trial per effect, at most 10 pairs per confirmation (figures
# only: every step runs once).
confirm_opts=()
if [ "$mode" = --quick ]; then trials=1 aa=1 confirm_opts=(--max-runs 10)
else trials=$mode aa=${numbers[1]:-$((2 * mode))}; fi
work=$(mktemp -d /tmp/culprit-bench-confirm-XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
git() { command git -c user.name=bench -c user.email=bench@example.org -c advice.detachedHead=false "$@"; }

repo=$work/repo
git init -q "$repo"
cat > "$repo/perf.c" <<'CEOF'
#include <culprit/culprit.h>
#include <stdio.h>
static volatile unsigned long sink;
static unsigned long n;
static int read_conf(void **state)
{
    FILE *f = fopen("work.conf", "r");
    (void)state;
    if (!f || fscanf(f, "n = %lu", &n) != 1)
        return -1;
    fclose(f);
    return 0;
}
static void work_1ms(void **state)
{
    (void)state;
    for (unsigned long i = 0; i < n; i++)
        sink += i * i;
}
static void other_a(void **state)
{
    (void)state;
    for (unsigned long i = 0; i < 1000000; i++)
        sink += i ^ (i >> 3);
}
static void other_b(void **state)
{
    (void)state;
    for (unsigned long i = 0; i < 1000000; i++)
        sink += i + (i << 1);
}
int main(int argc, char **argv)
{
    static const culprit_perf_test tests[] = {
        culprit_perf_test(work_1ms, .setup = read_conf, .repetitions = 30, .category = "slow"),
        culprit_perf_test(other_a, .repetitions = 30, .category = "slow"),
        culprit_perf_test(other_b, .repetitions = 30, .category = "slow"),
    };
    return culprit_run_group_name("bench", tests, argc, argv);
}
CEOF
base=1000000
commit() { printf 'n = %s\n# %s\n' "$2" "$1" > "$repo/work.conf"; git -C "$repo" add -A;
  git -C "$repo" commit -q -m "$1"; git -C "$repo" tag "$1"; }
commit r0 "$base"
commit e0 "$base"
commit e5 "$((base + base * 5 / 100))"
commit e10 "$((base + base * 10 / 100))"
commit e200 "$((base * 3))"
libs=$(pkg-config --libs cmocka libgit2 jansson gsl libxml-2.0)
compile="cc -O1 -I'$include' -o perf perf.c '$lib' $libs -lm"

# The test binary, the same at every commit (perf.c does not change), built once for
# the recorded runs and, unless BUILD=compile, for the confirmations' builds.
(cd "$repo" && eval "${compile/-o perf/-o $work/perf_bin}")
if [ "${BUILD:-copy}" = compile ]; then build=$compile; else build="cp '$work/perf_bin' perf"; fi
echo "build command: $build"

record() { # record REV HISTORY REPO: one run of REV's test, as a CI job records it
  git -C "$3" checkout -q "$1"
  # (samples as text, CULPRIT_HISTORY_PACK=0: mw reads them with a regular expression)
  (cd "$3" && CULPRIT_HISTORY_DIR=$2 CULPRIT_FAIL_ON=none CULPRIT_HISTORY_PACK=0 "$work/perf_bin" \
    --quiet >/dev/null 2>&1)
}
# mw HISTORY BASE: 1 when the run at the judged commit is slower than the run at
# commit BASE (full hash) by Mann-Whitney U (alpha 0.05). The runs are told apart by
# their recorded commit, not their timestamps: two runs within one second share a
# timestamp, and sorting then put the run with the smaller first sample first.
mw() {
  python3 - "$1" "$2" <<'PY'
import glob, math, re, sys
runs = {}
for path in glob.glob(sys.argv[1] + "/*.xml"):
    text = open(path).read()
    commit = re.search(r'name="culprit.commit" value="([0-9a-f]+)"', text).group(1)
    # the judged test's block (the first of the binary's three)
    block = text[text.index('name="work_1ms"'):]
    values = [float(v) for v in re.search(r"\nwall_ns ([^\n<]+)", block).group(1).split()]
    runs["base" if commit == sys.argv[2] else "new"] = values
a, b = runs["base"], runs["new"]
pooled = sorted((v, s) for s, xs in ((0, a), (1, b)) for v in xs)
ranks, i = {}, 0
rank_b, ties = 0.0, 0.0
while i < len(pooled):
    j = i
    while j < len(pooled) and pooled[j][0] == pooled[i][0]:
        j += 1
    r = (i + j + 1) / 2
    ties += (j - i) ** 3 - (j - i)
    rank_b += sum(r for k in range(i, j) if pooled[k][1] == 1)
    i = j
na, nb = len(a), len(b)
u = rank_b - nb * (nb + 1) / 2
sd = math.sqrt(na * nb / 12 * ((na + nb + 1) - ties / ((na + nb) * (na + nb - 1))))
z = (u - na * nb / 2) / sd if sd > 0 else 0
print(1 if z > 1.6449 else 0)  # one-sided, alpha = 0.05
PY
}
verdict() { python3 - "$1" <<'PY'
import json, sys
try:
    t = json.load(open(sys.argv[1]))["tests"][0]
except Exception:
    print("error none None None"); sys.exit()
p = t.get("paired") or {}
print(t["verdict"], t["evidence"], p.get("slower"), p.get("pairs"))
PY
}

echo "load before: $(uptime)"
echo "trials: $aa A/A, $trials per slowdown, $parallel at a time"
# Each worker takes every parallel-th trial in its own clone, history and files (the
# binary reads work.conf from its checkout), and appends one line per trial to its
# results file: effect, unpaired verdict, unpaired fails (1: exit 1 under --fail-on
# minor), mw, paired evidence, slower, pairs, seconds.
trial() { # trial EFFECT T DIR
  local e=$1 t=$2 d=$3 hist=$3/hist uv uev uf=0 mwv start rule s v ev slower np
  rm -rf "$hist"
  record r0 "$hist" "$d/repo"; record "$e" "$hist" "$d/repo"
  git -C "$d/repo" checkout -q "$e"
  (cd "$d/repo" && "$culprit" check --commit "$e" --baseline r0 --history "$hist" --json \
    --fail-on minor --test bench.work_1ms > "$d/u.json" 2>/dev/null) || uf=$?
  [ "$uf" = 1 ] || uf=0
  read -r uv uev _ < <(verdict "$d/u.json")
  mwv=$(mw "$hist" "$(git -C "$d/repo" rev-parse r0)")
  start=$(date +%s.%N)
  (cd "$d/repo" && "$culprit" check --commit "$e" --baseline r0 --history "$hist" --json \
    --test bench.work_1ms --confirm --build "$build" --run './perf --quiet' \
    "${confirm_opts[@]}" > "$d/p.json" 2> "$d/p.err") || true
  rule=$(python3 -c "import json,sys; p=json.load(open(sys.argv[1]))['tests'][0].get('paired') or {}; print(p.get('judged'), p.get('preempted_runs'), p.get('out_of_time'), p.get('below_high'))" "$d/p.json" 2>/dev/null || echo "- - - -")
  s=$(python3 -c "print('%.1f' % ($(date +%s.%N) - $start))")
  read -r v ev slower np < <(verdict "$d/p.json")
  echo "$e $uv $uf $mwv $ev $slower $np $s" >> "$d/results"
  if [ -n "${LOG:-}" ]; then
    mkdir -p "$LOG"; cp "$d/u.json" "$LOG/${e}_${t}_unpaired.json"
    cp "$d/p.json" "$LOG/${e}_${t}_paired.json"; cp "$d/p.err" "$LOG/${e}_${t}_paired.err"
    cp -r "$hist" "$LOG/${e}_${t}_history"
  fi
  echo "  $e trial $t: unpaired $uv ($uev, fails $uf), mw $mwv, paired $v ($ev, slower $slower, $np pairs; judged, preempted, out of time, below_high: $rule), ${s} s; load $(cut -d' ' -f1-3 /proc/loadavg)"
}
# The trials in turn (A/A, +5%, +10%, x3 within each trial number, so a drift of the
# load touches them all alike); worker k runs those at positions k, k + parallel, ...
list=()
most=$((aa > trials ? aa : trials))
for t in $(seq "$most"); do
  for e in e0 e5 e10 e200; do
    if [ "$e" = e0 ]; then [ "$t" -le "$aa" ] || continue
    else [ "$t" -le "$trials" ] || continue; fi
    list+=("$e $t")
  done
done
worker() { # worker K
  local d=$work/w$1 i
  mkdir -p "$d"; : > "$d/results"
  git clone -q "$repo" "$d/repo"
  for ((i = $1; i < ${#list[@]}; i += parallel)); do
    # shellcheck disable=SC2086
    trial ${list[$i]} "$d"
  done
}
# The 1-minute load every 30 s while the trials run (not in --quick).
sampler=
if [ "$mode" != --quick ]; then
  (while sleep 30; do echo "load $(date -u +%H:%M:%S): $(cut -d' ' -f1-3 /proc/loadavg)"; done) &
  sampler=$!
fi
pids=()
for ((k = 0; k < parallel; k++)); do worker "$k" & pids+=($!); done
for p in "${pids[@]}"; do wait "$p"; done
[ -z "$sampler" ] || kill "$sampler"
declare -A up uc m pa n pairs secs
for e in e0 e5 e10 e200; do
  up[$e]=0 uc[$e]=0 m[$e]=0 pa[$e]=0 n[$e]=0 pairs[$e]="" secs[$e]=""
done
while read -r e uv uf mwv ev slower np s; do
  { [ "$uv" = minor ] || [ "$uv" = major ]; } && up[$e]=$((up[$e] + 1))
  uc[$e]=$((uc[$e] + uf))
  m[$e]=$((m[$e] + mwv))
  secs[$e]+=" $s"
  # Confirmed slower by the pairs (flagged and undecided tests are paired; an
  # unchanged or faster one is not, and counts as not slower).
  [ "$ev" = paired ] && [ "$slower" = True ] && pa[$e]=$((pa[$e] + 1))
  [ "$ev" = paired ] && pairs[$e]+=" $np"
  n[$e]=$((n[$e] + 1))
done < <(cat "$work"/w*/results)
med() { [ $# -eq 0 ] && { echo -; return; }; python3 -c "import sys; v=sorted(float(x) for x in sys.argv[1:]); print('%.1f (%.1f-%.1f)' % (v[len(v)//2], v[0], v[-1]))" "$@"; }
# unpaired: flagged / confirmed (fails --fail-on minor) with one earlier run
printf '%-6s %9s %9s %9s %9s %18s %22s\n' effect flagged confirmed mw paired \
  pairs_median confirm_s_median
for e in e0 e5 e10 e200; do
  [ "${n[$e]}" -gt 0 ] || continue
  # shellcheck disable=SC2086
  printf '%-6s %5d/%-3d %5d/%-3d %5d/%-3d %5d/%-3d %18s %22s\n' "$e" "${up[$e]}" "${n[$e]}" \
    "${uc[$e]}" "${n[$e]}" "${m[$e]}" "${n[$e]}" "${pa[$e]}" "${n[$e]}" "$(med ${pairs[$e]})" \
    "$(med ${secs[$e]})"
done
echo "load after: $(uptime)"
