#!/usr/bin/env bash
# Wall time from a red check to the function (docs/investigate.md, "What it costs"):
# the scenario of tests/e2e/check_investigate.sh (13 commits, only the first and the
# last measured, commit 7 makes level5, five calls deep, eight times slower), three
# ways, each trial on a fresh copy of the same repository and history:
#   one       `culprit check --investigate --fail-on minor`: the one command;
#   by-hand   what examples/demo.sh chains: `culprit check`, `culprit bisect --auto
#             --test T --threshold 100 --json` (build and run from culprit.json), then
#             the culprit's and its parent's call trees in two worktrees built with
#             the instrumented build, `culprit calltree record` each and
#             `culprit calltree diff --json`;
#   git       `git bisect run` with a script that builds a commit and calls it bad
#             when the test's mean is over twice the first commit's (in a clone: git
#             bisect moves HEAD); it names the commit, not the function.
# A trial is right when it names commit 7 (and level5, for the first two). Prints
# the median wall time of each. Run it beside a CPU hog; the load is printed before
# and after.
# usage: bench_investigate.sh CULPRIT LIBCULPRIT INCLUDE_DIR TRACE_LIB [--quick | TRIALS]
# --quick (ctest): one trial of by-hand, which must be right; the one command is left
# to e2e.check_investigate, which asserts it on the same scenario, and git to the full
# run (its answer is printed only: one run per commit misjudges some commits).
set -euo pipefail
culprit=$1 lib=$2 include=$3 trace=$4 mode=${5:-5}
trials=$mode ways="one by_hand git_bisect"
[ "$mode" = --quick ] && trials=1 ways="by_hand"
work=$(mktemp -d /tmp/culprit-bench-investigate-XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
git() { command git -c user.name=bench -c user.email=bench@example.org -c commit.gpgsign=false "$@"; }
echo "load before: $(uptime)"

# shellcheck source=../e2e/investigate_repo.sh
source "$(dirname "$0")/../e2e/investigate_repo.sh"
investigate_repo "$work/origin" "$include" "$lib" "$trace"
measure c1 1
measure main 1
rm -f "$repo/perf"
want=$(git -C "$repo" rev-parse c7)

now() { date +%s.%N; }
fresh() { rm -rf "$work/t"; cp -a "$work/origin" "$work/t"; }

one() {
  (cd "$work/t" && "$culprit" check --investigate --fail-on minor --json > "$work/one.json" \
    2> "$work/one.err") && return 1
  python3 - "$work/one.json" "$want" <<'PYEOF'
import json, sys
i = json.load(open(sys.argv[1]))["investigations"][0]
sys.exit(0 if i["culprit"] == sys.argv[2] and i["function"] == "level5" else 1)
PYEOF
}

by_hand() {
  local t=$work/t sha side rev
  (cd "$t" && "$culprit" check > /dev/null) && return 1
  (cd "$t" && "$culprit" bisect --auto --test invsuite.work --threshold 100 --json \
    > "$work/bisect.json" 2> "$work/bisect.err") || return 1
  sha=$(sed -n 's/^  "culprit": "\([0-9a-f]*\)",$/\1/p' "$work/bisect.json")
  [ "$sha" = "$want" ] || return 1
  for side in parent culprit; do
    rev=$sha; [ "$side" = parent ] && rev=$sha^
    rm -rf "$work/$side"
    git -C "$t" worktree add -q --detach "$work/$side" "$rev"
    (cd "$work/$side" && eval "$instrumented" &&
      "$culprit" calltree record --quiet --out "$work/$side.calltree" -- ./perf --quiet) \
      > /dev/null 2>&1 || return 1
  done
  "$culprit" calltree diff "$work/parent.calltree" "$work/culprit.calltree" --repo "$t" \
    --commit "$sha" --json > "$work/diff.json" || return 1
  python3 - "$work/diff.json" <<'PYEOF'
import json, sys
s = json.load(open(sys.argv[1]))["suspects"]
sys.exit(0 if s and s[0]["path"][-1]["function"] == "level5" else 1)
PYEOF
}

git_bisect() {
  local clone=$work/clone good_ns
  rm -rf "$clone"
  git clone -q "$work/t" "$clone"
  cat > "$work/step.sh" <<SEOF
#!/bin/sh
# Builds the commit checked out and times the perf test: bad when over twice the
# first commit's mean (125: cannot build, skip).
$build || exit 125
ns=\$(CULPRIT_FAIL_ON=none ./perf --quiet --no-history --json 2>/dev/null |
  python3 -c "import json,sys; print(int(json.load(sys.stdin)['tests'][0]['mean_ns']))") || exit 125
[ "\$ns" -le \$((2 * GOOD_NS)) ]
SEOF
  chmod +x "$work/step.sh"
  git -C "$clone" checkout -q c1
  (cd "$clone" && eval "$build") > /dev/null 2>&1 || return 1
  good_ns=$(cd "$clone" && CULPRIT_FAIL_ON=none ./perf --quiet --no-history --json 2>/dev/null |
    python3 -c "import json,sys; print(int(json.load(sys.stdin)['tests'][0]['mean_ns']))")
  rm -f "$clone/perf"
  (cd "$clone" && git bisect start main c1 > /dev/null &&
    GOOD_NS=$good_ns git bisect run "$work/step.sh" > "$work/git.log" 2>&1) || return 1
  grep -q "^$want is the first bad commit" "$work/git.log"
}

declare -A times right
for way in $ways; do times[$way]=""; right[$way]=0; done
for trial in $(seq "$trials"); do
  for way in $ways; do
    fresh
    t0=$(now)
    ok=0; "$way" && ok=1
    t1=$(now)
    times[$way]="${times[$way]} $(echo "$t1 - $t0" | bc)"
    right[$way]=$((right[$way] + ok))
    echo "trial $trial: $way $(echo "$t1 - $t0" | bc) s, right: $ok"
  done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
echo
echo "way         median wall s  right (of $trials)"
for way in $ways; do
  printf '%-11s %13.1f  %d\n' "$way" "$(echo "${times[$way]}" | median)" "${right[$way]}"
done
echo "load after: $(uptime)"
if [ "$mode" = --quick ]; then
  [ "${right[by_hand]}" = 1 ] || fail "the commands by hand did not name the commit and the function"
else
  [ "${right[one]}" -ge 1 ] || fail "check --investigate never named the commit and the function"
fi
