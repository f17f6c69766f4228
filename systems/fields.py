"""Tool forces: attract/repel fields every substep, explosions once."""

from __future__ import annotations

import esper

from components import Blasts, ForceField
from systems import world
from systems.kernels.fields import blast, push_radially
from systems.schedule import Stage, Step, System


def by_entity(component: type) -> list:
    """esper's (entity, component) pairs sorted by entity: esper's own order is hash order."""
    return sorted(esper.get_component(component), key=lambda item: item[0])


class FieldSystem(System):
    """Applies every active ``ForceField`` (attract, repel) to the particles around it."""

    name = "fields"
    stage = Stage.SUBSTEP
    after = ("integrate", "pins")

    def process(self, step: Step) -> None:
        fields = [field for _, field in by_entity(ForceField) if field.active and field.force != 0.0]
        if not fields:
            return
        particles = world.stores().particles
        n = particles.count
        for field in fields:
            push_radially(
                particles.pos[:n], particles.inv_mass[:n], *field.center, field.reach, field.force, step.dt
            )


class BlastSystem(System):
    """Gives the particles around each requested explosion an outward kick, once."""

    name = "blasts"
    stage = Stage.FRAME_START

    def process(self, step: Step) -> None:
        particles = world.stores().particles
        n = particles.count
        for _, blasts in by_entity(Blasts):
            for x, y, reach, impulse in blasts.pending:
                blast(
                    particles.pos[:n],
                    particles.prev[:n],
                    particles.inv_mass[:n],
                    x,
                    y,
                    reach,
                    impulse,
                    step.dt,
                )
            blasts.pending.clear()
