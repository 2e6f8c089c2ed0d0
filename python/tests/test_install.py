"""The wheel as installed: the binary on the environment's PATH, `python -m a2a_sim`, the version
from Cargo.toml, the package typed, the pytest plugin registered; and the package under test is
the installed one, not a source tree."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from importlib.metadata import entry_points, version
from pathlib import Path

import tomllib

import a2a_sim


def test_the_package_and_binary_come_from_this_environment(repo: Path) -> None:
    assert "A2A_SIM_BINARY" not in os.environ, "the test must use the wheel's own binary"
    package = Path(a2a_sim.__file__).resolve().parent
    site = Path(sysconfig.get_path("purelib")).resolve()
    assert package.parent == site, f"a2a_sim imported from {package}, not from {site}"
    assert (repo / "python") not in package.parents
    scripts = Path(sysconfig.get_path("scripts")).resolve()
    assert Path(a2a_sim.binary()).resolve() == scripts / "a2a-sim"
    # the interpreter's environment is a virtualenv of its own
    assert sys.prefix != sys.base_prefix


def test_a2a_sim_is_on_the_environment_path() -> None:
    scripts = sysconfig.get_path("scripts")
    found = shutil.which("a2a-sim", path=scripts)
    assert found is not None
    out = subprocess.run([found, "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("a2a-sim ")


def test_the_version_is_cargo_tomls(repo: Path) -> None:
    with open(repo / "Cargo.toml", "rb") as f:
        cargo = tomllib.load(f)["workspace"]["package"]["version"]
    assert version("a2a-sim") == cargo
    assert a2a_sim.__version__ == cargo
    out = subprocess.run(
        [a2a_sim.binary(), "--version"], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == f"a2a-sim {cargo}"


def test_python_dash_m_runs_the_same_binary(tmp_path: Path) -> None:
    direct = subprocess.run(
        [a2a_sim.binary(), "--version"], capture_output=True, text=True, check=False
    )
    via = subprocess.run(
        [sys.executable, "-m", "a2a_sim", "--version"], capture_output=True, text=True, check=False
    )
    assert (via.returncode, via.stdout) == (0, direct.stdout)
    # its exit status too: a usage error is 2
    bad = subprocess.run(
        [sys.executable, "-m", "a2a_sim", "run"], capture_output=True, text=True, check=False
    )
    assert bad.returncode == 2 and "Usage" in bad.stderr


def test_the_package_is_typed_and_the_plugin_registered() -> None:
    package = Path(a2a_sim.__file__).parent
    assert (package / "py.typed").is_file()
    plugins = {ep.name: ep.value for ep in entry_points(group="pytest11")}
    assert plugins.get("a2a_sim") == "a2a_sim.pytest_plugin"


def test_the_wheel_metadata_is_complete() -> None:
    from importlib.metadata import metadata

    meta = metadata("a2a-sim")
    assert meta["Summary"] and "A2A" in meta["Summary"]
    assert meta["License-Expression"] == "MIT" or meta["License"] == "MIT"
    assert meta["Requires-Python"] == ">=3.10"
    assert not meta.get_all("Requires-Dist"), "the package needs the standard library only"
    classifiers = meta.get_all("Classifier") or []
    assert "Framework :: Pytest" in classifiers and "Typing :: Typed" in classifiers
    assert re.search(r"pip install a2a-sim", meta.get_payload() or meta["Description"] or "")


def test_the_bundled_scenarios_pass_with_the_installed_binary(repo: Path) -> None:
    scenarios = sorted((repo / "scenarios").glob("*.yaml"))
    summary = a2a_sim.run_tests(repo / "scenarios")
    assert summary.ok, summary.output
    assert summary.counts is not None
    assert (summary.passed, summary.failed, summary.errors) == (len(scenarios), 0, 0)


def test_the_wheel_binary_answers_as_cargos_release_build(repo: Path) -> None:
    """The same output on every bundled scenario as `cargo build --release`'s binary
    (``$A2A_SIM_REFERENCE_BINARY``, which scripts/python-ci.sh sets to target/release/a2a-sim)."""
    reference = os.environ.get("A2A_SIM_REFERENCE_BINARY")
    assert reference, "set A2A_SIM_REFERENCE_BINARY to cargo's release binary"
    for scenario in sorted((repo / "scenarios").glob("*.yaml")):
        for fmt in ("json", "a2a-stream"):
            args = ["run", str(scenario), "--format", fmt]
            ours = subprocess.run([a2a_sim.binary(), *args], capture_output=True, check=False)
            cargos = subprocess.run([reference, *args], capture_output=True, check=False)
            assert (ours.returncode, ours.stdout) == (cargos.returncode, cargos.stdout), scenario


def test_the_guide_shows_the_example_ci_runs(repo: Path) -> None:
    """docs/src/guide/python.md shows test_guide_example.py verbatim, so the example runs."""
    guide = (repo / "docs/src/guide/python.md").read_text(encoding="utf-8")
    marker = "<!-- python/tests/test_guide_example.py -->\n```python\n"
    assert marker in guide
    shown = guide.split(marker, 1)[1].split("\n```\n", 1)[0] + "\n"
    example = Path(__file__).with_name("test_guide_example.py").read_text(encoding="utf-8")
    assert shown == example
