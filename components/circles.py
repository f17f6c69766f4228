"""Circles: ball sets, and the broadphase that finds which particles may touch."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from weft.components.growth import grow

REFERENCE_RADIUS = 5.0
"""px: a circle of this radius has mass 1 (mass grows with area, ``(r / 5)²``)."""


@dataclass
class BallSet:
    """A set of circles: one entity per ``[[balls]]`` entry (and one for poured circles).

    Its particles are those whose ``owner`` is this entity: pouring adds
    circles over time, so they need not be contiguous.
    """

    name: str


@dataclass
class Broadphase:
    """A uniform grid over the level and the candidate pairs found with it, rebuilt every substep.

    Collidable particles (circles, and points that circles can hit) are
    counting-sorted by cell: ``order[cell_start[c]:cell_start[c + 1]]`` are the
    particles of cell ``c``, so a pass over cells walks memory in order.
    A grid of far more cells than particles (a wide world of tiny circles)
    keeps only its occupied cells: then ``cell_key[:occupied]`` are their
    row-major numbers, ascending, and ``cell_start`` indexes those.
    Pairs ``(pair_i[p], pair_j[p])`` for ``p < pair_count`` are the particles
    whose gap was below ``margin`` px when listed: what the collision
    iterations solve, in this (deterministic) order, until the list is
    renewed. Indices are unsigned:
    numba then skips its negative-index check, almost half the pair search.
    """

    cell: float = 10.0
    left: float = 0.0
    bottom: float = 0.0
    cols: int = 0
    rows: int = 0
    margin: float = 0.0
    cell_start: np.ndarray = field(default_factory=lambda: np.zeros(1, dtype=np.uint32))
    order: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint32))
    cell_of: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    cell_key: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    occupied: int = 0
    """Cells kept in ``cell_key`` (0: a dense grid, every cell in ``cell_start``)."""
    block_start: np.ndarray = field(default_factory=lambda: np.zeros(1, dtype=np.int64))
    """A sparse grid's index: where each block of a row's cells starts in ``cell_key``."""
    count: int = 0
    fresh: bool = False
    """Whether the grid was binned at this substep's positions (the sweep needs it then)."""
    pair_i: np.ndarray = field(default_factory=lambda: np.zeros(1024, dtype=np.uint32))
    pair_j: np.ndarray = field(default_factory=lambda: np.zeros(1024, dtype=np.uint32))
    pair_count: int = 0
    found_i: np.ndarray = field(default_factory=lambda: np.zeros(1024, dtype=np.uint32))
    found_j: np.ndarray = field(default_factory=lambda: np.zeros(1024, dtype=np.uint32))
    bucket: np.ndarray = field(default_factory=lambda: np.zeros(1024, dtype=np.uint8))
    """Scratch of the pair finder: pairs as found, before they are put in solving order."""
    listed_at: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    """Positions ``(n, 2)`` when the pairs were listed: the list is renewed once any moved half the margin."""
    listed_margin: float = 0.0

    def grow_pairs(self) -> None:
        """Double the pair buffers (the pair finder reports when they were too small)."""
        capacity = 2 * len(self.pair_i)
        for name in ("pair_i", "pair_j", "found_i", "found_j", "bucket"):
            setattr(self, name, grow(getattr(self, name), capacity))
