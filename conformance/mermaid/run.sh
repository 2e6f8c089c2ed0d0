#!/usr/bin/env bash
# Mermaid conformance: every bundled scenario's `run --format mermaid` diagram (and its golden,
# tests/protocol-goldens/SCENARIO/mermaid.mmd) must be accepted by Mermaid's own parser, the
# `mermaid` package from npm (pinned in package-lock.json, installed with `npm ci`), run headless
# under Node with jsdom as its DOM. No browser is downloaded or started.
#
#   conformance/mermaid/run.sh
#
# Needs node and npm on PATH (.ci/run installs them). The diagrams are kept under
# target/ci-artefacts/mermaid/. Exit status 1 when a diagram is rejected.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

here=conformance/mermaid
if [ ! -d "$here/node_modules/mermaid" ] || [ "$here/package-lock.json" -nt "$here/node_modules" ]; then
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
fi

cargo build --release --quiet
bin="${CARGO_TARGET_DIR:-target}/release/a2a-sim"
out="${CARGO_TARGET_DIR:-target}/ci-artefacts/mermaid"
mkdir -p "$out"

files=()
while IFS= read -r scenario; do
  stem="$(basename "${scenario%.*}")"
  "$bin" run --format mermaid "$scenario" >"$out/$stem.mmd"
  files+=("$out/$stem.mmd")
  if [ -f "tests/protocol-goldens/$stem/mermaid.mmd" ]; then
    files+=("tests/protocol-goldens/$stem/mermaid.mmd")
  fi
done < <(find scenarios -type f \( -name '*.yaml' -o -name '*.yml' \) | sort)

node "$here/parse.mjs" "${files[@]}"
