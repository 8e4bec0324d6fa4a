#!/usr/bin/env bash
# `culprit history` and `culprit report` read only the runs their window needs
# (issue 23; docs/cli.md, "culprit history"): on a generated history of 120 commits,
# a broken run file at the oldest commit is not even opened by a window of 5 (the
# window's commits and the 11 before them are read first), while a window of all 120 reads
# it and warns; and the 5 newest points are the same either way, so reading less
# changed no verdict. A test the window does not have is still named with its near
# matches from the whole store.
# usage: history_window.sh CULPRIT BENCH_HISTORY_SCALE
set -euo pipefail
. "$(dirname "$0")/lib.sh"
culprit=$(realpath "$1") gen=$(realpath "$2")
e2e_workdir history-window
repo=$work/repo hist=$work/history

e2e_empty_commits "$repo" 120
cp "$repo.commits" "$work/commits"
"$gen" gen "$hist" "$work/commits" 4 0 20 > /dev/null
oldest=$(head -1 "$work/commits")
broken=$(ls "$hist"/*_"${oldest:0:12}"_*.xml)
head -c 300 "$broken" > "$work/cut" && mv "$work/cut" "$broken"

cd "$repo"
"$culprit" history --history "$hist" --limit 5 --json > "$work/five.json" 2> "$work/five.err" ||
  fail "history --limit 5: $(cat "$work/five.err")"
grep -q "skipping" "$work/five.err" &&
  fail "history --limit 5 read a run of the oldest commit: $(cat "$work/five.err")"
"$culprit" history --history "$hist" --limit 120 --json > "$work/all.json" 2> "$work/all.err" ||
  fail "history --limit 120: $(cat "$work/all.err")"
grep -q "skipping $broken" "$work/all.err" || fail "history --limit 120 did not read every run"
python3 - "$work/five.json" "$work/all.json" <<'EOF' || fail "the newest points differ"
import json, sys
five, every = (json.load(open(p)) for p in sys.argv[1:])
newest = {t["test"]: t["points"][:5] for t in every["tests"]}
assert len(five["tests"]) == 4, five["tests"]
for t in five["tests"]:
    assert len(t["points"]) == 5, t
    assert t["points"] == newest[t["test"]], (t["points"], newest[t["test"]])
EOF

"$culprit" report --history "$hist" --limit 5 --format json > /dev/null 2> "$work/report.err" ||
  fail "report --limit 5: $(cat "$work/report.err")"
grep -q "skipping" "$work/report.err" && fail "report --limit 5 read a run of the oldest commit"

status=0
"$culprit" history --history "$hist" --limit 5 --test test_00 > /dev/null 2> "$work/near.err" ||
  status=$?
[ $status = 2 ] || fail "history --test test_00: exit $status, not 2"
grep -q "no test 'test_00'.*did you mean" "$work/near.err" ||
  fail "no near matches for test_00: $(cat "$work/near.err")"
echo "history_window: ok"
