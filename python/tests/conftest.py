"""Shared by the tests of the a2a_sim package.

These tests are meant to run against the INSTALLED wheel (scripts/python-ci.sh copies them out
of the source tree and runs them in a fresh virtualenv). ``$A2A_SIM_REPO`` names the repository
checkout, for the tests that use its bundled scenarios and its Cargo.toml.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture
def repo() -> Path:
    """The repository checkout (``$A2A_SIM_REPO``); these tests are the repository's."""
    where = os.environ.get("A2A_SIM_REPO")
    if not where:
        pytest.fail("set A2A_SIM_REPO to the a2a-sim checkout (scripts/python-ci.sh does)")
    path = Path(where)
    assert (path / "Cargo.toml").is_file(), f"A2A_SIM_REPO={where} is not an a2a-sim checkout"
    return path


@pytest.fixture
def desk(tmp_path: Path) -> Path:
    """A private copy of data/desk.yaml and its golden (tests may change them)."""
    for name in ("desk.yaml", "desk.golden.json"):
        shutil.copy(DATA / name, tmp_path / name)
    return tmp_path / "desk.yaml"
