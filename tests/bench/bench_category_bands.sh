#!/usr/bin/env bash
# Automatic categories: how often does an unchanged test leave the band it was first
# assigned (a false major) under the default bands and under narrower ones?
# (docs/categories.md, "How wide the automatic categories are".)
#
# A/A: the same example perf tests (different durations: tens of microseconds to
# tens of milliseconds) are run RUNS times each, one process per run, as ctest runs
# them (--no-history: nothing recorded). Each run's mean is then placed in the bands of
# three bandings:
#   default       fast < 1 ms <= medium < 100 ms <= slow (culprit's default)
#   decades       edges at 1, 10, 100 us, 1, 10, 100 ms, 1 s, ...
#   half-decades  edges at 1, 3.16, 10, 31.6 us, ... (a factor of sqrt(10))
# and counted:
#   first   runs after the first whose mean leaves the band of the first run (what an
#           automatic assignment from the first run then calls major), per test;
#   placed  the same, averaged over where the test sits in its band: every run's mean
#           shifted by one common factor, 200 factors spread evenly over one band
#           width (log scale), so a test that happens to sit at an edge counts as
#           often as it would among a project's many tests.
# The load (uptime) is printed before and after: run it beside the machine's usual
# load, and quote it with the figures.
# usage: bench_category_bands.sh EXAMPLES_BUILD_DIR [RUNS]   (default RUNS 20)
set -euo pipefail
ex=$(realpath "$1") runs=${2:-20}
work=$(mktemp -d /tmp/culprit-bench-bands-XXXXXX)
trap 'rm -rf "$work"' EXIT

# binary:test[:calls] of different durations (the examples' perf tests): about 60 us,
# 100 us, 0.5 ms, and fib_config doing 30 and 300 fib(24) per repetition (about 2 and
# 20 ms).
printf 'n = 24\ncalls = 30\n' >"$work/fib30.conf"
printf 'n = 24\ncalls = 300\n' >"$work/fib300.conf"
tests=(
  "fib/fib_perf:fib_region"
  "sort/sort_perf:sort_merge_2000"
  "sort/sort_perf:sort_insertion_2000"
  "fib/fib_perf:fib_config:30"
  "fib/fib_perf:fib_config:300"
)

echo "load before: $(uptime)"
for spec in "${tests[@]}"; do
  IFS=: read -r rel test calls <<<"$spec"
  bin=$ex/$rel conf=${calls:+$work/fib$calls.conf}
  [ -x "$bin" ] || { echo "skipped: $bin not built" >&2; continue; }
  for ((i = 0; i < runs; i++)); do
    (cd "$work" && FIB_CONFIG=$conf CULPRIT_FAIL_ON=none "$bin" --filter "$test" --no-history \
      --json 2>/dev/null) >"$work/$test${calls:+_x$calls}.$i.json" || true
  done
done
echo "load after:  $(uptime)"

python3 - "$work" "$runs" <<'PYEOF'
import json, math, glob, os, sys
work, runs = sys.argv[1], int(sys.argv[2])
bandings = {  # the edges (ns) and the width of a band (log10)
    "default": ([1e6, 1e8], 2.0),
    "decades": ([10.0 ** k for k in range(3, 11)], 1.0),
    "half-decades": ([10.0 ** (k / 2) for k in range(6, 21)], 0.5),
}

def band(edges, x):
    return sum(1 for e in edges if x >= e)

def upper(edges, b):
    return edges[b] if b < len(edges) else math.inf

runs_of = {}
for f in sorted(glob.glob(os.path.join(work, "*.json"))):
    name = os.path.basename(f).rsplit(".", 2)[0]
    try:
        doc = json.load(open(f))
        t = [t for t in doc["tests"] if t["name"] == name.split("_x")[0]][0]
        if t["status"] == "pass" and t["mean_ns"]:
            runs_of.setdefault(name, []).append((t["mean_ns"], t["ci_low_ns"]))
    except (ValueError, KeyError, IndexError, TypeError):
        pass

SHIFTS = 100
totals = {b: [0, 0, 0, 0.0] for b in bandings}  # left, major, judged, placed majors
print(f"{'test':22} {'runs':>4} {'median':>9} {'spread':>7} {'max/min':>7}  "
      + "  ".join(f"{b:>26}" for b in bandings))
for name, xs in sorted(runs_of.items()):
    means = [m for m, _ in xs]
    lg = [math.log10(m) for m in means]
    mu = sum(lg) / len(lg)
    sd = math.sqrt(sum((v - mu) ** 2 for v in lg) / max(1, len(lg) - 1))
    cells = []
    for b, (edges, width) in bandings.items():
        b0 = band(edges, means[0])
        left = sum(1 for m, _ in xs[1:] if band(edges, m) != b0)
        major = sum(1 for _, lo in xs[1:] if lo >= upper(edges, b0))
        # placed: every run in turn assigns the band, the others are judged, with all
        # runs shifted by one common factor over one band width
        placed, pairs = 0, 0
        for j in range(SHIFTS):
            f = 10 ** (width * j / SHIFTS)
            for i, (mi, _) in enumerate(xs):
                up = upper(edges, band(edges, mi * f))
                placed += sum(1 for k, (_, lo) in enumerate(xs) if k != i and lo * f >= up)
                pairs += len(xs) - 1
        rate = placed / pairs if pairs else 0.0
        n = len(xs) - 1
        totals[b][0] += left
        totals[b][1] += major
        totals[b][2] += n
        totals[b][3] += rate * n
        cells.append(f"left {left:2} major {major:2} placed {100 * rate:4.1f}%")
    print(f"{name:22} {len(xs):4} {sorted(means)[len(means) // 2] / 1e6:7.3f}ms "
          f"{100 * (10 ** sd - 1):6.1f}% {max(means) / min(means):7.2f}  "
          + "  ".join(f"{c:>26}" for c in cells))
print("all tests (runs after the first; placed: averaged over where the tests sit):")
for b, (left, major, judged, placed) in totals.items():
    if judged:
        print(f"  {b:13} left the first run's band {left}/{judged} "
              f"({100 * left / judged:.1f}%), false majors {major}/{judged} "
              f"({100 * major / judged:.1f}%); placed: {100 * placed / judged:.1f}% false majors")
PYEOF
