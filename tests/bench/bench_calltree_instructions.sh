#!/usr/bin/env bash
# Benchmark: instruction call trees (culprit calltree record --metric instructions)
# against what a user would pick instead, on one small program, in one run:
#   - culprit: record A twice (A/A: suspects must be 0, counts identical) and B (a
#     5x loop in scan(): suspect 1 must be scan), diff;
#   - callgrind by hand: `valgrind --tool=callgrind` on A and B, `callgrind_annotate`
#     of each, the function whose own instructions grew most (a user's eye);
#   - uftrace (when installed): A twice and B built with -pg, `uftrace report`, the
#     largest A/A change of a function's own time (what a timed tool shows for
#     nothing) and the function whose own time grew most.
# Wall times and `uptime` load are printed beside every figure.
# usage: bench_calltree_instructions.sh CULPRIT [REPEAT]
set -euo pipefail
culprit=$1 repeat=${2:-2}
command -v valgrind > /dev/null || { echo "valgrind not installed: skipped"; exit 77; }
work=$(mktemp -d /tmp/culprit-bench-cti-XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"
write() { # write SCAN-FACTOR FILE
  cat > "$2" <<CEOF
#include <stdio.h>
#include <string.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void scan(const char *s, int n)
{
    for (int r = 0; r < $1; r++)
        for (int i = 0; i < n; i++)
            sink += (unsigned char)s[i];
}
__attribute__((noinline)) static void token(const char *s, int n)
{
    for (int i = 0; i < n; i++)
        sink ^= (unsigned long)s[i] << (i & 7);
}
__attribute__((noinline)) static void parse(const char *s)
{
    int n = (int)strlen(s);
    token(s, n);
    scan(s, n);
}
int main(void)
{
    static char line[4096];
    memset(line, 'x', sizeof(line) - 1);
    for (int k = 0; k < 200; k++)
        parse(line);
    printf("%lu\n", sink);
    return 0;
}
CEOF
}
# One source name in two directories: functions are told apart by name and file.
mkdir A B
write 1 A/prog.c
write 5 B/prog.c
cc -O1 -g -o a A/prog.c
cc -O1 -g -o b B/prog.c
now() { date +%s.%N; }
load() { uptime | sed 's/.*load average: //'; }
secs() { echo "$2 - $1" | bc; }

# main's inclusive instructions in a tree file.
main_of() {
  awk '$1 == "function" && $5 == "main" { f[$2] = 1 }
       $1 == "node" && ($4 in f) { s += $7 } END { printf "%.0f", s }' "$1"
}
echo "== culprit calltree record --metric instructions (load $(load))"
for trial in $(seq "$repeat"); do
  t0=$(now)
  "$culprit" calltree record --metric instructions --quiet --out a1.ct ./a 2> /dev/null
  t1=$(now)
  "$culprit" calltree record --metric instructions --quiet --out a2.ct ./a 2> /dev/null
  "$culprit" calltree record --metric instructions --quiet --out b.ct ./b 2> /dev/null
  t2=$(now)
  "$culprit" calltree diff a1.ct a2.ct --json > aa.json 2> /dev/null
  "$culprit" calltree diff a1.ct b.ct --json > ab.json 2> /dev/null
  t3=$(now)
  same=$(diff <(grep '^node ' a1.ct) <(grep '^node ' a2.ct) > /dev/null && echo yes || echo no)
  echo "trial $trial: A/A suspects $(jq '.suspects | length' aa.json), main $(main_of a1.ct) and" \
    "$(main_of a2.ct) instructions, every node identical: $same;" \
    "A/B suspect 1: $(jq -r '.suspects[0].path[-1].function' ab.json)" \
    "($(jq '.suspects | length' ab.json) suspects);" \
    "record $(secs "$t0" "$t1") s per tree, 3 trees + 2 diffs $(secs "$t0" "$t3") s; load $(load)"
  [ "$(jq '.suspects | length' aa.json)" = 0 ] &&
    [ "$(jq -r '.suspects[0].path[-1].function' ab.json)" = scan ] ||
    { echo "FAIL: the A/A diff lists suspects, or scan is not suspect 1" >&2; exit 1; }
done

echo "== by hand: valgrind --tool=callgrind + callgrind_annotate (load $(load))"
for trial in $(seq "$repeat"); do
  t0=$(now)
  valgrind --tool=callgrind -q --callgrind-out-file=cg.a ./a > /dev/null
  valgrind --tool=callgrind -q --callgrind-out-file=cg.b ./b > /dev/null
  callgrind_annotate cg.a > ann.a 2> /dev/null
  callgrind_annotate cg.b > ann.b 2> /dev/null
  t1=$(now)
  # "1,234,567 (12.3%)  file:function [object]": own instructions per function.
  own() { sed -n 's/^ *\([0-9,]*\) ([ 0-9.]*%) *\(.*\)$/\1 \2/p' "$1" | tr -d , |
    awk '!/ \[.*\]$/ { next } # the function table only: "file:function [object]"
         { n = $1; $1 = ""; sub(/^ /, ""); sub(/ \[.*$/, ""); sub(/^.*:/, ""); print n "\t" $0 }' |
    sort -t$'\t' -k2; }
  top=$(join -t$'\t' -1 2 -2 2 <(own ann.a) <(own ann.b) |
    awk -F'\t' '{ d = $3 - $2; if (d > best) { best = d; f = $1 } } END { print f " (+" best " Ir)" }')
  echo "trial $trial: most grown own instructions: $top; $(secs "$t0" "$t1") s; load $(load)"
done

if command -v uftrace > /dev/null; then
  echo "== uftrace (timed, -pg) (load $(load))"
  cc -O1 -g -pg -o ap A/prog.c
  cc -O1 -g -pg -o bp B/prog.c
  # "  12.345 us   200  scan": own time in ns per function.
  self_ns() {
    uftrace report -d "$1" -f self,call --sort self 2> /dev/null | awk 'NR > 2 {
      m = $2 == "ns" ? 1 : $2 == "us" ? 1e3 : $2 == "ms" ? 1e6 : $2 == "s" ? 1e9 : 0
      print $4 "\t" $1 * m }' | sort
  }
  for trial in $(seq "$repeat"); do
    t0=$(now)
    uftrace record -d u.a1 ./ap > /dev/null
    uftrace record -d u.a2 ./ap > /dev/null
    uftrace record -d u.b ./bp > /dev/null
    t1=$(now)
    aa=$(join -t$'\t' <(self_ns u.a1) <(self_ns u.a2) |
      awk -F'\t' '$2 > 1000 { c = ($3 - $2) / $2; if (c < 0) c = -c; if (c > m) { m = c; f = $1 } }
                  END { printf "%s %+.1f%%", f, 100 * m }')
    ab=$(join -t$'\t' <(self_ns u.a1) <(self_ns u.b) |
      awk -F'\t' '{ d = $3 - $2; if (d > best) { best = d; f = $1 } } END { print f }')
    echo "trial $trial: A/A largest own-time change (functions over 1 us): $aa;" \
      "A/B most grown: $ab; 3 records $(secs "$t0" "$t1") s; load $(load)"
    rm -rf u.a1 u.a2 u.b
  done
fi
