"""The box scenes: the 55-box pyramid and the 5050-box one, ours against pymunk.

Ours is the shipped level (``levels/pyramid.toml``, ``levels/large_pyramid.toml``)
loaded as a player loads it, with sleeping turned off so every frame solves
every box: that is the figure the targets are about. The cost of the same
pyramid once it sleeps is reported beside it (``asleep_ms``).

The pymunk twin starts from our very boxes: one dynamic body per box at the
same place and size, mass 1 (all boxes are alike, so only the ratio
matters), pair friction the level's (each shape gets its square root, as
pymunk multiplies them), a thick static floor, sleeping off, its default
10 iterations and one step per 1/60 s frame: pymunk as a user would run it.

Both pyramids run ``STAND_SECONDS`` of simulated time from rest, and every
frame of it is timed, the two engines taking turns frame by frame: a
pyramid that stands costs the same all along, one that collapses gets
dearer as it falls, and the drift columns say which happened (the largest
distance any box moved from where it started).

From 2000 manifolds (about 700 boxes) ours solves on two threads, and from
1000 boxes it finds pairs and contacts on numba's threads (``threads``: as
many as numba has, two here); pymunk steps on one.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numba
import numpy as np
import pymunk

from weft.bench.measure import SceneResult, measure_drawing, median_frame_ms, side_by_side_ms
from weft.game.simulation import Simulation
from weft.levels import LEVELS_DIR
from weft.systems.kernels.box_grid import PARALLEL_BOXES

FRAME_DT = 1.0 / 60.0
STAND_SECONDS = {"pyramid": 30.0, "large_pyramid": 10.0}
"""Simulated seconds each pyramid must stand for (the issue's figures): every frame of them is timed."""
QUICK_FRAMES = 60
"""Frames a short run (``--frames`` below this) simulates instead: a check of the scene, not a figure."""
MAX_SLEEP_FRAMES = 900
"""Frames the sleeping-on run waits at most for every box to sleep (the 5050 boxes take about 8 s)."""
PYMUNK_ITERATIONS = 10
"""pymunk's default."""
FLOOR_THICKNESS = 20.0


def run_pyramid(frames: int) -> SceneResult:
    """``pyramid``: 55 boxes in ten layers."""
    return measure("pyramid", frames)


def run_large_pyramid(frames: int) -> SceneResult:
    """``large_pyramid``: 5050 boxes, 100 in the bottom layer."""
    return measure("large_pyramid", frames)


def measure(scene: str, frames: int) -> SceneResult:
    """Time ours (awake), ours (asleep) and pymunk on the same pyramid; drift of each after the run.

    The run lasts the scene's ``STAND_SECONDS``, or ``QUICK_FRAMES`` when
    ``frames`` is below that (a quick look, as the tests take).
    """
    duration = round(STAND_SECONDS[scene] / FRAME_DT) if frames >= QUICK_FRAMES else QUICK_FRAMES
    path = LEVELS_DIR / f"{scene}.toml"
    sim = Simulation.load(path, ["world.rigid.sleeping=false"])
    try:
        store = sim.stores.rigid
        n = store.count
        start = store.pos[:n].copy()
        friction = float(store.friction[0])
        rigid = sim.settings.rigid
        space, bodies = build_pymunk(start, store.half[:n].copy(), friction, sim.settings.gravity)
        ms, pymunk_ms = side_by_side_ms(sim.step, lambda: space.step(FRAME_DT), duration, warmup=0)
        drift = float(np.linalg.norm(store.pos[:n] - start, axis=1).max())
        params: dict[str, Any] = {
            "boxes": n,
            "substeps": rigid.substeps,
            "iterations": rigid.iterations,
            "threads": numba.get_num_threads() if n >= PARALLEL_BOXES else 1,
            "seconds": round(duration * FRAME_DT, 2),
            "drift_px": round(drift, 3),
            "max_penetration_px": round(float(sim.metrics()["max_penetration"]), 3),
        }
    finally:
        sim.close()
    moved = np.array([tuple(body.position) for body in bodies]) - start
    params["pymunk_iterations"] = PYMUNK_ITERATIONS
    params["pymunk_drift_px"] = round(float(np.linalg.norm(moved, axis=1).max()), 3)
    asleep_ms, slept_after, draw_ms = asleep(path, min(frames, duration))
    params["asleep_ms"] = round(asleep_ms, 4)
    params["asleep_after_s"] = None if slept_after is None else round(slept_after * FRAME_DT, 2)
    params["pymunk"] = (
        f"one Poly box per box, mass 1, shape friction sqrt({friction}), thick static floor, "
        f"{PYMUNK_ITERATIONS} iterations, one step per frame, sleeping off, one thread"
    )
    params["timing"] = (
        f"median of every frame of {duration} from rest, the engines taking turns frame by frame, "
        f"sleeping off in both; asleep_ms: ours with "
        f"sleeping on once every box sleeps (asleep_after_s; None: not within {MAX_SLEEP_FRAMES} frames)"
    )
    return SceneResult(scene, params, ms, pymunk_ms, draw_ms)


def asleep(path: Path, frames: int) -> tuple[float, int | None, float | None]:
    """Ours with sleeping on: median ms per frame once every box sleeps, the frame that happened, draw ms.

    A pyramid that is not asleep after ``MAX_SLEEP_FRAMES`` is timed as it is (and says so: None).
    """
    sim = Simulation.load(path)
    try:
        store = sim.stores.rigid
        slept_after = None
        for frame in range(1, MAX_SLEEP_FRAMES + 1):
            sim.step()
            if store.asleep[: store.count].all():
                slept_after = frame
                break
        ms = median_frame_ms(sim.step, frames, warmup=0)
        return ms, slept_after, measure_drawing(sim, frames)
    finally:
        sim.close()


def build_pymunk(
    centres: np.ndarray, halves: np.ndarray, friction: float, gravity: tuple[float, float]
) -> tuple[pymunk.Space, list[pymunk.Body]]:
    """A pymunk space with one dynamic box per row of ``centres``/``halves`` on a thick floor at y = 0."""
    space = pymunk.Space()
    space.gravity = gravity
    space.iterations = PYMUNK_ITERATIONS
    t = FLOOR_THICKNESS
    floor = pymunk.Segment(space.static_body, (-1e5, -t), (1e5, -t), t)
    floor.friction = math.sqrt(friction)
    bodies = []
    items: list[pymunk.Body | pymunk.Shape] = [floor]
    for (x, y), (hx, hy) in zip(centres.tolist(), halves.tolist(), strict=True):
        size = (2.0 * hx, 2.0 * hy)
        body = pymunk.Body(1.0, pymunk.moment_for_box(1.0, size))
        body.position = (x, y)
        shape = pymunk.Poly.create_box(body, size)
        shape.friction = math.sqrt(friction)
        bodies.append(body)
        items += [body, shape]
    space.add(*items)
    return space, bodies
