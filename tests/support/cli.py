"""Running ``python -m weft`` as a user would, in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_game(*args: str, cwd: Path = ROOT, path: tuple[Path, ...] = ()) -> subprocess.CompletedProcess[str]:
    """Run ``python -m weft ARGS`` headless; the result carries exit code, stdout and stderr.

    ``path``: folders put on ``PYTHONPATH`` (plugins, fake installed distributions); weft itself
    comes from the installed package, as for a user.
    """
    env = {**os.environ, "ARCADE_HEADLESS": "1", "PYTHONPATH": os.pathsep.join(map(str, path))}
    return subprocess.run(
        [sys.executable, "-m", "weft", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )
