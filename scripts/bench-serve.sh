#!/usr/bin/env bash
# Throughput of `a2a-sim serve`: JSON-RPC `SendMessage` requests per second over
# loopback with a trivial handler (scripts/bench-serve.yaml), 16 concurrent connections, measured
# with wrk (scripts/bench-serve.lua). The target is >= 5,000 req/s on the project's 2-core machine.
#
#   scripts/bench-serve.sh [SECONDS (default 10)] [CONNECTIONS (default 16)]
#
# Installs wrk with apt-get when it is missing (the machines run as root), builds the release
# binary, starts serve on a free port (--ready-file), runs wrk with 2 threads, prints wrk's
# summary and one line "req/s: N", stops serve with SIGINT. Exit 1 if serve fails to start or
# any answer was an error. Numbers depend on the load of the machine: say so when quoting them.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

secs="${1:-10}"
conns="${2:-16}"

if ! command -v wrk >/dev/null 2>&1; then
  echo "bench-serve: installing wrk (apt-get)" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk
fi

cargo build --release --quiet
bin="${CARGO_TARGET_DIR:-target}/release/a2a-sim"

work="$(mktemp -d "${TMPDIR:-/tmp}/a2a-bench-serve.XXXXXX")"
serve_pid=""
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
  if [ -n "$serve_pid" ] && kill -0 "$serve_pid" 2>/dev/null; then
    kill -INT "$serve_pid" 2>/dev/null || true
    wait "$serve_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

"$bin" serve scripts/bench-serve.yaml --listen 127.0.0.1:0 --ready-file "$work/ready" \
  2>"$work/serve.stderr" &
serve_pid=$!
for _ in $(seq 200); do
  [ -s "$work/ready" ] && break
  if ! kill -0 "$serve_pid" 2>/dev/null; then
    echo "bench-serve: serve exited before it was ready: $(cat "$work/serve.stderr")" >&2
    exit 1
  fi
  sleep 0.05
done
if ! [ -s "$work/ready" ]; then
  echo "bench-serve: serve wrote no ready file within 10 s" >&2
  exit 1
fi
addr="$(head -n1 "$work/ready")"
url="http://$addr/agents/echo/"
echo "bench-serve: $conns connections for $secs s, JSON-RPC SendMessage to $url"

wrk -t2 -c"$conns" -d"${secs}s" --latency -s scripts/bench-serve.lua "$url" | tee "$work/wrk.out"
rps="$(awk '/^Requests\/sec:/ {print $2}' "$work/wrk.out")"
echo "req/s: ${rps:-unknown} (target >= 5000)"
if grep -q 'answers with an error: [1-9]' "$work/wrk.out" || grep -q 'Non-2xx' "$work/wrk.out"; then
  echo "bench-serve: some answers were errors (see above)" >&2
  exit 1
fi
