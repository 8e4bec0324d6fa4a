#!/usr/bin/env bash
# The README's demo command: culprit from a regression to the function behind it.
#
#  1. installs what is missing (Debian 12, apt-get) and builds culprit;
#  2. makes a throw-away git repository from examples/wordfreq with 30 commits, one
#     of which (the 19th) slows normalize_word(), four calls deep, about tenfold;
#  3. runs the perf test at the first and the last commit and flags the regression
#     (culprit check);
#  4. bisects the 30 commits to the culprit (culprit bisect --auto);
#  5. records the call trees of the culprit and its parent, built with
#     -finstrument-functions, and diffs them (culprit calltree record / diff,
#     culprit overweight): the path down to normalize_word(), marked as changed;
#  6. writes the HTML report and prints where it is, with the summary.
#
# Everything it writes goes to demo-out/ (CULPRIT_DEMO_OUT): the repository, its
# history (.culprit/history), the JSON results (.culprit/results), the call trees
# and the report.
# Your own checkout of culprit is never modified.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
started=$(date +%s)

step() { printf '\n\033[1m==> %s\033[0m\n' "$*" >&2; }
[ -n "${NO_COLOR:-}" ] || [ ! -t 2 ] && step() { printf '\n==> %s\n' "$*" >&2; }

# CULPRIT_DEMO_BUILT=DIR: a build of culprit that is there already (RelWithDebInfo, as
# below), taken as it is: nothing installed, configured or built (culprit's own test
# e2e.demo passes the suite's build, which .ci/run made with these commands).
build=${CULPRIT_DEMO_BUILT:-${CULPRIT_BUILD_DIR:-build/demo}}
case $build in /*) ;; *) build=$root/$build ;; esac
if [ -z "${CULPRIT_DEMO_BUILT:-}" ]; then
  step "Installing what is missing and building culprit"
  bash .ci/install-deps --no-browser
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCULPRIT_BUILD_TESTS=OFF >/dev/null
  cmake --build "$build" -j"$(nproc)" --target culprit_cli culprit culprit_trace >/dev/null
fi
culprit=$build/framework/cli/culprit

out=${CULPRIT_DEMO_OUT:-$root/demo-out}
repo=$out/wordfreq
rm -rf "$repo" "$out/report" "$out/calltrees"
mkdir -p "$repo/src" "$repo/tests"

step "Making a throw-away repository with 30 commits: $repo"
# How every commit of the demo repository is built: the test binary against the
# libculprit just built (bisect runs this in each temporary checkout).
export CULPRIT_DEMO_INCLUDE=$root/include
export CULPRIT_DEMO_LIB=$build/framework/libculprit.a
export CULPRIT_DEMO_TRACE=$build/framework/trace/libculprit_trace.a
export CULPRIT_DEMO_LIBS="$(pkg-config --libs cmocka libgit2 jansson gsl libxml-2.0) -lm"
cat >"$repo/build.sh" <<'EOF'
# Builds the perf test (variables set by culprit's examples/demo.sh); INSTRUMENT=1
# builds it for call trees, as culprit_instrument() does in CMake.
flags=
[ -n "${INSTRUMENT:-}" ] && flags="-finstrument-functions
  -finstrument-functions-exclude-file-list=include/culprit/,cmocka.h,cmocka_private.h
  $CULPRIT_DEMO_TRACE -lpthread"
exec cc -O2 -g -I"$CULPRIT_DEMO_INCLUDE" -Isrc -o perf_wordfreq src/*.c tests/perf_wordfreq.c \
  "$CULPRIT_DEMO_LIB" $flags $CULPRIT_DEMO_LIBS
EOF
ex=$root/examples/wordfreq
cp "$ex/wordfreq.h" "$ex/wordfreq.c" "$ex/table.c" "$ex/normalize.c" "$repo/src/"
cp "$ex/perf_wordfreq.c" "$repo/tests/"
printf '.culprit/\nperf_wordfreq\n' >"$repo/.gitignore"
printf '# wordfreq\n\nCounts the distinct words of a text.\n' >"$repo/README.md"

# The perf test declares the category "fast". Its default end, 1 ms, would put the
# culprit commit (10 to 30 times the first commit's time, by the CPU) outside it on
# one machine and not on another (1.9 ms on one, against 0.13 ms before it): the
# repository's culprit.json ends "fast" at 3 times the first commit's fastest
# sample, measured here first, so the culprit leaves it wherever the demo runs.
step "Calibrating the category 'fast' on this machine"
fastest=$(cd "$repo" && sh build.sh && CULPRIT_FAIL_ON=none ./perf_wordfreq --quiet --no-history \
  --json | sed -n 's/^ *"min_ns": *\([0-9.]*\).*/\1/p' | head -1)
rm -f "$repo/perf_wordfreq"
[ -n "$fastest" ] || { echo "demo: the first commit's perf test gave no time" >&2; exit 1; }
fast_end=$(awk -v ns="$fastest" 'BEGIN { printf "%dus", 3 * ns / 1000 + 1 }')
printf '{"categories": [{"name": "fast", "below": "%s"}, {"name": "slow"}]}\n' "$fast_end" \
  >"$repo/culprit.json"
echo "fast: below $fast_end (the first commit: $((${fastest%.*} / 1000)) us)" >&2

n=0
commit() { # message: one commit dated a day after the previous one
  n=$((n + 1))
  local date
  date=$(printf '2026-01-%02dT10:00:00+00:00' "$n")
  git -C "$repo" add -A
  GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date git -C "$repo" -c user.name="Dana Developer" \
    -c user.email=dana@example.org -c commit.gpgsign=false commit -q -m "$1"
}
note() { printf '%s\n' "$2" >>"$repo/$1"; }

git -C "$repo" init -q -b main
commit "wordfreq: count the distinct words of a text"
note README.md "Build: sh build.sh; run: ./perf_wordfreq"; commit "README: how to build"
note src/table.c "/* Linear probing: the table is at most half full, so a probe is short. */"
commit "table: say why linear probing is enough"
note README.md "Words are compared after normalization (case, punctuation)."; commit "README: normalization"
note src/wordfreq.c "/* Splitting at blanks only: punctuation is dropped by normalize_word(). */"
commit "wordfreq: document the split"
note NEWS "0.1: first release"; commit "NEWS for 0.1"
note src/table.c "/* FNV-1a: simple, and good enough for words. */"; commit "table: cite the hash"
note README.md "The perf test counts 300 long identifiers."; commit "README: the perf test"
note src/wordfreq.h "/* All functions return -1 or (size_t)-1 when out of memory. */"
commit "wordfreq.h: errors"
note NEWS "0.2: words up to 255 characters"; commit "NEWS for 0.2"
note src/normalize.c "/* Digits count as letters: 'mp3' is one word. */"; commit "normalize: digits"
note README.md "Licence: public domain."; commit "README: licence"
note src/table.c "/* The table never grows: wordfreq_run() sizes it from the text. */"
commit "table: it does not grow"
note NEWS "0.3: faster table"; commit "NEWS for 0.3"
note src/wordfreq.c "/* Words longer than WORD_MAX are cut, not split. */"; commit "wordfreq: long words"
note README.md "Contributions welcome."; commit "README: contributing"
note tests/perf_wordfreq.c "/* The text is the same on every run: results compare. */"
commit "perf test: determinism"
note NEWS "0.4: apostrophes"; commit "NEWS for 0.4"
# The culprit: keeps apostrophes only inside words, and scans the whole word for
# every character to find out (quadratic in the word's length).
cp "$ex/normalize_slow.c" "$repo/src/normalize.c"
commit "normalize: keep apostrophes only inside words (don't, o'clock)"
note README.md "Apostrophes inside words are kept: don't is one word."; commit "README: apostrophes"
note src/table.c "/* Counts are kept per word for a later top-N report. */"; commit "table: counts"
note NEWS "0.5: top-N planned"; commit "NEWS for 0.5"
note src/wordfreq.h "/* Thread-safety: one table per thread. */"; commit "wordfreq.h: threads"
note README.md "See NEWS for changes."; commit "README: NEWS"
note src/wordfreq.c "/* isspace() in the C locale: ASCII blanks only. */"; commit "wordfreq: locale"
note NEWS "0.6: docs"; commit "NEWS for 0.6"
note tests/perf_wordfreq.c "/* 30 repetitions: the category 'fast' is declared. */"
commit "perf test: repetitions"
note src/table.c "/* strdup() copies: the text may be freed after counting. */"; commit "table: ownership"
note README.md "Questions: open an issue."; commit "README: questions"
note NEWS "0.7: release"; commit "NEWS for 0.7"
first=$(git -C "$repo" rev-list --max-parents=0 HEAD)

step "Measuring the perf test at the first and the last commit"
measure() { # rev: build (must work), then run (a regression is not an error here)
  git -C "$repo" checkout -q "$1"
  (cd "$repo" && sh build.sh)
  (cd "$repo" && CULPRIT_FAIL_ON=none ./perf_wordfreq) || true
}
measure "$first"
measure main

step "Flagging the regression: culprit check"
(cd "$repo" && "$culprit" check) || true

step "Finding the commit: culprit bisect --auto (30 commits, each step built in a temporary checkout)"
mkdir -p "$repo/.culprit/results"
# --threshold 100: a step is bad only when it is at least twice as slow as the good
# end. The regression checked is major (over tenfold), and on a shared machine a
# busy moment can make an unchanged commit look 10-20% slower (docs/bisect.md).
(cd "$repo" && "$culprit" bisect --auto --test wordfreq.count_distinct_words --threshold 100 \
  --build 'sh build.sh' --run './perf_wordfreq --quiet' --json \
  >.culprit/results/bisect.json)

culprit_sha=$(sed -n 's/^  "culprit": "\([0-9a-f]*\)",$/\1/p' "$repo/.culprit/results/bisect.json")
if [ -n "$culprit_sha" ]; then
  step "Recording the call trees of the culprit and its parent: culprit calltree record / diff"
  mkdir -p "$out/calltrees"
  for side in parent culprit; do
    rev=$culprit_sha
    [ "$side" = parent ] && rev=$culprit_sha^
    git -C "$repo" worktree add -q --detach "$out/calltrees/$side" "$rev"
    (cd "$out/calltrees/$side" && INSTRUMENT=1 sh build.sh &&
      "$culprit" calltree record --quiet --out "../$side.calltree" -- \
        ./perf_wordfreq --no-fork --no-history --quiet 2>"../$side.log") ||
      { cat "$out/calltrees/$side.log" >&2; exit 1; }
    tail -1 "$out/calltrees/$side.log" >&2
  done
  results=$repo/.culprit/results
  # Compared from the perf test's body down, per call of it: the runner calls the
  # fast body more often than the slow one (batching), so main changes shape.
  root=(--root count_distinct_words)
  (cd "$out/calltrees" &&
    "$culprit" calltree diff parent.calltree culprit.calltree --repo "$repo" \
      --commit "$culprit_sha" "${root[@]}" --json >"$results/calltree.json" &&
    "$culprit" calltree diff parent.calltree culprit.calltree --repo "$repo" \
      --commit "$culprit_sha" "${root[@]}" >diff.txt && sed -n 1,3p diff.txt &&
    "$culprit" overweight parent.calltree culprit.calltree --json >"$results/overweight.json")
fi

step "Writing the report"
(cd "$repo" && "$culprit" report --out "$out/report")

echo
echo "Demo done in $(($(date +%s) - started)) s. Open the report: file://$out/report/index.html"
echo "CI summary (Markdown): (cd $repo && $culprit report --format markdown)"
