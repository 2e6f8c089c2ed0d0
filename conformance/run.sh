#!/usr/bin/env bash
# Protocol conformance: every card, task list, stream and ACP run that a2a-sim emits for the
# bundled scenarios is validated with the official SDKs (a2a-sdk for A2A 1.0 and 0.3, acp-sdk
# for ACP), pinned in conformance/requirements.txt and conformance/constraints.txt.
#
#   conformance/run.sh
#
# Environment: CONFORMANCE_VENV (default target/conformance-venv) is the virtualenv to create or
# reuse; CARGO_TARGET_DIR is honoured as cargo does. The documents are written to a temporary
# directory, kept (and named) when a check fails. Exit status 1 when anything failed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# shellcheck source=conformance/venv.sh
source conformance/venv.sh
conformance_venv

cargo build --release --quiet
bin="${CARGO_TARGET_DIR:-target}/release/a2a-sim"

work="$(mktemp -d "${TMPDIR:-/tmp}/a2a-conformance.XXXXXX")"
keep_work=0
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() { if [ "$keep_work" = 0 ]; then rm -rf "$work"; fi; }
trap cleanup EXIT

args=()          # KIND=PATH for validate.py
not_produced=0   # a2a-sim commands that failed: counted as failures in the final tally

# produce KIND OUT COMMAND...: run COMMAND with its stdout in OUT and queue OUT for validation
# as KIND; a command that fails is reported and counted, and the other outputs are still checked.
produce() {
  local kind="$1" out="$2"
  shift 2
  local status=0
  "$@" >"$out" 2>"$out.stderr" || status=$?
  if [ "$status" = 0 ]; then
    args+=("$kind=$out")
  else
    echo "FAIL $kind $out: \`a2a-sim ${*:2}\` exited $status: $(tr '\n' ' ' <"$out.stderr")"
    not_produced=$((not_produced + 1))
  fi
}

# convert_all TASKS.json: every A2A task of the file through `a2a-sim convert --from a2a --to acp`,
# printed as one JSON array of ACP Runs.
convert_all() {
  "$CONFORMANCE_PYTHON" - "$1" "$bin" <<'PY'
import json, subprocess, sys
tasks = json.load(open(sys.argv[1]))
convert = [sys.argv[2], "convert", "--from", "a2a", "--to", "acp"]
runs = [json.loads(subprocess.run(convert, input=json.dumps(t), capture_output=True, text=True, check=True).stdout)
        for t in tasks]
print(json.dumps(runs))
PY
}

# Every bundled scenario, as `a2a-sim test scenarios/` finds them: *.yaml and *.yml, in
# subdirectories too, so a new scenario is checked without a change here.
mapfile -t scenarios < <(find scenarios -type f \( -name '*.yaml' -o -name '*.yml' \) | LC_ALL=C sort)
if [ "${#scenarios[@]}" = 0 ]; then
  echo "conformance: no scenarios/**/*.yaml or *.yml" >&2
  exit 2
fi

for scenario in "${scenarios[@]}"; do
  name="${scenario#scenarios/}"
  name="${name%.*}"
  dir="$work/${name//\//__}"
  mkdir -p "$dir"

  if agents="$("$bin" card "$scenario" --list 2>"$dir/list.stderr")"; then
    # One agent a line; an agent whose card comes from a file has a tab and its source after it.
    while IFS= read -r line; do
      [ -n "$line" ] || continue
      agent="${line%%$'\t'*}"
      kind03=card-0.3
      [[ "$line" == *$'\t'* ]] && kind03=card-file-0.3
      file="${agent//[^A-Za-z0-9._-]/_}"
      produce card-1.0 "$dir/card-1.0-$file.json" "$bin" card "$scenario" "$agent" --a2a-version 1.0
      produce "$kind03" "$dir/card-0.3-$file.json" "$bin" card "$scenario" "$agent" --a2a-version 0.3
    done <<<"$agents"
  else
    echo "FAIL card $scenario: \`card $scenario --list\` failed: $(tr '\n' ' ' <"$dir/list.stderr")"
    not_produced=$((not_produced + 1))
  fi

  for version in 1.0 0.3; do
    produce "tasks-$version" "$dir/tasks-$version.json" \
      "$bin" run "$scenario" --format a2a --a2a-version "$version"
    produce "stream-$version" "$dir/stream-$version.jsonl" \
      "$bin" run "$scenario" --format a2a-stream --a2a-version "$version"
  done
  produce runs-acp "$dir/runs-acp.json" "$bin" run "$scenario" --format acp
  for version in 1.0 0.3; do
    if [ -s "$dir/tasks-$version.json" ]; then
      produce runs-acp "$dir/converted-acp-$version.json" convert_all "$dir/tasks-$version.json"
    fi
  done
done

status=0
"$CONFORMANCE_PYTHON" conformance/validate.py --prior-failures "$not_produced" "${args[@]}" ||
  status=$?
if [ "$status" != 0 ]; then
  keep_work=1
  echo "conformance: the documents are kept in $work" >&2
fi
exit "$status"
