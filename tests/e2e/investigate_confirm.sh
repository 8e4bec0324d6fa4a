#!/usr/bin/env bash
# End to end: `--metric cpu_ns` for a perf test through the runner, `check`, `bisect
# --run --test` and `check --investigate`, and `--investigate` confirming by itself.
#  - r4 makes fib_conf far slower (fib(16) -> fib(28), about 300x): the runner judges
#    the test's CPU time under --metric cpu_ns; check --metric cpu_ns flags r6 against
#    r3; bisect --run --test --metric cpu_ns names r4, the series in its document.
#  - a second repository where r4 makes it 1.6x slower (fib(22) -> fib(23)), one
#    earlier run (r1) in history: an unconfirmed minor at r6 (or, once a pooled prior
#    confirms it, a confirmed one). check --investigate --metric cpu_ns --fail-on minor
#    --build --run confirms an unconfirmed minor by paired runs first (it says so),
#    then bisects it: names r4, exit 1.
#  - a third, 11x at r4 (fib(18) -> fib(23)), one earlier run: check --investigate
#    --fail-on minor --build --run names r4 and exits 1 (the function needs an
#    instrumented build, which this test does not make).
# Two parts, two ctest tests: "cpu" (the first repository: 300x judged by CPU time,
# not a timing test) and "investigate" (the second and third: a 1.6x and a wall-time
# 11x, timing tests); no part given: both.
# usage: investigate_confirm.sh CULPRIT LIBCULPRIT INCLUDE_DIR [cpu|investigate]
set -euo pipefail
culprit=$1 lib=$2 include=$3 part=${4:-all}
case $part in cpu | investigate | all) ;; *)
  echo "usage: investigate_confirm.sh CULPRIT LIBCULPRIT INCLUDE_DIR [cpu|investigate]" >&2; exit 2 ;;
esac
in_part() { [ "$part" = all ] || [ "$part" = "$1" ]; }
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
e2e_workdir investigate-confirm

mkdir "$work/tests"
cat > "$work/tests/fib_test.c" <<'CEOF'
#include <culprit/culprit.h>
#include <stdio.h>
unsigned long fib(unsigned n);
static unsigned n;
static int read_conf(void **state)
{
    FILE *f = fopen("fib.conf", "r"); /* the checkout's: the working directory */
    (void)state;
    if (!f || fscanf(f, "n = %u", &n) != 1)
        return -1;
    fclose(f);
    return 0;
}
static void fib_conf(void **state)
{
    (void)state;
    assert_true(fib(n) > 0);
}
static void small(void **state)
{
    (void)state;
    assert_true(fib(10) == 55);
}
int main(int argc, char **argv)
{
    static const culprit_perf_test tests[] = {
        culprit_perf_test(fib_conf, .setup = read_conf, .repetitions = 20),
        culprit_perf_test(small, .repetitions = 20),
    };
    return culprit_run_group_name("fibsuite", tests, argc, argv);
}
CEOF
libs=$(pkg-config --libs cmocka libgit2 jansson gsl libxml-2.0)
build="cc -O2 -I'$include' -o fib_test '$work/tests/fib_test.c' fib.c '$lib' $libs -lm"

# make_repo DIR FAST SLOW: r1..r6, fib.conf n = FAST before r4, SLOW from r4 on.
make_repo() {
  git init -q "$1"
  echo 'unsigned long fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }' > "$1/fib.c"
  for r in 1 2 3 4 5 6; do
    n=$2; [ "$r" -ge 4 ] && n=$3
    printf 'n = %s\n' "$n" > "$1/fib.conf"
    git -C "$1" add -A
    git -C "$1" commit -q --allow-empty -m "r$r: n = $n"
    git -C "$1" tag "r$r"
  done
  (cd "$1" && eval "${build/-o fib_test/-o $1.bin}") || fail "cannot build the test"
}
# record DIR HIST REV...: one run of the test binary per commit into HIST.
record() {
  local dir=$1 hist=$2
  shift 2
  for r in "$@"; do
    git -C "$dir" checkout -q "$r"
    (cd "$dir" && CULPRIT_HISTORY_DIR="$hist" CULPRIT_FAIL_ON=none "$dir.bin" --quiet > /dev/null 2>&1)
  done
  git -C "$dir" checkout -q r6
}
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

if in_part cpu; then # ---- --metric cpu_ns, 300x at r4 ----
repo=$work/a
make_repo "$repo" 16 28
(cd "$repo" && "$repo.bin" --metric cpu_ns --no-history --json > "$work/runner.json" 2> /dev/null) ||
  fail "the runner under --metric cpu_ns exited $?"
[ "$(field "$work/runner.json" "d['tests'][0]['metric']")" = cpu_ns ] ||
  fail "the runner did not judge cpu_ns: $(cat "$work/runner.json")"
record "$repo" "$work/hist-a" r3 r6
status=0
(cd "$repo" && "$culprit" check --history "$work/hist-a" --commit r6 --metric cpu_ns \
  --test fibsuite.fib_conf --json > "$work/check-a.json" 2> "$work/check-a.err") || status=$?
case "$(field "$work/check-a.json" "d['tests'][0]['verdict']")" in
  major | minor) ;;
  *) fail "check --metric cpu_ns did not flag r6: $(cat "$work/check-a.json")" ;;
esac
(cd "$repo" && "$culprit" bisect --good r1 --bad r6 --build "$build" --run './fib_test --quiet' \
  --test fibsuite.fib_conf --metric cpu_ns --json > "$work/bisect-a.json" 2> "$work/bisect-a.err") ||
  fail "bisect --run --test --metric cpu_ns exited $?: $(cat "$work/bisect-a.err")"
[ "$(field "$work/bisect-a.json" "d['culprit']")" = "$(git -C "$repo" rev-parse r4)" ] ||
  fail "bisect --metric cpu_ns did not name r4: $(cat "$work/bisect-a.json")"
[ "$(field "$work/bisect-a.json" "d.get('metric')")" = cpu_ns ] ||
  fail "the bisection's document does not say cpu_ns: $(cat "$work/bisect-a.json")"
echo "--metric cpu_ns through runner, check and bisect"
fi

in_part investigate || exit 0
# ---- --investigate confirms an unconfirmed minor, 1.6x at r4 ----
repo=$work/b
make_repo "$repo" 22 23
record "$repo" "$work/hist-b" r1 r6
check_b() {
  (cd "$repo" && "$culprit" check --history "$work/hist-b" --commit r6 --metric cpu_ns \
    --fail-on minor --test fibsuite.fib_conf "$@")
}
status=0
check_b --json > "$work/plain.json" 2> "$work/plain.err" || status=$?
evidence=$(field "$work/plain.json" "d['tests'][0]['evidence']")
verdict=$(field "$work/plain.json" "d['tests'][0]['verdict']")
[ "$verdict" = minor ] || [ "$verdict" = major ] ||
  fail "r6 not flagged against r1: $(cat "$work/plain.json")"
status=0
check_b --investigate --investigate-budget 20m --build "$build" --run './fib_test --quiet' \
  --results "$work/results" > "$work/inv.out" 2> "$work/inv.err" || status=$?
[ "$status" = 1 ] || fail "check --investigate exited $status: $(cat "$work/inv.out" "$work/inv.err")"
if [ "$evidence" = unconfirmed ]; then
  grep -q "confirming fibsuite.fib_conf: paired runs of" "$work/inv.err" &&
    grep -q "confirmed: investigating it" "$work/inv.err" ||
    fail "the unconfirmed minor was not confirmed by pairs: $(cat "$work/inv.err")"
fi
grep -q "INVESTIGATED.*$(git -C "$repo" rev-parse --short=12 r4)" "$work/inv.out" ||
  fail "--investigate did not name r4: $(cat "$work/inv.out" "$work/inv.err")"

# ---- a fresh history, one earlier run, 10x at r4 (fib(18) -> fib(23), 11x): named, exit 1 ----
repo=$work/c
make_repo "$repo" 18 23
record "$repo" "$work/hist-c" r1 r6
status=0
(cd "$repo" && "$culprit" check --history "$work/hist-c" --commit r6 --fail-on minor \
  --test fibsuite.fib_conf --investigate --build "$build" --run './fib_test --quiet' \
  --results "$work/results-c" > "$work/ten.out" 2> "$work/ten.err") || status=$?
[ "$status" = 1 ] || fail "10x: check --investigate exited $status: $(cat "$work/ten.out" "$work/ten.err")"
grep -q "INVESTIGATED.*$(git -C "$repo" rev-parse --short=12 r4)" "$work/ten.out" ||
  fail "10x: --investigate did not name r4: $(cat "$work/ten.out" "$work/ten.err")"
echo "--investigate confirmed ($evidence) and named r4; 10x named"
