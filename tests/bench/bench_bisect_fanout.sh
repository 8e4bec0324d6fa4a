#!/usr/bin/env bash
# Benchmark: a bisection fanned out in rounds of K probes (docs/bisect.md, "Fanning
# out"; issue 28). Anyone can rerun it: `bench_bisect_fanout.sh CULPRIT [--quick]
# [--trials N] [--only rounds|noise] [--metric time|instructions|both]`.
#
# Part 1, rounds and wall time. A generated repository of 1,024 commits (16 with
# --quick, which checks the rounds and skips part 2) whose build is simulated (`sleep B`) and whose measured command sleeps 0.2 s (not with --quick)
# then loops in awk, 1,000 times, 4,000,000 from a random commit on (~90 ms of CPU,
# +300% or more over the fast commits' ~20 ms under load; 1,000,000 measured only
# +50-90% beside two CPU hogs, below the threshold), judged by its CPU time
# (--metric cpu_ns, --threshold 100: the sleep makes the measuring as light as the
# builds, and CPU time does not see the waits of K probes sharing 2 cores, so the
# rounds are what is measured, not the machine's load). For K = 1, 3, 7, `culprit bisect --jobs K`
# (rounds of K probe processes, each in checkouts of its own) must take at most
# ceil(log_(K+1) N) rounds, and the rounds' wall time at most 1.2 x rounds x one
# probe's time (the probe builds its commit and the good end, then measures the
# pair: "build + measure"). One probe's time is measured alone first, as the mean of
# a probe of a fast commit and one of a slow commit (a round holds both); the rounds'
# wall time is the driver's minus its last step (the culprit against its parent on
# the driver's runner), timed again alone with --plan afterwards.
#
# Part 2, correctness under noise: a planted +20% commit (an awk loop 20% longer, CPU
# bound) in 64 commits, found with --jobs 3 at the default threshold, TRIALS times
# (default 3), at a random position each trial: by its CPU time (--metric cpu_ns,
# paired on each runner; a loop of 1,000,000 -> 1,200,000, ~25 ms: the start of sh,
# cat and awk stays a small part of it, and wall time beside two CPU hogs is mostly
# the wait for a core), and with --metric instructions (counted under callgrind: no
# pairing; 150,000 -> 180,000, exact at any size); each trial's line says what it found. Run it beside
# CPU hogs to take the issue's figures (--only noise --trials N runs part 2 alone;
# --metric chooses its half).
set -euo pipefail
culprit=$1
shift
quick=0 trials=3 only=all metric=both
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=1 trials=1 ;;
    --trials) trials=$2; shift ;;
    --only) only=$2; shift ;;
    --metric) metric=$2; shift ;;
    *) echo "usage: bench_bisect_fanout.sh CULPRIT [--quick] [--trials N] [--only rounds|noise] [--metric time|instructions|both]" >&2; exit 2 ;;
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
if [ "$only" != noise ]; then
# (--quick: no sleep in the command: its wall time is not judged there, only the
# rounds and the answer, both by CPU time)
n=1024 build=0.5 pause=0.2; [ "$quick" = 1 ] && n=16 build=0.05 pause=0
first=$(( RANDOM % (n - 2) + 3 ))
repo=$work/timed
make_repo "$repo" "$n" "$first" work.txt 1000 4000000
want=$(git -C "$repo" rev-list --reverse main | sed -n "${first}p")
args=(bisect --good c1 --bad main --build "sleep $build" --metric cpu_ns --min-runs 3 --max-runs 10
      --command "sleep $pause; "'awk -v n=$(cat work.txt) "BEGIN { for (i = 0; i < n; i++) s += i }"'
      --threshold 100)
probe_s=0
for at in 2 "$n"; do # a fast commit and a slow one, each alone
  c=$(git -C "$repo" rev-list --reverse main | sed -n "${at}p")
  t0=$(now)
  (cd "$repo" && "$culprit" "${args[@]}" --probe "$c" --history "$work/probe-alone$at" > /dev/null 2>&1) ||
    fail "a probe alone failed"
  probe_s=$(echo "$probe_s + ($(now) - $t0) / 2" | bc -l)
done
echo "fan-out: $n commits, build 'sleep $build', first slow commit c$first; one probe alone (mean of a fast and a slow commit): $(printf %.2f "$probe_s") s; load: $(uptime | sed 's/.*load average: //')"
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
n2=64
found=0 found_ins=0
for t in $(seq 1 "$trials"); do
  first=$(( RANDOM % (n2 - 2) + 3 ))
  repo=$work/cpu$t
  make_repo "$repo" "$n2" "$first" n 1000000 1200000
  make_repo "$repo-ins" "$n2" "$first" n 150000 180000
  want=$(git -C "$repo" rev-list --reverse main | sed -n "${first}p")
  cmd='awk -v n=$(cat n) "BEGIN { for (i = 0; i < n; i++) s += i * i }"'
  if [ "$metric" != instructions ]; then
    t0=$(now)
    (cd "$repo" && "$culprit" bisect --good c1 --bad main --command "$cmd" --jobs 3 --metric cpu_ns \
       --history "$work/cpu-h$t" > "$work/cpu-out$t" 2> "$work/cpu-err$t") || true
    ok=no
    if grep -q "^culprit bisect: $want is the first slow commit" "$work/cpu-out$t"; then
      found=$((found + 1)) ok=yes; fi
    echo "  trial $t (time): c$first found: $ok ($(printf %.0f "$(echo "$(now) - $t0" | bc)") s): $(head -1 "$work/cpu-out$t")"
  fi
  if [ "$metric" != time ] && command -v valgrind > /dev/null; then
    t0=$(now)
    (cd "$repo-ins" && "$culprit" bisect --good c1 --bad main --command "$cmd" --jobs 3 \
       --metric instructions --history "$work/ins-h$t" > "$work/ins-out$t" 2> "$work/ins-err$t") || true
    ok=no
    want=$(git -C "$repo-ins" rev-list --reverse main | sed -n "${first}p")
    if grep -q "^culprit bisect: $want is the first slow commit" "$work/ins-out$t"; then
      found_ins=$((found_ins + 1)) ok=yes; fi
    echo "  trial $t (instructions): c$first found: $ok ($(printf %.0f "$(echo "$(now) - $t0" | bc)") s)"
  fi
done
echo "planted +20% in $n2 commits, --jobs 3: found $found/$trials by CPU time (paired per runner), $found_ins/$trials by instructions; load after: $(uptime | sed 's/.*load average: //')"
