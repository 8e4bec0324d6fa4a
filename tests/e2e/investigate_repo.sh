# The repository of the investigation scenario, shared by tests/e2e/check_investigate.sh
# and tests/bench/bench_investigate.sh (sourced): 13 commits; the perf test calls
# level1 -> level2 -> level3 -> level4 -> level5, and commit 7 makes level5 (five
# calls deep) do eight times its work. culprit.json holds "build" (plain -O1), "run"
# and "calltree_build" (the same with -finstrument-functions and the trace runtime),
# and categories that make the regression major. A second perf test, light (a
# tenth of the work), regresses over the same range.
#   investigate_repo REPO INCLUDE_DIR LIBCULPRIT TRACE_LIB: makes the repository,
#     tags c1..c13, sets $build and $instrumented;
#   measure REV RUNS: checks REV out in REPO (forced), builds it, runs the perf test
#     RUNS times into the default history (.culprit/history).
# The caller defines fail() and git().
investigate_repo() {
  repo=$1
  local include=$2 lib=$3 trace=$4 libs i
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
static void light(void **state) /* a tenth of the work: regressed over the same range */
{
    (void)state;
    assert_true(level1(200000) > 0);
}
/* One call per sample (no automatic batching): the call trees of two commits then
 * have the same calls, and the diff can descend from main to level5. */
int main(int argc, char **argv)
{
    static const culprit_perf_test tests[] = {
        culprit_perf_test(work, .repetitions = 10, .batch = 1),
        culprit_perf_test(light, .repetitions = 10, .batch = 1),
    };
    return culprit_run_group_name("invsuite", tests, argc, argv);
}
CEOF
libs=$(pkg-config --libs cmocka libgit2 jansson gsl libxml-2.0)
build="cc -O1 -g -I$include -o perf perf_test.c work.c $lib $libs -lm"
instrumented="cc -O1 -g -finstrument-functions -finstrument-functions-exclude-file-list=include/culprit/,cmocka.h,cmocka_private.h -I$include -o perf perf_test.c work.c $lib $trace $libs -lm -lpthread"
# The categories follow this machine's speed: level5's loop (a volatile sum) took
# 0.6 ms on one machine and 4 ms on another, where a store does not forward to the
# next load at no cost, and fixed bounds (2 ms) put commit 1 outside its category
# there. So commit 1's perf test is built and run once first: each test's bound is
# 3.3 times its fastest sample then (t before commit 7, 8t after: 2.4 times under
# the bound; the fastest, as a loaded machine slows some samples, not all).
(cd "$repo" && eval "$build" &&
  CULPRIT_FAIL_ON=none ./perf --quiet --no-history --json > "$repo.calibration.json" 2> /dev/null &&
  rm -f perf) || fail "cannot build and run commit 1's perf test"
python3 - "$repo/culprit.json" "$build" "$instrumented" "$repo.calibration.json" <<'PYEOF'
import json, sys
# level5's work is t before commit 7 and 8t after: "fast" ends at 3.3t, so the
# regression is major (a category left needs no noise model of history); the light
# test's, t/10 and 0.8t, leaves "tiny" (below 3.3 t/10).
fastest = {t["name"]: t["min_ns"] for t in json.load(open(sys.argv[4]))["tests"]}
bound = lambda name: "%dus" % (3.3 * fastest[name] / 1000 + 1)
json.dump({"build": sys.argv[2], "run": "./perf --quiet", "calltree_build": sys.argv[3],
           "categories": [{"name": "tiny", "below": bound("light")},
                          {"name": "fast", "below": bound("work")},
                          {"name": "slow"}],
           "tests": {"invsuite.work": {"category": "fast"},
                     "invsuite.light": {"category": "tiny"}}},
          open(sys.argv[1], "w"), indent=2)
PYEOF
rm -f "$repo.calibration.json"
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
}

measure() { # rev runs
  git -C "$repo" checkout -q -f "$1"
  (cd "$repo" && eval "$build") || fail "cannot build $1"
  for _ in $(seq "$2"); do
    (cd "$repo" && CULPRIT_FAIL_ON=none ./perf --quiet > /dev/null 2>&1) || fail "cannot run $1"
  done
}
