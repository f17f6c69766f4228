"""The broadphase: bin collidable particles into a uniform grid and list the pairs that may touch."""

from __future__ import annotations

import math

import numpy as np

from components import Broadphase, ParticleStore
from systems import world
from systems.kernels.grid import bin_particles, find_pairs
from systems.schedule import Stage, Step, System

MARGIN_RATIO = 0.25
"""Pairs are listed while their gap is under this share of the largest radius: contacts that the
iterations of the substep create by pushing neighbours are then already on the list."""

MAX_CELLS = 1 << 22
"""A level of tiny circles would ask for a huge grid; past this many cells, the cells grow instead."""


def rebuild(
    broadphase: Broadphase, particles: ParticleStore, bounds: tuple[float, float, float, float]
) -> None:
    """Bin the particles over ``bounds`` and list the candidate pairs into ``broadphase``.

    Cells are as wide as the largest reach (two of the largest radius plus
    the margin), so a particle's partners all sit in its own cell and the
    eight around it.
    """
    n = particles.count
    margin = MARGIN_RATIO * particles.max_radius
    left, bottom, right, top = bounds
    cell = 2.0 * particles.max_radius + margin
    cell = max(cell, math.sqrt((right - left) * (top - bottom) / MAX_CELLS))
    cols = max(1, math.ceil((right - left) / cell))
    rows = max(1, math.ceil((top - bottom) / cell))
    if len(broadphase.cell_start) != cols * rows + 1:
        broadphase.cell_start = np.zeros(cols * rows + 1, dtype=np.uint32)
    if len(broadphase.order) < n:
        broadphase.order = np.zeros(max(n, 2 * len(broadphase.order)), dtype=np.uint32)
        broadphase.cell_of = np.zeros(len(broadphase.order), dtype=np.int64)
    broadphase.cell, broadphase.left, broadphase.bottom = cell, left, bottom
    broadphase.cols, broadphase.rows, broadphase.margin = cols, rows, margin
    pos = particles.pos[:n]
    collidable = (particles.kind[:n] != 0) | (particles.radius[:n] > 0.0)
    broadphase.count = bin_particles(
        pos,
        collidable,
        left,
        bottom,
        cell,
        cols,
        rows,
        broadphase.cell_of[:n],
        broadphase.cell_start,
        broadphase.order,
    )
    while True:
        found = find_pairs(
            pos,
            particles.radius[:n],
            particles.kind[:n],
            cols,
            rows,
            broadphase.cell_start,
            broadphase.order,
            margin,
            broadphase.found_i,
            broadphase.found_j,
            broadphase.bucket,
            broadphase.pair_i,
            broadphase.pair_j,
        )
        if found <= len(broadphase.pair_i):
            broadphase.pair_count = found
            return
        broadphase.grow_pairs()


class BroadphaseSystem(System):
    """Rebuilds the grid and the candidate pairs once per substep, after the particles moved.

    Worlds without circles skip it entirely: cloth points never collide with each other.
    """

    name = "broadphase"
    stage = Stage.SUBSTEP
    after = ("integrate", "pins", "fields")

    def process(self, step: Step) -> None:
        stores = world.stores()
        if stores.particles.circles == 0:
            stores.broadphase.pair_count = 0
            stores.broadphase.count = 0
            return
        rebuild(stores.broadphase, stores.particles, world.settings().walls)
