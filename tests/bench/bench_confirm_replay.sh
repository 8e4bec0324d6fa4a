#!/usr/bin/env bash
# Which per-run figure and which rule hold paired confirmation under load
# (docs/detection.md, "Paired confirmation")? Records runs of a ~1 ms test (the
# bench_confirm.sh binary: three tests, the judged one run alone) in pairs for
# SECONDS: the base against itself at another commit (A/A), +5% and +10%, the order
# within pairs alternating as a confirmation's does; then prints, per effect, the
# spread of the pairs' differences on each per-run figure (judged mean time, mean CPU
# time, CPU floor = the fastest sample's CPU time) and replays confirmations on
# resampled pairs: the t interval on CPU means (an older rule, at the looks 10, 20, 30),
# and the rule culprit uses (comparison.c, sign.c): CPU floors judged by the sign test
# at every regular look (10, 13, 20, 30 pairs: a confirmation's extra look at 13), each
# bound missing at most 0.0085 / 4 (the confidence 0.99 less the early looks' share,
# split over the four looks: slower when the lower bound is above 0 and the median
# above the 2% threshold, not slower when the upper bound is below it), and the
# equivalence stop at every look (4, 6, 10, 13, 20, 30 pairs: not slower when the
# one-sided 80% upper bound, the sign test's at tail 0.2, is below the threshold);
# REGULAR="10 20 30" replays the looks before the extra one (tail 0.0085 / 3).
# Run it beside two CPU hogs; the load is printed before and after.
# usage: bench_confirm_replay.sh LIBCULPRIT INCLUDE_DIR [SECONDS (300) [REPLAYS (1000)]]
set -euo pipefail
lib=$(realpath "$1") include=$(realpath "$2") secs=${3:-300} replays=${4:-1000}
here=$(dirname "$(realpath "$0")")
work=$(mktemp -d /tmp/culprit-bench-replay-XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
sed -n '/^cat > "\$repo\/perf.c"/,/^CEOF/p' "$here/bench_confirm.sh" | sed '1d;$d' > "$work/perf.c"
libs=$(pkg-config --libs cmocka libgit2 jansson gsl libxml-2.0)
cc -O1 -I"$include" -o "$work/perf" "$work/perf.c" "$lib" $libs -lm
for e in r0:1000000 e0:1000000 e5:1050000 e10:1100000; do
  mkdir -p "$work/${e%%:*}" && echo "n = ${e##*:}" > "$work/${e%%:*}/work.conf"
done
# pairs: (good, candidate) in alternating order, every effect twice per cycle
order=(r0 e0 e5 r0 r0 e10 e0 r0 r0 e5 e10 r0)
echo "load before: $(uptime)"
end=$(($(date +%s) + secs)) i=0
while [ "$(date +%s)" -lt "$end" ]; do
  for v in "${order[@]}"; do
    i=$((i + 1))
    (cd "$work/$v" && CULPRIT_HISTORY_DIR=$work/runs/$(printf %05d $i)_$v CULPRIT_FAIL_ON=none \
      CULPRIT_HISTORY_PACK=0 CULPRIT_COMMIT=0000000000000000000000000000000000000001 \
      CULPRIT_FILTER=work_1ms "$work/perf" --quiet > /dev/null 2>&1) || true
  done
done
echo "load after recording: $(uptime)"
python3 - "$work/runs" "$replays" <<'PY'
import glob, math, os, random, re, statistics as st, sys
from math import comb
rows = []
for d in sorted(glob.glob(sys.argv[1] + "/0*")):
    xs = glob.glob(d + "/*.xml")
    if not xs:
        rows.append(None); continue
    t = open(xs[0]).read()
    c = [float(a) for a in re.search(r"\ncpu_ns ([^\n<]+)", t).group(1).split()]
    rows.append((d.rsplit("_", 1)[1], float(re.search(r"\njudged-mean (\S+)", t).group(1)),
                 st.mean(c), min(c)))
figures = {"mean time": 1, "mean CPU": 2, "CPU floor": 3}
pairs = {}
for k in range(0, len(rows) - 1, 2):
    a, b = rows[k], rows[k + 1]
    if not a or not b: continue
    g, c = (a, b) if a[0] == "r0" else (b, a)
    if g[0] == "r0" and c[0] != "r0":
        pairs.setdefault(c[0], []).append({f: c[i] / g[i] - 1 for f, i in figures.items()})
def sign(d, tail):
    d = sorted(d); n = len(d); s, k = 0.0, -1
    for j in range(n + 1):
        s += comb(n, j) / 2 ** n
        if s > tail: break
        k = j
    return (-math.inf, math.inf) if k < 0 else (d[k], d[n - 1 - k])
TQ = {9: 3.69, 19: 3.17, 29: 3.02}  # t quantiles at two-sided 0.991 (regular looks)
def t_ci(d):
    if len(d) >= 20:  # Tukey's severe fences, as culprit judges 20 values or more
        q1, _, q3 = st.quantiles(d, n=4, method="inclusive")
        d = [x for x in d if q1 - 3 * (q3 - q1) <= x <= q3 + 3 * (q3 - q1)]
    m, h = st.mean(d), TQ.get(len(d) - 1, 3.0) * st.stdev(d) / math.sqrt(len(d))
    return m, m - h, m + h
REGULAR = tuple(int(n) for n in os.environ.get("REGULAR", "10 13 20 30").split())
def confirm(seq, rule, thr=0.02):
    regular = REGULAR if rule == "floor+sign" else (10, 20, 30)
    for n in (4, 6) + regular if rule == "floor+sign" else regular:
        d = seq[:n]
        if rule == "floor+sign":
            if n in regular:
                m, (lo, hi) = st.median(d), sign(d, 0.0085 / len(regular))
                if lo > 0 and m > thr: return 1, n
                if hi < thr: return 0, n
            if sign(d, 0.2)[1] < thr: return 0, n  # the equivalence stop
            continue
        m, lo, hi = t_ci(d)
        if lo > 0 and m > thr: return 1, n
        if hi < thr: return 0, n
    return -1, 30
random.seed(1)
print("%-4s %5s  %-10s %8s %8s %8s" % ("", "pairs", "figure", "median", "MAD", ">15%"))
for e in ("e0", "e5", "e10"):
    for f in figures:
        v = [p[f] for p in pairs.get(e, [])]
        if len(v) < 2: continue
        m = st.median(v)
        print("%-4s %5d  %-10s %+7.2f%% %7.2f%% %7.1f%%" % (e, len(v), f, 100 * m,
              100 * st.median([abs(x - m) for x in v]), 100 * sum(abs(x) > .15 for x in v) / len(v)))
print("replayed confirmations (%s per effect, pairs resampled):" % sys.argv[2])
for rule, f in (("t on CPU means", "mean CPU"), ("floor+sign", "CPU floor")):
    for e in ("e0", "e5", "e10"):
        v = [p[f] for p in pairs.get(e, [])]
        if len(v) < 2: continue
        res = [confirm([random.choice(v) for _ in range(30)], rule) for _ in range(int(sys.argv[2]))]
        print("  %-15s %-4s slower %5.1f%%  not slower %5.1f%%  unknown %5.1f%%  median pairs %d" % (
            rule, e, 100 * sum(r == 1 for r, _ in res) / len(res),
            100 * sum(r == 0 for r, _ in res) / len(res), 100 * sum(r == -1 for r, _ in res) / len(res),
            st.median(n for _, n in res)))
PY
echo "load after: $(uptime)"
