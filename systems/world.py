"""How systems reach the world entity's components, and every entity's, in a reproducible order."""

from __future__ import annotations

from operator import itemgetter

import esper

from weft.components import Clock, Ragdoll, Skinned, SoftBody, Stores, WorldSettings


def settings() -> WorldSettings:
    """The world's settings (gravity, iterations, bounds...), as the level and panel set them."""
    return esper.get_component(WorldSettings)[0][1]


def stores() -> Stores:
    """The particle and constraint buffers of the active world."""
    return esper.get_component(Stores)[0][1]


def clock() -> Clock:
    """The frame counter of the active world."""
    return esper.get_component(Clock)[0][1]


def by_entity(component: type) -> list:
    """esper's (entity, component) pairs sorted by entity: esper's own order is hash order.

    Most kinds have no entity or one, and systems ask every frame: those skip the sort.
    """
    items = esper.get_component(component)
    return sorted(items, key=itemgetter(0)) if len(items) > 1 else list(items)


KINDS = ("particles", "threads", "pins", "boxes", "colliding", "creatures", "ragdolls", "skins")
"""What a world may hold, by the names a system's ``needs`` gives (``weft.systems.schedule.System``):
any particle, distance constraints, pins, boxes, particles that collide (circles and the creatures'
rings), soft bodies, ragdolls and skinned characters."""


def kinds_present() -> tuple[bool, ...]:
    """Whether the active world holds each of ``KINDS``, in that order."""
    stores_now = stores()
    particles = stores_now.particles
    return (
        particles.count > 0,
        stores_now.distances.count > 0,
        stores_now.pins.count > 0,
        stores_now.rigid.count > 0,
        particles.circles + particles.rings > 0,
        bool(esper.get_component(SoftBody)),
        bool(esper.get_component(Ragdoll)),
        bool(esper.get_component(Skinned)),
    )
