#!/usr/bin/env bash
# Names from data (issue 23, items 2, 3, 4, 5 and 8): a suite or test name with a
# slash, "..", a line break, an escape sequence or bytes that are not UTF-8, given
# by a test table (runner_names takes them from the environment), and a culprit.json
# with a category name or a limit no run can use. Each run records and reports, or
# the input is refused at load time with a message naming it; no file lands outside
# the directory it belongs in, and no control byte reaches the terminal.
# usage: names.sh CULPRIT RUNNER_NAMES
set -euo pipefail
source "$(dirname "$0")/lib.sh"
culprit=$1 names=$2
e2e_workdir names
cd "$work"
git init -q repo && cd repo && git commit -q --allow-empty -m base

# run STATUS CMD...: runs CMD (60 s at most) with stdout in out.log, stderr in
# err.log, and asserts its exit status.
run() {
  local want=$1 got=0
  shift
  timeout 60 "$@" > out.log 2> err.log || got=$?
  [ "$got" = "$want" ] || fail "$* exited $got, not $want: $(tail -c 600 out.log err.log)"
}
# no_escape FILE...: no ESC, CR or C1 CSI byte in the files (a terminal would obey it).
no_escape() {
  if LC_ALL=C grep -q $'[\x1b\r\x9b]' "$@"; then fail "a control byte reached the output: $*"; fi
}

# Item 2: the suite names the --junit DIR/ file, inside DIR, its real name in the file.
mkdir out
CULPRIT_NAMES_SUITE=../outside run 0 "$names" --history h --junit out/
CULPRIT_NAMES_SUITE=net/http run 0 "$names" --history h --junit out/
CULPRIT_NAMES_SUITE=../outside CULPRIT_JUNIT=out/ run 0 "$names" --history h
[ -z "$(ls .. | grep -v '^repo$')" ] || fail "a report was written beside the directory: $(ls ..)"
[ "$(ls -A . | grep -v '^\(\.git\|h\|out\|out\.log\|err\.log\)$' || true)" = "" ] ||
  fail "a report was written outside out/: $(ls -A .)"
[ "$(ls out | wc -l)" = 3 ] || fail "out/ should hold three reports: $(ls out)"
grep -l 'name="../outside"' out/*.xml > /dev/null || fail "the report lost the suite's name"
grep -l 'name="net/http"' out/*.xml > /dev/null || fail "the report lost the suite 'net/http'"

# Items 3 and 8: a line break and an escape sequence in a test name are recorded,
# shown escaped, and `check --junit` reports every test.
CULPRIT_NAMES_TEST='two\nlines\e[31mred' run 0 "$names" --history h
no_escape out.log err.log
grep -qF 'two\x0alines\x1b[31mred' out.log || fail "the [ PERF ] line does not show the name escaped"
run 0 "$culprit" check --history h --fail-on none --junit check.xml
[ "$(grep -c '<testcase' check.xml)" = 3 ] || fail "check --junit lost tests: $(cat check.xml)"
grep -q 'two&#10;lines' check.xml || fail "check --junit lost the line break of the name"
no_escape out.log err.log check.xml
run 0 "$culprit" categories --history h
no_escape out.log err.log
grep -qF 'names.two\x0alines\x1b[31mred' out.log || fail "categories does not escape the name"
# The name as shown names the test: --accept takes it.
run 0 "$culprit" categories --history h --accept 'names.two\x0alines\x1b[31mred'
grep -qF 'names.two\x0alines\x1b[31mred' out.log || fail "--accept did not find the name as shown"

# Item 8: a name that is not UTF-8 is recorded and assigned, never an ERROR; the
# next run finds its assignment under the same key.
CULPRIT_NAMES_TEST='bad\xff' run 0 "$names" --history h
grep -q "ERROR" out.log && fail "a name that is not UTF-8 is an error: $(cat out.log)"
grep -qF 'bad\xff' out.log || fail "the name that is not UTF-8 is not shown escaped"
python3 -c 'import json,sys; a=json.load(open("h/categories.json"))["assignments"];
sys.exit(0 if "names.bad\\xff" in a else 1)' || fail "no assignment for the name: $(cat h/categories.json)"
CULPRIT_NAMES_TEST='bad\xff' run 0 "$names" --history h --json
grep -q "fast " err.log || fail "the second run lost the category: $(cat err.log)"
python3 -c 'import json,sys; d=json.load(open("out.log"));
sys.exit(0 if d["tests"][0].get("name") == "bad\\xff" else 1)' ||
  fail "--json lost the name that is not UTF-8: $(cat out.log)"
# --list shows a name as the terminal does, and --filter takes it back.
CULPRIT_NAMES_TEST='two\nlines\e[31m' run 0 "$names" --list
[ "$(cat out.log)" = 'two\x0alines\x1b[31m' ] || fail "--list printed: $(cat -v out.log)"
CULPRIT_NAMES_TEST='two\nlines\e[31m' run 0 "$names" --no-history --filter 'two\x0alines\x1b[31m'
grep -q "1 passed" out.log || fail "--filter with the name --list showed ran nothing"
# --filter takes the name as recorded, as `check --confirm` passes it from history.
CULPRIT_NAMES_TEST='bad\xff' run 0 "$names" --no-history --filter 'bad\xff'
grep -q "1 passed" out.log || fail "--filter with the recorded name ran nothing: $(cat out.log err.log)"
run 0 "$culprit" check --history h --fail-on none --junit check.xml
xmllint --noout check.xml || fail "check --junit wrote XML that is not well-formed"

# Item 4: a category name no run could record is refused when culprit.json loads,
# by the test binary and by the command alike, naming the file, key and value.
printf '{"categories": [{"name": "fa\\nst", "below": "1ms"}, {"name": "slow"}]}\n' > culprit.json
run 2 "$names" --history h
grep -qF 'culprit.json: categories[0] "name": category name "fa\x0ast" has a control character' \
  err.log || fail "the runner's message does not name the category: $(cat err.log)"
run 2 "$culprit" categories --history h
grep -qF 'categories[0] "name"' err.log || fail "categories does not name the key: $(cat err.log)"

# Item 5: the documented limit of a day holds for numbers too, message whole.
for below in 1e308 1e14 '"100000s"'; do
  printf '{"categories": [{"name": "fast", "below": %s}, {"name": "slow"}]}\n' "$below" \
    > culprit.json
  run 2 "$culprit" categories --history h
  grep -qF 'category "fast" "below": ' err.log || fail "below $below: $(cat err.log)"
  grep -qF 'is longer than a day (86400s)' err.log || fail "below $below: $(cat err.log)"
done
rm culprit.json

# Item 8 beyond names: a commit subject is data too (a pull request); the bisection
# prints the culprit's escaped. 20x slower at c3, far above any noise.
cd "$work" && git init -q bis && cd bis
for i in 1 2 3; do
  printf '# c%s\ni=0; while [ $i -lt %s ]; do i=$((i+1)); done\n' "$i" \
    "$([ "$i" = 3 ] && echo 40000 || echo 2000)" > work.sh
  git add work.sh && git commit -q -m "$([ "$i" = 3 ] && printf 'c3 \033[31mred\033[0m' || echo "c$i")"
done
run 0 "$culprit" bisect --good HEAD~2 --bad HEAD --min-runs 3 --max-runs 6 --command 'sh work.sh'
grep -qF 'c3 \x1b[31mred\x1b[0m' out.log || fail "bisect did not print the subject escaped: $(cat out.log)"
no_escape out.log

echo "names: every name recorded and shown escaped, every bad culprit.json refused at load"
