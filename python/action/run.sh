#!/usr/bin/env bash
# The GitHub Action's second step (action.yml): `a2a-sim test PATHS --error-format github
# --junit FILE`, its counts written as the Action's outputs. Plain shell, so that CI runs it as
# the Action does (python/action/test.sh).
#
# Environment (the Action's inputs, and what install.sh wrote):
#   INPUT_PATHS    scenario files or directories, separated by spaces or newlines (default:
#                  scenarios); a path may not contain whitespace
#   INPUT_JUNIT    the JUnit report to write (default: a2a-sim-junit.xml)
#   INPUT_ARGS     more arguments for `a2a-sim test` (`--partition hash:1/4`, `--jobs 2`)
#   A2A_SIM        the binary (default: a2a-sim on PATH)
#   A2A_SIM_PYTHON an interpreter with the a2a_sim package, to read the JUnit counts
#                  (default: python3)
# Writes total=, passed=, failed=, errors=, skipped=, junit= and exit-code= to $GITHUB_OUTPUT
# (stdout when unset) and a line to $GITHUB_STEP_SUMMARY when set. Exits with `test`'s status:
# 0 all passed, 1 a report differs from its golden, 2 a scenario did not load or a usage error.
set -uo pipefail

bin="${A2A_SIM:-a2a-sim}"
python="${A2A_SIM_PYTHON:-python3}"
junit="${INPUT_JUNIT:-a2a-sim-junit.xml}"
set -f # paths are not globbed here: a2a-sim searches directories itself
# shellcheck disable=SC2206 # word splitting on whitespace is the input's documented form
paths=(${INPUT_PATHS:-scenarios})
# shellcheck disable=SC2206
extra=(${INPUT_ARGS:-})
set +f

rm -f "$junit"
"$bin" test "${paths[@]}" "${extra[@]}" --error-format github --junit "$junit"
status=$?

if [ -f "$junit" ]; then
  if ! counts="$("$python" -m a2a_sim._junit "$junit")"; then
    echo "::error title=a2a-sim::could not read the counts of $junit"
    exit 2
  fi
else
  # no report: a usage error, or no scenario found (a2a-sim said which above)
  counts="total=0
passed=0
failed=0
errors=0
skipped=0"
fi
outputs="$counts
junit=$junit
exit-code=$status"
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  echo "$outputs" >>"$GITHUB_OUTPUT"
else
  echo "$outputs"
fi
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  count() { sed -n "s/^$1=//p" <<<"$counts"; }
  echo "a2a-sim test: $(count passed) passed, $(count failed) failed, $(count errors) errors (exit status $status)" >>"$GITHUB_STEP_SUMMARY"
fi
exit "$status"
