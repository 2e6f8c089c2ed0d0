"""a2a_sim.run / check / run_tests: the binary's output read back, its errors raised located."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

import a2a_sim

DATA = Path(__file__).resolve().parent / "data"


def test_run_returns_the_json_report_the_cli_prints(desk: Path) -> None:
    report = a2a_sim.run(desk)
    cli = subprocess.run(
        [a2a_sim.binary(), "run", str(desk), "--format", "json"], capture_output=True, check=True
    )
    assert report == json.loads(cli.stdout)
    assert report["format_version"] == 1
    assert [s["op"] for s in report["steps"]] == ["send", "send"]
    assert report["tasks"][0]["state"] == "completed"
    assert report["denials"][0]["codes"] == ["scope"]


def test_run_in_the_other_formats(desk: Path) -> None:
    tasks = a2a_sim.run(desk, format="a2a")
    assert isinstance(tasks, list) and tasks[0]["status"]["state"] == "TASK_STATE_COMPLETED"
    legacy = a2a_sim.run(desk, format="a2a", a2a_version="0.3")
    assert legacy[0]["status"]["state"] == "completed"
    events = a2a_sim.run(desk, format="a2a-stream")
    assert len(events) > 1 and all(isinstance(e, dict) for e in events)
    wrapped = a2a_sim.run(desk, format="a2a-stream", jsonrpc=True)
    assert [e["jsonrpc"] for e in wrapped] == ["2.0"] * len(events)
    runs = a2a_sim.run(desk, format="acp")
    assert runs[0]["status"] == "completed"
    table = a2a_sim.run(desk, format="table")
    assert table.startswith("== scenario: quote desk")
    assert "sequenceDiagram" in a2a_sim.run(desk, format="mermaid")


def test_run_with_overrides(desk: Path) -> None:
    # the guest moved to another tenant is denied on two counts
    report = a2a_sim.run(desk, set={"callers.guest.tenant": "globex"})
    assert report["overrides"] == ["callers.guest.tenant=globex"]
    assert report["denials"][0]["codes"] == ["tenant", "scope"]
    streaming = {"agents.quote-desk.capabilities.streaming": False}
    assert a2a_sim.run(desk, set=streaming)["overrides"] == [
        "agents.quote-desk.capabilities.streaming=false"
    ]


def test_a_file_that_does_not_load_raises_with_located_diagnostics() -> None:
    bad = DATA / "bad.yaml"
    with pytest.raises(a2a_sim.ScenarioError) as raised:
        a2a_sim.run(bad)
    error = raised.value
    assert error.returncode == 2
    [problem] = error.errors
    assert (Path(problem.file or "").name, problem.line, problem.column) == ("bad.yaml", 6, 5)
    assert "unknown field `colour`" in problem.message
    assert str(error) == str(problem) and str(problem).endswith(f":6:5: {problem.message}")
    with pytest.raises(a2a_sim.ScenarioError) as checked:
        a2a_sim.check(bad)
    assert checked.value.diagnostics == error.diagnostics


def test_a_bad_override_is_a_scenario_error_naming_it(desk: Path) -> None:
    with pytest.raises(a2a_sim.ScenarioError) as raised:
        a2a_sim.run(desk, set={"no_such_key": 1})
    [problem] = raised.value.errors
    assert problem.file == "--set no_such_key=1"
    assert str(problem).startswith("--set no_such_key=1: unknown field `no_such_key`")


def test_a_missing_file_is_a_scenario_error(tmp_path: Path) -> None:
    with pytest.raises(a2a_sim.ScenarioError) as raised:
        a2a_sim.check(tmp_path / "absent.yaml")
    assert "no such file" in str(raised.value)
    with pytest.raises(ValueError, match="one scenario file"):
        a2a_sim.run(tmp_path)


def test_check_returns_the_warnings(tmp_path: Path) -> None:
    assert a2a_sim.check(DATA / "desk.yaml") == []
    script = tmp_path / "open.yaml"
    script.write_text(
        "agents:\n  - name: stub\n    tenant: acme\n    clearance: internal\n"
        "    skills: [{id: s, tags: [t]}]\n    handler: [working]\n"
        "callers: [{id: c, tenant: acme, classification: internal}]\nsteps: []\n"
    )
    [warning] = a2a_sim.check(script)
    assert (warning.severity, warning.line) == ("warning", 6)
    assert "handler_incomplete" in warning.message
    with pytest.raises(a2a_sim.ScenarioError):
        a2a_sim.check(script, deny_warnings=True)


def test_run_tests_counts_and_keeps_the_diff(desk: Path) -> None:
    passed = a2a_sim.run_tests(desk)
    assert passed.ok and (passed.passed, passed.failed, passed.errors) == (1, 0, 0)
    golden = desk.with_name("desk.golden.json")
    golden.write_text(golden.read_text().replace('"EUR 100 quoted"', '"EUR 90 quoted"'))
    (desk.parent / "bad.yaml").write_text((DATA / "bad.yaml").read_text())
    failed = a2a_sim.run_tests(desk.parent)
    assert not failed.ok and failed.returncode == 2  # a load error wins over a mismatch
    assert (failed.passed, failed.failed, failed.errors) == (0, 1, 1)
    assert '-          "text": "EUR 90 quoted"' in failed.output
    assert f"a2a-sim test --bless {desk}" in failed.output
    # --bless accepts the report; the next comparison passes
    assert a2a_sim.run_tests(desk, bless=True).ok
    assert a2a_sim.run_tests(desk).ok


def test_run_tests_with_no_scenario_has_no_counts(tmp_path: Path) -> None:
    summary = a2a_sim.run_tests(tmp_path)
    assert (summary.returncode, summary.counts) == (2, None)
    assert "no scenarios found" in summary.output
