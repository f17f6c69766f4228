"""Tearing: overloaded threads break after relaxation, dependents follow."""

from __future__ import annotations

from typing import Any

from weft.components import DistanceStore, Stores
from weft.systems import world
from weft.systems.kernels.tear import break_overstretched, kill_orphans
from weft.systems.schedule import Step, System


def kill_dependents(stores: Stores) -> None:
    """Break the hidden threads (shear, bend) whose structural threads broke."""
    distances = stores.distances
    m = distances.count
    kill_orphans(distances.alive[:m], distances.parents[:m])


def tearing(distances: DistanceStore) -> tuple[Any, ...]:
    """``break_overstretched``'s arguments after the positions: the threads' ends, rest lengths,
    alive flags, then ``tear_limits``."""
    m = distances.count
    return distances.i[:m], distances.j[:m], distances.rest[:m], distances.alive[:m], *tear_limits(distances)


def tear_limits(distances: DistanceStore) -> tuple[Any, Any]:
    """The threads' tear ratios and parents (``break_overstretched``'s last two arguments)."""
    m = distances.count
    return distances.tear_ratio[:m], distances.parents[:m]


class TearSystem(System):
    """Breaks every thread stretched past its tear ratio, then the threads leaning on it."""

    name = "tear"
    needs = ("particles", "threads")

    def process(self, step: Step) -> None:
        stores = world.stores()
        break_overstretched(stores.particles.pos, *tearing(stores.distances))
