"""The level's rectangle: walls, ceiling and a floor with friction."""

from __future__ import annotations

from systems import world
from systems.kernels.bounds import clamp_to_bounds
from systems.schedule import Stage, Step, System


class BoundsSystem(System):
    """Puts particles that left the level's rectangle back on its edge."""

    name = "bounds"
    stage = Stage.ITERATION
    after = ("distances",)

    def process(self, step: Step) -> None:
        settings = world.settings()
        particles = world.stores().particles
        n = particles.count
        left, bottom, right, top = settings.bounds
        clamp_to_bounds(
            particles.pos[:n],
            particles.prev[:n],
            particles.radius[:n],
            particles.inv_mass[:n],
            left,
            bottom,
            right,
            top,
            settings.floor_friction,
        )
