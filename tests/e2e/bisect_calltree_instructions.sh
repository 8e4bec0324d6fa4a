#!/usr/bin/env bash
# End to end: a bisection judged by instructions records instruction call trees by
# default (`bisect --metric instructions --calltree`: under callgrind, on the
# bisection's own builds, no instrumented build). A perf test outside the repository
# calls parse(), which calls scan(); r3 makes scan() loop 6x more. The culprit must be
# r3 and its call tree's suspect 1 scan, marked changed.
# Skipped (exit 77) without valgrind.
# usage: bisect_calltree_instructions.sh CULPRIT LIBCULPRIT INCLUDE_DIR
set -euo pipefail
culprit=$1 lib=$2 include=$3
command -v valgrind > /dev/null || { echo "valgrind not installed: skipped"; exit 77; }
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
e2e_workdir bisect-calltree-instructions

mkdir "$work/tests"
cat > "$work/tests/perf.c" <<'CEOF'
#include <culprit/culprit.h>
unsigned long parse(int n);
static void parse_2k(void **state)
{
    (void)state;
    assert_true(parse(2000) > 0);
}
int main(int argc, char **argv)
{
    static const culprit_perf_test tests[] = {
        culprit_perf_test(parse_2k, .repetitions = 3),
    };
    return culprit_run_group_name("suite", tests, argc, argv);
}
CEOF
repo=$work/repo
git init -q "$repo"
for r in 1 2 3; do
  k=1; [ "$r" -ge 3 ] && k=6
  cat > "$repo/work.c" <<CEOF
/* r$r */
static volatile unsigned long sink;

__attribute__((noinline)) static void scan(int n)
{
    for (int i = 0; i < n * $k; i++)
        sink += (unsigned long)i;
}

unsigned long parse(int n)
{
    for (int i = 0; i < n; i++)
        sink ^= (unsigned long)i * 7u;
    scan(n);
    return sink + 1;
}
CEOF
  git -C "$repo" add -A
  git -C "$repo" commit -q -m "r$r"
  git -C "$repo" tag "r$r"
done
libs=$(pkg-config --libs cmocka libgit2 jansson gsl libxml-2.0)
build="cc -O1 -g -I'$include' -o perf '$work/tests/perf.c' work.c '$lib' $libs -lm"
(cd "$repo" && "$culprit" bisect --good r1 --bad r3 --build "$build" --metric instructions \
    --calltree --run './perf --quiet' --test suite.parse_2k --no-history --json \
    > "$work/out.json" 2> "$work/err.log") ||
  fail "bisect exited $?: $(cat "$work/err.log")"
got=$(jq -r '.culprit' "$work/out.json")
[ "$got" = "$(git -C "$repo" rev-parse r3)" ] || fail "named ${got:-nothing}, expected r3: $(cat "$work/out.json")"
jq -e '.calltree.error == null' "$work/out.json" > /dev/null ||
  fail "call trees failed: $(jq -c '.calltree' "$work/out.json")"
first=$(jq -r '.calltree.suspects[0].path[-1].function' "$work/out.json")
[ "$first" = scan ] || fail "suspect 1 is '$first', not scan: $(jq -c '.calltree' "$work/out.json")"
jq -e '.calltree.suspects[0].changed == true' "$work/out.json" > /dev/null ||
  fail "scan not marked changed: $(jq -c '.calltree.suspects[0]' "$work/out.json")"
echo "PASS: bisect --metric instructions --calltree named r3 and scan (changed)"
