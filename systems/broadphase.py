"""The broadphase: bin collidable particles into a uniform grid and list the pairs that may touch."""

from __future__ import annotations

import math

import numpy as np

from weft.components import Broadphase, ParticleStore
from weft.systems import world
from weft.systems.kernels.grid import (
    BLOCK,
    PARALLEL_PARTICLES,
    bin_points,
    bin_points_sparse,
    find_pairs,
    index_blocks,
)
from weft.systems.kernels.jit import one_thread
from weft.systems.kernels.measure import longest_move
from weft.systems.kernels.sweep import any_fast_circle
from weft.systems.schedule import Step, System

MARGIN_RATIO = 0.5
"""Pairs are listed while their gap is under this share of the largest radius (the list's skin)."""

CELLS_PER_PARTICLE = 32
"""A dense grid has at most this many cells a particle (or ``FEW_CELLS`` in all); beyond, only the
occupied cells are kept (``bin_points_sparse``). A dense grid clears and scans every cell each
rebuild, so a wide world of tiny circles (8192² px, 0.5 px radii: 43 million cells of 1.25 px) paid
for its empty cells; growing the cells instead (to 4 million of 4 px) put 17 packed circles in each,
and 50000 of them cost 19 ms a rebuild. Sparse, cells keep their natural size: see docs/levels.md
for the figures."""

FEW_CELLS = 1 << 16
"""Cells a dense grid may always have: clearing and scanning them costs tens of microseconds."""

MAX_SIDE = 1 << 20
"""Most cells across or down: a row-major cell number stays far inside an int64."""


def bin_grid(
    broadphase: Broadphase, particles: ParticleStore, bounds: tuple[float, float, float, float]
) -> None:
    """Counting-sort the collidable particles (circles, and points with a thickness) into the grid.

    Cells are as wide as the largest reach (two of the largest radius plus
    the margin), so a particle's partners all sit in its own cell and the
    eight around it. A grid of many more cells than particles keeps only
    the occupied ones (``CELLS_PER_PARTICLE``), in the same order.
    """
    n = particles.count
    margin = MARGIN_RATIO * particles.max_radius
    left, bottom, right, top = bounds
    cell = 2.0 * particles.max_radius + margin
    cell = max(cell, (right - left) / MAX_SIDE, (top - bottom) / MAX_SIDE)
    cols = max(1, math.ceil((right - left) / cell))
    rows = max(1, math.ceil((top - bottom) / cell))
    sparse = cols * rows > max(FEW_CELLS, CELLS_PER_PARTICLE * n)
    if sparse and len(broadphase.cell_start) < n + 1:
        broadphase.cell_start = np.zeros(max(n, 2 * len(broadphase.cell_start)) + 1, dtype=np.uint32)
    elif not sparse and len(broadphase.cell_start) != cols * rows + 1:
        broadphase.cell_start = np.zeros(cols * rows + 1, dtype=np.uint32)
    if len(broadphase.order) < n:
        broadphase.order = np.zeros(max(n, 2 * len(broadphase.order)), dtype=np.uint32)
        broadphase.cell_of = np.zeros(len(broadphase.order), dtype=np.int64)
    if sparse and len(broadphase.cell_key) < n:
        broadphase.cell_key = np.zeros(len(broadphase.order), dtype=np.int64)
    broadphase.cell, broadphase.left, broadphase.bottom = cell, left, bottom
    broadphase.cols, broadphase.rows, broadphase.margin = cols, rows, margin
    collidable = (particles.kind[:n] != 0) | (particles.radius[:n] > 0.0)
    if sparse:
        broadphase.count, broadphase.occupied = bin_points_sparse(
            particles.pos[:n],
            collidable,
            left,
            bottom,
            cell,
            cols,
            rows,
            broadphase.cell_of[:n],
            broadphase.order,
            broadphase.cell_key,
            broadphase.cell_start,
        )
        blocks = rows * math.ceil(cols / BLOCK) + 1
        if len(broadphase.block_start) < blocks:
            broadphase.block_start = np.zeros(blocks, dtype=np.int64)
        index_blocks(broadphase.cell_key[: broadphase.occupied], cols, rows, broadphase.block_start)
        return
    broadphase.occupied = 0
    broadphase.count = bin_points(
        particles.pos[:n],
        collidable,
        left,
        bottom,
        cell,
        0,
        0,
        cols,
        rows,
        broadphase.cell_of[:n],
        broadphase.cell_start,
        broadphase.order,
    )


def list_pairs(broadphase: Broadphase, particles: ParticleStore) -> None:
    """List every pair whose gap is under the margin, from the grid, and remember where everything was."""
    n = particles.count
    find = find_pairs if splits_pair_search(broadphase) else one_thread(find_pairs)
    while True:
        found = find(
            particles.pos[:n],
            particles.radius[:n],
            particles.kind[:n],
            particles.owner[:n],
            broadphase.cols,
            broadphase.rows,
            broadphase.cell_start,
            broadphase.order,
            broadphase.cell_key[: broadphase.occupied],
            broadphase.margin,
            broadphase.found_i,
            broadphase.found_j,
            broadphase.bucket,
            broadphase.pair_i,
            broadphase.pair_j,
        )
        if found <= len(broadphase.pair_i):
            break
        broadphase.grow_pairs()
    broadphase.pair_count = found
    broadphase.listed_at = particles.pos[:n].copy()
    broadphase.listed_margin = broadphase.margin


def splits_pair_search(broadphase: Broadphase) -> bool:
    """Whether the pair search runs on numba's threads: from ``PARALLEL_PARTICLES`` particles binned
    (fewer run its one-thread twin, which never starts them)."""
    return broadphase.count >= PARALLEL_PARTICLES


def pairs_are_stale(broadphase: Broadphase, particles: ParticleStore) -> bool:
    """Whether the pair list may miss a contact: something moved half the margin since it was made.

    Two particles that each moved less than half the margin cannot have
    closed a gap wider than the margin: every pair that can touch now is
    still on the list (a Verlet neighbour list). New particles, or a
    larger radius (a wider grid and margin), need a new list too.
    """
    n = particles.count
    if len(broadphase.listed_at) != n or broadphase.listed_margin != broadphase.margin:
        return True
    return 2.0 * longest_move(particles.pos[:n], broadphase.listed_at) >= broadphase.margin


def rebuild(
    broadphase: Broadphase, particles: ParticleStore, bounds: tuple[float, float, float, float]
) -> None:
    """Bin the particles over ``bounds`` and list the candidate pairs into ``broadphase``."""
    bin_grid(broadphase, particles, bounds)
    list_pairs(broadphase, particles)


class BroadphaseSystem(System):
    """Bins the particles into the grid when this substep needs it, at most once.

    Two things read the grid: a new pair list, needed once something moved
    half the margin (a settled pile takes many substeps to), and the sweep,
    needed when some circle moved more than its radius. When neither is
    due, the grid is left as it was and ``fresh`` says so. Worlds without
    circles or soft bodies skip it all: cloth points never collide with each other.
    """

    name = "broadphase"
    needs = ("particles",)

    def idle(self, step: Step) -> bool:
        stores = world.stores()
        broadphase, particles = stores.broadphase, stores.particles
        nothing_listed = broadphase.pair_count == 0 and broadphase.count == 0 and not broadphase.fresh
        return nothing_listed and particles.circles == 0 and particles.rings == 0

    def process(self, step: Step) -> None:
        stores = world.stores()
        broadphase = stores.broadphase
        particles = stores.particles
        broadphase.fresh = False
        if particles.circles == 0 and particles.rings == 0:
            broadphase.pair_count = 0
            broadphase.count = 0
            return
        n = particles.count
        stale = pairs_are_stale(broadphase, particles)
        fast = any_fast_circle(
            particles.pos[:n], particles.prev[:n], particles.radius[:n], particles.kind[:n]
        )
        if stale or fast:
            bin_grid(broadphase, particles, world.settings().walls)
            broadphase.fresh = True
        if stale:
            list_pairs(broadphase, particles)
