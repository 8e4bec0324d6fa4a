#!/usr/bin/env bash
# End to end: instrumenting a third-party-style project without editing it
# (docs/calltree.md, "Instrumenting any build"). The test generates a tiny
# autotools-like project (a ./configure that writes a Makefile from CC, CFLAGS,
# LDFLAGS; a static library and a program linked against it) and:
#   1. builds it with CC=culprit-cc and records a call tree naming its functions;
#   2. builds it with the documented flag set (the runtime linked as a whole archive
#      from LDFLAGS, which the Makefile puts before the objects) and records a tree;
#   3. builds it the obvious wrong way (the archive in LDFLAGS, not whole): `calltree
#      record` says "instrumented but the trace runtime was not linked" with the fix;
#      built plain, it says "not built with instrumentation";
#   4. `bisect --calltree` with that wrong build stops before bisecting (a handful of
#      runs, exit 2, the fix printed), and with --calltree-build CC=culprit-cc beside a
#      plain --build it measures the plain binaries and records the trees;
#   5. those trees are recorded with the plain builds as their baseline (corrected
#      times, said in the JSON), and are consistent along the suspect path.
# usage: instrument_build.sh CULPRIT CULPRIT_CC RUNTIME_LIB
set -euo pipefail
culprit=$1 culprit_cc=$2 runtime=$3
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
e2e_workdir instrument-e2e
proj=$work/proj
mkdir -p "$proj/src"

cat > "$proj/configure" <<'EOF'
#!/bin/sh
# A configure as autotools writes them, in miniature: the compiler and flags from the
# environment, substituted into the Makefile.
: "${CC:=cc}" "${CFLAGS:=-O1}"
cat > Makefile <<MK
CC = $CC
CFLAGS = $CFLAGS
LDFLAGS = $LDFLAGS
LIBS = $LIBS
all: prog
libwork.a: src/work.o
	ar rcs \$@ src/work.o
prog: src/main.o libwork.a
	\$(CC) \$(LDFLAGS) -o \$@ src/main.o libwork.a \$(LIBS)
src/%.o: src/%.c
	\$(CC) \$(CFLAGS) -c -o \$@ \$<
clean:
	rm -f prog libwork.a src/*.o
MK
EOF
chmod +x "$proj/configure"
cat > "$proj/src/work.c" <<'EOF'
/* ROUNDS is what the planted regression changes. */
#define ROUNDS 150000
volatile unsigned long sink;
unsigned long crunch(int n)
{
    unsigned long x = (unsigned long)n;
    for (int i = 0; i < ROUNDS; i++)
        x = x * 6364136223846793005UL + 1;
    return x;
}
EOF
cat > "$proj/src/main.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
unsigned long crunch(int n);
extern volatile unsigned long sink;
/* With $RUNS_LOG, each run appends the word of the file `kind` the build wrote. */
static void log_run(void)
{
    const char *log = getenv("RUNS_LOG");
    char kind[32] = "";
    FILE *in, *out;
    if (!log || !(in = fopen("kind", "r")))
        return;
    if (fgets(kind, sizeof(kind), in) && (out = fopen(log, "a"))) {
        fputs(kind, out);
        fclose(out);
    }
    fclose(in);
}
int main(void)
{
    log_run();
    for (int i = 0; i < 200; i++)
        sink += crunch(i);
    return 0;
}
EOF

build() { # build DIR [VAR=value...]: configure and make with the given variables
  local dir=$1; shift
  (cd "$dir" && make -s clean >/dev/null 2>&1 || true
   cd "$dir" && env "$@" ./configure && make -s >/dev/null) || fail "build with $* failed"
}
record() { # record DIR: culprit calltree record ./prog, the tree in DIR/prog.calltree
  (cd "$1" && "$culprit" calltree record --quiet --levels 2 --out prog.calltree ./prog) \
    > "$work/record.out" 2> "$work/record.err"
}

# 1. The wrapper as CC.
build "$proj" CC="$culprit_cc"
record "$proj" || fail "record after CC=culprit-cc: $(cat "$work/record.err")"
grep -q 'crunch' "$proj/prog.calltree" || fail "culprit-cc: no crunch in the tree: $(cat "$proj/prog.calltree")"
grep -q 'main' "$proj/prog.calltree" || fail "culprit-cc: no main in the tree"

# 2. The documented flag set in LDFLAGS (before the objects on the link line).
build "$proj" CFLAGS="-O1 -finstrument-functions -g" \
  LDFLAGS="-Wl,--whole-archive $runtime -Wl,--no-whole-archive -lpthread"
record "$proj" || fail "record with the documented flags: $(cat "$work/record.err")"
grep -q 'crunch' "$proj/prog.calltree" || fail "documented flags: no crunch in the tree"

# 3. The trap: the archive in LDFLAGS, not whole. Then a plain build.
build "$proj" CFLAGS="-O1 -finstrument-functions -g" LDFLAGS="$runtime -lpthread"
if record "$proj"; then fail "record succeeded although glibc's empty hooks were linked"; fi
grep -q 'instrumented but the trace runtime was not linked' "$work/record.err" ||
  fail "runtime missing not diagnosed: $(cat "$work/record.err")"
grep -q -- '--whole-archive' "$work/record.err" || fail "no fix printed: $(cat "$work/record.err")"
build "$proj"
if record "$proj"; then fail "record succeeded on a plain build"; fi
grep -q 'not built with instrumentation (it calls no __cyg_profile_func_enter)' "$work/record.err" ||
  fail "plain build not diagnosed: $(cat "$work/record.err")"

# 4. bisect --calltree on a history of the project: five commits, the fourth 5x.
rm -f "$proj/Makefile" "$proj/prog" "$proj"/*.a "$proj"/src/*.o "$proj/prog.calltree"
repo=$work/repo
mv "$proj" "$repo"
git init -q "$repo"
printf 'Makefile\nprog\n*.a\n*.o\n*.calltree\nkind\n' > "$repo/.gitignore"
git -C "$repo" add -A && git -C "$repo" commit -qm "the project" && git -C "$repo" tag good
for k in 1 2 3; do
  echo "note $k" >> "$repo/NOTES"
  git -C "$repo" add NOTES && git -C "$repo" commit -qm "notes $k"
  if [ $k = 2 ]; then
    sed -i 's/#define ROUNDS 150000/#define ROUNDS 750000/' "$repo/src/work.c"
    git -C "$repo" commit -qam "crunch: five times the rounds" && git -C "$repo" tag culprit
  fi
done
runs=$work/runs.log
# Each run logs which build it ran (the build writes `kind`).
export RUNS_LOG=$runs
command=./prog
trap_build="make -s clean >/dev/null 2>&1; CFLAGS='-O1 -finstrument-functions -g' LDFLAGS='$runtime -lpthread' ./configure && make -s && echo trap > kind"
plain_build="make -s clean >/dev/null 2>&1; ./configure && make -s && echo plain > kind"
ct_build="make -s clean >/dev/null 2>&1; CC='$culprit_cc' ./configure && make -s && echo instrumented > kind"

: > "$runs"
status=0
(cd "$repo" && "$culprit" bisect --good good --bad HEAD --build "$trap_build" \
    --command "$command" --calltree --threshold 100 > "$work/bisect.out" 2> "$work/bisect.err") ||
  status=$?
[ "$status" = 2 ] || fail "bisect --calltree with the runtime not linked exited $status: $(cat "$work/bisect.err")"
grep -q 'stops before it starts' "$work/bisect.err" || fail "no early stop: $(cat "$work/bisect.err")"
grep -q 'instrumented but the trace runtime was not linked' "$work/bisect.err" ||
  fail "bisect: cause not named: $(cat "$work/bisect.err")"
grep -q -- '--whole-archive' "$work/bisect.err" || fail "bisect: no fix printed"
[ "$(wc -l < "$runs")" -le 2 ] || fail "bisect ran $(wc -l < "$runs") commands before stopping"

: > "$runs"
(cd "$repo" && "$culprit" bisect --good good --bad HEAD --build "$plain_build" \
    --calltree-build "$ct_build" --command "$command" --calltree --threshold 100 --json \
    > "$work/bisect.json" 2> "$work/bisect.err") ||
  fail "bisect --calltree-build exited $?: $(cat "$work/bisect.err")"
got=$(sed -n 's/^  "culprit": "\([0-9a-f]*\)".*/\1/p' "$work/bisect.json")
[ "$got" = "$(git -C "$repo" rev-parse culprit)" ] || fail "named ${got:-nothing}: $(cat "$work/bisect.json")"
grep -q '^    "error": null' "$work/bisect.json" ||
  fail "no call-tree analysis: $(cat "$work/bisect.json") $(cat "$work/bisect.err")"
# The trees hold main and crunch (which suspects they yield is the diff's own test).
grep -Eq '"nodes_compared": [2-9]' "$work/bisect.json" || fail "trees without crunch: $(cat "$work/bisect.json")"
# The measured runs were the plain builds; only the recordings ran instrumented ones
# (per side: the structure run and three timing runs of each depth, docs/calltree.md).
plain=$(grep -c '^plain$' "$runs" || true) instrumented=$(grep -c '^instrumented$' "$runs" || true)
[ "$plain" -ge 20 ] || fail "only $plain runs of the plain build were measured"
[ "$instrumented" -ge 1 ] && [ "$instrumented" -le 24 ] ||
  fail "$instrumented runs of the instrumented build (the recordings only expected)"
# 5. The trees were recorded with the plain builds of the same commits as their
#    baseline (docs/bisect.md, "Unbiased call trees"): the document says so, each
#    recording ran the plain build (three baseline runs, and perf's three when perf
#    may profile) between its structure run and its timing runs, and the corrected
#    trees are consistent: along the suspect path no callee's total exceeds its
#    caller's, in either tree.
python3 - "$work/bisect.json" <<'PYEOF' || fail "the corrected trees: $(cat "$work/bisect.json")"
import json, sys
c = json.load(open(sys.argv[1]))["calltree"]
assert c["corrected"] is True, "corrected: %r" % c.get("corrected")
assert c["overhead_ns"]["parent"] >= 0 and c["overhead_ns"]["culprit"] >= 0, c["overhead_ns"]
# 200 calls cost microseconds in hooks, under 2% of the plain runs' time: the
# runtime's estimate is kept rather than a fit of noise (docs/calltree.md).
assert c["fitted"] is False, "a fit on 200 calls: %r" % c["overhead_ns"]
path = c["suspects"][0]["path"]
assert [f["function"] for f in path] == ["main", "crunch"], c["suspects"][0]["path_text"]
for side in ("base", "test"):
    for up, down in zip(path, path[1:]):
        caller = up[side + "_calls"] * up[side + "_mean_ns"]
        callee = down[side + "_calls"] * down[side + "_mean_ns"]
        assert callee <= caller * (1 + 1e-9), "%s: %s %.0f ns under %s %.0f ns" % (
            side, down["function"], callee, up["function"], caller)
PYEOF
grep -q '"corrected": true' "$work/bisect.json" || fail "no \"corrected\": true"
# The runs log: the check (instrumented), the bisection (plain), then per side the
# structure run (instrumented), the baseline's plain runs, the timing runs.
awk '$0 == "instrumented" { n++ } $0 == "plain" && n >= 3 { late++ }
     END { exit !(late >= 6) }' "$runs" ||
  fail "no plain runs within the recordings: $(uniq -c "$runs" | tr '\n' ' ')"
echo "instrument_build: ok"
