#!/usr/bin/env bash
# Benchmark: bisecting a 20% regression in a ~1 ms program under the machine's real
# noise, `culprit bisect` (default settings) against `git bisect run` with a classic
# fixed-threshold script, on the same generated repositories (docs/bisect.md,
# "Benchmark: bisecting under real noise"; issue 4, "Quality figures").
#
# Each trial generates a git repository of --commits commits: a small C program whose
# loop count comes from work.conf; the first commit is fast, one commit (its position
# drawn per trial from --seed) raises the loop count so that the whole run, process
# start-up included, is about 20% slower; every other commit changes only unrelated
# files. The loop counts are calibrated on this machine at the start (printed).
#   culprit: culprit bisect --good FIRST --bad LAST --build 'cc -O2 -o prog prog.c'
#            --command ./prog --json            (builds and runs read from the JSON)
#   git:     in a clone, the good and the bad end are built and timed once (median of
#            --git-runs runs); the threshold is halfway between; then
#            git bisect start LAST FIRST; git bisect run threshold.sh, which builds the
#            commit and says bad when the median of --git-runs runs exceeds it.
# Both time the same thing: `/bin/sh -c ./prog` in the checkout (culprit runs its
# --command with /bin/sh). The tools alternate trial by trial (odd trials culprit
# first). Exit status: 0 unless a hard error (a tool failing to run, a build failing).
# With --metric cpu_ns, each trial also runs the two tools on CPU time: culprit with
# --metric cpu_ns, and git with the same threshold script timing each run's CPU time
# (user + system of /bin/sh -c ./prog and its child, from wait4) instead of its wall
# time; all four on the same repository, the CPU pair right after the wall pair.
#
# usage: bench_bisect_noise.sh CULPRIT [--quick] [--trials N] [--commits N]
#                              [--seed S] [--git-runs N] [--good-n N --bad-n N]
#                              [--keep DIR] [--metric cpu_ns]
#   --quick: 1 trial of each tool on an 8-commit repository, shorter calibration
#            (ctest: every step runs once; no figure is judged).
#   --keep: culprit's JSON of every wrong answer is kept as DIR/trial-K.json.
set -euo pipefail

usage() { sed -n '/^# usage:/,/^#   --quick/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 1 ] || usage
culprit=$1; shift
[ -x "$culprit" ] || { echo "bench_bisect_noise: $culprit is not executable" >&2; exit 2; }
culprit=$(cd "$(dirname "$culprit")" && pwd)/$(basename "$culprit")
trials=20 commits=32 seed=1 git_runs=5 good_n= bad_n= calib_runs=101 calib_rounds=5 keep=
metric=
while [ $# -gt 0 ]; do
  case $1 in
    --quick) trials=1 commits=8 calib_runs=21 calib_rounds=3 ;;
    --trials) trials=$2; shift ;;
    --commits) commits=$2; shift ;;
    --seed) seed=$2; shift ;;
    --git-runs) git_runs=$2; shift ;;
    --good-n) good_n=$2; shift ;;
    --bad-n) bad_n=$2; shift ;;
    --keep) keep=$2; shift ;;
    --metric) metric=$2; shift; [ "$metric" = cpu_ns ] || usage ;;
    *) usage ;;
  esac
  shift
done
[ "$commits" -ge 3 ] && [ "$trials" -ge 1 ] && [ "$git_runs" -ge 1 ] || usage

load_before=$(uptime)
work=$(mktemp -d "${TMPDIR:-/tmp}/culprit-bench-noise-XXXXXX")
trap 'rm -rf "$work"' EXIT
die() { echo "bench_bisect_noise: $*" >&2; exit 1; }
git() { command git -c user.name=bench -c user.email=bench@example.org \
          -c init.defaultBranch=main -c advice.detachedHead=false "$@"; }
now_ns() { date +%s%N; }

# --- helpers compiled once: the timer (median wall time of N runs of a command) ----
mkdir -p "$work/bin"
cat > "$work/bin/timer.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>
static int cmp(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}
/* timer [-m|-c] N CMD [ARG]...: runs CMD N times, prints the median wall time in ns
   (with -m the minimum: the run least disturbed by the rest of the machine; with -c
   the median CPU time, user + system of CMD and the children it waited for). */
int main(int argc, char **argv)
{
    int min = argc > 1 && argv[1][0] == '-' && argv[1][1] == 'm';
    int cpu = argc > 1 && argv[1][0] == '-' && argv[1][1] == 'c';
    argc -= min || cpu, argv += min || cpu;
    if (argc < 3)
        return 2;
    int n = atoi(argv[1]);
    long long *t = malloc(sizeof *t * (size_t)(n > 0 ? n : 1));
    if (n < 1 || !t)
        return 2;
    for (int i = 0; i < n; i++) {
        struct timespec a, b;
        int st;
        clock_gettime(CLOCK_MONOTONIC, &a);
        pid_t p = fork();
        if (p < 0)
            return 2;
        if (p == 0) {
            execvp(argv[2], argv + 2);
            _exit(127);
        }
        struct rusage ru;
        if (wait4(p, &st, 0, &ru) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            return 2;
        clock_gettime(CLOCK_MONOTONIC, &b);
        t[i] = (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
        if (cpu)
            t[i] = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
                   (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
    }
    qsort(t, (size_t)n, sizeof *t, cmp);
    printf("%lld\n", min ? t[0] : n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2);
    return 0;
}
EOF
cc -O2 -o "$work/bin/timer" "$work/bin/timer.c" || die "cannot build the timer"
timer=$work/bin/timer

# threshold.sh THRESHOLD_NS [TIMER_FLAG]: the classic fixed-threshold `git bisect run`
# script (TIMER_FLAG -c: on CPU time).
cat > "$work/bin/threshold.sh" <<EOF
#!/bin/sh
echo x >> "$work/git-builds"
cc -O2 -o prog prog.c || exit 125
t=\$("$timer" \$2 $git_runs /bin/sh -c ./prog) || exit 125
[ "\$t" -gt "\$1" ] && exit 1
exit 0
EOF
chmod +x "$work/bin/threshold.sh"

cat > "$work/prog.c" <<'EOF'
#include <stdio.h>
/* The work per run: n rounds of a linear congruential generator, n from work.conf. */
int main(void)
{
    unsigned long n = 0, i;
    FILE *f = fopen("work.conf", "r");
    if (!f || fscanf(f, "n = %lu", &n) != 1)
        return 2;
    fclose(f);
    volatile unsigned long x = 1;
    for (i = 0; i < n; i++)
        x = x * 6364136223846793005UL + 1442695040888963407UL;
    return 0;
}
EOF

# --- calibration: loop counts for a ~1.5 ms good run and a 20% slower bad run -----
cal=$work/calib
mkdir -p "$cal"
cp "$work/prog.c" "$cal/"
(cd "$cal" && cc -O2 -o prog prog.c) || die "cannot build the program"
# t_direct N / t_sh N: the fastest of --calib-runs runs of ./prog (or /bin/sh -c
# ./prog) with n = N, in ns: the minimum is what the work costs when nothing else
# gets in the way, so a burst of noise during the calibration (a shared VM's steal
# time) does not skew the loop counts; the medians are printed next to it.
t_direct() { echo "n = $1" > "$cal/work.conf"; (cd "$cal" && "$timer" -m "$calib_runs" ./prog); }
t_sh() { echo "n = $1" > "$cal/work.conf"; (cd "$cal" && "$timer" -m "$calib_runs" /bin/sh -c ./prog); }
m_sh() { echo "n = $1" > "$cal/work.conf"; (cd "$cal" && "$timer" "$calib_runs" /bin/sh -c ./prog); }
# median of the arguments
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2)}'; }
if [ -z "$good_n" ] || [ -z "$bad_n" ]; then
  # 10 million iterations (about 10 ms): far above how much a process start moves
  # beside two CPU hogs (1 million, about 1 ms, measured below the start's noise:
  # 13.1 ms at n = 0 against 11.1 ms at 1 million, and the calibration died)
  big=10000000
  z=() b=()
  for _ in $(seq "$calib_rounds"); do z+=("$(t_direct 0)"); b+=("$(t_direct $big)"); done
  t0=$(median "${z[@]}") t1=$(median "${b[@]}")
  [ "$t1" -gt "$t0" ] || die "calibration: the loop does not take time ($t0 ns, $t1 ns)"
  # ns per 1000 iterations, then a good run of ~1.5 ms, process start-up included
  per_k=$(( (t1 - t0) * 1000 / big )); [ "$per_k" -ge 1 ] || per_k=1
  good_n=$(( (1500000 - t0) * 1000 / per_k )); [ "$good_n" -ge 100000 ] || good_n=100000
  # the bad run: 20% more than the good run as the tools see it (/bin/sh -c ./prog)
  g=(); for _ in $(seq "$calib_rounds"); do g+=("$(t_sh "$good_n")"); done
  tg=$(median "${g[@]}")
  bad_n=$(( good_n + tg / 5 * 1000 / per_k ))
  # corrections: the median over rounds of the bad/good ratio, each round timing the
  # two back to back so that a drift of the machine's speed cancels out
  # (each step at most half the current difference, so that one noisy round cannot
  # throw the count far off)
  for _ in 1 2 3 4; do
    g=() q=()
    for _ in $(seq "$calib_rounds"); do
      x=$(t_sh "$good_n"); y=$(t_sh "$bad_n"); g+=("$x"); q+=("$((y * 1000 / x))")
    done
    tg=$(median "${g[@]}") r=$(median "${q[@]}")
    step=$(( (1200 - r) * tg / per_k )) half=$(( (bad_n - good_n) / 2 ))
    [ "$step" -le "$half" ] || step=$half
    [ "$step" -ge $((-half)) ] || step=$((-half))
    bad_n=$(( bad_n + step ))
  done
  [ "$bad_n" -gt "$good_n" ] || bad_n=$(( good_n * 3 / 2 ))
fi
# what the trials will face, good and bad timed back to back in each round: the
# fastest run (the work itself) and the median (the work plus the machine's noise)
gd=() bd=() gs=() bs=() mg=() mb=()
for _ in $(seq "$calib_rounds"); do
  gd+=("$(t_direct "$good_n")"); bd+=("$(t_direct "$bad_n")")
  gs+=("$(t_sh "$good_n")"); bs+=("$(t_sh "$bad_n")")
  mg+=("$(m_sh "$good_n")"); mb+=("$(m_sh "$bad_n")")
done
ms() { awk "BEGIN{printf \"%.3f\", $1/1e6}"; }
pct() { awk "BEGIN{printf \"%+.1f%%\", ($2/$1-1)*100}"; }
tgd=$(median "${gd[@]}") tbd=$(median "${bd[@]}") tgs=$(median "${gs[@]}") tbs=$(median "${bs[@]}")
tmg=$(median "${mg[@]}") tmb=$(median "${mb[@]}")
echo "load before: $load_before"
echo "calibration ($calib_rounds rounds of $calib_runs runs; fastest run, median over rounds):"
echo "  good n = $good_n: ./prog $(ms "$tgd") ms, /bin/sh -c ./prog $(ms "$tgs") ms (median run $(ms "$tmg") ms)"
echo "  bad  n = $bad_n: ./prog $(ms "$tbd") ms, /bin/sh -c ./prog $(ms "$tbs") ms (median run $(ms "$tmb") ms)"
echo "  slowdown: ./prog $(pct "$tgd" "$tbd"), /bin/sh -c ./prog $(pct "$tgs" "$tbs") (what both tools time; median runs $(pct "$tmg" "$tmb"))"

# --- the repositories ---------------------------------------------------------------
# make_repo DIR POS: commits 0..commits-1, the regression at commit POS (1..commits-1)
make_repo() {
  local dir=$1 pos=$2 i
  git init -q "$dir"
  cp "$work/prog.c" "$dir/prog.c"
  printf 'n = %s\n' "$good_n" > "$dir/work.conf"
  printf 'notes\n' > "$dir/notes.txt"
  mkdir -p "$dir/doc"
  printf 'doc\n' > "$dir/doc/readme.md"
  git -C "$dir" add -A
  git -C "$dir" commit -q -m "c0: the program, n = $good_n"
  for i in $(seq 1 $((commits - 1))); do
    if [ "$i" = "$pos" ]; then
      printf 'n = %s\n' "$bad_n" > "$dir/work.conf"
      git -C "$dir" commit -q -am "c$i: n = $bad_n (the regression)"
    elif [ $((i % 2)) = 0 ]; then
      echo "line $i" >> "$dir/notes.txt"
      git -C "$dir" commit -q -am "c$i: notes"
    else
      echo "line $i" >> "$dir/doc/readme.md"
      git -C "$dir" commit -q -am "c$i: doc"
    fi
  done
}

# run_culprit REPO EXPECTED [ARG...]: appends "correct builds runs wall_ns" to
# $work/culprit.tsv (with ARGs, e.g. --metric cpu_ns, to $work/culprit-cpu.tsv)
run_culprit() {
  local repo=$1 want=$2 rc=0 t0 t1 got outcome builds runs confirmed
  local tsv=$work/culprit.tsv label="culprit:"
  shift 2
  [ $# = 0 ] || { tsv=$work/culprit-cpu.tsv label="cul.cpu:"; }
  t0=$(now_ns)
  (cd "$repo" && "$culprit" bisect --good "$good" --bad "$bad" \
     --build 'cc -O2 -o prog prog.c' --command ./prog --json "$@") \
     > "$work/out.json" 2> "$work/err.log" || rc=$?
  t1=$(now_ns)
  [ "$rc" -le 1 ] || die "culprit bisect exited $rc: $(cat "$work/err.log")"
  got=$(sed -n 's/^  "culprit": "\([0-9a-f]*\)".*/\1/p' "$work/out.json")
  outcome=$(sed -n 's/^  "outcome": "\([a-z-]*\)".*/\1/p' "$work/out.json")
  builds=$(sed -n 's/^  "builds": \([0-9]*\).*/\1/p' "$work/out.json")
  runs=$(sed -n 's/^  "runs": \([0-9]*\).*/\1/p' "$work/out.json")
  [ -n "$builds" ] && [ -n "$runs" ] || die "no builds/runs in culprit's JSON: $(cat "$work/out.json")"
  confirmed=$(sed -n 's/^  "confirmed": \([a-z]*\).*/\1/p' "$work/out.json")
  local ok=0; [ "$got" = "$want" ] && ok=1
  if [ "$ok" = 0 ] && [ -n "$keep" ]; then
    mkdir -p "$keep" && cp "$work/out.json" "$keep/trial-$t.json"
  fi
  printf '%s %s %s %s %s\n' "$ok" "$builds" "$runs" "$((t1 - t0))" "${confirmed:-null}" \
    >> "$tsv"
  printf '  %s %-7s %-13s %-12s builds %2s runs %4s  %5.1f s  confirmed %s\n' \
    "$label" "$([ $ok = 1 ] && echo correct || echo WRONG)" "$outcome" "${got:0:10}" "$builds" "$runs" \
    "$(awk "BEGIN{print $((t1 - t0))/1e9}")" "${confirmed:-null}"
}

# run_git REPO EXPECTED [-c]: appends "correct builds runs wall_ns" to $work/git.tsv
# (with -c, timing CPU time, to $work/git-cpu.tsv)
run_git() {
  local repo=$1 want=$2 flag=${3:-} clone=$work/clone t0 t1 tg tb thr got nb
  local tsv=$work/git.tsv label="git:    "
  [ -z "$flag" ] || { tsv=$work/git-cpu.tsv label="git.cpu:"; }
  rm -rf "$clone" "$work/git-builds"
  t0=$(now_ns)
  git clone -q "$repo" "$clone"
  # the threshold, measured once: halfway between the good and the bad end
  git -C "$clone" checkout -q "$good"
  (cd "$clone" && cc -O2 -o prog prog.c) || die "git: the good end does not build"
  tg=$(cd "$clone" && "$timer" $flag "$git_runs" /bin/sh -c ./prog) || die "git: the good end fails"
  git -C "$clone" checkout -q "$bad"
  (cd "$clone" && cc -O2 -o prog prog.c) || die "git: the bad end does not build"
  tb=$(cd "$clone" && "$timer" $flag "$git_runs" /bin/sh -c ./prog) || die "git: the bad end fails"
  thr=$(( (tg + tb) / 2 ))
  (cd "$clone" && git bisect start "$bad" "$good" >/dev/null &&
     git bisect run "$work/bin/threshold.sh" "$thr" $flag) > "$work/git.log" 2>&1 ||
    die "git bisect run failed: $(tail -5 "$work/git.log")"
  got=$(git -C "$clone" rev-parse --verify -q refs/bisect/bad || true)
  git -C "$clone" bisect reset -q >/dev/null 2>&1 || true
  t1=$(now_ns)
  nb=$(( $(wc -l < "$work/git-builds") + 2 ))
  local ok=0; [ "$got" = "$want" ] && ok=1
  printf '%s %s %s %s\n' "$ok" "$nb" "$((nb * git_runs))" "$((t1 - t0))" >> "$tsv"
  printf '  %s %-7s threshold %.3f ms (good %.3f, bad %.3f)  %-12s builds %2s runs %4s  %5.1f s\n' \
    "$label" "$([ $ok = 1 ] && echo correct || echo WRONG)" "$(awk "BEGIN{print $thr/1e6}")" \
    "$(awk "BEGIN{print $tg/1e6}")" "$(awk "BEGIN{print $tb/1e6}")" "${got:0:10}" \
    "$nb" "$((nb * git_runs))" "$(awk "BEGIN{print $((t1 - t0))/1e9}")"
}

# --- the trials ---------------------------------------------------------------------
: > "$work/culprit.tsv"; : > "$work/git.tsv"; : > "$work/culprit-cpu.tsv"; : > "$work/git-cpu.tsv"
RANDOM=$seed
echo "trials: $trials, $commits commits each, seed $seed, git threshold script: median of $git_runs runs"
for t in $(seq "$trials"); do
  pos=$(( 1 + RANDOM % (commits - 1) ))
  repo=$work/repo
  rm -rf "$repo"
  make_repo "$repo" "$pos"
  good=$(git -C "$repo" rev-list --max-parents=0 HEAD)
  bad=$(git -C "$repo" rev-parse HEAD)
  want=$(git -C "$repo" rev-parse "HEAD~$((commits - 1 - pos))")
  echo "trial $t: regression at c$pos (${want:0:10})"
  if [ $((t % 2)) = 1 ]; then run_culprit "$repo" "$want"; run_git "$repo" "$want"
  else run_git "$repo" "$want"; run_culprit "$repo" "$want"; fi
  if [ -n "$metric" ]; then
    if [ $((t % 2)) = 1 ]; then run_culprit "$repo" "$want" --metric cpu_ns; run_git "$repo" "$want" -c
    else run_git "$repo" "$want" -c; run_culprit "$repo" "$want" --metric cpu_ns; fi
  fi
done

# --- the table ----------------------------------------------------------------------
summary() {
  awk -v name="$1" '{ok += $1; b += $2; r += $3; w += $4; n++}
    END {printf "%-40s %4d / %-4d %11.1f %10.1f %15.2f\n", name, ok, n, b/n, r/n, w/n/1e9}' "$2"
}
echo
printf '%-40s %11s %11s %10s %15s\n' tool correct "mean builds" "mean runs" "mean wall (s)"
summary "culprit bisect (defaults)" "$work/culprit.tsv"
summary "git bisect run (fixed threshold, $git_runs runs)" "$work/git.tsv"
if [ -n "$metric" ]; then
  summary "culprit bisect --metric cpu_ns" "$work/culprit-cpu.tsv"
  summary "git bisect run (threshold on CPU time)" "$work/git-cpu.tsv"
fi
# culprit names its answer NOT confirmed when the culprit's runs could not be told
# from its parent's: how many of the wrong answers it flagged so.
awk '$5 == "false" {u++; if (!$1) uw++} !$1 && $5 != "false" {w++}
  END {printf "culprit answers NOT confirmed against their parent: %d (%d of them wrong); wrong and confirmed: %d\n", u, uw, w}' "$work/culprit.tsv"
echo "load after: $(uptime)"
