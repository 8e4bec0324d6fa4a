#!/usr/bin/env python3
"""The schedule replay (replay_schedule.py) on small planted suites whose wall time
under ctest's rules is known: fixtures first, then COST; a two-job test passed over
while one job is free; one test per resource lock; RUN_SERIAL alone. Run from ctest
(cmake_schedule_replay) or by hand."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from replay_schedule import bound, entry, simulate  # noqa: E402


def suite(*specs):
    """(name, seconds, properties) -> (tests, times)."""
    tests = [entry(name, i, props) for i, (name, _, props) in enumerate(specs)]
    return tests, {name: seconds for name, seconds, _ in specs}


def expect(what, got, want, errors):
    if abs(got - want) > 1e-9:
        errors.append("%s: %g s, expected %g s" % (what, got, want))


def main():
    errors = []
    # Two jobs: the fixture's setup first (a level deeper), beside the costliest; the
    # test that needs the fixture as soon as it is there (by COST alone: 8 s).
    tests, times = suite(("uses", 5, {"FIXTURES_REQUIRED": ["f"]}), ("cheap", 1, {}),
                         ("setup", 2, {"FIXTURES_SETUP": ["f"]}),
                         ("dear", 3, {"COST": 100}))
    expect("fixture first", simulate(tests, times, 2), 7, errors)
    # Three jobs: two one-job tests first, the two-job test passed over for the long
    # one-job test (one job free), then started when both short ones end: 30 s, not 20.
    tests, times = suite(("a", 10, {"COST": 10}), ("b", 10, {"COST": 10}),
                         ("build", 10, {"COST": 9, "PROCESSORS": 2}), ("long", 30, {"COST": 8}))
    expect("two-job test passed over", simulate(tests, times, 3), 30, errors)
    expect("bound", bound(tests, times, 3), (10 + 10 + 20 + 30) / 3, errors)
    # Two tests holding one lock never overlap, whatever the jobs; a third runs beside.
    tests, times = suite(("t1", 10, {"RESOURCE_LOCK": ["timing"]}),
                         ("t2", 10, {"RESOURCE_LOCK": ["timing"]}), ("other", 5, {}))
    expect("resource lock", simulate(tests, times, 3), 20, errors)
    # RUN_SERIAL waits for the machine to itself (x's end), and holds it.
    tests, times = suite(("x", 6, {}), ("serial", 4, {"RUN_SERIAL": True}), ("y", 2, {}))
    expect("run serial", simulate(tests, times, 3), 10, errors)
    for e in errors:
        print("cmake_schedule_replay: " + e, file=sys.stderr)
    if errors:
        sys.exit(1)
    print("cmake_schedule_replay: fixtures, COST, PROCESSORS, locks and RUN_SERIAL replayed")


if __name__ == "__main__":
    main()
