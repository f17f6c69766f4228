"""Every particle of the world, as structure-of-arrays numpy buffers."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from components.growth import grow


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
    """

    def __init__(self, capacity: int = 1024) -> None:
        self.count = 0
        self.pos = np.zeros((capacity, 2))
        self.prev = np.zeros((capacity, 2))
        self.inv_mass = np.zeros(capacity)
        self.radius = np.zeros(capacity)
        self.owner = np.zeros(capacity, dtype=np.int64)

    def add(
        self,
        pos: npt.NDArray[np.float64],
        inv_mass: float | npt.NDArray[np.float64],
        radius: float | npt.NDArray[np.float64],
        owner: int,
    ) -> range:
        """Append particles at rest at ``pos`` ``(n, 2)``; return their index range."""
        n = len(pos)
        start = self.count
        self._reserve(start + n)
        end = start + n
        self.pos[start:end] = pos
        self.prev[start:end] = pos
        self.inv_mass[start:end] = inv_mass
        self.radius[start:end] = radius
        self.owner[start:end] = owner
        self.count = end
        return range(start, end)

    def _reserve(self, needed: int) -> None:
        capacity = len(self.pos)
        if needed <= capacity:
            return
        while capacity < needed:
            capacity *= 2
        for name in ("pos", "prev", "inv_mass", "radius", "owner"):
            setattr(self, name, grow(getattr(self, name), capacity))
