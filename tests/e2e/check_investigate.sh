#!/usr/bin/env bash
# End to end: `culprit check --investigate`, from a red check to the commit and the
# function in one command (docs/investigate.md).
#
# A generated repository of 13 commits (investigate_repo.sh): commit 7 makes level5,
# five calls deep under the perf test, do eight times its work. As a CI measuring
# pushes, only the first and the last commit were measured. culprit.json holds
# "build", "run" and "calltree_build" (instrumented).
#  1. a budget too small for the bisection: the test is reported as not investigated
#     with the command to continue, and the exit status is still --fail-on's (1);
#  2. `culprit check --investigate --fail-on minor` exits 1 and names the test,
#     commit 7 and level5 in its text, its JSON, its JUnit failure and the Markdown
#     summary (`culprit report --format markdown`, which reads .culprit/results);
#     the second test, regressed over the same range, shares the one bisection;
#  3. with commits 6 and 7 measured too, the check of commit 7 has one commit in its
#     range: no bisection, and level5 is still named;
# and the working tree, index and HEAD are left as they were (only .culprit/, which
# is culprit's, is written).
# usage: check_investigate.sh CULPRIT LIBCULPRIT INCLUDE_DIR TRACE_LIB
set -euo pipefail
culprit=$1 lib=$2 include=$3 trace=$4
work=$(mktemp -d /tmp/culprit-investigate-XXXXXX)
[ -n "${CULPRIT_E2E_KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
git() { command git -c user.name=e2e -c user.email=e2e@example.org -c commit.gpgsign=false "$@"; }
started=$(date +%s)

# shellcheck source=investigate_repo.sh
source "$(dirname "$0")/investigate_repo.sh"
investigate_repo "$work/repo" "$include" "$lib" "$trace"
culprit_sha=$(git -C "$repo" rev-parse c7)

# The history a CI job measuring pushes has: the first commit and the last.
measure c1 1
measure main 1
rm -f "$repo/perf"
echo "local change" >> "$repo/README" # a dirty tree: never built, never touched
fingerprint() {
  (cd "$repo" && stat -c '%i %Y' .git/index && git --no-optional-locks status --porcelain &&
    git rev-parse HEAD &&
    find . -path ./.git -prune -o -path ./.culprit -prune -o -type f -print0 | sort -z |
    xargs -0 sha256sum)
}
before=$(fingerprint)

check() { (cd "$repo" && "$culprit" check --fail-on minor --min-runs 4 --max-runs 10 "$@"); }

# Usage errors (exit 2), before anything is built: no run command, a budget that is
# not a duration, --results alone, a command in culprit.json that is not a string.
usage_error() { # expected-message args...
  local want=$1 status=0
  shift
  check "$@" > /dev/null 2> "$work/usage.err" || status=$?
  [ "$status" = 2 ] || fail "check $* exited $status"
  grep -qF -- "$want" "$work/usage.err" || fail "check $*: $(cat "$work/usage.err")"
}
echo '{}' > "$work/none.json"
printf '{\n  "build": "make",\n  "run": 3\n}\n' > "$work/bad.json"
usage_error 'needs the command that runs the test binary' --investigate --project "$work/none.json"
usage_error "'5x' is not a duration" --investigate --investigate-budget 5x
usage_error '--results goes with --investigate' --results "$work/r"
usage_error '--calltree-build goes with --investigate' --calltree-build make
usage_error 'bad.json:3: "run" must be a shell command' --investigate --project "$work/bad.json"

# 1. A budget too small for the bisection: not investigated, with the command to continue.
status=0
check --investigate --investigate-budget 1 > "$work/budget.txt" 2> "$work/budget.err" || status=$?
[ "$status" = 1 ] || fail "the small budget exited $status: $(cat "$work/budget.txt" "$work/budget.err")"
grep -q '^NOT INVESTIGATED invsuite.work — not investigated: the investigation budget (1 s) ran out' \
  "$work/budget.txt" || fail "not reported as not investigated: $(cat "$work/budget.txt")"
# (the range's two tests share one investigation: it continues with the worst of them)
grep -Eq "^  to continue: culprit check --commit $(git -C "$repo" rev-parse --short=12 main) .*--test 'invsuite.(work|light)' --investigate --investigate-budget 0" \
  "$work/budget.txt" || fail "no command to continue: $(cat "$work/budget.txt")"
[ ! -e "$repo/.culprit/results/bisect.json" ] || fail "an unfinished investigation wrote bisect.json"

# 2. The whole range: bisected, then the call trees; text, JSON, JUnit, Markdown. One
# investigation for all four: with --json the text goes to stderr, line for line what
# stdout gets without it (one function prints both; step 3 reads stdout), beside the
# progress lines.
status=0
check --investigate --json --junit "$work/junit.xml" > "$work/check.json" 2> "$work/text.err" ||
  status=$?
[ "$status" = 1 ] || fail "check --investigate --json exited $status: $(cat "$work/text.err")"
# (the two tests share one bisection; which is listed first follows their changes,
# which the machine's speed decides, so the line of invsuite.work is looked up)
line=$(grep -m1 '^INVESTIGATED invsuite.work ' "$work/text.err") ||
  fail "no answer: $(cat "$work/text.err")"
[[ "$line" == "INVESTIGATED invsuite.work — ${culprit_sha:0:12} \"c7: level5 repeats its work\" — level5() work.c:"* ]] ||
  fail "the answer is: $line ($(cat "$work/text.err"))"
grep -q '^  bisected 12 commits between' "$work/text.err" || fail "not bisected: $(cat "$work/text.err")"
grep -q "^INVESTIGATED invsuite.light — ${culprit_sha:0:12} .* — level5() work.c:" "$work/text.err" ||
  fail "the test sharing the range is not answered: $(cat "$work/text.err")"
grep -q 'investigated: .*level5()' "$work/junit.xml" || fail "the JUnit failure does not name level5"
# Progress on stderr: the investigation, each bisection step, each call-tree phase.
grep -q '^investigating invsuite\.\(work\|light\): bisecting 12 commits' "$work/text.err" ||
  fail "no line for the investigation: $(cat "$work/text.err")"
grep -q '^step 1 ' "$work/text.err" || fail "no line per bisection step: $(cat "$work/text.err")"
grep -q '^call trees: recording ' "$work/text.err" ||
  fail "no line for the call-tree phase: $(cat "$work/text.err")"
python3 - "$work/check.json" "$culprit_sha" <<'PYEOF' || fail "the JSON: $(cat "$work/check.json")"
import json, sys
doc = json.load(open(sys.argv[1]))
inv = doc["investigations"]
assert len(inv) == 1, inv  # the two tests regressed over one range: one bisection
i = inv[0]
assert i["status"] == "found" and sorted(i["tests"]) == ["invsuite.light", "invsuite.work"], i
assert i["culprit"] == sys.argv[2] and i["function"] == "level5" and i["file"] == "work.c", i
assert i["answer"].startswith("level5 (work.c:") and "changed by the commit" in i["answer"], i
assert i["bisected"] is True and i["commits"] == 12 and i["continue"] is None, i
assert doc["exit_code"] == 1
PYEOF
(cd "$repo" && "$culprit" report --format markdown) > "$work/summary.md" ||
  fail "culprit report --format markdown failed"
head -5 "$work/summary.md" | grep -Eq "invsuite\.(work|light).*${culprit_sha:0:12}.*level5" ||
  fail "the Markdown summary does not answer first: $(cat "$work/summary.md")"

unchanged() { # the fingerprint now is $before
  local after
  after=$(fingerprint)
  [ "$before" = "$after" ] || fail "the working tree, index or HEAD changed: $(diff <(echo "$before") <(echo "$after"))"
}
unchanged

# 3. One commit in the range: straight to the call trees.
measure c6 1
measure c7 1
rm -f "$repo/perf"
git -C "$repo" checkout -q -f main
echo "local change" >> "$repo/README"
before=$(fingerprint)
status=0
check --investigate --commit c7 > "$work/one.txt" 2> "$work/one.err" || status=$?
[ "$status" = 1 ] || fail "check of c7 exited $status: $(cat "$work/one.txt" "$work/one.err")"
grep -q "^INVESTIGATED invsuite.work — ${culprit_sha:0:12} .* — level5() work.c:" "$work/one.txt" ||
  fail "c7 alone: $(cat "$work/one.txt" "$work/one.err")"
grep -q '^  one commit, not bisected: 1 commit between' "$work/one.txt" ||
  fail "a bisection ran for one commit: $(cat "$work/one.txt")"

# 4. --calltree-build on the command line comes before culprit.json's: a build for
# the call trees that fails says so with its command.
status=0
check --investigate --commit c7 --calltree-build 'exit 3' > "$work/ctb.txt" 2> "$work/ctb.err" ||
  status=$?
grep -qF "'exit 3'" "$work/ctb.txt" ||
  fail "--calltree-build was not the call trees' build: $(cat "$work/ctb.txt" "$work/ctb.err")"

unchanged
echo "check --investigate: test, commit and function named (bisected and not), the budget" \
  "respected; $(($(date +%s) - started)) s"
