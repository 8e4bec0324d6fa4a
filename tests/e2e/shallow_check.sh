#!/usr/bin/env bash
# End to end, as a CI job sees it: `culprit check` in a depth-1 clone (the default
# of GitHub's actions/checkout) of a repository whose baseline run lies at an older
# commit. The clone cannot order that run, so check judges what it has (nothing
# compared, exit 0), says plainly that the clone is shallow and what to fetch, and
# never shows a libgit2 message; after the fetch it names, the verdict is the full
# clone's. Effects are 16x, far above noise (see check_fib.sh for the threshold).
# usage: shallow_check.sh FIB_PERF CULPRIT
set -euo pipefail
fib_perf=$1 culprit=$2

# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
e2e_workdir e2e
repo=$work/repo history=$work/history
export GIT_AUTHOR_NAME=e2e GIT_AUTHOR_EMAIL=e2e@example.org
export GIT_COMMITTER_NAME=e2e GIT_COMMITTER_EMAIL=e2e@example.org
git init -q "$repo" && cd "$repo"

# commit MESSAGE N CALLS: the Fibonacci configuration at a new commit
commit() {
  printf 'n = %s\ncalls = %s\n' "$2" "$3" > fib.conf
  git add fib.conf culprit.json && git commit -q --allow-empty -m "$1"
}
# "fast" ends at 7 times the 16x commit's fastest sample as measured here first
# (e2e_fib_categories in lib.sh): no machine's speed or load takes the 16x run out
# of it (a fixed 1 ms held its ~200 us on one machine only).
e2e_fib_categories "$fib_perf" 18 64 7 > culprit.json
measure() {
  FIB_CONFIG=$repo/fib.conf "$fib_perf" --filter fib_config --repetitions 20 \
    --history "$history" > "$work/run.log" 2>&1
}
check() { "$culprit" check --history "$history" --threshold 100 --fail-on minor "$@"; }

commit "base" 18 4
# Four runs of the base: enough for the run-to-run noise model to vouch for the
# regression (docs/detection.md, "No alarm without evidence").
for run in 1 2 3 4; do
  measure || fail "the first runs failed: $(cat "$work/run.log")"
done
commit "unmeasured 1" 18 4
commit "unmeasured 2" 18 4
# Sixteen times the calls: a 4x change was left undecided when one of the four 12 us
# base runs happened to be slow (the run-to-run interval reached +-600%).
commit "slower: sixteen times the calls" 18 64
measure || fail "the 16x run failed"

set +e
check > "$work/full.log" 2>&1
full=$?
set -e
[ "$full" -eq 1 ] || fail "full clone: check exited $full: $(cat "$work/full.log")"

git clone -q --depth 1 "file://$repo" "$work/clone"
cd "$work/clone"
set +e
check > "$work/shallow.log" 2> "$work/shallow.err"
status=$?
set -e
cat "$work/shallow.log" "$work/shallow.err"
[ "$status" -eq 0 ] || fail "shallow clone: check exited $status"
grep -qi "object not found\|no match for id" "$work/shallow.log" "$work/shallow.err" &&
  fail "a libgit2 message leaked"
grep -q "this clone is shallow" "$work/shallow.err" || fail "no shallow note"
grep -q "git fetch --deepen=N" "$work/shallow.err" || fail "the note names no fetch"

git fetch -q --deepen=3 origin
set +e
check > "$work/deep.log" 2> "$work/deep.err"
status=$?
set -e
[ "$status" -eq "$full" ] || fail "deepened clone: check exited $status, full clone $full"
grep -q "this clone is shallow" "$work/deep.err" && fail "a note after deepening: $(cat "$work/deep.err")"
diff <(grep -o "MINOR.*" "$work/full.log") <(grep -o "MINOR.*" "$work/deep.log") ||
  fail "the deepened clone's verdict differs from the full clone's"
echo "ok"
