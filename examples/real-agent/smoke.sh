#!/usr/bin/env bash
# End-to-end smoke test of the two example agents (loan_agent.py on the Python a2a-sdk,
# ../real-agent-js/loan_agent.mjs on @a2a-js/sdk): driven by `a2a-sim test` from their scenarios
# (loan-desk.yaml, credit-down.yaml, ../real-agent-js/loan-desk.yaml, goldens beside them), and
# against the scripted agents of loan.yaml as `a2a-sim serve` puts them on the wire.
#
#   examples/real-agent/smoke.sh          # from anywhere; exit 1 on any failed check
#
# For each agent: a fresh `a2a-sim serve loan.yaml` on a free port, the agent started with KYC_URL
# and CREDIT_URL naming kyc and credit as served to loan-desk (/as/loan-desk/agents/NAME/: the URL
# is the caller's identity, so the agent sends no a2a-sim header); three applications sent with
# the SDK client (drive.py: approved, declined by score, declined by the identity check); the agent
# stopped with SIGTERM (it must exit 0), serve with SIGINT, and its report checked for the calls
# the agent made. serve does not record request headers, so the traceparent propagation is checked
# by test_loan_agent.py, whose stub agents record them, for both agents. Also: loan.yaml's own
# `expect` (a2a-sim test), the unit tests of both agents.
#
# Environment:
#   REAL_AGENT_VENV  the virtualenv (default target/real-agent-venv), made and filled with the pins
#                    of requirements.txt + constraints.txt when it lacks one of them
#   A2A_SIM          the a2a-sim binary (default: `cargo build --release`, then target/release/a2a-sim)
#   SKIP_JS=1        leave the JavaScript agent out (no node/npm here)
# Every wait is bounded; every process started here is stopped on exit, by its pid.
set -euo pipefail
if [ -n "${A2A_SIM:-}" ] && [ "${A2A_SIM#/}" = "$A2A_SIM" ]; then
  A2A_SIM="$PWD/$A2A_SIM" # relative to where the script was started, not to this folder
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
js="$root/examples/real-agent-js"
cd "$here"
started=$SECONDS

venv="${REAL_AGENT_VENV:-$root/target/real-agent-venv}"
py="$venv/bin/python"

# shellcheck source=conformance/venv.sh
source "$root/conformance/venv.sh"
# Exit 0 when every pin of constraints.txt is installed in the venv.
venv_is_current() { venv_has_pins "$py" constraints.txt; }

if ! venv_is_current; then
  echo "smoke: creating $venv (pinned a2a-sdk, uvicorn)" >&2
  python3 -m venv "$venv"
  "$py" -m pip install --quiet --disable-pip-version-check -r requirements.txt -c constraints.txt
  venv_is_current || { echo "smoke: $venv still lacks pins of constraints.txt" >&2; exit 1; }
fi

if [ -n "${A2A_SIM:-}" ]; then
  bin="$A2A_SIM"
else
  (cd "$root" && cargo build --release --quiet)
  bin="${CARGO_TARGET_DIR:-$root/target}/release/a2a-sim"
fi

with_js=1
if [ "${SKIP_JS:-}" = 1 ]; then
  with_js=0
elif ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "smoke: node and npm are needed for the JavaScript agent (or set SKIP_JS=1)" >&2
  exit 1
fi
if [ "$with_js" = 1 ] && ! cmp -s "$js/package-lock.json" "$js/node_modules/.package-lock.json.ci" 2>/dev/null; then
  echo "smoke: npm ci in examples/real-agent-js" >&2
  (cd "$js" && timeout 300 npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  cp "$js/package-lock.json" "$js/node_modules/.package-lock.json.ci"
fi

work="$(mktemp -d)"
pids=()
cleanup() { # SIGTERM to what is still running (`timeout` passes it on), SIGKILL 3 s later
  local pid live=()
  for pid in "${pids[@]}"; do
    kill -TERM "$pid" 2>/dev/null && live+=("$pid")
  done
  local deadline=$((SECONDS + 3))
  for pid in "${live[@]}"; do
    while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT

# Drops PID from `pids` once it has been waited for: its number may be reused by another process.
forget() {
  local pid kept=()
  for pid in "${pids[@]}"; do
    [ "$pid" = "$1" ] || kept+=("$pid")
  done
  pids=("${kept[@]}")
}

# Runs COMMAND... in the background and waits for it (a signal to this script then interrupts the
# wait, and cleanup stops the command); its exit status.
run() {
  "$@" &
  local pid=$!
  pids+=("$pid")
  local status=0
  wait "$pid" || status=$?
  forget "$pid"
  return $status
}

trap 'exit 130' INT
trap 'exit 143' TERM

passed=0
failed=0
step() { # NAME COMMAND...: one check in this shell (so `pids` is this shell's), output indented
  local name="$1"
  shift
  local t0=$SECONDS
  echo "== $name"
  local ok=0
  if declare -F "$1" >/dev/null; then
    "$@" >"$work/step.out" 2>&1 || ok=$? # a function of this script: it runs its own commands
  else
    run "$@" >"$work/step.out" 2>&1 || ok=$?
  fi
  sed 's/^/   /' "$work/step.out"
  if [ $ok = 0 ]; then
    passed=$((passed + 1))
    echo "   ($((SECONDS - t0)) s)"
  else
    failed=$((failed + 1))
    echo "FAIL $name ($((SECONDS - t0)) s)"
  fi
}

free_port() {
  "$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Waits up to $2 seconds for URL $1 to answer 200; 1 when it does not (or pid $3 exited).
wait_http() {
  local deadline=$((SECONDS + $2))
  until curl -sf -o /dev/null --max-time 1 "$1"; do
    kill -0 "$3" 2>/dev/null || return 1
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.1
  done
}

# Waits up to $2 seconds for pid $1 to exit; its status, or 124 (then it is killed).
wait_exit() {
  local deadline=$((SECONDS + $2))
  while kill -0 "$1" 2>/dev/null; do
    if [ $SECONDS -ge $deadline ]; then
      kill -KILL "$1" 2>/dev/null || true
      wait "$1" 2>/dev/null || true
      return 124
    fi
    sleep 0.1
  done
  local status=0
  wait "$1" || status=$?
  forget "$1"
  return $status
}

# session NAME COMMAND...: serve loan.yaml, start the agent (COMMAND --port P), drive it, stop both
session() {
  local name="$1"
  shift
  local dir="$work/$name"
  mkdir -p "$dir"
  "$bin" serve loan.yaml --listen 127.0.0.1:0 --ready-file "$dir/ready" --report "$dir/report.json" \
    --idle-exit 120 2>"$dir/serve.err" &
  local serve_pid=$!
  pids+=("$serve_pid")
  local deadline=$((SECONDS + 10))
  until [ -s "$dir/ready" ]; do
    if ! kill -0 "$serve_pid" 2>/dev/null || [ $SECONDS -ge $deadline ]; then
      echo "FAIL a2a-sim serve did not get ready within 10 s:"; cat "$dir/serve.err"
      kill -TERM "$serve_pid" 2>/dev/null || true
      wait_exit "$serve_pid" 5 || true
      return 1
    fi
    sleep 0.05
  done
  local addr
  addr="$(head -n1 "$dir/ready")"
  local port
  port="$(free_port)"
  # The caller's URL prefix is its identity: the agent sends no a2a-sim header.
  KYC_URL="http://$addr/as/loan-desk/agents/kyc/" CREDIT_URL="http://$addr/as/loan-desk/agents/credit/" \
    "$@" --port "$port" 2>"$dir/agent.err" &
  local agent_pid=$!
  pids+=("$agent_pid")
  local ok=0
  if ! wait_http "http://127.0.0.1:$port/.well-known/agent-card.json" 20 "$agent_pid"; then
    echo "FAIL the agent did not serve its card within 20 s:"; cat "$dir/agent.err"; ok=1
  elif ! run timeout 90 "$py" drive.py "http://127.0.0.1:$port/"; then
    ok=1
  fi
  kill -TERM "$agent_pid" 2>/dev/null || true
  local status=0
  wait_exit "$agent_pid" 10 || status=$?
  if [ $status = 0 ]; then
    echo "PASS the agent exits 0 on SIGTERM"
  else
    echo "FAIL the agent exits 0 on SIGTERM: status $status"; ok=1
  fi
  kill -INT "$serve_pid" 2>/dev/null || true
  status=0
  wait_exit "$serve_pid" 10 || status=$?
  if [ $status != 0 ]; then
    echo "FAIL a2a-sim serve exits 0 on SIGINT: status $status"
    cat "$dir/serve.err"
    return 1
  fi
  run timeout 30 "$py" drive.py --serve-report "$dir/report.json" || ok=1
  if [ $ok != 0 ]; then
    echo "-- agent stderr:"; cat "$dir/agent.err"
  fi
  return $ok
}

step "loan.yaml: the scripted agents meet its expect (a2a-sim test)" "$bin" test loan.yaml
# a2a-sim starts loan_agent.py itself (`external:`), drives it and pins what it did: the goldens
# and `expect` of loan-desk.yaml and credit-down.yaml; the venv's python3 first on PATH.
step "loan-desk.yaml, credit-down.yaml: the real agent driven and pinned (a2a-sim test)" \
  env PATH="$venv/bin:$PATH" "$bin" test --agent-timeout 30 loan-desk.yaml credit-down.yaml
# The guide shows explore finding that loan-desk does not retry (docs/src/guide/real-agents.md,
# "explore against a real agent"): what it prints ends with the block's lines after "…".
guide_explore() {
  local out status=0
  out=$(cd "$root" && env PATH="$venv/bin:$PATH" timeout 300 "$bin" explore \
    examples/real-agent/explore.yaml --runs 12 --jobs 2 --skip-agents loan-desk) || status=$?
  [ "$status" = 1 ] || { echo "explore exited $status, not 1 (violations found)"; return 1; }
  OUT="$out" "$py" - "$root/docs/src/guide/real-agents.md" <<'PY'
import os, sys
page = open(sys.argv[1], encoding="utf-8").read()
start = page.index("$ a2a-sim explore examples/real-agent/explore.yaml")
block = page[start:page.index("```", start)]
shown = block.split("…\n", 1)[1].rstrip("\n").split("\n")
printed = os.environ["OUT"].rstrip("\n").split("\n")
if printed[-len(shown):] != shown:
    sys.exit("the guide shows:\n" + "\n".join(shown) + "\nexplore printed:\n" + "\n".join(printed))
PY
}
step "the guide's explore against loan-desk prints what the guide shows" guide_explore
step "loan_agent.py: unit and process tests (stub agents record the headers)" \
  timeout 120 "$py" -m unittest -q test_loan_agent
step "loan_agent.py against a2a-sim serve" session python "$py" loan_agent.py
if [ "$with_js" = 1 ]; then
  step "loan_agent.mjs: unit tests (node --test)" \
    bash -c "cd '$js' && timeout 60 node --test --test-reporter=dot"
  step "loan_agent.mjs: the process tests of test_loan_agent.py" \
    env LOAN_AGENT_CMD="node $js/loan_agent.mjs" timeout 120 "$py" -m unittest -q test_loan_agent.ProcessTest
  step "loan_agent.mjs against a2a-sim serve" session js node "$js/loan_agent.mjs"
  step "../real-agent-js/loan-desk.yaml: the JavaScript agent driven and pinned (a2a-sim test)" \
    "$bin" test "$js/loan-desk.yaml"
fi

echo "smoke: $((SECONDS - started)) s"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
