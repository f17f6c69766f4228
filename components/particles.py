"""Every particle of the world, as structure-of-arrays numpy buffers."""

from __future__ import annotations

from enum import IntEnum

import numpy as np
import numpy.typing as npt

from weft.components.growth import grow


class ParticleKind(IntEnum):
    """How a particle meets others and the walls.

    ``POINT``: a cloth (or soft-body, ragdoll) point. Points never collide
    with each other; at a wall they stop and drag along the floor.
    ``CIRCLE``: a ball. Circles collide with circles and with points (so
    balls land on cloth), bounce off walls with restitution and slide with
    Coulomb friction.
    ``RING``: a point of a soft body's skin. It collides like a circle of its
    radius with everything but the particles of its own body, and meets
    walls as a point does.
    """

    POINT = 0
    CIRCLE = 1
    RING = 2


ARRAYS = ("pos", "prev", "inv_mass", "radius", "owner", "kind")
"""The per-particle arrays of a ``ParticleStore``, a row each."""


class ParticleStore:
    """Positions, previous positions and per-particle constants of every particle.

    Rows ``[0, count)`` are in use. Arrays are reallocated (doubling) when they
    fill up, so hold indices or ranges, never slices: a slice taken before a
    growth would keep pointing at the old buffer.

    Attributes (``N`` = capacity):
        pos: ``(N, 2)`` float64, current positions in px.
        prev: ``(N, 2)`` float64, positions one substep ago (Verlet velocity is ``pos - prev``).
        inv_mass: ``(N,)`` float64, 0 for pinned or grabbed particles.
        radius: ``(N,)`` float64, collision radius in px (cloth thickness / 2).
        owner: ``(N,)`` int64, the entity id of the body the particle belongs to.
        kind: ``(N,)`` uint8, a ``ParticleKind``.
    """

    def __init__(self, capacity: int = 1024) -> None:
        self.count = 0
        self.pos = np.zeros((capacity, 2))
        self.prev = np.zeros((capacity, 2))
        self.inv_mass = np.zeros(capacity)
        self.radius = np.zeros(capacity)
        self.owner = np.zeros(capacity, dtype=np.int64)
        self.kind = np.zeros(capacity, dtype=np.uint8)
        self.circles = 0
        """How many particles are circles."""
        self.rings = 0
        """How many are soft-body skin points (with the circles: the broadphase is skipped without any)."""
        self.max_radius = 0.0
        """The largest radius of any particle: the broadphase sizes its cells by it."""

    def add(
        self,
        pos: npt.NDArray[np.float64],
        inv_mass: float | npt.NDArray[np.float64],
        radius: float | npt.NDArray[np.float64],
        owner: int,
        kind: ParticleKind = ParticleKind.POINT,
        velocity: npt.NDArray[np.float64] | None = None,
    ) -> range:
        """Append particles at ``pos`` ``(n, 2)``; return their index range.

        ``velocity`` ``(n, 2)`` is in px per step (Verlet: ``prev = pos - velocity``); at rest by default.
        """
        n = len(pos)
        start = self.count
        self._reserve(start + n)
        end = start + n
        self.pos[start:end] = pos
        self.prev[start:end] = pos if velocity is None else pos - velocity
        self.inv_mass[start:end] = inv_mass
        self.radius[start:end] = radius
        self.owner[start:end] = owner
        self.kind[start:end] = kind
        self.count = end
        if kind == ParticleKind.CIRCLE:
            self.circles += n
        elif kind == ParticleKind.RING:
            self.rings += n
        if n:
            self.max_radius = max(self.max_radius, float(np.max(self.radius[start:end])))
        return range(start, end)

    def _reserve(self, needed: int) -> None:
        capacity = len(self.pos)
        if needed <= capacity:
            return
        while capacity < needed:
            capacity *= 2
        for name in ARRAYS:
            setattr(self, name, grow(getattr(self, name), capacity))
