#!/usr/bin/env bash
# End to end: `culprit bisect --run --test` on a culprit perf test that lives OUTSIDE
# the bisected repository, as when a test is written after a regression was noticed
# (the paper's Commons Math case). The repository holds only the system under test
# (fib.c and its configuration); the test is built against each temporary checkout
# through $CULPRIT_CHECKOUT. The regression at r4 (fib(n+12), about 300x) must be
# found, and the user's repository left unchanged.
# usage: bisect_test.sh CULPRIT LIBCULPRIT INCLUDE_DIR
set -euo pipefail
culprit=$1 lib=$2 include=$3
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
e2e_workdir bisect-test

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
int main(int argc, char **argv)
{
    static const culprit_perf_test tests[] = {
        culprit_perf_test(fib_conf, .setup = read_conf, .repetitions = 10),
    };
    return culprit_run_group_name("fibsuite", tests, argc, argv);
}
CEOF

repo=$work/repo
git init -q "$repo"
echo 'unsigned long fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }' > "$repo/fib.c"
for r in 1 2 3 4 5 6; do
  n=16; [ "$r" -ge 4 ] && n=28
  printf 'n = %s\n' "$n" > "$repo/fib.conf"
  git -C "$repo" add -A
  git -C "$repo" commit -q --allow-empty -m "r$r: n = $n"
  git -C "$repo" tag "r$r"
done
libs=$(pkg-config --libs cmocka libgit2 jansson gsl libxml-2.0)
build="cc -O2 -I'$include' -o fib_test '$work/tests/fib_test.c' fib.c '$lib' $libs -lm"

# A history for --auto: the test measured at r3 (fine: nothing before it) and r6
# (slow), as a CI that ran every few commits would have recorded it (this is our
# fixture repository: checking it out is fine). More runs in a young history could be
# falsely flagged on this noisy machine, and --auto would rightly start from them.
(cd "$repo" && eval "${build/-o fib_test/-o $work/fib_test_hist}") || fail "cannot build the test"
for r in r3 r6; do
  git -C "$repo" checkout -q "$r"
  (cd "$repo" && CULPRIT_HISTORY_DIR="$work/hist" CULPRIT_FAIL_ON=none "$work/fib_test_hist" --quiet >/dev/null 2>&1)
done
git -C "$repo" checkout -q master 2>/dev/null || git -C "$repo" checkout -q main
echo "local change" >> "$repo/fib.c" # dirty: never built, never touched
before=$(cd "$repo" && find . -path ./.git/objects -prune -o -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum)
(cd "$repo" && "$culprit" bisect --good r1 --bad r6 --build "$build" \
    --run './fib_test --quiet' --test fibsuite.fib_conf --json > "$work/out.json" 2> "$work/err.log") ||
  fail "bisect --test exited $?: $(cat "$work/err.log")"
after=$(cd "$repo" && find . -path ./.git/objects -prune -o -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum)
[ "$before" = "$after" ] || fail "the user's repository changed"
got=$(sed -n 's/^  "culprit": "\([0-9a-f]*\)".*/\1/p' "$work/out.json")
[ "$got" = "$(git -C "$repo" rev-parse r4)" ] || fail "named ${got:-nothing}, expected r4: $(cat "$work/out.json")"

# --auto: good and bad from the history: the last fine run (r3), the first flagged (r6).
# The store is named, so the runs the bisection makes are recorded into it.
nhist=$(ls "$work/hist" | grep -c '\.xml$')
(cd "$repo" && "$culprit" bisect --auto --test fibsuite.fib_conf --history "$work/hist" \
    --build "$build" --run './fib_test --quiet' --json > "$work/auto.json" 2> "$work/auto.err") ||
  fail "bisect --auto exited $?: $(cat "$work/auto.err")"
ok=0
for g in r3; do
  grep -q "good $(git -C "$repo" rev-parse --short=12 $g) (last fine), bad $(git -C "$repo" rev-parse --short=12 r6)" \
    "$work/auto.err" && ok=1
done
[ "$ok" = 1 ] || fail "--auto chose other ends: $(cat "$work/auto.err"); $(cd "$repo" && "$culprit" history --test fibsuite.fib_conf --history "$work/hist" 2>&1)"
got=$(sed -n 's/^  "culprit": "\([0-9a-f]*\)".*/\1/p' "$work/auto.json")
[ "$got" = "$(git -C "$repo" rev-parse r4)" ] || fail "--auto named ${got:-nothing}: $(cat "$work/auto.json")"

nrecorded=$(( $(ls "$work/hist" | grep -c '\.xml$') - nhist ))
[ "$nrecorded" -ge 10 ] || fail "--auto recorded $nrecorded runs into the named history"
grep -q "$(git -C "$repo" rev-parse r4)" "$work/hist"/*.xml || fail "no run of r4 recorded"

# History reuse: the same bisection as the first, now with the store --auto filled:
# the runs of r3..r6 measured there (same machine and build) are samples already.
json_int() { sed -n "s/^  \"$1\": \([0-9]*\).*/\1/p" "$2"; }
(cd "$repo" && "$culprit" bisect --good r1 --bad r6 --history "$work/hist" --build "$build" \
    --run './fib_test --quiet' --test fibsuite.fib_conf --json > "$work/again.json" 2> "$work/again.err") ||
  fail "bisect with history exited $?: $(cat "$work/again.err")"
got=$(sed -n 's/^  "culprit": "\([0-9a-f]*\)".*/\1/p' "$work/again.json")
[ "$got" = "$(git -C "$repo" rev-parse r4)" ] || fail "with history: named ${got:-nothing}"
# The first step (r6 against r1) takes r6's runs from history: r6 is never built, and
# the runs the decision needs on that side are not made again (the counts of later,
# adaptive steps depend on the machine's noise; these do not).
step0_reused=$(sed -n 's/^      "reused": \([0-9]*\).*/\1/p' "$work/again.json" | head -1)
[ "${step0_reused:-0}" -ge 5 ] || fail "r6's runs not reused: $(cat "$work/again.json")"
# Runs from history were not made in pairs: that step is judged on the two sides.
step0_paired=$(sed -n 's/^      "paired": \([0-9]*\).*/\1/p' "$work/again.json" | head -1)
[ "$step0_paired" = 0 ] || fail "a step with reused runs judged on pairs: $(cat "$work/again.json")"
[ "$(json_int builds "$work/again.json")" -lt "$(json_int builds "$work/out.json")" ] ||
  fail "reuse saved no builds: $(json_int builds "$work/again.json") vs $(json_int builds "$work/out.json")"
# Another build (other flags) of the same commits: its runs are not the same measurement.
(cd "$repo" && "$culprit" bisect --good r3 --bad r4 --history "$work/hist" \
    --build "$build -DCULPRIT_BUILD_FLAGS='\"-O2 -DOTHER\"'" --run './fib_test --quiet' \
    --test fibsuite.fib_conf --json > "$work/other.json" 2>&1) || fail "bisect, other flags: exited $?"
[ "$(json_int reused "$work/other.json")" -eq 0 ] || fail "runs of another build reused"
# --no-history: neither read nor written.
nhist=$(ls "$work/hist" | grep -c '\.xml$')
(cd "$repo" && CULPRIT_HISTORY_DIR="$work/hist" "$culprit" bisect --good r3 --bad r4 --no-history \
    --build "$build" --run './fib_test --quiet' --test fibsuite.fib_conf --json > "$work/none.json" 2>&1) ||
  fail "bisect --no-history exited $?"
[ "$(json_int reused "$work/none.json")" -eq 0 ] || fail "--no-history reused runs"
[ "$(ls "$work/hist" | grep -c '\.xml$')" -eq "$nhist" ] || fail "--no-history recorded runs"

# --no-history with --history: a usage error, nothing run.
set +e
(cd "$repo" && "$culprit" bisect --good r3 --bad r4 --no-history --history "$work/hist" \
    --build "$build" --run './fib_test --quiet' --test fibsuite.fib_conf > "$work/contra.log" 2>&1)
status=$?
set -e
[ "$status" -eq 2 ] && grep -q "no-history contradicts --history" "$work/contra.log" ||
  fail "--no-history --history: exit $status: $(cat "$work/contra.log")"

# A test name the binary does not have: the ends cannot be measured, exit 2.
set +e
(cd "$repo" && "$culprit" bisect --good r1 --bad r6 --build "$build" --run './fib_test --quiet' \
    --test fibsuite.nope > "$work/bad.log" 2>&1)
status=$?
set -e
[ "$status" -eq 2 ] && grep -q "did not measure test 'fibsuite.nope'" "$work/bad.log" ||
  fail "unknown test: exit $status: $(cat "$work/bad.log")"
echo "e2e bisect --test: the culprit of a test living outside the repository found"
