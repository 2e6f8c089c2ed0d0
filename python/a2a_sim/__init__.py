"""a2a-sim from Python: run, check and test scenarios, and serve their agents to your tests.

Every function starts the `a2a-sim` binary installed with this package and reads what it
prints; nothing is simulated in Python.

- :func:`run` runs one scenario and returns its report (or its A2A / ACP JSON, or its text);
- :func:`check` validates scenario files, raising :class:`ScenarioError` with every problem
  located (file, line, column);
- :func:`run_tests` compares reports with their golden files, as `a2a-sim test` does;
- :func:`serve` starts `a2a-sim serve` on a free loopback port: a :class:`Server` with the
  agents' URLs, which on exit stops and hands back the session's report.

The pytest plugin (:mod:`a2a_sim.pytest_plugin`, registered by the wheel) adds the fixtures
``a2a_sim_serve`` and ``a2a_sim_test``. ``$A2A_SIM_BINARY`` points everything at another
binary (a development build).
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _version

from ._binary import binary
from ._commands import TestSummary, check, run, run_tests
from ._errors import A2aSimError, Diagnostic, ScenarioError
from ._junit import Counts
from ._serve import CALLER_HEADER, Server, serve

try:
    __version__ = _version("a2a-sim")
except PackageNotFoundError:  # imported from a source tree, not installed
    __version__ = "0+unknown"

__all__ = [
    "CALLER_HEADER",
    "A2aSimError",
    "Counts",
    "Diagnostic",
    "ScenarioError",
    "Server",
    "TestSummary",
    "__version__",
    "binary",
    "check",
    "run",
    "run_tests",
    "serve",
]
