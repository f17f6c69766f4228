"""``weft bench --busy``: every scene three times in one run: quiet, with every other core busy, and
beside a second copy of itself.

A player's machine is never quiet: the game draws, a browser runs. The
first load is one CPU-bound process per core but one (``other_cores_busy``),
started before the scene and stopped after it, so the second run meets
what a busy machine gives. The second load is another ``weft bench`` of
the same scene running at once (``copy_running``): it wants the same cores,
caches and memory bandwidth, as a second game window does (it takes turns
between our frame and the oracles' as the bench does, so our engine is
half or a third of that load, and as CPU-bound as the rest). The figure that
matters is the 95th-percentile frame: a median can hold while one frame in
ten waits behind the load, and that frame is the stutter a player sees.
``p95_ratio`` and ``copy_p95_ratio`` (loaded over quiet) say how much each
load multiplied it.
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
COPY_SETTLE_S = 6.0
"""Seconds a copy of the scene is given to start (Python, numba's cached kernels, the scene built:
about 3 s here) before the measured run begins."""
COPY_FRAMES = 10**9
"""Frames the copy is asked for: it runs until it is stopped."""


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


@contextmanager
def copy_running(command: list[str] | None) -> Iterator[None]:
    """``command`` (a copy of the scene) running in a child for the block, its output discarded."""
    if command is None:
        yield
        return
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(COPY_SETTLE_S)
        yield
    finally:
        child.kill()
        child.wait()


def copy_command(scene: str) -> list[str]:
    """The command that runs ``scene`` without end: the load of a second copy."""
    return [sys.executable, "-m", "weft", "bench", scene, "--frames", str(COPY_FRAMES)]


@dataclass(frozen=True)
class BusyResult:
    """One scene measured quiet and busy."""

    quiet: SceneResult
    busy: SceneResult
    load: int
    """CPU-bound processes during the busy run."""
    beside_copy: SceneResult | None = None
    """The run beside a second copy of the same scene, where one was asked for."""

    @property
    def p95_ratio(self) -> float | None:
        """How many times the load made our 95th-percentile frame (None where it was not timed)."""
        return _ratio(self.quiet, self.busy)

    @property
    def copy_p95_ratio(self) -> float | None:
        """How many times a second copy running at once made our 95th-percentile frame."""
        return None if self.beside_copy is None else _ratio(self.quiet, self.beside_copy)

    @property
    def copy_pymunk_p95_ratio(self) -> float | None:
        """How many times the same copy made pymunk's 95th-percentile frame (one thread, no waits):
        what sharing the caches and memory with a copy costs on this machine. The 5050-box pyramid's
        went 1.52 times up beside a copy where ours went 1.50 (2026-12-07)."""
        if self.beside_copy is None:
            return None
        return _p95_ratio(self.quiet.pymunk_p95_ms, self.beside_copy.pymunk_p95_ms)

    def as_json(self) -> dict[str, Any]:
        """``{"scene", "load", "quiet", "busy", "p95_ratio", "beside_copy", "copy_p95_ratio",
        "copy_pymunk_p95_ratio"}``, the records as ``weft bench --json`` prints them (``beside_copy``
        None where not run)."""
        return {
            "scene": self.quiet.scene,
            "load": self.load,
            "quiet": self.quiet.as_json(),
            "busy": self.busy.as_json(),
            "p95_ratio": self.p95_ratio,
            "beside_copy": None if self.beside_copy is None else self.beside_copy.as_json(),
            "copy_p95_ratio": self.copy_p95_ratio,
            "copy_pymunk_p95_ratio": self.copy_pymunk_p95_ratio,
        }


def measure_busy(
    scene: Callable[[], list[SceneResult]],
    copy: list[str] | None = None,
    say: Callable[[str], None] = lambda phase: None,
) -> list[BusyResult]:
    """Run ``scene`` quiet, then again with the other cores busy, then (given the ``copy`` command)
    beside a copy of itself; its results grouped by row. ``say`` hears each phase as it begins
    (``quiet``, ``busy``, ``beside a copy``): a whole run takes minutes."""
    say("quiet")
    quiet = scene()
    say("busy")
    with other_cores_busy() as load:
        busy = scene()
    if copy is None:
        return [BusyResult(q, b, load) for q, b in zip(quiet, busy, strict=True)]
    say("beside a copy")
    with copy_running(copy):
        beside = scene()
    return [BusyResult(q, b, load, c) for q, b, c in zip(quiet, busy, beside, strict=True)]


def _ratio(quiet: SceneResult, loaded: SceneResult) -> float | None:
    """Loaded over quiet 95th-percentile frame (None where either was not timed)."""
    return _p95_ratio(quiet.p95_ms, loaded.p95_ms)


def _p95_ratio(quiet: float | None, loaded: float | None) -> float | None:
    """``loaded / quiet`` (None where either was not timed)."""
    if quiet is None or loaded is None or quiet <= 0.0:
        return None
    return loaded / quiet


def format_busy_table(results: list[BusyResult]) -> str:
    """Scene, then our median and 95th-percentile ms quiet and busy, the p95 ratio, pymunk's median
    busy with our ratio to it, and the p95 beside a copy with its ratio and pymunk's."""
    header = [
        "scene", "ms", "p95", "busy ms", "busy p95", "p95 ratio", "cores", "busy pymunk ms", "busy ratio",
        "copy p95", "copy ratio", "pymunk copy ratio",
    ]  # fmt: skip
    rows = [
        [
            result.quiet.scene,
            f"{result.quiet.ms:.3f}",
            _ms(result.quiet.p95_ms),
            f"{result.busy.ms:.3f}",
            _ms(result.busy.p95_ms),
            _times(result.p95_ratio),
            _cores(result),
            _ms(result.busy.pymunk_ms),
            "-" if result.busy.ratio is None else f"{result.busy.ratio:.2f}x",
            _ms(None if result.beside_copy is None else result.beside_copy.p95_ms),
            _times(result.copy_p95_ratio),
            _times(result.copy_pymunk_p95_ratio),
        ]
        for result in results
    ]
    lines = align(header, rows, text_columns=1)
    load = results[0].load if results else 0
    note = (
        f"busy: {load} CPU-bound process(es), one per core but one, during the second run of each scene; "
        "p95 ratio: busy 95th-percentile frame over quiet (1 = the load costs nothing); "
        "cores: numba threads the quiet and the busy frames ended on (a scene that uses two quiet "
        "has one under load: its ratio is at least what the second core gave it); "
        "busy ratio > 1: faster than pymunk under the same load; "
        "copy p95: beside a second copy of the same scene, its ratio over quiet; pymunk copy ratio: "
        "the same for pymunk's 95th-percentile frame (one thread: what sharing the caches and memory "
        "with a copy costs here)"
    )
    return "\n".join([*lines, "", note])


def _cores(result: BusyResult) -> str:
    """``2→1``: the thread counts the quiet and the busy run ended on, where the scene says."""
    quiet, busy = result.quiet.params.get("cores"), result.busy.params.get("cores")
    return "-" if quiet is None or busy is None else f"{quiet}→{busy}"


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _times(ratio: float | None) -> str:
    return "-" if ratio is None else f"{ratio:.2f}"
