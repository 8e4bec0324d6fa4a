#!/usr/bin/env bash
# End to end: explaining the whole change, --all judged against parents, the build
# timeout and the progress lines (docs/bisect.md, "Explaining the whole change").
# A generated repository r1..r9 of a program that does CPU work: 10 M iterations, r3
# makes them 50 M (5x), r7 250 M (5x again). Judged by CPU time (--metric cpu_ns),
# which a loaded machine changes little (bisect_cpu.sh), against 5x effects.
#   - the default bisection names r3 and r7 with their shares (half each: log 5 /
#     log 25, when start-up costs nothing) and no other commit; a phase line says it
#     searched the rest;
#   (--all judged against parents: tests/bisect/test_bisect_session.c, exact planted
#   runs, as a run of it here would double this test's minutes on a loaded machine);
#   - a build longer than --build-timeout fails with a message naming that option;
#   - with a 1 s heartbeat ($CULPRIT_HEARTBEAT_S), a long run prints "still going".
# usage: bisect_explain.sh CULPRIT
set -euo pipefail
culprit=$1
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
e2e_workdir bisect-explain
mkdir "$work/tmp"
export TMPDIR=$work/tmp

repo=$work/repo
git init -q "$repo"
cat > "$repo/main.c" <<'CEOF'
#include <stdio.h>
#include <time.h>
int main(void)
{
    unsigned long work = 0, sleep_ms = 0;
    volatile unsigned long x = 0;
    FILE *f = fopen("prog.conf", "r");
    if (!f || fscanf(f, "work = %lu sleep = %lu", &work, &sleep_ms) != 2)
        return 2;
    fclose(f);
    for (unsigned long i = 0; i < work; i++)
        x += i;
    struct timespec t = {(time_t)(sleep_ms / 1000), (long)(sleep_ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
    return 0;
}
CEOF
r=0
for w in 10 10 50 50 50 50 250 250 250; do
  r=$((r + 1))
  printf 'work = %s000000 sleep = 0\n' "$w" > "$repo/prog.conf"
  git -C "$repo" add -A
  git -C "$repo" commit -q --allow-empty -m "r$r: work ${w}M"
  git -C "$repo" tag "r$r"
done
sha() { git -C "$repo" rev-parse "$1"; }

# bisect NAME [ARGS...]: bisects r1..r9, the JSON in $work/NAME.json, stderr in .err
bisect() {
  local name=$1; shift
  (cd "$repo" && "$culprit" bisect --good r1 --bad r9 --build 'cc -O1 -o prog main.c' \
      --command ./prog --metric cpu_ns --json "$@" > "$work/$name.json" 2> "$work/$name.err")
}
# The commits of the "culprits" array of NAME's JSON, one per line.
culprits_of() {
  python3 -c 'import json,sys; [print(c["commit"]) for c in json.load(open(sys.argv[1]))["culprits"]]' \
    "$work/$1.json"
}
share_of() {
  python3 -c 'import json,sys
for c in json.load(open(sys.argv[1]))["culprits"]:
    if c["commit"] == sys.argv[2]: print("%.2f" % c["share"])' "$work/$1.json" "$2"
}

bisect explain || fail "bisect exited $?: $(cat "$work/explain.err")"
want=$(printf '%s\n' "$(sha r3)" "$(sha r7)" | sort)
[ "$(culprits_of explain | sort)" = "$want" ] ||
  fail "the default bisection named $(culprits_of explain | tr '\n' ' '), expected r3 and r7"
# Each has a share (half each on an idle machine; under load, a process's start-up
# CPU time dilutes both effects, and the shares say what the runs measured).
for c in r3 r7; do
  s=$(share_of explain "$(sha $c)")
  python3 -c "import sys; sys.exit(not 0.05 <= $s <= 1.0)" ||
    fail "$c explains $s of the change, expected a share between 0.05 and 1"
done
grep -q '^explaining the whole change: ' "$work/explain.err" ||
  fail "no phase line for the search of the rest: $(cat "$work/explain.err")"
grep -q 'explains [0-9]*% of the good->bad change' "$work/explain.err" ||
  fail "the text does not give the culprit's share: $(cat "$work/explain.err")"

# A build over --build-timeout: the message names the option to raise.
if bisect timeout --build 'sleep 5' --build-timeout 1; then
  fail "a build over --build-timeout did not fail"
fi
grep -q 'timed out after 1 s (raise --build-timeout)' "$work/timeout.err" ||
  fail "the timeout message does not name --build-timeout: $(cat "$work/timeout.err")"

# The heartbeat: a 2.5 s run (a sleep) with a 1 s interval and no terminal.
printf 'work = 100000000 sleep = 2500\n' > "$repo/prog.conf"
git -C "$repo" commit -q -am "r10: sleep 2.5 s"
if ! (cd "$repo" && CULPRIT_HEARTBEAT_S=1 "$culprit" bisect --good r9 --bad HEAD \
        --build 'cc -O1 -o prog main.c' --command ./prog --min-runs 2 --max-runs 2 \
        > /dev/null 2> "$work/beat.err"); then
  fail "bisect r9..r10 failed: $(cat "$work/beat.err")"
fi
grep -q '^culprit: bisecting: .*(still going, [0-9]*:[0-9][0-9] elapsed)$' "$work/beat.err" ||
  fail "no heartbeat line during a long run: $(cat "$work/beat.err")"
echo "PASS"
