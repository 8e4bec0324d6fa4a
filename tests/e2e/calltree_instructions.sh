#!/usr/bin/env bash
# End to end: instruction call trees (culprit calltree record --metric instructions,
# counted under Valgrind's callgrind; no instrumented build). A tiny program is
# recorded twice from one build (A/A): the two files hold the same counts and the
# diff lists no suspect. Then a commit makes one function loop 6x more: its diff
# against the first names that function as suspect 1, changed by the commit.
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
echo "PASS: A/A identical, no suspect; the 6x change named scan (changed)"
