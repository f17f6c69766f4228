"""Building simulations from tiny inline levels."""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import numpy.typing as npt

from weft.components import ThreadKind
from weft.game.level.load import validate
from weft.game.simulation import Simulation
from weft.systems.schedule import Stage, Step, System

INLINE = Path("inline.toml")


def counting(name: str, stage: Stage) -> System:
    """A custom system of ``stage`` called ``name`` that moves nothing, is never idle and counts the
    times it runs (its ``runs``)."""

    class Counting(System):
        def process(self, step: Step) -> None:
            self.runs += 1

    Counting.name, Counting.stage = name, stage
    system = Counting()
    system.runs = 0
    return system


def simulate(toml: str) -> Simulation:
    """A simulation of the level written in ``toml`` (the text of a level file)."""
    return Simulation(validate(tomllib.loads(toml), INLINE))


def sheet(
    *,
    cols: int = 20,
    rows: int = 12,
    spacing: float = 13.0,
    pins: str = '{ layout = "top" }',
    iterations: int = 20,
    world: str = "",
    cloth: str = "",
) -> Simulation:
    """A single cloth called ``sheet`` hanging from (300, 650) in a 1280 × 720 world."""
    return simulate(
        f"""
        [world]
        iterations = {iterations}
        {world}

        [[cloth]]
        name = "sheet"
        origin = [300, 650]
        cols = {cols}
        rows = {rows}
        spacing = {spacing}
        pins = {pins}
        {cloth}
        """
    )


def pieces(sim: Simulation, name: str = "sheet") -> int:
    """Connected components of a body's particles through its alive structural threads."""
    _, cloth = sim.body(name)
    d = sim.stores.distances
    rows = slice(cloth.threads.start, cloth.threads.stop)
    keep = d.alive[rows] & (d.kind[rows] == ThreadKind.STRUCTURAL)
    first = cloth.particles.start
    parent = list(range(len(cloth.particles)))

    def root(k: int) -> int:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for a, b in zip(d.i[rows][keep] - first, d.j[rows][keep] - first, strict=True):
        parent[root(int(a))] = root(int(b))
    return len({root(k) for k in range(len(parent))})


def fastest_speed(sim: Simulation) -> float:
    """The fastest particle's speed, px/s (its Verlet velocity ``pos - prev`` over one substep)."""
    p = sim.stores.particles
    if p.count == 0:
        return 0.0
    per_second = 60.0 * sim.settings.resolved_substeps()
    return float(np.hypot(*(p.pos[: p.count] - p.prev[: p.count]).T).max()) * per_second


def farthest_outside(sim: Simulation) -> float:
    """How far, px, the particle farthest outside the level's bounds lies beyond them (0: none is)."""
    p = sim.stores.particles
    if p.count == 0:
        return 0.0
    pos = p.pos[: p.count]
    left, bottom, right, top = sim.settings.bounds
    beyond = np.concatenate([left - pos[:, 0], pos[:, 0] - right, bottom - pos[:, 1], pos[:, 1] - top])
    return max(0.0, float(beyond.max()))


def velocities(sim: Simulation) -> npt.NDArray[np.float64]:
    """Verlet velocities (px per substep) of every particle: ``pos - prev``."""
    p = sim.stores.particles
    return p.pos[: p.count] - p.prev[: p.count]


BLAST_PILE = """
    [[balls]]
    name = "pile"
    count = 600
    radius = [4, 6]
    region = [330, 40, 628, 680]

    [tools]
    available = ["explode"]
    start = "explode"
    strength = 1.0
    radius = 300
    """
"""600 circles left of x = 630 and the explosion tool at full strength: add a barrier past them."""


def blast_pile(sim: Simulation, barrier: float) -> float:
    """Blow ``BLAST_PILE`` up from beside the barrier at x = ``barrier`` and check, frame by frame for
    1.5 s, that no circle of it ends past; the fastest a circle moved, px/s."""
    from weft.game.session import Session

    particles = sim.stores.particles
    pile = sim.indices("pile")
    session = Session(sim)
    session.queue({"type": "mouse_press", "x": 600.0, "y": 350.0, "button": "left"})
    per_second = 60 * sim.settings.resolved_substeps()
    fastest = 0.0
    for _ in range(90):
        session.advance()
        fastest = max(fastest, float(np.abs(particles.pos[pile] - particles.prev[pile]).max()) * per_second)
        assert (particles.pos[pile, 0] < barrier).all(), "a circle went through the barrier"
    return fastest


def inside(polygon: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Which ``points`` ``(k, 2)`` lie inside the closed ``polygon`` ``(m, 2)`` (even-odd rule)."""
    x, y = points[:, :1], points[:, 1:]
    ax, ay = polygon[:, 0], polygon[:, 1]
    bx, by = np.roll(ax, -1), np.roll(ay, -1)
    spans = (ay > y) != (by > y)
    with np.errstate(divide="ignore", invalid="ignore"):
        crossing_x = ax + (bx - ax) * (y - ay) / (by - ay)
    return ((spans & (x < crossing_x)).sum(axis=1) % 2) == 1
