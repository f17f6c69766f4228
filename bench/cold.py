"""``weft bench --cold``: how long a first start takes, numba's cache empty.

Each figure is a child process given a fresh cache folder (``NUMBA_CACHE_DIR``
in a temporary folder), so nothing compiled before counts: a cold
``weft run LEVEL --frames 600`` for the levels asked for (every shipped level
by default), and a cold ``weft warmup`` (everything the game uses). The
wall time is what a player waits the first time.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from weft.bench.measure import progress
from weft.bench.table import align
from weft.levels import LEVELS_DIR

TIMEOUT_S = 900
"""A cold start that takes longer than this is reported as failed."""
COLD_FRAMES = 600
"""Frames of each cold ``run``: ten seconds of play, as the README's own example runs. One frame
left out what a level first calls a while in (the rag doll's pushes out of boxes once a limb
reaches a crate), which a player waits for too."""


@dataclass(frozen=True)
class ColdStart:
    """One cold start: what ran, its wall time in s, and whether it finished."""

    what: str
    seconds: float
    ok: bool

    def as_json(self) -> dict[str, object]:
        return {"cold": self.what, "seconds": round(self.seconds, 1), "ok": self.ok}


def cold_start(command: list[str], what: str) -> ColdStart:
    """Run ``python -m weft <command>`` with an empty numba cache; its wall time."""
    with tempfile.TemporaryDirectory(prefix="weft-cold-") as cache:
        environment = {**os.environ, "NUMBA_CACHE_DIR": cache}
        started = time.perf_counter()
        try:
            done = subprocess.run(
                [sys.executable, "-m", "weft", *command],
                env=environment,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=TIMEOUT_S,
                check=False,
            )
            ok = done.returncode == 0
        except subprocess.TimeoutExpired:
            ok = False
        return ColdStart(what, time.perf_counter() - started, ok)


def measure_cold(levels: list[Path] | None = None) -> list[ColdStart]:
    """A cold ``run`` of each of ``levels`` (every shipped one by default), then a cold ``warmup``;
    each told on stderr as it ends (the table waits for all of them, ten minutes or so)."""
    chosen = levels if levels is not None else sorted(LEVELS_DIR.glob("*.toml"))
    commands = [(["run", str(path), "--frames", str(COLD_FRAMES)], f"run {path.name}") for path in chosen]
    commands.append((["warmup"], "warmup (every shipped level)"))
    starts = []
    for number, (command, what) in enumerate(commands, 1):
        start = cold_start(command, what)
        starts.append(start)
        progress(
            f"cold {what}: {start.seconds:.1f} s" if start.ok else f"cold {what}: failed",
            number,
            len(commands),
        )
    return starts


def format_cold_table(results: list[ColdStart]) -> str:
    """What ran and how many seconds it took from an empty cache."""
    rows = [[result.what, f"{result.seconds:.1f}", "" if result.ok else "failed"] for result in results]
    lines = align(["cold start", "s", ""], rows, text_columns=1)
    return "\n".join([*lines, "", "s: wall time from an empty numba cache (a first start)"])
