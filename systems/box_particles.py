"""Particles meeting boxes: listed near them once a substep, swept into them, pushed out each iteration."""

from __future__ import annotations

from weft.components import BoxGrid, Stores
from weft.systems import world
from weft.systems.box_pairs import bin_grid, fill_pairs
from weft.systems.kernels.box_particles import list_near_boxes, push_out_of_boxes, sweep_into_boxes
from weft.systems.schedule import Step, System

WAKE_SPEED = 60.0
"""px/s: a particle hitting a sleeping box faster than this wakes it; slower ones (a resting pile,
a hanging cloth) treat it as fixed, so a box under a heap of balls can still sleep."""

PARTICLE_MARGIN = 2.0
"""px: particles listed near a box are this close or closer (the list is renewed every substep)."""


class BoxParticleSystem(System):
    """Pushes particles out of boxes and the boxes back each iteration (who is near whom: once a substep)."""

    name = "box_particles"
    needs = ("particles", "boxes")

    def __init__(self) -> None:
        self._grid = BoxGrid()

    def process(self, step: Step) -> None:
        stores = world.stores()
        store, particles = stores.rigid, stores.particles
        n, count = store.count, particles.count
        near = stores.near_boxes
        if n == 0 or count == 0:
            near.count = 0
            return
        if step.iteration == 0:
            self._list(stores)
        if near.count == 0:
            return
        pairs = (
            particles.pos[:count],
            particles.prev[:count],
            particles.inv_mass[:count],
            particles.radius[:count],
            store.pos[:n],
            store.angle[:n],
            store.vel[:n],
            store.omega[:n],
            store.inv_mass[:n],
            store.inv_inertia[:n],
            store.half[:n],
            store.asleep[:n],
            store.island[:n],
            store.sleep_time[:n],
            near.particle[: near.count],
            near.box[: near.count],
            step.dt,
        )
        if step.iteration == 0:
            sweep_into_boxes(*pairs)  # once a substep, before the first push: what moved fast stops
        push_out_of_boxes(*pairs, store.friction[:n], WAKE_SPEED)

    def _list(self, stores: Stores) -> None:
        """List the (particle, box) pairs near enough to touch during this substep."""
        store, particles, grid, near = stores.rigid, stores.particles, self._grid, stores.near_boxes
        n, count = store.count, particles.count
        # a particle near a box lies at most its half diagonal, the radius and the margin from its centre
        reach = store.ordinary_half + particles.max_radius + PARTICLE_MARGIN
        large_reach = store.max_half + particles.max_radius + PARTICLE_MARGIN
        bin_grid(grid, store, world.settings().walls, reach, large_reach)
        near.count, near.particle, near.box = fill_pairs(
            lambda out_particle, out_box: list_near_boxes(
                particles.pos[:count],
                particles.prev[:count],
                particles.radius[:count],
                particles.kind[:count],
                store.pos[:n],
                store.angle[:n],
                store.half[:n],
                PARTICLE_MARGIN,
                store.large_count,
                grid.cells.for_kernels(),
                grid.large_cells.for_kernels(),
                out_particle,
                out_box,
            ),
            near.particle,
            near.box,
        )
