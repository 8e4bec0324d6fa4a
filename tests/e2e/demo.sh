#!/usr/bin/env bash
# End to end: the README's demo command (examples/demo.sh), into a build and an
# output directory of its own. It must name the culprit commit the demo planted,
# point at normalize_word() as changed, and write a report whose page holds the
# plot, the bisection and the call tree; the JSON documents it saved must be the
# commands' own. BUILT: culprit's build that the demo takes as it is
# (CULPRIT_DEMO_BUILT) instead of configuring and building its own: the suite's, which
# .ci/run built with the commands the demo runs.
# usage: demo.sh SOURCE_DIR WORK_DIR [BUILT]
set -euo pipefail
src=$1 work=$2 built=${3:-}
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work"
CULPRIT_BUILD_DIR=$work/build CULPRIT_DEMO_BUILT=$built CULPRIT_DEMO_OUT=$work/out bash "$src/examples/demo.sh" \
  >"$work/demo.log" 2>&1 || fail "the demo exited $?: $(tail -30 "$work/demo.log")"
log=$work/demo.log
grep -q "^MAJOR       wordfreq.count_distinct_words: major regression" "$log" ||
  fail "culprit check did not flag the test: $(cat "$log")"
grep -q "^  culprit    [0-9a-f]\{12\} normalize: keep apostrophes only inside words" "$log" ||
  fail "the bisection did not name the planted commit: $(cat "$log")"
grep -Eq "^  where      .*add_word → normalize_word( → inside_word)?$" "$log" &&
  grep -Eq "^  answer     (normalize_word|inside_word) \(.*\), changed by the commit, explains" "$log" ||
  fail "the call trees did not point at normalize_word: $(cat "$log")"
page=$work/out/report/index.html
grep -q "^  report     $page$" "$log" || fail "the report's path is not printed"
for needle in '<svg class="plot"' '<g class="step bad">' 'id="steps"' \
              'class="node suspect changed"' 'id="overweight"'; do
  grep -qF "$needle" "$page" || fail "no $needle in the page"
done
for doc in bisect calltree overweight; do
  grep -q '"command": "'"${doc/calltree/calltree diff}"'"' \
    "$work/out/wordfreq/.culprit/results/$doc.json" || fail "$doc.json is not the $doc document"
done
echo "demo: ok ($(sed -n 's/^Demo done in \([0-9]*\) s.*/\1/p' "$log") s)"
