"""Running ``python -m game`` as a user would, in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_game(*args: str, cwd: Path = ROOT, path: tuple[Path, ...] = ()) -> subprocess.CompletedProcess[str]:
    """Run ``python -m game ARGS`` headless; the result carries exit code, stdout and stderr.

    ``path``: folders put on ``PYTHONPATH`` too (plugins, fake installed distributions).
    """
    env = {**os.environ, "ARCADE_HEADLESS": "1", "PYTHONPATH": os.pathsep.join(map(str, (ROOT, *path)))}
    return subprocess.run(
        [sys.executable, "-m", "game", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )
