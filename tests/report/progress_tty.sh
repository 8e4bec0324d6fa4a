#!/usr/bin/env bash
# Live progress appears on a terminal and nowhere else: the test binary's spinner
# while a test runs (the sample's `hangs`, killed by its 1 s timeout) and the bar
# of `culprit bisect` (a three-commit bisection of a `sleep`), each run under a
# pseudo-terminal (util-linux `script`), then with CI=true, then through a pipe.
# Exit 77 (skipped) without `script`.
# usage: progress_tty.sh RUNNER_SAMPLE CULPRIT
set -euo pipefail
sample=$1 culprit=$2
command -v script >/dev/null || { echo "SKIPPED: no 'script' (util-linux)"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/culprit-progress-XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
tty() { env -u CI -u BUILD_NUMBER -u TEAMCITY_VERSION TERM=xterm "$@"; }

# The runner: a spinner on a terminal, replaced by the result line.
tty script -qec "'$sample' --filter hangs --no-history" "$work/tty.log" >/dev/null || true
grep -aq '\[ [|/\\-] RUN  \] hangs' "$work/tty.log" || fail "no spinner on a terminal: $(cat -A "$work/tty.log")"
grep -aq $'\r\033\[K\[ ERROR  \] hangs' "$work/tty.log" || fail "the result line does not replace the spinner"
tty CI=true script -qec "'$sample' --filter hangs --no-history" "$work/ci.log" >/dev/null || true
grep -aq 'RUN  \]' "$work/ci.log" && fail "a spinner with CI set"
tty TERM=dumb script -qec "'$sample' --filter hangs --no-history" "$work/dumb.log" >/dev/null || true
grep -aq 'RUN  \]' "$work/dumb.log" && fail "a spinner on a dumb terminal"
"$sample" --filter hangs --no-history >"$work/pipe.log" 2>&1 || true
grep -aq 'RUN  \]' "$work/pipe.log" && fail "a spinner in a pipe"

# culprit bisect: a bar under the step lines on a terminal only.
repo=$work/repo
git init -q "$repo"
for d in 0.02 0.02 0.2; do
  echo "sleep $d" >"$repo/run.sh"
  git -C "$repo" add -A
  git -C "$repo" -c user.name=t -c user.email=t@e commit -q --allow-empty -m "sleep $d"
done
bisect="cd '$repo' && '$culprit' bisect --good HEAD~2 --bad HEAD --command 'sh run.sh' --min-runs 3"
tty script -qec "$bisect" "$work/bisect.log" >/dev/null || fail "bisect failed: $(cat "$work/bisect.log")"
grep -aq 'bisecting: ' "$work/bisect.log" || fail "no status line: $(cat -A "$work/bisect.log")"
grep -aq '\] bisecting: step 1 done' "$work/bisect.log" || fail "no bar after step 1: $(cat -A "$work/bisect.log")"
grep -aq 'is the first slow commit' "$work/bisect.log" || fail "no result: $(cat "$work/bisect.log")"
tty CI=1 script -qec "$bisect" "$work/bisect-ci.log" >/dev/null || fail "bisect under CI failed"
grep -aq 'bisecting: ' "$work/bisect-ci.log" && fail "a status line with CI set"
grep -aq 'step 1 ' "$work/bisect-ci.log" || fail "no step lines with CI set: $(cat "$work/bisect-ci.log")"
echo "progress_tty: ok"
