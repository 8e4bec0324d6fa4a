#!/usr/bin/env bash
# bench_rootcause: does the call-tree diff name the function that causes a
# regression? The five root-cause cases (tests/e2e/rootcause, docs/calltree.md):
# for each, the trees of the culprit commit and of its parent are recorded
# (culprit calltree record --repeat 3, as bisect --calltree records them;
# instrumented with -finstrument-functions) and diffed
#   - by the reach rule (the default), alone and with the commit's changes
#     (--commit: changed functions first, as bisect --calltree does),
#   - by the paper's stop rule (--rule paper, Heger et al. 2013),
# and the same builds are recorded with `uftrace record` (libmcount takes the
# hooks of the same -finstrument-functions code), read as a user would: the diff
# of the two (`uftrace report --diff`, by the change of self time) and the profile
# of the slow build (`uftrace report -s self`).
# Printed per case and method: the rank of the true cause ("-" not named) and the
# number of suspects or rows listed. Perf test (e): trees rooted at the body.
# Then the one answer with the commit's changes (culprit_calltree_diff_answer(), the
# function every output names): its function, "yes" when it is the cause (the
# function the commit changed), and the load (`uptime`) when the case ended.
# usage: bench_rootcause.sh CULPRIT RUNTIME_LIB LIBCULPRIT INCLUDE_DIR FIG5_SOURCE [--quick] [CASE...]
#   --quick: case (c) only (seconds; what ctest runs, label bench).
#   LEVEL_NOISE=N (environment): also runs the culprit's build N times in level mode
#   at the cause's depth and at its caller's, alternating, and prints per run the
#   timed calls' mean in wall-clock ns, their standard deviation, the run's CPU share
#   (1 - run-delay / wall) and the mean scaled by it, as record scales it: how far
#   one depth's runs differ (docs/calltree.md, "Root-cause cases").
set -euo pipefail
culprit=$1 runtime=$2 lib=$3 include=$4 fig5=$5
shift 5
cases="a b c d e"
if [ "${1:-}" = --quick ]; then
  cases=c
  shift
fi
[ $# -gt 0 ] && cases=$*
here=$(cd "$(dirname "$0")" && pwd)
make_repo=$here/../e2e/rootcause/make_repo.sh
work=$(mktemp -d /tmp/culprit-bench-rootcause-XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
libs="$(pkg-config --libs cmocka libgit2 jansson gsl libxml-2.0) -lm"
have_uftrace=1
command -v uftrace >/dev/null || have_uftrace=0

# The rank of function $2 among the suspects of the diff document $1 ("-": none),
# and how many suspects it lists.
rank_of() {
  local n=0 rank=-
  while IFS= read -r path; do
    n=$((n + 1))
    [ "$rank" = - ] && [ "${path##* }" = "$2" ] && rank=$n
  done < <(grep '"path_text"' "$1" | sed 's/.*"path_text": "\(.*\)",*$/\1/')
  echo "$rank $n"
}

# The answer of the diff document $1: "FUNCTION yes|no" against the cause $2 (the
# kind instead of a function when it names none).
answer_of() {
  python3 - "$1" "$2" <<'PYEOF'
import json, sys
a = json.load(open(sys.argv[1])).get("answer") or {}
f = (a.get("function") or {}).get("function")
print(f or a.get("kind", "none"), "yes" if f == sys.argv[2] else "no")
PYEOF
}

# uftrace's report (stdin): the rank of function $1 by the self-time column
# (program functions only, not linux: events), and the number of rows. Seconds
# print as "1.438  s" (two blanks).
uftrace_rank() {
  awk -v f="$1" '
    function ns(v, u) { return v * (u == "s" ? 1e9 : u == "ms" ? 1e6 : u == "us" ? 1e3 : 1) }
    /^ *[-+]?[0-9.]+ +[a-z]+ +[-+]?[0-9.]+ +[a-z]+ / && !/ linux:/ {
      rows++; self[rows] = ns($3, $4); name[rows] = $NF }
    END {
      rank = "-"
      for (i = 1; i <= rows; i++) {
        r = 1
        for (j = 1; j <= rows; j++) if (self[j] > self[i]) r++
        if (name[i] == f && (rank == "-" || r < rank)) rank = r
      }
      print rank, rows + 0 }'
}

# level_noise DIR CAUSE CMD...: the runs of one depth (LEVEL_NOISE above).
level_noise() {
  local dir=$1 cause=$2 addr depth a
  shift 2
  nm "$dir/prog" >"$work/noise.nm"
  a=$(awk -v n="$cause" '$3 == n { print $1; exit }' "$work/noise.nm")
  addr=$(printf '0x%x' "0x$a")
  (cd "$dir" && CULPRIT_TRACE_OUT=$work/noise.ct CULPRIT_TRACE_MODE=structure "$@" >/dev/null 2>&1)
  depth=$(awk -v a="$addr" '$1 == "function" && $4 == a { f = $2 }
    $1 == "node" { fn[$2] = $4; dep[$2] = $5 }
    END { for (i in fn) if (fn[i] == f) { print dep[i]; exit } }' "$work/noise.ct")
  echo "level runs of the culprit's build at the cause's depth $depth and its caller's ($(uptime | sed 's/.*load/load/')):"
  for _ in $(seq "$LEVEL_NOISE"); do
    for d in $((depth - 1)) "$depth"; do
      (cd "$dir" && CULPRIT_TRACE_OUT=$work/noise.ct CULPRIT_TRACE_MODE=level CULPRIT_TRACE_LEVEL=$d \
        "$@" >/dev/null 2>&1)
      awk -v d="$d" -v depth="$depth" '$1 == "wall-ns" { w = $2 } $1 == "run-delay-ns" { rd = $2 }
        $1 == "node" && $5 == d { c += $6; s += $7; q += $8 }
        END { m = s / c; v = q / c - m * m; sh = w > 0 ? 1 - rd / w : 1
              printf "  %-6s mean %7.0f ns  sd %8.0f ns  CPU share %.2f  scaled %6.0f ns%s",
                (d == depth ? "cause" : "caller"), m, sqrt(v > 0 ? v : 0), sh, m * sh,
                (d == depth ? "\n" : "  |") }' "$work/noise.ct"
    done
  done
}

printf '%-4s %-13s %-14s %-14s %-14s %-14s %-14s %-18s %s\n' case cause "reach" "reach+commit" \
  "paper" "uftrace-diff" "uftrace-self" "answer" "load"
for c in $cases; do
  repo=$work/$c
  cause=$(bash "$make_repo" "$c" "$repo" "$fig5")
  root=() cmd=() src=()
  case $c in
    a) src=(kvstore.c) cmd=(./prog 5) ;;
    b) src=(wordindex.c) cmd=(./prog 10) ;;
    c) src=(router.c) cmd=(./prog) ;;
    d) src=(fig5.c) cmd=(./prog 100) ;;
    e) src=(-finstrument-functions-exclude-file-list=include/culprit/,cmocka.h,cmocka_private.h
            "-I$include" -I. tests/perf_parser.c parser.c "$lib")
       cmd=(./prog --quiet --no-fork --no-history) root=(--root parse_config_file) ;;
  esac
  for side in parent culprit; do
    rev=culprit
    [ "$side" = parent ] && rev=culprit^
    dir=$work/$c-$side
    git -C "$repo" worktree add -q --detach "$dir" "$rev"
    # shellcheck disable=SC2086
    (cd "$dir" && cc -O1 -g -finstrument-functions -o prog "${src[@]}" "$runtime" -lpthread $libs &&
       "$culprit" calltree record --quiet --repeat 3 --out "$work/$c-$side.calltree" -- "${cmd[@]}" \
         >/dev/null 2>"$work/$c-$side.log") || { cat "$work/$c-$side.log" >&2; exit 1; }
    if [ "$have_uftrace" = 1 ]; then
      # The same code with glibc's empty hooks, which uftrace's libmcount replaces.
      # shellcheck disable=SC2086
      (cd "$dir" && cc -O1 -g -finstrument-functions -o prog_uftrace "${src[@]}" $libs &&
         uftrace record -d "$work/$c-$side.uftrace" "./prog_uftrace" "${cmd[@]:1}" >/dev/null 2>&1)
    fi
  done
  if [ -n "${LEVEL_NOISE:-}" ]; then level_noise "$work/$c-culprit" "$cause" "${cmd[@]}"; fi
  ct=("$work/$c-parent.calltree" "$work/$c-culprit.calltree")
  "$culprit" calltree diff "${ct[@]}" "${root[@]}" --json >"$work/$c-reach.json"
  "$culprit" calltree diff "${ct[@]}" "${root[@]}" --repo "$repo" --commit culprit --json \
    >"$work/$c-commit.json"
  "$culprit" calltree diff "${ct[@]}" "${root[@]}" --rule paper --json >"$work/$c-paper.json"
  ud=- us=-
  if [ "$have_uftrace" = 1 ]; then
    ud=$(uftrace report -d "$work/$c-culprit.uftrace" --diff "$work/$c-parent.uftrace" 2>/dev/null |
      uftrace_rank "$cause")
    us=$(uftrace report -d "$work/$c-culprit.uftrace" -s self 2>/dev/null | uftrace_rank "$cause")
  fi
  fmt() { set -- $1; echo "$1 of $2"; }
  printf '%-4s %-13s %-14s %-14s %-14s %-14s %-14s %-18s %s\n' "$c" "$cause" \
    "$(fmt "$(rank_of "$work/$c-reach.json" "$cause")")" \
    "$(fmt "$(rank_of "$work/$c-commit.json" "$cause")")" \
    "$(fmt "$(rank_of "$work/$c-paper.json" "$cause")")" "$(fmt "$ud")" "$(fmt "$us")" \
    "$(answer_of "$work/$c-commit.json" "$cause")" "$(uptime | sed 's/.*load average: //')"
done
echo "(rank of the true cause of N listed; '-': not named; answer: the one function named, with"
echo " the commit's changes, and whether it is the cause; load: 1, 5 and 15 minutes)"
