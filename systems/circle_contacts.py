"""Contacts between circles (and between circles and cloth points), one pass per iteration."""

from __future__ import annotations

from weft.systems import world
from weft.systems.kernels.circle_contacts import collide_pairs
from weft.systems.schedule import Step, System


class CircleContactSystem(System):
    """Pushes apart every overlapping pair the broadphase listed, with Coulomb friction."""

    name = "circle_contacts"
    needs = ("particles",)

    def idle(self, step: Step) -> bool:
        return world.stores().broadphase.pair_count == 0

    def process(self, step: Step) -> None:
        stores = world.stores()
        broadphase = stores.broadphase
        count = broadphase.pair_count
        if count == 0:
            return
        particles = stores.particles
        collide_pairs(
            particles.pos,
            particles.prev,
            particles.inv_mass,
            particles.radius,
            broadphase.pair_i[:count],
            broadphase.pair_j[:count],
            world.settings().friction,
        )
