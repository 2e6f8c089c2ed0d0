#!/usr/bin/env bash
# HTML conformance: every bundled scenario's `run --format html` page (and a generated one of
# about 100 tasks) is loaded in a real headless Chromium from file://, with no network: it must
# load without a console message, an uncaught exception or a failed request, its timeline
# must be in the DOM, and no two of its marks (denials and refusals, decisions, pushes) may have
# boxes that intersect as the browser lays them out. A screenshot of each page is kept as a CI artefact.
#
#   conformance/html/run.sh
#
# Needs `chromium` on PATH (.ci/run installs Debian's). Pages, DOM dumps, logs and screenshots
# are kept under target/ci-artefacts/html/. Exit status 1 when a page fails.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

browser="${CHROMIUM:-$(command -v chromium || command -v chromium-browser)}"
cargo build --release --quiet --bins
target="${CARGO_TARGET_DIR:-target}"
bin="$target/release/a2a-sim"
out="$(realpath -m "$target/ci-artefacts/html")"
mkdir -p "$out"
profile="$(mktemp -d "${TMPDIR:-/tmp}/a2a-chromium.XXXXXX")"
trap 'rm -rf "$profile"' EXIT

# A trap for errors, put first in <head> of a copy of each page (the page itself has no script):
# whatever goes wrong is written into the DOM, and the load event marks the page as loaded.
trap_js='<script>(function(){var d=document.documentElement,n=function(m){d.setAttribute("data-errors",(d.getAttribute("data-errors")||"")+m+"|")};window.addEventListener("error",function(e){n("error: "+(e.message||(e.target&&e.target.outerHTML)))},true);window.addEventListener("unhandledrejection",function(e){n("rejection: "+e.reason)});["error","warn"].forEach(function(k){var f=console[k];console[k]=function(){n(k+": "+Array.prototype.join.call(arguments," "));return f.apply(console,arguments)}});window.addEventListener("load",function(){var m=[].slice.call(document.querySelectorAll("svg > text.mark, svg > g, svg > path[fill=\"#0f172a\"]")),b=m.map(function(e){return e.getBoundingClientRect()}),i,j,x,y;for(i=0;i<b.length;i++)for(j=i+1;j<b.length;j++){x=Math.min(b[i].right,b[j].right)-Math.max(b[i].left,b[j].left);y=Math.min(b[i].bottom,b[j].bottom)-Math.max(b[i].top,b[j].top);if(x>0.5&&y>0.5)n("overlap: "+m[i].textContent.slice(0,40)+" / "+m[j].textContent.slice(0,40))}});window.addEventListener("load",function(){d.setAttribute("data-loaded","1")})})()</script>'

trap_file="$profile/trap.html"
printf '%s\n' "$trap_js" >"$trap_file"

pages=()
while IFS= read -r scenario; do
  stem="$(basename "${scenario%.*}")"
  "$bin" run --format html "$scenario" >"$out/$stem.html"
  pages+=("$stem")
done < <(find scenarios -type f \( -name '*.yaml' -o -name '*.yml' \) | LC_ALL=C sort)
# About 100 tasks over a dozen agents: the page must stay readable at that size.
"$target/release/a2a-sim-gen" --seed 7 --agents 12 --steps 240 >"$out/generated-100.yaml"
"$bin" run --format html "$out/generated-100.yaml" >"$out/generated-100.html"
pages+=("generated-100")

chrome() {
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
    --disable-extensions --disable-background-networking --user-data-dir="$profile" \
    --enable-logging=stderr --v=0 "$@"
}

# check STEM: loads $out/STEM.html (a copy with the trap) and screenshots it; prints each
# problem found, one a line, and nothing when the page is fine.
check() {
  local stem="$1" page="$out/$1.html" checked="$out/$1.checked.html"
  # The copy: the trap first in <head>; nothing else changes.
  sed "/^<head>\$/r $trap_file" "$page" >"$checked"
  if grep -qE '<script[^>]* src=|<link[^>]* href=|<img |url\(https?:|@import' "$page"; then
    echo "refers to an external script, style or image"
  fi
  chrome --dump-dom "file://$checked" >"$out/$stem.dom.html" 2>"$out/$stem.log" ||
    echo "chromium failed to load it (see $stem.log)"
  grep -q 'data-loaded="1"' "$out/$stem.dom.html" || echo "the load event never came"
  grep -o 'data-errors="[^"]*"' "$out/$stem.dom.html" | head -1
  grep -E ':CONSOLE|Uncaught|net::ERR' "$out/$stem.log" | head -3
  grep -q '<svg' "$out/$stem.dom.html" || echo "no timeline <svg> in the DOM"
  # The page is as tall as its tables; the screenshot shows the timeline and the top of them.
  chrome --hide-scrollbars --window-size=1400,900 --screenshot="$out/$stem.png" "file://$page" \
    >/dev/null 2>>"$out/$stem.log" || echo "no screenshot"
  [ -s "$out/$stem.png" ] || echo "empty screenshot"
}

# First, the check itself: a page with a failing script and a missing image must fail it.
sed 's|</body>|<script>undefinedFunction()</script><img src="missing.png"></body>|' \
  "$out/payment-decision.html" >"$out/selftest-broken.html"
if [ -z "$(check selftest-broken)" ]; then
  echo "FAIL the check passed a page with a failing script and a missing image"
  exit 1
fi
echo "ok the check rejects a broken page"
# ...and a page with two marks drawn over each other.
sed 's|</svg>|<text class="mark" x="300" y="20">✕</text><text class="mark" x="302" y="21">✕</text></svg>|' \
  "$out/payment-decision.html" >"$out/selftest-overlap.html"
if ! check selftest-overlap | grep -q '^data-errors=.*overlap: '; then
  echo "FAIL the check passed a page with two marks over each other"
  exit 1
fi
echo "ok the check rejects marks over each other"

failed=0
for stem in "${pages[@]}"; do
  problems="$(check "$stem")"
  if [ -z "$problems" ]; then
    echo "ok $stem.html (screenshot $out/$stem.png)"
  else
    failed=$((failed + 1))
    echo "FAIL $stem.html:"
    printf '%s\n' "$problems" | sed 's/^/  /'
  fi
done
if [ "$failed" -gt 0 ]; then
  echo "$failed of ${#pages[@]} pages failed in Chromium"
  exit 1
fi
