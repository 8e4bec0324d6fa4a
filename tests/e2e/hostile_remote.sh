#!/usr/bin/env bash
# End to end: a hostile remote (docs/security.md). An attacker who can push to
# refs/culprit/history pushes runs, made with culprit itself and then edited, whose
# culprit.binary names a program of the attacker's:
#   s1  a script outside any build tree;
#   s2  a link committed into the repository (so inside the victim's work tree) that
#       points out of it, to an ELF program that lists the test;
#   s3  a script committed into the repository (inside the work tree, not ELF);
#   s4  that ELF program outside any tree, named directly;
#   s5  the victim's own test binary (a legitimate hint: re-run);
#   s6  an ELF program committed into the repository, which is no test binary.
# Every attacker's program would leave a marker file when run. The victim pulls, then
# runs check --confirm, check --investigate, history and report: the marker is never
# made, nothing is written outside the victim's store and work directories, the
# victim's own run files are unchanged, and every exit status is the documented one.
# Before the fix, check --confirm ran s1's script (and s4's program).
# usage: hostile_remote.sh CULPRIT LIBCULPRIT INCLUDE_DIR
set -euo pipefail
culprit=$1 lib=$2 include=$3
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
e2e_workdir hostile-remote
outside=$work/outside marker=$work/outside/MARKER
mkdir -p "$outside" "$work/logs"

# The perf test: suite $SUITE, $WORK times the work of WORK=1 (about 0.2 ms).
cat > "$work/perf.c" <<'CEOF'
#include <culprit/culprit.h>
#include <stdlib.h>
static unsigned long work = 1;
static volatile unsigned long sink;
static int read_work(void **state)
{
    const char *w = getenv("WORK");
    (void)state;
    work = w ? strtoul(w, NULL, 10) : 1;
    return 0;
}
static void spin(void **state)
{
    unsigned long x = 0;
    (void)state;
    for (unsigned long i = 0; i < work * 200000ul; i++)
        x += i ^ (x >> 3);
    sink = x;
}
int main(int argc, char **argv)
{
    static const culprit_perf_test tests[] = {
        culprit_perf_test(spin, .setup = read_work, .repetitions = 10, .category = "fast"),
    };
    const char *suite = getenv("SUITE");
    return culprit_run_group_name(suite ? suite : "mine", tests, argc, argv);
}
CEOF
# The attacker's ELF program: lists the test (so only the trust rules refuse it) and
# leaves the marker whenever it runs.
cat > "$work/evil.c" <<CEOF
#include <stdio.h>
int main(void)
{
    FILE *f = fopen("$marker", "w");
    if (f)
        fclose(f);
    puts("spin");
    return 0;
}
CEOF
libs=$(pkg-config --libs cmocka libgit2 jansson gsl libxml-2.0)
# shellcheck disable=SC2086 # $libs is a list of flags
build_perf() { cc -O1 -I"$include" -o "$1" "$work/perf.c" "$lib" $libs -lm; }
cc -o "$outside/evil-elf" "$work/evil.c" || fail "cannot build the attacker's program"
printf '#!/bin/sh\ntouch "%s"\necho spin\n' "$marker" > "$outside/evil.sh"
chmod 755 "$outside/evil.sh"

# The project: two commits on a bare remote. c2 holds the attacker's link and script
# (as a merged pull request would).
git init -q --bare "$work/remote.git"
git clone -q "$work/remote.git" "$work/seed" 2> /dev/null
(
  cd "$work/seed"
  echo one > code.txt && git add -A && git commit -q -m c1
  echo two > code.txt && ln -s "$outside/evil-elf" tool-link && mkdir tools &&
    cp "$outside/evil.sh" tools/evil.sh && cp "$outside/evil-elf" tools/evil-elf &&
    git add -A && git commit -q -m c2
  git push -q origin HEAD:main 2> /dev/null
)
c1=$(git -C "$work/seed" rev-parse HEAD~1) c2=$(git -C "$work/seed" rev-parse HEAD)

# The attacker: real runs of s1..s6 at c1 (fast) and c2 (20x: a major regression),
# then each c2 run's culprit.binary rewritten, then pushed with culprit itself.
victim=$work/victim
git clone -q -b main "$work/remote.git" "$work/attacker"
build_perf "$work/attacker/perf" || fail "cannot build the perf test"
for c in "$c1" "$c2"; do
  git -C "$work/attacker" checkout -q "$c"
  for s in s1 s2 s3 s4 s5 s6; do
    (cd "$work/attacker" && SUITE=$s WORK=$([ "$c" = "$c1" ] && echo 1 || echo 20) \
      CULPRIT_FAIL_ON=none ./perf --quiet --history "$work/attacker-hist" > /dev/null 2>&1) ||
      fail "the attacker's run of $s failed"
  done
done
hint() { # SUITE PATH: the c2 run of SUITE now names PATH as its binary
  local f
  f=$(grep -l "value=\"$c2\"" "$work"/attacker-hist/*.xml | xargs grep -l "name=\"$1\"")
  sed -i "s|name=\"culprit.binary\" value=\"[^\"]*\"|name=\"culprit.binary\" value=\"$2\"|" "$f"
  grep -q "value=\"$2\"" "$f" || fail "could not edit the run of $1"
}
hint s1 "$outside/evil.sh"
hint s2 "$victim/tool-link"
hint s3 "$victim/tools/evil.sh"
hint s4 "$outside/evil-elf"
hint s5 "$victim/build/perf"
hint s6 "$victim/tools/evil-elf"
git -C "$work/attacker" checkout -q main
(cd "$work/attacker" && "$culprit" history push --history "$work/attacker-hist" \
  > "$work/logs/push.out" 2>&1) || fail "the attacker's push failed: $(cat "$work/logs/push.out")"

# The victim: its own build (inside its work tree) and its own runs, in its store
# (two at c1: c2, the commit checked, holds only what the attacker pushed).
git clone -q -b main "$work/remote.git" "$victim"
mkdir "$victim/build"
build_perf "$victim/build/perf" || fail "cannot build the victim's test"
git -C "$victim" checkout -q "$c1"
for i in 1 2; do
  (cd "$victim" && CULPRIT_FAIL_ON=none build/perf --quiet > /dev/null 2>&1) ||
    fail "the victim's run $i failed"
done
git -C "$victim" checkout -q main
store=$victim/.culprit/history
sums() { (cd "$store" && sha256sum -- *.xml | sort); }
before=$(sums)
[ "$(printf '%s\n' "$before" | wc -l)" = 2 ] || fail "the victim's store: $before"
export TMPDIR=$work/tmp && mkdir "$TMPDIR"
touch "$work/logs/stamp"
sleep 0.05

# vrun NAME STATUS ARGS...: culprit ARGS in the victim's clone; asserts the status.
vrun() {
  local name=$1 want=$2 got=0
  shift 2
  (cd "$victim" && timeout 60 "$culprit" "$@" > "$work/logs/$name.out" 2> "$work/logs/$name.err") ||
    got=$?
  [ "$got" = "$want" ] || fail "culprit $* exited $got, not $want: $(tail -c 1500 "$work/logs/$name.err")"
  [ ! -e "$marker" ] || fail "culprit $* ran the attacker's program"
}
vrun pull 0 history pull
grep -q "12 new runs" "$work/logs/pull.out" || fail "pull: $(cat "$work/logs/pull.out")"

# check --confirm: the majors the attacker's runs show are kept, none is re-run from
# the attacker's paths, each refusal names the path and the rule; s5's hint leads to
# the victim's own binary, which is re-run.
# (The victim's binary records the suite $SUITE names: its re-run is a run of s5.)
SUITE=s5 vrun confirm 1 check --confirm
err=$work/logs/confirm.err
grep -F "cannot confirm s1.spin: test binary '$outside/evil.sh' is outside the trusted build trees ('$victim')" "$err" > /dev/null ||
  fail "s1: $(cat "$err")"
grep -F "cannot confirm s2.spin: test binary '$victim/tool-link' resolves to '$outside/evil-elf', outside the trusted build trees" "$err" > /dev/null ||
  fail "s2: $(cat "$err")"
grep -F "cannot confirm s3.spin: test binary '$victim/tools/evil.sh' is not an ELF executable" "$err" > /dev/null ||
  fail "s3: $(cat "$err")"
grep -F "cannot confirm s4.spin: test binary '$outside/evil-elf' is outside the trusted build trees" "$err" > /dev/null ||
  fail "s4: $(cat "$err")"
grep -F "cannot confirm s6.spin: test binary '$victim/tools/evil-elf' is not a culprit test binary" "$err" > /dev/null ||
  fail "s6: $(cat "$err")"
grep -q "confirming s5.spin: re-running it once" "$err" || fail "s5 not re-run: $(cat "$err")"
for s in s1 s2 s3 s4 s6; do
  grep -q "^MAJOR *$s.spin:" "$work/logs/confirm.out" || fail "$s lost its verdict: $(cat "$work/logs/confirm.out")"
done

# check --investigate runs only the user's commands: without --run or culprit.json's
# "run" it is a usage error, never a fallback to a recorded binary.
vrun investigate 2 check --investigate
grep -q "needs the command that runs the test" "$work/logs/investigate.err" ||
  fail "investigate: $(cat "$work/logs/investigate.err")"
vrun history 0 history --test s1.spin
vrun report 0 report

# Nothing written outside the victim's store and work directories: the only new or
# changed files are under its .git, .culprit (store, report) and $TMPDIR (empty again).
written=$(find "$work" -newer "$work/logs/stamp" -type f ! -path "$victim/.git/*" \
  ! -path "$victim/.culprit/*" ! -path "$work/logs/*" ! -path "$TMPDIR/*")
[ -z "$written" ] || fail "written outside the store and work directories: $written"
[ -z "$(ls -A "$TMPDIR")" ] || fail "left in TMPDIR: $(ls -A "$TMPDIR")"
[ -z "$(find "$outside" -newer "$work/logs/stamp")" ] || fail "the attacker's directory changed"
# The victim's own runs: every file as it was (the s5 re-run added one, nothing else).
after=$(sums)
while IFS= read -r line; do
  grep -qxF "$line" <<< "$after" || fail "the victim's run changed: $line"
done <<< "$before"
[ "$(printf '%s\n' "$after" | wc -l)" = 3 ] || fail "the victim's store: $after"
grep -l "value=\"$c2\"" "$store"/*.xml | xargs grep -q 'testsuite name="s5"' ||
  fail "the re-run of s5 was not recorded"
[ ! -e "$marker" ] || fail "the attacker's program ran"
echo "hostile remote: 5 hostile binaries refused, 1 local binary re-run, nothing run, written or changed outside the store (${SECONDS} s)"
