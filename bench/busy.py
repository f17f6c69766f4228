"""``weft bench --busy``: every scene twice in one run, quiet and then with every other core busy.

A player's machine is never quiet: the game draws, a browser runs. The
load here is one CPU-bound process per core but one (``other_cores_busy``),
started before the scene and stopped after it, so the second run meets
what a busy machine gives. The figure that matters is the 95th-percentile
frame: a median can hold while one frame in ten waits behind the load, and
that frame is the stutter a player sees. ``p95_ratio`` (busy over quiet)
says how much the load multiplied it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from weft.bench.measure import SceneResult
from weft.bench.table import align

SPIN = "while True: pass"
SETTLE_S = 0.3
"""Seconds the load runs before the scene starts, so it is at full speed."""


@contextmanager
def other_cores_busy() -> Iterator[int]:
    """One CPU-bound Python process per core but one for the block; how many there are."""
    count = max(1, (os.cpu_count() or 2) - 1)
    load = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(count)]
    try:
        time.sleep(SETTLE_S)
        yield count
    finally:
        for process in load:
            process.kill()
        for process in load:
            process.wait()


@dataclass(frozen=True)
class BusyResult:
    """One scene measured quiet and busy."""

    quiet: SceneResult
    busy: SceneResult
    load: int
    """CPU-bound processes during the busy run."""

    @property
    def p95_ratio(self) -> float | None:
        """How many times the load made our 95th-percentile frame (None where it was not timed)."""
        quiet, busy = self.quiet.p95_ms, self.busy.p95_ms
        return None if quiet is None or busy is None or quiet <= 0.0 else busy / quiet

    def as_json(self) -> dict[str, Any]:
        """``{"scene", "load", "quiet": <record>, "busy": <record>, "p95_ratio"}``, the records as
        ``weft bench --json`` prints them."""
        return {
            "scene": self.quiet.scene,
            "load": self.load,
            "quiet": self.quiet.as_json(),
            "busy": self.busy.as_json(),
            "p95_ratio": self.p95_ratio,
        }


def measure_busy(scene: Callable[[], list[SceneResult]]) -> list[BusyResult]:
    """Run ``scene`` quiet, then again with the other cores busy; its results paired up."""
    quiet = scene()
    with other_cores_busy() as load:
        busy = scene()
    return [BusyResult(q, b, load) for q, b in zip(quiet, busy, strict=True)]


def format_busy_table(results: list[BusyResult]) -> str:
    """Scene, then our median and 95th-percentile ms quiet and busy, the p95 ratio, and pymunk's
    median busy with our ratio to it."""
    header = ["scene", "ms", "p95", "busy ms", "busy p95", "p95 ratio", "busy pymunk ms", "busy ratio"]
    rows = [
        [
            result.quiet.scene,
            f"{result.quiet.ms:.3f}",
            _ms(result.quiet.p95_ms),
            f"{result.busy.ms:.3f}",
            _ms(result.busy.p95_ms),
            "-" if result.p95_ratio is None else f"{result.p95_ratio:.2f}",
            _ms(result.busy.pymunk_ms),
            "-" if result.busy.ratio is None else f"{result.busy.ratio:.2f}x",
        ]
        for result in results
    ]
    lines = align(header, rows, text_columns=1)
    load = results[0].load if results else 0
    note = (
        f"busy: {load} CPU-bound process(es), one per core but one, during the second run of each scene; "
        "p95 ratio: busy 95th-percentile frame over quiet (1 = the load costs nothing); "
        "busy ratio > 1: faster than pymunk under the same load"
    )
    return "\n".join([*lines, "", note])


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
