#!/usr/bin/env bash
# Benchmark: a bisection fanned out in rounds of K probes (docs/bisect.md, "Fanning
# out"; issue 28). Anyone can rerun it: `bench_bisect_fanout.sh CULPRIT [--quick]
# [--trials N] [--parallel P] [--max-runs N] [--only rounds|noise]
# [--metric time|instructions|both]`.
#
# Part 1, rounds and wall time. A generated repository of 1,024 commits (16 with
# --quick, which checks the rounds and skips part 2) whose build is simulated, as a
# real build dominates a probe: `sleep 3` (0.05 s with --quick); the measured command
# is light, an awk loop of 1,000 iterations (100,000 from a random commit on; awk reads
# the count from the file itself, no cat to start under callgrind too) counted
# under callgrind (--metric instructions: a count needs no pairing, so after the
# first round a probe takes the good end's count from a record and builds and counts
# its own commit alone). For K = 1, 3, 7, `culprit bisect --jobs K` (rounds of K
# probe processes, each in checkouts of its own) must take at most
# ceil(log_(K+1) N) rounds, and the rounds' wall time at most 1.2 x rounds x one
# probe alone ("build + measure"; a first-round probe: it builds the good end and its
# commit and counts both, the mean of a probe of a fast and of a slow commit); a
# probe alone that takes the good end's count from a record is timed too and printed.
# The rounds' wall time is the driver's minus its last step (the culprit against its
# parent on the driver's runner), timed again alone with --plan afterwards. Without
# valgrind part 1 is skipped.
#
# Part 2, correctness under noise: a planted +20% commit (an awk loop 20% longer, CPU
# bound) in 16 commits (2 rounds of 3 probes, then the driver's last steps: small, so
# that 20 trials of each metric take minutes), found with --jobs 3 at the default
# threshold, TRIALS times (default 3) at a random position each trial, --parallel P
# trials at once (default 1): by its CPU time (--metric cpu_ns, paired on each
# runner; a loop of 1,000,000 -> 1,200,000, ~45 ms: the start of sh and awk, which
# reads its count from the file itself (no cat: one process less to start, or to
# count under callgrind), stays a smaller part of it, and wall time beside two CPU hogs is mostly the wait for
# a core), and with --metric instructions (counted under callgrind: no pairing;
# 150,000 -> 180,000, exact at any size); each trial's line says what it found and
# whether the probes' answer was rejected and searched again on the driver. Run it
# beside CPU hogs to take the issue's figures (--only noise --trials N runs part 2
# alone; --metric chooses its half; --max-runs N is passed to its bisections).
set -euo pipefail
culprit=$1
shift
quick=0 trials=3 only=all metric=both parallel=1 max_runs=()
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=1 trials=1 ;;
    --trials) trials=$2; shift ;;
    --only) only=$2; shift ;;
    --metric) metric=$2; shift ;;
    --parallel) parallel=$2; shift ;;
    --max-runs) max_runs=(--max-runs "$2"); shift ;;
    *) echo "usage: bench_bisect_fanout.sh CULPRIT [--quick] [--trials N] [--parallel P] [--max-runs N] [--only rounds|noise] [--metric time|instructions|both]" >&2; exit 2 ;;
  esac
  shift
done
work=$(mktemp -d /tmp/culprit-bench-fanout-XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
now() { date +%s.%N; }

# make_repo DIR N FIRST_BAD FILE GOOD BAD: N commits through git fast-import, FILE
# holding GOOD before commit FIRST_BAD (1-based) and BAD from it on; tags c1..cN.
make_repo() {
  local dir=$1 n=$2 first=$3 file=$4 good=$5 bad=$6
  git init -q "$dir"
  {
    for i in $(seq 1 "$n"); do
      v=$good; [ "$i" -ge "$first" ] && v=$bad
      printf 'commit refs/heads/main\nmark :%d\ncommitter b <b@e> %d +0000\ndata <<E\nc%d\nE\n' \
        "$i" $((1700000000 + i)) "$i"
      [ "$i" -gt 1 ] && printf 'from :%d\n' $((i - 1))
      printf 'M 644 inline %s\ndata <<E\n%s\nE\nM 644 inline n.txt\ndata <<E\n%d\nE\n' \
        "$file" "$v" "$i"
    done
  } | git -C "$dir" fast-import --quiet
  git -C "$dir" symbolic-ref HEAD refs/heads/main
  git -C "$dir" reset -q --hard main
  git -C "$dir" tag c1 "$(git -C "$dir" rev-list --reverse main | head -1)"
}

ceil_log() { # ceil(log_(k+1) n), exactly
  local n=$1 base=$(( $2 + 1 )) r=0 p=1
  while [ "$p" -lt "$n" ]; do p=$((p * base)); r=$((r + 1)); done
  echo "$r"
}

# ---- part 1: rounds and wall time ----
if [ "$only" != noise ] && ! command -v valgrind > /dev/null; then
  echo "part 1 skipped: valgrind is not installed (--metric instructions)"
elif [ "$only" != noise ]; then
n=1024 build=3; [ "$quick" = 1 ] && n=16 build=0.05
first=$(( RANDOM % (n - 2) + 3 ))
repo=$work/timed
make_repo "$repo" "$n" "$first" work.txt 1000 100000
want=$(git -C "$repo" rev-list --reverse main | sed -n "${first}p")
args=(bisect --good c1 --bad main --build "sleep $build" --metric instructions
      --command "awk '{ n = \$1 } END { for (i = 0; i < n; i++) s += i }' work.txt")
probe_s=0
for at in 2 "$n"; do # a fast commit and a slow one, each alone, as in the first round
  c=$(git -C "$repo" rev-list --reverse main | sed -n "${at}p")
  t0=$(now)
  (cd "$repo" && "$culprit" "${args[@]}" --probe "$c" --history "$work/probe-alone$at" > /dev/null 2>&1) ||
    fail "a probe alone failed"
  probe_s=$(echo "$probe_s + ($(now) - $t0) / 2" | bc -l)
done
# A later round's probe alone: the good end's count read from the record just made.
c=$(git -C "$repo" rev-list --reverse main | sed -n "$((n / 2))p")
t0=$(now)
(cd "$repo" && "$culprit" "${args[@]}" --probe "$c" --history "$work/probe-alone$n" > /dev/null 2>&1) ||
  fail "a probe alone failed"
later_s=$(echo "$(now) - $t0" | bc)
echo "fan-out: $n commits, build 'sleep $build', --metric instructions, first slow commit c$first; one probe alone (first round: mean of a fast and a slow commit): $(printf %.2f "$probe_s") s; a later round's probe alone (the good end's count from a record): $(printf %.2f "$later_s") s; load: $(uptime | sed 's/.*load average: //')"
printf '%-3s %-7s %-7s %-10s %-10s %-11s %-6s\n' K rounds bound wall_s finish_s bound_s ok
for k in 1 3 7; do
  h=$work/h$k
  t0=$(now)
  (cd "$repo" && "$culprit" "${args[@]}" --jobs "$k" --history "$h" > "$work/out$k" 2> "$work/err$k") ||
    { tail -20 "$work/err$k" >&2; fail "--jobs $k failed"; }
  total=$(echo "$(now) - $t0" | bc)
  grep -q "^culprit bisect: $want is the first slow commit" "$work/out$k" ||
    { tail -20 "$work/err$k" >&2; fail "--jobs $k did not find c$first"; }
  rounds=$(grep -c '^culprit bisect: round [0-9]*: ' "$work/err$k" || true)
  t0=$(now)
  (cd "$repo" && "$culprit" "${args[@]}" --plan "$k" --history "$h" > /dev/null 2>&1) ||
    fail "--plan $k after the end failed"
  finish=$(echo "$(now) - $t0" | bc)
  wall=$(echo "$total - $finish" | bc)
  bound=$(ceil_log "$n" "$k")
  limit=$(echo "1.2 * $rounds * $probe_s" | bc)
  ok=yes
  [ "$rounds" -le "$bound" ] || ok=no
  [ "$(echo "$wall <= $limit" | bc)" = 1 ] || ok=slow
  printf '%-3s %-7s %-7s %-10.1f %-10.1f %-11.1f %-6s\n' "$k" "$rounds" "$bound" "$wall" "$finish" "$limit" "$ok"
  [ "$rounds" -le "$bound" ] || fail "K=$k took $rounds rounds, more than $bound"
  [ "$quick" = 1 ] || [ "$ok" = yes ] || echo "  K=$k: the rounds took longer than 1.2 x rounds x one probe"
done
echo "load after part 1: $(uptime | sed 's/.*load average: //')"
fi

# ---- part 2: a planted +20% commit (not in --quick: its figures are the full run's) ----
{ [ "$quick" = 1 ] || [ "$only" = rounds ]; } && exit 0
n2=16
cmd="awk '{ n = \$1 } END { for (i = 0; i < n; i++) s += i * i }' n"
# trial T METRIC FIRST: one trial in a repository of its own, the planted commit cFIRST;
# prints its line, and "found" or "missed" last.
trial() {
  local t=$1 m=$2 first=$3 repo want t0 ok=missed args
  repo=$work/$m$t
  if [ "$m" = time ]; then
    make_repo "$repo" "$n2" "$first" n 1000000 1200000
    args=(--metric cpu_ns)
  else
    make_repo "$repo" "$n2" "$first" n 150000 180000
    args=(--metric instructions)
  fi
  want=$(git -C "$repo" rev-list --reverse main | sed -n "${first}p")
  t0=$(now)
  (cd "$repo" && "$culprit" bisect --good c1 --bad main --command "$cmd" --jobs 3 "${args[@]}" ${max_runs[@]+"${max_runs[@]}"} \
     --history "$work/$m-h$t" > "$work/$m-out$t" 2> "$work/$m-err$t") || true
  grep -q "^culprit bisect: $want is the first slow commit" "$work/$m-out$t" && ok=found
  echo "  trial $t ($m): c$first $ok ($(printf %.0f "$(echo "$(now) - $t0" | bc)") s)$(
    grep -q 'was not confirmed against its parent' "$work/$m-err$t" && echo ', after a record misjudged a commit: bisected again on the driver')"
  # A miss: the last state's records, so that the probe that misjudged is seen.
  [ "$ok" = found ] || { head -1 "$work/$m-out$t"; awk '/probes? recorded:/ { n = NR; delete r }
    n && /^  round / { r[NR] = $0 } END { for (i in r) print "    " r[i] }' "$work/$m-err$t" | sort -k2n; }
  echo "$ok"
}
metrics=()
[ "$metric" != instructions ] && metrics+=(time)
if [ "$metric" != time ]; then
  if command -v valgrind > /dev/null; then metrics+=(instructions)
  else echo "--metric instructions skipped: valgrind is not installed"; fi
fi
echo "planted +20% in $n2 commits, --jobs 3, $trials trials of ${metrics[*]}, $parallel at once; load before: $(uptime | sed 's/.*load average: //')"
t0=$(now)
running=0
for t in $(seq 1 "$trials"); do
  for m in "${metrics[@]}"; do
    first=$(( RANDOM % (n2 - 2) + 3 )) # drawn here: a background job's own RANDOM may repeat
    trial "$t" "$m" "$first" > "$work/trial-$m-$t" 2>&1 &
    running=$((running + 1))
    if [ "$running" -ge "$parallel" ]; then wait -n || true; running=$((running - 1)); fi
  done
done
wait
summary=""
for m in "${metrics[@]}"; do
  found=0
  for t in $(seq 1 "$trials"); do
    sed '$d' "$work/trial-$m-$t"
    [ "$(tail -1 "$work/trial-$m-$t")" = found ] && found=$((found + 1))
  done
  summary="$summary $found/$trials by $m;"
done
echo "planted +20% in $n2 commits, --jobs 3:$summary $(printf %.0f "$(echo "$(now) - $t0" | bc)") s in all; load after: $(uptime | sed 's/.*load average: //')"
