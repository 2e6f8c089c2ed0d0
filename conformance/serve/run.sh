#!/usr/bin/env bash
# `a2a-sim serve` against the official a2a-sdk client: builds the release binary and
# runs conformance/serve/test_serve.py (JSON-RPC, HTTP+JSON), test_serve_grpc.py (gRPC) and
# test_signed_cards.py in the pinned conformance virtualenv (conformance/venv.sh).
#
#   conformance/serve/run.sh            # check; exit 1 on any failed check
#   BLESS=1 conformance/serve/run.sh    # rewrite conformance/serve/report{,.grpc}.golden.json
#
# Environment: CONFORMANCE_VENV and CARGO_TARGET_DIR as for conformance/run.sh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

# shellcheck source=conformance/venv.sh
source conformance/venv.sh
conformance_venv

cargo build --release --quiet
bin="${CARGO_TARGET_DIR:-target}/release/a2a-sim"

# every wait is bounded inside each test (under 60 s in all); these are the outer guards. The same
# checks over JSON-RPC and HTTP+JSON, then over gRPC (`serve --grpc-listen`, the SDK's grpc extra),
# then signed cards (A2A §8.4): the SDK's own verifier accepts serve's cards, rejects a tampered one.
status=0
timeout 75 "$CONFORMANCE_PYTHON" conformance/serve/test_serve.py "$bin" || status=1
timeout 75 "$CONFORMANCE_PYTHON" conformance/serve/test_serve_grpc.py "$bin" || status=1
timeout 30 "$CONFORMANCE_PYTHON" conformance/serve/test_signed_cards.py "$bin" || status=1
exit "$status"
