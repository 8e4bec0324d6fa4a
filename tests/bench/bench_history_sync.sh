#!/usr/bin/env bash
# Benchmark: the shared history in git (`culprit history pull/push`, docs/cli.md,
# "Shared history") at scale, with synthetic runs (bench_history_gen, no tests run):
#
#   1. a store of COMMITS runs (one per commit) x TESTS tests x SAMPLES samples on a
#      bare remote, written by `git fast-import`; the ref's packed size, per
#      test-run, as fast-import packs it and after `git repack -a -d`;
#   2. a clone pulls it whole once, then the remote gains NEW runs and the clone
#      pulls them: the time of `culprit history pull`, beside a plain
#      `git fetch` of the same ref into an identical clone (what git alone costs);
#      then the time of a `culprit check` that reads all the ref's runs;
#   3. PUSHERS depth-1 clones with 10 runs each push to one bare remote at once:
#      all runs present, none duplicated, the wall time and the rounds it took;
#   4. `culprit history push` of PUSH new runs of PUSH_TESTS tests (30 samples) into
#      an empty bare remote, then of 1 new run into that ref of PUSH runs: wall,
#      CPU (user + sys, git's processes included, the remote's too: it is local
#      here) and peak RSS (issue 23: 1,000 runs did not finish in 7 minutes, 1.48 GB).
#
# usage: bench_history_sync.sh CULPRIT GEN [--quick] [--commits N] [--tests N]
#                              [--samples N] [--new N] [--pushers N] [--push N]
#                              [--push-tests N]
#   defaults: 10000 commits, 100 tests, 30 samples, 100 new, 20 pushers, push 1000
#             runs of 1000 tests
#   --quick:  200 commits, 10 tests, 100 new runs of those, 4 pushers, push 20 runs
#             of 100 tests (seconds)
# Exit status: 0 unless a run is lost or duplicated, or a command fails.
set -euo pipefail

usage() { sed -n '/^# usage:/,/^#   --quick/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 2 ] || usage
culprit=$(realpath "$1") gen=$(realpath "$2"); shift 2
commits=10000 tests=100 samples=30 new=100 pushers=20 push=1000 push_tests=1000
while [ $# -gt 0 ]; do
  case $1 in
    --quick) commits=200 tests=10 new=100 pushers=4 push=20 push_tests=100 ;;
    --commits) commits=$2; shift ;;
    --tests) tests=$2; shift ;;
    --samples) samples=$2; shift ;;
    --new) new=$2; shift ;;
    --pushers) pushers=$2; shift ;;
    --push) push=$2; shift ;;
    --push-tests) push_tests=$2; shift ;;
    *) usage ;;
  esac
  shift
done

work=$(mktemp -d "${TMPDIR:-/tmp}/culprit-bench-sync-XXXXXX")
trap 'rm -rf "$work"' EXIT
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.org
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.org
export GIT_CONFIG_NOSYSTEM=1 HOME=$work
fail() { echo "bench_history_sync: FAIL: $*" >&2; exit 1; }
now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc -l | xargs printf '%.2f'; }
size_pack_kb() { git --git-dir="$1" count-objects -v | sed -n 's/^size-pack: //p'; }

echo "load before: $(uptime)"
echo "store: $commits runs x $tests tests x $samples samples (wall_ns, cpu_ns)"

# The project: one commit on main, in a bare remote.
git init -q --bare --initial-branch=main "$work/remote.git"
git init -q --initial-branch=main "$work/project"
git -C "$work/project" commit -q --allow-empty -m project
git -C "$work/project" push -q "$work/remote.git" main

# 1. The store, written into the remote.
t=$(now)
"$gen" stream 0 "$commits" "$tests" "$samples" | git --git-dir="$work/remote.git" fast-import --quiet
echo "generated in $(since "$t") s"
kb=$(size_pack_kb "$work/remote.git")
testruns=$((commits * tests))
echo "packed by fast-import: $((kb / 1024)) MB, $(echo "$kb * 1024 / $testruns" | bc) bytes per test-run"
t=$(now)
git --git-dir="$work/remote.git" repack -a -d -q
kb=$(size_pack_kb "$work/remote.git")
echo "after git repack -a -d ($(since "$t") s): $((kb / 1024)) MB, $(echo "$kb * 1024 / $testruns" | bc) bytes per test-run"

# 2. A clone pulls the store whole, then NEW more runs.
git clone -q "file://$work/remote.git" "$work/local"
cd "$work/local"
t=$(now)
"$culprit" history pull origin
echo "first pull of $commits runs: $(since "$t") s"
cp -a "$work/local" "$work/plain"
parent=$(git --git-dir="$work/remote.git" rev-parse refs/culprit/history)
"$gen" stream "$commits" "$new" "$tests" "$samples" "$parent" |
  git --git-dir="$work/remote.git" fast-import --quiet --force
t=$(now)
"$culprit" history pull origin
pull_s=$(since "$t")
cd "$work/plain"
t=$(now)
git fetch -q origin +refs/culprit/history:refs/culprit/remotes/origin/history
fetch_s=$(since "$t")
echo "pull of $new new runs into $commits: culprit history pull $pull_s s, git fetch alone $fetch_s s"
n=$(git -C "$work/local" ls-tree -r --name-only refs/culprit/history | grep -c '\.xml$')
[ "$n" = $((commits + new)) ] || fail "the clone holds $n runs after the pull, not $((commits + new))"
# What a check pays for a store that size: it reads the runs of the ref at the commits
# of its first-parent chain (summaries only) beside the empty directory.
cd "$work/local"
t=$(now)
"$culprit" check > /dev/null 2>&1 || true
echo "culprit check at the newest commit, $n runs in the ref: $(since "$t") s"

# 3. Concurrent pushers of 10 runs each to one bare remote.
git init -q --bare --initial-branch=main "$work/shared.git"
git -C "$work/project" push -q "$work/shared.git" main
for j in $(seq "$pushers"); do
  git clone -q --depth 1 "file://$work/shared.git" "$work/job$j"
  "$gen" dir $((j * 1000)) 10 "$tests" "$samples" "$work/job$j/.culprit/history"
done
t=$(now)
pids=()
for j in $(seq "$pushers"); do
  (cd "$work/job$j" && "$culprit" history push origin > "$work/push$j.log" 2>&1) &
  pids+=($!)
done
for j in $(seq "$pushers"); do
  wait "${pids[$((j - 1))]}" || fail "pusher $j failed: $(cat "$work/push$j.log")"
done
push_s=$(since "$t")
names=$(git --git-dir="$work/shared.git" ls-tree -r --name-only refs/culprit/history | grep '\.xml$')
total=$(echo "$names" | wc -l) unique=$(echo "$names" | sort -u | wc -l)
rounds=$(sed -n 's/.*, \([0-9]*\) rounds\{0,1\})$/\1/p' "$work"/push*.log | sort -n | tail -1)
echo "$pushers concurrent pushers x 10 runs: $total runs on the remote ($unique distinct) in $push_s s, at most $rounds rounds for one pusher"
[ "$total" = $((pushers * 10)) ] || fail "$total runs on the remote, not $((pushers * 10))"
[ "$unique" = "$total" ] || fail "a run is duplicated"
for j in $(seq "$pushers"); do
  for f in "$work/job$j"/.culprit/history/*.xml; do
    # (a here-string, not a pipe: grep -q closing the pipe early made echo fail under
    # pipefail, a run reported lost that was there)
    grep -q "/$(basename "$f")\$" <<< "$names" || fail "pusher $j lost $(basename "$f")"
  done
done

# 4. One clone pushes PUSH new runs into an empty remote, then 1 more into that ref.
git init -q --bare --initial-branch=main "$work/big.git"
git -C "$work/project" push -q "$work/big.git" main
git clone -q "file://$work/big.git" "$work/pusher"
"$gen" dir 100000 "$push" "$push_tests" 30 "$work/pusher/.culprit/history"
cd "$work/pusher"
timed_push() { # LABEL: one push, its figures
  local load; load=$(uptime | sed 's/.*load average: //')
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$culprit" history push origin > "$work/push.log" 2>&1 ||
    fail "push of $1: $(cat "$work/push.log")"
  read -r wall user sys rss < "$work/time"
  echo "push of $1: wall $wall s, CPU $(echo "$user + $sys" | bc -l | xargs printf '%.2f') s (user $user, sys $sys), peak RSS $((rss / 1024)) MB, load $load"
}
timed_push "$push new runs x $push_tests tests into an empty ref ($(du -sm .culprit/history | cut -f1) MB)"
"$gen" dir 200000 1 "$push_tests" 30 .culprit/history
timed_push "1 new run into a ref of $push runs"
n=$(git --git-dir="$work/big.git" ls-tree -r --name-only refs/culprit/history | grep -c '\.xml$')
[ "$n" = $((push + 1)) ] || fail "the remote holds $n runs after the pushes, not $((push + 1))"
echo "load after: $(uptime)"
