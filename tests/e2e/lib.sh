# Sourced by the end-to-end scripts, for what each of them needs first:
#   e2e_workdir NAME  a new directory /tmp/culprit-NAME-XXXXXX in $work, removed when
#                     the script exits (kept when KEEP is set, to look at after a failure);
#   fail MESSAGE      says FAIL: MESSAGE on stderr and exits 1;
#   git               git with an identity of its own, whatever the machine's config;
#   e2e_empty_commits REPO N
#                     a new repository REPO of N empty first-parent commits c1..cN, one
#                     second apart, their shas (oldest first) in REPO.commits;
#   e2e_tagged_commits REPO N FILE SLOW_FROM FAST SLOW
#                     N commits r1..rN in REPO, each tagged, writing FAST to FILE
#                     before commit SLOW_FROM and SLOW from it on (and "rK" to
#                     notes.txt, so every commit changes something).
#   e2e_fib_categories FIB_PERF N CALLS FACTOR
#                     culprit.json's categories for the Fibonacci example on this
#                     machine: "fast" ends at FACTOR times the fastest sample of
#                     fib_config with fib.conf's N and CALLS, then "slow" (a fixed
#                     1 ms put a workload in or out of "fast" by the CPU's speed).
e2e_workdir() {
  work=$(mktemp -d "/tmp/culprit-$1-XXXXXX")
  trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
}
fail() { echo "FAIL: $*" >&2; exit 1; }
git() { command git -c user.name=e2e -c user.email=e2e@example.org "$@"; }
e2e_empty_commits() {
  local repo=$1 n=$2 i
  git init -q --initial-branch=main "$repo"
  for i in $(seq "$n"); do
    GIT_COMMITTER_DATE="@$((1767225600 + i)) +0000" GIT_AUTHOR_DATE="@$((1767225600 + i)) +0000" \
      git -C "$repo" commit -q --allow-empty -m "c$i"
  done
  git -C "$repo" rev-list --first-parent --reverse HEAD > "$repo.commits"
}
e2e_tagged_commits() {
  local repo=$1 n=$2 file=$3 from=$4 fast=$5 slow=$6 r v
  for r in $(seq 1 "$n"); do
    v=$fast; [ "$r" -ge "$from" ] && v=$slow
    echo "$v" > "$repo/$file"
    echo "r$r" > "$repo/notes.txt"
    git -C "$repo" add -A
    git -C "$repo" commit -q -m "r$r"
    git -C "$repo" tag "r$r"
  done
}
e2e_fib_categories() {
  local cal
  cal=$(mktemp -d "$work/calibration-XXXXXX")
  printf 'n = %s\ncalls = %s\n' "$2" "$3" > "$cal/fib.conf"
  (cd "$cal" && FIB_CONFIG=$cal/fib.conf CULPRIT_FAIL_ON=none "$1" --filter fib_config \
    --repetitions 10 --no-history --json > "$cal/run.json" 2> "$cal/run.log") ||
    fail "calibration of fib_config failed: $(cat "$cal/run.log")"
  python3 -c '
import json, sys
fastest = json.load(open(sys.argv[1]))["tests"][0]["min_ns"]
print(json.dumps({"categories": [{"name": "fast", "below": "%dus" % (float(sys.argv[2]) * fastest / 1000 + 1)},
                                 {"name": "slow"}]}))' "$cal/run.json" "$4" ||
    fail "no fastest sample in $(cat "$cal/run.json")"
  rm -rf "$cal"
}
