"""The cloth scene: an 80 × 50 sheet hanging from pins, ours against pymunk slide joints.

Ours is built the way a player's level is (a level dict through
``validate`` and ``Simulation``), so the figure is the engine's real frame:
every scheduled system, not a kernel alone. The pymunk twin is built from
our own stores after the build: one point body per particle at its
position, one ``SlideJoint(min=0, max=rest)`` per thread over the very same
pairs in the same order, and the pinned particles as static bodies. Both run
20 iterations, gravity -980 px/s², 0.99 of the velocity kept per 1/60 s frame.

Beside the frame taken in turns with pymunk's, the bench prints ours stepped
alone (``alone_ms``, and pymunk's frame over it, ``alone_ratio``): with no
pymunk frame between two of ours, our data and the interpreter's stay in the
caches. ``substep_ms`` and ``rest_ms`` split our frame taken in turns
(``Schedule.timings``, over as many frames again): the substep's one kernel
call (integrate, pins, the iterations, contain and tear: ``cloth_step``), and the
rest of the frame (the other systems, the schedule, the step around them).
``paced_ms`` is ours stepped as a 60 Hz game steps it, once a 1/60 s tick, each
engine in half of it with the thread asleep before (``time_paced``), and
``paced_ratio`` pymunk's frame so stepped over it; ``paced_cores`` the thread
count chosen by then.
Beside that, it prints the pass's cost per thread-projection on
one core and the limit this machine sets it (``bench/projection.py``), and
``cores``, the thread count the step had chosen by the last frame.

The pymunk bodies have no shapes: ours has no self-collision, so pymunk's
broadphase would be work ours does not do. That is pymunk's fastest honest
setting for this scene (small circle shapes filtered out of collisions cost
it about 2 ms more a frame here); point bodies (infinite moment) likewise,
as our particles do not spin.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pymunk

from weft.bench.measure import WARMUP_FRAMES, SceneResult, measure_drawing, time_paced, time_taking_turns
from weft.bench.projection import projection_figures
from weft.components import Stores
from weft.game.level.load import validate
from weft.game.simulation import Simulation
from weft.systems.schedule import fused_name

FRAME_DT = 1.0 / 60.0
COLS = 80
ROWS = 50
SPACING = 12.0
"""px: 12 px and above gets one substep (the automatic rule), so both engines take one step a frame."""
ITERATIONS = 20
FUSED = ("integrate", "pins", "distances", "bounds", "contain", "tear")
"""The systems a substep of this sheet runs as one kernel call (``weft.systems.cloth_step``)."""
GRAVITY = -980.0
DAMPING = 0.99
"""Velocity kept per 1/60 s frame (pymunk's ``Space.damping`` is per second: 0.99 ** 60)."""
PIN_EVERY = 4
"""Every 4th point of the top row and the last one, as in the default level (21 pins)."""

LEVEL: dict[str, Any] = {
    "level": {"name": "Bench cloth", "description": "80 × 50 sheet pinned every 4 points, no wind."},
    "world": {
        "gravity": [0.0, GRAVITY],
        "damping": DAMPING,
        "iterations": ITERATIONS,
        "substeps": "auto",
        # room below and beside the sheet: it hangs to y ≈ 790 and never meets a wall
        "bounds": [0.0, 0.0, 1600.0, 1600.0],
    },
    "cloth": [
        {
            "name": "sheet",
            "origin": [326.0, 1400.0],
            "cols": COLS,
            "rows": ROWS,
            "spacing": SPACING,
            "pins": {"layout": "every", "every": PIN_EVERY},
        }
    ],
}


def build_ours() -> Simulation:
    """The scene as our engine's simulation, validated like any level file."""
    return Simulation(validate(LEVEL, Path(__file__)))


def build_pymunk(stores: Stores) -> pymunk.Space:
    """A pymunk space that mirrors the particles, threads and pins of ``stores``.

    Bodies are created in particle order and joints in thread order, so
    chipmunk's sequential solver visits the constraints as our Gauss-Seidel
    pass does.
    """
    space = pymunk.Space()
    space.gravity = (0.0, GRAVITY)
    space.iterations = ITERATIONS
    # chipmunk scales velocity by damping ** dt each step
    space.damping = DAMPING ** (1.0 / FRAME_DT)
    particles = stores.particles
    pinned = set(stores.pins.index[: stores.pins.count].tolist())
    bodies = []
    for k in range(particles.count):
        if k in pinned:
            body = pymunk.Body(body_type=pymunk.Body.STATIC)
        else:
            body = pymunk.Body(1.0 / particles.inv_mass[k], math.inf)
        body.position = (float(particles.pos[k, 0]), float(particles.pos[k, 1]))
        bodies.append(body)
    distances = stores.distances
    joints = [
        pymunk.SlideJoint(bodies[a], bodies[b], (0.0, 0.0), (0.0, 0.0), 0.0, float(rest))
        for a, b, rest in zip(
            distances.i[: distances.count].tolist(),
            distances.j[: distances.count].tolist(),
            distances.rest[: distances.count].tolist(),
            strict=True,
        )
    ]
    space.add(*bodies, *joints)
    return space


def run(frames: int) -> SceneResult:
    """Measure ``frames`` frames of ours, then of the pymunk twin; medians in ms per frame."""
    sim = build_ours()
    try:
        stores = sim.stores
        _, sheet = sim.body("sheet")
        params = {
            "cols": sheet.cols,
            "rows": sheet.rows,
            "points": stores.particles.count,
            "threads": stores.distances.count,
            "pins": stores.pins.count,
            "iterations": sim.settings.iterations,
            "substeps": sim.settings.resolved_substeps(),
            "frames": frames,
            "pymunk": "SlideJoint per thread, point bodies without shapes, pins static",
        }
        space = build_pymunk(stores)
        ours, theirs = time_taking_turns((sim.step, lambda: space.step(FRAME_DT)), frames, WARMUP_FRAMES)
        (alone,) = time_taking_turns((sim.step,), frames, 0)
        params["alone_ms"] = round(alone.median, 3)
        params["alone_ratio"] = round(theirs.median / alone.median, 2)
        params.update(frame_split(sim, lambda: space.step(FRAME_DT), frames))
        params["cores"] = sim.physics.threads.current  # the frames ended on (ThreadChoice)
        paced, theirs_paced = time_paced((sim.step, lambda: space.step(FRAME_DT)), frames, WARMUP_FRAMES)
        params["paced_ms"] = round(paced.median, 3)
        params["paced_ratio"] = round(theirs_paced.median / paced.median, 2)
        params["paced_cores"] = sim.physics.threads.current
        params.update(projection_figures(sim))
        draw_ms = measure_drawing(sim, frames)
    finally:
        sim.close()
    return SceneResult("cloth", params, ours.median, theirs.median, draw_ms, None, ours.p95, theirs.p95)


def frame_split(sim: Simulation, theirs: Callable[[], None], frames: int) -> dict[str, float]:
    """``substep_ms``: the median ms of the substep's one kernel call (``FUSED``, as
    ``Schedule.timings`` names it) in ``frames`` of ours taken in turns with ``theirs``; ``rest_ms``:
    the median of the rest of each of those frames, timed as the bench times ours (the other systems,
    the schedule, the step around it; 0.0 both when no frame ran its substep fused)."""
    name = fused_name([sim.schedule.get(system) for system in FUSED])
    substep, rest = [], []
    try:
        for _ in range(frames):
            sim.schedule.timings = {}
            started = time.perf_counter()
            sim.step()
            whole = (time.perf_counter() - started) * 1e3
            fused = sim.schedule.timings.get(name, 0.0) * 1e3
            if fused:
                substep.append(fused)
                rest.append(whole - fused)
            theirs()
    finally:
        sim.schedule.timings = None
    if not substep:
        return {"substep_ms": 0.0, "rest_ms": 0.0}
    return {"substep_ms": round(statistics.median(substep), 3), "rest_ms": round(statistics.median(rest), 3)}
