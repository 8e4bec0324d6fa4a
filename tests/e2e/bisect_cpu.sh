#!/usr/bin/env bash
# End to end: `culprit bisect --command --metric cpu_ns` judges the command's CPU
# time, not its wall time. A generated repository r1..r6 of a program that does some
# CPU work and may sleep: r3 adds a 150 ms sleep (wall time only, no CPU work), r5
# makes the CPU work 10x. By wall time the first slower commit is r3; by CPU time it
# is r5, and the sleep commit is not blamed. Also: the JSON and the progress lines
# say which series was judged; --metric instructions counts the command under
# callgrind and names r5 too; another name is a usage error naming cpu_ns.
# Two parts, two ctest tests: "cpu" (CPU time, instructions, the usage error: no
# wall time judged, so it runs beside anything) and "wall" (the wall-time bisection,
# a timing test); no part given: both.
# usage: bisect_cpu.sh CULPRIT [cpu|wall]
set -euo pipefail
culprit=$1 part=${2:-all}
case $part in cpu | wall | all) ;; *) echo "usage: bisect_cpu.sh CULPRIT [cpu|wall]" >&2; exit 2 ;; esac
in_part() { [ "$part" = all ] || [ "$part" = "$1" ]; }
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
e2e_workdir bisect-cpu
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
    struct timespec t = {0, (long)sleep_ms * 1000000L};
    nanosleep(&t, NULL);
    return 0;
}
CEOF
# r1..r6: (work in millions of iterations, sleep in ms)
# The sleep is 150 ms, not 50: beside two CPU hogs at load 15 every run waits ~200 ms
# for a core, and the 30M loop takes ~250 ms of wall time; a 50 ms sleep was lost in
# that (r5 named by wall time, twice), 150 ms is not.
set -- "3 0" "3 0" "3 150" "3 150" "30 150" "30 150"
r=0
for spec in "$@"; do
  r=$((r + 1))
  read -r w s <<< "$spec"
  printf 'work = %s000000 sleep = %s\n' "$w" "$s" > "$repo/prog.conf"
  git -C "$repo" add -A
  git -C "$repo" commit -q --allow-empty -m "r$r: work ${w}M, sleep ${s} ms"
  git -C "$repo" tag "r$r"
done

# bisect NAME [ARGS...]: bisects r1..r6, the JSON in $work/NAME.json, stderr in .err
bisect() {
  local name=$1; shift
  (cd "$repo" && "$culprit" bisect --good r1 --bad r6 --build 'cc -O2 -o prog main.c' \
      --command ./prog --json "$@" > "$work/$name.json" 2> "$work/$name.err") ||
    fail "bisect $name exited $?: $(cat "$work/$name.err")"
}
culprit_of() { sed -n 's/^  "culprit": "\([0-9a-f]*\)".*/\1/p' "$work/$1.json"; }

if in_part cpu; then
# By CPU time: the CPU commit r5, not the sleep commit r3.
bisect cpu --metric cpu_ns
[ "$(culprit_of cpu)" = "$(git -C "$repo" rev-parse r5)" ] ||
  fail "--metric cpu_ns named $(culprit_of cpu), expected r5: $(cat "$work/cpu.json")"
grep -q '^  "metric": "cpu_ns",' "$work/cpu.json" || fail "no \"metric\": \"cpu_ns\" in the JSON"
grep -q '^step .* (cpu_ns)$' "$work/cpu.err" ||
  fail "the progress lines do not say cpu_ns: $(cat "$work/cpu.err")"
# By instructions (counted under callgrind): the CPU commit r5 too, the sleep counts
# nothing; one run per side, every step deterministic.
if command -v valgrind > /dev/null; then
  bisect count --metric instructions
  [ "$(culprit_of count)" = "$(git -C "$repo" rev-parse r5)" ] ||
    fail "--metric instructions named $(culprit_of count), expected r5: $(cat "$work/count.json")"
  grep -q '^  "metric": "instructions",' "$work/count.json" ||
    fail "no \"metric\": \"instructions\" in the JSON"
fi

# Any other metric with --command: a usage error naming what is allowed.
status=0
(cd "$repo" && "$culprit" bisect --good r1 --bad r6 --command ./prog \
    --metric cycles) > /dev/null 2> "$work/usage.err" || status=$?
[ "$status" = 2 ] || fail "--metric cycles with --command exited $status, not 2"
grep -q 'cpu_ns' "$work/usage.err" || fail "the usage error does not name cpu_ns: $(cat "$work/usage.err")"
echo "ok: cpu_ns named r5"
fi
if in_part wall; then
# By wall time (the default): the sleep commit r3 is the first slower one, so the
# repository does tell the two series apart.
bisect wall
[ "$(culprit_of wall)" = "$(git -C "$repo" rev-parse r3)" ] ||
  fail "wall time named $(culprit_of wall), expected r3: $(cat "$work/wall.json")"
grep -q '^  "metric": null,' "$work/wall.json" || fail "no \"metric\": null in the JSON"
if grep -q '(cpu_ns)' "$work/wall.err"; then fail "a wall-time bisection says cpu_ns"; fi
echo "ok: wall time named r3"
fi
