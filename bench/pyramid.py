"""The box scenes: the 55-box pyramid and the 5050-box one, ours against pymunk and Box2D v3.

Ours is the shipped level (``levels/pyramid.toml``, ``levels/large_pyramid.toml``)
loaded as a player loads it, with sleeping turned off so every frame solves
every box: that is the figure the targets are about. The cost of the same
pyramid once it sleeps is reported beside it (``asleep_ms``).

The pymunk twin starts from our very boxes: one dynamic body per box at the
same place and size, mass 1 (all boxes are alike, so only the ratio
matters), pair friction the level's (each shape gets its square root, as
pymunk multiplies them), a thick static floor, sleeping off, its default
10 iterations and one step per 1/60 s frame: pymunk as a user would run it.

The Box2D v3 twin (``pyb2d3``, the second oracle of the box solver) starts
from the same boxes too, at ``PX_PER_M`` = 40: Box2D is tuned for bodies of
about a metre (5 mm linear slop), so our 40 px box is its unit box and the
level's gravity in px/s² becomes m/s² over 40. Every shape gets the level's
friction (Box2D mixes a pair as sqrt(a*b)); the floor is a static box whose
top is y = 0; sleeping is off and each frame is one ``world.step`` of its
default 4 substeps (ours takes the level's), on one thread: a world made
without a thread pool solves on the caller's. Without ``pyb2d3`` the bench
runs all the same and leaves the Box2D figures out.

Both pyramids run ``STAND_SECONDS`` of simulated time from rest, and every
frame of it is timed, the engines taking turns frame by frame: a
pyramid that stands costs the same all along, one that collapses gets
dearer as it falls, and the drift columns say which happened (the largest
distance any box moved from where it started).

From 2000 manifolds (about 700 boxes) ours can solve on two threads, and
from 1000 boxes find pairs and contacts on numba's threads; each frame runs
on as many as the step's own trials find faster here and now
(``game.threads``; ``cores``: the count at the end of the run). pymunk and
Box2D step on one.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pymunk

from weft.bench.measure import SceneResult, measure_drawing, time_frames, time_taking_turns
from weft.game.simulation import Simulation
from weft.game.threads import threaded
from weft.levels import LEVELS_DIR

try:
    import pyb2d3
except ImportError:  # the bench extra brings it; without it the pyramids are timed against pymunk alone
    pyb2d3 = None

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
PX_PER_M = 40.0
"""Our px per Box2D metre: our 40 px box is the one-metre body Box2D's tolerances are tuned for."""
BOX2D_SUBSTEPS = 4
"""Box2D v3's default substeps per ``world.step``."""


def run_pyramid(frames: int) -> SceneResult:
    """``pyramid``: 55 boxes in ten layers."""
    return measure("pyramid", frames)


def run_large_pyramid(frames: int) -> SceneResult:
    """``large_pyramid``: 5050 boxes, 100 in the bottom layer."""
    return measure("large_pyramid", frames)


def measure(scene: str, frames: int) -> SceneResult:
    """Time ours (awake), ours (asleep), pymunk and Box2D on the same pyramid; drift of each after the run.

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
        halves = store.half[:n].copy()
        gravity = sim.settings.gravity
        space, bodies = build_pymunk(start, halves, friction, gravity)
        steps = [sim.step, lambda: space.step(FRAME_DT)]
        if pyb2d3 is None:
            print(
                f"bench: {scene} not measured in Box2D (pyb2d3 is not installed: "
                'pip install "weft-physics[bench]" adds it)',
                file=sys.stderr,
            )
        else:
            world, box2d_bodies = build_box2d(start, halves, friction, gravity)
            steps.append(lambda: world.step(FRAME_DT, BOX2D_SUBSTEPS))
        ours, theirs, *box2d = time_taking_turns(tuple(steps), duration, warmup=0)
        drift = float(np.linalg.norm(store.pos[:n] - start, axis=1).max())
        params: dict[str, Any] = {
            "boxes": n,
            "substeps": rigid.substeps,
            "iterations": rigid.iterations,
            "cores": sim.physics.threads.threads(threaded(sim.stores)),  # the frames ended on
            "seconds": round(duration * FRAME_DT, 2),
            "drift_px": round(drift, 3),
            "max_penetration_px": round(float(sim.metrics()["max_penetration"]), 3),
        }
    finally:
        sim.close()
    moved = np.array([tuple(body.position) for body in bodies]) - start
    params["pymunk_iterations"] = PYMUNK_ITERATIONS
    params["pymunk_drift_px"] = round(float(np.linalg.norm(moved, axis=1).max()), 3)
    box2d_ms = box2d[0].median if box2d else None
    params["box2d_substeps"] = BOX2D_SUBSTEPS
    params["box2d_drift_px"] = None
    if box2d_ms is not None:
        metres = np.array([tuple(body.position) for body in box2d_bodies])
        params["box2d_drift_px"] = round(float(np.linalg.norm(metres * PX_PER_M - start, axis=1).max()), 3)
    asleep_ms, slept_after, draw_ms = asleep(path, min(frames, duration))
    params["asleep_ms"] = round(asleep_ms, 4)
    params["asleep_after_s"] = None if slept_after is None else round(slept_after * FRAME_DT, 2)
    params["pymunk"] = (
        f"one Poly box per box, mass 1, shape friction sqrt({friction}), thick static floor, "
        f"{PYMUNK_ITERATIONS} iterations, one step per frame, sleeping off, one thread"
    )
    params["box2d"] = (
        f"Box2D v3 (pyb2d3) at {PX_PER_M:g} px = 1 m, one box per box, density 1, shape friction {friction}, "
        f"static floor, {BOX2D_SUBSTEPS} substeps per frame, sleeping off, one thread"
    )
    params["timing"] = (
        f"median of every frame of {duration} from rest, the engines taking turns frame by frame, "
        f"sleeping off in each; asleep_ms: ours with "
        f"sleeping on once every box sleeps (asleep_after_s; None: not within {MAX_SLEEP_FRAMES} frames)"
    )
    return SceneResult(scene, params, ours.median, theirs.median, draw_ms, box2d_ms, ours.p95, theirs.p95)


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
        ms = time_frames(sim.step, frames, warmup=0).median
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


def build_box2d(
    centres: np.ndarray, halves: np.ndarray, friction: float, gravity: tuple[float, float]
) -> tuple[pyb2d3.World, list[pyb2d3.Body]]:
    """A Box2D world with one dynamic box per row of ``centres``/``halves`` (px) on a floor at y = 0.

    Everything is divided by ``PX_PER_M`` on the way in; the bodies come back in row order.
    """
    world = pyb2d3.World(gravity=(gravity[0] / PX_PER_M, gravity[1] / PX_PER_M))
    world.sleeping_enabled = False
    material = pyb2d3.surface_material(friction=friction)
    floor = world.create_static_body(position=(0.0, -1.0))
    floor.create_shape(pyb2d3.shape_def(material=material), pyb2d3.box(1000.0, 1.0))
    bodies = []
    for (x, y), (hx, hy) in zip((centres / PX_PER_M).tolist(), (halves / PX_PER_M).tolist(), strict=True):
        body = world.create_dynamic_body(position=(x, y))
        body.create_shape(pyb2d3.shape_def(density=1.0, material=material), pyb2d3.box(hx, hy))
        bodies.append(body)
    return world, bodies
