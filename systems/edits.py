"""Taking a body out of the stores between two frames, and telling the stores a body came in.

Removing a body deletes its rows from every store and closes the gaps, as
Box2D's solver sets do: the rows after it move down, keeping their order
(the Gauss-Seidel order of everything else is the same as before). Every
index a remaining body or tool holds is rewritten through the old -> new
row map, so the other bodies' positions, velocities and constraints are
untouched bit for bit. What the steps keep from frame to frame is made to
match: the circle pairs and box pairs are listed anew, and the box contacts'
keys (which name their two boxes by row, counted against the number of
boxes) are rewritten, so resting stacks keep their warm start.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from weft.components import BoxSet, CutStroke, Grab, ParticleKind, Ragdoll, Sheet, SoftBody, Stores
from weft.components.distances import ARRAYS as DISTANCE_ARRAYS
from weft.components.distances import NO_PARENT
from weft.components.particles import ARRAYS as PARTICLE_ARRAYS
from weft.components.pins import ARRAYS as PIN_ARRAYS
from weft.components.rigid import ARRAYS as RIGID_ARRAYS
from weft.components.rigid import CONTACT_ARRAYS, PLANES
from weft.components.tools import NOTHING
from weft.systems.boxes import wake_all, wake_islands
from weft.systems.kernels.box_contacts import FEATURES
from weft.systems.world import by_entity

IntArray = npt.NDArray[np.int64]


class RowMap:
    """Where the rows of a store went when some were removed: ``new[old]`` (-1 for a removed row)
    and ``before[old]``, the rows kept before ``old`` (a range ``[a, b)`` becomes
    ``[before[a], before[b])``)."""

    def __init__(self, keep: npt.NDArray[np.bool_]) -> None:
        self.keep = keep
        self.before = np.concatenate([[0], np.cumsum(keep)]).astype(np.int64)
        self.new = np.where(keep, self.before[:-1], -1)

    @property
    def identity(self) -> bool:
        """Whether no row was removed."""
        return bool(self.keep.all())

    def range(self, rows: range) -> range:
        """A range of kept rows, moved to where they are now."""
        return range(int(self.before[rows.start]), int(self.before[rows.stop]))

    def rows(self, rows: IntArray) -> IntArray:
        """Kept rows, moved."""
        return self.new[rows]


def _compact(store: object, names: tuple[str, ...], keep: npt.NDArray[np.bool_]) -> int:
    """Keep the rows ``keep`` marks of each array ``names`` of ``store`` (rows ``[0, len(keep))``),
    in order, at the front; returns how many were kept (the store's count from now)."""
    kept = int(keep.sum())
    for name in names:
        array = getattr(store, name)
        array[:kept] = array[: len(keep)][keep]
    return kept


def remove_rows(stores: Stores, entity: int) -> None:
    """Delete every particle, thread, pin and box of ``entity`` and close the gaps; the remaining
    bodies' components (found in the active world) and the tools are moved along."""
    particles, distances, rigid = stores.particles, stores.distances, stores.rigid
    particle_map = RowMap(particles.owner[: particles.count] != entity)
    thread_map = RowMap(distances.owner[: distances.count] != entity)
    box_map = RowMap(rigid.owner[: rigid.count] != entity)
    if not particle_map.identity:
        _remove_particles(stores, particle_map, thread_map, entity)
    if not box_map.identity:
        _remove_boxes(stores, box_map)
    if not (particle_map.identity and box_map.identity):
        stores.near_boxes.count = 0  # rows of before: listed anew next substep
    _move_components(particle_map, thread_map, box_map, entity)


def _remove_particles(stores: Stores, particle_map: RowMap, thread_map: RowMap, entity: int) -> None:
    particles, distances, pins = stores.particles, stores.distances, stores.pins
    particles.count = n = _compact(particles, PARTICLE_ARRAYS, particle_map.keep)
    kinds = particles.kind[:n]
    particles.circles = int((kinds == ParticleKind.CIRCLE).sum())
    particles.rings = int((kinds == ParticleKind.RING).sum())
    particles.max_radius = float(particles.radius[:n].max()) if n else 0.0

    distances.count = m = _compact(distances, DISTANCE_ARRAYS, thread_map.keep)
    distances.i[:m] = particle_map.rows(distances.i[:m].astype(np.int64))
    distances.j[:m] = particle_map.rows(distances.j[:m].astype(np.int64))
    parents = distances.parents[:m]
    leaning = parents != NO_PARENT
    parents[leaning] = thread_map.rows(parents[leaning])  # a parent removed is -1: NO_PARENT
    distances.parents[m : len(thread_map.keep)] = NO_PARENT

    p = pins.count
    held = pins.index[:p]
    keep = (pins.owner[:p] != entity) & particle_map.keep[held]
    pins.count = _compact(pins, PIN_ARRAYS, keep)
    pins.index[: pins.count] = particle_map.rows(pins.index[: pins.count])

    stores.broadphase.pair_count = 0
    stores.broadphase.listed_at = np.zeros((0, 2))  # the circle pairs are listed anew
    wake_all(stores.rigid)  # a box may have rested on what went


def _remove_boxes(stores: Stores, box_map: RowMap) -> None:
    rigid, contacts = stores.rigid, stores.contacts
    old = rigid.count
    removed = ~box_map.keep
    # what rested on (or with) a removed box wakes: its island, and the boxes it touched with theirs
    rows = contacts.count
    a, b = contacts.a[:rows], contacts.b[:rows]
    touching = removed[a] | ((b >= 0) & removed[np.maximum(b, 0)])
    others = np.concatenate([a[touching], b[touching][b[touching] >= 0]])
    wake_islands(rigid, np.concatenate([np.flatnonzero(removed), others]))

    rigid.count = n = _compact(rigid, RIGID_ARRAYS, box_map.keep)
    asleep = rigid.island[:n] >= 0
    rigid.island[:n][asleep] = box_map.rows(rigid.island[:n][asleep])
    rigid.measure_sizes()

    contacts.count = k = _compact(contacts, CONTACT_ARRAYS, ~touching)
    contacts.a[:k] = box_map.rows(contacts.a[:k])
    walls = contacts.b[:k] < 0
    contacts.b[:k] = np.where(walls, contacts.b[:k], box_map.rows(np.maximum(contacts.b[:k], 0)))
    rekey_contacts(stores, old, box_map)


def rekey_contacts(stores: Stores, old_count: int, box_map: RowMap | None = None) -> None:
    """Rewrite the kept box contacts' keys for the rows and the box count there are now (after
    boxes were added or removed), and have the pairs listed anew: the next step then warm starts
    every point whose two boxes and features are still there (``contact_key``)."""
    contacts, n = stores.contacts, stores.rigid.count
    k = contacts.count
    for name in ("key", "last_key"):
        key = getattr(contacts, name)[:k]
        feature = key % FEATURES
        pair = key // FEATURES
        a, b = pair // (old_count + PLANES), pair % (old_count + PLANES) - PLANES
        if box_map is not None:
            a = box_map.rows(a)
            b = np.where(b < 0, b, box_map.rows(np.maximum(b, 0)))
        key[:] = ((a * (n + PLANES)) + (b + PLANES)) * FEATURES + feature
    contacts.groups = -1  # no step had these groups: warm start by key, not by pair
    stores.box_grid.listed_pos = np.zeros((0, 2))  # the box pairs are listed anew


def _move_components(particle_map: RowMap, thread_map: RowMap, box_map: RowMap, removed: int) -> None:
    """Rewrite the rows every remaining body and tool of the active world holds."""

    def remaining(kind: type) -> list:
        return [component for entity, component in by_entity(kind) if entity != removed]

    if not particle_map.identity or not thread_map.identity:
        for sheet in remaining(Sheet):
            sheet.particles = particle_map.range(sheet.particles)
            sheet.threads = thread_map.range(sheet.threads)
            sheet.structural = thread_map.range(sheet.structural)
            sheet.cells = particle_map.rows(sheet.cells)
            sheet.cell_threads = thread_map.rows(sheet.cell_threads)
        for body in remaining(SoftBody):
            body.ring = particle_map.rows(body.ring)
            legs = body.legs
            legs.root_a, legs.root_b = particle_map.rows(legs.root_a), particle_map.rows(legs.root_b)
            legs.knee, legs.foot = particle_map.rows(legs.knee), particle_map.rows(legs.foot)
        for doll in remaining(Ragdoll):
            doll.particles = particle_map.range(doll.particles)
            doll.constraints = thread_map.range(doll.constraints)
            doll.heads, doll.tails = particle_map.rows(doll.heads), particle_map.rows(doll.tails)
            doll.a, doll.b, doll.c = (
                particle_map.rows(doll.a),
                particle_map.rows(doll.b),
                particle_map.rows(doll.c),
            )
    if not box_map.identity:
        for boxes in remaining(BoxSet):
            boxes.bodies = box_map.range(boxes.bodies)
    for _, stroke in by_entity(CutStroke):
        if stroke.then is not None and not particle_map.identity:
            stroke.then = stroke.then[particle_map.keep[: len(stroke.then)]]
    for _, grab in by_entity(Grab):
        if grab.particle != NOTHING:
            grab.particle = int(particle_map.new[grab.particle])
            grab.held = grab.held and grab.particle != NOTHING  # what it held is gone: let go
        if grab.box != NOTHING:
            grab.box = int(box_map.new[grab.box])
            grab.held = grab.held and grab.box != NOTHING
