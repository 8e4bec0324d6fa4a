#!/usr/bin/env bash
# Issue 23's scale benchmark: what each reading command costs on a synthetic history
# (bench_history_scale, no test run), at a monorepo's scale:
#   A. COMMITS_A first-parent commits x TESTS_A tests (1,000 x 1,000 = 1 M test-runs;
#      the newest 20 commits keep 200 samples x 11 series per test, the rest their
#      summaries, as `culprit history prune` leaves a store): check, history --limit
#      30, history (the whole chain), report, compare (the two newest run files),
#      junit (the newest run file);
#   B. COMMITS_B commits x TESTS_B tests (100 x 100,000): the same commands, those of
#      BIG_COMMANDS only (default: all; each holds every run it reads in memory, about
#      1.4 KB per test-run summaries-only, so history and report at full size need
#      about 6 GB, check about 4.6 GB);
#   C. `culprit history push` of SYNC runs (SYNC_TESTS tests, default 100, x 30 samples
#      each) into a bare remote, `pull` of them into a fresh clone, and push of 1 new run
#      into a ref of SYNC runs (each stopped after PUSH_TIMEOUT seconds, default 900, and
#      said so);
#   D. linearity: `compare` of two run files and `check` of a commit, at N and 4N
#      tests; the CPU time (user+sys, which holds under load where wall time does not)
#      may grow at most 8x (quadratic work grew 12-18x: issue 23);
#   E. `compare` of two run files of CMP_TESTS tests (100,000; the goal's size), alone.
# For each command: exit status, wall time, CPU time (user+sys) and peak RSS
# (/usr/bin/time), and the machine's load before and after; the store's bytes per
# test-run. PARTS (default "a b sync linear") runs only some of A, B, C, D and E
# ("compare"); A_COMMANDS (default: all) the commands of A, as BIG_COMMANDS those of B,
# SYNC_COMMANDS (default "push pull push1") those of C. CULPRIT_OLD=PATH runs every
# command of A, B, C and E with that binary too, right after this one's, on the same
# data (C with a remote of its own): an earlier build compared in the same minutes. Each part
# prints the load before it ("beside two CPU hogs": run it in the measuring slot).
# STORES=DIR keeps the generated repositories and stores of A and B in DIR and reuses
# them on the next run (with C's run files and E's two files); GENERATE_ONLY=1 only
# generates them there (generate outside
# the measuring slot, niced, then measure inside it: a store of 100 x 100,000 is
# about 15 GB).
# usage: bench_scale.sh [--quick] CULPRIT SCALE_GENERATOR SYNC_GENERATOR
#   SCALE_GENERATOR: bench_history_scale, SYNC_GENERATOR: bench_history_gen
#   --quick: A 30 x 50, B 2 x 1,000, 10 runs synced, D at 10,000 and 40,000 tests
#            (ctest, label bench, < 30 s)
#   full:    A 1,000 x 1,000, B 100 x 100,000, 1,000 runs synced, D at 25,000 and
#            100,000 tests: about 20 GB in $TMPDIR and 30-60 minutes; run it with nice
#            on an otherwise idle machine (docs/history-format.md, "Scale").
# CMD_TIMEOUT=S stops each measured command after S seconds (its row says exit 124).
# Exit status: 0, or 1 when a command fails or D finds a command not linear.
set -euo pipefail
quick=0
[ "${1:-}" = "--quick" ] && { quick=1; shift; }
[ $# -eq 3 ] || { sed -n '/^# usage:/,/^# Exit/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
culprit=$(realpath "$1") scalegen=$(realpath "$2") gen=$(realpath "$3")
culprit_old=${CULPRIT_OLD:+$(realpath "$CULPRIT_OLD")}
if [ $quick = 1 ]; then
  commits_a=30 tests_a=50 commits_b=2 tests_b=1000 sync=10 lin=10000
else
  commits_a=${COMMITS_A:-1000} tests_a=${TESTS_A:-1000} commits_b=${COMMITS_B:-100}
  tests_b=${TESTS_B:-100000} sync=${SYNC:-1000} lin=${LIN:-25000}
fi
big_commands=${BIG_COMMANDS:-check history-30 history report compare junit}
a_commands=${A_COMMANDS:-check history-30 history report compare junit}
sync_tests=${SYNC_TESTS:-100}
sync_commands=" ${SYNC_COMMANDS:-push pull push1} "
cmp_tests=${CMP_TESTS:-100000}
[ $quick = 0 ] || cmp_tests=10000
push_timeout=${PUSH_TIMEOUT:-900}
parts=" ${PARTS:-a b sync linear} "
sampled=20 reps=200
work=$(mktemp -d "${TMPDIR:-/tmp}/culprit-bench-scale-XXXXXX")
trap 'rm -rf "$work"' EXIT
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.org
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.org
export GIT_CONFIG_NOSYSTEM=1 HOME=$work
fail() { echo "bench_scale: FAIL: $*" >&2; exit 1; }

# A repository of N first-parent commits (git fast-import), its shas oldest first.
make_repo() { # make_repo DIR N
  git init -q --initial-branch=main "$1"
  python3 - "$2" <<'EOF' | git -C "$1" fast-import --quiet
import sys
for i in range(1, int(sys.argv[1]) + 1):
    msg, data = "c%d\n" % i, "commit %d\n" % i
    print("commit refs/heads/main\nmark :%d\ncommitter bench <bench@example.org> %d +0000"
          % (i, 1767225600 + i))
    print("data %d\n%s" % (len(msg), msg), end="")
    if i > 1:
        print("from :%d" % (i - 1))
    print("M 644 inline file.txt\ndata %d\n%s" % (len(data), data))
EOF
  git -C "$1" checkout -q main
  git -C "$1" rev-list --first-parent --reverse HEAD > "$1.commits"
}

# measure LABEL DIR CMD...: runs CMD in DIR, prints its row; sets $cpu (user+sys).
measure() {
  local label=$1 dir=$2 status=0
  shift 2
  # CMD_TIMEOUT=S: each command stopped after S seconds (exit 124), to fit a slot.
  [ -z "${CMD_TIMEOUT:-}" ] || set -- timeout "$CMD_TIMEOUT" "$@"
  (cd "$dir" && /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" > "$work/out" \
    2> "$work/err") || status=$?
  read -r wall user sys kb < <(tail -1 "$work/time")
  cpu=$(echo "$user + $sys" | bc -l)
  printf '  %-34s exit %-3s %8.2f s wall %8.2f s cpu %7d MB\n' "$label" "$status" "$wall" \
    "$cpu" $((kb / 1024))
  # check and compare exit 1 on a regression (the planted one); 124: the timeout.
  [ "$status" -le 1 ] || [ "$status" = 124 ] ||
    fail "$label: exit $status: $(grep -v '^culprit: warning' "$work/err" | head -3)"
}

# both LABEL DIR ARGS...: `culprit ARGS` measured in DIR, then with CULPRIT_OLD's.
both() {
  local label=$1 dir=$2
  shift 2
  measure "$label" "$dir" "$culprit" "$@"
  [ -z "$culprit_old" ] || measure "$label (old)" "$dir" "$culprit_old" "$@"
}

# The reading commands on a history of COMMITS x TESTS (those named in $2).
reading() { # reading COMMITS TESTS "COMMANDS"
  local commits=$1 tests=$2 commands=$3 stores=${STORES:-$work}
  local repo=$stores/repo-$1x$2 hist=$stores/hist-$1x$2
  if [ ! -e "$hist.done" ]; then
    rm -rf "$repo" "$repo.commits" "$hist"
    make_repo "$repo" "$commits"
    nice -n 10 "$scalegen" gen "$hist" "$repo.commits" "$tests" \
      $((sampled < commits ? sampled : commits)) "$reps" > /dev/null
    touch "$hist.done"
  fi
  [ "${GENERATE_ONLY:-0}" = 0 ] || { echo "generated $hist"; return 0; }
  local bytes files newest older
  bytes=$(du -sb "$hist" | cut -f1)
  echo "$commits commits x $tests tests: store $((bytes / 1024 / 1024)) MB," \
    "$((bytes / (commits * tests))) bytes per test-run; load: $(uptime)"
  files=$(ls "$hist"/*.xml)
  newest=$(tail -1 <<< "$files") older=$(tail -2 <<< "$files" | head -1)
  for c in $commands; do
    case $c in
      check) both "check" "$repo" check --history "$hist" --fail-on none ;;
      history-30) both "history --limit 30" "$repo" history --history "$hist" --limit 30 ;;
      history) both "history --limit $commits (all)" "$repo" history --history "$hist" \
        --limit "$commits" ;;
      report) both "report --format json" "$repo" report --history "$hist" --format json ;;
      compare) both "compare (two run files)" "$repo" compare "$older" "$newest" \
        --fail-on none ;;
      junit) both "junit (the newest run file)" "$repo" junit "$newest" \
        --output "$work/junit.xml" ;;
    esac
  done
  [ -n "${STORES:-}" ] || rm -rf "$hist"
}

echo "load before: $(uptime)"
[[ $parts != *" a "* ]] || reading "$commits_a" "$tests_a" "$a_commands"
[[ $parts != *" b "* ]] || reading "$commits_b" "$tests_b" "$big_commands"

# C. push and pull through a bare remote: the run files generated once (kept in
# STORES), hard-linked into each pusher.
sync_with() { # sync_with CULPRIT LABEL-SUFFIX RUNS-DIR
  local bin=$1 tag=$2 runs=$3 d
  d=$(mktemp -d "$work/sync-XXXXXX")
  make_repo "$d/project" 2
  git clone -q --bare "$d/project" "$d/remote.git"
  git clone -q "file://$d/remote.git" "$d/pusher"
  git clone -q "file://$d/remote.git" "$d/puller"
  mkdir -p "$d/pusher/.culprit"
  cp -al "$runs/first" "$d/pusher/.culprit/history"
  [[ $sync_commands != *" push "* ]] || measure "history push of $sync runs$tag" "$d/pusher" \
    timeout "$push_timeout" "$bin" history push origin
  [[ $sync_commands != *" pull "* ]] || measure "history pull of $sync runs$tag" "$d/puller" \
    "$bin" history pull origin
  cp -al "$runs/next/." "$d/pusher/.culprit/history/"
  [[ $sync_commands != *" push1 "* ]] || measure "history push of 1 run into $sync$tag" \
    "$d/pusher" timeout "$push_timeout" "$bin" history push origin
  rm -rf "$d"
}
[[ $parts != *" sync "* ]] || {
runs=${STORES:-$work}/sync-$sync-$sync_tests
if [ ! -e "$runs.done" ]; then
  rm -rf "$runs"
  mkdir -p "$runs/first" "$runs/next"
  "$gen" dir 0 "$sync" "$sync_tests" 30 "$runs/first" > /dev/null
  "$gen" dir "$sync" 1 "$sync_tests" 30 "$runs/next" > /dev/null
  touch "$runs.done"
fi
if [ "${GENERATE_ONLY:-0}" = 0 ]; then
  echo "sync: $sync new runs of $sync_tests tests x 30 samples; load: $(uptime)"
  sync_with "$culprit" "" "$runs"
  [ -z "$culprit_old" ] || sync_with "$culprit_old" " (old)" "$runs"
fi
[ -n "${STORES:-}" ] || rm -rf "$runs" "$runs.done"
}

# E. compare of two run files of CMP_TESTS tests.
[[ $parts != *" compare "* ]] || {
cmp=${STORES:-$work}/cmp-$cmp_tests
if [ ! -e "$cmp.done" ]; then
  rm -rf "$cmp"
  mkdir -p "$cmp"
  "$gen" dir 1 2 "$cmp_tests" 10 "$cmp" > /dev/null
  touch "$cmp.done"
fi
if [ "${GENERATE_ONLY:-0}" = 0 ]; then
  echo "compare of two runs of $cmp_tests tests; load: $(uptime)"
  set -- "$cmp"/*.xml
  both "compare, $cmp_tests tests" "$work" compare "$1" "$2" --fail-on none
fi
[ -n "${STORES:-}" ] || rm -rf "$cmp" "$cmp.done"
}

# D. linearity: the CPU time at 4x the tests, at most 8x.
linear() { # linear LABEL CPU_N CPU_4N
  local ratio
  ratio=$(echo "$3 / ($2 + 0.01)" | bc -l)
  printf '  %s: %.2f s cpu at %d tests, %.2f s at %d: x%.1f\n' "$1" "$2" "$lin" "$3" \
    $((4 * lin)) "$ratio"
  awk -v r="$ratio" 'BEGIN { exit !(r <= 8) }' || fail "$1 is not linear in the tests (x$ratio)"
}
[[ $parts != *" linear "* ]] || {
echo "linearity (4x the tests); load: $(uptime)"
cpus=()
for n in "$lin" $((4 * lin)); do
  mkdir "$work/lin$n"
  "$gen" dir 1 2 "$n" 10 "$work/lin$n" > /dev/null
  set -- "$work/lin$n"/*.xml
  measure "compare, $n tests" "$work" "$culprit" compare "$1" "$2" --fail-on none
  cpus+=("$cpu")
  make_repo "$work/linrepo$n" 2
  "$scalegen" gen "$work/linhist$n" "$work/linrepo$n.commits" "$n" 0 20 > /dev/null
  measure "check, $n tests x 2 commits" "$work/linrepo$n" "$culprit" check --history \
    "$work/linhist$n" --fail-on none
  cpus+=("$cpu")
  rm -rf "$work/lin$n" "$work/linhist$n"
done
linear compare "${cpus[0]}" "${cpus[2]}"
linear check "${cpus[1]}" "${cpus[3]}"
}
echo "load after: $(uptime)"
