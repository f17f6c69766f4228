"""Building simulations from tiny inline levels."""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import numpy.typing as npt

from weft.components import ThreadKind
from weft.game.level.load import validate
from weft.game.simulation import Simulation

INLINE = Path("inline.toml")


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


def velocities(sim: Simulation) -> npt.NDArray[np.float64]:
    """Verlet velocities (px per substep) of every particle: ``pos - prev``."""
    p = sim.stores.particles
    return p.pos[: p.count] - p.prev[: p.count]
