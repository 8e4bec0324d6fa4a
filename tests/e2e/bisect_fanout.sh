#!/usr/bin/env bash
# End to end: a bisection fanned out over three runners (docs/bisect.md, "Fanning
# out"). Three clones of a bare remote act as runners: one plans (--plan 3), the
# three probe one commit each at once (--probe, pushing their records to the shared
# history), the planner resumes from what they pushed, until the result. One probe
# of the first round (r12, above the culprit r11) is interrupted: nothing is recorded
# and, r4 and r8 found good, r12 is planned again (a commit an earlier result made
# unnecessary would not be). Then the same with the local driver (--jobs 3) in a fourth clone. Checked:
# the culprit is the planted one (r11, a command 8x slower; the effect is far above
# the noise of a loaded machine), no record is lost in the shared ref, the clones'
# working trees, HEADs and statuses are unchanged.
# usage: bisect_fanout.sh CULPRIT
set -euo pipefail
culprit=$1
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
e2e_workdir bisect-fanout

git init -q --bare "$work/remote.git"
git clone -q "$work/remote.git" "$work/seed" 2> /dev/null
e2e_tagged_commits "$work/seed" 16 delay 11 0.05 0.4
git -C "$work/seed" push -q origin HEAD:main --tags 2> /dev/null
for c in 1 2 3 4; do git clone -q -b main "$work/remote.git" "$work/runner$c" 2> /dev/null; done
want=$(git -C "$work/seed" rev-parse r11)

# The bisection, the same on every runner.
base=(bisect --good r1 --bad r16 --command 'sleep $(cat delay)' --min-runs 5 --max-runs 10 --threshold 100)
args=("${base[@]}" --remote origin)
heads() { for c in 1 2 3 4; do git -C "$work/runner$c" rev-parse HEAD; git -C "$work/runner$c" status --porcelain; done; }
before=$(heads)

# Bad input: exit 2 with the option named, nothing recorded.
bad_input() { # EXPECTED-WORDS ARGS...
  local want=$1 rc=0; shift
  (cd "$work/runner1" && env -u CULPRIT_HISTORY_DIR "$culprit" "$@" > /dev/null 2> "$work/bad.err") || rc=$?
  [ "$rc" = 2 ] || fail "exit $rc, not 2, for: $*"
  grep -q -- "$want" "$work/bad.err" || { cat "$work/bad.err" >&2; fail "no '$want' in the message for: $*"; }
}
bad_input "exclude each other" "${args[@]}" --plan 3 --probe r5 --history "$work/h1"
bad_input "--history DIR" "${args[@]}" --probe r5
bad_input "--plan" "${args[@]}" --plan 0
bad_input "nothing recorded" "${args[@]}" --probe no-such-rev --history "$work/hbad"
[ ! -e "$work/hbad" ] || [ -z "$(ls "$work/hbad")" ] || fail "a probe of a bad revision recorded something"

plan() { # prints the plan's JSON (runner 1)
  (cd "$work/runner1" && "$culprit" "${args[@]}" --plan 3 --history "$work/h1" --json \
    2>> "$work/plan.log") || { cat "$work/plan.log" >&2; fail "--plan failed"; }
}

probes=0 interrupted="" done=false
for round in 1 2 3 4 5 6; do
  plan > "$work/plan.json"
  done=$(jq -r .done "$work/plan.json")
  [ "$done" = true ] && break
  mapfile -t commits < <(jq -r '.commits[]' "$work/plan.json")
  [ "$(jq -r .round "$work/plan.json")" -ge "$round" ] || fail "round number went back"
  pids=()
  for i in "${!commits[@]}"; do
    c=$(( i % 3 + 1 ))
    # The probe interrupted below pulls and pushes nothing, so that the kill cannot
    # land inside a git operation on the runner's repository (the same bisection:
    # --remote is no part of it).
    a=("${args[@]}"); [ "$round" = 1 ] && [ "$i" = 2 ] && a=("${base[@]}")
    (cd "$work/runner$c" && exec "$culprit" "${a[@]}" --probe "${commits[$i]}" \
      --history "$work/h$c" >> "$work/probe$c.log" 2>&1) &
    pids+=($!)
  done
  if [ "$round" = 1 ]; then # the last probe (r12) is interrupted before it records anything
    interrupted=${commits[2]}
    sleep 0.5
    kill -TERM "${pids[2]}"
  fi
  for i in "${!pids[@]}"; do
    if wait "${pids[$i]}"; then probes=$((probes + 1));
    elif [ "$round" != 1 ] || [ "$i" != 2 ]; then cat "$work"/probe*.log >&2; fail "a probe failed"; fi
  done
  if [ "$round" = 1 ]; then
    plan > "$work/plan2.json"
    jq -e --arg c "$interrupted" '.records | map(select(.commit == $c)) | length == 0' \
      "$work/plan2.json" > /dev/null || fail "the interrupted probe recorded something"
    jq -e --arg c "$interrupted" '.commits | index($c) != null' "$work/plan2.json" > /dev/null ||
      { cat "$work/plan2.json" >&2; fail "the interrupted probe's commit is not planned again"; }
  fi
done
[ "$done" = true ] || { cat "$work/plan.log" >&2; fail "no result after 6 rounds"; }
got=$(jq -r .result.culprit "$work/plan.json")
[ "$got" = "$want" ] || { cat "$work/plan.log" >&2; fail "culprit $got, not r11 $want"; }
jq -e '.result.confirmed == true' "$work/plan.json" > /dev/null || fail "the culprit is not confirmed"
# The result's steps begin with the probes it rested on, round by round (the report's
# bisection table shows them), then the last steps on this runner (no round).
jq -e '[.result.steps[] | .round // 0] | (.[0] == 1) and (. == (map(select(. > 0)) + map(select(. == 0))))
       and (map(select(. > 0)) == (map(select(. > 0)) | sort)) and (.[-1] == 0)' "$work/plan.json" > /dev/null ||
  { jq .result.steps "$work/plan.json" >&2; fail "the result's steps do not give the rounds in order"; }
# No record lost: every probe that ended well is in the shared ref of the remote.
shared=$(git -C "$work/remote.git" ls-tree -r --name-only refs/culprit/history | grep -c '^runs/')
[ "$shared" -eq "$probes" ] || fail "$probes probes recorded, $shared records in the shared ref"
[ "$(jq '.records | length' "$work/plan.json")" -eq "$probes" ] || fail "records read back differ"

# The local driver: rounds of 3 probe processes, the same culprit.
(cd "$work/runner4" && "$culprit" bisect --good r1 --bad r16 --command 'sleep $(cat delay)' \
  --min-runs 5 --max-runs 10 --threshold 100 --jobs 3 --history "$work/h4" > "$work/jobs.out" 2> "$work/jobs.err") ||
  { cat "$work/jobs.err" >&2; fail "--jobs failed"; }
grep -q "^culprit bisect: $want is the first slow commit" "$work/jobs.out" ||
  { cat "$work/jobs.out" "$work/jobs.err" >&2; fail "--jobs did not name r11"; }
grep -q "round 2: 3 commits to probe" "$work/jobs.err" || fail "--jobs printed no second round"

[ "$(heads)" = "$before" ] || fail "a runner's working tree or HEAD changed"
echo "bisect fanout: r11 found by 3 runners ($probes probes, one interrupted and planned again) and by --jobs 3 (${SECONDS} s)"
