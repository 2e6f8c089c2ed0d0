"""``python -m a2a_sim ARGS...``: the installed `a2a-sim` binary, with the same arguments."""

from __future__ import annotations

import os
import subprocess
import sys

from ._binary import binary


def main() -> int:
    try:
        exe = binary()
    except FileNotFoundError as e:
        print(f"a2a_sim: {e}", file=sys.stderr)
        return 2
    args = [exe, *sys.argv[1:]]
    if sys.platform == "win32":
        # no exec on Windows: run it and pass its exit status on
        return subprocess.run(args, check=False).returncode
    os.execv(exe, args)
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main())
