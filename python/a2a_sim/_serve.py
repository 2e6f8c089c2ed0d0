"""`serve`: the scenario's agents as real A2A servers, started and stopped from Python."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import weakref
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, final
from urllib.parse import quote

from ._binary import binary
from ._commands import Overrides, StrPath, load_error, set_args
from ._errors import A2aSimError

CALLER_HEADER = "X-A2A-Sim-Caller"
"""The request header that names a scenario caller to `serve`."""

_POLL_S = 0.02


def _interrupt(proc: subprocess.Popen[bytes]) -> None:
    """Asks `serve` to shut down as Ctrl-C would: it then writes its report and exits 0."""
    if sys.platform == "win32":
        # The process has a console process group of its own (see Server.__init__).
        os.kill(proc.pid, signal.CTRL_BREAK_EVENT)
    else:
        proc.send_signal(signal.SIGINT)


def _kill(proc: subprocess.Popen[bytes], work: str) -> None:
    """The end of every Server: the process gone (killed if it still runs: a Server never
    stopped, or garbage at exit) and its temporary directory removed."""
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    shutil.rmtree(work, ignore_errors=True)


@final
class Server:
    """A running `a2a-sim serve`; made by :func:`serve`.

    Use it as a context manager (``with a2a_sim.serve(...) as server:``), which stops it on exit,
    or call :meth:`stop`. Until it is stopped:

    - ``url``: ``http://127.0.0.1:PORT`` (no trailing slash);
    - :meth:`agent_url` / :meth:`card_url`: where an agent and its AgentCard are served;
    - :meth:`headers`: the request headers that name a scenario caller.

    After :meth:`stop`, ``report`` is the session's JSON report (`run`'s report, the requests
    served as its steps) and ``returncode`` the exit status.
    """

    def __init__(
        self, command: list[str], work: Path, report: Path, env: dict[str, str] | None
    ) -> None:
        self.command = command
        self._work = work
        self._report_path = report
        self._ready = work / "ready"
        self._stderr_path = work / "serve.stderr"
        self.report: dict[str, Any] | None = None
        self.returncode: int | None = None
        self.address = ""
        flags = 0
        if sys.platform == "win32":  # a group of its own, for the CTRL_BREAK of _interrupt
            flags = subprocess.CREATE_NEW_PROCESS_GROUP
        with open(self._stderr_path, "wb") as stderr:
            self.process: subprocess.Popen[bytes] = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
                creationflags=flags,
                env=env,
            )
        self._finalizer = weakref.finalize(self, _kill, self.process, str(work))

    @property
    def url(self) -> str:
        """The server's base URL, ``http://127.0.0.1:PORT``."""
        return f"http://{self.address}"

    @property
    def port(self) -> int:
        return int(self.address.rsplit(":", 1)[1])

    def agent_url(self, name: str, caller: str | None = None) -> str:
        """The URL an agent is served at, with a trailing slash (its JSON-RPC endpoint; the
        HTTP+JSON routes are under it).

        With ``caller=None``: ``URL/agents/NAME/``, where the caller is named by a request
        header (:meth:`headers`) or a bearer token. With a caller: ``URL/as/CALLER/agents/NAME/``,
        the per-caller path prefix that names the caller with no header at all (for clients
        that cannot send one); it needs an a2a-sim whose `serve` accepts that prefix.
        """
        prefix = "" if caller is None else f"/as/{quote(caller, safe='')}"
        return f"{self.url}{prefix}/agents/{quote(name, safe='')}/"

    def card_url(self, name: str, caller: str | None = None) -> str:
        """Where the agent's AgentCard is served (``.well-known/agent-card.json`` under
        :meth:`agent_url`)."""
        return self.agent_url(name, caller) + ".well-known/agent-card.json"

    @staticmethod
    def headers(caller: str) -> dict[str, str]:
        """The request headers that name ``caller`` (a scenario caller) to the server:
        ``{"X-A2A-Sim-Caller": caller}``; for an httpx or requests client."""
        return {CALLER_HEADER: caller}

    @property
    def stderr(self) -> str:
        """What the server has printed on stderr so far."""
        try:
            return self._stderr_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""

    @property
    def running(self) -> bool:
        return self.process.poll() is None

    def _wait_ready(self, timeout: float, path: StrPath, overrides: Overrides | None) -> None:
        deadline = time.monotonic() + timeout
        while True:
            if self._ready.is_file():
                text = self._ready.read_text(encoding="utf-8")
                if text.endswith("\n"):  # written whole: the server listens
                    self.address = text.strip()
                    return
            code = self.process.poll()
            if code is not None:
                stderr = self.stderr
                self._cleanup()
                done = subprocess.CompletedProcess(self.command, code, "", stderr)
                if code == 2:
                    raise load_error(path, overrides, done)
                raise A2aSimError(
                    f"a2a-sim serve exited with status {code} before it listened: {stderr.strip()}",
                    command=self.command,
                    returncode=code,
                    stderr=stderr,
                )
            if time.monotonic() >= deadline:
                self._finalizer()
                raise A2aSimError(
                    f"a2a-sim serve did not write its ready file within {timeout} s "
                    f"(stopped): {self.stderr.strip()}",
                    command=self.command,
                    returncode=None,
                    stderr=self.stderr,
                )
            time.sleep(_POLL_S)

    def stop(self, timeout: float = 60.0) -> dict[str, Any]:
        """Stops the server (as Ctrl-C does, unless it stopped by itself: ``exit_after``,
        ``idle_exit``) and returns the session's report.

        The server answers what is queued, ends live subscriptions and delivers queued webhooks
        before it exits; ``timeout`` bounds that wait (then it is killed and A2aSimError raised).
        Calling it again returns the same report.
        """
        if self.report is not None:
            return self.report
        if self.process.poll() is None:
            _interrupt(self.process)
        try:
            self.returncode = self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.returncode = self.process.wait()
            stderr = self.stderr
            self._cleanup()
            raise A2aSimError(
                f"a2a-sim serve did not stop within {timeout} s of the interrupt (killed)",
                command=self.command,
                returncode=None,
                stderr=stderr,
            ) from None
        stderr = self.stderr
        try:
            if self.returncode != 0:
                raise A2aSimError(
                    f"a2a-sim serve exited with status {self.returncode}: {stderr.strip()}",
                    command=self.command,
                    returncode=self.returncode,
                    stderr=stderr,
                )
            try:
                self.report = json.loads(self._report_path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as e:
                raise A2aSimError(
                    f"a2a-sim serve exited 0 but its report is unreadable: {e}",
                    command=self.command,
                    returncode=self.returncode,
                    stderr=stderr,
                ) from None
        finally:
            self._cleanup()
        return self.report

    def _cleanup(self) -> None:
        # the process has exited here: the finalizer only removes the temporary directory
        self._finalizer()

    def __enter__(self) -> Server:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self.stop()
        else:
            # the block failed: stop the server without hiding that error behind another
            try:
                self.stop()
            except A2aSimError:
                pass

    def __repr__(self) -> str:
        state = "running" if self.running else f"exited {self.process.returncode}"
        return f"<a2a_sim.Server {self.url} {state}>"


def serve(
    path: StrPath,
    *,
    set: Overrides | None = None,
    a2a_version: str | None = None,
    root_agent: str | None = None,
    tick_ms: int | None = None,
    wall_clock: bool = False,
    allow_loopback_push: bool = False,
    push_ca: StrPath | None = None,
    exit_after: int | None = None,
    idle_exit: float | None = None,
    max_body: int | None = None,
    advertise_host: str | None = None,
    listen: str = "127.0.0.1:0",
    report: StrPath | None = None,
    extra_args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    ready_timeout: float = 30.0,
) -> Server:
    """Starts `a2a-sim serve PATH` on a free loopback port and returns once it listens.

    Every agent of the scenario is then an A2A server (JSON-RPC and HTTP+JSON) under
    ``server.agent_url(NAME)``. The options are `serve`'s flags (``set`` its ``--set``
    overrides, ``extra_args`` any flag this function does not name); ``report`` also keeps the
    session's report at that path. ``ready_timeout`` bounds the wait for the server to listen.

    Raises ScenarioError (every problem, located) when the file does not load, A2aSimError when
    the server does not come up in time (it is stopped).
    """
    exe = binary()
    work = Path(tempfile.mkdtemp(prefix="a2a-sim-serve-"))
    report_path = Path(report) if report is not None else work / "report.json"
    command = [exe, "serve", os.fspath(path), "--listen", listen]
    command += ["--ready-file", str(work / "ready"), "--report", str(report_path)]
    command += set_args(set)
    for flag, value in (
        ("--a2a-version", a2a_version),
        ("--root-agent", root_agent),
        ("--tick-ms", tick_ms),
        ("--push-ca", push_ca),
        ("--exit-after", exit_after),
        ("--idle-exit", idle_exit),
        ("--max-body", max_body),
        ("--advertise-host", advertise_host),
    ):
        if value is not None:
            command += [flag, os.fspath(value) if isinstance(value, os.PathLike) else str(value)]
    if wall_clock:
        command.append("--wall-clock")
    if allow_loopback_push:
        command.append("--allow-loopback-push")
    command += list(extra_args)
    full_env = None if env is None else {**os.environ, **env}
    server = Server(command, work, report_path, full_env)
    server._wait_ready(ready_timeout, path, set)
    return server
