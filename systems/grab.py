"""Grabbing: the mouse holds the nearest particle through a pin that follows the cursor."""

from __future__ import annotations

import esper
import numpy as np

from components import Grab, Stores
from components.tools import NOTHING
from systems import world
from systems.pins import pin, unpin
from systems.schedule import Stage, Step, System


def nearest_particle(stores: Stores, x: float, y: float, reach: float) -> int:
    """Index of the particle nearest to (x, y) within ``reach`` px, or ``NOTHING``.

    Ties go to the lowest index, so picking is reproducible.
    """
    particles = stores.particles
    n = particles.count
    if n == 0:
        return NOTHING
    offset = particles.pos[:n] - (x, y)
    dist2 = np.einsum("ij,ij->i", offset, offset)
    k = int(np.argmin(dist2))
    return k if dist2[k] <= reach * reach else NOTHING


class GrabSystem(System):
    """Turns each ``Grab`` into a pin: picked on press, moved with the cursor, released on release.

    Grabbing a pinned point moves its pin instead: it stays where it is dropped.
    """

    name = "grab"
    stage = Stage.FRAME_START

    def process(self, step: Step) -> None:
        stores = world.stores()
        pins = stores.pins
        for entity, grab in sorted(esper.get_component(Grab), key=lambda item: item[0]):
            if grab.held and grab.particle == NOTHING:
                grab.particle = nearest_particle(stores, *grab.target, grab.reach)
                if grab.particle != NOTHING and pins.find(grab.particle) < 0:
                    pin(stores, grab.particle, stores.particles.pos[grab.particle], owner=entity, glide=False)
            if grab.particle == NOTHING:
                continue
            row = pins.find(grab.particle)
            if row < 0:  # the pin went away under us (a re-layout of pins)
                grab.particle = NOTHING
            elif grab.held:
                pins.anchor[row] = grab.target
            else:
                if pins.owner[row] == entity:
                    unpin(stores, row)
                grab.particle = NOTHING
