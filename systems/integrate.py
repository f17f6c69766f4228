"""Verlet integration of every particle under gravity and wind."""

from __future__ import annotations

from collections.abc import Callable

from weft.components import WorldSettings
from weft.systems import world
from weft.systems.cloth_step import cloth_substep
from weft.systems.kernels.verlet import Motion, integrate
from weft.systems.schedule import Step, System


class IntegrateSystem(System):
    """Moves every free particle by its Verlet velocity plus gravity and wind."""

    name = "integrate"
    needs = ("particles",)

    def fused_substep(
        self, head: list[System], iterations: list[System], tail: list[System], step: Step
    ) -> Callable[[], bool] | None:
        """The whole substep in one kernel call where it is a cloth's alone (``cloth_step``)."""
        return cloth_substep(head, iterations, tail, step, motion)

    def process(self, step: Step) -> None:
        particles = world.stores().particles
        n = particles.count
        integrate(
            particles.pos[:n], particles.prev[:n], particles.inv_mass[:n], *motion(world.settings(), step)
        )


def motion(settings: WorldSettings, step: Step) -> Motion:
    """``integrate``'s arguments after the particle arrays, for this substep: gravity, the mean
    wind, its gust, the time, the damping of one substep and its length. Floats: a number set as
    an int would type the kernels that take the tuple anew (a compile in the middle of a game)."""
    wind_x, wind_y = settings.wind.vector
    gravity_x, gravity_y = settings.gravity
    damping = settings.damping ** (1.0 / step.substeps)  # damping is per 1/60 s frame
    wind = (float(wind_x), float(wind_y), float(settings.wind.gust))
    return float(gravity_x), float(gravity_y), *wind, step.time, float(damping), step.dt
