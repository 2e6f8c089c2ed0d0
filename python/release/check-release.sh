#!/usr/bin/env bash
# The release workflow's changelog check (.github/workflows/release.yml): the version being
# released is Cargo.toml's (the wheel's version comes from there too), the tag, when given,
# names it, and CHANGELOG.md has an entry for it: a `## VERSION` or `## [VERSION]` heading
# (anything may follow on the line, a date say) with at least one line of text under it.
#
#   python/release/check-release.sh [TAG]     # TAG: v0.2.0 (or 0.2.0); exit 0 ok, 1 not
# Environment: CARGO_TOML (default Cargo.toml), CHANGELOG (default CHANGELOG.md).
set -euo pipefail
cargo_toml="${CARGO_TOML:-Cargo.toml}"
changelog="${CHANGELOG:-CHANGELOG.md}"
tag="${1:-}"

fail() {
  echo "::error title=release check::$*"
  exit 1
}

version="$(sed -n '/^\[workspace\.package\]/,/^\[/{s/^version *= *"\([^"]*\)".*/\1/p}' "$cargo_toml")"
[ -n "$version" ] || fail "$cargo_toml: no version under [workspace.package]"
if [ -n "$tag" ] && [ "${tag#v}" != "$version" ]; then
  fail "the tag $tag does not name $cargo_toml's version $version"
fi
[ -f "$changelog" ] || fail "$changelog: no such file; add it with a '## $version' entry"

# the entry's lines: from its heading to the next level-2 heading
entry="$(awk -v v="$version" '
  /^## / {
    if (inside) exit
    heading = $2
    gsub(/^\[|\]$/, "", heading)
    if (heading == v) { inside = 1; next }
  }
  inside { print }
' "$changelog")"
grep -q '^## \[\{0,1\}'"${version//./\\.}"'\]\{0,1\}\( \|$\)' "$changelog" ||
  fail "$changelog has no entry for $version: add a '## $version' heading and what changed"
grep -q '[^[:space:]]' <<<"$entry" ||
  fail "$changelog: the entry for $version says nothing: list what changed under its heading"
echo "release check: $version (tag ${tag:-none}) has its changelog entry"
