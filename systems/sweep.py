"""Continuous collision: fast circles are swept along their step so none passes through another."""

from __future__ import annotations

from weft.budgets import SWEEP_TESTS
from weft.systems import world
from weft.systems.kernels.sweep import sweep_fast_circles
from weft.systems.schedule import Step, System


class SweepSystem(System):
    """Stops every circle that moved more than its radius this substep at its first touch, within
    ``SWEEP_TESTS`` pair tests a frame.

    Each substep may spend what the frame's earlier substeps left, shared evenly over the substeps
    still to come; the fast circles past it (in index order) move one radius along their step, and
    the contact pass meets them there.
    """

    name = "sweep"
    needs = ("particles", "colliding")

    def __init__(self) -> None:
        super().__init__()
        self.tests = 0
        """Pair tests spent so far this frame."""

    def process(self, step: Step) -> None:
        if step.substep == 0:
            self.tests = 0
        stores = world.stores()
        broadphase = stores.broadphase
        if not broadphase.fresh:
            return  # the broadphase saw no circle fast enough to sweep
        particles = stores.particles
        n = particles.count
        allowed = (SWEEP_TESTS - self.tests) // max(1, step.substeps - step.substep)
        _, tests = sweep_fast_circles(
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
            allowed,
        )
        self.tests += tests
