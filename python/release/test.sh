#!/usr/bin/env bash
# Checks python/release/check-release.sh on changelogs made here: an entry passes; a missing
# entry, an empty one, a version only mentioned in another's text, and a tag naming another
# version fail.
set -uo pipefail
check_release="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/check-release.sh"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
printf '[workspace.package]\nversion = "0.2.0"\n\n[package]\nname = "a2a-sim"\nversion.workspace = true\n\n[dependencies]\nversion = "9"\n' >"$tmp/Cargo.toml"
export CARGO_TOML="$tmp/Cargo.toml" CHANGELOG="$tmp/CHANGELOG.md"
failures=0
expect() { # expect 0|1 DESCRIPTION CHANGELOG_TEXT [TAG]
  local want="$1" what="$2"
  printf '%b' "$3" >"$CHANGELOG"
  bash "$check_release" ${4:+"$4"} >"$tmp/out" 2>&1
  local got=$?
  if [ "$got" = "$want" ]; then
    echo "PASS release check: $what"
  else
    echo "FAIL release check: $what (exit $got, want $want): $(cat "$tmp/out")"
    failures=$((failures + 1))
  fi
}
expect 0 "an entry with a date" '# Changelog\n\n## 0.2.0 - 2026-12-01\n\n- pip install a2a-sim\n\n## 0.1.0\n\n- first\n' v0.2.0
expect 0 "a bracketed entry, no tag" '## [0.2.0]\n- pip install a2a-sim\n'
expect 1 "no entry for the version" '## 0.1.0\n- first\n'
expect 1 "an empty entry" '## 0.2.0\n\n## 0.1.0\n- first\n'
expect 1 "a prefix of another version is no entry" '## 0.2.0.1\n- x\n'
expect 1 "the version only in another entry's text" '## 0.1.0\n- 0.2.0 will follow\n'
expect 1 "a tag naming another version" '## 0.2.0\n- x\n' v0.3.0
rm -f "$CHANGELOG"
bash "$check_release" >"$tmp/out" 2>&1 && { echo "FAIL release check: no CHANGELOG.md passed"; failures=$((failures + 1)); } ||
  echo "PASS release check: no CHANGELOG.md fails"
[ "$failures" -eq 0 ] || exit 1
