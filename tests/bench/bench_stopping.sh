#!/usr/bin/env bash
# The stopping rules' bias under load (docs/measure.md, "Stopping" and "Preempted
# samples"): does the value one run of a test reports depend on which rule ended it,
# and on the load phase it fell in?
#
# The same two bodies (a ~0.55 ms and a ~3 us loop, one object file) are measured RUNS
# times each, the measurements taking turns so that the load touches them alike:
#   before   a culprit test binary with --keep-preempted: the loop without the
#            preemption rule, every sample judged (a precision stop once the samples
#            span 0.5 s and reach a 1% half-width, else the 5 s budget);
#   after    the same binary with its defaults: the samples during which the process
#            was preempted (the nivcsw counter rose) are left out;
#   after0   the same with --min-time 0: a precision stop as soon as 10 samples
#            reach 1% (does the stop rule still matter?);
#   gbench   Google Benchmark (libbenchmark-dev) on the same object file, its default
#            settings (at least 0.5 s of iterations), real time per iteration.
# Per measurement and body: the median of the runs' values, their spread
# ((max - min) / median) and coefficient of variation, the coefficient of variation
# of the runs' CPU time per iteration, the median share of samples preempted, and
# per stop reason how many runs ended so and the median of their values (over the
# median CPU time of all runs: 1.00 is the cost on a core of its own). Run it beside
# a CPU hog on one core (and at nice 10, as the project asks of benchmarks); the
# load is printed before and after.
# usage: bench_stopping.sh LIBCULPRIT INCLUDE_DIR [--quick | RUNS]
# --quick: 2 runs, budget 0.5 s, min time 0.1 s (ctest); RUNS defaults to 15 (the
# figures in docs/measure.md: 25).
set -euo pipefail
lib=$(realpath "$1") include=$(realpath "$2") mode=${3:-15}
runs=$mode extra=()
[ "$mode" = --quick ] && runs=2 extra=(--budget 0.5)
after_opts=("${extra[@]+"${extra[@]}"}")
[ "$mode" = --quick ] && after_opts+=(--min-time 0.1)
work=$(mktemp -d /tmp/culprit-bench-stopping-XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"

cat > work.c <<'CEOF'
static volatile unsigned long sink;
void work(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++)
        sink += i * i;
}
CEOF
cat > perf.c <<'CEOF'
#include <culprit/culprit.h>
void work(unsigned long n);
static void body_1ms(void **state) { (void)state; work(1000000); }
static void body_5us(void **state) { (void)state; work(5000); }
int main(int argc, char **argv)
{
    static const culprit_perf_test tests[] = {
        culprit_perf_test(body_1ms, .category = "slow"),
        culprit_perf_test(body_5us, .category = "slow"),
    };
    return culprit_run_group_name("bench", tests, argc, argv);
}
CEOF
cat > gbench.cc <<'CEOF'
#include <benchmark/benchmark.h>
extern "C" void work(unsigned long n);
static void body_1ms(benchmark::State &state) { for (auto _ : state) work(1000000); }
static void body_5us(benchmark::State &state) { for (auto _ : state) work(5000); }
BENCHMARK(body_1ms);
BENCHMARK(body_5us);
BENCHMARK_MAIN();
CEOF
cc -O1 -c work.c -o work.o
cc -O1 -I"$include" -o perf perf.c work.o "$lib" \
  $(pkg-config --libs cmocka libgit2 jansson gsl libxml-2.0) -lm
have_gbench=0
if [ -f /usr/include/benchmark/benchmark.h ] &&
  c++ -O1 -o gbench gbench.cc work.o -lbenchmark -lpthread 2> gbench.log; then
  have_gbench=1
else
  echo "Google Benchmark (libbenchmark-dev) not installed: its column is left out"
fi

# One line per test of a run: "MEASUREMENT BODY VALUE_NS CPU_NS STOP PREEMPTED_SHARE"
culprit_run() { # culprit_run NAME ARGS...
  local name=$1
  shift
  CULPRIT_FAIL_ON=none ./perf --no-history --json "$@" 2> /dev/null |
    python3 -c "import json,sys
for t in json.load(sys.stdin)['tests']:
    p = t['preempted']
    n = t['n'] + (0 if t['preempted_kept'] else p)
    print('$name', t['name'], t['mean_ns'], t['cpu_mean_ns'], t['stop'], p / n)"
}
gbench_run() {
  ./gbench --benchmark_format=json 2> /dev/null |
    python3 -c "import json,sys
for b in json.load(sys.stdin)['benchmarks']:
    print('gbench', b['name'], b['real_time'], b['cpu_time'], 'min_time', 'nan')"
}

echo "load before: $(uptime)"
echo "runs: $runs of each measurement"
for i in $(seq "$runs"); do
  culprit_run before --keep-preempted "${after_opts[@]+"${after_opts[@]}"}" >> values.txt
  culprit_run after "${after_opts[@]+"${after_opts[@]}"}" >> values.txt
  culprit_run after0 --min-time 0 "${extra[@]+"${extra[@]}"}" >> values.txt
  [ "$have_gbench" = 1 ] && gbench_run >> values.txt
done
python3 - values.txt <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
print("%-7s %-9s %5s %12s %8s %7s %7s %10s  %s" % ("measure", "body", "runs", "median_ns",
      "spread", "cv", "cpu_cv", "preempted", "by stop: runs x median/cpu"))
for m in ("before", "after", "after0", "gbench"):
    for body in ("body_1ms", "body_5us"):
        r = [x for x in rows if x[0] == m and x[1] == body]
        if not r:
            continue
        v = [float(x[2]) for x in r]
        cpu = statistics.median(float(x[3]) for x in r)
        med = statistics.median(v)
        cv = statistics.pstdev(v) / statistics.mean(v)
        c = [float(x[3]) for x in r]
        cpu_cv = statistics.pstdev(c) / statistics.mean(c)
        stops = {}
        for x in r:
            stops.setdefault(x[4], []).append(float(x[2]))
        by = ", ".join("%s %d x %.2f" % (s, len(xs), statistics.median(xs) / cpu)
                       for s, xs in sorted(stops.items()))
        pre = statistics.median(float(x[5]) for x in r)
        print("%-7s %-9s %5d %12.0f %7.1f%% %6.1f%% %6.1f%% %9.1f%%  %s" % (m, body, len(v), med,
              100 * (max(v) - min(v)) / med, 100 * cv, 100 * cpu_cv, 100 * pre, by))
PY
echo "load after: $(uptime)"
