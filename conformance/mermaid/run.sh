#!/usr/bin/env bash
# Mermaid conformance: every bundled scenario's `run --format mermaid` diagram (and its golden,
# tests/protocol-goldens/SCENARIO/mermaid.mmd) must be accepted by Mermaid's own parser, the
# `mermaid` package from npm (pinned in package-lock.json, installed with `npm ci`), run headless
# under Node with jsdom as its DOM. No browser is downloaded or started. So must a scenario whose
# names and texts hold what the lexer reads (escapes.yaml) and a generated one of ~100 tasks.
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

cargo build --release --quiet --bins
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
done < <(find scenarios -type f \( -name '*.yaml' -o -name '*.yml' \) | LC_ALL=C sort)

# Names and texts full of what Mermaid's lexer reads, and a generated run of about 100 tasks.
"$bin" run --format mermaid "$here/escapes.yaml" >"$out/escapes.mmd"
"${CARGO_TARGET_DIR:-target}/release/a2a-sim-gen" --seed 7 --agents 12 --steps 240 >"$out/generated-100.yaml"
"$bin" run --format mermaid "$out/generated-100.yaml" >"$out/generated-100.mmd"
files+=("$out/escapes.mmd" "$out/generated-100.mmd")

node "$here/parse.mjs" "${files[@]}"
