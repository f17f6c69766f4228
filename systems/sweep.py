"""Continuous collision: fast circles are swept along their step so none passes through another."""

from __future__ import annotations

from weft.systems import world
from weft.systems.kernels.sweep import sweep_fast_circles
from weft.systems.schedule import Step, System


class SweepSystem(System):
    """Stops every circle that moved more than its radius this substep at its first touch."""

    name = "sweep"
    needs_particles = True

    def process(self, step: Step) -> None:
        stores = world.stores()
        broadphase = stores.broadphase
        if not broadphase.fresh:
            return  # the broadphase saw no circle fast enough to sweep
        particles = stores.particles
        n = particles.count
        sweep_fast_circles(
            particles.pos[:n],
            particles.prev[:n],
            particles.inv_mass[:n],
            particles.radius[:n],
            particles.kind[:n],
            broadphase.cell_of[:n],
            broadphase.left,
            broadphase.bottom,
            broadphase.cell,
            broadphase.cols,
            broadphase.rows,
            broadphase.cell_start,
            broadphase.order,
            broadphase.cell_key[: broadphase.occupied],
            broadphase.block_start,
            particles.max_radius,
        )
