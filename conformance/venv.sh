# shellcheck shell=bash
# Sourced by run.sh and selftest.sh (from the repository root): makes sure the virtualenv at
# ${CONFORMANCE_VENV:-target/conformance-venv} has every package of conformance/constraints.txt
# at exactly its pinned version, and sets CONFORMANCE_PYTHON to its interpreter. A venv that
# already has them is used as it is (fast reruns); other packages in it are left alone.

CONFORMANCE_VENV="${CONFORMANCE_VENV:-target/conformance-venv}"
CONFORMANCE_PYTHON="$CONFORMANCE_VENV/bin/python"

# venv_has_pins PYTHON CONSTRAINTS: exit 0 when the interpreter PYTHON has every pinned
# name==version of CONSTRAINTS installed (names compared PEP 503-normalised, so Jinja2 / jinja2
# and pydantic_core / pydantic-core match). The example agents' smoke test uses it too.
venv_has_pins() {
  [ -x "$1" ] || return 1
  "$1" - "$2" <<'PY' 2>/dev/null
import re, sys
from importlib.metadata import distributions

def norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()

want = set()
for line in open(sys.argv[1]):
    line = line.split("#", 1)[0].strip()
    if line:
        name, _, version = line.partition("==")
        want.add((norm(name), version.strip()))
have = {(norm(d.metadata["Name"]), d.version) for d in distributions()}
sys.exit(0 if want <= have else 1)
PY
}

conformance_venv_is_current() {
  venv_has_pins "$CONFORMANCE_PYTHON" conformance/constraints.txt
}

conformance_venv() {
  if conformance_venv_is_current; then
    return 0
  fi
  echo "conformance: creating $CONFORMANCE_VENV (pinned a2a-sdk and acp-sdk)" >&2
  python3 -m venv "$CONFORMANCE_VENV"
  "$CONFORMANCE_PYTHON" -m pip install --quiet --disable-pip-version-check \
    -r conformance/requirements.txt -c conformance/constraints.txt
  if ! conformance_venv_is_current; then
    echo "conformance: $CONFORMANCE_VENV still lacks pins of conformance/constraints.txt after install" >&2
    return 1
  fi
}
