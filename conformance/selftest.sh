#!/usr/bin/env bash
# Tests conformance/validate.py on the hand-written documents in conformance/samples/, without
# the Rust binary: every document of every valid-*.json[l] must pass; every invalid-*.json[l]
# must fail, with the reason that samples/expected-failures.txt gives for it. The KIND of a
# sample is in its name: valid-KIND[-what].json[l], invalid-KIND-what.json[l].
#
#   conformance/selftest.sh
#
# Uses the same virtualenv as run.sh (CONFORMANCE_VENV, default target/conformance-venv).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# shellcheck source=conformance/venv.sh
source conformance/venv.sh
conformance_venv

samples=conformance/samples
expected="$samples/expected-failures.txt"
kinds=(card-1.0 card-0.3 tasks-1.0 tasks-0.3 stream-1.0 stream-0.3 runs-acp)

kind_of() {
  local rest="${1#*-}" kind
  for kind in "${kinds[@]}"; do
    if [[ "$rest" == "$kind"* ]]; then
      echo "$kind"
      return
    fi
  done
  echo "selftest: no KIND in the name of $1" >&2
  return 1
}

passed=0
failed=0
pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL selftest: $1"; }

# reason_for NAME: the expected reason of NAME in expected-failures.txt (empty if none)
reason_for() {
  awk -v name="$1" 'index($0, name ": ") == 1 { print substr($0, length(name) + 3); exit }' "$expected"
}

out="$(mktemp)"
trap 'rm -f "$out"' EXIT

# Valid samples: one validate.py run, which must pass every document.
args=()
for path in "$samples"/valid-*.json "$samples"/valid-*.jsonl; do
  args+=("$(kind_of "$(basename "$path")")=$path")
done
status=0
"$CONFORMANCE_PYTHON" conformance/validate.py "${args[@]}" >"$out" || status=$?
# Indented, and without validate.py's own tally line: only the self-test's verdict closes the run.
sed -e '/^[0-9]* passed, [0-9]* failed$/d' -e 's/^/  /' "$out"
if [ "$status" = 0 ]; then pass; else fail "validate.py exited $status on the valid samples"; fi
for arg in "${args[@]}"; do
  kind="${arg%%=*}" path="${arg#*=}"
  if grep -qF "FAIL $kind $path" "$out"; then
    fail "$path: a valid sample failed"
  elif grep -qF "ok $kind $path" "$out"; then
    pass
  else
    fail "$path: no ok line"
  fi
done

# Invalid samples: one run; each file must fail, for its expected reason.
args=()
for path in "$samples"/invalid-*.json "$samples"/invalid-*.jsonl; do
  args+=("$(kind_of "$(basename "$path")")=$path")
done
status=0
"$CONFORMANCE_PYTHON" conformance/validate.py "${args[@]}" >"$out" || status=$?
# Indented, and without validate.py's own tally line: only the self-test's verdict closes the run.
sed -e '/^[0-9]* passed, [0-9]* failed$/d' -e 's/^/  /' "$out"
if [ "$status" = 1 ]; then pass; else fail "validate.py exited $status on the invalid samples, not 1"; fi
for arg in "${args[@]}"; do
  kind="${arg%%=*}" path="${arg#*=}"
  name="$(basename "$path")"
  reason="$(reason_for "$name")"
  if [ -z "$reason" ]; then
    fail "$name has no line in $expected"
  elif grep -F -e "FAIL $kind $path:" -e "FAIL $kind $path#" "$out" | grep -qF -- "$reason"; then
    pass
  else
    fail "$name did not fail with: $reason"
  fi
done
while IFS= read -r line; do
  name="${line%%: *}"
  if [ -e "$samples/$name" ]; then pass; else fail "$expected names $name, which does not exist"; fi
done < <(grep -v '^#' "$expected")

echo "selftest: $passed passed, $failed failed"
[ "$failed" = 0 ]
