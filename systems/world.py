"""How systems reach the world entity's components, and every entity's, in a reproducible order."""

from __future__ import annotations

import esper

from components import Clock, Stores, WorldSettings


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
    """esper's (entity, component) pairs sorted by entity: esper's own order is hash order."""
    return sorted(esper.get_component(component), key=lambda item: item[0])
