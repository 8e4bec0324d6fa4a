#!/usr/bin/env bash
# End to end: a fanned-out bisection judged by instructions (docs/bisect.md,
# "Fanning out", "Counted metrics need no pairing"). A first-round probe counts its
# commit and the good end under callgrind, a later one its commit alone (the good
# end's count from a record); counts agree across probe processes, so every record
# of a commit on either side of the culprit carries exactly the same change (0 for
# the good ones, the planted +20% loop for the bad ones), whichever process made it.
# --jobs 3 over 8 commits, the culprit r6 (its awk loop 20% longer). awk reads its
# count from the file itself (no cat, one process less to count): with `$(cat n)`
# a good commit's change was once not 0 on a loaded machine (likely sh reading the
# pipe in as many read() calls as the data arrived in), and 51 s became 33 s.
# Skipped (exit 77) without valgrind.
# usage: bisect_fanout_instructions.sh CULPRIT
set -euo pipefail
culprit=$1
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
command -v valgrind > /dev/null || { echo "valgrind not installed: skipped"; exit 77; }
e2e_workdir bisect-fanout-instructions

git init -q "$work/repo"
e2e_tagged_commits "$work/repo" 8 n 6 5000 6000
want=$(git -C "$work/repo" rev-parse r6)
(cd "$work/repo" && "$culprit" bisect --good r1 --bad r8 --metric instructions --jobs 3 \
  --command "awk '{ n = \$1 } END { for (i = 0; i < n; i++) s += i }' n" \
  --history "$work/h" > "$work/out" 2> "$work/err") || { cat "$work/err" >&2; fail "--jobs failed"; }
grep -q "^culprit bisect: $want is the first slow commit" "$work/out" ||
  { cat "$work/out" "$work/err" >&2; fail "r6 not found"; }
# The probes' records, as the plan reads them back.
(cd "$work/repo" && "$culprit" bisect --good r1 --bad r8 --metric instructions --plan 3 \
  --command "awk '{ n = \$1 } END { for (i = 0; i < n; i++) s += i }' n" \
  --history "$work/h" --json > "$work/plan.json" 2> /dev/null) || fail "--plan failed"
nrec=$(jq '.records | length' "$work/plan.json")
[ "$nrec" -ge 2 ] || fail "only $nrec records"
jq -e '.records | all(.note | test("deterministic: no pairing needed"))' "$work/plan.json" > /dev/null ||
  fail "a record was not counted"
jq -e '[.records[] | select(.verdict == "good") | .change] | all(. == 0)' "$work/plan.json" > /dev/null ||
  fail "a good commit's count differs from the good end's"
jq -e '[.records[] | select(.verdict == "bad") | .change] | unique | length <= 1' "$work/plan.json" > /dev/null ||
  { jq -c '.records' "$work/plan.json" >&2; fail "the bad commits' counts differ between probes"; }
jq -e '[.records[] | select(.verdict == "bad") | .change] | all(. > 0.1)' "$work/plan.json" > /dev/null ||
  fail "the planted change is not counted"
# After the first round a probe takes the good end's count from a record (no build
# and no count of the good end again), and the counts still agree.
jq -e '[.records[] | select(.round == 1)] | all(.good_count > 0)' "$work/plan.json" > /dev/null ||
  { jq -c '.records' "$work/plan.json" >&2; fail "a first-round record lacks the good end's count"; }
jq -e '[.records[] | select(.round >= 2)] | length >= 1 and
       all(.note | test("the good end.s count from an earlier probe.s record"))' "$work/plan.json" > /dev/null ||
  { jq -c '.records' "$work/plan.json" >&2; fail "a later probe counted the good end again"; }
[ -z "$(git -C "$work/repo" status --porcelain)" ] || fail "the working tree changed"
echo "bisect fanout instructions: r6 found, $nrec records, counts identical across probes (${SECONDS} s)"
