"""The balls scene: a box of 6000 circles of radius 5, ours against pymunk's spatial hash.

Ours is built the way a player's level is (a ``[[balls]]`` table through
``validate`` and ``Simulation``), so the figure is the engine's real frame:
every scheduled system (integrate, broadphase, sweep, contacts, walls,
metrics), not a kernel alone. The pymunk twin starts from our very
particles: one dynamic body per circle at the same position, with the same
radius and a mass proportional to r² (ours: 1 at the reference radius of
5 px), a ``Circle`` shape without friction, four static segment walls, and
its spatial hash with cells one diameter wide. Both run 6 substeps of
1/360 s and 2 iterations, gravity -980 px/s², 0.99 of the velocity kept per
1/60 s frame.

Both piles first settle for ``SETTLE_FRAMES`` untimed frames: a settled
pile (every circle touching its neighbours, broadphase full of pairs) is
the steady state a level of circles spends its life in, and it costs more
than the free fall of the first frames. Only then are frames timed.

The scene also runs at 1000, 2000 and 20000 circles, to show the cost
grows about linearly with the count. The container stays 1280 px wide;
20000 circles need a taller one (``container``).

Where the two scenes differ, it is pymunk's rules, not a choice: pymunk
multiplies the elasticities of the two shapes, so with walls of
elasticity 1.0 a circle leaves a wall at the restitution like ours, but two
circles meet at restitution² (ours: circle contacts are inelastic).
"""

from __future__ import annotations

import functools
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pymunk

from weft.bench.measure import SceneResult, measure_drawing, time_frames
from weft.components import REFERENCE_RADIUS, Stores
from weft.game.level.load import validate
from weft.game.simulation import Simulation
from weft.systems.balls import lattice_capacity

FRAME_DT = 1.0 / 60.0
CIRCLES = 6000
"""The contract's ``balls`` scene."""
SCALING = (1000, 2000, CIRCLES, 20000)
"""Circle counts ``run`` measures, smallest first, so the table reads as a growth curve."""
RADIUS = 5.0
SUBSTEPS = 6
ITERATIONS = 2
GRAVITY = -980.0
DAMPING = 0.99
"""Velocity kept per 1/60 s frame (pymunk's ``Space.damping`` is per second: 0.99 ** 60)."""
RESTITUTION = 0.5
WIDTH = 1280.0
HEIGHT = 720.0
"""The window-sized box; taller only where the starting lattice needs it (``container``)."""
HEIGHT_STEP = 80.0
"""px the box grows by when the lattice does not fit."""
WALL_THICKNESS = 20.0
"""px: pymunk's walls are thick segments just outside the box, so a pile's weight cannot push a
circle through them (a circle whose centre crosses a zero-width segment is pushed out on its far side)."""
SETTLE_FRAMES = 120
"""Untimed frames before timing: 2 s. A 6000-circle pile has come to rest by then; a
20000-circle one is still compacting, so its row includes some of that (dearer) settling."""
PYMUNK_BUDGET_S = 30.0
"""Seconds of timed pymunk frames per row at most: at 20000 circles a pymunk frame takes about
0.6 s here, so it is timed over fewer frames (``pymunk_frames`` in the params)."""
MIN_TIMED_FRAMES = 10
"""Fewest frames a median is taken over when the budget cuts a run short."""
SETTLED_SAMPLE = 5
"""Last untimed frames whose median predicts a timed frame's cost, for the budget."""
SEED = 1


def untimed_frames(frames: int) -> int:
    """Untimed frames before ``frames`` timed ones: ``SETTLE_FRAMES``, fewer for a quick check.

    A run of a few frames (a test) is not a measurement: five untimed
    frames per timed one keep it quick (``Simulation`` has loaded every
    kernel before its first frame anyway).
    """
    return min(SETTLE_FRAMES, 5 * frames)


def scene_name(circles: int) -> str:
    """``balls`` for the contract's 6000 circles, ``balls_20k`` style for the scaling rows."""
    if circles == CIRCLES:
        return "balls"
    return f"balls_{circles // 1000}k" if circles % 1000 == 0 else f"balls_{circles}"


def container(circles: int) -> tuple[float, float, float, float]:
    """The box ``[left, bottom, right, top]``: 1280 × 720, or taller until the starting lattice fits.

    The width stays, and with it the pile's footprint; the height grows in
    steps of ``HEIGHT_STEP`` until the level's own lattice holds every
    circle (20000 circles of radius 5: 1280 × 1760).
    """
    height = HEIGHT
    while lattice_capacity(RADIUS, (0.0, 0.0, WIDTH, height)) < circles:
        height += HEIGHT_STEP
    return (0.0, 0.0, WIDTH, height)


def level(circles: int = CIRCLES) -> dict[str, Any]:
    """The scene as a level dict: one ``[[balls]]`` set packed into the whole box."""
    bounds = list(container(circles))
    return {
        "level": {"name": f"Bench balls ({circles})", "description": "Circles settling in a box."},
        "world": {
            "gravity": [0.0, GRAVITY],
            "damping": DAMPING,
            "iterations": ITERATIONS,
            "substeps": SUBSTEPS,
            "restitution": RESTITUTION,
            "friction": 0.0,
            "max_circles": circles,
            "bounds": bounds,
        },
        "balls": [
            {"name": "balls", "count": circles, "radius": [RADIUS, RADIUS], "region": bounds, "seed": SEED}
        ],
    }


def build_ours(circles: int = CIRCLES) -> Simulation:
    """The scene as our engine's simulation, validated like any level file."""
    return Simulation(validate(level(circles), Path(__file__)))


def build_pymunk(stores: Stores, bounds: tuple[float, float, float, float]) -> pymunk.Space:
    """A pymunk space that mirrors the circles of ``stores`` inside the walls ``bounds``.

    Bodies are created in particle order, at the particles' positions and
    at rest (ours start at rest: ``prev == pos``). Mass follows ours,
    ``(r / 5)²``, with the moment of a solid disc.
    """
    space = pymunk.Space()
    space.gravity = (0.0, GRAVITY)
    space.iterations = ITERATIONS
    # chipmunk scales velocity by damping ** dt each step
    space.damping = DAMPING ** (1.0 / FRAME_DT)
    particles = stores.particles
    n = particles.count
    # cells one diameter wide; about ten cells per object, as pymunk's documentation suggests
    space.use_spatial_hash(2.0 * float(particles.max_radius), 10 * n)
    items: list[pymunk.Body | pymunk.Shape] = []
    for x, y, radius in zip(
        particles.pos[:n, 0].tolist(),
        particles.pos[:n, 1].tolist(),
        particles.radius[:n].tolist(),
        strict=True,
    ):
        mass = (radius / REFERENCE_RADIUS) ** 2
        body = pymunk.Body(mass, pymunk.moment_for_circle(mass, 0.0, radius))
        body.position = (x, y)
        circle = pymunk.Circle(body, radius)
        circle.elasticity = RESTITUTION
        circle.friction = 0.0
        items += [body, circle]
    space.add(*items, *walls(space.static_body, bounds))
    return space


def walls(static: pymunk.Body, bounds: tuple[float, float, float, float]) -> list[pymunk.Segment]:
    """Four thick static segments whose inner faces are the edges of ``bounds``.

    Elasticity 1.0, as pymunk multiplies the two shapes' elasticities: a
    circle then leaves a wall at its own elasticity, the restitution.
    """
    left, bottom, right, top = bounds
    t = WALL_THICKNESS
    ends = [
        ((left - t, bottom - t), (right + t, bottom - t)),
        ((left - t, top + t), (right + t, top + t)),
        ((left - t, bottom - t), (left - t, top + t)),
        ((right + t, bottom - t), (right + t, top + t)),
    ]
    segments = []
    for a, b in ends:
        segment = pymunk.Segment(static, a, b, t)
        segment.elasticity = 1.0
        segment.friction = 0.0
        segments.append(segment)
    return segments


def step_pymunk(space: pymunk.Space) -> None:
    """One 1/60 s frame of the twin: ``SUBSTEPS`` steps, as ours substeps its frame."""
    for _ in range(SUBSTEPS):
        space.step(FRAME_DT / SUBSTEPS)


def run(frames: int) -> list[SceneResult]:
    """The scene at every count of ``SCALING``, smallest first: one result per count."""
    return [measure(circles, frames) for circles in SCALING]


def measure(circles: int, frames: int) -> SceneResult:
    """Settle, then time ``frames`` frames of ours and of the pymunk twin; medians in ms per frame.

    pymunk is timed over fewer frames when ``frames`` of them would take
    longer than ``PYMUNK_BUDGET_S`` (never fewer than ``MIN_TIMED_FRAMES``).
    """
    untimed = untimed_frames(frames)
    sim = build_ours(circles)
    try:
        stores = sim.stores
        left, bottom, right, top = sim.settings.bounds
        params: dict[str, Any] = {
            "circles": stores.particles.count,
            "radius": RADIUS,
            "width": round(right - left),
            "height": round(top - bottom),
            "substeps": sim.settings.resolved_substeps(),
            "iterations": sim.settings.iterations,
            "settle_frames": untimed,
            "frames": frames,
        }
        space = build_pymunk(stores, sim.settings.bounds)
        ours = time_frames(sim.step, frames, warmup=untimed)
        params["cores"] = sim.physics.threads.current  # the frames ended on (ThreadChoice)
        draw_ms = measure_drawing(sim, frames)
    finally:
        sim.close()
    step = functools.partial(step_pymunk, space)
    settled_ms = settle(step, untimed)
    pymunk_frames = frames_within(PYMUNK_BUDGET_S, settled_ms, frames)
    theirs = time_frames(step, pymunk_frames, warmup=0)
    params["pymunk_frames"] = pymunk_frames
    params["pymunk"] = (
        "Circle shapes on dynamic bodies, spatial hash (cell = diameter, 10 cells per circle), "
        "thick static segment walls of elasticity 1.0 (so circle pairs bounce at restitution²)"
    )
    params["timing"] = (
        f"both piles settle for {untimed} untimed frames, then the median of the timed frames "
        f"({frames} of ours, {pymunk_frames} of pymunk's)"
    )
    return SceneResult(
        scene_name(circles), params, ours.median, theirs.median, draw_ms, None, ours.p95, theirs.p95
    )


def settle(step: Callable[[], None], frames: int) -> float:
    """Step ``frames`` untimed frames; return the median ms of the last few (0 when ``frames`` is 0).

    The last frames are the settled pile's cost: the first frames of free
    fall are much cheaper and would underestimate it.
    """
    times = []
    for k in range(frames):
        started = time.perf_counter()
        step()
        if k >= frames - SETTLED_SAMPLE:
            times.append((time.perf_counter() - started) * 1e3)
    return statistics.median(times) if times else 0.0


def frames_within(budget_s: float, frame_ms: float, frames: int) -> int:
    """How many of ``frames`` frames of ``frame_ms`` fit in ``budget_s``, at least ``MIN_TIMED_FRAMES``."""
    if frame_ms <= 0.0:
        return frames
    return max(min(frames, MIN_TIMED_FRAMES), min(frames, int(budget_s * 1e3 / frame_ms)))
