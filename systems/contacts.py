"""Which bodies touch, and what tore: the frame's events, sent through esper's own.

At the end of each frame, while a handler listens, the pairs of bodies
(entities) in contact are compared with the last frame's, and esper sends
``weft.contact_begin`` and ``weft.contact_end`` with ``(entity_a, entity_b)``
(``entity_a < entity_b``), pair by pair in order, and ``weft.torn`` with
``(sheet entity, threads torn or cut this frame)``. Events go to the esper
world the physics lives in, so ``esper.set_handler`` in the user's world hears them.

A pair touches when some particle or box of one is within ``TOUCH`` px of
some particle or box of the other; once touching it stays so until every
gap between them is beyond ``RELEASE`` px. The gap between them keeps a resting
ball from flickering between touching and not as the solver settles it.
The walls are not bodies: nothing is sent for them.
"""

from __future__ import annotations

import esper
import numpy as np
import numpy.typing as npt

from weft.components import Body, Sheet, Stores
from weft.systems import world
from weft.systems.schedule import Step, System

TOUCH = 0.5
"""px: a pair not touching before touches from this gap down (resting contacts sit between the
solver's slop, 0.4 px deep, and a few tenths of a px apart)."""

RELEASE = 2.0
"""px: a touching pair lets go beyond this gap."""

CONTACT_BEGIN = "weft.contact_begin"
CONTACT_END = "weft.contact_end"
TORN = "weft.torn"

PAIR_CODE = 1 << 31
"""A pair of entities (ids below 2³¹) as one integer: ``a * PAIR_CODE + b``."""

IntArray = npt.NDArray[np.int64]


def particle_gaps(stores: Stores) -> tuple[IntArray, IntArray, npt.NDArray[np.float64]]:
    """The owners of each listed particle pair and the gap between their surfaces, px."""
    particles, broadphase = stores.particles, stores.broadphase
    pairs = broadphase.pair_count
    if particles.count == 0 or pairs == 0:
        return _none()
    i = broadphase.pair_i[:pairs].astype(np.int64)
    j = broadphase.pair_j[:pairs].astype(np.int64)
    offset = particles.pos[i] - particles.pos[j]
    gap = np.hypot(offset[:, 0], offset[:, 1]) - particles.radius[i] - particles.radius[j]
    return particles.owner[i], particles.owner[j], gap


def box_gaps(stores: Stores) -> tuple[IntArray, IntArray, npt.NDArray[np.float64]]:
    """The owners of each box-box contact point of the last step and its gap, px (walls left out)."""
    contacts, rigid = stores.contacts, stores.rigid
    count = contacts.count
    if rigid.count == 0 or count == 0:
        return _none()
    a, b = contacts.a[:count], contacts.b[:count]
    boxes = b >= 0
    return rigid.owner[a[boxes]], rigid.owner[b[boxes]], contacts.gap[:count][boxes]


def particle_box_gaps(stores: Stores) -> tuple[IntArray, IntArray, npt.NDArray[np.float64]]:
    """The owners of each (particle, box) pair near each other and the gap between the particle's
    surface and the box's, px (a point inside a box has a negative gap)."""
    near, particles, rigid = stores.near_boxes, stores.particles, stores.rigid
    if near.count == 0 or rigid.count == 0:
        return _none()
    p, k = near.particle[: near.count], near.box[: near.count]
    offset = particles.pos[p] - rigid.pos[k]
    c, s = np.cos(rigid.angle[k]), np.sin(rigid.angle[k])
    along, across = c * offset[:, 0] + s * offset[:, 1], -s * offset[:, 0] + c * offset[:, 1]
    local = np.abs(np.column_stack([along, across]))  # the particle's centre in the box's frame
    outside = np.maximum(local - rigid.half[k], 0.0)
    # distance to the box: to its surface from outside, minus the depth to the nearest face inside
    distance = np.where(
        (outside > 0.0).any(axis=1),
        np.hypot(outside[:, 0], outside[:, 1]),
        -np.min(rigid.half[k] - local, axis=1),
    )
    return particles.owner[p], rigid.owner[k], distance - particles.radius[p]


def _none() -> tuple[IntArray, IntArray, npt.NDArray[np.float64]]:
    empty = np.zeros(0, dtype=np.int64)
    return empty, empty, np.zeros(0)


def touching_pairs(stores: Stores, touching: IntArray) -> IntArray:
    """The pair codes of the bodies in contact now, sorted; ``touching`` are last frame's (they hold
    on to ``RELEASE``)."""
    found = [np.zeros(0, dtype=np.int64)]
    for a, b, gap in (particle_gaps(stores), box_gaps(stores), particle_box_gaps(stores)):
        apart = a != b
        a, b, gap = a[apart], b[apart], gap[apart]
        code = np.minimum(a, b) * PAIR_CODE + np.maximum(a, b)
        held = np.isin(code, touching)
        found.append(code[(gap <= TOUCH) | (held & (gap <= RELEASE))])
    return np.unique(np.concatenate(found))


class ContactEventSystem(System):
    """Sends ``weft.contact_begin``/``weft.contact_end`` and ``weft.torn`` at the end of each frame
    while a handler listens (no handler: nothing is measured)."""

    name = "contact_events"

    def __init__(self) -> None:
        self.touching = np.zeros(0, dtype=np.int64)
        """Pair codes of the bodies in contact at the end of the last frame."""
        self.alive: dict[int, int] = {}
        """Each sheet's structural threads alive at the end of the last frame."""

    def process(self, step: Step) -> None:
        listening = esper.event_registry
        if CONTACT_BEGIN in listening or CONTACT_END in listening:
            self._contacts(world.stores())
        elif len(self.touching):
            self.touching = np.zeros(0, dtype=np.int64)  # nobody listens: start afresh when one does
        if TORN in listening:
            self._tears(world.stores())
        else:
            self.alive.clear()

    def _contacts(self, stores: Stores) -> None:
        bodies = {entity for entity, _ in esper.get_component(Body)}
        now = touching_pairs(stores, self.touching)
        begun = np.setdiff1d(now, self.touching)
        ended = np.setdiff1d(self.touching, now)
        self.touching = now
        for event, codes in ((CONTACT_END, ended), (CONTACT_BEGIN, begun)):
            for code in codes.tolist():
                a, b = divmod(code, PAIR_CODE)
                if a in bodies and b in bodies:  # a body removed meanwhile says nothing more
                    esper.dispatch_event(event, a, b)

    def _tears(self, stores: Stores) -> None:
        alive = stores.distances.alive
        counts = {}
        for entity, sheet in world.by_entity(Sheet):
            counts[entity] = int(np.count_nonzero(alive[sheet.structural.start : sheet.structural.stop]))
        for entity, count in counts.items():
            torn = self.alive.get(entity, count) - count
            if torn > 0:
                esper.dispatch_event(TORN, entity, torn)
        self.alive = counts
