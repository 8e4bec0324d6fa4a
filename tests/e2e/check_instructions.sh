#!/usr/bin/env bash
# End to end: instruction counts judged deterministically. A perf test of about a
# millisecond is recorded at three commits with --metric instructions (the runner
# counts its body under Valgrind's callgrind): r2 changes only a comment (A/A), r3
# does 3% more work, a change this shared machine's time cannot tell from noise in
# one run. `culprit check --metric instructions` must call r2 unchanged and r3 a minor
# regression with evidence "deterministic", and exit 1 on it with --fail-on minor.
# Skipped (exit 77) without valgrind.
# usage: check_instructions.sh CULPRIT LIBCULPRIT INCLUDE_DIR
set -euo pipefail
culprit=$1 lib=$2 include=$3
command -v valgrind > /dev/null || { echo "valgrind not installed: skipped"; exit 77; }
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
e2e_workdir check-instructions

repo=$work/repo
mkdir -p "$repo"
git init -q "$repo"
# work.c: the system under test; perf.c: its perf test.
cat > "$repo/perf.c" <<'CEOF'
#include <culprit/culprit.h>
unsigned long work(void);
static void work_1ms(void **state)
{
    (void)state;
    assert_true(work() > 0);
}
int main(int argc, char **argv)
{
    static const culprit_perf_test tests[] = {
        culprit_perf_test(work_1ms, .repetitions = 5, .category = "slow"),
    };
    return culprit_run_group_name("suite", tests, argc, argv);
}
CEOF
commit() { # commit MESSAGE ITERATIONS COMMENT
  printf '/* %s */\nstatic volatile unsigned long sink;\nunsigned long work(void)\n{\n    for (unsigned long i = 0; i < %s; i++)\n        sink += i * i;\n    return sink + 1;\n}\n' \
    "$3" "$2" > "$repo/work.c"
  git -C "$repo" add -A && git -C "$repo" commit -q -m "$1" && git -C "$repo" tag "$1"
}
commit r1 300000 "the work"
commit r2 300000 "the work, described better"
commit r3 309000 "the work"
libs=$(pkg-config --libs cmocka libgit2 jansson gsl libxml-2.0)
for r in r1 r2 r3; do
  git -C "$repo" checkout -q "$r"
  (cd "$repo" && cc -O1 -I"$include" -o perf perf.c work.c "$lib" $libs -lm) ||
    fail "cannot build $r"
  (cd "$repo" && CULPRIT_FAIL_ON=none ./perf --metric instructions --history "$work/hist" \
    > "$work/$r.log" 2>&1) || fail "the counted run at $r failed: $(cat "$work/$r.log")"
done

field() { python3 -c "import json,sys; t=json.load(open(sys.argv[1]))['tests'][0]; print(($2,))" "$1"; }
judge() { # judge REV: check's JSON into $work/REV.json, its exit code echoed
  local status=0
  (cd "$repo" && "$culprit" check --commit "$1" --history "$work/hist" --metric instructions \
    --fail-on minor --json > "$work/$1.json" 2> "$work/$1.err") || status=$?
  echo "$status"
}
[ "$(judge r2)" = 0 ] || fail "the A/A commit failed the check: $(cat "$work/r2.err")"
[ "$(field "$work/r2.json" "t['verdict'], t['evidence']")" = "('unchanged', 'deterministic')" ] ||
  fail "r2: $(field "$work/r2.json" "t['message']")"
[ "$(judge r3)" = 1 ] || fail "the +3% commit did not fail the check: $(cat "$work/r3.err")"
[ "$(field "$work/r3.json" "t['verdict'], t['evidence']")" = "('minor', 'deterministic')" ] ||
  fail "r3: $(field "$work/r3.json" "t['message']")"
python3 -c "import json,sys; t=json.load(open(sys.argv[1]))['tests'][0]; \
  assert 0.02 < t['change'] < 0.04, t['change']" "$work/r3.json" ||
  fail "r3's change is not about +3%"
echo "check --metric instructions: A/A unchanged, +3% a deterministic minor regression"
