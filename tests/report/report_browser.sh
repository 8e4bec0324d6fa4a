#!/usr/bin/env bash
# The report page in a real browser: test_report writes the page of its scenario
# (every verdict, a bisection, the Fig. 5 call tree, an overweight table), headless
# Chromium loads it from file:// with a measuring script added to a copy (the page
# itself has none), and the DOM it dumps must hold the plots with their points,
# whiskers and limit lines laid out at a real size, the open suspect path of the
# call tree with its changed-function dot, and no horizontal overflow, in the light
# and the dark scheme. A screenshot of each is kept (argument 2: a directory).
# Exit 77 (ctest: skipped) when Chromium is not installed.
set -euo pipefail
test_report=$1
shots=${2:-}

. "$(dirname "$0")/browser_lib.sh"
browser_page "$test_report"

# The measuring script writes what the browser laid out into <body data-*> (no '&'
# in it: sed would put the matched text there).
sed 's|</body>|<script>\
const b = document.body, r = s => [...document.querySelectorAll(s)];\
const w = e => e.getBoundingClientRect().width;\
b.dataset.open = r("li.suspect > details[open]").length;\
b.dataset.shown = r("svg.plot").filter(e => w(e) > 400).filter(e => !e.closest("details:not([open])")).length;\
r("details.quiet").forEach(d => d.open = true);\
b.dataset.plots = r("svg.plot").filter(e => w(e) > 400).length;\
b.dataset.points = r("svg.plot g.pt circle:not(.hit)").filter(e => w(e) > 3).length;\
b.dataset.whiskers = r("svg.plot .whisker").length;\
b.dataset.limits = r("svg.plot line.limit").filter(e => w(e) > 300).length;\
b.dataset.major = r("svg.plot g.v-major").length;\
b.dataset.dot = r("li.changed .dot").filter(e => w(e) > 4).length;\
b.dataset.overflow = document.documentElement.scrollWidth > innerWidth ? 1 : 0;\
b.dataset.bg = getComputedStyle(b).backgroundColor;\
</script></body>|' "$tmp/index.html" >"$tmp/measure.html"

fail=0 shot_name=report
check() { # name value condition
  if ! (($2 $3)); then echo "FAIL: $1 = $2, expected $3"; fail=1; fi
}
for scheme in light dark; do
  flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1100,1400)
  [ "$scheme" = dark ] && flags+=(--force-dark-mode)
  browser_dom "$scheme"
  echo "$scheme: shown=$(attr shown) plots=$(attr plots) points=$(attr points) whiskers=$(attr whiskers)" \
       "limits=$(attr limits) major=$(attr major) open=$(attr open) dot=$(attr dot)" \
       "overflow=$(attr overflow) background=$(attr bg)"
  check "$scheme plots shown" "$(attr shown)" "== 5" # unchanged, no baseline, mixed: folded
  check "$scheme plots" "$(attr plots)" "== 8"
  check "$scheme points" "$(attr points)" ">= 15"
  check "$scheme whiskers" "$(attr whiskers)" ">= 15"
  check "$scheme limits" "$(attr limits)" "== 7" # not under perf.broken: 1 ms is 10x its top
  check "$scheme major points" "$(attr major)" "== 1"
  check "$scheme open suspect nodes" "$(attr open)" "== 3"
  check "$scheme changed dots" "$(attr dot)" "== 1"
  check "$scheme horizontal overflow" "$(attr overflow)" "== 0"
  case "$scheme:$(attr bg)" in
    "light:rgb(255, 255, 255)" | "dark:rgb(13, 17, 23)") ;;
    *) echo "FAIL: $scheme background is $(attr bg)"; fail=1 ;;
  esac
done
[ "$fail" = 0 ] && echo "report page checked in $("$browser" --version 2>/dev/null)"
exit "$fail"
