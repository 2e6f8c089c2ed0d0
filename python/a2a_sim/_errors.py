"""The exceptions the package raises, and the located problems a load error carries."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Diagnostic:
    """One problem `a2a-sim check` found in a scenario file.

    ``file``, ``line`` and ``column`` locate it (1-based) when a2a-sim could; a problem with
    no place in a file (a path that does not exist, say) has them ``None``.
    """

    severity: str
    """``"error"`` or ``"warning"``."""
    message: str
    file: str | None = None
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        if self.file is None:
            return self.message
        if not self.line:  # None, or 0: a `--set KEY=VALUE` override has no line
            return f"{self.file}: {self.message}"
        return f"{self.file}:{self.line}:{self.column}: {self.message}"


def parse_diagnostics(stderr: str) -> list[Diagnostic]:
    """The diagnostics of `check --error-format json` (one JSON object a line).

    A line that is not such an object (a file that cannot be read is reported as plain text)
    becomes an unlocated error, so nothing a2a-sim said is lost.
    """
    found: list[Diagnostic] = []
    for line in stderr.splitlines():
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            obj = None
        if isinstance(obj, dict) and "message" in obj:
            found.append(
                Diagnostic(
                    severity=str(obj.get("severity", "error")),
                    message=str(obj["message"]),
                    file=obj.get("file"),
                    line=obj.get("line"),
                    column=obj.get("column"),
                )
            )
        else:
            found.append(Diagnostic(severity="error", message=line.strip()))
    return found


class A2aSimError(Exception):
    """The a2a-sim binary failed: a usage error, an unexpected exit status, unreadable output.

    Carries the command line, its exit status (``None`` when it did not exit: a timeout) and
    what it printed on stderr.
    """

    def __init__(
        self, message: str, *, command: Sequence[str], returncode: int | None, stderr: str
    ) -> None:
        super().__init__(message)
        self.command: list[str] = list(command)
        self.returncode = returncode
        self.stderr = stderr


class ScenarioError(A2aSimError):
    """A scenario file did not load: ``diagnostics`` holds every problem, located.

    ``str(error)`` lists them one a line as ``FILE:LINE:COL: message``.
    """

    def __init__(
        self,
        diagnostics: Sequence[Diagnostic],
        *,
        command: Sequence[str],
        returncode: int | None,
        stderr: str,
    ) -> None:
        self.diagnostics: list[Diagnostic] = list(diagnostics)
        lines = [str(d) for d in self.diagnostics] or [
            stderr.strip() or "the scenario did not load"
        ]
        super().__init__("\n".join(lines), command=command, returncode=returncode, stderr=stderr)

    @property
    def errors(self) -> list[Diagnostic]:
        """The diagnostics of severity ``error`` (those that stopped the load)."""
        return [d for d in self.diagnostics if d.severity == "error"]
