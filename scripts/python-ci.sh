#!/usr/bin/env bash
# The Python distribution in CI: builds the wheel once, installs it into a fresh
# virtualenv with the test requirements (python/tests/requirements.txt, every version pinned by
# python/tests/constraints.txt), runs python/tests from a copy OUTSIDE the source tree (so the
# installed package is the one under test), then the GitHub Action's scripts
# (python/action/test.sh) against the same wheel.
#
#   scripts/python-ci.sh          # exit 0 when all pass; non-zero on any failure (pytest
#                                 # collecting no test at all is a failure too)
#
# The wheel is built by maturin in cargo's own target directory, with the release profile: after
# `cargo build --release` (conformance/serve/run.sh) it compiles nothing again, and the wheel
# holds that very binary (the tests compare it with target/release/a2a-sim).
# Before that: ruff and mypy (strict, for Linux, macOS and Windows) on python/, action.yml and
# the workflows against GitHub's schemas, and the release workflow's changelog check.
# Environment: CARGO_TARGET_DIR as for cargo; PYTHON_CI_DIR (default target/python-ci) holds
# the build virtualenv (kept: python/build-requirements.txt), the wheel and the test virtualenv
# (made anew on every run).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo="$(pwd)"

target="${CARGO_TARGET_DIR:-target}"
work="${PYTHON_CI_DIR:-$target/python-ci}"
mkdir -p "$work"
work="$(cd "$work" && pwd)"
build_venv="$work/build-venv"
test_venv="$work/test-venv"
dist="$work/dist"
unset A2A_SIM_BINARY # the tests use the wheel's own binary

started=$SECONDS
phase() { echo "python-ci: $1 ($((SECONDS - started)) s so far)"; }

# --- the build tools (pinned), and the package's lint, format and types --------------------------
stamp="$build_venv/build-requirements.txt"
if ! cmp -s python/build-requirements.txt "$stamp"; then
  phase "making $build_venv (python/build-requirements.txt)"
  rm -rf "$build_venv"
  python3 -m venv "$build_venv"
  timeout 300 "$build_venv/bin/pip" install --quiet --disable-pip-version-check \
    -r python/build-requirements.txt
  cp python/build-requirements.txt "$stamp"
fi
phase "lint: ruff, mypy, the Action's and workflows' schemas, the changelog check"
"$build_venv/bin/ruff" check --quiet python
"$build_venv/bin/ruff" format --check --quiet python
for platform in linux darwin win32; do # each platform's branches (signals, process groups)
  "$build_venv/bin/mypy" --platform "$platform" python/a2a_sim
done

# the Action and the workflows against GitHub's own schemas (vendored in check-jsonschema)
"$build_venv/bin/check-jsonschema" --builtin-schema vendor.github-actions action.yml
"$build_venv/bin/check-jsonschema" --builtin-schema vendor.github-workflows .github/workflows/*.yml
# the release workflow's changelog check, on changelogs of its own
python/release/test.sh

# --- the wheel -----------------------------------------------------------------------------------
phase "building the wheel (maturin build --release)"
rm -rf "$dist"
# fat LTO on two cores: a cold build takes minutes; a warm one (after cargo build --release) none
timeout 1800 "$build_venv/bin/maturin" build --release --out "$dist" --quiet
shopt -s nullglob
wheels=("$dist"/a2a_sim-*.whl)
shopt -u nullglob
if [ "${#wheels[@]}" -ne 1 ]; then
  echo "python-ci: expected one wheel in $dist, found ${#wheels[@]}" >&2
  exit 1
fi
wheel="${wheels[0]}"
# `uvx a2a-sim`, as users run it without installing (the wheel has no dependencies to fetch)
if ! uvx_out="$(UV_CACHE_DIR="$work/uv-cache" UV_PYTHON_DOWNLOADS=never timeout 120 \
  "$build_venv/bin/uvx" --quiet --from "$wheel" a2a-sim test python/tests/data/desk.yaml 2>&1)"; then
  echo "python-ci: uvx --from $wheel a2a-sim test failed: $uvx_out" >&2
  exit 1
fi
# the reference the tests compare the wheel's binary with (nothing to compile: same fingerprints)
timeout 1800 cargo build --release --quiet --bin a2a-sim
reference="$(cd "$target/release" && pwd)/a2a-sim"

# --- a fresh virtualenv with the wheel, pytest and the pinned a2a-sdk ---------------------------
phase "installing $(basename "$wheel") into a fresh $test_venv"
rm -rf "$test_venv"
python3 -m venv "$test_venv"
timeout 600 "$test_venv/bin/pip" install --quiet --disable-pip-version-check \
  "$wheel" -r python/tests/requirements.txt -c python/tests/constraints.txt

# --- the tests, from a copy outside the source tree ---------------------------------------------
phase "running python/tests against the installed wheel"
outside="$(mktemp -d)"
trap 'rm -rf "$outside"' EXIT
cp -R python/tests "$outside/tests"
status=0
(
  cd "$outside" &&
    A2A_SIM_REPO="$repo" A2A_SIM_REFERENCE_BINARY="$reference" \
      timeout 600 "$test_venv/bin/python" -m pytest -p no:cacheprovider -q -rs tests
) || status=$?
case "$status" in
  0) ;;
  5)
    echo "python-ci: pytest collected no test: a failure" >&2
    exit 1
    ;;
  *)
    echo "python-ci: the Python tests failed (pytest exit status $status)" >&2
    exit 1
    ;;
esac

# --- the GitHub Action's scripts, with the same wheel ---------------------------------------------
phase "running the Action's scripts (python/action/test.sh)"
timeout 600 python/action/test.sh "$wheel"

phase "done"
