"""How systems reach the world entity's components, and every entity's, in a reproducible order."""

from __future__ import annotations

from operator import itemgetter

import esper

from weft.components import Clock, Stores, WorldSettings


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
