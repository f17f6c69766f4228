"""Relaxation of distance constraints, one Gauss-Seidel pass per iteration."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from weft.components import DistanceSides, DistanceStore, Stores
from weft.systems import world
from weft.systems.bounds import BoundsSystem, walls
from weft.systems.kernels.distance import (
    needs_general,
    relax_distances,
    relax_rigid_distances,
    relax_rigid_sides,
    relax_sides,
)
from weft.systems.kernels.distance_loop import iterate_rigid_in_walls, iterate_rigid_sides_in_walls
from weft.systems.kernels.distance_sides import PARALLEL_DISTANCES, balanced_split, sides_hold, split_sides
from weft.systems.schedule import Step, System

Pass = tuple[Callable[..., None], tuple[Any, ...]]
"""A kernel and the arguments it is called with."""


class DistanceSystem(System):
    """Pulls every alive thread back towards its rest length (PBD, or XPBD when compliant).

    Once a substep it checks whether any constraint is compliant or pull-only;
    when none is, the lighter rigid kernel runs (the same arithmetic, fewer
    loads). From ``PARALLEL_DISTANCES`` constraints a pass runs in two sides
    at once, then their seam (``relax_sides``); the cut is kept while the
    constraints' ends stay the same. The kernel and its arguments are found
    once a substep and called as they are every iteration: a pass of the
    80 × 50 sheet takes 15 µs on two threads, and slicing and passing its
    arrays anew each time took 3 more. Where the threads are rigid and the
    walls are all else the iterations hold, it offers the schedule the whole
    loop in one call (``fused_iterations``): 280 µs a frame for that sheet
    on two threads, against 20 passes of 14 µs and 20 wall tests of 3.
    """

    name = "distances"
    needs = ("particles", "threads")

    def __init__(self) -> None:
        self.general = False
        """Whether the substep last prepared had a compliant or pull-only thread (the general kernel):
        a fused substep of cloth is offered only where not (``weft.systems.cloth_step``)."""
        self.current_pass: Pass | None = None
        """The kernel and arguments of the last substep whose iterations ran one by one or as one loop,
        called once each iteration (a fused substep, ``weft.systems.cloth_step``, sets none)."""
        self._offered: Step | None = None
        """The step whose substep's ``current_pass`` ``fused_iterations`` found and did not fuse: the
        first iteration takes it as it is (cleared there)."""

    def process(self, step: Step) -> None:
        if step.iteration == 0:
            if self._offered is not step:
                self.current_pass = self.prepare(step)
            self._offered = None
        elif self.current_pass is None:
            self.current_pass = self.prepare(step)
        if self.current_pass is not None:
            kernel, arguments = self.current_pass
            kernel(*arguments)

    def fused_iterations(self, busy: list[System], step: Step) -> Callable[[], None] | None:
        """Every iteration of this substep in one ``distance_loop`` kernel call when ``busy`` (the
        ITERATION systems with work) is this system and the built-in walls and every thread is
        rigid: the same numbers as the two systems give one by one. Else None, and the iterations
        come to ``process`` one by one, the pass prepared here kept for them."""
        self.current_pass = self.prepare(step)
        self._offered = step
        if len(busy) != 2 or type(busy[1]) is not BoundsSystem or self.current_pass is None:
            return None
        kernel = self.current_pass[0]
        if kernel is not relax_rigid_sides and kernel is not relax_rigid_distances:
            return None
        self._offered = None  # fused: no iteration of this substep comes to process
        stores = world.stores()
        points, threads = loop_arrays(stores)
        walled = walls(world.settings(), step.dt)
        if kernel is relax_rigid_distances:
            return lambda: iterate_rigid_in_walls(step.iterations, *points, *threads, walled)
        cut_made = stores.distance_sides
        sides = (cut_made.runs, cut_made.parts, cut_made.split)
        return lambda: iterate_rigid_sides_in_walls(step.iterations, *points, *threads, *sides, walled)

    def prepare(self, step: Step) -> Pass | None:
        """This substep's kernel and arguments (None without constraints), in the active world: the
        general kernel where a thread is compliant or pull-only, and from ``PARALLEL_DISTANCES``
        threads one in two sides. It sets ``general``, starts the multipliers again from 0 for the
        general kernel, and at the frame's first substep cuts the threads anew unless the kept cut
        still fits."""
        stores = world.stores()
        distances = stores.distances
        m = distances.count
        if m == 0:
            return None
        self.general = bool(needs_general(distances.compliance[:m], distances.mode[:m]))
        if self.general:  # XPBD's multipliers accumulate over the iterations of one substep only
            distances.lam[:m] = 0.0
        pos, inv_mass = stores.particles.pos, stores.particles.inv_mass
        threads: tuple[Any, ...] = (distances.i[:m], distances.j[:m], distances.rest[:m])
        if self.general:
            compliant = (distances.compliance[:m], distances.lam[:m], distances.alive[:m], distances.mode[:m])
            threads = (*threads, *compliant, step.dt)
        else:
            threads = (*threads, distances.alive[:m])
        sides = stores.distance_sides
        if m < PARALLEL_DISTANCES:
            sides.split = 0
            return (relax_distances if self.general else relax_rigid_distances), (pos, inv_mass, *threads)
        if step.substep == 0:
            cut(distances, sides)
        kernel = relax_sides if self.general else relax_rigid_sides
        return kernel, (pos, inv_mass, *threads, sides.runs, sides.parts)


def loop_arrays(stores: Stores) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """The arrays a rigid loop of iterations takes: the particles' positions, previous positions,
    inverse masses, radii and kinds; the threads' ends, rest lengths and alive flags."""
    particles, distances = stores.particles, stores.distances
    n, m = particles.count, distances.count
    points = (
        particles.pos[:n],
        particles.prev[:n],
        particles.inv_mass[:n],
        particles.radius[:n],
        particles.kind[:n],
    )
    return points, (distances.i[:m], distances.j[:m], distances.rest[:m], distances.alive[:m])


def cut(distances: DistanceStore, sides: DistanceSides) -> None:
    """Cut the constraints in two sides and a seam, unless the cut kept in ``sides`` still fits."""
    m = distances.count
    i, j = distances.i[:m], distances.j[:m]
    if sides.split and sides_hold(i, j, sides.i, sides.j):
        return
    runs = np.empty((m, 3), dtype=np.int64)
    sides.split = balanced_split(i, j)
    count, sides.parts = split_sides(i, j, sides.split, runs)
    sides.runs = runs[:count].copy()
    sides.i, sides.j = i.copy(), j.copy()
