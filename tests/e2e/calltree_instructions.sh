#!/usr/bin/env bash
# End to end: instruction call trees (culprit calltree record --metric instructions,
# counted under Valgrind's callgrind; no instrumented build). A tiny program is
# recorded twice from one build (A/A): the two files hold the same counts and the
# diff lists no suspect. Then a commit makes one function loop 6x more: its diff
# against the first names that function as suspect 1, changed by the commit. A program
# whose work varies: the diff with each side's second recording (the band) lists no
# suspect for its A/A and still names a 6x change.
# Skipped (exit 77) without valgrind.
# usage: calltree_instructions.sh CULPRIT
set -euo pipefail
culprit=$1
command -v valgrind > /dev/null || { echo "valgrind not installed: skipped"; exit 77; }
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
e2e_workdir calltree-instructions

repo=$work/repo
mkdir -p "$repo"
git init -q "$repo"
write() { # write INNER-LOOP-COUNT
  cat > "$repo/prog.c" <<CEOF
#include <stdio.h>
static volatile unsigned long sink;

__attribute__((noinline)) static void scan(int n)
{
    for (int i = 0; i < n * $1; i++)
        sink += (unsigned long)i;
}

__attribute__((noinline)) static void parse(int n)
{
    for (int i = 0; i < n; i++)
        sink ^= (unsigned long)i * 7u;
    scan(n);
}

int main(void)
{
    for (int k = 0; k < 20; k++)
        parse(2000);
    printf("%lu\n", sink);
    return 0;
}
CEOF
}
build() { cc -O1 -g -o "$1" "$repo/prog.c"; }

write 1
git -C "$repo" add -A && git -C "$repo" commit -q -m base
build "$work/a"
(cd "$work" && "$culprit" calltree record --metric instructions --quiet --out a1.calltree ./a \
  && "$culprit" calltree record --metric instructions --quiet --out a2.calltree ./a) \
  2> "$work/record.err" || { cat "$work/record.err"; fail "record --metric instructions"; }
grep -q '^cost instructions$' "$work/a1.calltree" || fail "the file does not say its costs are instructions"
# Same counts: main's instructions (the program's own work, libc's included).
main_of() {
  awk '$1 == "function" && $5 == "main" { f[$2] = 1 }
       $1 == "node" && ($4 in f) { s += $7 } END { printf "%.0f", s }' "$1"
}
[ "$(main_of "$work/a1.calltree")" -gt 0 ] || fail "no instructions under main"
[ "$(main_of "$work/a1.calltree")" = "$(main_of "$work/a2.calltree")" ] ||
  fail "two recordings of one build differ: $(main_of "$work/a1.calltree") and $(main_of "$work/a2.calltree")"
"$culprit" calltree diff "$work/a1.calltree" "$work/a2.calltree" --json > "$work/aa.json"
jq -e '.suspects | length == 0' "$work/aa.json" > /dev/null ||
  fail "A/A lists suspects: $(jq -c '.suspects' "$work/aa.json")"

write 6
git -C "$repo" commit -q -am "scan: 6x the work"
build "$work/b"
(cd "$work" && "$culprit" calltree record --metric instructions --quiet --out b.calltree ./b) \
  2> "$work/record.err" || { cat "$work/record.err"; fail "record of the change"; }
"$culprit" calltree diff "$work/a1.calltree" "$work/b.calltree" --repo "$repo" --commit HEAD \
  --json > "$work/ab.json"
jq -e '.cost == "instructions"' "$work/ab.json" > /dev/null || fail "the JSON does not say instructions"
first=$(jq -r '.suspects[0].path[-1].function' "$work/ab.json")
[ "$first" = scan ] || fail "suspect 1 is '$first', not scan: $(jq -c '.suspects' "$work/ab.json")"
jq -e '.suspects[0].changed == true' "$work/ab.json" > /dev/null ||
  fail "scan is not marked changed by the commit: $(jq -c '.suspects[0]' "$work/ab.json")"
"$culprit" calltree diff "$work/a1.calltree" "$work/b.calltree" > "$work/ab.txt"
grep -q scan "$work/ab.txt" || fail "the text diff does not name scan"

# A program whose work varies from run to run (libxml2 seeds its hash tables at random;
# here $NOISE sets lookup's work, so that the test is exact): two recordings of one
# build differ in lookup, and alone the A/A diff names it (+4% per call); with each
# side's second recording (--base-again, --test-again) that is within what lookup
# varies by: no suspect, one left out. scan's 6x beside the same variation is named.
cat > "$work/vary.c" <<'CEOF'
#include <stdio.h>
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void lookup(int n)
{
    for (int i = 0; i < n; i++)
        sink += (unsigned long)i;
}
__attribute__((noinline)) static void scan(int n)
{
    for (int i = 0; i < n; i++)
        sink ^= (unsigned long)i * 7u;
}
int main(void)
{
    const char *noise = getenv("NOISE"), *work = getenv("SCAN");
    int n = 1000 + (noise ? atoi(noise) : 0);
    for (int k = 0; k < 100; k++)
        lookup(n);
    scan(50000 * (work ? atoi(work) : 1));
    printf("%lu\n", sink);
    return 0;
}
CEOF
cc -O1 -g -o "$work/vary" "$work/vary.c"
rec() { # rec NAME NOISE SCAN
  (cd "$work" && NOISE=$2 SCAN=$3 "$culprit" calltree record --metric instructions --quiet \
     --out "$1.calltree" ./vary > /dev/null) 2> "$work/record.err" ||
    { cat "$work/record.err"; fail "record of the varying program ($1)"; }
}
rec v1 0 1; rec v2 50 1; rec w1 40 1; rec w2 -10 1; rec x1 40 6; rec x2 -10 6
"$culprit" calltree diff "$work/v1.calltree" "$work/w1.calltree" --json > "$work/vv.json" 2> /dev/null
[ "$(jq -r '[.suspects[].path[-1].function] | join(" ")' "$work/vv.json")" = lookup ] ||
  fail "alone, the A/A of the varying program does not name lookup: $(jq -c '.suspects' "$work/vv.json")"
"$culprit" calltree diff "$work/v1.calltree" "$work/w1.calltree" --base-again "$work/v2.calltree" \
  --test-again "$work/w2.calltree" --json > "$work/vb.json" 2> "$work/vb.txt"
jq -e '(.suspects | length == 0) and .varying_suspects == 1' "$work/vb.json" > /dev/null ||
  fail "with the second recordings the A/A lists $(jq -c '[.suspects[].path_text]' "$work/vb.json"), $(jq .varying_suspects "$work/vb.json") left out"
grep -q '^and 1 left out: what its function adds is within what it varies between two recordings of one build$' \
  "$work/vb.txt" || fail "the text does not say what was left out: $(cat "$work/vb.txt")"
"$culprit" calltree diff "$work/v1.calltree" "$work/x1.calltree" --base-again "$work/v2.calltree" \
  --test-again "$work/x2.calltree" --json > "$work/vx.json" 2> /dev/null
[ "$(jq -r '.suspects[0].path[-1].function' "$work/vx.json")" = scan ] ||
  fail "with the second recordings scan's 6x is not suspect 1: $(jq -c '[.suspects[].path_text]' "$work/vx.json")"
status=0
"$culprit" calltree diff "$work/v1.calltree" "$work/w1.calltree" --base-again "$work/nope.calltree" \
  > /dev/null 2> "$work/nope.err" || status=$?
[ "$status" = 2 ] && grep -q 'nope.calltree' "$work/nope.err" ||
  fail "a missing second recording: exit $status: $(cat "$work/nope.err")"

# Bad input: a program that does not exist, an unknown metric: exit 2 naming them.
status=0
"$culprit" calltree record --metric instructions --quiet --out "$work/x.ct" "$work/nope" \
  2> "$work/nope.err" || status=$?
[ "$status" = 2 ] && grep -q "nope' under callgrind wrote no profile" "$work/nope.err" ||
  fail "a missing program: exit $status: $(cat "$work/nope.err")"
status=0
"$culprit" calltree record --metric cycles --out "$work/x.ct" "$work/a" 2> "$work/m.err" || status=$?
[ "$status" = 2 ] && grep -q "metric 'cycles'" "$work/m.err" ||
  fail "an unknown metric: exit $status: $(cat "$work/m.err")"
[ ! -e "$work/x.ct" ] || fail "a failed record wrote a file"
echo "PASS: A/A identical, no suspect; the 6x change named scan (changed); a varying A/A banded"
