#!/usr/bin/env bash
# `a2a-sim serve` against the official a2a-sdk client (issue 12): builds the release binary and
# runs conformance/serve/test_serve.py, then test_signed_cards.py, in the pinned conformance
# virtualenv (conformance/venv.sh).
#
#   conformance/serve/run.sh            # check; exit 1 on any failed check
#   BLESS=1 conformance/serve/run.sh    # rewrite conformance/serve/report.golden.json
#
# Environment: CONFORMANCE_VENV and CARGO_TARGET_DIR as for conformance/run.sh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

# shellcheck source=conformance/venv.sh
source conformance/venv.sh
conformance_venv

cargo build --release --quiet
bin="${CARGO_TARGET_DIR:-target}/release/a2a-sim"

# every wait is bounded inside the tests (under 60 s and 20 s in all); these are the outer guards
timeout 75 "$CONFORMANCE_PYTHON" conformance/serve/test_serve.py "$bin"
# signed cards (A2A §8.4): the SDK's own verifier accepts serve's cards and rejects a tampered one
exec timeout 30 "$CONFORMANCE_PYTHON" conformance/serve/test_signed_cards.py "$bin"
