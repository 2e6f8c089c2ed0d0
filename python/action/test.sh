#!/usr/bin/env bash
# Runs the GitHub Action's steps as action.yml runs them (python/action/install.sh, then
# python/action/run.sh, with the environment a runner gives: GITHUB_OUTPUT, GITHUB_PATH,
# GITHUB_STEP_SUMMARY, RUNNER_TEMP, GITHUB_ACTION_PATH all pointing into a temporary directory)
# and checks what they wrote: on the bundled scenarios (all pass), and on a directory with one
# changed golden and one file that does not load (exit 2, the counts, the annotations).
#
#   python/action/test.sh WHEEL_OR_DIR     # exit 0 when every check holds, 1 otherwise
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
wheel="${1:?usage: python/action/test.sh WHEEL_OR_DIR}"
wheel="$(cd "$(dirname "$wheel")" && pwd)/$(basename "$wheel")"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export GITHUB_ACTION_PATH="$repo" RUNNER_TEMP="$tmp/runner"
export GITHUB_OUTPUT="$tmp/install.out" GITHUB_PATH="$tmp/path" GITHUB_STEP_SUMMARY="$tmp/summary"
mkdir -p "$RUNNER_TEMP"
unset A2A_SIM_BINARY

failures=0
check() { # check DESCRIPTION COMMAND...: runs COMMAND, prints PASS/FAIL
  local what="$1"
  shift
  if "$@"; then
    echo "PASS action: $what"
  else
    echo "FAIL action: $what"
    failures=$((failures + 1))
  fi
}
output() { sed -n "s/^$1=//p" "$2" | tail -n 1; } # output NAME FILE: the last value written
has_line() { grep -qxF -- "$1" "$2"; }

# --- install, as the Action's first step ------------------------------------------------------
INPUT_WHEEL="$wheel" bash "$repo/python/action/install.sh" >"$tmp/install.log" 2>&1
check "install.sh exits 0" [ $? -eq 0 ]
bin="$(output bin "$GITHUB_OUTPUT")"
python="$(output python "$GITHUB_OUTPUT")"
check "install.sh writes bin= (the venv's a2a-sim)" [ "$bin" = "$RUNNER_TEMP/a2a-sim-venv/bin/a2a-sim" ]
runs_quietly() { "$@" >/dev/null; }
check "the installed binary runs" runs_quietly "$bin" --version
check "install.sh writes python= (the venv's interpreter)" "$python" -c "import a2a_sim"
check "install.sh puts the venv on GITHUB_PATH" has_line "$RUNNER_TEMP/a2a-sim-venv/bin" "$GITHUB_PATH"
A2A_SIM_VENV="$tmp/unused-venv" INPUT_WHEEL="$tmp/nothing-here" \
  bash "$repo/python/action/install.sh" >"$tmp/missing.log" 2>&1
check "a missing wheel: install.sh exits 2" [ $? -eq 2 ]
check "a missing wheel: an annotation naming it" \
  grep -q "^::error title=a2a-sim install::wheel $tmp/nothing-here: no such file" "$tmp/missing.log"

# --- the test step on the bundled scenarios: everything passes --------------------------------
want="$(find "$repo/scenarios" -maxdepth 1 -name '*.yaml' | wc -l)"
(
  cd "$repo" &&
    GITHUB_OUTPUT="$tmp/pass.out" A2A_SIM="$bin" A2A_SIM_PYTHON="$python" \
      INPUT_PATHS="scenarios" INPUT_JUNIT="$tmp/pass.xml" bash python/action/run.sh
) >"$tmp/pass.log" 2>&1
check "run.sh on the bundled scenarios exits 0" [ $? -eq 0 ]
for kv in "total=$want" "passed=$want" "failed=0" "errors=0" "skipped=0" "exit-code=0" "junit=$tmp/pass.xml"; do
  check "outputs: $kv" has_line "$kv" "$tmp/pass.out"
done
check "the JUnit report is written" grep -q "<testsuites name=\"a2a-sim\" tests=\"$want\"" "$tmp/pass.xml"
check "the step summary has the counts" \
  has_line "a2a-sim test: $want passed, 0 failed, 0 errors (exit status 0)" "$GITHUB_STEP_SUMMARY"

# --- a changed golden and a file that does not load -------------------------------------------
bad="$tmp/bad-scenarios"
mkdir -p "$bad"
cp "$repo/python/tests/data/desk.yaml" "$repo/python/tests/data/bad.yaml" "$bad/"
sed 's/"EUR 100 quoted"/"EUR 90 quoted"/' "$repo/python/tests/data/desk.golden.json" >"$bad/desk.golden.json"
(
  cd "$tmp" &&
    GITHUB_OUTPUT="$tmp/fail.out" A2A_SIM="$bin" A2A_SIM_PYTHON="$python" \
      INPUT_PATHS="bad-scenarios/desk.yaml
bad-scenarios/bad.yaml" INPUT_JUNIT="fail.xml" INPUT_ARGS="--jobs 1" bash "$repo/python/action/run.sh"
) >"$tmp/fail.log" 2>&1
check "run.sh exits 2 on a load error (with a mismatch beside it)" [ $? -eq 2 ]
for kv in "total=2" "passed=0" "failed=1" "errors=1" "exit-code=2" "junit=fail.xml"; do
  check "outputs: $kv" has_line "$kv" "$tmp/fail.out"
done
check "a workflow annotation for the changed golden" \
  grep -q '^::error file=bad-scenarios/desk.golden.json,line=[0-9]*,col=[0-9]*::the report differs' "$tmp/fail.log"
check "a workflow annotation for the file that does not load" \
  grep -q '^::error file=bad-scenarios/bad.yaml,line=6,col=5::' "$tmp/fail.log"

# --- no scenario at all: exit 2, zero counts ---------------------------------------------------
mkdir -p "$tmp/empty"
(
  cd "$tmp" && GITHUB_OUTPUT="$tmp/empty.out" A2A_SIM="$bin" A2A_SIM_PYTHON="$python" \
    INPUT_PATHS="empty" INPUT_JUNIT="empty.xml" bash "$repo/python/action/run.sh"
) >"$tmp/empty.log" 2>&1
check "run.sh exits 2 when no scenario is found" [ $? -eq 2 ]
check "outputs: total=0" has_line "total=0" "$tmp/empty.out"
check "outputs: exit-code=2" has_line "exit-code=2" "$tmp/empty.out"

# --- action.yml runs these scripts, and exposes what run.sh writes -----------------------------
action="$repo/action.yml"
check "action.yml is a composite action" grep -qx "  using: composite" "$action"
for script in install.sh run.sh; do
  check "action.yml runs python/action/$script" \
    grep -qF "run: bash \"\$GITHUB_ACTION_PATH/python/action/$script\"" "$action"
done
grep -o 'steps\.test\.outputs\.[a-z-]*' "$action" | sed 's/.*\.//' | sort -u >"$tmp/names"
while read -r name; do
  check "action output '$name' is one run.sh writes" grep -q "^$name=" "$tmp/pass.out"
done <"$tmp/names"
grep -o 'steps\.install\.outputs\.[a-z-]*' "$action" | sed 's/.*\.//' | sort -u >"$tmp/names"
while read -r name; do
  check "install output '$name' is one install.sh writes" grep -q "^$name=" "$GITHUB_OUTPUT"
done <"$tmp/names"
grep -o 'inputs\.[a-z-]*' "$action" | sed 's/.*\.//' | sort -u >"$tmp/names"
while read -r name; do
  check "input '$name' is declared" grep -qx "  $name:" "$action"
done <"$tmp/names"

if [ "$failures" -ne 0 ]; then
  echo "action: $failures check(s) failed; logs:" >&2
  for log in "$tmp"/*.log; do
    echo "--- $log" >&2
    cat "$log" >&2
  done
  exit 1
fi
echo "action: every check passed"
