#!/usr/bin/env python3
"""What `ctest -jN` does with the suite on a fresh clone (no timings yet), replayed
on the test times of a run it printed: docs/development.md, "How long the suite
takes".

    python3 tests/cmake/replay_schedule.py BUILD_DIR CTEST_OUTPUT [-j N] [--set TEST=SECONDS]...

BUILD_DIR: a configured build (its tests' COST, PROCESSORS, RUN_SERIAL,
RESOURCE_LOCK, DEPENDS and fixtures, from `ctest --show-only=json-v1`).
CTEST_OUTPUT: what a `ctest` run printed (its "Test #N: NAME ... Passed X sec"
lines give each test's time). --set gives a test another time (a change measured
alone, scaled to the run), or a new test one.

It prints the simulated wall time of the tests, ctest's order replayed as ctest
3.25 starts them (the tests that others depend on first; then by COST, highest
first; a test that needs more jobs than are free is passed over for one that fits;
RUN_SERIAL alone; one test per resource lock at a time), and the bound no order can
beat: the tests' job-seconds (time x PROCESSORS) over N jobs. When the two are close
the suite is bound by its work, not by its order.
"""

import heapq
import json
import re
import subprocess
import sys

RESULT = re.compile(r"\s*\d+/\d+ Test\s+#\d+: (\S+) \.*\s*\S.*?\s+([\d.]+) sec")


def entry(name, index, p):
    """A test as the replay reads it: ctest's properties `p` (name -> value)."""
    return {"name": name, "index": index, "cost": float(p.get("COST", 0)),
            "procs": int(p.get("PROCESSORS", 1)), "serial": bool(p.get("RUN_SERIAL", False)),
            "locks": set(p.get("RESOURCE_LOCK", [])), "setup": set(p.get("FIXTURES_SETUP", [])),
            "required": set(p.get("FIXTURES_REQUIRED", [])),
            "depends": set(p.get("DEPENDS", []))}


def listing(build_dir):
    """The tests of BUILD_DIR, in ctest's order of declaration."""
    out = subprocess.run(["ctest", "--test-dir", build_dir, "--show-only=json-v1"],
                         check=True, capture_output=True, text=True).stdout
    return [entry(t["name"], i, {x["name"]: x["value"] for x in t.get("properties", [])})
            for i, t in enumerate(json.loads(out)["tests"])]


def times_of(path):
    times = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = RESULT.match(line)
            if m:
                times[m.group(1)] = float(m.group(2))
    return times


def order_of(tests, deps):
    """ctest's list: dependency levels deepest first, each by COST (stable)."""
    levels = [set(deps)]
    while levels[-1]:
        below = set()
        for name in levels[-1]:
            below |= deps[name]
        levels[-1] -= below
        levels.append(below)
    index = {t["name"]: t["index"] for t in tests}
    cost = {t["name"]: t["cost"] for t in tests}
    order, seen = [], set()
    for level in reversed(levels[:-1]):
        for name in sorted(sorted(level, key=index.get), key=lambda n: -cost[n]):
            if name not in seen:
                order.append(name)
                seen.add(name)
    return order


def simulate(tests, times, jobs):
    """The wall time of the run, ctest -jJOBS's starts replayed."""
    by = {t["name"]: t for t in tests}
    deps = {t["name"]: set(t["depends"]) for t in tests}
    for t in tests:
        for s in tests:
            if s is not t and t["required"] & s["setup"]:
                deps[t["name"]].add(s["name"])
    pending = order_of(tests, deps)
    running, done, locks, events, now = set(), set(), set(), [], 0.0

    def procs(name):
        return min(by[name]["procs"], jobs)

    def start_next():
        free = jobs - sum(procs(n) for n in running)
        for name in list(pending):
            if free <= 0 or any(by[n]["serial"] for n in running):
                break
            t = by[name]
            if t["serial"] and running:
                continue
            if procs(name) <= free and not t["locks"] & locks and deps[name] <= done:
                pending.remove(name)
                running.add(name)
                locks.update(t["locks"])
                heapq.heappush(events, (now + times.get(name, 0.0), name))
                free -= procs(name)

    start_next()
    while events:
        now, name = heapq.heappop(events)
        finished = [name]
        while events and events[0][0] == now:
            finished.append(heapq.heappop(events)[1])
        for name in finished:
            running.discard(name)
            done.add(name)
            locks.difference_update(by[name]["locks"])
        start_next()
    return now


def bound(tests, times, jobs):
    """The wall time no order beats: the tests' job-seconds over the jobs."""
    return sum(times.get(t["name"], 0.0) * min(t["procs"], jobs) for t in tests) / jobs


def main(argv):
    args, jobs, sets = [], 3, {}
    i = 0
    while i < len(argv):
        if argv[i] == "-j":
            jobs = int(argv[i + 1])
            i += 1
        elif argv[i] == "--set":
            name, seconds = argv[i + 1].rsplit("=", 1)
            sets[name] = float(seconds)
            i += 1
        else:
            args.append(argv[i])
        i += 1
    if len(args) != 2:
        sys.exit(__doc__.split("\n\n")[1])
    tests = listing(args[0])
    times = times_of(args[1])
    times.update(sets)
    missing = [t["name"] for t in tests if t["name"] not in times]
    print("ctest -j%d: %.0f s simulated; no order below %.0f s (%d tests%s)"
          % (jobs, simulate(tests, times, jobs), bound(tests, times, jobs), len(tests),
             ", no time for: " + " ".join(missing) if missing else ""))


if __name__ == "__main__":
    main(sys.argv[1:])
