#!/usr/bin/env bash
# Builds the book (docs/book/) with mdBook, installing the pinned version when it is missing, and
# fails on any warning mdBook prints and on any broken link inside the book: mdBook does not check
# links itself, so the built pages are read here, every relative href resolved to a file and every
# #fragment to an id on that page. Usage: docs/build.sh (from anywhere; CI calls it).
set -euo pipefail
cd "$(dirname "$0")"

MDBOOK_VERSION=0.5.4
if [ "$(mdbook --version 2>/dev/null || true)" != "mdbook v$MDBOOK_VERSION" ]; then
  cargo install mdbook --locked --version "$MDBOOK_VERSION"
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
mdbook build 2>&1 | tee "$log"
if grep -Eq '(^|[[:space:]])(WARN|ERROR)[[:space:]]' "$log"; then
  echo "docs/build.sh: mdBook printed a warning or an error (above)" >&2
  exit 1
fi

python3 - book <<'PY'
import html.parser, os, sys, urllib.parse

root = sys.argv[1]

class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.links = set(), []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        for key in ("href", "src"):
            if a.get(key):
                self.links.append(a[key])

pages = {}
for dirpath, _, files in os.walk(root):
    for f in files:
        if f.endswith(".html"):
            path = os.path.normpath(os.path.join(dirpath, f))
            p = Page()
            with open(path, encoding="utf-8") as fh:
                p.feed(fh.read())
            pages[path] = p

broken = []
for path, page in sorted(pages.items()):
    if os.path.basename(path) in ("print.html", "404.html", "toc.html"):
        continue  # mdBook's own composites repeat the chapters' links
    for link in page.links:
        url = urllib.parse.urlsplit(link)
        if url.scheme or link.startswith("//") or link.startswith("mailto:"):
            continue
        target = path if not url.path else os.path.normpath(
            os.path.join(os.path.dirname(path), urllib.parse.unquote(url.path)))
        if not os.path.exists(target):
            broken.append(f"{path}: {link}: no such file")
        elif url.fragment and target in pages and url.fragment not in pages[target].ids:
            broken.append(f"{path}: {link}: no id `{url.fragment}` there")
for b in broken:
    print("broken link:", b, file=sys.stderr)
if broken:
    sys.exit(1)
print(f"docs/build.sh: {len(pages)} pages, every link resolves")
PY
