"""Timing a scene's frames, and the result one scene reports.

Every scene is measured the same way: a few warm-up frames that are thrown
away (numba loads or compiles its kernels on the first call; caches and
branch predictors settle), then each measured frame timed on its own with
``time.perf_counter``, and the median kept. The median, not the mean: on a
shared 2-core machine one frame now and then lands behind another process
or a garbage collection, and a mean would report the neighbour's load.
"""

from __future__ import annotations

import math
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from weft.components import FRAME_DT

if TYPE_CHECKING:
    from weft.game.simulation import Simulation

WARMUP_FRAMES = 20
"""Frames stepped before timing starts; the first one alone can take 250 ms of numba cache loading."""


def progress(what: str, number: int, count: int) -> None:
    """``bench: cloth busy (1 of 5)`` on stderr: the tables print only when everything has run,
    minutes later with ``--busy`` or ``--cold``, and a silent terminal looks hung."""
    print(f"bench: {what} ({number} of {count})", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Timing:
    """One engine's timed frames: the median and the 95th percentile, ms."""

    median: float
    p95: float

    @classmethod
    def of(cls, times: list[float]) -> Timing:
        """The median and 95th percentile of ``times`` (ms; at least one)."""
        ordered = sorted(times)
        rank = math.ceil(0.95 * len(ordered)) - 1  # the nearest-rank percentile
        return cls(statistics.median(ordered), ordered[rank])


def time_frames(step: Callable[[], None], frames: int, warmup: int = WARMUP_FRAMES) -> Timing:
    """Call ``step`` ``warmup`` times untimed, then ``frames`` times timed.

    ``step`` advances one 1/60 s frame of whichever engine it wraps.
    """
    return time_taking_turns((step,), frames, warmup)[0]


def time_taking_turns(steps: tuple[Callable[[], None], ...], frames: int, warmup: int) -> list[Timing]:
    """Each of ``steps`` called in turn ``warmup`` times untimed, then ``frames`` times timed: each of
    their frames is timed right after the others', so all meet the same load on a shared machine
    (timed one after the other, a busy spell during one engine's run would count against it alone)."""
    for _ in range(warmup):
        for step in steps:
            step()
    times: list[list[float]] = [[] for _ in steps]
    for _ in range(frames):
        for step, kept in zip(steps, times, strict=True):
            started = time.perf_counter()
            step()
            kept.append((time.perf_counter() - started) * 1e3)
    return [Timing.of(kept) for kept in times]


def time_paced(steps: tuple[Callable[[], None], ...], frames: int, warmup: int) -> list[Timing]:
    """Each of ``steps`` called once per 1/60 s tick, as a 60 Hz game calls its physics, each in a
    share of the tick of its own with the thread asleep before it: ``warmup`` ticks untimed, then
    ``frames`` timed.

    Between two frames of a game the core sleeps and other work runs, and the next frame starts
    with the caches cold and numba's worker asleep: on this machine the 80 x 50 cloth's frame took
    twice its time taken in turns with pymunk's (``time_taking_turns``), pymunk's a tenth more."""
    times: list[list[float]] = [[] for _ in steps]
    share = FRAME_DT / len(steps)
    due = time.perf_counter()
    for frame in range(warmup + frames):
        for step, kept in zip(steps, times, strict=True):
            due = max(due + share, time.perf_counter())  # a late one is not made up for
            time.sleep(max(0.0, due - time.perf_counter()))
            started = time.perf_counter()
            step()
            if frame >= warmup:
                kept.append((time.perf_counter() - started) * 1e3)
    return [Timing.of(kept) for kept in times]


def measure_drawing(sim: Simulation, frames: int) -> float | None:
    """Median CPU ms to draw ``sim`` offscreen (``frames`` stepped frames), or None without a GL context."""
    try:
        from weft.game.offscreen import Offscreen
        from weft.game.session import Session

        return Offscreen(Session(sim)).draw_cpu_ms(frames)
    except Exception as error:  # no EGL/GL here: physics figures still stand
        print(f"bench: drawing not measured ({error})", file=sys.stderr)
        return None


@dataclass(frozen=True)
class SceneResult:
    """What one benchmark scene measured: ours, pymunk's and Box2D's median ms per frame (and ours and
    pymunk's 95th percentile, where timed frame by frame).

    ``pymunk_ms`` is None for a scene pymunk has no equivalent of, and
    ``box2d_ms`` for one not built in Box2D (all but the box pyramids) or when
    pyb2d3 is not installed; ``draw_ms`` (CPU time to issue one frame's drawing) is None where it
    was not measured. ``params`` says what was measured (sizes, counts, iterations) so a
    figure is never read without its scene.
    """

    scene: str
    params: dict[str, Any]
    ms: float
    pymunk_ms: float | None
    draw_ms: float | None = None
    box2d_ms: float | None = None
    p95_ms: float | None = None
    pymunk_p95_ms: float | None = None

    @property
    def ratio(self) -> float | None:
        """How many times faster than pymunk we are (``pymunk_ms / ms``); None without pymunk."""
        if self.pymunk_ms is None or self.ms <= 0.0:
            return None
        return self.pymunk_ms / self.ms

    @property
    def box2d_ratio(self) -> float | None:
        """How many times faster than Box2D we are (``box2d_ms / ms``); None without Box2D."""
        if self.box2d_ms is None or self.ms <= 0.0:
            return None
        return self.box2d_ms / self.ms

    def as_json(self) -> dict[str, Any]:
        """The ``weft bench --json`` record of ARCHITECTURE.md's contract, plus ``box2d_ms``,
        ``box2d_ratio``, ``draw_ms``, ``p95_ms`` and ``pymunk_p95_ms``.

        Times are rounded to 0.1 µs and the ratios are computed from the
        rounded times, so a reader checking ``pymunk_ms / ms`` gets ``ratio``
        (and ``box2d_ms / ms`` gets ``box2d_ratio``).
        """
        ms = round(self.ms, 4)
        pymunk_ms = _rounded(self.pymunk_ms)
        box2d_ms = _rounded(self.box2d_ms)
        return {
            "scene": self.scene,
            "params": self.params,
            "ms": ms,
            "pymunk_ms": pymunk_ms,
            "ratio": None if pymunk_ms is None or ms <= 0.0 else pymunk_ms / ms,
            "box2d_ms": box2d_ms,
            "box2d_ratio": None if box2d_ms is None or ms <= 0.0 else box2d_ms / ms,
            "draw_ms": _rounded(self.draw_ms),
            "p95_ms": _rounded(self.p95_ms),
            "pymunk_p95_ms": _rounded(self.pymunk_p95_ms),
        }


def _rounded(ms: float | None) -> float | None:
    """A time rounded to 0.1 µs, None kept."""
    return None if ms is None else round(ms, 4)
