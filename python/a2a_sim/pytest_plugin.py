"""The pytest plugin of a2a-sim (registered through the ``pytest11`` entry point).

Fixtures:

``a2a_sim_serve``
    A factory: ``a2a_sim_serve(path, **options)`` starts `a2a-sim serve` as :func:`a2a_sim.serve`
    does (same options) and returns the running :class:`a2a_sim.Server`. Every server it started
    is stopped when the test ends; call ``server.stop()`` in the test to get the session's
    report there.

``a2a_sim_test``
    ``a2a_sim_test(*paths, **options)`` runs `a2a-sim test` on scenario files or directories
    (options as :func:`a2a_sim.run_tests`) and fails the test with a2a-sim's output, its diffs
    and the command that accepts them, when a report differs from its golden or an `expect:`
    does not hold. Returns the :class:`a2a_sim.TestSummary` otherwise.

Relative paths are read from the current directory, as the command line reads them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from . import _binary
from ._commands import StrPath, TestSummary, run_tests
from ._serve import Server, serve

ServeFactory = Callable[..., Server]
TestHelper = Callable[..., TestSummary]


def pytest_report_header(config: pytest.Config) -> str:
    from . import __version__

    try:
        where = _binary.binary()
    except FileNotFoundError:
        where = "no binary found"
    return f"a2a-sim: {__version__} ({where})"


@pytest.fixture
def a2a_sim_serve() -> Iterator[ServeFactory]:
    """Starts `a2a-sim serve` on a free loopback port; stopped at the end of the test."""
    servers: list[Server] = []

    def start(path: StrPath, **options: Any) -> Server:
        server = serve(path, **options)
        servers.append(server)
        return server

    yield start
    problems = []
    for server in servers:
        try:
            server.stop()
        except Exception as e:  # noqa: BLE001 (each server is stopped; all problems told)
            problems.append(f"{server.command}: {e}")
    if problems:
        pytest.fail("a2a-sim serve did not stop cleanly:\n" + "\n".join(problems), pytrace=False)


@pytest.fixture
def a2a_sim_test() -> TestHelper:
    """Runs `a2a-sim test` on the given paths; fails the test with its output on a mismatch."""

    def check_goldens(*paths: StrPath, **options: Any) -> TestSummary:
        summary = run_tests(list(paths), **options)
        if not summary.ok:
            pytest.fail(
                f"a2a-sim test {' '.join(map(str, paths))} (exit status {summary.returncode}):\n"
                + summary.output,
                pytrace=False,
            )
        return summary

    return check_goldens
