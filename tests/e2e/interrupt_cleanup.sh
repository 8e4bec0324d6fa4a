#!/usr/bin/env bash
# End to end: SIGINT and SIGTERM of `culprit bisect --run --test` at any moment (while
# it builds, while the test binary measures, in between) leave no temporary entry
# behind (docs/bisect.md, "Temporary files"). Before, 8 of 10 interruptions left
# culprit-bisect-run-* directories, the test binary's culprit-result-* files or the
# compiler's files in $TMPDIR, which nothing removed.
#
# Each of 5 SIGINTs and 5 SIGTERMs interrupts a bisection in a private $TMPDIR at
# another moment; culprit must die of the signal (130, 143), end its build or run
# (nothing of it left running) and leave $TMPDIR empty. After a SIGKILL, the next
# culprit removes the killed one's temporary directory, not a live culprit's.
# usage: interrupt_cleanup.sh CULPRIT LIBCULPRIT INCLUDE_DIR
set -euo pipefail
culprit=$1 lib=$2 include=$3
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
e2e_workdir interrupt
started=$(date +%s)

# A perf test that takes a while (sleeps, so the load of the machine does not
# matter) and a repository of four commits to bisect with it.
mkdir "$work/tests"
cat > "$work/tests/slow_test.c" <<'CEOF'
#include <culprit/culprit.h>
#include <time.h>
static void slow(void **state)
{
    struct timespec t = {0, 20 * 1000 * 1000};
    (void)state;
    nanosleep(&t, NULL);
}
int main(int argc, char **argv)
{
    static const culprit_perf_test tests[] = {culprit_perf_test(slow, .repetitions = 50)};
    return culprit_run_group_name("slowsuite", tests, argc, argv);
}
CEOF
repo=$work/repo
git init -q "$repo"
for r in 1 2 3 4; do
  echo "$r" > "$repo/version"
  git -C "$repo" add -A
  git -C "$repo" commit -q -m "r$r"
  git -C "$repo" tag "r$r"
done
libs=$(pkg-config --libs cmocka libgit2 jansson gsl libxml-2.0)
# The build compiles for real (the compiler's temporary files go to $TMPDIR), after
# leaving a mark that it started; to interrupt the runs, a quick build copies the
# test binary built once here.
compile="touch '$work/built'; cc -O2 -I'$include' -o slow_test '$work/tests/slow_test.c' '$lib' $libs -lm"
(cd "$work" && eval "${compile/-o slow_test/-o $work/slow_test}") || fail "cannot build the test"
copy="cp '$work/slow_test' slow_test"

tmp=$work/tmp
mkdir "$tmp"
export TMPDIR=$tmp

# interrupt SIGNAL BUILD WAIT-FOR DELAY: starts a bisection with the build command
# BUILD, waits until WAIT-FOR holds, then DELAY seconds, sends SIGNAL; checks the
# status, the processes and $TMPDIR.
interrupt() {
  local sig=$1 build=$2 wait_for=$3 delay=$4 pid status want
  rm -f "$work/built"
  (cd "$repo" && exec "$culprit" bisect --good r1 --bad r4 --build "$build" \
      --run './slow_test --quiet' --test slowsuite.slow > /dev/null 2> "$work/err.log") &
  pid=$!
  for _ in $(seq 1 300); do eval "$wait_for" && break; sleep 0.02; done
  eval "$wait_for" || fail "$sig after '$wait_for': never happened ($(cat "$work/err.log"))"
  sleep "$delay"
  kill "-$sig" "$pid"
  status=0
  wait "$pid" || status=$?
  want=$((128 + $(kill -l "$sig")))
  [ "$status" -eq "$want" ] || fail "$sig after '$wait_for' +$delay s: exit $status, not $want: $(cat "$work/err.log")"
  ! pgrep -f "$work/repo|slow_test --quiet|slow_test\.c" > /dev/null ||
    fail "$sig after '$wait_for' +$delay s left running: $(pgrep -af "slow_test")"
  [ -z "$(ls -A "$tmp")" ] ||
    fail "$sig after '$wait_for' +$delay s left in \$TMPDIR: $(cd "$tmp" && find . | head -20)"
}
building='[ -e "$work/built" ]'
measuring='[ -n "$(find "$tmp" -name "*bisect-run*" -print -quit 2>/dev/null)" ]'
for sig in INT TERM; do
  interrupt "$sig" "$compile" "$building" 0.05 # the compiler at work
  interrupt "$sig" "$compile" "$building" 0.3  # compiling or linking
  interrupt "$sig" "$copy" "$measuring" 0      # the test binary starting
  interrupt "$sig" "$copy" "$measuring" 0.15   # the test binary measuring, its result open
  interrupt "$sig" "$copy" "$measuring" 0.6    # a later run, or between runs
done

# SIGKILL: no handler runs, the directory stays; the next culprit that makes a
# temporary entry removes it, while a live culprit's directory is left alone.
quick() { # a culprit that makes its checkouts and stops at the failing build
  (cd "$repo" && "$culprit" bisect --good r1 --bad r4 --build false --command true \
      > /dev/null 2>&1) || true
}
(cd "$repo" && exec "$culprit" bisect --good r1 --bad r4 --build "sleep 30" \
    --command true > /dev/null 2>&1) &
live=$!
for _ in $(seq 1 300); do [ -n "$(ls -A "$tmp")" ] && break; sleep 0.02; done
(cd "$repo" && exec "$culprit" bisect --good r1 --bad r4 --build "$copy" \
    --run './slow_test --quiet' --test slowsuite.slow > /dev/null 2>&1) &
pid=$!
for _ in $(seq 1 300); do eval "$measuring" && break; sleep 0.02; done
kill -KILL "$pid"
{ wait "$pid"; } 2> /dev/null || true
# (its run goes on in a group of its own until it ends: wait for it)
for _ in $(seq 1 500); do pgrep -f "slow_test --quiet" > /dev/null || break; sleep 0.02; done
[ "$(ls "$tmp" | wc -l)" -eq 2 ] || fail "after SIGKILL: $(ls "$tmp")"
quick
[ "$(ls "$tmp" | wc -l)" -eq 1 ] || fail "the next culprit did not remove the killed one's: $(ls "$tmp")"
kill -0 "$live" || fail "the live culprit ended"
[ -n "$(find "$tmp" -path '*/culprit-*/checkout-*' -prune -print)" ] ||
  fail "the live culprit's checkouts were removed: $(cd "$tmp" && find . | head)"
kill -TERM "$live"
wait "$live" || true
[ -z "$(ls -A "$tmp")" ] || fail "left in \$TMPDIR: $(ls -A "$tmp")"

echo "interrupt cleanup: 5 SIGINT and 5 SIGTERM left nothing; after SIGKILL the next" \
  "culprit removed what was left, and not a live culprit's; $(($(date +%s) - started)) s"
