#!/usr/bin/env bash
# ci_workflow_test.sh: the CI and install recipes of the docs, run as printed, the
# way a new user meets them (issue 27).
#   - examples/ci/github-actions.yml: every `run:` step as written, with GitHub's
#     shell (bash -eo pipefail) and its `if: always()` rule, in two depth-1 clones of
#     a bare remote (runner A at commit 1, runner B at commit 2): history pull,
#     build, ctest -L perf with CULPRIT_JUNIT=junit/, culprit junit, check, report,
#     history push. "Install culprit" (root, network) is the one step not run: the
#     test suite's installed prefix stands for it.
#   - README.md's blocks marked `<!-- recipe: ci-junit -->` (with compare of runner
#     A's artifact) and `<!-- recipe: ci-history -->`, in runner B.
#   - docs/cmake.md's blocks marked `<!-- recipe: pkg-config -->`, `pkg-config-static`
#     and `pkg-config-trace`, /opt/culprit replaced by the prefix.
#   - culprit -C DIR from the build directory.
# The project is the README's tutorial (its ```c and ```cmake blocks) around a fib
# library. Nothing asserts a time; commit 2 only makes fib slower.
# usage: ci_workflow_test.sh SOURCE_DIR PREFIX LIBDIR
set -euo pipefail
src=$1 prefix=$2 libdir=$3

fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d /tmp/culprit-ci-workflow-XXXXXX)
trap 'rm -rf "$work"' EXIT
export GIT_AUTHOR_NAME=ci GIT_AUTHOR_EMAIL=ci@example.org
export GIT_COMMITTER_NAME=ci GIT_COMMITTER_EMAIL=ci@example.org
export GIT_CONFIG_NOSYSTEM=1 HOME=$work NO_COLOR=1
# What "Install culprit" leaves behind: the command on the PATH, the package found.
export PATH=$prefix/bin:$PATH CMAKE_PREFIX_PATH=$prefix
export PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig
command -v culprit | grep -q "^$prefix/" || fail "culprit is not the installed one"

. "$(dirname "$0")/recipes.sh" # block FILE MARKER, section FILE HEADING FENCE
for m in ci-junit ci-history; do
  [ -n "$(block "$src/README.md" $m)" ] || fail "README.md has no '$m' recipe"
done
for m in pkg-config pkg-config-static pkg-config-trace; do
  [ -n "$(block "$src/docs/cmake.md" $m)" ] || fail "docs/cmake.md has no '$m' recipe"
done

# The project: the README's tutorial around a fib library.
git init -q -b main "$work/project" && cd "$work/project"
section "$src/README.md" "## Five-minute tutorial" '```c' > fib_perf.c
echo 'int fib(int n);' > fib.h
fib_c() { # EXTRA: a statement run on every call (commit 2 makes fib slower)
  printf '#include "fib.h"\nint fib(int n)\n{\n    %s\n    return n < 2 ? n : fib(n - 1) + fib(n - 2);\n}\n' "$1" > fib.c
}
fib_c ""
{
  printf 'cmake_minimum_required(VERSION 3.17)\nproject(fib LANGUAGES C)\nenable_testing()\n'
  printf 'add_library(fib STATIC fib.c)\n'
  section "$src/README.md" "## Five-minute tutorial" '```cmake'
} > CMakeLists.txt
grep -q culprit_discover_tests CMakeLists.txt || fail "no CMake block in the README's tutorial"
printf 'build/\n.culprit/\njunit/\nperf-report.xml\nculprit-check.xml\nculprit-report/\n' > .gitignore
git add -A && git commit -q -m "fib and its perf tests"
git init -q --bare -b main "$work/remote.git"
git remote add origin "file://$work/remote.git" && git push -q origin main
c1=$(git rev-parse HEAD)

# The workflow's steps, one file each: NAME, IF and the script.
python3 - "$src/examples/ci/github-actions.yml" "$work/steps" <<'EOF'
import os, sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
job = next(iter(doc["jobs"].values()))
os.makedirs(sys.argv[2])
for i, step in enumerate(job["steps"]):
    if "run" not in step:
        continue
    with open(os.path.join(sys.argv[2], "%02d" % i), "w") as f:
        f.write("%s\n%s\n%s" % (step.get("name", ""), step.get("if", ""), step["run"]))
EOF
ls "$work/steps" | grep -q . || fail "no run: steps in the workflow"

# Plays the workflow in the current clone as GitHub would on a push: after a
# failed step only `if: always()` steps run. The status of each step is kept.
play() { # LOG-PREFIX
  local failed=0 name cond status
  export GITHUB_STEP_SUMMARY=$work/$1-summary.md GITHUB_PATH=$work/$1-path RUNNER_TEMP=$work/$1-tmp
  mkdir -p "$RUNNER_TEMP"
  for f in "$work"/steps/*; do
    name=$(sed -n 1p "$f") cond=$(sed -n 2p "$f")
    [ "$name" = "Install culprit" ] && continue
    [ "$failed" = 1 ] && [[ $cond != *"always()"* ]] && continue
    tail -n +3 "$f" > "$work/step.sh"
    set +e; bash --noprofile --norc -eo pipefail "$work/step.sh" > "$work/$1-$name.log" 2>&1
    status=$?; set -e
    echo "$status" > "$work/$1-$name.status"
    [ "$status" = 0 ] || failed=1
  done
}
status_of() { cat "$work/$1-$2.status" 2>/dev/null || echo "not run"; }
expect_ok() { # LOG-PREFIX STEP
  [ "$(status_of "$1" "$2")" = 0 ] || fail "$1: step '$2' exited $(status_of "$1" "$2"):
$(cat "$work/$1-$2.log" 2>/dev/null)"
}

# Runner A: commit 1, a depth-1 clone.
git clone -q --depth 1 "file://$work/remote.git" "$work/a" && cd "$work/a"
play a
for step in Build "Pull the shared performance history" "Run the perf tests" \
            "Check against the baseline" Summary Report "Push the new runs to the shared history"; do
  expect_ok a "$step"
done
# The JUnit reports are where the command was typed, not under build/.
[ "$(ls junit/*.xml | wc -l)" = 2 ] || fail "runner A: junit/ holds $(ls junit 2>/dev/null | wc -l) reports"
[ "$(grep -c '<testcase ' perf-report.xml)" = 2 ] || fail "runner A: perf-report.xml lacks a test"
runs=$(git --git-dir="$work/remote.git" ls-tree -r --name-only refs/culprit/history | grep -c '\.xml$')
[ "$runs" = 2 ] || fail "runner A pushed $runs runs, not 2"
# From the build directory: -C names the repository, as git -C does.
(cd build && culprit -C .. check > "$work/c-check.log" 2>&1) ||
  fail "culprit -C .. check from build/: $(cat "$work/c-check.log")"
grep -q "fib_perf.fib_24" "$work/c-check.log" || fail "culprit -C .. check: $(cat "$work/c-check.log")"
set +e; culprit -C "$work/nowhere" check > "$work/c-bad.log" 2>&1; status=$?; set -e
[ "$status" = 2 ] && grep -q "cannot change to '$work/nowhere'" "$work/c-bad.log" ||
  fail "culprit -C to a missing directory exited $status: $(cat "$work/c-bad.log")"

# The bash completion offers the history's tests after --test, --fail-on's levels.
complete_words() {
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _culprit
           echo "${COMPREPLY[*]}"' bash "$src/completion/culprit.bash" "$@"
}
[ "$(complete_words culprit check --test fib_perf.fib_2)" = "fib_perf.fib_20 fib_perf.fib_24" ] ||
  fail "completion after --test: '$(complete_words culprit check --test fib_perf.fib_2)'"
[ "$(complete_words culprit check --fail-on "")" = "major minor none uncompared" ] ||
  fail "completion after --fail-on: '$(complete_words culprit check --fail-on "")'"

# Commit 2: fib does more work per call.
cd "$work/project" && fib_c "for (volatile int i = 0; i < 4; i++) {}"
git commit -q -am "fib: more work per call" && git push -q origin main
c2=$(git rev-parse HEAD)

# Runner B: commit 2, another depth-1 clone; it judges against runner A's runs.
git clone -q --depth 1 "file://$work/remote.git" "$work/b" && cd "$work/b"
[ -f .git/shallow ] && [ "$(git rev-parse HEAD)" = "$c2" ] || fail "runner B is not a depth-1 clone of commit 2"
play b
for step in Build "Pull the shared performance history" "Run the perf tests" Summary Report \
            "Push the new runs to the shared history"; do
  expect_ok b "$step"
done
case $(status_of b "Check against the baseline") in 0|1) ;; *)
  fail "runner B's check: $(cat "$work/b-Check against the baseline.log")" ;; esac
grep -q "${c1:0:12}" "$work/b-Check against the baseline.log" ||
  fail "runner B's check does not judge against commit 1: $(cat "$work/b-Check against the baseline.log")"
runs=$(git --git-dir="$work/remote.git" ls-tree -r --name-only refs/culprit/history | grep -c '\.xml$')
[ "$runs" = 4 ] || fail "the remote holds $runs runs after runner B, not 4"

# The README's blocks in runner B, with runner A's artifact as the baseline.
mkdir baseline && cp "$work/a/perf-report.xml" baseline/ && rm -rf junit perf-report.xml
block "$src/README.md" ci-junit > "$work/ci-junit.sh"
set +e; bash -eo pipefail "$work/ci-junit.sh" > "$work/ci-junit.log" 2>&1; status=$?; set -e
[ "$status" = 0 ] || [ "$status" = 1 ] || fail "README ci-junit exited $status: $(cat "$work/ci-junit.log")"
[ "$(grep -c '<testcase ' perf-report.xml)" = 2 ] || fail "README ci-junit: no merged report"
grep -q "fib_perf.fib_24" "$work/ci-junit.log" && grep -q "fib_perf.fib_20" "$work/ci-junit.log" ||
  fail "compare of two merged reports does not judge both tests: $(cat "$work/ci-junit.log")"
# check on CI artifacts alone: the two runners' merged reports as the history.
mkdir "$work/artifacts" && cp baseline/perf-report.xml "$work/artifacts/a.xml"
cp perf-report.xml "$work/artifacts/b.xml"
set +e; culprit check --history "$work/artifacts" > "$work/artifacts.log" 2>&1; status=$?; set -e
[ "$status" = 0 ] || [ "$status" = 1 ] || fail "check on merged reports exited $status: $(cat "$work/artifacts.log")"
grep -q "fib_perf.fib_24.*${c1:0:12}" "$work/artifacts.log" && ! grep -qi "skipped\|warning" "$work/artifacts.log" ||
  fail "check on merged reports does not judge against commit 1: $(cat "$work/artifacts.log")"
block "$src/README.md" ci-history > "$work/ci-history.sh"
set +e; bash -eo pipefail "$work/ci-history.sh" > "$work/ci-history.log" 2>&1; status=$?; set -e
[ "$status" = 0 ] || fail "README ci-history exited $status: $(cat "$work/ci-history.log")"

# The install recipes of docs/cmake.md, the prefix for /opt/culprit.
mkdir "$work/pc" && cp "$work/project/fib.c" "$work/project/fib.h" "$work/project/fib_perf.c" "$work/pc/"
printf '#include "fib.h"\nint main(void) { return fib(20) == 6765 ? 0 : 1; }\n' > "$work/pc/fib_main.c"
cd "$work/pc"
for m in pkg-config pkg-config-static pkg-config-trace; do
  block "$src/docs/cmake.md" $m | sed "s,/opt/culprit/lib,$prefix/$libdir,g; s,/opt/culprit,$prefix,g" \
    > "$work/$m.sh"
  bash -eo pipefail "$work/$m.sh" > "$work/$m.log" 2>&1 || fail "docs/cmake.md $m: $(cat "$work/$m.log")"
done
grep -qx "fib_24" "$work/pkg-config.log" || fail "the pkg-config build lists no fib_24: $(cat "$work/pkg-config.log")"
ldd "$work/pc/fib_perf" | grep -q libculprit && fail "the static recipe linked libculprit.so"
grep -q "fib" "$work/pkg-config-trace.log" || fail "the traced build's tree has no fib: $(cat "$work/pkg-config-trace.log")"
echo "ok: the workflow, README's CI blocks and docs/cmake.md's pkg-config recipes ran as written"
