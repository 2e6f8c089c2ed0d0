"""The counts of the JUnit XML that `a2a-sim test --junit FILE` writes.

Also a command for shell scripts (the GitHub Action's): ``python -m a2a_sim._junit FILE``
prints ``total=N``, ``passed=N``, ``failed=N``, ``errors=N`` and ``skipped=N``, one a line, in
the ``name=value`` form of ``$GITHUB_OUTPUT``.
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Counts:
    """How many scenarios a `test` run compared, and how each came out."""

    total: int
    failed: int
    """Reports that differ from their golden, or `expect:` entries that do not hold."""
    errors: int
    """Scenarios that did not load or could not be compared."""
    skipped: int = 0

    @property
    def passed(self) -> int:
        return self.total - self.failed - self.errors - self.skipped

    def as_outputs(self) -> str:
        """``name=value`` lines, as ``$GITHUB_OUTPUT`` takes them."""
        return "".join(
            f"{name}={value}\n"
            for name, value in (
                ("total", self.total),
                ("passed", self.passed),
                ("failed", self.failed),
                ("errors", self.errors),
                ("skipped", self.skipped),
            )
        )


def read_counts(path: str | Path) -> Counts:
    """The counts on the root element of a JUnit file a2a-sim wrote."""
    root = ET.parse(path).getroot()
    if root.tag not in ("testsuites", "testsuite"):
        raise ValueError(f"{path}: not a JUnit report (root element <{root.tag}>)")
    return Counts(
        total=int(root.get("tests", "0")),
        failed=int(root.get("failures", "0")),
        errors=int(root.get("errors", "0")),
        skipped=int(root.get("skipped", "0")),
    )


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m a2a_sim._junit JUNIT.xml", file=sys.stderr)
        return 2
    try:
        counts = read_counts(argv[0])
    except (OSError, ValueError, ET.ParseError) as e:
        print(f"a2a_sim._junit: {e}", file=sys.stderr)
        return 2
    sys.stdout.write(counts.as_outputs())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
