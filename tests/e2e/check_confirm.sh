#!/usr/bin/env bash
# End to end: `culprit check --confirm --build CMD --run CMD` confirms a flagged test
# with paired runs of its baseline commit and the commit judged, built in temporary
# checkouts, and leaves the user's repository as it was.
#  - r3 does three times the work of r1 (a planted 3x slowdown): flagged from one run
#    each, unconfirmed (a young history), then confirmed by the pairs: exit 1 with
#    --fail-on minor, evidence "paired", slower.
#  - r2's recorded run was slowed from outside the code (FIB_EXTRA, as a busy moment
#    of a shared runner would): flagged against r1, and the pairs of r1 and r2 (the
#    same code) do not confirm it: unchanged (or, on a very noisy machine, still
#    unknown), exit 0.
#  - the pairs run the flagged test alone ($CULPRIT_FILTER): the binary's other test
#    never runs in a confirmation, not even in the warm-up runs (the name is known from
#    history), in the binary's own process ($CULPRIT_NO_FORK=1), its scratch history
#    written without fsync ($CULPRIT_HISTORY_SYNC=0);
#    each pair is told ("pair k of N"), the rule judged by is stated (CPU time when a
#    run was preempted, else time), and a budget too short for one pair keeps the
#    verdict and says why; each run asks the binary for at most 30 samples
#    ($CULPRIT_MAX_REPETITIONS); two tests confirmed against one baseline build
#    each end once.
# usage: check_confirm.sh CULPRIT LIBCULPRIT INCLUDE_DIR
set -euo pipefail
culprit=$1 lib=$2 include=$3
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
e2e_workdir check-confirm

mkdir "$work/tests"
cat > "$work/tests/fib_test.c" <<'CEOF'
#include <culprit/culprit.h>
#include <stdio.h>
#include <stdlib.h>
unsigned long fib(unsigned n);
static unsigned n, times;
static int read_conf(void **state)
{
    FILE *f = fopen("fib.conf", "r"); /* the checkout's: the working directory */
    const char *extra = getenv("FIB_EXTRA");
    (void)state;
    if (!f || fscanf(f, "n = %u times = %u", &n, &times) != 2)
        return -1;
    fclose(f);
    times *= extra ? (unsigned)atoi(extra) : 1;
    return 0;
}
static void fib_conf(void **state)
{
    unsigned long sum = 0;
    (void)state;
    for (unsigned i = 0; i < times; i++)
        sum += fib(n);
    assert_true(sum > 0);
}
/* Another test of the binary: its setup notes each run in $OTHER_LOG. */
static int note_run(void **state)
{
    const char *log = getenv("OTHER_LOG");
    FILE *f = log ? fopen(log, "a") : NULL;
    (void)state;
    if (f) {
        fputs("ran\n", f);
        fclose(f);
    }
    return 0;
}
static void other(void **state)
{
    (void)state;
    assert_true(fib(5) == 5);
}
int main(int argc, char **argv)
{
    static const culprit_perf_test tests[] = {
        culprit_perf_test(fib_conf, .setup = read_conf, .repetitions = 10, .category = "slow"),
        culprit_perf_test(other, .setup = note_run, .repetitions = 10),
    };
    return culprit_run_group_name("fibsuite", tests, argc, argv);
}
CEOF

repo=$work/repo
git init -q "$repo"
echo 'unsigned long fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }' > "$repo/fib.c"
for r in 1 2 3; do
  t=1; [ "$r" = 3 ] && t=3
  printf 'n = 22 times = %s\n' "$t" > "$repo/fib.conf"
  git -C "$repo" add -A
  git -C "$repo" commit -q --allow-empty -m "r$r: times = $t"
  git -C "$repo" tag "r$r"
done
libs=$(pkg-config --libs cmocka libgit2 jansson gsl libxml-2.0)
build="cc -O2 -I'$include' -o fib_test '$work/tests/fib_test.c' fib.c '$lib' $libs -lm"

# The history a CI job would have: one run per commit, r2's on a "busy" moment.
(cd "$repo" && eval "${build/-o fib_test/-o $work/fib_test_hist}") || fail "cannot build the test"
for r in r1 r2 r3; do
  git -C "$repo" checkout -q "$r"
  extra=1; [ "$r" = r2 ] && extra=3
  (cd "$repo" && FIB_EXTRA=$extra CULPRIT_HISTORY_DIR="$work/hist" CULPRIT_FAIL_ON=none \
    "$work/fib_test_hist" --quiet > /dev/null 2>&1)
done
git -C "$repo" checkout -q r3
echo "local change" >> "$repo/fib.c" # dirty: never built, never touched
before=$(cd "$repo" && git status --porcelain && git rev-parse HEAD &&
  find . -path ./.git/objects -prune -o -type f -print0 | sort -z | xargs -0 sha256sum)

check() {
  (cd "$repo" && "$culprit" check --history "$work/hist" --fail-on minor --json \
    --test fibsuite.fib_conf "$@")
}
export OTHER_LOG=$work/other.log
field() { python3 -c "import json,sys; t=json.load(open(sys.argv[1]))['tests'][0]; print(($2,))" "$1"; }

# Without --confirm: flagged, but unconfirmed (one earlier run): exit 0.
status=0; check --commit r3 --baseline r1 > "$work/plain.json" 2> "$work/plain.err" || status=$?
[ "$status" = 0 ] || fail "unconfirmed minor exited $status: $(cat "$work/plain.err")"
[ "$(field "$work/plain.json" "t['verdict'], t['evidence']")" = "('minor', 'unconfirmed')" ] ||
  fail "r3 without --confirm: $(field "$work/plain.json" "t['message']")"

# The planted 3x slowdown, confirmed by pairs; each run asks the binary for at most
# 30 samples per test ($CULPRIT_MAX_REPETITIONS: a pair needs a floor, not the
# adaptive stop's hundreds).
rm -f "$OTHER_LOG"
export ASKED_LOG=$work/asked.log
status=0
check --commit r3 --baseline r1 --confirm --build "$build" --min-runs 4 --max-runs 10 \
  --run 'echo "${CULPRIT_MAX_REPETITIONS:-unset} ${CULPRIT_HISTORY_SYNC:-unset} ${CULPRIT_NO_FORK:-unset}" >> "$ASKED_LOG"
         ./fib_test --quiet' \
  > "$work/r3.json" 2> "$work/r3.err" || status=$?
[ "$status" = 1 ] || fail "r3 --confirm exited $status: $(cat "$work/r3.err")"
[ "$(field "$work/r3.json" "t['verdict'], t['evidence'], t['paired']['slower']")" = \
  "('minor', 'paired', True)" ] || fail "r3 --confirm: $(field "$work/r3.json" "t['message']")"
grep -q "confirmed by" "$work/r3.json" || fail "the message does not say it was confirmed"
[ "$(sort -u "$ASKED_LOG")" = "30 0 1" ] ||
  fail "the runs did not ask for at most 30 samples, no fsync, no fork: $(sort | uniq -c < "$ASKED_LOG")"
ran_other=0
[ ! -f "$OTHER_LOG" ] || ran_other=$(wc -l < "$OTHER_LOG")
[ "$ran_other" = 0 ] || fail "the confirmation ran the binary's other test $ran_other times"
grep -q "confirming fibsuite.fib_conf: pair 2 of 10" "$work/r3.err" ||
  fail "no progress per pair: $(cat "$work/r3.err")"
grep -Eq "slower after [0-9]+ pairs.*judged on (CPU time|time)" "$work/r3.err" ||
  fail "the rule is not stated: $(cat "$work/r3.err")"
case "$(field "$work/r3.json" "t['paired']['judged']")" in
  "('cpu_ns',)" | "('time',)") ;;
  *) fail "the JSON does not state the rule: $(cat "$work/r3.json")" ;;
esac

# A budget too short for one pair: the verdict is kept, and the output says why.
status=0
check --commit r3 --baseline r1 --confirm --confirm-budget 0.001 --build "$build" \
  --run './fib_test --quiet' > "$work/short.json" 2> "$work/short.err" || status=$?
[ "$status" = 0 ] || fail "a spent budget exited $status: $(cat "$work/short.err")"
grep -q "ran out before the first pair; keeping the verdict" "$work/short.err" ||
  fail "a spent budget: $(cat "$work/short.err")"
[ "$(field "$work/short.json" "t['verdict'], t['evidence']")" = "('minor', 'unconfirmed')" ] ||
  fail "a spent budget changed the verdict: $(field "$work/short.json" "t['message']")"

# The slow moment at r2: flagged from history, refuted by the pairs of identical code.
status=0
check --commit r2 --confirm --build "$build" --run './fib_test --quiet' --min-runs 6 \
  --max-runs 24 > "$work/r2.json" 2> "$work/r2.err" || status=$?
[ "$status" = 0 ] || fail "r2 --confirm exited $status: $(cat "$work/r2.err")"
# Not slower (unchanged), or on a very noisy machine still unknown after the pairs:
# either way not confirmed, and nothing fails.
case "$(field "$work/r2.json" "t['verdict'], t['evidence'], t['paired']['slower']")" in
  "('unchanged', 'paired', False)" | "('minor', 'paired', None)") ;;
  *) fail "r2 --confirm: $(field "$work/r2.json" "t['message']")" ;;
esac

# Two tests of the binary confirmed against one baseline (fib_conf flagged, other
# paired as a young history's unchanged test): each end is built once, not per test.
export BUILD_LOG=$work/builds.log
status=0
(cd "$repo" && "$culprit" check --history "$work/hist" --json --commit r3 --baseline r1 \
  --confirm --build "echo built >> \"\$BUILD_LOG\"; $build" --run './fib_test --quiet' \
  --min-runs 4 --max-runs 4) > "$work/both.json" 2> "$work/both.err" || status=$?
[ "$(grep -c "confirming fibsuite.*: paired runs" "$work/both.err")" = 2 ] ||
  fail "two tests were not both confirmed: $(cat "$work/both.err")"
[ "$(wc -l < "$BUILD_LOG")" = 2 ] ||
  fail "two tests' confirmations built $(wc -l < "$BUILD_LOG") times, not once per end"

after=$(cd "$repo" && git status --porcelain && git rev-parse HEAD &&
  find . -path ./.git/objects -prune -o -type f -print0 | sort -z | xargs -0 sha256sum)
[ "$before" = "$after" ] || fail "the user's repository changed"
echo "check --confirm: r3 confirmed slower by pairs, r2's slow run refuted, repository untouched"
