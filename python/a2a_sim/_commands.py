"""`run`, `check` and `test`: the binary's commands, their JSON read back as Python values."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Union, overload

from ._binary import binary
from ._errors import A2aSimError, Diagnostic, ScenarioError, parse_diagnostics
from ._junit import Counts, read_counts

StrPath = Union[str, "os.PathLike[str]"]
Overrides = Mapping[str, Any]
"""``--set KEY=VALUE`` overrides: ``{"policy.max_depth": 3}``. A value is written as YAML
reads it: ``True`` as ``true``, ``None`` as ``null``, anything else as ``str(value)``."""

TextFormat = Literal["table", "mermaid", "html"]
ArrayFormat = Literal["a2a", "acp"]


def set_args(overrides: Overrides | None) -> list[str]:
    """``--set KEY=VALUE`` arguments, in the mapping's order."""
    args: list[str] = []
    for key, value in (overrides or {}).items():
        if value is True or value is False:
            text = "true" if value else "false"
        elif value is None:
            text = "null"
        else:
            text = str(value)
        args += ["--set", f"{key}={text}"]
    return args


def invoke(args: Sequence[str], *, timeout: float | None) -> subprocess.CompletedProcess[str]:
    """Runs the binary with ``args``, capturing both streams as UTF-8 text."""
    command = [binary(), *args]
    try:
        return subprocess.run(
            command,
            check=False,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired as e:
        stderr = e.stderr.decode("utf-8", "replace") if isinstance(e.stderr, bytes) else ""
        raise A2aSimError(
            f"a2a-sim did not finish within {timeout} s: {' '.join(command)}",
            command=command,
            returncode=None,
            stderr=stderr,
        ) from None


def failed(done: subprocess.CompletedProcess[str], what: str) -> A2aSimError:
    return A2aSimError(
        f"{what} exited with status {done.returncode}: {done.stderr.strip()}",
        command=done.args,
        returncode=done.returncode,
        stderr=done.stderr,
    )


def load_error(
    path: StrPath, overrides: Overrides | None, done: subprocess.CompletedProcess[str]
) -> ScenarioError:
    """The error for a command that exited 2 on ``path``: its problems, located, as
    `check --error-format json` reports them (asked again, so that each is structured)."""
    again = invoke(
        ["check", os.fspath(path), "--error-format", "json", *set_args(overrides)], timeout=60
    )
    diagnostics = [d for d in parse_diagnostics(again.stderr) if d.severity == "error"]
    if not diagnostics:
        # `check` saw nothing wrong with the file: a usage error of the first command.
        diagnostics = [Diagnostic(severity="error", message=line) for line in _lines(done.stderr)]
    return ScenarioError(
        diagnostics, command=done.args, returncode=done.returncode, stderr=done.stderr
    )


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


@overload
def run(
    path: StrPath,
    *,
    format: Literal["json"] = "json",
    set: Overrides | None = None,
    a2a_version: str | None = None,
    jsonrpc: bool = False,
    timeout: float | None = None,
) -> dict[str, Any]: ...
@overload
def run(
    path: StrPath,
    *,
    format: ArrayFormat,
    set: Overrides | None = None,
    a2a_version: str | None = None,
    jsonrpc: bool = False,
    timeout: float | None = None,
) -> list[Any]: ...
@overload
def run(
    path: StrPath,
    *,
    format: Literal["a2a-stream"],
    set: Overrides | None = None,
    a2a_version: str | None = None,
    jsonrpc: bool = False,
    timeout: float | None = None,
) -> list[dict[str, Any]]: ...
@overload
def run(
    path: StrPath,
    *,
    format: TextFormat,
    set: Overrides | None = None,
    a2a_version: str | None = None,
    jsonrpc: bool = False,
    timeout: float | None = None,
) -> str: ...
def run(
    path: StrPath,
    *,
    format: str = "json",
    set: Overrides | None = None,
    a2a_version: str | None = None,
    jsonrpc: bool = False,
    timeout: float | None = None,
) -> Any:
    """Runs one scenario file (`a2a-sim run PATH --format FORMAT`) and returns its output.

    - ``"json"`` (the default): the report, a dict (``format_version``, ``steps``, ``tasks``, ...);
    - ``"a2a"`` / ``"acp"``: the list of every task as an A2A Task / an ACP Run;
    - ``"a2a-stream"``: the list of every stream event (``jsonrpc=True``: each in its JSON-RPC
      response envelope);
    - ``"table"``, ``"mermaid"``, ``"html"``: the text a2a-sim prints.

    ``set`` overrides scalar keys (``--set``); ``a2a_version`` (``"1.0"`` or ``"0.3"``) picks the
    protocol version of the a2a formats. Raises ScenarioError (with every problem, located) when
    the file does not load, A2aSimError on any other failure.
    """
    if Path(path).is_dir():
        raise ValueError(f"run() takes one scenario file; {os.fspath(path)} is a directory")
    args = ["run", os.fspath(path), "--format", format, *set_args(set)]
    if a2a_version is not None:
        args += ["--a2a-version", a2a_version]
    if jsonrpc:
        args.append("--jsonrpc")
    done = invoke(args, timeout=timeout)
    if done.returncode == 2:
        raise load_error(path, set, done)
    if done.returncode != 0:
        raise failed(done, "a2a-sim run")
    if format in ("table", "mermaid", "html"):
        return done.stdout
    try:
        if format == "a2a-stream":
            return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
        return json.loads(done.stdout)
    except ValueError as e:
        raise A2aSimError(
            f"a2a-sim run printed no {format} JSON: {e}",
            command=done.args,
            returncode=done.returncode,
            stderr=done.stderr,
        ) from None


def check(
    path: StrPath,
    *,
    set: Overrides | None = None,
    deny_warnings: bool = False,
    allow: Iterable[str] = (),
    timeout: float | None = None,
) -> list[Diagnostic]:
    """Loads and validates scenario files without running them (`a2a-sim check`).

    ``path`` is a file or a directory (searched for ``*.yaml`` / ``*.yml``). Returns the
    warnings (empty when there are none); raises ScenarioError carrying every diagnostic when a
    file does not load (or, with ``deny_warnings``, when there are warnings). ``allow`` silences
    finding codes (``"confusable_ids"``).
    """
    args = ["check", os.fspath(path), "--error-format", "json", *set_args(set)]
    if deny_warnings:
        args += ["--deny", "warnings"]
    for code in allow:
        args += ["--allow", code]
    done = invoke(args, timeout=timeout)
    diagnostics = parse_diagnostics(done.stderr)
    if done.returncode == 0:
        return diagnostics
    if done.returncode == 2:
        raise ScenarioError(
            diagnostics, command=done.args, returncode=done.returncode, stderr=done.stderr
        )
    raise failed(done, "a2a-sim check")


@dataclass(frozen=True)
class TestSummary:
    """The outcome of `a2a-sim test`: its exit status, its counts and everything it printed."""

    __test__ = False  # not a pytest test class, whatever module imports it

    returncode: int
    output: str
    """What `test` printed (stdout, then stderr): one line per scenario, the diffs of those
    that failed and the way to accept them, and the summary line."""
    counts: Counts | None
    """From the JUnit report; ``None`` when `test` wrote none (a usage error, no scenario)."""

    @property
    def ok(self) -> bool:
        """Every scenario compared equal and every `expect:` held (exit status 0)."""
        return self.returncode == 0

    @property
    def passed(self) -> int:
        return self.counts.passed if self.counts else 0

    @property
    def failed(self) -> int:
        return self.counts.failed if self.counts else 0

    @property
    def errors(self) -> int:
        return self.counts.errors if self.counts else 0


def run_tests(
    paths: StrPath | Sequence[StrPath] = (),
    *,
    bless: bool = False,
    partition: str | None = None,
    jobs: int | None = None,
    error_format: Literal["human", "github"] = "human",
    junit: StrPath | None = None,
    timeout: float | None = None,
) -> TestSummary:
    """Compares scenarios' reports with their golden files (`a2a-sim test PATHS`).

    ``paths`` (files or directories; a2a-sim's default, ``scenarios``, when empty). Never raises
    on a mismatch: the summary says what happened (``ok``, the counts, the output with its
    diffs). ``junit`` keeps the JUnit report at that path (otherwise a temporary file is read
    and removed).
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    with tempfile.TemporaryDirectory(prefix="a2a-sim-test-") as tmp:
        report = Path(junit) if junit is not None else Path(tmp) / "junit.xml"
        report.unlink(missing_ok=True)  # counts only from this run's report
        args = ["test", *(os.fspath(p) for p in paths), "--junit", str(report)]
        args += ["--error-format", error_format]
        if bless:
            args.append("--bless")
        if partition is not None:
            args += ["--partition", partition]
        if jobs is not None:
            args += ["--jobs", str(jobs)]
        done = invoke(args, timeout=timeout)
        if done.returncode not in (0, 1, 2):
            raise failed(done, "a2a-sim test")
        counts = read_counts(report) if report.is_file() else None
    output = done.stdout + done.stderr
    return TestSummary(returncode=done.returncode, output=output, counts=counts)
