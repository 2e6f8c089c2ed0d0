"""The pytest plugin, as a user's test suite meets it (pytester runs a suite of its own; the
plugin comes from the installed wheel's pytest11 entry point, not from a -p option)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    for name in ("desk.yaml", "desk.golden.json"):
        shutil.copy(DATA / name, pytester.path / name)
    return pytester


def test_a2a_sim_test_passes_on_matching_goldens(suite: pytest.Pytester) -> None:
    suite.makepyfile(
        """
        def test_goldens(a2a_sim_test):
            summary = a2a_sim_test("desk.yaml")
            assert (summary.passed, summary.failed) == (1, 0)
        """
    )
    suite.runpytest_subprocess().assert_outcomes(passed=1)


def test_a2a_sim_test_fails_with_the_diff(suite: pytest.Pytester) -> None:
    golden = suite.path / "desk.golden.json"
    golden.write_text(golden.read_text().replace('"EUR 100 quoted"', '"EUR 90 quoted"'))
    suite.makepyfile(
        """
        def test_goldens(a2a_sim_test):
            a2a_sim_test("desk.yaml")
        """
    )
    result = suite.runpytest_subprocess()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*a2a-sim test desk.yaml (exit status 1):*",
            "FAILED desk.yaml",
            '-*"text": "EUR 90 quoted"*',
            '+*"text": "EUR 100 quoted"*',
            "*a2a-sim test --bless desk.yaml*",
        ]
    )
    # pytest.fail(pytrace=False): the output, not a traceback into the plugin
    assert "pytest_plugin.py" not in result.stdout.str()


def test_a2a_sim_serve_stops_every_server_at_teardown(suite: pytest.Pytester) -> None:
    suite.makepyfile(
        """
        import os
        import urllib.request

        import pytest

        started = []

        def test_two_servers(a2a_sim_serve):
            first = a2a_sim_serve("desk.yaml")
            second = a2a_sim_serve("desk.yaml", tick_ms=1)
            assert first.port != second.port
            for server in (first, second):
                urllib.request.urlopen(server.card_url("quote-desk"), timeout=10).read()
            started.extend([first, second])

        def test_they_were_stopped_cleanly_after_it():
            assert len(started) == 2
            for server in started:
                # stopped as Ctrl-C stops it: exit status 0 and the session's report read
                assert server.returncode == 0
                assert server.report["steps"] == []
                with pytest.raises(ProcessLookupError):
                    os.kill(server.process.pid, 0)
        """
    )
    suite.runpytest_subprocess().assert_outcomes(passed=2)


def test_the_report_header_names_the_binary(suite: pytest.Pytester) -> None:
    suite.makepyfile("def test_nothing():\n    pass\n")
    result = suite.runpytest_subprocess()
    result.stdout.fnmatch_lines(["a2a-sim: * (*a2a-sim*)"])
