#!/usr/bin/env bash
# The GitHub Action's first step (action.yml): installs a2a-sim into a virtualenv of its own.
# Plain shell, so that CI runs it as the Action does (python/action/test.sh).
#
# Environment (the Action's inputs):
#   INPUT_WHEEL    a wheel file, or a directory holding one (a2a_sim-*.whl): install that one,
#                  e.g. the wheel a previous job built from the same commit
#   INPUT_VERSION  otherwise: the version to install from PyPI; empty means the version in the
#                  Action's own Cargo.toml (the release built from the ref named in `uses:`);
#                  `source` builds the Action's own checkout with pip (needs a Rust toolchain)
#   INPUT_PYTHON   the interpreter that makes the virtualenv (default: python3, else python)
#   A2A_SIM_VENV   where (default: $RUNNER_TEMP/a2a-sim-venv)
#   GITHUB_ACTION_PATH  the Action's checkout (default: this repository)
# Writes `bin=` (the a2a-sim binary) and `python=` (the virtualenv's interpreter) to
# $GITHUB_OUTPUT (stdout when unset), and the virtualenv's scripts directory to $GITHUB_PATH so
# that later steps of the job have `a2a-sim` too.
set -euo pipefail

action_path="${GITHUB_ACTION_PATH:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
venv="${A2A_SIM_VENV:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}/a2a-sim-venv}"
python="${INPUT_PYTHON:-}"
if [ -z "$python" ]; then
  if command -v python3 >/dev/null 2>&1; then python=python3; else python=python; fi
fi

fail() {
  echo "::error title=a2a-sim install::$*"
  exit 2
}

case "${INPUT_WHEEL:-}" in
  "")
    version="${INPUT_VERSION:-}"
    if [ -z "$version" ]; then
      version="$(sed -n '/^\[workspace\.package\]/,/^\[/{s/^version *= *"\([^"]*\)".*/\1/p}' "$action_path/Cargo.toml")"
      [ -n "$version" ] || fail "no version in $action_path/Cargo.toml; set the 'version' input"
    fi
    if [ "$version" = source ]; then
      spec="$action_path"
    else
      spec="a2a-sim==$version"
    fi
    ;;
  *)
    if [ -d "$INPUT_WHEEL" ]; then
      shopt -s nullglob
      wheels=("$INPUT_WHEEL"/a2a_sim-*.whl)
      shopt -u nullglob
      [ "${#wheels[@]}" -eq 1 ] || fail "expected one a2a_sim-*.whl in $INPUT_WHEEL, found ${#wheels[@]}"
      spec="${wheels[0]}"
    elif [ -f "$INPUT_WHEEL" ]; then
      spec="$INPUT_WHEEL"
    else
      fail "wheel $INPUT_WHEEL: no such file or directory"
    fi
    ;;
esac

rm -rf "$venv"
"$python" -m venv "$venv" || fail "$python could not make a virtualenv at $venv"
if [ -d "$venv/Scripts" ]; then # Windows
  scripts="$venv/Scripts"
  exe=.exe
else
  scripts="$venv/bin"
  exe=
fi
echo "a2a-sim: installing $spec into $venv"
"$scripts/python$exe" -m pip install --quiet --disable-pip-version-check "$spec" ||
  fail "pip could not install $spec"
"$scripts/a2a-sim$exe" --version || fail "the installed a2a-sim does not run"

outputs="bin=$scripts/a2a-sim$exe
python=$scripts/python$exe"
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  echo "$outputs" >>"$GITHUB_OUTPUT"
else
  echo "$outputs"
fi
if [ -n "${GITHUB_PATH:-}" ]; then
  echo "$scripts" >>"$GITHUB_PATH"
fi
