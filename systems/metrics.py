"""Measurements of a run: how much moves, how stretched, how torn, and a hash of the state."""

from __future__ import annotations

import hashlib
import math
from collections import deque

import esper
import numpy as np

from weft.components import BallSet, BoxSet, Sheet, Skinned, SoftBody, Stores
from weft.systems import world
from weft.systems.kernels.measure import (
    deepest_gap,
    deepest_overlap,
    farthest_box_move,
    farthest_particle_move,
)
from weft.systems.schedule import Step, System

SETTLE_DISTANCE = 0.01
"""px per frame: below this everywhere, the world counts as settled."""

SETTLE_FRAMES = 30
"""Still frames that must follow a settled frame: half a second, Box2D's time to sleep."""

PENETRATION_WINDOW = 60
"""Frames over which ``max_penetration`` is taken: the last second."""


def max_stretch(stores: Stores) -> float:
    """Worst relative stretch ``|p_i - p_j| / rest - 1`` over alive constraints (0 when none)."""
    d = stores.distances
    m = d.count
    alive = d.alive[:m] & (d.rest[:m] > 0.0)  # a link of no length has no stretch to speak of
    if not alive.any():
        return 0.0
    pos = stores.particles.pos
    i = d.i[:m][alive]
    j = d.j[:m][alive]
    length = np.linalg.norm(pos[i] - pos[j], axis=1)
    return float(np.max(length / d.rest[:m][alive] - 1.0))


def cloth_threads() -> tuple[int, int]:
    """The structural threads of every sheet of the active world, and how many of them are torn or
    cut: the threads a player sees (the hidden shear and bend threads die with them, and creatures'
    and characters' constraints are no threads)."""
    alive = world.stores().distances.alive
    threads = torn = 0
    for _, sheet in world.by_entity(Sheet):
        rows = alive[sheet.structural.start : sheet.structural.stop]
        threads += len(rows)
        torn += len(rows) - int(np.count_nonzero(rows))
    return threads, torn


def state_hash(stores: Stores) -> str:
    """sha256 of every particle position, box pose and bone frame (float64 bytes): equal for
    bit-identical runs. Bones count for keyframed characters, which have no particles."""
    n = stores.particles.count
    digest = hashlib.sha256(np.ascontiguousarray(stores.particles.pos[:n]).tobytes())
    boxes = stores.rigid
    if boxes.count:
        digest.update(np.ascontiguousarray(boxes.pos[: boxes.count]).tobytes())
        digest.update(np.ascontiguousarray(boxes.angle[: boxes.count]).tobytes())
    bones = bone_frames()
    if len(bones):
        digest.update(np.ascontiguousarray(bones).tobytes())
    return digest.hexdigest()


NO_BONES = np.zeros((0, 2, 3))
NO_BONES.flags.writeable = False
"""``bone_frames`` of a world without skeletons (most): one shared empty array, not a new one a frame."""


def bone_frames() -> np.ndarray:
    """Every skeleton's bone frames, ``(bones, 2, 3)`` in entity order (``NO_BONES`` without
    skeletons): a new array, not a view of the poses."""
    skeletons = world.by_entity(Skinned)
    if not skeletons:
        return NO_BONES
    return np.concatenate([skinned.skeleton.pose for _, skinned in skeletons])


def box_moves(stores: Stores, last: np.ndarray) -> float:
    """The farthest any point of any box moved since the poses ``last`` ``(n, 3)``: centre move plus
    turn times half diagonal, px. ``last`` then holds the poses of now (infinity, and no update,
    when the box count changed)."""
    boxes = stores.rigid
    n = boxes.count
    if n == 0:
        return 0.0
    if len(last) != n:
        return math.inf
    return farthest_box_move(boxes.pos[:n], boxes.angle[:n], boxes.half[:n], last)


def box_poses(stores: Stores) -> np.ndarray:
    """Every box's ``(x, y, angle)``, a copy ``(n, 3)``."""
    boxes = stores.rigid
    n = boxes.count
    return np.column_stack([boxes.pos[:n], boxes.angle[:n]])


def deepest_box_overlap(stores: Stores) -> float:
    """The deepest overlap of any box contact at the end of the last step, px (0 when none)."""
    contacts = stores.contacts
    if contacts.count == 0:  # a world without box contacts (cloth, circles) calls no kernel
        return 0.0
    return deepest_gap(contacts.gap[: contacts.count])


class MetricsSystem(System):
    """Records, each frame, the largest distance any particle or box moved and the deepest overlap.

    ``begin`` must be called once the world is built, to take the first snapshot.
    """

    name = "metrics"

    def __init__(self) -> None:
        self._last = np.zeros((0, 2))
        self._last_boxes = np.zeros((0, 3))
        self._last_bones = NO_BONES
        # what the two questions need of the past, in constant memory (a game runs for hours)
        self._frames = 0
        """Frames recorded since ``begin``."""
        self._last_moving = -1
        """The last of them (counted from 0) in which something moved more than ``SETTLE_DISTANCE``
        (-1: none did)."""
        self._overlaps: deque[float] = deque(maxlen=PENETRATION_WINDOW)
        """The deepest overlap at the end of each of the last ``PENETRATION_WINDOW`` frames, px."""

    def begin(self, stores: Stores) -> None:
        """Snapshot the positions the first frame will be compared with."""
        self._last = stores.particles.pos[: stores.particles.count].copy()
        self._last_boxes = box_poses(stores)
        self._last_bones = bone_frames()
        self._frames, self._last_moving = 0, -1
        self._overlaps.clear()

    def record_move(self, move: float) -> None:
        """Count one more frame, in which the farthest anything moved was ``move`` px."""
        if move > SETTLE_DISTANCE:
            self._last_moving = self._frames
        self._frames += 1

    def process(self, step: Step) -> None:
        stores = world.stores()
        particles = stores.particles
        pos = particles.pos[: particles.count]
        pairs = stores.broadphase.pair_count
        overlap = deepest_box_overlap(stores)
        if pairs:
            overlap = max(
                overlap,
                deepest_overlap(
                    particles.pos,
                    particles.radius,
                    stores.broadphase.pair_i[:pairs],
                    stores.broadphase.pair_j[:pairs],
                ),
            )
        self._overlaps.append(overlap)
        if len(pos) != len(self._last):
            move = math.inf  # particles appeared or vanished: the world is not settled
            self._last = pos.copy()
        else:  # no call without particles: a µs a frame
            move = farthest_particle_move(pos, self._last) if len(pos) else 0.0
        if stores.rigid.count:
            move = max(move, box_moves(stores, self._last_boxes))
            if len(self._last_boxes) != stores.rigid.count:
                self._last_boxes = box_poses(stores)
        bones = bone_frames()
        if len(bones):
            # a bone's origin moving, or its x axis turning (times a px of reach), is motion
            if bones.shape == self._last_bones.shape:
                move = max(move, float(np.abs(bones - self._last_bones).max()))
            self._last_bones = bones
        self.record_move(move)

    def max_penetration(self) -> float:
        """The deepest overlap of the last second, px."""
        return max(self._overlaps, default=0.0)

    def settled_frame(self) -> int | None:
        """First frame after which nothing moved more than ``SETTLE_DISTANCE`` a frame, for at least
        ``SETTLE_FRAMES`` frames to the end of the run; None if never (0: nothing ever moved).

        Frame ``F`` is settled when frames ``F + 1`` to the last are all still. Without the witnesses,
        the last frame but one was reported whenever the last frame alone was still (a ball at the top
        of a bounce, a run ended at that moment): a frame with nothing after it says nothing.
        """
        settled = self._last_moving + 1  # the record counted k is frame k + 1
        return settled if self._frames - settled >= SETTLE_FRAMES else None


BODY_TYPES = (Sheet, BallSet, SoftBody, BoxSet, Skinned)
"""Component types that make an entity a body, for ``counts.bodies``."""


def body_count() -> int:
    """How many body entities the world holds."""
    return sum(len(esper.get_component(kind)) for kind in BODY_TYPES)
