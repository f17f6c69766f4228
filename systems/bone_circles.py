"""A ragdoll's bones against circles: the segments between joints pushed off the pegs and balls they
cross, and those off them, once a substep."""

from __future__ import annotations

from weft.systems import world
from weft.systems.box_particles import Bones
from weft.systems.kernels.bone_circles import push_bones_off_circles
from weft.systems.schedule import Step, System


class BoneCircleSystem(System):
    """Pushes the ragdolls' bones and the circles they cross apart, in the substep's last iteration
    (as the bones and boxes: once a substep keeps a bone on its side of a peg)."""

    name = "bone_circles"
    needs = ("ragdolls", "colliding")

    def __init__(self) -> None:
        self._bones = Bones()

    def idle(self, step: Step) -> bool:
        return world.stores().particles.circles == 0

    def process(self, step: Step) -> None:
        if step.iteration != step.iterations - 1:  # ``idle`` is asked once a substep, not an iteration
            return
        stores = world.stores()
        particles = stores.particles
        if not self._bones.gather(stores):
            return
        n = particles.count
        bones = self._bones
        rows = tuple(getattr(particles, name)[:n] for name in ("pos", "inv_mass", "radius", "kind", "owner"))
        push_bones_off_circles(*rows, bones.heads, bones.tails, bones.radius)
