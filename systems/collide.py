"""Contacts between circles (and between circles and cloth points), one pass per iteration."""

from __future__ import annotations

from weft.systems import world
from weft.systems.kernels.collide import collide_pairs
from weft.systems.schedule import Stage, Step, System


class CollisionSystem(System):
    """Pushes apart every overlapping pair the broadphase listed, with Coulomb friction."""

    name = "collisions"
    stage = Stage.ITERATION
    needs_particles = True
    # after the walls: the floor's push then travels up a pile within one pass (pairs are
    # solved bottom row first), and a 60-layer pile settles with half the overlap
    after = ("distances", "bounds")

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
