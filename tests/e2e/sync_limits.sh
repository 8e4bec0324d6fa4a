#!/usr/bin/env bash
# End to end, what `culprit history push` and `pull` accept from a remote (issue 23,
# docs/vcs.md, "Limits"): a bare repository is the remote, synthetic runs
# (bench_history_gen) the data.
#   1. A remote whose pre-receive hook declines every push: one round, exit 2, the
#      hook's message shown (it was retried 100 times, 58-78 s).
#   2. Files planted in the remote's ref as another machine could push them: a pull
#      counts only the valid run among them and names the others as skipped (it
#      counted every file as a new run); an assignment to a category culprit.json
#      does not define is refused by name, the defined one beside it adopted.
#   3. A run file over the size limit (CULPRIT_SHARED_FILE_MAX, then the 100 MiB
#      default): `check` skips it with a warning naming it, unread (a 300 MB blob
#      took 16.7 s and 1.25 GB), and `push` does not send a local one.
# usage: sync_limits.sh CULPRIT BENCH_HISTORY_GEN
set -euo pipefail
culprit=$(realpath "$1") gen=$(realpath "$2")
. "$(dirname "$0")/lib.sh"
e2e_workdir sync-limits
export GIT_CONFIG_NOSYSTEM=1 HOME=$work

git init -q --bare --initial-branch=main "$work/remote.git"
git init -q --initial-branch=main "$work/a" && cd "$work/a"
echo '{"categories": [{"name": "fast", "below": "1ms"}, {"name": "slow"}]}' > culprit.json
git add culprit.json && git commit -q -m project
git remote add origin "$work/remote.git" && git push -q origin main
head=$(git rev-parse HEAD)
"$gen" dir 0 2 3 5 .culprit/history > /dev/null

# 1. A declining hook: one round, the hook's message, exit 2.
cat > "$work/remote.git/hooks/pre-receive" << 'EOF'
#!/bin/sh
cat > /dev/null
echo round >> rounds
echo "pushes to refs/culprit/* are closed on this server" >&2
exit 1
EOF
chmod +x "$work/remote.git/hooks/pre-receive"
set +e; "$culprit" history push origin > "$work/push.log" 2>&1; status=$?; set -e
[ "$status" = 2 ] || fail "push to a declining remote exited $status: $(cat "$work/push.log")"
grep -q "pushes to refs/culprit/\* are closed on this server" "$work/push.log" ||
  fail "the hook's message is not shown: $(cat "$work/push.log")"
grep -q "not retried" "$work/push.log" || fail "the refusal is not said final: $(cat "$work/push.log")"
[ "$(wc -l < "$work/remote.git/rounds")" = 1 ] ||
  fail "the declining remote was tried $(wc -l < "$work/remote.git/rounds") times"
rm "$work/remote.git/hooks/pre-receive"
"$culprit" history push origin > "$work/push.log" 2>&1 || fail "push: $(cat "$work/push.log")"
[ "$(git --git-dir="$work/remote.git" ls-tree -r --name-only refs/culprit/history | grep -c '^runs/')" = 2 ] ||
  fail "the remote lacks the runs after the push: $(cat "$work/push.log")"

# 2. Planted files: one valid run, five that are not runs, two assignments.
"$gen" dir 10 1 3 5 "$work/new" > /dev/null
new=$(basename "$work/new"/*.xml)
plant() { # PATH CONTENT-FILE
  GIT_INDEX_FILE=$work/plant.index git update-index --add \
    --cacheinfo "100644,$(git hash-object -w "$2"),$1"
}
GIT_INDEX_FILE=$work/plant.index git read-tree refs/culprit/history
plant "runs/${new:17:2}/$new" "$work/new/$new"
echo 'not a run' > "$work/text"
plant runs/ab/garbage.xml "$work/text"
plant runs/zz/notes.txt "$work/text"
plant runs/stray.xml "$work/new/$new"
printf '<?xml version="1.0"?>\n<testsuites><testsuite name="s"><testcase name="t"/></testsuite></testsuites>\n' > "$work/foreign"
plant runs/ef/foreign.xml "$work/foreign"
plant "runs/cd/$(printf 'esc\033[31m').xml" "$work/text"
echo fast > "$work/fast" && echo turbo > "$work/turbo"
plant categories/bench_suite.test_000 "$work/fast"
plant categories/bench_suite.test_001 "$work/turbo"
tree=$(GIT_INDEX_FILE=$work/plant.index git write-tree)
git push -q origin "$(git commit-tree "$tree" -p refs/culprit/history -m planted):refs/culprit/history"

git clone -q "file://$work/remote.git" "$work/b" && cd "$work/b"
"$culprit" history pull origin > "$work/pull.log" 2> "$work/pull.err" ||
  fail "pull: $(cat "$work/pull.log" "$work/pull.err")"
cat "$work/pull.log" "$work/pull.err"
grep -q "^culprit history pull: 3 new runs from origin (5 other files skipped, not runs)$" \
  "$work/pull.log" || fail "pull counted: $(cat "$work/pull.log")"
for junk in runs/ab/garbage.xml runs/zz/notes.txt runs/stray.xml runs/ef/foreign.xml 'runs/cd/esc\\x1b\[31m.xml'; do
  grep -q "skipping refs/culprit/history:$junk: " "$work/pull.err" ||
    fail "$junk is not named as skipped: $(cat "$work/pull.err")"
done
LC_ALL=C grep -q $'\033' "$work/pull.err" && fail "a control byte reached the terminal"
grep -q 'categories/bench_suite.test_001: category "turbo" is not defined by the project' \
  "$work/pull.err" || fail "the undefined category is not refused: $(cat "$work/pull.err")"
python3 -c '
import json, sys
a = json.load(open(sys.argv[1]))["assignments"]
assert a == {"bench_suite.test_000": "fast"}, a' .culprit/history/categories.json ||
  fail "categories.json: $(cat .culprit/history/categories.json)"

# 3. Run files over the size limit, at the clone's commit so that check wants them.
big() { # NAME BYTES: a run-named file of zeros planted in the remote's ref
  head -c "$2" /dev/zero > "$work/big"
  GIT_INDEX_FILE=$work/plant.index git read-tree refs/culprit/history
  plant "runs/${head:0:2}/$1" "$work/big" && rm "$work/big"
  tree=$(GIT_INDEX_FILE=$work/plant.index git write-tree)
  git push -q origin "$(git commit-tree "$tree" -p refs/culprit/history -m big):refs/culprit/history"
}
small=20260101T000000Z_${head:0:12}_big_1_0000000000000001.xml
big "$small" 2000000
"$culprit" history pull origin > /dev/null 2> "$work/pull.err"
grep -q "runs/${head:0:2}/$small: 2000000 bytes, over the limit" \
  "$work/pull.err" && fail "a 2 MB file is over the default limit"
set +e; CULPRIT_SHARED_FILE_MAX=1M "$culprit" check > /dev/null 2> "$work/check.err"; set -e
grep -q "skipping refs/culprit/history:runs/${head:0:2}/$small: 2000000 bytes, over the limit of 1048576 bytes (CULPRIT_SHARED_FILE_MAX)" \
  "$work/check.err" || fail "check does not name the file over 1M: $(cat "$work/check.err")"
set +e; CULPRIT_SHARED_FILE_MAX=1X "$culprit" check > /dev/null 2> "$work/check.err"; status=$?; set -e
[ "$status" = 2 ] && grep -q "CULPRIT_SHARED_FILE_MAX='1X' is not a size" "$work/check.err" ||
  fail "a bad limit exited $status: $(cat "$work/check.err")"

huge=20260101T000000Z_${head:0:12}_big_1_0000000000000002.xml
big "$huge" $((101 * 1024 * 1024))
"$culprit" history pull origin > "$work/pull.log" 2> "$work/pull.err"
grep -q "skipping refs/culprit/history:runs/${head:0:2}/$huge: 105906176 bytes, over the limit of 104857600 bytes" \
  "$work/pull.err" || fail "the pull does not skip the 101 MiB file: $(cat "$work/pull.err")"
set +e
/usr/bin/time -f '%M' -o "$work/rss" "$culprit" check > /dev/null 2> "$work/check.err"
set -e
grep -q "skipping refs/culprit/history:runs/${head:0:2}/$huge: 105906176 bytes, over the limit of 104857600 bytes" \
  "$work/check.err" || fail "check does not name the 101 MiB file: $(cat "$work/check.err")"
# Unread: the check's peak memory stays far below the file's size.
[ "$(tail -1 "$work/rss")" -lt 51200 ] || fail "check's peak RSS was $(tail -1 "$work/rss") KB"

# A local run file over the limit is not pushed.
cd "$work/a"
cp "$work/new/$new" ".culprit/history/20260101T000000Z_${head:0:12}_local_1_0000000000000003.xml"
CULPRIT_SHARED_FILE_MAX=100 "$culprit" history push origin > "$work/push.log" 2>&1 ||
  fail "push: $(cat "$work/push.log")"
grep -q "not pushed: .*_local_1_0000000000000003.xml is [0-9]* bytes, over the limit of 100 bytes" \
  "$work/push.log" || fail "push: $(cat "$work/push.log")"
git --git-dir="$work/remote.git" ls-tree -r --name-only refs/culprit/history | grep -q _local_ &&
  fail "the file over the limit was pushed"
echo "ok"
