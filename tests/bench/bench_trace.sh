#!/usr/bin/env bash
# bench_trace.sh BINDIR CULPRIT [--quick]
#
# The truth of `culprit calltree record`'s times and the trace runtime's cost, on
# the call-heavy workload trace_calls.c (BINDIR holds trace_calls_plain,
# uninstrumented; trace_calls, with culprit's runtime; trace_calls_glibc, with
# glibc's empty hooks; trace_calls_uftrace, with empty hooks uftrace takes over).
# CULPRIT is the culprit command. Every figure is CPU time, so that a loaded machine
# (other jobs, a CPU hog) changes it little, and the minimum over the runs (noise
# only adds). Three parts, in one run:
#
#   truth     each function's inclusive time over all its calls, from the
#             uninstrumented build: its CPU time minus the same build's with that
#             function's body skipped (trace_calls R FN); its share of the total
#   recorded  `culprit calltree record --baseline PLAIN -- INSTRUMENTED` (and, to
#             compare, without --baseline, and one full-mode run of the runtime,
#             as the runner's per-perf-test trees are): each function's inclusive
#             time and share against the truth. Goals (--baseline): within 10% and
#             5 points
#   overhead  per call = (instrumented - uninstrumented CPU time) / calls, for
#             glibc's empty hooks, culprit's structure, level (depth 1 timed: all
#             other calls untimed) and full modes, and `uftrace record` on the same
#             object code (in the program, and with its recorder process). Goals:
#             structure <= 2x glibc's hooks, timed <= 25 ns
#
# --quick (ctest): a tenth of the calls, 2 runs; it fails only far from the goals
# (a loaded machine can double a figure): an error above 50% on the heaviest
# function (main, the whole run: a tenth of the calls leaves the lighter functions'
# truth, a difference of two 27 ms CPU times, within its own noise), a timed call
# above 100 ns.
set -euo pipefail

bindir=${1:?usage: bench_trace.sh BINDIR CULPRIT [--quick]}
culprit=${2:?usage: bench_trace.sh BINDIR CULPRIT [--quick]}
quick=${3:-}
plain=$bindir/trace_calls_plain
instr=$bindir/trace_calls
if [ "$quick" = --quick ]; then
  r=15000 runs=2 records=1
else
  r=150000 runs=5 records=3
fi
calls=$((r * 85)) # per outer iteration: run's loop -> l3 -> 4 l4 -> 12 l5, 8 side, 60 leaf
ur=$((r / 10))    # uftrace writes every call to disk: a tenth of the calls
fns="main l3 l4 l5 leaf side"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/culprit-bench-trace-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

lower() { if [ -z "$1" ] || [ "$2" -lt "$1" ]; then echo "$2"; else echo "$1"; fi; }
traced() { # MODE LEVEL CMD...: CMD with the runtime writing $tmp/t.calltree
  local mode=$1 level=$2
  shift 2
  CULPRIT_TRACE_OUT=$tmp/t.calltree CULPRIT_TRACE_MODE=$mode CULPRIT_TRACE_LEVEL=$level "$@"
}
per_call() { # TOTAL_NS BASE_NS CALLS -> ns per call
  awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { printf "%.2f", (a - b) / n }'
}
# The CPU time (user + system) of a command and its children, in ns.
cpu_of() {
  local t
  t=$( (
    "$@" >/dev/null 2>&1
    times
  ) | tail -1)
  awk -v t="$t" 'BEGIN {
    split(t, f, " "); s = 0
    for (i = 1; i <= 2; i++) { split(f[i], p, "m"); s += p[1] * 60 + p[2] }
    printf "%.0f", s * 1e9 }'
}

echo "bench_trace: trace_calls $r: $calls calls over 6 levels, min of $runs runs; load: $(uptime | sed 's/.*load/load/')"

# --- truth: the uninstrumented build, each function skipped in turn -------------
declare -A best
for _ in $(seq "$runs"); do
  best[main]=$(lower "${best[main]:-}" "$("$plain" "$r")")
  for f in l3 l4 l5 leaf side; do
    best[$f]=$(lower "${best[$f]:-}" "$("$plain" "$r" "$f")")
  done
done
declare -A truth
truth[main]=${best[main]}
for f in l3 l4 l5 leaf side; do truth[$f]=$((best[main] - best[$f])); done

# --- recorded -------------------------------------------------------------------
# inclusive FILE: "name inclusive_ns" per function of a recorded tree
inclusive() {
  awk '$1 == "function" { name[$2] = $5 } $1 == "node" && $2 > 0 { incl[name[$4]] += $7 }
       END { for (n in incl) print n, incl[n] }' "$1"
}
# full_inclusive FILE: the same from the runtime's own file of a full-mode run (the
# runner's per-perf-test trees: every call timed, the runtime's calibrated cost
# subtracted, no baseline), named with nm, scaled to CPU time as record scales.
full_inclusive() {
  local a _ n
  nm "$instr" | while read -r a _ n; do
    case " $fns " in *" $n "*) printf '0x%x %s\n' "0x$a" "$n" ;; esac
  done >"$tmp/syms"
  awk 'NR == FNR { sym[$1] = $2; next }
       $1 == "wall-ns" { w = $2 } $1 == "run-delay-ns" { rd = $2 }
       $1 == "function" { fn[$2] = sym[$4] }
       $1 == "node" && $2 > 0 && fn[$4] != "" { incl[fn[$4]] += $7 }
       END { s = (w > 0 && rd >= 0) ? 1 - rd / w : 1; for (n in incl) print n, incl[n] * s }' \
    "$tmp/syms" "$1"
}
report() { # LABEL FILE [full]: prints each function's error and share against the truth
  local label=$1 file=$2
  if [ "${3:-}" = full ]; then full_inclusive "$file" >"$tmp/incl"; else inclusive "$file" >"$tmp/incl"; fi
  awk -v label="$label" -v fns="$fns" -v tm="${truth[main]}" \
    -v t_l3="${truth[l3]}" -v t_l4="${truth[l4]}" -v t_l5="${truth[l5]}" \
    -v t_leaf="${truth[leaf]}" -v t_side="${truth[side]}" '
    { rec[$1] = $2 }
    END {
      truth["main"] = tm; truth["l3"] = t_l3; truth["l4"] = t_l4; truth["l5"] = t_l5
      truth["leaf"] = t_leaf; truth["side"] = t_side
      n = split(fns, f, " "); worst = 0; wshare = 0
      printf "  %-22s", label
      for (i = 1; i <= n; i++) {
        e = 100 * (rec[f[i]] - truth[f[i]]) / truth[f[i]]
        s = 100 * rec[f[i]] / rec["main"] - 100 * truth[f[i]] / tm
        printf " %s %+.0f%% (%+.1f)", f[i], e, s
        if (e < 0) e = -e; if (s < 0) s = -s
        # the worst error counts functions holding at least 5% of the time, the
        # share below which a call-tree diff lists nothing
        if (truth[f[i]] >= 0.05 * tm && e > worst) worst = e
        if (s > wshare) wshare = s
      }
      printf "\n  %-22s worst: %.1f%% of the time, %.1f points of share\n", "", worst, wshare
      e = 100 * (rec["main"] - tm) / tm; if (e < 0) e = -e
      print worst, wshare, e > "/dev/stderr"
    }' "$tmp/incl" 2>"$tmp/worst"
}
printf '  truth (ms, share):     '
for f in $fns; do
  awk -v f="$f" -v t="${truth[$f]}" -v m="${truth[main]}" 'BEGIN { printf " %s %.1f (%.0f%%)", f, t / 1e6, 100 * t / m }'
done
echo
echo "  recorded, error against the truth (and share, points):"
worst_all=0 share_all=0 main_all=0
for k in $(seq "$records"); do
  "$culprit" calltree record --quiet --out "$tmp/b.calltree" --baseline "'$plain' $r" -- "$instr" "$r" 2>/dev/null
  report "--baseline, run $k" "$tmp/b.calltree"
  read -r w s m <"$tmp/worst"
  main_all=$(awk -v a="$main_all" -v b="$m" 'BEGIN { print (b > a ? b : a) }')
  worst_all=$(awk -v a="$worst_all" -v b="$w" 'BEGIN { print (b > a ? b : a) }')
  share_all=$(awk -v a="$share_all" -v b="$s" 'BEGIN { print (b > a ? b : a) }')
done
"$culprit" calltree record --quiet --out "$tmp/n.calltree" -- "$instr" "$r" 2>/dev/null
report "no baseline" "$tmp/n.calltree"
traced full 1 "$instr" "$r" >/dev/null
report "full mode, one run" "$tmp/t.calltree" full
printf '  with --baseline, worst over %s records (functions with >= 5%% of the time): %s%% (goal <= 10), %s points of share (goal <= 5)\n' \
  "$records" "$worst_all" "$share_all"

# --- overhead ---------------------------------------------------------------------
# overhead [empty]: the per-call figures on the workload, or on 85 R calls of an
# empty function (the worst case: no work for the CPU to overlap the hooks with).
overhead() {
  local what=${1:-} base='' g='' s='' l='' f='' ub='' ui='' uw='' pw=''
  for _ in $(seq "$runs"); do # the configurations take turns: a burst of load hits all
    base=$(lower "$base" "$("$plain" "$r" $what)")
    g=$(lower "$g" "$("$bindir/trace_calls_glibc" "$r" $what)")
    s=$(lower "$s" "$(traced structure 1 "$instr" "$r" $what)")
    l=$(lower "$l" "$(traced level 1 "$instr" "$r" $what)")
    f=$(lower "$f" "$(traced full 1 "$instr" "$r" $what)")
  done
  glibc=$(per_call "$g" "$base" "$calls")
  structure=$(per_call "$s" "$base" "$calls")
  full=$(per_call "$f" "$base" "$calls")
  echo "  overhead per call, CPU time, ${what:-workload} ($(awk -v a="$base" -v n="$calls" 'BEGIN { printf "%.2f", a / n }') ns of work per call uninstrumented):"
  printf '    glibc'"'"'s empty hooks  %8s ns\n' "$glibc"
  printf '    structure mode       %8s ns (goal <= 2x glibc'"'"'s hooks: %s)\n' "$structure" \
    "$(awk -v s="$structure" -v g="$glibc" 'BEGIN { if (g > 0.05) printf "%.1fx", s / g; else print "the hooks cost nothing here" }')"
  printf '    level mode, untimed  %8s ns\n' "$(per_call "$l" "$base" "$calls")"
  printf '    full mode (timed)    %8s ns (goal <= 25)\n' "$full"
  if ! command -v uftrace >/dev/null 2>&1; then
    echo "    uftrace: not installed, its part is skipped (apt-get install uftrace)"
    return
  fi
  for _ in $(seq "$runs"); do
    ub=$(lower "$ub" "$("$plain" "$ur" $what)")
    ui=$(lower "$ui" "$(uftrace record --no-pager -d "$tmp/u.data" "$bindir/trace_calls_uftrace" "$ur" $what 2>/dev/null)")
    pw=$(lower "$pw" "$(cpu_of "$plain" "$ur" $what)")
    uw=$(lower "$uw" "$(cpu_of uftrace record --no-pager -d "$tmp/u.data" "$bindir/trace_calls_uftrace" "$ur" $what)")
  done
  uin=$(per_call "$ui" "$ub" "$((ur * 85))")
  printf '    uftrace record       %8s ns in the program, %s ns with its recorder\n' "$uin" \
    "$(per_call "$uw" "$pw" "$((ur * 85))")"
  printf '    uftrace / culprit    %8sx full mode, %sx structure mode (in the program)\n' \
    "$(awk -v u="$uin" -v c="$full" 'BEGIN { printf "%.1f", u / c }')" \
    "$(awk -v u="$uin" -v c="$structure" 'BEGIN { if (c > 0.05) printf "%.0f", u / c; else print "-" }')"
}
overhead
full_workload=$full
overhead empty
echo "  load after: $(uptime | sed 's/.*load/load/')"

fail=0
awk -v x="$main_all" 'BEGIN { exit !(x > 50) }' && { echo "FAIL: the recorded whole run far from the truth"; fail=1; }
awk -v x="$full_workload" 'BEGIN { exit !(x > 100) }' && { echo "FAIL: a timed call far above 25 ns"; fail=1; }
exit $fail
