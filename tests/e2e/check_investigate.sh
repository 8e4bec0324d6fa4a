#!/usr/bin/env bash
# End to end: `culprit check --investigate`, from a red check to the commit and the
# function in one command (docs/investigate.md).
#
# A generated repository of 13 commits; the perf test calls level1 -> level2 ->
# level3 -> level4 -> level5, and commit 7 makes level5 (five calls deep) do eight
# times its work. As a CI measuring pushes, only the first and the last commit were
# measured. culprit.json holds "build" (plain -O1), "run" and "calltree_build" (the
# same with -finstrument-functions and the trace runtime).
#  1. a budget too small for the bisection: the test is reported as not investigated
#     with the command to continue, and the exit status is still --fail-on's (1);
#  2. `culprit check --investigate --fail-on minor` exits 1 and names the test,
#     commit 7 and level5 in its text, its JSON, its JUnit failure and the Markdown
#     summary (`culprit report --format markdown`, which reads .culprit/results);
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

repo=$work/repo
mkdir -p "$repo"
cat > "$repo/work.c" <<'CEOF'
/* Five calls deep: the perf test calls level1, which calls level2, ... level5. */
unsigned long level5(unsigned long n)
{
    volatile unsigned long acc = 0;
    for (unsigned r = 0; r < 1; r++) /* repeats */
        for (unsigned long i = 0; i < n; i++)
            acc += i * 2654435761u;
    return acc;
}
__attribute__((noinline)) unsigned long level4(unsigned long n) { return level5(n) + 1; }
__attribute__((noinline)) unsigned long level3(unsigned long n) { return level4(n) + 1; }
__attribute__((noinline)) unsigned long level2(unsigned long n) { return level3(n) + 1; }
__attribute__((noinline)) unsigned long level1(unsigned long n) { return level2(n) + 1; }
CEOF
cat > "$repo/perf_test.c" <<'CEOF'
#include <culprit/culprit.h>
unsigned long level1(unsigned long n);
static void work(void **state)
{
    (void)state;
    assert_true(level1(2000000) > 0);
}
/* One call per sample (no automatic batching): the call trees of two commits then
 * have the same calls, and the diff can descend from main to level5. */
int main(int argc, char **argv)
{
    static const culprit_perf_test tests[] = {
        culprit_perf_test(work, .repetitions = 10, .batch = 1),
    };
    return culprit_run_group_name("invsuite", tests, argc, argv);
}
CEOF
libs=$(pkg-config --libs cmocka libgit2 jansson gsl libxml-2.0)
build="cc -O1 -g -I$include -o perf perf_test.c work.c $lib $libs -lm"
instrumented="cc -O1 -g -finstrument-functions -finstrument-functions-exclude-file-list=include/culprit/,cmocka.h,cmocka_private.h -I$include -o perf perf_test.c work.c $lib $trace $libs -lm -lpthread"
python3 - "$repo/culprit.json" "$build" "$instrumented" <<'PYEOF'
import json, sys
# level5's work is about 0.6 ms before commit 7 and 5 ms after: "fast" ends at 2 ms,
# so the regression is major (a category left needs no noise model of history).
json.dump({"build": sys.argv[2], "run": "./perf --quiet", "calltree_build": sys.argv[3],
           "categories": [{"name": "fast", "below": "2ms"}, {"name": "slow"}],
           "tests": {"invsuite.work": {"category": "fast"}}},
          open(sys.argv[1], "w"), indent=2)
PYEOF
printf '.culprit/\nperf\n' > "$repo/.gitignore"
echo "# investigate" > "$repo/README"
git init -q -b main "$repo"
git -C "$repo" add -A && git -C "$repo" commit -qm "c1: level1..level5"
for i in $(seq 2 13); do
  if [ "$i" = 7 ]; then
    sed -i 's|r < 1; r++) /\* repeats \*/|r < 8; r++) /* repeats */|' "$repo/work.c"
    grep -q 'r < 8; r++' "$repo/work.c" || fail "the slowdown did not apply"
    git -C "$repo" commit -qam "c7: level5 repeats its work"
  else
    echo "line $i" >> "$repo/README"
    git -C "$repo" commit -qam "c$i: README"
  fi
  git -C "$repo" tag "c$i"
done
git -C "$repo" tag c1 "$(git -C "$repo" rev-list --max-parents=0 HEAD)"
culprit_sha=$(git -C "$repo" rev-parse c7)

# The history a CI job measuring pushes has: the first commit and the last.
measure() { # rev runs
  git -C "$repo" checkout -q -f "$1"
  (cd "$repo" && eval "$build") || fail "cannot build $1"
  for _ in $(seq "$2"); do
    (cd "$repo" && CULPRIT_FAIL_ON=none ./perf --quiet > /dev/null 2>&1) || fail "cannot run $1"
  done
}
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

# 1. A budget too small for the bisection: not investigated, with the command to continue.
status=0
check --investigate --investigate-budget 1 > "$work/budget.txt" 2> "$work/budget.err" || status=$?
[ "$status" = 1 ] || fail "the small budget exited $status: $(cat "$work/budget.txt" "$work/budget.err")"
grep -q '^NOT INVESTIGATED invsuite.work — not investigated: the investigation budget (1 s) ran out' \
  "$work/budget.txt" || fail "not reported as not investigated: $(cat "$work/budget.txt")"
grep -q "^  to continue: culprit check --commit $(git -C "$repo" rev-parse --short=12 main) .*--test 'invsuite.work' --investigate --investigate-budget 0" \
  "$work/budget.txt" || fail "no command to continue: $(cat "$work/budget.txt")"
[ ! -e "$repo/.culprit/results/bisect.json" ] || fail "an unfinished investigation wrote bisect.json"

# 2. The whole range: bisected, then the call trees; text, JSON, JUnit, Markdown.
status=0
check --investigate --junit "$work/junit.xml" > "$work/text.txt" 2> "$work/text.err" || status=$?
[ "$status" = 1 ] || fail "check --investigate exited $status: $(cat "$work/text.txt" "$work/text.err")"
line=$(grep -m1 '^INVESTIGATED ' "$work/text.txt") || fail "no answer: $(cat "$work/text.txt" "$work/text.err")"
[[ "$line" == "INVESTIGATED invsuite.work — ${culprit_sha:0:12} \"c7: level5 repeats its work\" — level5() work.c:"* ]] ||
  fail "the answer is: $line ($(cat "$work/text.txt" "$work/text.err"))"
grep -q '^  bisected 12 commits between' "$work/text.txt" || fail "not bisected: $(cat "$work/text.txt")"
grep -q 'investigated: .*level5()' "$work/junit.xml" || fail "the JUnit failure does not name level5"
status=0
check --investigate --json > "$work/check.json" 2> "$work/json.err" || status=$?
[ "$status" = 1 ] || fail "check --investigate --json exited $status: $(cat "$work/json.err")"
python3 - "$work/check.json" "$culprit_sha" <<'PYEOF' || fail "the JSON: $(cat "$work/check.json")"
import json, sys
doc = json.load(open(sys.argv[1]))
inv = doc["investigations"]
assert len(inv) == 1, inv
i = inv[0]
assert i["status"] == "found" and i["tests"] == ["invsuite.work"], i
assert i["culprit"] == sys.argv[2] and i["function"] == "level5" and i["file"] == "work.c", i
assert i["bisected"] is True and i["commits"] == 12 and i["continue"] is None, i
assert doc["exit_code"] == 1
PYEOF
(cd "$repo" && "$culprit" report --format markdown) > "$work/summary.md" ||
  fail "culprit report --format markdown failed"
head -5 "$work/summary.md" | grep -q "invsuite.work.*${culprit_sha:0:12}.*level5" ||
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

unchanged
echo "check --investigate: test, commit and function named (bisected and not), the budget" \
  "respected; $(($(date +%s) - started)) s"
