#!/usr/bin/env bash
# The plot of a 30-commit history with 6 measured commits (test_report_plot's page)
# in a real browser: headless Chromium lays it out, a measuring script added to a
# copy reads the box of every text of the plot as drawn (getBoundingClientRect),
# and no two may overlap, none may leave the picture, and the regressions' marks
# and the limits' names must stay inside the plot area. This checks the width
# estimate the renderer places labels with (framework/report/html_labels.c)
# against real fonts. A screenshot is kept (argument 2: a directory).
# Exit 77 (ctest: skipped) when Chromium is not installed.
set -euo pipefail
. "$(dirname "$0")/browser_lib.sh"
browser_page "$1" # test_report_plot
shots=${2:-}

# The script writes its findings into <body data-*> (no '&' in it: sed would put
# the matched text there).
sed 's|</body>|<script>\
const b = document.body, bad = [];\
let texts = 0;\
for (const svg of document.querySelectorAll("svg.plot")) {\
  const m = svg.getScreenCTM(), a = svg.dataset.area.split(" ").map(Number);\
  const pic = svg.getBoundingClientRect();\
  const area = {left: pic.left + a[0] * m.a, top: pic.top + a[1] * m.d,\
                right: pic.left + (a[0] + a[2]) * m.a, bottom: pic.top + (a[1] + a[3]) * m.d};\
  const boxes = [...svg.querySelectorAll("text")].map(t => [t, t.getBoundingClientRect()]);\
  texts += boxes.length;\
  boxes.forEach(([t, r], i) => {\
    const inner = t.matches(".mark, .limit-label") ? area : pic;\
    if (r.left < inner.left - 0.5 \|\| r.right > inner.right + 0.5 \|\| r.top < inner.top - 0.5 \|\| r.bottom > inner.bottom + 0.5)\
      bad.push("cut off: " + t.textContent);\
    boxes.slice(0, i).forEach(([u, q]) => {\
      if (r.left < q.right \&\& q.left < r.right \&\& r.top < q.bottom \&\& q.top < r.bottom)\
        bad.push("overlap: " + t.textContent + " / " + u.textContent);\
    });\
  });\
}\
b.dataset.texts = texts;\
b.dataset.bad = bad.join("; ") \|\| "none";\
b.dataset.unconfirmed = getComputedStyle(document.querySelector("g.unconfirmed circle")).fill;\
</script></body>|' "$tmp/index.html" >"$tmp/measure.html"

fail=0 shot_name=plot
for scheme in light dark; do
  flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1000,700)
  [ "$scheme" = dark ] && flags+=(--force-dark-mode)
  browser_dom "$scheme"
  echo "$scheme: texts=$(attr texts) problems=$(attr bad) unconfirmed fill=$(attr unconfirmed)"
  [ "$(attr texts)" -ge 10 ] 2>/dev/null || { echo "FAIL: $scheme: no texts measured"; fail=1; }
  [ "$(attr bad)" = none ] || { echo "FAIL: $scheme: $(attr bad)"; fail=1; }
done
[ "$fail" = 0 ] && echo "plot labels checked in $("$browser" --version 2>/dev/null)"
exit "$fail"
