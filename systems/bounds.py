"""The level's walls: points stop and drag on the floor, circles bounce and slide."""

from __future__ import annotations

from weft.components.world import REST_SPEED
from weft.systems import world
from weft.systems.kernels.bounds import clamp_to_bounds
from weft.systems.schedule import Step, System


class BoundsSystem(System):
    """Puts particles that left the walls' rectangle back inside it, every iteration."""

    name = "bounds"
    needs_particles = True

    def process(self, step: Step) -> None:
        settings = world.settings()
        particles = world.stores().particles
        n = particles.count
        left, bottom, right, top = settings.walls
        clamp_to_bounds(
            particles.pos[:n],
            particles.prev[:n],
            particles.radius[:n],
            particles.inv_mass[:n],
            particles.kind[:n],
            left,
            bottom,
            right,
            top,
            settings.floor_friction,
            settings.restitution,
            settings.friction,
            REST_SPEED * step.dt,
            settings.wall_velocity[0] * step.dt,
            settings.wall_velocity[1] * step.dt,
        )


class ContainSystem(BoundsSystem):
    """The walls once more at the end of the substep: the last contact pass may have pushed a
    circle into a wall, and nothing may end a step outside the box."""

    name = "contain"
    needs_particles = True
