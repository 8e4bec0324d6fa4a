# Sourced by the report's browser checks (report_browser.sh, report_labels.sh):
# browser_page TEST_PROGRAM writes the page TEST_PROGRAM keeps (CULPRIT_REPORT_KEEP)
# into $tmp/index.html, with $browser the Chromium to open it in and $tmp removed at
# exit; exit 77 (ctest: skipped) when Chromium is not installed.
browser_page() {
  browser=$(command -v chromium || command -v chromium-browser || true)
  if [ -z "$browser" ]; then
    echo "SKIPPED: chromium is not installed (bash .ci/install-deps installs it)"
    exit 77
  fi
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/culprit-browser-XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  CULPRIT_REPORT_KEEP=$tmp/index.html "$1" >"$tmp/test.log" 2>&1 ||
    { cat "$tmp/test.log"; exit 1; }
}

# browser_dom SCHEME: lays out $tmp/measure.html with ${flags[@]} into $tmp/dom.html,
# defines attr NAME (the measuring script's <body data-NAME>), and when $shots is set
# keeps a screenshot of the page as $shots/$shot_name-SCHEME.png (fail=1 when none).
browser_dom() {
  "$browser" "${flags[@]}" --dump-dom "file://$tmp/measure.html" >"$tmp/dom.html" 2>/dev/null
  attr() { sed -n "s/.*<body[^>]* data-$1=\"\([^\"]*\)\".*/\1/p" "$tmp/dom.html" | head -1; }
  [ -n "${shots:-}" ] || return 0
  mkdir -p "$shots"
  "$browser" "${flags[@]}" --screenshot="$shots/$shot_name-$1.png" "file://$tmp/index.html" \
    >/dev/null 2>&1
  [ -s "$shots/$shot_name-$1.png" ] || { echo "FAIL: no screenshot"; fail=1; }
}
