#!/usr/bin/env bash
# meson_test.sh: docs/meson.md's recipe as printed (issue 27): the README's tutorial
# built by Meson against the installed prefix, one `meson test` entry per perf test.
#   - the `<!-- recipe: meson -->` block is the project's meson.build, the
#     `meson-steps` block runs as a script (/opt/culprit replaced by the prefix);
#   - meson test --list: one entry per perf test and the list's check;
#   - each perf test's figure is in meson test's output, its run in the history,
#     from a build directory inside the repository and from one outside it;
#   - a broken fib(24) fails fib_perf.fib_24 alone;
#   - a stale list fails the fib_perf.tests entry with the difference, and so does a
#     list written after meson setup, until meson setup --reconfigure.
# Exit 77 (ctest: skipped) when meson or ninja is not installed.
# usage: meson_test.sh SOURCE_DIR PREFIX LIBDIR
set -euo pipefail
src=$1 prefix=$2 libdir=$3

for tool in meson ninja; do
  command -v $tool > /dev/null || { echo "$tool is not installed: skipped"; exit 77; }
done
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d /tmp/culprit-meson-XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT # KEEP=1: kept to look at
export GIT_AUTHOR_NAME=ci GIT_AUTHOR_EMAIL=ci@example.org
export GIT_COMMITTER_NAME=ci GIT_COMMITTER_EMAIL=ci@example.org
export GIT_CONFIG_NOSYSTEM=1 HOME=$work NO_COLOR=1
export PATH=$prefix/bin:$PATH
unset CULPRIT_HISTORY_DIR CULPRIT_JUNIT CULPRIT_COMMIT PKG_CONFIG_PATH

. "$(dirname "$0")/recipes.sh" # block FILE MARKER, section FILE HEADING FENCE
block "$src/docs/meson.md" meson > "$work/meson.build"
block "$src/docs/meson.md" meson-steps | sed "s|/opt/culprit/lib|$prefix/$libdir|g" > "$work/steps.sh"
grep -q "^project(" "$work/meson.build" || fail "docs/meson.md has no 'meson' recipe"
grep -q "meson test" "$work/steps.sh" || fail "docs/meson.md has no 'meson-steps' recipe"

# The project: the README's tutorial around a fib library that FIB_BREAK breaks.
git init -q -b main "$work/project" && cd "$work/project"
section "$src/README.md" "## Five-minute tutorial" '```c' > fib_perf.c
grep -q culprit_run_group fib_perf.c || fail "no C block in the README's tutorial"
echo 'int fib(int n);' > fib.h
cat > fib.c <<'C'
#include <stdlib.h>
#include "fib.h"
int fib(int n)
{
    if (n == 24 && getenv("FIB_BREAK"))
        return 0;
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}
C
mv "$work/meson.build" .
printf 'build/\n.culprit/\n' > .gitignore
git add -A && git commit -q -m "fib and its perf tests"

# The steps as printed.
set +e; bash -eo pipefail "$work/steps.sh" > "$work/steps.log" 2>&1; status=$?; set -e
[ "$status" = 0 ] || fail "the meson-steps recipe exited $status:
$(cat "$work/steps.log")"
[ "$(cat fib_perf.tests)" = "$(printf 'fib_24\nfib_20')" ] || fail "fib_perf.tests: $(cat fib_perf.tests)"

# meson test's results, one line each: NAME RESULT.
results() {
  python3 -c 'import json, sys
for line in open(sys.argv[1]):
    t = json.loads(line); print(t["name"], t["result"])' build/meson-logs/testlog.json | sort
}
expected="fib_perf.fib_20 OK
fib_perf.fib_24 OK
fib_perf.tests OK"
[ "$(results)" = "$expected" ] || fail "meson test: $(results)
$(cat "$work/steps.log")"
# Each figure in meson test's output; the runs in the repository's history.
for t in fib_24 fib_20; do
  grep -q "^\[  PERF  \] $t " "$work/steps.log" || fail "no figure of $t in: $(cat "$work/steps.log")"
done
[ "$(ls .culprit/history/*.xml | wc -l)" = 2 ] || fail "history: $(ls -R .culprit 2>&1)"
# A build directory outside the repository records in the repository's history too.
export PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig
meson setup "$work/outside" > "$work/outside.log" 2>&1 && meson test -C "$work/outside" fib_perf.fib_20 \
  >> "$work/outside.log" 2>&1 || fail "a build outside the repository: $(cat "$work/outside.log")"
[ "$(ls .culprit/history/*.xml | wc -l)" = 3 ] && [ ! -e "$work/outside/.culprit" ] ||
  fail "a build outside the repository recorded elsewhere: $(cat "$work/outside.log")"
listed=$(meson test -C build --list 2>/dev/null | grep -c 'fib_perf\.')
[ "$listed" = 3 ] || fail "meson test --list: $(meson test -C build --list 2>&1)"

# A failing perf test fails its own entry only.
set +e; FIB_BREAK=1 meson test -C build --suite perf > "$work/broken.log" 2>&1; status=$?; set -e
[ "$status" != 0 ] || fail "meson test passed with fib(24) broken"
[ "$(results)" = "fib_perf.fib_20 OK
fib_perf.fib_24 FAIL
fib_perf.tests OK" ] || fail "with fib(24) broken: $(results)
$(cat "$work/broken.log")"

# A stale list (fib_20 left out): the check fails and shows the difference; no entry
# runs fib_20 until the list is rewritten.
printf 'fib_24\n' > fib_perf.tests
set +e; meson test -C build fib_perf.tests > "$work/stale.log" 2>&1; status=$?; set -e
[ "$status" != 0 ] && grep -qx "+fib_20" "$work/stale.log" &&
  grep -qxF "rewrite the list: $PWD/build/fib_perf --list > $PWD/fib_perf.tests (new: then meson setup --reconfigure)" "$work/stale.log" ||
  fail "a stale fib_perf.tests: exit $status, $(cat "$work/stale.log")"
[ "$(meson test -C build --list 2>/dev/null | grep -c 'fib_perf\.fib_')" = 1 ] ||
  fail "the edited list did not reconfigure: $(meson test -C build --list 2>&1)"

# A list written after meson setup (no reconfigure yet): the perf tests have no entry,
# and the check says so rather than passing.
rm fib_perf.tests
meson setup "$work/fresh" > "$work/fresh.log" 2>&1 && meson compile -C "$work/fresh" >> "$work/fresh.log" 2>&1 ||
  fail "meson setup without the list: $(cat "$work/fresh.log")"
"$work/fresh/fib_perf" --list > fib_perf.tests
set +e; meson test -C "$work/fresh" > "$work/fresh.log" 2>&1; status=$?; set -e
[ "$status" != 0 ] && grep -qx "+fib_24" "$work/fresh.log" ||
  fail "the list's first version, not configured yet: exit $status, $(cat "$work/fresh.log")"
echo "meson recipe ok: $(results | tr '\n' ' ')"
