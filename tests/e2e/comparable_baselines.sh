#!/usr/bin/env bash
# End to end: comparable baselines (docs/detection.md). One perf test, built twice
# from the same source, Release (-O2) and Debug (-O0, and 8x the work, so a
# comparison across the two could not pass unnoticed), both writing into one history:
#   - a Release check after a newer Debug run is judged against the Release run
#     (pinned by its baseline and a change far from Debug's 8x, not by a verdict:
#     this shared machine's timings move by tens of percent);
#   - a run after a kernel update (the older files' kernel rewritten, as an image
#     update leaves them) with --machine set compares as before;
#   - a run of a class with no history compares nothing, and says so in the text,
#     the JSON, the JUnit file (valid against the schema) and the Markdown headline;
#     --fail-on uncompared fails it, --fail-on minor does not;
#   - a run from a dirty tree is marked as such (check, history).
# usage: comparable_baselines.sh CULPRIT LIBCULPRIT INCLUDE_DIR JUNIT_XSD
set -euo pipefail
culprit=$1 lib=$2 include=$3 schema=$4
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
e2e_workdir comparable

repo=$work/repo hist=$work/hist
mkdir -p "$repo"
git init -q "$repo"
cat > "$repo/perf.c" <<'CEOF'
#include <culprit/culprit.h>
#ifdef DEBUG_WORK
#define CALLS 8
#else
#define CALLS 1
#endif
static volatile unsigned long sink;
static void work_200us(void **state)
{
    (void)state;
    for (int c = 0; c < CALLS; c++)
        for (unsigned long i = 0; i < 100000; i++)
            sink += i * i;
    assert_true(sink > 0);
}
int main(int argc, char **argv)
{
    static const culprit_perf_test tests[] = {
        culprit_perf_test(work_200us, .repetitions = 20, .category = "slow"),
    };
    return culprit_run_group_name("suite", tests, argc, argv);
}
CEOF
printf 'perf\nperf-debug\n' > "$repo/.gitignore"
echo one > "$repo/version.txt"
git -C "$repo" add -A && git -C "$repo" commit -q -m c1
libs=$(pkg-config --libs cmocka libgit2 jansson gsl libxml-2.0)
(cd "$repo" &&
  cc -O2 -DCULPRIT_BUILD_FLAGS='"-O2"' -I"$include" -o perf perf.c "$lib" $libs -lm &&
  cc -O0 -DDEBUG_WORK -DCULPRIT_BUILD_FLAGS='"-O0 -g"' -I"$include" -o perf-debug perf.c \
    "$lib" $libs -lm) || fail "cannot build the two builds"
run() { # run BINARY [ENV...]: one run into the history
  (cd "$repo" && env CULPRIT_FAIL_ON=none "${@:2}" "./$1" --history "$hist" > "$work/run.log" 2>&1) ||
    fail "$1 failed: $(cat "$work/run.log")"
}
check() { (cd "$repo" && "$culprit" check --history "$hist" "$@"); }
verdict() { python3 -c "import json,sys; d=json.load(sys.stdin); t=d['tests'][0]; print($1)"; }

# c1: four Release runs (the noise model's minimum), then a Debug run, newer.
for i in 1 2 3 4; do run perf; done
run perf-debug
echo two > "$repo/version.txt"
git -C "$repo" commit -q -am c2
run perf

# Timing on this shared machine moves by tens of percent; Debug against Release is
# 8x. So a comparison is pinned by its baseline and by a change far from -87.5%.
near_release() { verdict "t['compared'] and t['change'] > -0.6"; }

# 1. Release at c2 is judged against Release at c1, past the newer Debug run.
out=$(check --json) || fail "Release check failed: $out"
c1=$(git -C "$repo" rev-parse HEAD~1)
[ "$(verdict "t['baseline'] == '$c1', d['nothing_compared']" <<< "$out")" = "True False" ] ||
  fail "Release vs Release: $(verdict "t['message']" <<< "$out")"
[ "$(near_release <<< "$out")" = True ] ||
  fail "Release compared with Debug: $(verdict "t['message']" <<< "$out")"
# The same check with --allow-mixed takes the newest run (Debug, 8x the work).
out=$(check --allow-mixed --json) || true
[ "$(verdict "t['change'] < -0.6" <<< "$out")" = True ] ||
  fail "--allow-mixed did not compare with the Debug run: $(verdict "t['message']" <<< "$out")"

# 2. A kernel update with --machine set: every run so far gets class ci-runner and
# an older kernel, as the runs before an image update would have it.
for f in "$hist"/*.xml; do
  python3 - "$f" <<'PEOF'
import re, sys
p = sys.argv[1]
s = open(p).read()
s = re.sub(r'(name="culprit.machine" value="[^"]*; \S+ )\S+( \S+")', r'\g<1>0.0.1-old-kernel\2', s)
s = re.sub(r'name="culprit.machine-class" value="[^"]*"', 'name="culprit.machine-class" value="ci-runner"', s)
open(p, "w").write(s)
PEOF
done
grep -q 'old-kernel' "$hist"/*.xml || fail "the kernel was not rewritten"
echo three > "$repo/version.txt"
git -C "$repo" commit -q -am c3
run perf CULPRIT_MACHINE=ci-runner
out=$(check --json) || fail "check after the kernel update failed: $out"
c2=$(git -C "$repo" rev-parse HEAD~1)
[ "$(verdict "t['baseline'] == '$c2'" <<< "$out")" = True ] && [ "$(near_release <<< "$out")" = True ] ||
  fail "after a kernel update with --machine: $(verdict "t['message']" <<< "$out")"

# 3. A run on a class with no history: nothing compared, everywhere.
echo four > "$repo/version.txt"
git -C "$repo" commit -q -am c4
run perf CULPRIT_MACHINE=other-runner
check --fail-on minor > "$work/text.log" || fail "nothing compared failed --fail-on minor"
# (nothing is compared, so the timing noise cannot fail this one)
grep -q "nothing compared (no comparable baseline)" "$work/text.log" ||
  fail "the text summary does not say nothing was compared: $(cat "$work/text.log")"
grep -q "machine differs: 'other-runner' now, 'ci-runner'" "$work/text.log" ||
  fail "the verdict does not say why: $(cat "$work/text.log")"
set +e
check --fail-on uncompared --json --junit "$work/junit.xml" > "$work/json.log"
status=$?
set -e
[ "$status" = 1 ] || fail "--fail-on uncompared exited $status"
[ "$(verdict "t['verdict'], d['nothing_compared'], d['compared']" < "$work/json.log")" = \
  "mixed True 0" ] || fail "JSON: $(cat "$work/json.log")"
grep -q '<skipped message="[^"]*nothing compared' "$work/junit.xml" ||
  fail "the JUnit file does not show the test as not compared: $(cat "$work/junit.xml")"
xmllint --noout --schema "$schema" "$work/junit.xml" || fail "the JUnit file fails the schema"
(cd "$repo" && "$culprit" report --history "$hist" --format markdown > "$work/summary.md") ||
  fail "report --format markdown failed"
head -1 "$work/summary.md" | grep -q "^## culprit: nothing compared" ||
  fail "Markdown headline: $(head -1 "$work/summary.md")"

# 4. A run from a dirty tree is marked in the verdict (text and JSON).
echo changed > "$repo/version.txt"
run perf CULPRIT_MACHINE=ci-runner
out=$(check --commit HEAD --json) || true
[ "$(verdict "t['dirty']" <<< "$out")" = "True" ] || fail "the dirty run is not marked: $out"
check | grep -q "measured on a dirty tree" || fail "the text does not mark the dirty run"
(cd "$repo" && "$culprit" history --history "$hist") | grep -q "(dirty tree, not a baseline) c4" ||
  fail "culprit history does not mark the dirty run"
echo "comparable baselines: Release vs Release, kernel update with --machine, nothing compared, dirty"
