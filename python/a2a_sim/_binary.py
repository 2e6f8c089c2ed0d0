"""Where the `a2a-sim` binary of this installation is."""

from __future__ import annotations

import os
import sys
import sysconfig
from pathlib import Path

ENV_BINARY = "A2A_SIM_BINARY"
"""An environment variable naming another binary to use (a development build, say)."""


def _user_scheme() -> str:
    if sys.platform == "win32":
        return "nt_user"
    if sys.platform == "darwin" and getattr(sys, "_framework", None):
        return "osx_framework_user"
    return "posix_user"


def _candidates(exe: str) -> list[Path]:
    """The places a wheel's scripts land, most likely first.

    The environment's scripts directory (a virtualenv, uv's tool environments, a system
    install), the user scheme's (``pip install --user``), and ``bin`` beside the package's
    parent (``pip install --target DIR`` puts scripts in ``DIR/bin``).
    """
    dirs: list[str | Path] = [sysconfig.get_path("scripts")]
    try:
        dirs.append(sysconfig.get_path("scripts", scheme=_user_scheme()))
    except KeyError:
        pass
    dirs.append(Path(__file__).resolve().parent.parent / "bin")
    return [Path(d) / exe for d in dirs]


def binary() -> str:
    """The path of the `a2a-sim` binary that every function of this package runs.

    ``$A2A_SIM_BINARY``, when set, wins (for running the package against a build of your own:
    ``A2A_SIM_BINARY=target/debug/a2a-sim``); otherwise the binary installed with this package.
    The PATH is not searched: another version there could answer differently.

    Raises FileNotFoundError when there is none.
    """
    override = os.environ.get(ENV_BINARY)
    if override:
        if not Path(override).is_file():
            raise FileNotFoundError(f"${ENV_BINARY} names {override!r}, which is not a file")
        return override
    exe = "a2a-sim" + (sysconfig.get_config_var("EXE") or "")
    tried = _candidates(exe)
    for path in tried:
        if path.is_file():
            return str(path)
    raise FileNotFoundError(
        "the a2a-sim binary of this installation was not found (looked in "
        + ", ".join(str(p.parent) for p in tried)
        + f"); reinstall the a2a-sim wheel, or set ${ENV_BINARY} to a binary"
    )
