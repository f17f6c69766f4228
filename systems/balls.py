"""Making circles: a level's ball sets, and the pour tool's stream."""

from __future__ import annotations

import math

import esper
import numpy as np
import numpy.typing as npt

from weft.components import REFERENCE_RADIUS, BallSet, Body, ParticleKind, Pour, Stores
from weft.systems import world
from weft.systems.schedule import Step, System
from weft.systems.world import by_entity

POURED = "poured"
"""The name of the ball set poured circles join (made on the first pour)."""


def circle_inv_mass(radius: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Mass grows with area: a circle of the reference radius (5 px) weighs 1."""
    return (REFERENCE_RADIUS / radius) ** 2


def add_circles(
    stores: Stores,
    owner: int,
    centers: npt.NDArray[np.float64],
    radii: npt.NDArray[np.float64],
    velocity: npt.NDArray[np.float64] | None = None,
) -> range:
    """Append circles (centres ``(n, 2)``, radii ``(n,)``, Verlet step ``(n, 2)``) owned by ``owner``."""
    return stores.particles.add(
        centers, circle_inv_mass(radii), radii, owner, kind=ParticleKind.CIRCLE, velocity=velocity
    )


def lattice_pitch(radius_max: float) -> float:
    """px between neighbouring centres of ``packed_centers``: the largest diameter and a little, so
    that no two circles start overlapping."""
    return 2.0 * radius_max * 1.05


def packed_centers(
    count: int, radius_max: float, region: tuple[float, float, float, float], rng: np.random.Generator
) -> npt.NDArray[np.float64]:
    """``count`` centres filling ``region`` row by row from the bottom, alternate rows shifted, jittered.

    The pitch is ``lattice_pitch``. Shifting every other row by half a pitch, and a
    jitter of a tenth of a radius, leave no perfectly upright column: with
    friction, such a stack has no sideways push to topple it and would
    stand like a pillar above the pile.
    """
    left, bottom, _right, _top = region
    pitch = lattice_pitch(radius_max)
    cols = lattice_columns(radius_max, region)
    k = np.arange(count)
    row = k // cols
    x = left + radius_max + (k % cols) * pitch + (row % 2) * 0.5 * pitch
    y = bottom + radius_max + row * pitch
    jitter = rng.uniform(-0.1 * radius_max, 0.1 * radius_max, (count, 2))
    return np.column_stack([x, y]) + jitter


def packed_extent(
    count: int, radius_max: float, region: tuple[float, float, float, float]
) -> tuple[float, float, float, float]:
    """The rectangle ``(left, bottom, right, top)`` the discs of ``packed_centers``' first ``count``
    circles (one at least) cover, the rows they fill from the region's bottom, less the jitter (a
    tenth of a radius either way: a region flush with a wall is not outside it)."""
    left, bottom, _right, _top = region
    pitch = lattice_pitch(radius_max)
    cols = lattice_columns(radius_max, region)
    rows = -(-max(count, 1) // cols)
    shifted = 0.5 * pitch if rows > 1 else 0.0  # every other row sits half a pitch right
    right = left + 2.0 * radius_max + (min(count, cols) - 1) * pitch + shifted
    return left, bottom, right, bottom + 2.0 * radius_max + (rows - 1) * pitch


def lattice_columns(radius_max: float, region: tuple[float, float, float, float]) -> int:
    """Circles per row of ``packed_centers`` (the shifted rows need half a pitch of room)."""
    left, _bottom, right, _top = region
    pitch = lattice_pitch(radius_max)
    return max(1, int((right - left - 2.0 * radius_max - 0.5 * pitch) // pitch) + 1)


def lattice_capacity(radius_max: float, region: tuple[float, float, float, float]) -> int:
    """How many circles ``packed_centers`` fits in ``region``."""
    _left, bottom, _right, top = region
    pitch = lattice_pitch(radius_max)
    rows = int((top - bottom - 2.0 * radius_max) // pitch) + 1
    return lattice_columns(radius_max, region) * max(0, rows)


def poured_set(stores: Stores) -> int:
    """The entity poured circles belong to, made the first time."""
    for entity, balls in by_entity(BallSet):
        if balls.name == POURED:
            return entity
    return esper.create_entity(Body("balls", POURED), BallSet(name=POURED))


class PourSystem(System):
    """Streams circles from every held ``Pour``, up to the level's cap."""

    name = "pour"

    def process(self, step: Step) -> None:
        stores = world.stores()
        cap = world.settings().max_circles
        for _, pour in by_entity(Pour):
            if not pour.held:
                pour.owed = 0.0
                continue
            pour.owed += pour.rate
            count = min(int(pour.owed), max(0, cap - stores.particles.circles))
            pour.owed -= int(pour.owed)
            if count == 0:
                continue
            low, high = pour.sizes
            centers, radii = free_spots(pour, stores, count, low, high, world.settings().bounds)
            if len(radii):
                velocity = np.column_stack([np.zeros(len(radii)), np.full(len(radii), -POUR_SPEED * step.dt)])
                add_circles(stores, poured_set(stores), centers, radii, velocity)


POUR_SPEED = 400.0
"""px/s: poured circles leave the cursor falling, so the stream clears the spout."""

SPOUT_SPREAD = 3.0
"""Poured circles appear within this many of the largest radius of the cursor."""

ATTEMPTS = 6
"""Spots tried per circle before the spout counts as blocked for this frame."""


def free_spots(
    pour: Pour, stores: Stores, count: int, low: float, high: float, bounds: tuple[float, float, float, float]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Up to ``count`` new circles near the cursor that overlap nothing and lie inside ``bounds``
    (left, bottom, right, top): centres ``(k, 2)``, radii ``(k,)``.

    A circle born inside another would be pushed out within one substep,
    and Verlet would turn that push into a violent speed: the stream would
    spray. So each new circle takes the first free spot of a few tries,
    and the spout stays quiet while the pile below reaches it. So it does
    with the cursor outside the world (dragged off the window): circles
    born there were put inside the walls, a stream out of the corner.
    """
    left, bottom, right, top = bounds
    particles = stores.particles
    n = particles.count
    cx, cy = pour.at
    reach = SPOUT_SPREAD * high
    near = np.flatnonzero(
        (np.abs(particles.pos[:n, 0] - cx) < reach + high + particles.max_radius)
        & (np.abs(particles.pos[:n, 1] - cy) < reach + high + particles.max_radius)
    )
    taken_pos = [particles.pos[near]]
    taken_radius = [particles.radius[near]]
    centers, radii = [], []
    for _ in range(count):
        radius = pour.rng.uniform(low, high)
        for _ in range(ATTEMPTS):
            angle = pour.rng.uniform(0.0, 2.0 * math.pi)
            distance = reach * math.sqrt(pour.rng.uniform())
            spot = np.array([cx + distance * math.cos(angle), cy + distance * math.sin(angle)])
            if not (
                left + radius <= spot[0] <= right - radius and bottom + radius <= spot[1] <= top - radius
            ):
                continue
            others = np.concatenate(taken_pos)
            gaps = np.linalg.norm(others - spot, axis=1) - np.concatenate(taken_radius) - radius
            if not len(gaps) or gaps.min() >= 0.0:
                centers.append(spot)
                radii.append(radius)
                taken_pos.append(spot[None, :])
                taken_radius.append(np.array([radius]))
                break
    return np.array(centers).reshape(-1, 2), np.array(radii)
