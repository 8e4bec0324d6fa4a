#!/usr/bin/env bash
# bench_bisect_cost: the wall time of `culprit bisect` against `git bisect run` with a
# fixed threshold, side by side on the same history with a planted large regression
# (issue 13's bisection-cost goal: culprit <= 1.5x git when the effect is >= 3x;
# docs/bisect.md, "Benchmark: the cost of a bisection").
#
#   bench_bisect_cost.sh CULPRIT --quick
#       a small generated C project (16 commits, the culprit 5x slower), seconds;
#   bench_bisect_cost.sh CULPRIT --quick --two
#       the same program with two regressions (issue 26, "explain the whole change"):
#       c5 makes it 2x slower, c11 25x more. culprit's default bisection of the whole
#       range (expected: both, with their shares, nothing else) against two plain
#       bisections, of (c0, c10] and (c10, c15] (one regression each: their culprit
#       explains the whole), in builds and wall time, and against `git bisect run`
#       on the whole range (which names c11 only: its threshold is halfway); each
#       culprit is printed with its share of the range's wall-time slowdown and, after
#       "/cpu:", of its CPU-time slowdown (docs/bisect.md, "Explaining the whole change");
#   bench_bisect_cost.sh CULPRIT --repo GIT_DIR [--tip REV] [--commits N] [--at K]
#       [--build CMD] [--command CMD] [--plant CMD] [--input-mb N] [--lz4]
#       a real project: the last N first-parent commits up to REV (default HEAD) of the
#       repository GIT_DIR are replayed onto a branch, and from the K-th on the tree
#       gets the regression `--plant` writes. Defaults are for zstd (facebook/zstd):
#       build `make -j2 -C programs zstd`, command `programs/zstd -q -f -1 INPUT -o
#       /dev/null` on a generated INPUT of N MB (8), and a busy loop planted at the top
#       of ZSTD_compressStream2. --lz4 gives the defaults for lz4 (lz4/lz4): build
#       `make -j2 -C programs lz4`, command `programs/lz4 -q -f -1 INPUT /dev/null`,
#       the busy loop at the top of LZ4F_compressUpdate.
#
# Each tool bisects a clone of its own of the same history:
#   culprit: `culprit bisect --good FIRST --bad LAST --build B --command C --json`,
#            default settings but --timeout 3600 (a loaded machine builds for minutes);
#   git:     as a user does with a fixed threshold: the good end built and timed
#            (median of 3 runs), the bad end built and timed in the same clone, the
#            threshold halfway between; then `git bisect run` with a script that
#            builds (125 if that fails) and says bad when the median of 3 runs
#            exceeds the threshold. Its wall time includes all of that.
# Both run one after the other (culprit first on odd trials), never concurrently;
# builds are incremental for both (git in its one worktree, culprit in its two
# checkouts switched in place). Prints the wall time, builds and runs of each, the
# answers, the ratio, and the load (uptime) before and after. Exits non-zero on hard
# errors only, and with --quick also when culprit names a wrong commit (a fixed
# threshold set from one measurement of each end may be wrong on a loaded machine:
# git's answer is reported, not required). KEEP=1 keeps the work directory.
# --phases: where culprit's time goes: its build and run commands are wrapped by a
# logger (a shell and two clock readings more per command, on culprit's side only),
# and after each trial the time in builds (each, in order), in runs, and in
# the rest (checkouts, copies, judging) is printed.
set -euo pipefail
culprit=$(realpath "$1"); shift
quick=0 two=0 repo_src="" tip=HEAD ncommits=16 at=9 trials=1 input_mb=8 phases=0
build="make -j2 -C programs zstd >/dev/null"
command=""
plant='sed -i "/^size_t ZSTD_compressStream2(/,/^{/s/^{/{ { volatile unsigned long planted_; for (planted_ = 0; planted_ < 20000000UL; planted_++) ; }/" lib/compress/zstd_compress.c'
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=1 ;;
    --two) two=1 ;;
    --repo) repo_src=$2; shift ;;
    --tip) tip=$2; shift ;;
    --commits) ncommits=$2; shift ;;
    --at) at=$2; shift ;;
    --trials) trials=$2; shift ;;
    --build) build=$2; shift ;;
    --command) command=$2; shift ;;
    --plant) plant=$2; shift ;;
    --input-mb) input_mb=$2; shift ;;
    --phases) phases=1 ;;
    --lz4) build="make -j2 -C programs lz4 >/dev/null"; lz4=1
      plant='sed -i "/^size_t LZ4F_compressUpdate(/,/^{/s/^{/{ { volatile unsigned long planted_; for (planted_ = 0; planted_ < 300000000UL; planted_++) ; }/" lib/lz4frame.c' ;;
    *) echo "bench_bisect_cost: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
work=$(mktemp -d /tmp/culprit-bench-cost-XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
git() { command git -c user.name=bench -c user.email=bench@example.org -c advice.detachedHead=false "$@"; }
now() { date +%s.%N; }

# ---- the history -------------------------------------------------------------
hist=$work/history
if [ $quick = 1 ]; then
  ncommits=16 at=9
  git init -q "$hist"
  mkdir -p "$hist/src"
  for f in 1 2 3 4; do
    cat > "$hist/src/part$f.c" <<EOF
unsigned long part$f(unsigned long x, long n)
{
    for (long i = 0; i < n; i++)
        x = x * 6364136223846793005UL + $f;
    return x;
}
EOF
  done
  cat > "$hist/src/main.c" <<'EOF'
#include <stdio.h>
unsigned long part1(unsigned long, long), part2(unsigned long, long);
unsigned long part3(unsigned long, long), part4(unsigned long, long);
#define WORK 4000000L
int main(void)
{
    unsigned long x = 1;
    x = part1(x, WORK); x = part2(x, WORK); x = part3(x, WORK); x = part4(x, WORK);
    printf("%lu\n", x);
    return 0;
}
EOF
  cat > "$hist/Makefile" <<'EOF'
CFLAGS = -O1
OBJS = src/main.o src/part1.o src/part2.o src/part3.o src/part4.o
prog: $(OBJS)
	$(CC) -o $@ $(OBJS)
src/%.o: src/%.c
	$(CC) $(CFLAGS) -c -o $@ $<
EOF
  printf 'prog\n*.o\n' > "$hist/.gitignore"
  git -C "$hist" add -A && git -C "$hist" commit -qm "c0: the program"
  [ $two = 0 ] || at=5
  for i in $(seq 1 $((ncommits - 1))); do
    if [ "$i" = "$at" ] && [ $two = 1 ]; then
      sed -i 's/#define WORK 4000000L/#define WORK 8000000L/' "$hist/src/main.c"
    elif [ "$i" = 11 ] && [ $two = 1 ]; then
      sed -i 's/#define WORK 8000000L/#define WORK 200000000L/' "$hist/src/main.c"
    elif [ "$i" = "$at" ]; then
      sed -i 's/#define WORK 4000000L/#define WORK 20000000L/' "$hist/src/main.c"
    else
      echo "x = part$((i % 4 + 1))(x, 0);" > "$hist/src/note$i.txt"
    fi
    git -C "$hist" add -A && git -C "$hist" commit -qm "c$i"
  done
  build="make -s"
  command="./prog"
else
  [ -n "$repo_src" ] || { echo "bench_bisect_cost: give --quick or --repo GIT_DIR" >&2; exit 2; }
  input=$work/input.bin
  # Compressible but not trivial: numbered lines of words.
  awk -v n=$((input_mb * 1024 * 1024 / 48)) 'BEGIN { srand(7); for (i = 0; i < n; i++)
    printf "%09d %s %s %s\n", i, substr("alphabetagammadeltaepsilon", int(rand()*20)+1, 6),
    int(rand()*100000), substr("zetaetathetaiotakappalambda", int(rand()*20)+1, 7) }' > "$input"
  if [ -z "$command" ] && [ -n "${lz4:-}" ]; then command="programs/lz4 -q -f -1 '$input' /dev/null"; fi
  [ -n "$command" ] || command="programs/zstd -q -f -1 '$input' -o /dev/null"
  git clone -q --no-checkout "$repo_src" "$hist"
  mapfile -t chain < <(git -C "$hist" rev-list --first-parent -n "$ncommits" "$tip" | tac)
  [ "${#chain[@]}" = "$ncommits" ] || { echo "bench_bisect_cost: fewer than $ncommits commits" >&2; exit 2; }
  git -C "$hist" checkout -q -b bench "${chain[0]}"
  for i in $(seq 1 $((ncommits - 1))); do
    git -C "$hist" read-tree -u --reset "${chain[$i]}"
    if [ "$i" -ge "$at" ]; then
      (cd "$hist" && sh -c "$plant") || { echo "bench_bisect_cost: --plant failed at $i" >&2; exit 2; }
      git -C "$hist" diff --quiet && { echo "bench_bisect_cost: --plant changed nothing at $i" >&2; exit 2; }
    fi
    git -C "$hist" add -A
    git -C "$hist" commit -q --allow-empty -C "${chain[$i]}"
  done
fi
good=$(git -C "$hist" rev-list --max-parents=0 HEAD 2>/dev/null | tail -1)
[ $quick = 1 ] || good=$(git -C "$hist" rev-parse "HEAD~$((ncommits - 1))")
bad=$(git -C "$hist" rev-parse HEAD)
want=$(git -C "$hist" rev-parse "HEAD~$((ncommits - 1 - at))")

# ---- the tools -----------------------------------------------------------------
median3() { # median3 DIR: the median wall time (ns) of 3 runs of the command in DIR
  local t=() s e
  for k in 1 2 3; do
    s=$(date +%s%N); (cd "$1" && sh -c "$command" >/dev/null 2>&1) || return 1; e=$(date +%s%N)
    t+=($((e - s)))
  done
  printf '%s\n' "${t[@]}" | sort -n | sed -n 2p
}

# With --phases, a command wrapped so that each run logs "KIND SECONDS".
logged() { # logged KIND CMD
  printf 's=$(date +%%s%%N); %s; rc=$?; e=$(date +%%s%%N); echo "%s $((e - s))" >> %q; exit $rc' \
    "$2" "$1" "$work/phases.log"
}

run_culprit() { # run_culprit TRIAL [GOOD BAD]: sets c_wall c_builds c_runs c_answer c_all
  local clone=$work/culprit-$1 s e cb=$build cc=$command g=${2:-$good} b=${3:-$bad}
  git clone -q "$hist" "$clone"
  if [ "$phases" = 1 ]; then cb=$(logged build "$build"); cc=$(logged run "$command"); : > "$work/phases.log"; fi
  s=$(now)
  (cd "$clone" && "$culprit" bisect --timeout 3600 --good "$g" --bad "$b" --build "$cb" \
      --command "$cc" --json > "$work/culprit.json" 2> "$work/culprit.err") ||
    { echo "culprit bisect failed: $(tail -5 "$work/culprit.err")" >&2; exit 2; }
  e=$(now)
  if [ "$phases" = 1 ]; then
    awk -v wall="$(echo "$e - $s" | bc)" '
      $1 == "build" { b += $2 / 1e9; nb++; each = each sprintf(" %.1f", $2 / 1e9) }
      $1 == "run" { r += $2 / 1e9; nr++ }
      END { printf "  culprit phases: builds %.1f s (%d, in order:%s), runs %.1f s (%d), the rest %.1f s\n",
            b, nb, each, r, nr, wall - b - r }' "$work/phases.log"
  fi
  c_wall=$(echo "$e - $s" | bc)
  c_builds=$(sed -n 's/^  "builds": \([0-9]*\).*/\1/p' "$work/culprit.json")
  c_runs=$(sed -n 's/^  "runs": \([0-9]*\).*/\1/p' "$work/culprit.json")
  c_answer=$(sed -n 's/^  "culprit": "\([0-9a-f]*\)".*/\1/p' "$work/culprit.json")
  c_all=$(python3 -c 'import json,sys
for c in json.load(open(sys.argv[1]))["culprits"]:
    cpu = "" if c.get("cpu_share") is None else "/cpu:%.0f%%" % (100 * c["cpu_share"])
    print("%s:%s%s" % (c["commit"][:7], "?" if c.get("share") is None else "%.0f%%" % (100 * c["share"]), cpu))' \
    "$work/culprit.json" | tr '\n' ' ')
  rm -rf "$clone"
}

run_git() { # sets g_wall g_builds g_runs g_answer
  local clone=$work/git-$1 s e tg tb thr
  git clone -q "$hist" "$clone"
  cat > "$work/step.sh" <<EOF
#!/bin/sh
# git bisect run's script: build (125: skip), then bad when the median of 3 runs is
# over the threshold.
echo build >> '$work/git.count'
sh -c '$build' >/dev/null 2>&1 || exit 125
t=\$( for k in 1 2 3; do s=\$(date +%s%N); sh -c "\$2" >/dev/null 2>&1; e=\$(date +%s%N); echo \$((e - s)); done | sort -n | sed -n 2p )
[ "\$t" -gt "\$1" ] && exit 1
exit 0
EOF
  chmod +x "$work/step.sh"
  : > "$work/git.count"
  s=$(now)
  git -C "$clone" checkout -q "$good"
  (cd "$clone" && sh -c "$build") >/dev/null 2>&1 || { echo "git: the good end does not build" >&2; exit 2; }
  tg=$(median3 "$clone")
  git -C "$clone" checkout -q "$bad"
  (cd "$clone" && sh -c "$build") >/dev/null 2>&1 || { echo "git: the bad end does not build" >&2; exit 2; }
  tb=$(median3 "$clone")
  thr=$(((tg + tb) / 2))
  (cd "$clone" && git bisect start "$bad" "$good" >/dev/null &&
   git bisect run "$work/step.sh" "$thr" "$command" > "$work/git.log" 2>&1) ||
    { echo "git bisect run failed: $(tail -5 "$work/git.log" 2>/dev/null)" >&2; exit 2; }
  e=$(now)
  g_wall=$(echo "$e - $s" | bc)
  g_builds=$((2 + $(wc -l < "$work/git.count")))
  g_runs=$((3 * g_builds))
  g_answer=$(git -C "$clone" rev-parse refs/bisect/bad)
  rm -rf "$clone"
}

if [ $two = 1 ]; then
  two_at=$(git -C "$hist" rev-parse "HEAD~$((ncommits - 1 - 11))")
  mid=$(git -C "$hist" rev-parse "HEAD~$((ncommits - 1 - 10))")
  echo "bench_bisect_cost --two: $ncommits commits, 2x at c$at (${want:0:7}), 25x at c11 (${two_at:0:7})"
  echo "load before: $(uptime)"
  printf '%-6s %-22s %9s %7s %6s %s\n' trial what wall_s builds runs culprits
  for t in $(seq 1 "$trials"); do
    run_culprit "$t"
    w1=$c_wall b1=$c_builds r1=$c_runs a1=$c_all
    printf '%-6s %-22s %9.1f %7s %6s %s\n' "$t" "culprit (whole range)" "$w1" "$b1" "$r1" "$a1"
    run_culprit "$t" "$good" "$mid"
    w2=$c_wall b2=$c_builds r2=$c_runs a2=$c_all
    run_culprit "$t" "$mid" "$bad"
    w3=$c_wall b3=$c_builds r3=$c_runs a3=$c_all
    printf '%-6s %-22s %9.1f %7s %6s %s\n' "$t" "culprit (two plain)" "$(echo "$w2 + $w3" | bc)" \
      $((b2 + b3)) $((r2 + r3)) "$a2$a3"
    run_git "$t"
    printf '%-6s %-22s %9.1f %7s %6s %s\n' "$t" "git bisect run" "$g_wall" "$g_builds" "$g_runs" "${g_answer:0:7}"
    printf '%-6s builds whole/two plain: %.2f; wall whole/two plain: %.2f; whole/git: %.2f\n' "$t" \
      "$(echo "$b1 / ($b2 + $b3)" | bc -l)" "$(echo "$w1 / ($w2 + $w3)" | bc -l)" \
      "$(echo "$w1 / $g_wall" | bc -l)"
  done
  echo "load after: $(uptime)"
  exit 0
fi
echo "bench_bisect_cost: $ncommits commits, the regression at $at ($want)"
echo "build: $build"
echo "command: $command"
echo "load before: $(uptime)"
fails=0
printf '%-6s %-8s %9s %7s %6s %-8s\n' trial tool wall_s builds runs answer
for t in $(seq 1 "$trials"); do
  if [ $((t % 2)) = 1 ]; then run_culprit "$t"; run_git "$t"; else run_git "$t"; run_culprit "$t"; fi
  c_ok=wrong g_ok=wrong
  [ "$c_answer" = "$want" ] && c_ok=right
  [ "$g_answer" = "$want" ] && g_ok=right
  [ "$c_ok" = right ] || fails=$((fails + 1))
  printf '%-6s %-8s %9.1f %7s %6s %-8s\n' "$t" culprit "$c_wall" "$c_builds" "$c_runs" "$c_ok"
  printf '%-6s %-8s %9.1f %7s %6s %-8s\n' "$t" git "$g_wall" "$g_builds" "$g_runs" "$g_ok"
  printf '%-6s ratio culprit/git wall time: %.2f\n' "$t" "$(echo "$c_wall / $g_wall" | bc -l)"
done
echo "load after: $(uptime)"
if [ $quick = 1 ] && [ $fails -gt 0 ]; then
  echo "bench_bisect_cost: culprit named a wrong commit" >&2
  exit 1
fi
