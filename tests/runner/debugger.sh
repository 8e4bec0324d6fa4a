#!/usr/bin/env bash
# A perf test under gdb -batch with a breakpoint in the code under test (the test
# body busy_fast of runner_sample): the runner sees the debugger (TracerPid), runs
# the test in its own process, once, says so on stderr, and the breakpoint is hit
# exactly once. Without the debugger-friendly mode the body runs in a forked child
# (gdb detaches, the breakpoint never hits) and 30 times.
# Usage: debugger.sh RUNNER_SAMPLE. Exit 77 (skipped) without gdb.
set -euo pipefail
sample=$1
command -v gdb >/dev/null || { echo "gdb not found: skipped (install gdb)"; exit 77; }
# LeakSanitizer cannot run under ptrace ("does not work under ptrace (strace, gdb,
# etc)") and fails the process at exit: leaks are checked by the other tests.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

out=$(CULPRIT_HISTORY_DIR="$work/history" gdb -nx -batch \
  -ex 'set debuginfod enabled off' -ex 'break busy_fast' -ex run -ex continue \
  -ex 'info breakpoints' --args "$sample" --filter busy_fast 2>&1)
echo "$out"
fail() { echo "FAILED: $*" >&2; exit 1; }
grep -q '^Breakpoint 1, busy_fast' <<<"$out" || fail "the breakpoint in busy_fast was not hit"
grep -q 'breakpoint already hit 1 time$' <<<"$out" || fail "the body did not run exactly once"
grep -q 'a debugger is attached (tracer pid [0-9]*)' <<<"$out" || fail "no word of the debugger on stderr"
grep -q 'exited normally' <<<"$out" || fail "the test binary did not exit 0 under gdb"
grep -q 'Detaching after fork' <<<"$out" && fail "the test ran in a child process"
[ ! -e "$work/history" ] || fail "a debug run recorded history"

# Asked for without a debugger: the same mode, said on stderr; CULPRIT_DEBUG=0 under
# gdb measures as usual (30 repetitions declared: the breakpoint is not in this process).
CULPRIT_DEBUG=1 "$sample" --filter busy_fast --no-history 2>err.txt >out.txt
grep -q 'debug mode (CULPRIT_DEBUG=1)' err.txt || fail "CULPRIT_DEBUG=1 not said on stderr"
grep -q 'n=1, batch 1, fixed' out.txt || fail "CULPRIT_DEBUG=1 did not run one repetition: $(cat out.txt)"
out=$(CULPRIT_DEBUG=0 gdb -nx -batch -ex 'set debuginfod enabled off' -ex run \
  --args "$sample" --filter busy_fast --no-history 2>&1)
grep -q 'n=30' <<<"$out" || fail "CULPRIT_DEBUG=0 under gdb did not measure as usual: $out"
echo "debugger-friendly runner ok"
