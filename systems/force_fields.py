"""Tool forces: attract/repel fields every substep, explosions once."""

from __future__ import annotations

from weft.components import REFERENCE_RADIUS, Blasts, ForceField, RigidStore
from weft.systems import world
from weft.systems.kernels.force_fields import blast, kick_boxes, push_radially
from weft.systems.schedule import Step, System


class FieldSystem(System):
    """Applies every active ``ForceField`` (attract, repel) to the particles and boxes around it."""

    name = "fields"

    def idle(self, step: Step) -> bool:
        return not _pushing()

    def process(self, step: Step) -> None:
        fields = _pushing()
        if not fields:
            return
        stores = world.stores()
        particles, boxes = stores.particles, stores.rigid
        n, m = particles.count, boxes.count
        for field in fields:
            push_radially(
                particles.pos[:n], particles.inv_mass[:n], *field.center, field.reach, field.force, step.dt
            )
            if m:
                kick(boxes, *field.center, field.reach, field.force * step.dt)


class BlastSystem(System):
    """Gives the particles and boxes around each requested explosion an outward kick, once."""

    name = "blasts"

    def process(self, step: Step) -> None:
        stores = world.stores()
        particles, boxes = stores.particles, stores.rigid
        n, m = particles.count, boxes.count
        for _, blasts in world.by_entity(Blasts):
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
                if m:
                    kick(boxes, x, y, reach, impulse)
            blasts.pending.clear()


def kick(boxes: RigidStore, x: float, y: float, reach: float, impulse: float) -> None:
    """Push the boxes within ``reach`` of (x, y) outward by ``impulse`` per unit mass times their
    width across the push over a reference circle's diameter (``kick_boxes``), falling off with
    distance; a box kicked awake wakes its island."""
    m = boxes.count
    kick_boxes(
        boxes.pos[:m],
        boxes.angle[:m],
        boxes.half[:m],
        boxes.vel[:m],
        boxes.inv_mass[:m],
        boxes.asleep[:m],
        boxes.island[:m],
        boxes.sleep_time[:m],
        x,
        y,
        reach,
        impulse,
        2.0 * REFERENCE_RADIUS,
    )


def _pushing() -> list[ForceField]:
    """The fields that push this substep: active, with a force."""
    return [field for _, field in world.by_entity(ForceField) if field.active and field.force != 0.0]
