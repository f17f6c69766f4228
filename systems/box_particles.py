"""Particles meeting boxes, and the ragdolls' bones between them: listed near them once a substep,
swept into them (particles), pushed out each iteration."""

from __future__ import annotations

from typing import Any

import numpy as np

from weft.components import BoxGrid, Ragdoll, RigidStore, Stores
from weft.systems import world
from weft.systems.box_pairs import bin_grid, fill_pairs
from weft.systems.kernels.box_bones import bone_bounds, push_bones_out_of_boxes
from weft.systems.kernels.box_braces import brace_boxes
from weft.systems.kernels.box_particles import list_near_boxes, push_out_of_boxes, sweep_into_boxes
from weft.systems.schedule import Step, System

WAKE_SPEED = 60.0
"""px/s: a particle hitting a sleeping box faster than this wakes it; slower ones (a resting pile,
a hanging cloth) treat it as fixed, so a box under a heap of balls can still sleep."""

PARTICLE_MARGIN = 2.0
"""px: particles listed near a box are this close or closer (the list is renewed every substep)."""


class BoxParticleSystem(System):
    """Pushes particles, and the ragdolls' bones, out of boxes and the boxes back each iteration (who
    is near whom: once a substep). The pushes' arguments are gathered at the substep's first
    iteration and kept for its others (as ``BoundsSystem`` keeps its own): gathered every
    iteration, their 17 slices took a third of a rag doll's 0.41 ms a frame in this system."""

    name = "box_particles"
    needs = ("particles", "boxes")

    def __init__(self) -> None:
        self._grid = BoxGrid()
        self._bones = Bones()
        self._braced = np.zeros(0, dtype=np.int64)
        self._pushes: tuple[Any, ...] | None = None
        """``push_out_of_boxes``' arguments for this substep (None: no particle near a box)."""

    def process(self, step: Step) -> None:
        stores = world.stores()
        store, particles = stores.rigid, stores.particles
        n, count = store.count, particles.count
        near = stores.near_boxes
        if n == 0 or count == 0:
            near.count = self._bones.count = 0
            self._pushes = None
            return
        if step.iteration == 0:
            self._list(stores)
            self._bones.list(stores, self._grid)
            self._brace(stores)
            self._pushes = self._sweep(stores, step) if near.count else None
        if self._pushes is not None:
            push_out_of_boxes(*self._pushes)
        if step.iteration == step.iterations - 1:
            self._bones.push(stores, step.dt, self._braced)  # once a substep: to stay on one side

    def _brace(self, stores: Stores) -> None:
        """Which way each box is braced (``brace_boxes``), from the box step just run, for the
        particles and bones listed near boxes."""
        store, contacts = stores.rigid, stores.contacts
        n, found = store.count, contacts.count
        if len(self._braced) < n:
            self._braced = np.zeros(store.pos.shape[0], dtype=np.int64)
        if found == 0 or stores.near_boxes.count + self._bones.count == 0:
            self._braced[:n] = 0
            return
        brace_boxes(
            contacts.a[:found],
            contacts.b[:found],
            contacts.normal[:found],
            contacts.gap[:found],
            store.inv_mass[:n],
            store.asleep[:n],
            self._braced[:n],
        )

    def _sweep(self, stores: Stores, step: Step) -> tuple[Any, ...]:
        """Sweep the listed particles into their boxes (once a substep, before the first push: what
        moved fast stops); returns the pushes' arguments for the substep's iterations."""
        store, particles, near = stores.rigid, stores.particles, stores.near_boxes
        n, count = store.count, particles.count
        pairs = (
            particles.pos[:count],
            particles.prev[:count],
            particles.inv_mass[:count],
            particles.radius[:count],
            *moving_boxes(store),
            store.island[:n],
            store.sleep_time[:n],
            near.particle[: near.count],
            near.box[: near.count],
            step.dt,
        )
        sweep_into_boxes(*pairs)
        return (*pairs, store.friction[:n], WAKE_SPEED, self._braced[:n])

    def _list(self, stores: Stores) -> None:
        """List the (particle, box) pairs near enough to touch during this substep."""
        store, particles, grid, near = stores.rigid, stores.particles, self._grid, stores.near_boxes
        count = particles.count
        # a particle near a box lies at most its half diagonal, the radius and the margin from its centre
        reach = store.ordinary_half + particles.max_radius + PARTICLE_MARGIN
        large_reach = store.max_half + particles.max_radius + PARTICLE_MARGIN
        bin_grid(grid, store, world.settings().walls, reach, large_reach)
        paths = tuple(getattr(particles, name)[:count] for name in ("pos", "prev", "radius", "kind"))
        near.count, near.particle, near.box = near_boxes(store, grid, paths, near.particle, near.box)


def moving_boxes(store: RigidStore) -> tuple[np.ndarray, ...]:
    """The boxes' rows a contact with them moves or reads: positions, angles, velocities, spins,
    inverse masses and inertias, half sizes and sleep flags, in the order the kernels take them."""
    n = store.count
    names = ("pos", "angle", "vel", "omega", "inv_mass", "inv_inertia", "half", "asleep")
    return tuple(getattr(store, name)[:n] for name in names)


def near_boxes(
    store: RigidStore, grid: BoxGrid, paths: tuple[np.ndarray, ...], first: np.ndarray, second: np.ndarray
) -> tuple[int, np.ndarray, np.ndarray]:
    """The (path, box) pairs ``list_near_boxes`` finds in ``grid`` for ``paths`` (starts, ends, radii
    and kinds), ``PARTICLE_MARGIN`` apart, into ``first`` and ``second`` (grown to hold them all):
    their count and the arrays."""
    n = store.count
    return fill_pairs(
        lambda out_first, out_second: list_near_boxes(
            *paths,
            store.pos[:n],
            store.angle[:n],
            store.half[:n],
            PARTICLE_MARGIN,
            store.large_count,
            grid.cells.for_kernels(),
            grid.large_cells.for_kernels(),
            out_first,
            out_second,
        ),
        first,
        second,
    )


class Bones:
    """The ragdolls' bones and braces near boxes: each from particle ``heads[k]`` to ``tails[k]``, as
    thick as its thinner joint, listed once a substep with the boxes it may touch (``count`` pairs)."""

    def __init__(self) -> None:
        self.heads = np.zeros(0, dtype=np.int64)
        self.tails = np.zeros(0, dtype=np.int64)
        self.radius = np.zeros(0)
        self.low = np.zeros((0, 2))
        self.high = np.zeros((0, 2))
        self.bone = np.zeros(64, dtype=np.int64)
        self.box = np.zeros(64, dtype=np.int64)
        self.count = 0
        self._made_of: tuple = ()

    def list(self, stores: Stores, grid: BoxGrid) -> None:
        """List the (bone, box) pairs near enough to touch this substep, from ``grid`` (binned for
        particles as thick as the thickest: no bone is thicker than its joints)."""
        self.count = 0
        if not self.gather(stores):
            return
        particles = stores.particles
        bone_bounds(particles.pos, particles.prev, self.heads, self.tails, self.low, self.high)
        # each bone as a path from its bounding box's lower corner to its upper one: the pairs whose
        # bounds meet, as for a particle's path
        paths = (self.low, self.high, self.radius, np.ones(len(self.heads), dtype=np.uint8))
        self.count, self.bone, self.box = near_boxes(stores.rigid, grid, paths, self.bone, self.box)

    def gather(self, stores: Stores) -> bool:
        """The ragdolls' bones and braces (their stiff links: a torso's edges too) in one list, made
        again only when the dolls or the particles change; whether there are any."""
        dolls = world.by_entity(Ragdoll)
        particles, distances = stores.particles, stores.distances
        links = [doll.constraints for _, doll in dolls]
        made_of = (particles.count, *((r.start, r.stop) for r in links))
        if made_of != self._made_of:
            self._made_of = made_of
            rows = np.concatenate([np.zeros(0, dtype=np.int64), *(np.arange(r.start, r.stop) for r in links)])
            self.heads = distances.i[rows].astype(np.int64)
            self.tails = distances.j[rows].astype(np.int64)
            self.radius = np.minimum(particles.radius[self.heads], particles.radius[self.tails])
            self.low = np.zeros((len(self.heads), 2))
            self.high = np.zeros((len(self.heads), 2))
        return len(self.heads) > 0

    def push(self, stores: Stores, dt: float, braced: np.ndarray) -> None:
        """One pass of the listed bones out of their boxes (``push_bones_out_of_boxes``); ``braced``:
        which ways each box is braced (``box_braces``)."""
        if self.count == 0:
            return
        particles = stores.particles
        count = particles.count
        push_bones_out_of_boxes(
            particles.pos[:count],
            particles.inv_mass[:count],
            self.heads,
            self.tails,
            self.radius,
            *moving_boxes(stores.rigid),
            self.bone[: self.count],
            self.box[: self.count],
            dt,
            stores.rigid.friction[: stores.rigid.count],
            braced[: stores.rigid.count],
        )
