#!/usr/bin/env bash
# End to end: the paper's Fig. 5 example (Heger et al. 2013, sections 4.2-4.3;
# examples/fig5/fig5.c) in a generated history of six commits, one of which makes
# fem's own work 100x (fem about 17x slower, the whole program about 10x). `culprit
# bisect --calltree` must name that commit, the suspect path foo -> doo -> fem, mark
# fem as changed in the commit with its changed line, and accuse none of bar, qux,
# wug -- although another commit edits bar's lines. The user's repository is left
# byte for byte unchanged.
#
# The program is built like culprit_instrument() builds it: -finstrument-functions
# -g, linked with the trace runtime. Thresholds are 100% (a node must be 2x slower
# to count): the effect is 5x or more, and on this shared VM a whole run of a
# level can be tens of percent slower than another.
# usage: calltree_fig5.sh CULPRIT RUNTIME_LIB FIG5_SOURCE
set -euo pipefail
culprit=$1 runtime=$2 source=$3
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
e2e_workdir calltree-e2e
repo=$work/fig5

git init -q "$repo"
cp "$source" "$repo/fig5.c"
git -C "$repo" add fig5.c && git -C "$repo" commit -qm "fig5: the paper's call tree" && git -C "$repo" tag good
echo "Fig. 5 of Heger et al. 2013" > "$repo/README"
git -C "$repo" add README && git -C "$repo" commit -qm "README"
# bar's lines change, its speed does not: change correlation must look at the culprit only.
sed -i 's/^    SPIN(30);$/    SPIN(30); \/* bar: just a comment *\//' "$repo/fig5.c"
grep -q 'bar: just a comment' "$repo/fig5.c" || fail "the bar edit did not apply"
git -C "$repo" commit -qam "bar: a comment"
sed -i 's/^    SPIN(10); \/\* fem.s own work \*\/$/    SPIN(1000); \/* fem'"'"'s own work, now 100x *\//' "$repo/fig5.c"
grep -q 'SPIN(1000)' "$repo/fig5.c" || fail "the fem edit did not apply"
git -C "$repo" commit -qam "fem: more work"
git -C "$repo" tag culprit
echo "more words" >> "$repo/README"
git -C "$repo" commit -qam "README: more"
fem_line=$(grep -n 'SPIN(1000)' "$repo/fig5.c" | cut -d: -f1)

fingerprint() {
  (cd "$1" && find . -path ./.git/objects -prune -o -type f -print0 | sort -z |
     xargs -0 sha256sum; stat -c '%i %Y' .git/index) | sha256sum
}
before=$(fingerprint "$repo")
build="cc -O1 -g -finstrument-functions -o fig5 fig5.c '$runtime' -lpthread"
(cd "$repo" && "$culprit" bisect --threshold 100 --good good --bad HEAD --build "$build" \
    --command "./fig5 100" --calltree --json > "$work/out.json" 2> "$work/err.log") ||
  fail "bisect --calltree exited $?: $(cat "$work/err.log")"
[ "$before" = "$(fingerprint "$repo")" ] || fail "the user's repository changed"
out=$work/out.json

got=$(sed -n 's/^  "culprit": "\([0-9a-f]*\)".*/\1/p' "$out")
[ "$got" = "$(git -C "$repo" rev-parse culprit)" ] || fail "named ${got:-nothing}, expected the fem commit: $(cat "$out")"
grep -q '^    "error": null' "$out" || fail "no call-tree analysis: $(cat "$out") $(cat "$work/err.log")"
grep -q "^    \"parent\": \"$(git -C "$repo" rev-parse culprit^)\"" "$out" || fail "not compared with the culprit's parent"

# The first suspect: foo -> doo -> fem, changed; fem's mark holds its changed line.
first=$(grep -m1 '"path_text"' "$out")
[[ "$first" == *'"foo → doo → fem"'* ]] || fail "first suspect path is $first: $(cat "$out")"
grep -m1 -A1 '"path_text"' "$out" | grep -q '"changed": true' || fail "fem's suspect is not marked changed"
grep -q "\"start\": $fem_line," "$out" || fail "fem's changed line $fem_line is not listed: $(cat "$out")"
# No suspect path ends in bar, qux or wug, and they appear in no path at all.
if grep '"path_text"' "$out" | grep -Eq 'bar|qux|wug'; then
  fail "an innocent function is accused: $(grep '"path_text"' "$out")"
fi

# The text form says the same.
(cd "$repo" && "$culprit" bisect --threshold 100 --good culprit^ --bad culprit --build "$build" \
    --command "./fig5 100" --calltree > "$work/out.txt" 2> "$work/err.log") ||
  fail "bisect --calltree (text) exited $?: $(cat "$work/err.log")"
grep -q 'suspect 1: foo → doo → fem  (adds .*CHANGED in the commit' "$work/out.txt" ||
  fail "text: $(cat "$work/out.txt")"
grep -Eq "changed: .*fig5.c: $fem_line\$" "$work/out.txt" || fail "text lacks fem's line: $(cat "$work/out.txt")"

# Built without instrumentation: --calltree checks the good end's build before
# bisecting and stops at once (exit 2) with the fix, instead of after the bisection.
status=0
(cd "$repo" && "$culprit" bisect --threshold 100 --good culprit^ --bad culprit \
    --build "cc -O1 -o fig5 fig5.c" --command "./fig5 100" --calltree --json > "$work/plain.json" \
    2> "$work/err.log") || status=$?
[ "$status" = 2 ] || fail "bisect --calltree of a plain build exited $status: $(cat "$work/err.log")"
grep -q 'stops before it starts.*not built with instrumentation' "$work/err.log" ||
  fail "plain build: no early stop with the cause: $(cat "$work/err.log")"
[ ! -s "$work/plain.json" ] || fail "plain build: a result was printed: $(cat "$work/plain.json")"
echo "calltree_fig5: ok"
