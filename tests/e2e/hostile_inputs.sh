#!/usr/bin/env bash
# The hostile and huge inputs of issue 16, through the culprit command as a user (or
# an attacker's pull request) would give them. Each must end with exit 0 and a
# correct result, or exit 2 and a message naming the input: no crash, no hang (every
# step runs under `timeout`), no file replaced that is not ours, no run lost.
# usage: hostile_inputs.sh CULPRIT FIB_PERF
set -euo pipefail
culprit=$1 fib_perf=$2

fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d /tmp/culprit-hostile-XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"

# expect STATUS NEEDLE CMD...: runs CMD (60 s at most), asserts its exit status and
# that NEEDLE is in its output.
expect() {
  local want=$1 needle=$2 got=0
  shift 2
  timeout 60 "$@" > out.log 2> err.log || got=$?
  cat err.log >> out.log
  [ "$got" = "$want" ] || fail "$* exited $got, not $want: $(tail -c 400 out.log)"
  grep -qF -- "$needle" out.log || fail "$*: '$needle' not in: $(tail -c 400 out.log)"
}

# 1. A folded stack 500,000 frames deep (1 MB): folds back, no stack overflow.
awk 'BEGIN { for (i = 0; i < 500000; i++) printf "%s%c", (i ? ";" : ""), 97 + i % 26;
             print " 1" }' > deep.folded
timeout 60 "$culprit" calltree fold deep.folded > deep.out || fail "fold of the deep stack failed"
cmp -s deep.folded deep.out || fail "the deep stack did not fold back as it was"

# 10. 200,000 children of one node: linear, well inside the timeout (30 s before).
awk 'BEGIN { for (i = 0; i < 200000; i++) printf "main;w%d 1\n", i }' > wide.folded
timeout 60 "$culprit" calltree fold wide.folded > wide.out || fail "fold of the wide profile failed"
[ "$(wc -l < wide.out)" = 200000 ] || fail "the wide profile lost lines"
expect 2 "empty profile" "$culprit" overweight /dev/null wide.folded

# 2. --junit never replaces what is not ours: a link is followed, a device written
#    through, a directory refused.
mkdir -p repo && cd repo && git init -q && git -c user.name=e -c user.email=e@x \
  commit -q --allow-empty -m base
"$fib_perf" --filter fib_table --repetitions 5 --history h > /dev/null 2>&1 ||
  fail "the perf test failed"
echo old > target.xml && ln -s target.xml link.xml
expect 0 "" "$culprit" check --history h --fail-on none --junit link.xml
[ -L link.xml ] || fail "--junit replaced the symbolic link"
grep -q "<testsuite" target.xml || fail "--junit did not write through the link"
expect 2 "/dev/full" "$culprit" check --history h --fail-on none --junit /dev/full
[ -c /dev/full ] || fail "/dev/full is no longer a device"
mkdir -p dir.xml
expect 2 "is a directory" "$culprit" check --history h --fail-on none --junit dir.xml

# 8. A write error on stdout is exit 2.
got=0; timeout 60 "$culprit" check --history h --json --fail-on none > /dev/full 2>err.log ||
  got=$?
[ "$got" = 2 ] || fail "check --json > /dev/full exited $got"

# 9. A FIFO in the store is skipped with a warning, not waited on.
mkfifo h/0000-fifo.xml
expect 0 "0000-fifo.xml" "$culprit" check --history h --fail-on none
rm h/0000-fifo.xml

# 5. A test name from another machine cannot break out of the Markdown or terminal.
python3 - "$(ls h/*.xml | head -1)" h/zzzz-evil.xml <<'PY'
import sys
doc = open(sys.argv[1]).read()
evil = 'fib_table`|&lt;img src=x onerror=alert(1)&gt;&#10;| fake | row |'
open(sys.argv[2], 'w').write(doc.replace('name="fib_table"', 'name="%s"' % evil))
PY
expect 0 "\\x0a" "$culprit" history --history h
got=$(timeout 60 "$culprit" report --history h --format markdown 2>&1) ||
  fail "report --format markdown failed"
if printf '%s\n' "$got" | grep -q '^| fake'; then fail "a name added a Markdown row"; fi
cd "$work"

# 6. A bisection's command that leaves a process in the background: the run ends
#    when the command does, and the leftover is ended with it (waiting for the
#    sleeps, 30 s a run, it would not finish inside the timeout).
mkdir -p bis && cd bis && git init -q
for i in 1 2 3 4; do
  n=$([ "$i" -ge 3 ] && echo 2000000 || echo 100000)
  printf '# c%s\ni=0; while [ $i -lt %s ]; do i=$((i+1)); done\n' "$i" "$((n / 100))" > work.sh
  git add work.sh && git -c user.name=e -c user.email=e@x commit -q -m "c$i"
done
timeout 300 "$culprit" bisect --good HEAD~3 --bad HEAD --min-runs 3 --max-runs 6 \
  --command 'sleep 30 & sh work.sh' > bisect.log 2>&1 || true
grep -q "c3" bisect.log || fail "the bisection did not name c3: $(tail -c 400 bisect.log)"
cd "$work"

echo "hostile inputs: every case ended with the right status, nothing hung or was replaced"
