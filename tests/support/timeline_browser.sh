#!/usr/bin/env bash
# Opens the quickstart's timeline (ksim run --timeline) in a real headless
# browser, Debian's chromium: the page's script must run without a console
# message or error and mark the document rendered, showing the expected rows,
# spans, marks, charts and the spacetime diagram's messages. The page, its
# DOM after the script ran, the browser's log and a screenshot are kept in
# OUTPUT_DIR as the test's artefacts. Opened on a range (#20s..20.5s), the
# page must zoom to it. ctest runs it as the test
# "timeline: renders in a headless browser without console errors"; without
# chromium it exits 77, which ctest reports as skipped.
#
#   tests/support/timeline_browser.sh KSIM_BINARY OUTPUT_DIR
set -euo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 KSIM_BINARY OUTPUT_DIR" >&2
  exit 2
fi
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ksim=$(realpath "$1")
out=$2
browser=$(command -v chromium || command -v chromium-browser || true)
if [[ -z $browser ]]; then
  echo "SKIPPED: no chromium on PATH, so the timeline is not opened in a browser" \
    "(apt-get install --no-install-recommends chromium; scripts/setup installs it)"
  exit 77
fi
mkdir -p "$out"
out=$(realpath "$out")
rm -f "$out"/*.png "$out"/*.html "$out"/*.log

page="$out/quickstart-timeline.html"
cd "$root"
"$ksim" run scenarios/quickstart.yaml --timeline "$page" --timeline-window 20s..20.05s --partition orders-0 \
  --perfetto "$out/quickstart-perfetto.json" >"$out/report.txt"

# A profile and HOME of its own, so no user's settings, extensions or crash reporter get in.
export HOME="$out/home"
mkdir -p "$HOME"
flags=(--headless --disable-gpu --no-sandbox --no-first-run --no-default-browser-check --disable-extensions
  --hide-scrollbars --user-data-dir="$out/profile" --enable-logging=stderr --v=0)
timeout 120 "$browser" "${flags[@]}" --virtual-time-budget=5000 --dump-dom "file://$page" \
  >"$out/dom.html" 2>"$out/browser-dom.log" || { echo "FAIL: chromium --dump-dom failed"; tail -20 "$out/browser-dom.log"; exit 1; }
# The same page opened on a range (its fragment): the script zooms to it.
timeout 120 "$browser" "${flags[@]}" --virtual-time-budget=5000 --dump-dom "file://$page#20s..20.5s" \
  >"$out/dom-zoomed.html" 2>"$out/browser-zoomed.log" || { echo "FAIL: chromium --dump-dom (zoomed) failed"; exit 1; }
timeout 120 "$browser" "${flags[@]}" --window-size=1400,2300 --screenshot="$out/quickstart-timeline.png" "file://$page" \
  >/dev/null 2>"$out/browser-screenshot.log" || { echo "FAIL: chromium --screenshot failed"; tail -20 "$out/browser-screenshot.log"; exit 1; }

failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
# Every message the page's script logs, and every error it throws, is a console line in chromium's log.
if grep -h "CONSOLE" "$out/browser-dom.log" "$out/browser-zoomed.log" "$out/browser-screenshot.log"; then
  fail "the page wrote to the console (errors above)"
fi
grep -q 'data-rendered="true"' "$out/dom.html" || fail "the page's script did not mark the document rendered"
attribute() { sed -n "s/.*<html[^>]* $1=\"\([^\"]*\)\".*/\1/p" "$out/dom.html" | head -1; }
tracks=$(attribute data-tracks)
for row in faults broker-0 broker-1 broker-2 controller orders-0 orders-11 checkout-0 analytics-0 analytics-2 \
  "group analytics" anomalies; do
  [[ "|$tracks|" == *"|$row|"* ]] || fail "no row '$row' among: $tracks"
done
for count in marks spans series messages; do
  value=$(attribute "data-$count")
  [[ $value =~ ^[0-9]+$ && $value -gt 0 ]] || fail "the page shows no $count (data-$count='$value')"
done
grep -q 'class="s k-fault"' "$out/dom.html" || fail "no fault drawn"
grep -q 'class="m k-election"' "$out/dom.html" || fail "no election marked"
grep -q '<g class="axis"[^>]*><line class="tickline"' "$out/dom.html" || fail "the script drew no time axis"
grep -q '<html[^>]* data-zoom="20000..20500"' "$out/dom-zoomed.html" || fail "the page did not zoom to its fragment #20s..20.5s"
grep -q '<text class="tick"[^>]*>20.25s</text>' "$out/dom-zoomed.html" || fail "no tick at 20.25s on the zoomed axis"
png="$out/quickstart-timeline.png"
if [[ ! -s $png ]] || [[ $(head -c 8 "$png" | od -An -tx1 | tr -d ' \n') != 89504e470d0a1a0a ]]; then
  fail "no PNG screenshot at $png"
elif [[ $(stat -c %s "$png") -lt 50000 ]]; then
  fail "the screenshot is nearly empty ($(stat -c %s "$png") bytes)"
fi

if [[ $failures -gt 0 ]]; then
  echo "$failures check(s) failed; the page, its DOM, the browser's logs and the screenshot are in $out"
  exit 1
fi
echo "ok: the timeline renders in $(basename "$browser") without console messages (rows: ${tracks//|/, });" \
  "screenshot $png"
