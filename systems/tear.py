"""Tearing: overloaded threads break after relaxation, dependents follow."""

from __future__ import annotations

from weft.components import Stores
from weft.systems import world
from weft.systems.kernels.tear import kill_orphans, tear_overstretched
from weft.systems.schedule import Step, System


def kill_dependents(stores: Stores) -> None:
    """Break the hidden threads (shear, bend) whose structural threads broke."""
    distances = stores.distances
    m = distances.count
    kill_orphans(distances.alive[:m], distances.parents[:m])


class TearSystem(System):
    """Breaks every thread stretched past its tear ratio, then the threads leaning on it."""

    name = "tear"
    needs_particles = True

    def idle(self, step: Step) -> bool:
        return world.stores().distances.count == 0

    def process(self, step: Step) -> None:
        stores = world.stores()
        distances = stores.distances
        m = distances.count
        torn = tear_overstretched(
            stores.particles.pos,
            distances.i[:m],
            distances.j[:m],
            distances.rest[:m],
            distances.tear_ratio[:m],
            distances.alive[:m],
        )
        if torn:
            kill_dependents(stores)
