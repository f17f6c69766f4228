"""Verlet integration of every particle under gravity and wind."""

from __future__ import annotations

from collections.abc import Callable

from weft.systems import world
from weft.systems.cloth_step import cloth_substep
from weft.systems.kernels.verlet import integrate
from weft.systems.schedule import Step, System


class IntegrateSystem(System):
    """Moves every free particle by its Verlet velocity plus gravity and wind."""

    name = "integrate"
    needs_particles = True

    def fused_substep(
        self, head: list[System], iterations: list[System], tail: list[System], step: Step
    ) -> Callable[[], None] | None:
        """The whole substep in one kernel call where it is a cloth's alone (``cloth_step``)."""
        return cloth_substep(head, iterations, tail, step)

    def process(self, step: Step) -> None:
        settings = world.settings()
        particles = world.stores().particles
        n = particles.count
        wind_x, wind_y = settings.wind.vector
        integrate(
            particles.pos[:n],
            particles.prev[:n],
            particles.inv_mass[:n],
            settings.gravity[0],
            settings.gravity[1],
            wind_x,
            wind_y,
            settings.wind.gust,
            step.time,
            # damping is per 1/60 s frame; spread it over the substeps
            settings.damping ** (1.0 / step.substeps),
            step.dt,
        )
