"""Every distance constraint (cloth thread, soft-body edge, ragdoll bone) of the world."""

from __future__ import annotations

from enum import IntEnum

import numpy as np
import numpy.typing as npt

from weft.components.growth import grow

NO_PARENT = -1
"""Marks an unused slot of ``DistanceStore.parents``."""

MAX_PARENTS = 4
"""A shear thread leans on the four sides of its cell, so four slots suffice."""


class ThreadKind(IntEnum):
    """What a distance constraint is for; only structural threads are drawn and tear."""

    STRUCTURAL = 0
    SHEAR = 1
    BEND = 2


class DistanceMode(IntEnum):
    """``EQUAL`` holds the rest length both ways; ``MAX_ONLY`` only pulls (a rope)."""

    EQUAL = 0
    MAX_ONLY = 1


ARRAYS = ("i", "j", "rest", "compliance", "lam", "tear_ratio", "alive", "kind", "mode", "parents", "owner")
"""The per-constraint arrays of a ``DistanceStore``, a row each."""


class DistanceStore:
    """Structure-of-arrays distance constraints; rows ``[0, count)`` are in use.

    Solved in index order (Gauss-Seidel), which is creation order: bodies are
    spawned in level order, so the order is reproducible.

    Attributes (``M`` = capacity):
        i, j: ``(M,)`` uint32, the two particle indices (unsigned: numba then
            skips the negative-index wraparound check, a measurable share of a relaxation pass).
        rest: ``(M,)`` float64, rest length in px.
        compliance: ``(M,)`` float64, XPBD compliance (inverse stiffness), 0 = rigid.
        lam: ``(M,)`` float64, XPBD Lagrange multiplier, reset every substep.
        tear_ratio: ``(M,)`` float64, breaks when longer than ``tear_ratio * rest``; inf never.
        alive: ``(M,)`` bool, torn or cut threads are ``False`` and skipped.
        kind: ``(M,)`` uint8, a ``ThreadKind``.
        mode: ``(M,)`` uint8, a ``DistanceMode``.
        parents: ``(M, 4)`` int64, threads this one leans on; it dies when any of them dies.
        owner: ``(M,)`` int64, the entity id of the body.
    """

    def __init__(self, capacity: int = 2048) -> None:
        self.count = 0
        self.i = np.zeros(capacity, dtype=np.uint32)
        self.j = np.zeros(capacity, dtype=np.uint32)
        self.rest = np.zeros(capacity)
        self.compliance = np.zeros(capacity)
        self.lam = np.zeros(capacity)
        self.tear_ratio = np.full(capacity, np.inf)
        self.alive = np.zeros(capacity, dtype=np.bool_)
        self.kind = np.zeros(capacity, dtype=np.uint8)
        self.mode = np.zeros(capacity, dtype=np.uint8)
        self.parents = np.full((capacity, MAX_PARENTS), NO_PARENT, dtype=np.int64)
        self.owner = np.zeros(capacity, dtype=np.int64)

    def add(
        self,
        i: npt.NDArray[np.integer],
        j: npt.NDArray[np.integer],
        rest: npt.NDArray[np.float64],
        *,
        owner: int,
        kind: ThreadKind = ThreadKind.STRUCTURAL,
        mode: DistanceMode = DistanceMode.EQUAL,
        compliance: float = 0.0,
        tear_ratio: float = np.inf,
        parents: npt.NDArray[np.int64] | None = None,
    ) -> range:
        """Append ``len(i)`` alive constraints; return their index range.

        ``parents`` is ``(n, k)`` with ``k <= 4`` absolute constraint indices
        (``NO_PARENT`` for unused slots).
        """
        n = len(i)
        start = self.count
        end = start + n
        self._reserve(end)
        self.i[start:end] = i
        self.j[start:end] = j
        self.rest[start:end] = rest
        self.compliance[start:end] = compliance
        self.lam[start:end] = 0.0
        self.tear_ratio[start:end] = tear_ratio
        self.alive[start:end] = True
        self.kind[start:end] = kind
        self.mode[start:end] = mode
        self.parents[start:end] = NO_PARENT
        if parents is not None:
            self.parents[start:end, : parents.shape[1]] = parents
        self.owner[start:end] = owner
        self.count = end
        return range(start, end)

    def _reserve(self, needed: int) -> None:
        capacity = len(self.i)
        if needed <= capacity:
            return
        while capacity < needed:
            capacity *= 2
        for name in ("i", "j", "rest", "compliance", "lam", "alive", "kind", "mode", "owner"):
            setattr(self, name, grow(getattr(self, name), capacity))
        self.tear_ratio = grow(self.tear_ratio, capacity, fill=np.inf)
        self.parents = grow(self.parents, capacity, fill=NO_PARENT)


class DistanceSides:
    """The distance constraints cut in two sides and a seam (``kernels.distance_sides``), kept from
    frame to frame with the constraint ends it was made for.

    Attributes:
        split: the particle index that cuts them: side 0's threads have both ends below it, side
            1's both at or above it (0: no cut, the world is relaxed in one order).
        i, j: ``(M,)`` uint32, copies of the ends the cut was made for.
        runs: ``(R, 3)`` int64, runs ``[first, last)`` of constraint indices and their shape
            (``kernels.distance_rows``): side 0's, side 1's, then the seam's, each side's in two
            parts (``kernels.distance_sides.PARTS``).
        parts: ``(6,)`` int64, where each of the five parts' runs start in ``runs``, and their end.
    """

    def __init__(self) -> None:
        self.split = 0
        self.i = np.zeros(0, dtype=np.uint32)
        self.j = np.zeros(0, dtype=np.uint32)
        self.runs = np.zeros((0, 3), dtype=np.int64)
        self.parts = np.zeros(6, dtype=np.int64)
