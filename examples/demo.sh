#!/usr/bin/env bash
# The README's demo command: installs what is missing (Debian 12, apt-get), builds
# culprit and its examples, runs the examples' perf tests, records their history
# and prints each test's result with its speed category.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

bash .ci/install-deps
build=${CULPRIT_BUILD_DIR:-build/demo}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCULPRIT_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null

out=${CULPRIT_DEMO_OUT:-$root/demo-out}
history=$out/history
mkdir -p "$out"
status=0
for bin in "$build/examples/fib/fib_perf" "$build/examples/sort/sort_perf"; do
  echo
  "$bin" --history "$history" --junit "$out/$(basename "$bin").junit.xml" || status=$?
done

echo
echo "History of every demo run so far ($(ls "$history"/*.xml | wc -l) files): $history"
echo "Category assignments: $history/categories.json"
echo "JUnit reports for CI: $out/*.junit.xml"
echo "Judge a later commit's runs against these: $build/framework/cli/culprit check --history $history"
exit "$status"
