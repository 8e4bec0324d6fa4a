#!/usr/bin/env python3
"""The suite's schedule under `ctest -j` (docs/development.md, "How long the suite
takes"): what keeps `.ci/run` within its 8 minutes on two cores, read from ctest's
own listing of the build directory (ctest --show-only=json-v1).

- No test of culprit's own suite is RUN_SERIAL (it would leave a core idle while it
  runs); only the perf tests that culprit_discover_tests() registers are. The tests
  that measure time share the resource lock "culprit_timing" instead (unless the
  build asks for them alone: -DCULPRIT_TEST_TIMING_ALONE=ON).
- The costliest tests start first on a fresh clone (no timings yet): the sanitizer
  build, then the chain of "culprit_timing" tests, before every other test.
- fuzz.bounded shares CULPRIT_FUZZ_CI_SECONDS among its fuzzers: the seconds it
  gives each one, times their number, stay within the budget.
- A test that builds a tree of its own (ctest --build-and-test: the sanitized build,
  the fuzzers), two jobs at a time, says so (PROCESSORS 2): `.ci/run` runs one ctest
  job more than cores, counting it as two.

Run from ctest (cmake_schedule, label unit) or by hand:
python3 tests/cmake/check_schedule.py CTEST BUILD_DIR SOURCE_DIR
"""

import glob
import json
import os
import re
import subprocess
import sys

TIMING_LOCK = "culprit_timing"


def tests_of(ctest, build_dir):
    """name -> (properties, command) of every test ctest lists in BUILD_DIR."""
    out = subprocess.run([ctest, "--test-dir", build_dir, "--show-only=json-v1"],
                         check=True, capture_output=True, text=True).stdout
    tests = {}
    for t in json.loads(out)["tests"]:
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        tests[t["name"]] = (props, t.get("command", []))
    return tests


def cache_value(build_dir, name):
    with open(os.path.join(build_dir, "CMakeCache.txt"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^%s:[A-Z]+=(.*)$" % re.escape(name), line)
            if m:
                return m.group(1)
    return None


def check_serial(tests, errors):
    for name, (props, _) in sorted(tests.items()):
        if props.get("RUN_SERIAL") and "perf" not in props.get("LABELS", []):
            errors.append("%s is RUN_SERIAL: give it the resource lock '%s' "
                          "(culprit_timing_lock())" % (name, TIMING_LOCK))


def check_order(tests, errors):
    def cost(name):
        return float(tests[name][0].get("COST", 0))
    timing = [n for n, (p, _) in tests.items() if TIMING_LOCK in p.get("RESOURCE_LOCK", [])]
    others = [n for n in tests if n not in timing and n != "sanitizers.asan_ubsan"]
    if "sanitizers.asan_ubsan" in tests:
        top = max(cost(n) for n in tests)
        if cost("sanitizers.asan_ubsan") < top or top == 0:
            errors.append("sanitizers.asan_ubsan does not start first (COST %g, highest %g)"
                          % (cost("sanitizers.asan_ubsan"), top))
    if timing and others:
        low = min(cost(n) for n in timing)
        high = max(others, key=cost)
        if low <= cost(high):
            errors.append("the '%s' tests (COST from %g) do not start before %s (COST %g)"
                          % (TIMING_LOCK, low, high, cost(high)))


def check_fuzz(tests, build_dir, source_dir, errors):
    if "fuzz.bounded" not in tests:
        return
    command = tests["fuzz.bounded"][1]
    each = [a.split("=", 1)[1] for a in command if a.startswith("-DCULPRIT_FUZZ_SECONDS=")]
    if not each:
        return  # clang not found: the test only says so
    budget = int(cache_value(build_dir, "CULPRIT_FUZZ_CI_SECONDS"))
    count = len(glob.glob(os.path.join(source_dir, "tests", "fuzz", "fuzz_*.c")))
    seconds = int(each[0])
    if seconds < 1 or (seconds * count > budget and seconds > 1):
        errors.append("fuzz.bounded gives each of %d fuzzers %d s: not within "
                      "CULPRIT_FUZZ_CI_SECONDS=%d" % (count, seconds, budget))


def check_processors(tests, errors):
    for name, (props, command) in sorted(tests.items()):
        if "--build-and-test" in command and int(props.get("PROCESSORS", 1)) < 2:
            errors.append("%s builds a tree of its own (--build-and-test) but is not "
                          "PROCESSORS 2" % name)


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: check_schedule.py CTEST BUILD_DIR SOURCE_DIR")
    ctest, build_dir, source_dir = sys.argv[1:]
    tests = tests_of(ctest, build_dir)
    errors = []
    alone = cache_value(build_dir, "CULPRIT_TEST_TIMING_ALONE") in ("ON", "TRUE", "1")
    if not alone:
        check_serial(tests, errors)
        check_order(tests, errors)
    check_fuzz(tests, build_dir, source_dir, errors)
    check_processors(tests, errors)
    for e in errors:
        print("cmake_schedule: " + e, file=sys.stderr)
    if errors:
        sys.exit(1)
    print("cmake_schedule: %d tests; %s; fuzz within budget; nested builds PROCESSORS 2"
          % (len(tests), "the timing tests alone (CULPRIT_TEST_TIMING_ALONE)" if alone
             else "serial only the perf tests; costliest first"))


if __name__ == "__main__":
    main()
