#!/usr/bin/env bash
# The commands that read, judge or push on several threads (CULPRIT_THREADS; docs/cli.md,
# "Threads") print the same bytes as on one: `history`, `report`, `check` and `compare`
# (of two files and of two revisions) on a generated history of 60 commits x 40 tests
# with a broken run file among them (its warning in its place), with 1 and 4 threads;
# a value that is not a number of threads from 1 to 64 is exit 2 naming it.
# usage: threads.sh CULPRIT BENCH_HISTORY_SCALE
set -euo pipefail
. "$(dirname "$0")/lib.sh"
culprit=$(realpath "$1") gen=$(realpath "$2")
e2e_workdir threads
repo=$work/repo hist=$work/history

e2e_empty_commits "$repo" 60
cp "$repo.commits" "$work/commits"
"$gen" gen "$hist" "$work/commits" 40 5 20 > /dev/null
middle=$(sed -n 50p "$work/commits")
broken=$(ls "$hist"/*_"${middle:0:12}"_*.xml)
head -c 300 "$broken" > "$work/cut" && mv "$work/cut" "$broken"
files=$(ls "$hist"/*.xml | tail -2)

cd "$repo"
# run NAME ARGS...: culprit ARGS with 1 and with 4 threads, the same exit, stdout, stderr.
run() {
  local name=$1 t
  shift
  for t in 1 4; do
    CULPRIT_THREADS=$t "$culprit" "$@" > "$work/$name.$t.out" 2> "$work/$name.$t.err" &&
      echo 0 > "$work/$name.$t.rc" || echo $? > "$work/$name.$t.rc"
  done
  for f in out err rc; do
    cmp -s "$work/$name.1.$f" "$work/$name.4.$f" ||
      fail "$name: the $f differs with 4 threads: $(diff "$work/$name.1.$f" "$work/$name.4.$f" | head -5)"
  done
  [ "$(cat "$work/$name.1.rc")" -le 1 ] || fail "$name: exit $(cat "$work/$name.1.rc"): $(cat "$work/$name.1.err")"
}
run history history --history "$hist" --limit 30
run history-json history --history "$hist" --limit 60 --json
grep -q "skipping $broken" "$work/history-json.4.err" || fail "no warning of the broken file"
run report report --history "$hist" --format json
run check check --history "$hist" --fail-on none
run compare compare $files --fail-on none
run compare-json compare $files --json --fail-on none
run compare-revs compare HEAD~3 HEAD --history "$hist" --fail-on none
[ -s "$work/compare.4.out" ] && [ -s "$work/history.4.out" ] || fail "no output"

for bad in 0 65 x 2x -1; do
  status=0
  CULPRIT_THREADS=$bad "$culprit" history --history "$hist" > /dev/null 2> "$work/bad.err" ||
    status=$?
  [ $status = 2 ] || fail "CULPRIT_THREADS=$bad: history exit $status, not 2"
  grep -q "CULPRIT_THREADS='$bad' is not a number of threads" "$work/bad.err" ||
    fail "CULPRIT_THREADS=$bad: $(cat "$work/bad.err")"
  status=0
  CULPRIT_THREADS=$bad "$culprit" compare $files > /dev/null 2> "$work/bad.err" || status=$?
  [ $status = 2 ] || fail "CULPRIT_THREADS=$bad: compare exit $status, not 2"
done
echo "threads: ok"
